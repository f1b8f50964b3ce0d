"""The protected places' first test (hookd.selfprotect_first) against ProtectedSet: wherever it answers, `input.hookd`
is ProtectedSet's own, for every payload of the policies' cases, the corpus (each in its world) and the bench, and for
calls moved onto each protected place (the place, a path inside it, a directory above it, a pattern reaching it) by
every kind of change, or starting an agent now or later."""

from __future__ import annotations

import json
import secrets
import shlex
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from differential_support import ThrowawayWorld, policy_payloads
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hookd import assembly
from hookd.config import Config
from hookd.dialects.registry import DEFAULT_AGENT
from hookd.policytest import _make_world, _substitute, _unmake_world
from hookd.policytest.corpus import _payload
from hookd.selfprotect import ProtectedSet, _reached
from hookd.selfprotect_first import ProtectedPlaces, judged_writes
from hookd.types import NormalisedEvent

FACTS = (assembly.enrich_shell, assembly.enrich_paths, assembly.enrich_tool_effects)
QUICK = ProtectedPlaces(Config(), env={})
SHARDS = 1  # the payloads in parts, each within a test's time limit (the corpus's share: tests/corpus_share.py)


def FULL(event: NormalisedEvent) -> NormalisedEvent:  # ProtectedSet's own call, on QUICK's cache of places
    return ProtectedSet.__call__(QUICK, event)


BENCH = [
    {"command": "git status && ls -la src"},
    {"command": "rm -rf ~/"},
    {"tool": "write", "path": "src/app.py"},
    {"tool": "write", "path": ".env"},
    {"tool": "read", "path": "README.md"},
]
# How a call can change a path (each a kind ProtectedSet tells apart: written, deleted, moved onto, copied, linked)
CHANGES = [
    lambda p: {"tool": "write", "path": p},
    lambda p: {"command": f"echo x > {shlex.quote(p)}"},
    lambda p: {"command": f"rm -rf {shlex.quote(p)}"},
    lambda p: {"command": f"mv src/app.py {shlex.quote(p)}"},
    lambda p: {"command": f"cp -r {shlex.quote(p)} /tmp/elsewhere"},
    lambda p: {"command": f"ln -sf /tmp/x {shlex.quote(p)}"},
    lambda p: {"command": f"chmod -R 777 {shlex.quote(p)}"},
    lambda p: {"command": f"touch {shlex.quote(p)}"},
]


class World(ThrowawayWorld):
    def enriched(self, client: str, payload: dict[str, Any]) -> NormalisedEvent | None:
        event = self.parsed(client, payload)
        if event is None:
            return None
        for step in FACTS:
            event = step(event)
        return event

    def compared(self, client: str, payload: dict[str, Any], world: Any = None, quick: Any = QUICK) -> bool | None:
        """Whether the first test answered (None: no event); raises AssertionError where `input.hookd` is not
        ProtectedSet's."""
        made = _make_world(world or {}, (self.project, self.home), lambda v: _substitute(v, self.project, self.home))
        try:
            event = self.enriched(client, payload)
            if event is None:
                return None
            full = FULL(event)
            answered = quick.first_answer(event) is not None
            fast = quick(event)
        finally:
            _unmake_world(made)
        assert fast.facts == full.facts, json.dumps(payload)
        return answered

    def places(self) -> list[str]:
        return [str(place["path"]) for place in QUICK.places(str(self.home), str(self.project))[0]]


