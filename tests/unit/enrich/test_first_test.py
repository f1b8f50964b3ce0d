"""The first test (hookd.enrich.first_test) against the full analysis: wherever it answers, the facts are the full
analysis' own, for every payload of the policies' cases, the corpus (each in its world) and the golden file, and
for payloads mutated from them toward what the full analysis must see (`$`, quotes, redirects, `;`, globs, `~`,
`..`, protected names)."""

from __future__ import annotations

import json
import random
import secrets
import shutil
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
from hookd.enrich import first_test
from hookd.enrich.effects.catalogue import catalogue
from hookd.enrich.paths import enrich_paths
from hookd.enrich.shell.analysis import enrich_shell
from hookd.enrich.tool_effects import enrich_tool_effects
from hookd.policytest import _make_world, _substitute, _unmake_world
from hookd.policytest.corpus import _payload
from hookd.types import NormalisedEvent

ROOT = Path(__file__).resolve().parents[3]
FULL = (enrich_shell, enrich_paths, enrich_tool_effects)
QUICK = (
    first_test.first_tested(enrich_shell, first_test.plain_shell),
    enrich_paths,
    first_test.first_tested(enrich_tool_effects, first_test.plain_read_effects),
)
BENCH = [
    {"command": "git status && ls -la src"},
    {"command": "rm -rf ~/"},
    {"tool": "write", "path": "src/app.py"},
    {"tool": "write", "path": ".env"},
    {"tool": "read", "path": "README.md"},
]


def cases() -> Iterator[tuple[str, dict[str, Any], Any]]:
    """(client, payload with `${PROJECT}`/`${HOME}` unsubstituted, world) of every case, corpus line and bench call
    (tests/unit/enrich/test_effects_golden.py's payloads, with the worlds the corpus runner makes for them)."""
    yield from policy_payloads()
    for case in BENCH:
        yield DEFAULT_AGENT, _payload(case), {}


class World(ThrowawayWorld):
    """A throw-away project and home, and an event parsed in them as the corpus runner parses it."""

    def event(self, client: str, payload: dict[str, Any]) -> NormalisedEvent | None:
        return self.parsed(client, payload)

    def compared(
        self, client: str, payload: dict[str, Any], world: Any = None, quick_steps: tuple[Any, ...] = QUICK
    ) -> bool | None:
        """Whether the first test answered for the payload (None: no event); raises AssertionError where its
        facts are not the full analysis'."""
        made = _make_world(world or {}, (self.project, self.home), lambda v: _substitute(v, self.project, self.home))
        try:
            event = self.event(client, payload)
            if event is None:
                return None
            full = _enriched(event, FULL)
            answered = _answers(event)
            quick = _enriched(event, quick_steps)
        finally:
            _unmake_world(made)
        assert quick.facts == full.facts, json.dumps(payload)
        return answered


def _enriched(event: NormalisedEvent, steps: tuple[Any, ...]) -> NormalisedEvent:
    for step in steps:
        event = step(event)
    return event


def _answers(event: NormalisedEvent) -> bool:
    shell = first_test.plain_shell(event)
    if shell is not None:
        return True
    return first_test.plain_read_effects(enrich_paths(event)) is not None


