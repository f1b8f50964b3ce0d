"""The first test of an env file's write (hookd.enrich.plain_env_write) against the full analysis: wherever it
answers, the facts are the full analysis' own, for every write of the policies' cases, the corpus (each in its
world), the golden file and the bench, and for env writes mutated toward what each check acts on: the checks'
own patterns and tables (command keys, scratch-space code, templates beside the file, variables that load code,
the catalogue's programs and files, the shell's syntax), inserted into the texts and the paths."""

from __future__ import annotations

import json
import random
import secrets
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import hypothesis
import pytest
from differential_support import ThrowawayWorld, policy_payloads
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hookd.dialects.registry import DEFAULT_AGENT
from hookd.enrich import first_test, plain_env_write
from hookd.enrich.config_commands import commands_in
from hookd.enrich.effects.catalogue import catalogue
from hookd.enrich.env_template import TEMPLATE_WORDS
from hookd.enrich.paths import enrich_paths
from hookd.enrich.plain_write import _CONFIG_SUFFIXES, PATH_TESTS, _names_a_reach
from hookd.enrich.tool_effects import enrich_tool_effects
from hookd.policytest import _make_world, _substitute, _unmake_world
from hookd.policytest.corpus import _payload
from hookd.types import NormalisedEvent

_REACH_WORDS = sys.modules[_names_a_reach.__module__]._REACH_WORDS  # the words of the reach test plain_write asks
QUICK = first_test.first_tested(enrich_tool_effects, plain_env_write.plain_env_write_effects)


def _write(path: str, text: str) -> dict[str, Any]:
    return {**_payload({"tool": "write", "path": path}), "tool_input": {"file_path": path, "content": text}}


BENCH_ENV = _write(".env", "KEY=1\n")  # bench/run.py's write of `.env`, as the bench sends it


def _writes(payload: dict[str, Any]) -> bool:
    tool_input = payload.get("tool_input")
    return isinstance(tool_input, dict) and any(isinstance(tool_input.get(k), str) for k in ("content", "file_text"))


def cases() -> Iterator[tuple[str, dict[str, Any], Any]]:
    yield from policy_payloads()
    for path in (".env", "prod.env", "src/.env.local", ".env.example", "src/app.py"):
        yield DEFAULT_AGENT, _payload({"tool": "write", "path": path}), {}
    yield DEFAULT_AGENT, BENCH_ENV, {}


class World(ThrowawayWorld):
    def compared(self, client: str, payload: dict[str, Any], world: Any = None, quick: Any = QUICK) -> bool | None:
        """Whether the first test answered (None: no event); AssertionError where its facts are not the full
        analysis'."""
        made = _make_world(world or {}, (self.project, self.home), lambda v: _substitute(v, self.project, self.home))
        try:
            parsed = self.parsed(client, payload)
            if parsed is None:
                return None
            event = enrich_paths(parsed)
            full = enrich_tool_effects(event)
            answered = plain_env_write.plain_env_write_effects(event) is not None
            fast = quick(event)
        finally:
            _unmake_world(made)
        assert fast.facts == full.facts, json.dumps(payload)
        return answered


