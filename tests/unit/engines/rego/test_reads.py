"""hookd.engines.rego.reads: the input keys a policy set reads, found in its syntax trees, and what follows from
them: the embedded engine hands regorus only those keys, and enrichment leaves out the facts no policy reads."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from hookd.assembly import build_pipeline, engine_for_dir
from hookd.config import Config
from hookd.engines.rego.embedded import RegoEmbeddedEngine
from hookd.engines.rego.policyset import load_policy_set, new_engine
from hookd.engines.rego.reads import input_keys
from hookd.types import Caller, Deadline, Handled, HookRequest, Outcome


def keys_of(body: str) -> frozenset[str] | None:
    engine = new_engine()
    engine.add_policy("p.rego", f"package hookd.p\n\n{body}\n")
    return input_keys(entry["ast"] for entry in json.loads(engine.get_ast_as_json()))


@pytest.mark.parametrize(
    ("body", "keys"),
    [
        ('deny contains "x" if input.tool.kind == "shell"', {"tool"}),
        ('deny contains "x" if input["effects"][_].op == "delete"', {"effects"}),
        ('deny contains "x" if input[`paths`]', {"paths"}),
        ('deny contains "x" if object.get(input, ["shell", "commands"], null) == null', {"shell"}),
        ('deny contains "x" if object.get(input, "hookd", {}) == {}', {"hookd"}),
        ('import input.tool as t\ndeny contains "x" if t.kind == "shell"', {"tool"}),
        (
            'deny contains "x" if {"a": 1} == {"a": input.home}\nallow := 1 if { input.event } else := 2',
            {"home", "event"},
        ),
        ('f(x) := x.a\ndeny contains "x" if f(input.raw) == 1', {"raw"}),
        ('deny contains "x" if data.p.input == 1', set()),  # a data key named input is not the input
    ],
)
def test_keys_read_by_a_constant_name(body: str, keys: set[str]) -> None:
    assert keys_of(body) == frozenset(keys)


@pytest.mark.parametrize(
    "body",
    [
        'deny contains "x" if { some k; input[k] == "rm" }',  # a key computed at evaluation
        'deny contains "x" if { k := "hookd"; input[k] }',
        'deny contains "x" if object.get(input, concat("", ["ho", "okd"]), 0) == 0',
        'deny contains "x" if object.get(input, [k, "x"], 0) == 0 with k as "hookd"',
        'deny contains "x" if count(object.keys(input)) > 3',
        'deny contains "x" if walk(input, [_, "secret"])',
        'deny contains "x" if { some k, _ in input; k == "hookd" }',
        'deny contains "x" if json.marshal(input) == ""',
        'import input\ndeny contains "x" if input.tool',
        'x := input\ndeny contains "x" if x.hookd',
        'deny contains "x" if f(input)\nf(i) := i.hookd',
    ],
)
def test_any_other_use_of_input_reads_every_key(body: str) -> None:
    assert keys_of(body) is None


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


SHELL_DENY = """package hookd.{name}
routing := {{"events": ["BeforeTool"]}}
deny contains {{"id": "{name}", "reason": "no"}} if {cond}
"""


def test_the_set_reads_the_union_of_its_modules_keys_and_any_when_one_reads_any(tmp_path: Path) -> None:
    write(tmp_path / "a", {"a/p.rego": SHELL_DENY.format(name="a", cond='input.tool.kind == "shell"')})
    write(tmp_path / "a", {"b/p.rego": SHELL_DENY.format(name="b", cond='input.paths[_].class == "home"')})
    assert load_policy_set(tmp_path / "a").reads == {"tool", "paths"}
    write(tmp_path / "a", {"c/p.rego": SHELL_DENY.format(name="c", cond='walk(input, [_, "x"])')})
    assert load_policy_set(tmp_path / "a").reads is None


def test_regorus_gets_only_the_keys_the_modules_read(tmp_path: Path) -> None:
    """Packages that do not declare `routing.input` get the keys their modules were found to read: the rest
    (the payload again, the protected places) are never converted for regorus; the decision is the same."""
    write(tmp_path, {"a/p.rego": SHELL_DENY.format(name="a", cond='input.tool.kind == "shell"')})
    policies = load_policy_set(tmp_path)
    document = {"event": "BeforeTool", "tool": {"kind": "shell"}, "hookd": {"protected": []}, "raw": {"x": 1}}
    route = policies.router.route_for(document)
    assert route.project(document) == {"tool": {"kind": "shell"}}
    engine = RegoEmbeddedEngine(policies)
    assert [v.rule_id for v in engine.evaluate_sync(document)] == ["a"]


def decided(policies: Path, tmp_path: Path, tool_input: dict[str, str]) -> Handled:
    project = tmp_path / "proj"
    project.mkdir(exist_ok=True)
    payload = {"session_id": "s", "transcript_path": "", "cwd": str(project), "hook_event_name": "BeforeTool",
               "tool_name": "write_file", "tool_input": tool_input}  # fmt: skip
    request = HookRequest(
        client="gemini", event="BeforeTool", payload=json.dumps(payload).encode(),
        env={"GEMINI_PROJECT_DIR": str(project), "HOME": str(tmp_path / "home")}, cwd=str(project),
        caller=Caller(uid=os.getuid(), gid=os.getgid(), pid=os.getpid()), deadline=Deadline.after(5),
    )  # fmt: skip

    async def decide() -> Handled:
        config = Config()
        engine = engine_for_dir(config, policies)
        try:
            pipeline, _ = build_pipeline(config, engine, probe=lambda _pid: False)
            return await pipeline.handle(request)
        finally:
            await engine.aclose()

    return asyncio.run(decide())


def test_facts_no_policy_reads_are_not_made_and_those_one_reads_are(tmp_path: Path) -> None:
    """The protected places (`input.hookd`) and the file tools' effects are made only for policies that read
    them: a policy set that reads neither decides the same without them, and one that reads them gets them."""
    plain = write(tmp_path / "plain", {"a/p.rego": SHELL_DENY.format(name="a", cond='input.tool.kind == "shell"')})
    handled = decided(plain, tmp_path, {"file_path": "x.py", "content": "1"})
    assert handled.decision.outcome is Outcome.ALLOW
    assert "hookd" not in handled.event.facts and "effects" not in handled.event.facts
    assert "paths" in handled.event.facts  # always made: cheap, and the input caps and other facts build on it

    reading = write(tmp_path / "reading", {
        "a/p.rego": SHELL_DENY.format(name="a", cond='"/" in {p | some p in input.hookd.protected}'),
    })  # fmt: skip
    handled = decided(reading, tmp_path, {"file_path": "x.py", "content": "1"})
    assert "hookd" in handled.event.facts
    assert "effects" in handled.event.facts  # what the protected places are found from

    effects = write(tmp_path / "effects", {
        "a/p.rego": SHELL_DENY.format(name="a", cond='input.effects[_].op == "write"'),
    })  # fmt: skip
    handled = decided(effects, tmp_path, {"file_path": "x.py", "content": "1"})
    assert handled.decision.outcome is Outcome.DENY
    assert "hookd" not in handled.event.facts


def test_a_layered_engine_reads_what_any_layer_reads_monitored_ones_too(tmp_path: Path) -> None:
    """A monitor or shadow layer sees the enriched event after the reply: its keys count as the enforced ones'."""
    from hookd.engines.composite import CompositeEngine
    from hookd.policy.layers import LayeredEngine
    from hookd.testing import StaticEngine
    from hookd.types import MONITOR, USER_LAYER, Layer, Rank

    tool = RegoEmbeddedEngine(load_policy_set(write(tmp_path / "t", {"a/p.rego": SHELL_DENY.format(
        name="a", cond='input.tool.kind == "shell"')})))  # fmt: skip
    hookd = RegoEmbeddedEngine(load_policy_set(write(tmp_path / "h", {"a/p.rego": SHELL_DENY.format(
        name="a", cond="input.hookd.protected")})))  # fmt: skip
    layered = LayeredEngine([
        Layer(USER_LAYER, Rank.USER, tool), Layer("candidate", Rank.ORGANISATION, hookd, mode=MONITOR),
    ])  # fmt: skip
    assert layered.reads == {"tool", "hookd"}
    assert CompositeEngine([tool, hookd]).reads == {"tool", "hookd"}
    assert CompositeEngine([tool, StaticEngine()]).reads is None  # Python policies, a fake: any key


def test_a_module_that_names_input_where_its_tree_shows_none_reads_every_key() -> None:
    """Should regorus's syntax tree change shape, a module whose source says `input` is not taken to read
    nothing (which would hand it an empty input): only a module that never names it reads no key."""
    from hookd.engines.rego.reads import module_reads

    assert module_reads({"rules": []}, "package hookd.p\ndeny contains 1 if input.tool\n") is None
    assert module_reads({"rules": []}, "package hookd.p\ndeny contains 1 if data.p.input\n") == frozenset()
    assert module_reads({"rules": []}, "package hookd.p\nr := 1\n") == frozenset()