@pytest.fixture(scope="module")
def world() -> Iterator[World]:
    tmp = Path(tempfile.gettempdir(), "hookd-first-" + secrets.token_hex(8))  # hex: as the golden test's names
    tmp.mkdir(mode=0o700)
    try:
        yield World(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.mark.timeout(900)  # grows with the corpus (its share: tests/corpus_share.py); the limit only stops a stuck run
def test_every_corpus_payload_answered_gets_the_full_analysis_facts(world: World) -> None:
    answered = [world.compared(client, payload, made) for client, payload, made in cases()]
    assert answered.count(True) >= 10, "the first test answers for too few payloads to be tested here"
    assert answered.count(False) >= 300  # of the ~1,500 payloads with the corpus's share (tests/corpus_share.py)


def test_the_bench_plain_calls_are_answered(world: World) -> None:
    plain = [world.compared(DEFAULT_AGENT, _payload(case)) for case in BENCH]
    assert plain == [True, True, False, False, True]


def test_a_first_test_that_answers_otherwise_fails_the_comparison(world: World) -> None:
    def without_effects(event: NormalisedEvent) -> NormalisedEvent | None:
        answered = first_test.plain_shell(event)
        return None if answered is None else answered.with_facts(effects=[])

    wrong = (first_test.first_tested(enrich_shell, without_effects), *QUICK[1:])
    with pytest.raises(AssertionError):
        world.compared(DEFAULT_AGENT, _payload(BENCH[0]), quick_steps=wrong)


@pytest.mark.parametrize(
    "line",
    [
        "ls $HOME", "ls ~user", "ls ~+", "ls ~/src", "rm -rf ~/.ssh", "ls ~~", "ls x~", "git log ~", "cat .env",
        "cat src/.env", "ls src > out", "ls src | head", "ls src; ls",
        "sudo ls src", "env ls src", "ls ../x", "cat /etc/passwd", "cat link/x", "git commit -m x", "git -C src status",
        "tail -n 5/etc/passwd src", "cat - src", "cat -- src", "ls", "cat *.py", "ls 'src'", "X=1 ls src",
        "echo src", "cd src && ls x", "bash x", "./run src", "rm ./src", "ls src && rm -rf -- src", "ls  src",
    ],
)  # fmt: skip
def test_what_the_full_analysis_must_see_falls_through(furnished: World, line: str) -> None:
    event = furnished.event(DEFAULT_AGENT, _payload({"command": line}))
    assert event is not None
    assert first_test.plain_shell(event) is None


@pytest.mark.parametrize(
    "path", [".env", "src/.git/config", "/etc/passwd", "../x", "~/.ssh/id_rsa", "src/*.py", "link/id_rsa", "", "."]
)
def test_a_read_the_full_analysis_must_see_falls_through(furnished: World, path: str) -> None:
    event = furnished.event(DEFAULT_AGENT, _payload({"tool": "read", "path": path}))
    assert event is not None
    assert first_test.plain_read_effects(enrich_paths(event)) is None


# What the full analysis must see, inserted into a plain payload's line or path
MUTATIONS = (
    "$", "$HOME", "${X}", "$(id)", "`id`", "'", '"', "\\", ">", ">>", "<", "2>&1", ";", "|", "&", "&&", "||", "*",
    "?", "[a]", "{a,b}", "~", "~/", "..", "../..", "/", "/etc/passwd", ".env", ".git", ".git/hooks/pre-commit",
    ".ssh/id_rsa", ".bashrc", "id_rsa", "credentials", "Makefile", "package.json", "-R", "-r", "--", "-", "=",
    "X=1", "#", "\n", "\t", "  ", "(", ")", "!", "rm", "sudo", "env", "bash", "python", "curl", "xargs", "tee",
    "cd", "git", "-c", "core.fsmonitor=x", "-C", "commit", "config", "push", "cat", "ls", "grep", "find", "head",
    "hookd", ".hookd", "settings.json", ".gemini", ".claude", "/proc/self/cwd", "/tmp/x", "node_modules",
)  # fmt: skip


def mutated(text: str, rng: random.Random, count: int) -> str:
    """`text` with `count` of MUTATIONS put in at random places (word boundaries more often than not)."""
    for _ in range(count):
        token = rng.choice(MUTATIONS)
        cuts = [i for i, c in enumerate(text) if c in " /"] or [len(text)]
        at = rng.choice(cuts) if rng.random() < 0.6 else rng.randrange(len(text) + 1)
        spaced = rng.random() < 0.5
        text = text[:at] + (f" {token} " if spaced else token) + text[at:]
    return text


def plain_seeds() -> list[tuple[str, dict[str, Any]]]:
    """The payloads of cases() that the first test answers for: what is mutated."""
    tmp = Path(tempfile.gettempdir(), "hookd-first-seeds-" + secrets.token_hex(8))
    tmp.mkdir(mode=0o700)
    try:
        world = World(tmp)
        return [(c, p) for c, p, w in cases() if not w and world.compared(c, p) is True]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


SEEDS = plain_seeds()


def _with_text(payload: dict[str, Any], change: Any) -> dict[str, Any]:
    tool_input = dict(payload.get("tool_input") or {})
    for key, value in tool_input.items():
        if isinstance(value, str) and key in ("command", "file_path", "path", "absolute_path", "filePath"):
            tool_input[key] = change(value)
    return {**payload, "tool_input": tool_input}


@pytest.mark.timeout(900)  # grows with the corpus: ~1-2 min on an idle box; the limit only stops a stuck run
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.integers(0, len(SEEDS) - 1), st.integers(1, 3), st.randoms(use_true_random=False))
def test_mutated_payloads_answered_get_the_full_analysis_facts(
    world: World, index: int, count: int, rng: random.Random
) -> None:
    client, payload = SEEDS[index]
    answered = world.compared(client, _with_text(payload, lambda text: mutated(text, rng, count)))
    hypothesis.event("answered" if answered else "full analysis")


