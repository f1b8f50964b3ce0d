"""The embedded engine's answer read as OPA gives it: sets as sorted arrays (also sets of objects, which
regorus' eval_rule cannot return), and a router that stays loadable however many packages apply."""

from __future__ import annotations

from pathlib import Path

from hookd.engines.rego.embedded import RegoEmbeddedEngine

DOC = {"event": "BeforeTool", "tool": {"kind": "shell", "name": "run_shell_command", "input": {}}}


def test_a_set_of_objects_in_a_verdict_is_a_sorted_array(tmp_path: Path) -> None:
    (tmp_path / "p.rego").write_text(
        "package hookd.p\n\n"
        'context contains {"id": "c", "text": "t", "v": {{"b": 2}, {"a": 1}}, "s": {"y", "x"}} if true\n'
    )
    (verdict,) = RegoEmbeddedEngine.load(tmp_path).evaluate_sync(DOC)
    assert verdict.patch == {"v": [{"a": 1}, {"b": 2}], "s": ["x", "y"]}


def test_a_router_over_many_packages_loads(tmp_path: Path) -> None:
    for i in range(40):  # one line per package: regorus refuses a line over 1,024 columns
        (tmp_path / f"p{i}.rego").write_text(
            f"package hookd.a_package_with_a_rather_long_name_{i}\n\n"
            f'deny contains "no {i}" if input.tool.kind == "shell"\n'
        )
    verdicts = RegoEmbeddedEngine.load(tmp_path).evaluate_sync(DOC)
    assert sorted(v.message for v in verdicts) == sorted(f"no {i}" for i in range(40))
