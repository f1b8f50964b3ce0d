"""A route's input holds the keys of the packages it evaluates, not every module's (issue 26 item 7): a package
whose rules name no other package's (`reads.calls_only_itself`) reads only what its own modules read, so a read
tool's route no longer converts `raw` (the payload again) because example_context, never routed there, reads it.
A package that names another's rule, or `data` otherwise, still gets every module's keys."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hookd.engines.rego.embedded import RegoEmbeddedEngine
from hookd.engines.rego.policyset import load_policy_set, new_engine
from hookd.engines.rego.reads import calls_only_itself

READ_DENY = """package hookd.{name}
routing := {{"events": ["BeforeTool"], "kinds": ["{kind}"]}}
deny contains {{"id": "{name}", "reason": "no"}} if {cond}
"""
DOCUMENT = {
    "event": "BeforeTool",
    "tool": {"kind": "read", "name": "read_file"},
    "paths": [{"path": "/p/.env"}],
    "raw": {"tool_name": "read_file"},
    "hookd": {"protected": []},
}


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def only_itself(source: str, package: str = "hookd.p", roots: frozenset[str] = frozenset({"hookd"})) -> bool:
    engine = new_engine()
    engine.add_policy("p.rego", source)
    return calls_only_itself(json.loads(engine.get_ast_as_json())[0]["ast"], package, roots)


@pytest.mark.parametrize(
    "body",
    [
        'deny contains "x" if input.tool.kind == "read"',  # no data at all
        'deny contains "x" if data.cfg.names[_] == input.tool.name',  # a data.json document
        'deny contains "x" if data.hookd.p.f(1)\nf(x) := x',  # its own rule, by its full name
        'import data.hookd.p as me\ndeny contains "x" if me.f(1)\nf(x) := x',
        'deny contains "x" if data.cfg["names"][_] == "a"',  # an index below a document's root
    ],
)
def test_a_module_naming_only_itself_and_documents(body: str) -> None:
    assert only_itself(f"package hookd.p\n\n{body}\n")


@pytest.mark.parametrize(
    "body",
    [
        'deny contains "x" if data.hookd.q.deny[_]',  # another package's rule
        'import data.hookd.q\ndeny contains "x" if q.deny[_]',
        'import data.hookd\ndeny contains "x" if hookd.q.deny[_]',
        'deny contains "x" if data.hookd[k].deny[_]',  # a package computed at evaluation
        'deny contains "x" if data["hookd"].q.deny[_]',
        'deny contains "x" if data[k].q.deny[_]',
        'import data\ndeny contains "x" if data.hookd.q.deny[_]',
        'deny contains "x" if count(data.hookd) > 0',
        'deny contains "x" if walk(data, [_, 1])',
        'deny contains "x" if data.lib.f(input.raw)',  # a module under another root of the set's packages
    ],
)
def test_a_module_naming_another_package_or_data_otherwise(body: str) -> None:
    assert not only_itself(f"package hookd.p\n\n{body}\n", roots=frozenset({"hookd", "lib"}))


def test_a_route_reads_only_the_keys_of_the_packages_it_evaluates(tmp_path: Path) -> None:
    """`raw`, read only by a package of shell calls, is not handed to a read tool's route (it was, before)."""
    write(tmp_path, {"a/p.rego": READ_DENY.format(name="a", kind="read", cond='input.paths[_].path == "/p/.env"')})
    write(tmp_path, {"b/p.rego": READ_DENY.format(name="b", kind="shell", cond='input.raw.tool_name == "x"')})
    policies = load_policy_set(tmp_path)
    assert policies.reads == {"paths", "raw"}
    assert policies.router.route_for(DOCUMENT).project(DOCUMENT) == {"paths": DOCUMENT["paths"]}
    assert [v.rule_id for v in RegoEmbeddedEngine(policies).evaluate_sync(DOCUMENT)] == ["a"]


@pytest.mark.parametrize(
    "call",
    [
        "data.hookd.b.raw_named",  # another package's rule
        "b.raw_named",  # through an import
    ],
)
def test_a_package_naming_anothers_rule_reads_every_modules_keys(tmp_path: Path, call: str) -> None:
    """The rule of package b that package a's verdict evaluates reads `raw`: a's route must hand it (a fail-open
    if it did not: the rule would see no `raw` and the verdict go away)."""
    head = "import data.hookd.b\n" if call.startswith("b.") else ""
    source = READ_DENY.format(name="a", kind="read", cond=f"{call}").replace("routing", f"{head}routing", 1)
    write(tmp_path, {"a/p.rego": source})
    b = READ_DENY.format(name="b", kind="shell", cond="false") + 'raw_named if input.raw.tool_name == "read_file"\n'
    write(tmp_path, {"b/p.rego": b})
    policies = load_policy_set(tmp_path)
    assert "raw" in policies.router.route_for(DOCUMENT).project(DOCUMENT)
    assert [v.rule_id for v in RegoEmbeddedEngine(policies).evaluate_sync(DOCUMENT)] == ["a"]


def test_nested_packages_read_every_modules_keys(tmp_path: Path) -> None:
    """`data.hookd.a.b.x` names package hookd.a.b as much as a rule `b` of hookd.a: such sets keep every key."""
    write(tmp_path, {"a/p.rego": READ_DENY.format(name="a", kind="read", cond="data.hookd.a.b.raw_named")})
    nested = 'package hookd.a.b\nrouting := {"kinds": ["shell"]}\nraw_named if input.raw.tool_name == "read_file"\n'
    write(tmp_path, {"a/b/p.rego": nested})
    policies = load_policy_set(tmp_path)
    assert "raw" in policies.router.route_for(DOCUMENT).project(DOCUMENT)
    assert [v.rule_id for v in RegoEmbeddedEngine(policies).evaluate_sync(DOCUMENT)] == ["a"]


def test_the_default_policies_read_tool_routes_get_no_payload_again() -> None:
    """The shipped policies: a read tool's and a write tool's routes leave `raw` out (only example_context reads
    it, routed to a session's start and to tools' results); a route of example_context's keeps it."""
    policies = load_policy_set(Path(__file__).resolve().parents[4] / "policies")
    assert "raw" in policies.reads
    for kind, name in (("read", "read_file"), ("write", "write_file")):
        document = {**DOCUMENT, "tool": {"kind": kind, "name": name}}
        assert "raw" not in policies.router.route_for(document).project(document)
    started = {"event": "SessionStart", "tool": None, "raw": {"source": "startup"}}
    assert "raw" in policies.router.route_for(started).project(started)