def _programs() -> list[str]:
    """Every program the catalogue names (hookd's table and GTFOBins'): the first test decides which are plain."""
    data = ROOT / "daemon" / "hookd" / "enrich" / "effects" / "data"
    names = set(json.loads((data / "programs.json").read_text(encoding="utf-8"))["programs"])
    names |= set(json.loads((data / "gtfobins.json").read_text(encoding="utf-8"))["programs"])
    return sorted(names | {"git", "cd", "echo", "sudo", "env", "xargs", "source", "eval", "exec", "alias", "unknown"})


PROGRAMS = _programs()
# those the first test may answer for, drawn as often as all the others: the answers are what is tested
PLAIN_PROGRAMS = [name for name in PROGRAMS if (found := catalogue().get(name)) and first_test._only_operands(found)]
WORDS = (
    "-R", "-r", "-a", "-la", "-l", "-n", "5", "-d", "-k", "-f", "--force", "--recursive", "-o", "out", "-c", "-e",
    "-i", "-x", "--output=out", "--help", "src", "src/app.py", "data", "data/dump.sql", "link", "link/x", "Makefile",
    "package.json", "setup.py", "id_rsa", "credentials", "node_modules", "env", "bin", "status", "log", "diff",
    "commit", "push", "config", "HEAD", "x=1", "key:value", "user@host", "host:path", "%s", "a,b", "+x", "777",
    "hookd", "settings.json", "CLAUDE.md", "GEMINI.md", "README.md", "build", "tmp", "proc", "etc", "~", "~/",
)  # fmt: skip
_COMMANDS = st.lists(
    st.tuples(
        st.sampled_from(PROGRAMS) | st.sampled_from([*PLAIN_PROGRAMS, "git"]),
        st.lists(st.sampled_from(WORDS), max_size=5),
    ),
    min_size=1,
    max_size=3,
)


@pytest.fixture(scope="module")
def furnished() -> Iterator[World]:
    """A world with the files the words name, and links out of the project (`link` to the home, `link/x` to the
    system's `/etc`), so that a plain-looking word may lead anywhere."""
    tmp = Path(tempfile.gettempdir(), "hookd-first-furnished-" + secrets.token_hex(8))
    tmp.mkdir(mode=0o700)
    try:
        world = World(tmp)
        for name in ("src/app.py", "data/dump.sql", "Makefile", "package.json", "setup.py", "README.md", "id_rsa"):
            (world.project / name).parent.mkdir(parents=True, exist_ok=True)
            (world.project / name).write_text("x\n", encoding="utf-8")
        (world.home / ".ssh").mkdir()
        (world.home / ".ssh" / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n", encoding="utf-8")
        (world.project / "link").symlink_to(world.home / ".ssh")
        (world.project / "env").symlink_to("/etc")
        yield world
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.mark.timeout(900)  # grows with the corpus: ~1-2 min on an idle box; the limit only stops a stuck run
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_COMMANDS, st.booleans(), st.sampled_from(("${PROJECT}", "${PROJECT}/src", "${PROJECT}/link", "${HOME}")))
def test_generated_plain_calls_answered_get_the_full_analysis_facts(
    furnished: World, commands: list[tuple[str, list[str]]], read: bool, cwd: str
) -> None:
    if read:
        path = "/".join(word for _, words in commands for word in words) or commands[0][0]
        payload = _payload({"tool": "read", "path": path, "cwd": cwd})
    else:
        line = " && ".join(" ".join([name, *words]) for name, words in commands)
        payload = _payload({"command": line, "cwd": cwd})
    hypothesis.event("answered" if furnished.compared(DEFAULT_AGENT, payload) else "full analysis")


# The home itself as an operand (`rm -rf ~/`): the words `~` and `~/` expand to it, in every layout of home and project
HOME_LINES = ("rm -rf ~/", "rm -rf ~", "rm -r -f ~/ && ls src", "ls ~", "cat ~/")
# one file's delete (of the home itself too): what it loses is the full analysis' (the ledger's `holds`)
HOME_LINES_NOT_ANSWERED = ("rmdir ~", "shred -u ~/", "rm ~ src", "unlink ~/x")


