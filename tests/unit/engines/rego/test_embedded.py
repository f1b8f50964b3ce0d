"""The embedded regorus engine: loading, routing, verdict conversion, errors."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from hookd.engines.rego.embedded import RegoEmbeddedEngine
from hookd.errors import EngineError, PolicyLoadError
from hookd.types import Verdict, VerdictKind, settled


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def doc(event: str = "BeforeTool", kind: str | None = "shell", name: str | None = "run_shell_command",
        **extra: object) -> dict[str, object]:  # fmt: skip
    tool = {"name": name, "kind": kind, "input": extra.pop("tool_input", {})} if kind else None
    return {"event": event, "tool": tool, **extra}


ALWAYS = """package hookd.{name}
routing := {routing}
deny contains {{"id": "always", "reason": "{name} says no"}}
"""


class TestRouting:
    def test_packages_that_do_not_apply_are_not_evaluated(self, tmp_path: Path) -> None:
        write(tmp_path, {
            "a/p.rego": ALWAYS.format(name="a", routing='{"events": ["AfterTool"]}'),
            "b/p.rego": ALWAYS.format(name="b", routing='{"kinds": ["write"]}'),
            "c/p.rego": ALWAYS.format(name="c", routing='{"tools": ["run_shell_command"]}'),
            "d/p.rego": ALWAYS.format(name="d", routing='{"events": ["BeforeTool"], "kinds": ["shell"]}'),
        })  # fmt: skip
        engine = RegoEmbeddedEngine.load(tmp_path)
        policies = lambda verdicts: sorted(v.policy_id for v in verdicts)  # noqa: E731
        assert policies(engine.evaluate_sync(doc())) == ["hookd.c", "hookd.d"]
        assert policies(engine.evaluate_sync(doc(kind="write", name="write_file"))) == ["hookd.b"]
        assert policies(engine.evaluate_sync(doc(event="AfterTool", kind="write", name="x"))) == [
            "hookd.a",
            "hookd.b",
        ]
        assert engine.evaluate_sync(doc(event="SessionStart", kind=None)) == []

    def test_package_without_routing_applies_everywhere(self, tmp_path: Path) -> None:
        write(tmp_path, {"p.rego": 'package hookd.all\nmessage contains "hi"\n'})
        engine = RegoEmbeddedEngine.load(tmp_path)
        for event in ("SessionStart", "BeforeTool", "Notification"):
            assert engine.evaluate_sync(doc(event=event)) == [
                Verdict(VerdictKind.MESSAGE, "hookd.all", "message", "hi")
            ]

    def test_packages_outside_hookd_are_libraries_not_policies(self, tmp_path: Path) -> None:
        write(tmp_path, {"lib.rego": "package lib\ndeny contains 1\nbad(x) := x\n",
                         "p.rego": "package hookd.p\nimport data.lib\ndeny contains lib.bad(\"x\")\n"})  # fmt: skip
        engine = RegoEmbeddedEngine.load(tmp_path)
        assert engine.evaluate_sync(doc()) == [Verdict(VerdictKind.DENY, "hookd.p", "deny", "x")]


class TestVerdicts:
    def test_elements_become_verdicts_with_ids_and_patches(self, tmp_path: Path) -> None:
        write(
            tmp_path,
            {
                "p.rego": """package hookd.p