@pytest.fixture(scope="module")
def world() -> Iterator[World]:
    tmp = Path(tempfile.gettempdir(), "hookd-places-" + secrets.token_hex(8))
    tmp.mkdir(mode=0o700)
    try:
        yield World(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@pytest.mark.timeout(900)  # grows with the corpus; ~1 min a shard when idle: the limit only stops a stuck run
@pytest.mark.parametrize("shard", range(SHARDS))
def test_every_corpus_case_and_bench_payload_gets_protected_sets_facts(world: World, shard: int) -> None:
    cases = [*policy_payloads(), *((DEFAULT_AGENT, _payload(case), {}) for case in BENCH)][shard::SHARDS]
    answered = [world.compared(client, payload, made) for client, payload, made in cases]
    assert answered.count(True) >= 200, "the first test answers too few payloads to be tested here"
    assert answered.count(False) >= 80  # a file tool's write near a place, a start: the full computation


def test_the_bench_calls_are_answered(world: World) -> None:
    answered = [world.compared(DEFAULT_AGENT, _payload(case)) for case in BENCH]
    assert answered == [True, True, True, True, True]  # `rm -rf ~/`: the places it hits, and nothing to judge


def _onto(place: str, relation: str) -> str:
    if relation == "inside":
        return place.rstrip("/") + "/x/y.json"
    if relation == "above":
        return place.rstrip("/").rpartition("/")[0] or "/"
    if relation == "pattern":
        head, _, name = place.rstrip("/").rpartition("/")
        return f"{head}/{name[:1]}*" if head else place
    return place


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_call_moved_onto_a_protected_place_gets_protected_sets_facts(world: World, data: st.DataObject) -> None:
    place = data.draw(st.sampled_from(world.places()))
    path = _onto(place, data.draw(st.sampled_from(["at", "inside", "above", "pattern"])))
    change = data.draw(st.sampled_from(CHANGES))
    world.compared(DEFAULT_AGENT, _payload(change(path)))


STARTS = [
    "claude -p hi",
    "npx @anthropic-ai/claude-code -p hi",
    "gemini --yolo",
    "codex exec x",
    "env FOO=1 claude",
    "sudo claude",
    "echo 'export CLAUDE_CODE_SIMPLE=1' >> ~/.zshenv",
    "echo \"alias c='claude --dangerously-skip-permissions'\" >> ~/.bashrc",
    'ln -s x "/tmp/hookd-$(id -u)"',
    "echo 'XDG_RUNTIME_DIR=/tmp/r' > ~/.config/environment.d/x.conf",
]
STARTED_FILES = ["~/.config/systemd/user/x.service", "~/.config/autostart/x.desktop", "~/.config/autostart/a/b.desktop"]


@pytest.mark.parametrize("line", [*STARTS, "echo '[Service]' > src/x.service", "cat > src/autostart/x.desktop"])
def test_a_line_that_starts_an_agent_or_leaves_it_for_later_gets_protected_sets_facts(world: World, line: str) -> None:
    world.compared(DEFAULT_AGENT, _payload({"command": line}))


@pytest.mark.parametrize("path", STARTED_FILES)
def test_a_started_file_written_falls_through(world: World, path: str) -> None:
    assert world.compared(DEFAULT_AGENT, _write(path, "[Service]\nExecStart=claude --bare\n")) is False


def _write(path: str, text: str) -> dict[str, Any]:
    payload = _payload({"tool": "write", "path": path})
    payload["tool_input"]["content"] = text
    return payload


@pytest.mark.parametrize(
    "payload",
    [
        _payload({"command": "claude --bare -p hi"}),  # an agent started unguarded: unguarded_starts' first test
        _write("~/.zshenv", "export CLAUDE_CODE_SIMPLE=1\n"),  # a variable set for later sessions
        _payload({"command": "echo \"alias c='claude --bare'\" >> ~/.bashrc"}),  # an alias defined
        _write("~/.config/autostart/c.desktop", "[Desktop Entry]\nExec=claude --bare\n"),  # a file a manager starts
        _write("${PROJECT}/.claude/settings.json", "{}"),  # a place a file tool writes: its settings judged
        _write("${PROJECT}/.claude/settings.*", "{}"),  # a pattern of paths a file tool writes
    ],
)
def test_each_gate_holds_its_witness(world: World, payload: dict[str, Any]) -> None:
    """Each gate's witness falls through; and the first test without its gates would answer them, wrongly."""
    assert world.compared(DEFAULT_AGENT, payload) is False
    event = world.enriched(DEFAULT_AGENT, payload)
    assert event is not None
    hookd = FULL(event).facts["hookd"]
    assert isinstance(hookd, dict) and any(hookd.values()), "a witness the full computation finds nothing in"
    with pytest.raises(AssertionError):
        world.compared(DEFAULT_AGENT, payload, None, _Ungated(Config(), env={}))


# Calls that name a protected place, or build a pattern that reaches one, and judge nothing: answered with the places
HITS = [
    _payload({"command": "rm -rf ${PROJECT}/.claude"}),  # a directory above a place
    _payload({"command": "chmod 777 ${PROJECT}/.claude/settings.*"}),  # a pattern of paths
    _payload({"command": 'ln -s x "/tmp/hookd-$(id -u)"'}),  # a pattern built from an expansion
    _payload({"command": "rm -rf ~/"}),  # the home, which holds places
    _payload({"command": "cat ${PROJECT}/.claude/settings.json > /tmp/x"}),  # a place read (named all the same)
]


@pytest.mark.parametrize("payload", HITS)
def test_a_call_that_judges_nothing_is_answered_with_the_places_it_hits(world: World, payload: dict[str, Any]) -> None:
    (world.project / ".claude").mkdir(exist_ok=True)
    (world.project / ".claude" / "settings.json").write_text("{}\n", encoding="utf-8")
    (world.home / ".gemini").mkdir(exist_ok=True)
    (world.home / ".gemini" / "settings.json").write_text("{}\n", encoding="utf-8")
    try:
        assert world.compared(DEFAULT_AGENT, payload) is True
        event = world.enriched(DEFAULT_AGENT, payload)
        assert event is not None
        hookd = FULL(event).facts["hookd"]
        assert isinstance(hookd, dict) and (hookd["protected"] or hookd["patterns"]), "a call that hits no place"
        with pytest.raises(AssertionError):
            world.compared(DEFAULT_AGENT, payload, None, _Ungated(Config(), env={}))
    finally:
        shutil.rmtree(world.project / ".claude")
        shutil.rmtree(world.home / ".gemini")


UNGUARDED = [
    "sudo claude",
    "echo 'export CLAUDE_CODE_SIMPLE=1' >> ~/.zshenv",
    "echo \"alias c='claude --dangerously-skip-permissions'\" >> ~/.bashrc",
    "echo 'XDG_RUNTIME_DIR=/tmp/r' > ~/.config/environment.d/x.conf",
    "npm install -g @google/gemini-cli@0.1.9",
    "rm -rf ~/ && claude --bare",
]


@pytest.mark.parametrize("line", UNGUARDED)
def test_the_places_alone_are_no_answer_for_a_line_that_starts_an_agent(world: World, line: str) -> None:
    event = world.enriched(DEFAULT_AGENT, _payload({"command": line}))
    assert event is not None
    assert FULL(event).facts["hookd"]["starts"]  # type: ignore[index, call-overload]
    assert QUICK.first_answer(event) is None
    with pytest.raises(AssertionError):
        world.compared(DEFAULT_AGENT, _payload({"command": line}), None, _PlacesOnly(Config(), env={}))


class _PlacesOnly(ProtectedPlaces):
    """The first test without its start gates: a call that writes no file answered with its places alone."""

    def first_answer(self, event: NormalisedEvent) -> NormalisedEvent | None:
        named, only_deleted, written = _reached(event.facts)
        home = str(event.facts.get("home"))
        listed, judged = self.places(home, event.project_dir, event.env)
        if judged_writes(event, written, judged) or event.tool is None:
            return super().first_answer(event)
        near, reached = self.hit(event, home, listed, named, only_deleted)
        return event.with_facts(hookd={"protected": near, "keeps": [], "starts": [], "patterns": reached})


class _Ungated(ProtectedPlaces):
    """The first test with no gate: every writing call answered all-empty."""

    def first_answer(self, event: NormalisedEvent) -> NormalisedEvent | None:
        tool = event.tool
        if tool is None or tool.kind.name in ("READ", "WEB"):
            return event
        return event.with_facts(hookd={"protected": [], "keeps": [], "starts": [], "patterns": []})


def test_a_first_test_that_answers_otherwise_fails_the_comparison(world: World) -> None:
    ungated = _Ungated(Config(), env={})
    write = _payload({"tool": "write", "path": "${PROJECT}/.claude/settings.json"})
    with pytest.raises(AssertionError):
        world.compared(DEFAULT_AGENT, write, None, ungated)