class HomeWorld(World):
    """A world laid out as `layout` says: the home apart from the project, holding it, being it, inside it, reached
    through a link, or spelt with a space (one word all the same: the shell does not split what a tilde expands to).
    The home holds an agent's settings and a repository, which a delete of it reaches."""

    def __init__(self, tmp: Path, layout: str) -> None:
        super().__init__(tmp)
        (self.home / ".gemini").mkdir()
        (self.home / ".gemini" / "settings.json").write_text("{}\n", encoding="utf-8")
        (self.home / "repo" / ".git").mkdir(parents=True)
        (self.project / "src").mkdir()
        if layout == "project-in-home":
            self.project = self.home / "work"
            (self.project / "src").mkdir(parents=True)
        elif layout == "home-is-project":
            self.project = self.home
            (self.project / "src").mkdir()
        elif layout == "home-in-project":
            self.home = self.project / "home"
            self.home.mkdir()
        elif layout == "home-link":
            (tmp / "home-link").symlink_to(self.home)
            self.home = tmp / "home-link"
        elif layout == "home-spaced":
            (tmp / "my home").mkdir()
            self.home = tmp / "my home"


@pytest.fixture(
    scope="module",
    params=["apart", "project-in-home", "home-is-project", "home-in-project", "home-link", "home-spaced"],
)
def home_world(request: pytest.FixtureRequest) -> Iterator[HomeWorld]:
    tmp = Path(tempfile.gettempdir(), "hookd-first-home-" + secrets.token_hex(8))
    tmp.mkdir(mode=0o700)
    try:
        yield HomeWorld(tmp, request.param)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.mark.parametrize("line", HOME_LINES)
def test_a_line_naming_the_home_itself_gets_the_full_analysis_facts(home_world: HomeWorld, line: str) -> None:
    assert home_world.compared(DEFAULT_AGENT, _payload({"command": line})) is True


@pytest.mark.parametrize("line", HOME_LINES_NOT_ANSWERED)
def test_one_files_delete_goes_to_the_full_analysis(home_world: HomeWorld, line: str) -> None:
    assert home_world.compared(DEFAULT_AGENT, _payload({"command": line})) is False


@pytest.mark.parametrize("line", ["rm -rf ${HOME}/", "rm -rf ${HOME}", "ls ${HOME} src"])
def test_a_line_spelling_the_home_whole_gets_the_full_analysis_facts(home_world: HomeWorld, line: str) -> None:
    answered = home_world.compared(DEFAULT_AGENT, _payload({"command": line}))
    assert answered is (" " not in str(home_world.home)), "a plain word that is the home is the home, as `~/` is"


@pytest.mark.parametrize("home", ["/", "/root/", "root"])
def test_a_home_the_shell_spells_otherwise_falls_through(world: World, home: str) -> None:
    event = world.event(DEFAULT_AGENT, _payload({"command": "rm -rf ~/"}))
    assert event is not None
    assert first_test.plain_shell(event) is not None
    assert first_test.plain_shell(event.with_facts(home=home)) is None


def test_an_expansion_other_than_the_shells_fails_the_comparison(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(first_test, "_home_words", lambda home: {"~": home, "~/": home})  # `~/` without its slash
    with pytest.raises(AssertionError):
        world.compared(DEFAULT_AGENT, _payload({"command": "rm -rf ~/"}))


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.tuples(
            st.sampled_from([*PLAIN_PROGRAMS, "git", "mv", "cp", "chmod", "find"]),
            st.lists(st.sampled_from(("~", "~/", "~/", "-rf", "-r", "-f", "-d", "src", "repo", ".gemini")), max_size=4),
        ),
        min_size=1,
        max_size=3,
    ),
    st.sampled_from(("${PROJECT}", "${PROJECT}/src", "${HOME}")),
)
def test_generated_lines_naming_the_home_get_the_full_analysis_facts(
    home_world: HomeWorld, commands: list[tuple[str, list[str]]], cwd: str
) -> None:
    line = " && ".join(" ".join([name, *words]) for name, words in commands)
    answered = home_world.compared(DEFAULT_AGENT, _payload({"command": line, "cwd": cwd}))
    hypothesis.event("answered" if answered else "full analysis")