ask contains {"id": "sure", "reason": "really?"}
rewrite contains {"id": "rw", "tool_input": {"command": "ls"}}
context contains {"id": "ctx", "text": "note"}
halt := {"id": "stop", "reason": "enough", "clear_context": true} if input.tool.input.stop
"""
            },
        )
        engine = RegoEmbeddedEngine.load(tmp_path)
        by_rule = sorted(engine.evaluate_sync(doc()), key=lambda v: v.rule_id)
        assert by_rule == [
            Verdict(VerdictKind.CONTEXT, "hookd.p", "ctx", "note"),
            Verdict(VerdictKind.REWRITE, "hookd.p", "rw", "", {"tool_input": {"command": "ls"}}),
            Verdict(VerdictKind.ASK, "hookd.p", "sure", "really?"),
        ]
        verdicts = engine.evaluate_sync(doc(tool_input={"stop": True}))
        halt = [v for v in verdicts if v.kind is VerdictKind.HALT]
        assert halt == [Verdict(VerdictKind.HALT, "hookd.p", "stop", "enough", {"clear_context": True})]
        assert {v.rule_id for v in verdicts} == {"sure", "rw", "ctx", "stop"}
        rewrite = next(v for v in verdicts if v.kind is VerdictKind.REWRITE)
        assert rewrite.patch == {"tool_input": {"command": "ls"}}

    def test_data_json_is_loaded_under_its_folder(self, tmp_path: Path) -> None:
        write(tmp_path, {
            "shell/data.json": '{"banned": ["rm"]}',
            "shell/p.rego": 'package hookd.shell\ndeny contains c if { some c in data.shell.banned; c == input.cmd }\n',
        })  # fmt: skip
        engine = RegoEmbeddedEngine.load(tmp_path)
        assert [v.message for v in engine.evaluate_sync(doc(cmd="rm"))] == ["rm"]
        assert engine.evaluate_sync(doc(cmd="ls")) == []

    def test_evaluation_error_raises_engine_error(self, tmp_path: Path) -> None:
        write(tmp_path, {"p.rego": "package hookd.p\ndeny contains x if x := 1 / input.zero\n"})
        engine = RegoEmbeddedEngine.load(tmp_path)
        with pytest.raises(EngineError, match="divide by zero"):
            asyncio.run(settled(engine.evaluate(type("R", (), {"document": doc(zero=0)})())))  # type: ignore[arg-type]

    def test_packages_that_declare_their_input_get_only_it(self, tmp_path: Path) -> None:
        seen = 'deny contains {"id": "seen", "reason": concat(",", [k | some k, _ in input])}\n'
        write(tmp_path, {"a/p.rego": 'package hookd.a\nrouting := {"events": ["AfterModel"], "input": ["stream"]}\n'
                                     + seen})  # fmt: skip
        engine = RegoEmbeddedEngine.load(tmp_path)
        document = doc("AfterModel", None, None, stream={"text": "t"}, raw={"llm_request": {"messages": ["long"]}})
        assert [v.message for v in engine.evaluate_sync(document)] == ["stream"]
        write(tmp_path, {"b/p.rego": "package hookd.b\n" + seen})  # one package that reads it all: all get it all
        engine = RegoEmbeddedEngine.load(tmp_path)
        assert [v.message for v in engine.evaluate_sync(document)] == ["event,raw,stream,tool"] * 2

    def test_conflicting_complete_rule_raises(self, tmp_path: Path) -> None:
        write(tmp_path, {"p.rego": 'package hookd.p\nhalt := "a" if input.x\nhalt := "b" if input.x\n'})
        engine = RegoEmbeddedEngine.load(tmp_path)
        with pytest.raises(EngineError):
            engine.evaluate_sync(doc(x=True))


class TestLoading:
    def test_syntax_error_names_the_file(self, tmp_path: Path) -> None:
        write(tmp_path, {"bad/p.rego": "package hookd.p\ndeny contains {\n"})
        with pytest.raises(PolicyLoadError, match=r"bad/p\.rego"):
            RegoEmbeddedEngine.load(tmp_path)

    def test_routing_must_be_constant_and_well_formed(self, tmp_path: Path) -> None:
        write(tmp_path, {"p.rego": 'package hookd.p\nrouting := {"events": ["BeforeTol"]}\n'})
        with pytest.raises(PolicyLoadError, match="unknown events/kinds"):
            RegoEmbeddedEngine.load(tmp_path)
        write(tmp_path, {"p.rego": 'package hookd.p\nrouting := {"evnts": ["BeforeTool"]}\n'})
        keys = "commands, events, facts, input, kinds, shell, stream_text, text, tools"
        with pytest.raises(PolicyLoadError, match=f"keys {keys}"):
            RegoEmbeddedEngine.load(tmp_path)
        write(tmp_path, {"p.rego": 'package hookd.p\nrouting := {"input": ["steram"]}\n'})  # never a silent allow
        with pytest.raises(PolicyLoadError, match=r"unknown input keys \['steram'\]"):
            RegoEmbeddedEngine.load(tmp_path)
        write(tmp_path, {"p.rego": 'package hookd.p\nrouting := {"facts": ["hoookd.protected"]}\n'})  # never skipped
        with pytest.raises(PolicyLoadError, match=r"routing.facts must name input paths .*\['hoookd.protected'\]"):
            RegoEmbeddedEngine.load(tmp_path)

    def test_bad_data_json_and_missing_dir(self, tmp_path: Path) -> None:
        write(tmp_path, {"x/data.json": "{nope", "p.rego": "package hookd.p\n"})
        with pytest.raises(PolicyLoadError, match="not valid JSON"):
            RegoEmbeddedEngine.load(tmp_path)
        with pytest.raises(PolicyLoadError, match="does not exist"):
            RegoEmbeddedEngine.load(tmp_path / "missing")

    def test_test_files_are_not_served_and_revision_tracks_content(self, tmp_path: Path) -> None:
        write(tmp_path, {"p.rego": "package hookd.p\n", "p_test.rego": "package hookd.p\ndeny contains 1\n"})
        first = RegoEmbeddedEngine.load(tmp_path)
        assert first.evaluate_sync(doc()) == []
        write(tmp_path, {"p.rego": 'package hookd.p\nmessage contains "x"\n'})
        assert RegoEmbeddedEngine.load(tmp_path).revision != first.revision


class TestNativeInput:
    """regorus segfaults on a str holding a surrogate (issue 25): none reaches it, whatever built the input."""

    def test_surrogates_in_the_input_are_replaced_before_regorus_sees_them(self, tmp_path: Path) -> None:
        write(tmp_path, {"p.rego": "package hookd.p\ndeny contains input.tool.input.path if input.tool.input.path\n"})
        engine = RegoEmbeddedEngine.load(tmp_path)
        # a path read from the file system holds \udcff for a byte that is not UTF-8; a key can hold one too
        verdicts = engine.evaluate_sync(doc(tool_input={"path": "/tmp/\udcff\ud83d", "k\udc80": ["\ude00"]}))
        assert [v.message for v in verdicts] == ["/tmp/\ufffd\ufffd"]

    def test_data_with_a_lone_surrogate_loads(self, tmp_path: Path) -> None:
        write(tmp_path, {"p/data.json": '{"w": "caf\\ud83d"}',
                         "p/p.rego": "package hookd.p\ndeny contains data.p.w\n"})  # fmt: skip
        assert [v.message for v in RegoEmbeddedEngine.load(tmp_path).evaluate_sync(doc())] == ["caf\ufffd"]
