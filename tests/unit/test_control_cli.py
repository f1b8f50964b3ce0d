"""The control commands' output for people, and what the CLI imports."""

from __future__ import annotations

import subprocess
import sys

import pytest

from hookd.cli import build_parser
from hookd.cli.control import format_record, format_status
from hookd.v1 import hookd_pb2 as pb


def test_one_line_per_decision() -> None:
    record = pb.DecisionRecord(
        id="01a238db20200000",
        time="2026-12-02T22:23:34.432173Z",
        event="BeforeTool",
        tool="write_file",
        decision="deny",
        verdicts=[pb.Verdict(kind="deny", policy="hookd.demo", rule="no-secret"), pb.Verdict(policy="p", rule="r")],
        latency_ms=1.172,
    )
    assert format_record(record) == (
        "2026-12-02 22:23:34.432  BeforeTool          write_file         deny    hookd.demo:no-secret,p:r  1.17ms  "
        "01a238db20200000"
    )
    bare = pb.DecisionRecord(id="x", time="2026-12-02T22:23:34.000000Z", event="SessionStart", decision="allow")
    assert format_record(bare) == (
        "2026-12-02 22:23:34.000  SessionStart        -                  allow   -  0.00ms  x"
    )


def test_status_for_people() -> None:
    status = pb.StatusResponse(
        version="0.1.0",
        pid=42,
        started_at="2026-12-02T10:00:00.000000Z",
        uptime_seconds=3725.5,
        engine="rego",
        policy_sets=[pb.PolicySet(name="default", path="/p", revision="abc", packages=["a", "b"], loaded_at="t")],
        counters=pb.Counters(requests=9, decisions={"deny": 2, "allow": 7}, errors={"deadline": 1}, reloads=1),
        sandbox_note="not built yet",
        hook_socket="/r/hook.sock",
        control_socket="/r/control.sock",
        decision_log=pb.DecisionLogStatus(path="/s/d.log", written=9, seq=12, head="f" * 64, subscribers=1),
    )
    assert format_status(status) == [
        "hookd 0.1.0, pid 42, up 1h 2m 5s (since 2026-12-02T10:00:00.000000Z)",
        "engine:    rego",
        "policies:  default (enforce): /p, revision abc, 2 packages, loaded t",
        "requests:  9 (errors: deadline 1)",
        "decisions: allow 7, deny 2",
        "reloads:   1 (0 refused)",
        "log:       /s/d.log: seq 12, head ffffffffffffffff…, written 9, dropped 0, write errors 0, live tails 1",
        "sockets:   hook /r/hook.sock, control /r/control.sock",
        "sandbox:   none: not built yet",
    ]


@pytest.mark.parametrize("command", ["status", "reload", "policies", "tail", "log", "eval"])
def test_every_command_has_help(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        build_parser().parse_args([command, "--help"])
    assert info.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: hookd {command}")


def test_tail_filters_parse() -> None:
    args = build_parser().parse_args(["tail", "--event", "BeforeTool", "--event", "AfterTool", "--decision", "deny"])
    assert (args.event, args.decision, args.json, args.count) == (["BeforeTool", "AfterTool"], ["deny"], False, 0)
    with pytest.raises(SystemExit):
        build_parser().parse_args(["tail", "--decision", "maybe"])


def test_building_the_cli_imports_no_grpc_protobuf_or_structlog() -> None:
    code = (
        "import sys\n"
        "from hookd.cli import build_parser\n"
        "build_parser().parse_args(['status'])\n"
        "import importlib, hookd.cli\n"
        "for name in hookd.cli.COMMAND_MODULES: importlib.import_module(f'hookd.cli.{name}')\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('grpc', 'google', 'structlog', 'uvloop'))\n"
        "print(heavy)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "[]"