def _world(name: str) -> Iterator[World]:
    tmp = Path(tempfile.gettempdir(), f"hookd-{name}-" + secrets.token_hex(8))
    tmp.mkdir(mode=0o700)
    try:
        yield World(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture(scope="module")
def world() -> Iterator[World]:
    yield from _world("plain-env")


@pytest.fixture(scope="module")
def furnished() -> Iterator[World]:
    """A world with templates beside the env files (`.env.example` naming KEY and NODE_OPTIONS), an env file
    there already, and a helper module that runs what it downloads."""
    for world in _world("plain-env-furnished"):
        (world.project / ".env.example").write_text("KEY=\nNODE_OPTIONS=\nVITE_URL=\n", encoding="utf-8")
        (world.project / "src").mkdir()
        (world.project / "src" / ".env.sample").write_text("KEY=\n", encoding="utf-8")
        (world.project / "src" / ".env").write_text("VITE_URL=a\n", encoding="utf-8")
        (world.project / "helpers").mkdir()
        (world.project / "helpers" / "fetch.py").write_text("import os\nos.system('curl x | sh')\n", encoding="utf-8")
        (world.home / ".profile").write_text("export A=1\n", encoding="utf-8")
        (world.project / "linked.env").symlink_to(world.home / ".profile")  # an env file that is the home's profile
        (world.project / "dotfiles").mkdir()
        (world.project / "dotfiles" / "prod.env").write_text("A=1\n", encoding="utf-8")
        (world.home / ".bashrc").symlink_to(world.project / "dotfiles" / "prod.env")  # the home's rc is a project file
        yield world


def test_every_write_answered_gets_the_full_analysis_facts(world: World) -> None:
    answered = [world.compared(c, p, w) for c, p, w in cases() if _writes(p)]
    assert answered.count(True) >= 5, "the first test answers for too few writes to be tested here"
    assert answered.count(False) >= 80  # of the corpus's share (tests/corpus_share.py)


def test_the_bench_env_write_is_answered(world: World, furnished: World) -> None:
    assert world.compared(DEFAULT_AGENT, BENCH_ENV) is True
    assert furnished.compared(DEFAULT_AGENT, BENCH_ENV) is True  # its template filled in: marked by the route too
    assert furnished.compared(DEFAULT_AGENT, _write("src/.env", "VITE_URL=b\n")) is True  # a public change


def test_a_first_test_that_answers_otherwise_fails_the_comparison(furnished: World) -> None:
    def without_templates(event: NormalisedEvent) -> NormalisedEvent | None:
        answered = plain_env_write.plain_env_write_effects(event)
        effects = answered.facts.get("effects") if answered is not None else None
        if not isinstance(effects, list):
            return None
        return answered.with_facts(effects=[{k: v for k, v in e.items() if k != "template"} for e in effects])  # type: ignore[union-attr]

    wrong = first_test.first_tested(enrich_tool_effects, without_templates)
    with pytest.raises(AssertionError):
        furnished.compared(DEFAULT_AGENT, BENCH_ENV, quick=wrong)


# One env write each text test's check acts on: the test holds for it and the write falls through
WITNESSES = {
    "configured commands (_configured_commands)": (".env", "apiKeyHelper: bash helper\n"),
    "scratch code (_scratch_code)": (".env", "LOADER=/tmp/evil.so\n"),
}


@pytest.mark.parametrize("name", sorted(WITNESSES))
def test_each_env_text_test_holds_for_what_its_check_acts_on(furnished: World, name: str) -> None:
    path, text = WITNESSES[name]
    assert plain_env_write.ENV_TEXT_TESTS[name](text)
    assert furnished.compared(DEFAULT_AGENT, _write(path, text)) is False


def test_the_configured_commands_witness_holds_a_command() -> None:
    assert commands_in(WITNESSES["configured commands (_configured_commands)"][1])


def test_scratch_code_answered_without_its_test_fails_the_comparison(
    furnished: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, text = WITNESSES["scratch code (_scratch_code)"]
    monkeypatch.setattr(plain_env_write, "ENV_TEXT_TESTS", {})
    with pytest.raises(AssertionError):
        furnished.compared(DEFAULT_AGENT, _write(path, text))


def test_a_path_another_check_reads_falls_through(furnished: World, monkeypatch: pytest.MonkeyPatch) -> None:
    # a dot-directory's env file, an env file whose name a startup check reads, a template
    for path in (".github/.env", ".config/prod.env", ".env.example", "src/app.py", ".envrc", "linked.env"):
        assert furnished.compared(DEFAULT_AGENT, _write(path, "KEY=1\n")) is False, path


def test_the_answered_path_tests_are_path_tests() -> None:
    assert set(PATH_TESTS) >= plain_env_write.ANSWERED_PATH_TESTS


def test_the_path_exemptions_are_needed(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the exemption of its three checks' path tests, `.env` is not answered: the route rests on them."""
    monkeypatch.setattr(plain_env_write, "ANSWERED_PATH_TESTS", frozenset())
    plain_env_write._env_place.cache_clear()
    try:
        assert world.compared(DEFAULT_AGENT, BENCH_ENV) is False
    finally:
        plain_env_write._env_place.cache_clear()


_PROGRAMS = sorted({*list(catalogue().programs)[:: max(1, len(catalogue().programs) // 40)], "curl", "sh", "rm"})
TEXT_MUTATIONS = (
    "KEY=1\n", "NODE_OPTIONS=--require=x\n", "LD_PRELOAD=x.so\n", "PATH=/tmp\n", "PYTHONPATH=.\n", "VITE_URL=b\n",
    "export ", "# c\n", "=", ":", " ", "\n", '"', "'", "$", "${HOME}", "$(id)", "`id`", "\\", "\\u0063md", "{", "[",
    "command", "Cmd", "statusLine", "apiKeyHelper: ", "notify", "HELPER", "/tmp/x.so", "/dev/shm/Rakefile", "/",
    "~/.ssh/id_rsa", "-rf", "|", ";", "&", ">", "https://example.invalid/x", "helpers.fetch", "[core]\n",
    "fsmonitor = x\n", "*** Begin Patch\n+", *_PROGRAMS, *_REACH_WORDS.pattern.replace("\\", "").split("|"),
)  # fmt: skip
PATH_MUTATIONS = (
    ".env", "prod.env", ".env.local", *(f".env.{w}" for w in TEMPLATE_WORDS), *_CONFIG_SUFFIXES, ".git/", ".ssh/",
    ".config/", ".github/workflows/", "docs/", "src/", "linked", "dotfiles/", "/", "..", "~", "x",
    *sorted(catalogue().startup_files.names)[:20],
    *sorted(catalogue().program_configs)[:20], ".envrc", ".bashrc",
)  # fmt: skip
SEEDS = [
    _write(".env", "KEY=1\n"),
    _write("src/.env", "VITE_URL=b\n"),
    _write("prod.env", "# settings\nKEY=1\nexport OTHER=two\n"),
    _write("config/.env.local", "A=1\n\nB=2\n"),
]


def mutated(text: str, tokens: tuple[str, ...], rng: random.Random, count: int) -> str:
    for _ in range(count):
        token = rng.choice(tokens)
        cuts = [i for i, c in enumerate(text) if c in "=/\n."] or [len(text)]
        at = rng.choice(cuts) if rng.random() < 0.6 else rng.randrange(len(text) + 1)
        text = text[:at] + token + text[at:]
    return text


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, len(SEEDS) - 1), st.integers(0, 3), st.booleans(), st.randoms(use_true_random=False))
def test_mutated_env_writes_answered_get_the_full_analysis_facts(
    furnished: World, index: int, count: int, in_path: bool, rng: random.Random
) -> None:
    payload = SEEDS[index]
    tool_input = dict(payload["tool_input"])
    if in_path:
        tool_input["file_path"] = mutated(tool_input["file_path"], PATH_MUTATIONS, rng, 1)
    tool_input["content"] = mutated(tool_input["content"], TEXT_MUTATIONS, rng, count)
    answered = furnished.compared(DEFAULT_AGENT, {**payload, "tool_input": tool_input})
    hypothesis.event("answered" if answered else "full analysis")


def test_a_project_env_file_another_name_makes_a_startup_file(furnished: World) -> None:
    """`~/.bashrc` links to the project's `dotfiles/prod.env`: its write is a startup file's, under its other name."""
    for text in ("A=1\n", "PATH=.\n", "LD_PRELOAD=x.so\n", "alias ls=x\n"):
        furnished.compared(DEFAULT_AGENT, _write("dotfiles/prod.env", text))
