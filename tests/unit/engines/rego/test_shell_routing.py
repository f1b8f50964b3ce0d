"""Routing shell calls by what the command line holds (`routing.commands`, `shell`, `text`: docs/policies.md).

The differential test is what keeps the default packages' declarations honest: over every command of the
corpus and every case payload, the packages the router picks give exactly the verdicts of every package that
applies to the (event, tool kind), so a declaration that misses a trigger fails here."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from hookd.assembly import build_pipeline
from hookd.config import Config
from hookd.engines.rego.embedded import RegoEmbeddedEngine
from hookd.engines.rego.policyset import ROUTER_PACKAGE, load_policy_set
from hookd.engines.rego.verdicts import verdicts_from_result
from hookd.errors import PolicyLoadError
from hookd.types import Caller, Deadline, HookRequest, Verdict

ROOT = Path(__file__).resolve().parents[4]
POLICIES = ROOT / "policies"


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def shell_doc(*commands: dict[str, Any], parse_error: bool = False, source: str = "x") -> dict[str, Any]:
    return {
        "event": "BeforeTool",
        "tool": {"name": "run_shell_command", "kind": "shell", "input": {}},
        "shell": {"source": source, "parse_error": parse_error, "error": None, "commands": list(commands)},
    }


def cmd(*argv: str, **fields: Any) -> dict[str, Any]:
    return {"argv": list(argv), "name": argv[0] if argv else "", "sudo": False, "wrappers": [], "redirects": [],
            **fields}  # fmt: skip


TRAITS = '{"kinds": ["shell"], "shell": ["wrapped", "dynamic-program", "inline", "redirect-in"]}'
PACKAGE = """package hookd.{name}
routing := {routing}
deny contains "{name}"
"""


@pytest.fixture
def engine(tmp_path: Path) -> RegoEmbeddedEngine:
    write(tmp_path, {
        "git/p.rego": PACKAGE.format(name="git", routing='{"kinds": ["shell"], "commands": ["git push", "mkfs*"]}'),
        "redir/p.rego": PACKAGE.format(name="redir", routing='{"kinds": ["shell"], "shell": ["redirect-out"]}'),
        "text/p.rego": PACKAGE.format(name="text", routing='{"kinds": ["shell"], "text": ["{"]}'),
        "traits/p.rego": PACKAGE.format(name="traits", routing=TRAITS),
        "plain/p.rego": PACKAGE.format(name="plain", routing='{"kinds": ["shell", "write"]}'),
        "any/p.rego": 'package hookd.any\ndeny contains "any"\n',
    })  # fmt: skip
    return RegoEmbeddedEngine.load(tmp_path)


def denied(engine: RegoEmbeddedEngine, document: dict[str, Any]) -> list[str]:
    return sorted(v.message for v in engine.evaluate_sync(document))


def test_a_package_is_evaluated_only_for_what_it_declares(engine: RegoEmbeddedEngine) -> None:
    assert denied(engine, shell_doc(cmd("ls"))) == ["any", "plain"]
    assert denied(engine, shell_doc(cmd("ls"), cmd("git", "status"))) == ["any", "plain"]
    assert denied(engine, shell_doc(cmd("ls"), cmd("git", "push"))) == ["any", "git", "plain"]
    assert denied(engine, shell_doc(cmd("ls", "push"), cmd("git", "pull"))) == ["any", "plain"]
    assert denied(engine, shell_doc(cmd("mkfs.ext4", "/dev/x"))) == ["any", "git", "plain"]
    out = cmd("make", redirects=[{"op": ">", "target": "f", "path": "/f", "in_project": False}])
    assert denied(engine, shell_doc(out)) == ["any", "plain", "redir"]
    assert denied(engine, shell_doc(cmd("echo"), source="f() { x; }")) == ["any", "plain", "text"]


@pytest.mark.parametrize(
    "command",
    [
        cmd("rm", sudo=True, wrappers=["sudo"]),
        cmd("ls", wrappers=["timeout"]),
        cmd("$X", "-rf"),
        cmd("`a`"),
        cmd("python3", inline={"language": "python", "parsed": True, "dynamic": False, "code": ""}),
        cmd("cat", redirects=[{"op": "<", "target": "f", "path": "/f", "in_project": False}]),
    ],
)
def test_each_trait(engine: RegoEmbeddedEngine, command: dict[str, Any]) -> None:
    assert denied(engine, shell_doc(command)) == ["any", "plain", "traits"]


def test_a_line_that_did_not_parse_goes_to_every_package(engine: RegoEmbeddedEngine) -> None:
    every = ["any", "git", "plain", "redir", "text", "traits"]
    assert denied(engine, shell_doc(cmd("ls"), parse_error=True)) == every
    no_commands = shell_doc()
    del no_commands["shell"]["commands"]
    assert denied(engine, no_commands) == every
    no_shell = shell_doc()
    del no_shell["shell"]
    assert denied(engine, no_shell) == every


def test_the_declarations_restrict_shell_calls_only(engine: RegoEmbeddedEngine) -> None:
    write_doc = {"event": "BeforeTool", "tool": {"name": "write_file", "kind": "write", "input": {}}}
    assert denied(engine, write_doc) == ["any", "plain"]
    session = {"event": "SessionStart", "tool": None}
    assert denied(engine, session) == ["any"]


def test_unknown_traits_and_keys_are_refused(tmp_path: Path) -> None:
    write(tmp_path, {"p.rego": PACKAGE.format(name="p", routing='{"shell": ["redirect"]}')})
    with pytest.raises(PolicyLoadError, match=r"unknown traits \['redirect'\]"):
        RegoEmbeddedEngine.load(tmp_path)
    write(tmp_path, {"p.rego": PACKAGE.format(name="p", routing='{"commands": "git"}')})
    with pytest.raises(PolicyLoadError, match=r"routing\.commands must be a list of strings"):
        RegoEmbeddedEngine.load(tmp_path)


# ---------------------------------------------------------------------------------------------------------
# The default packages: routed by command == every package, over the corpus and the cases


def corpus_payloads() -> list[tuple[str, dict[str, Any]]]:
    payloads: list[tuple[str, dict[str, Any]]] = []
    for path in sorted((POLICIES / "corpus").glob("*.jsonl")):
        for line in path.read_text().splitlines():
            command = json.loads(line).get("command")
            if isinstance(command, str):
                base = {"session_id": "s", "cwd": "${PROJECT}", "tool_name": "run_shell_command"}
                payloads.append(
                    ("gemini", {**base, "hook_event_name": "BeforeTool", "tool_input": {"command": command}})
                )
                rejected = {"llmContent": "! [rejected] main -> main (non-fast-forward)"}
                payloads.append(("gemini", {**base, "hook_event_name": "AfterTool", "tool_input": {"command": command},
                                            "tool_response": rejected}))  # fmt: skip
    for path in sorted(POLICIES.glob("*/cases/*.json")):
        payloads.extend((case["client"], case["payload"]) for case in json.loads(path.read_text()))
    return payloads


def documents(tmp_path: Path) -> list[dict[str, Any]]:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    pipeline = build_pipeline(Config(), RegoEmbeddedEngine.load(POLICIES), probe=lambda _pid: False)[0]
    caller = Caller(uid=os.getuid(), gid=os.getgid(), pid=os.getpid())

    async def all_of(payloads: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
        out = []
        for client, payload in payloads:
            text = json.dumps(payload).replace("${PROJECT}", str(project)).replace("${HOME}", str(home))
            request = HookRequest(client=client, event=payload["hook_event_name"], payload=text.encode(),
                                  env={"HOME": str(home)}, cwd=str(project), caller=caller,
                                  deadline=Deadline.after(60))  # fmt: skip
            out.append(dict((await pipeline.handle(request)).event.input_document()))
        return out

    return asyncio.run(all_of(corpus_payloads()))


def test_default_packages_routed_by_command_give_every_verdict(tmp_path: Path) -> None:
    policies = load_policy_set(POLICIES)
    engine, router = policies.engine, policies.router

    def verdicts(rule: str, document: dict[str, Any]) -> list[Verdict]:
        if not rule:
            return []
        engine.set_input(document)
        result = json.loads(engine.eval_rule_as_json(f"data.{ROUTER_PACKAGE}.{rule}"))
        return sorted(verdicts_from_result(result), key=repr)

    skipped = 0
    shell_documents = [
        d for d in documents(tmp_path) if isinstance(d.get("tool"), dict) and d["tool"]["kind"] == "shell"
    ]
    assert len(shell_documents) > 1500, len(shell_documents)
    for document in shell_documents:
        routed, every = router.rule_for(document), router.rule_for_every(document)
        if routed != every:
            skipped += 1
            assert verdicts(routed, document) == verdicts(every, document), document["shell"]["source"]
    assert skipped > len(shell_documents) // 2, skipped  # the routing leaves packages out of many calls


def test_code_left_to_run_later_routes_as_unknown() -> None:
    from hookd.engines.rego.policyset import _effect_traits

    traits: set[str] = set()
    _effect_traits([{"op": "exec", "known": True, "deferred": True, "startup": "/p/.envrc"}], traits)
    assert "effect-unknown" in traits  # was no trait: destructive_shell's deferred-exec ask never tried
