"""The `hookd` commands that talk to a running daemon over its control socket (status, reload, policies,
tail, eval --daemon), and `hookd log verify`, which reads the decision log itself.

Only what each command needs is imported when it runs: grpc and the stubs (hookd.control.client) for the
control commands, nothing heavy for `log verify`. When the daemon is not running, each control command
says so in one line on stderr and exits 1.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hookd.config import Config
from hookd.errors import HookdError

if TYPE_CHECKING:
    from hookd.control.client import ControlClient
    from hookd.v1 import hookd_pb2 as pb

OUTCOMES = ("allow", "rewrite", "ask", "deny", "halt")
EVENTS = (
    "SessionStart", "SessionEnd", "BeforeAgent", "AfterAgent", "BeforeModel", "AfterModel",
    "BeforeToolSelection", "BeforeTool", "AfterTool", "PreCompress", "Notification", "Other",
)  # fmt: skip
Command = Callable[[argparse.Namespace, Config], int]


def register(sub: Any) -> None:
    """Register status, reload, policies, tail and log under the root parser's subcommands."""

    def control(name: str, text: str, run: Command) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = sub.add_parser(name, help=text)
        parser.add_argument("--runtime-dir", help="the daemon's socket directory (default: the configured one)")
        parser.set_defaults(run=run)
        return parser

    control("status", "show what a running daemon serves and counts", cmd_status).add_argument(
        "--json", action="store_true", help="print the status as JSON"
    )
    control("reload", "make a running daemon load its policies again", cmd_reload)
    control("policies", "list the policy packages a running daemon has loaded", cmd_policies).add_argument(
        "--json", action="store_true", help="print the list as JSON"
    )
    tail = control("tail", "follow a running daemon's decisions as they are made", cmd_tail)
    tail.add_argument("--event", action="append", choices=EVENTS, default=[], help="only this event (repeatable)")
    tail.add_argument(
        "--decision", action="append", choices=OUTCOMES, default=[], help="only this outcome (repeatable)"
    )
    tail.add_argument("--tool", action="append", default=[], help="only this tool name (repeatable)")
    tail.add_argument("--session", default="", help="only this session id")
    tail.add_argument("--json", action="store_true", help="print each record as the decision log holds it")
    tail.add_argument("-n", "--count", type=int, default=0, help="stop after this many decisions")

    logs = sub.add_parser("log", help="work with the decision log")
    log_sub = logs.add_subparsers(dest="log_command", required=True, metavar="SUBCOMMAND")
    verify = log_sub.add_parser("verify", help="check the decision log's hash chain; report breaks by position")
    verify.add_argument("path", nargs="?", help="the log (default: the configured [log] path)")
    verify.set_defaults(run=cmd_log_verify)
    ocsf = log_sub.add_parser("ocsf", help="print every decision record as an OCSF event, one JSON line each")
    ocsf.add_argument("path", nargs="?", help="the log (default: the configured [log] path)")
    ocsf.set_defaults(run=cmd_log_ocsf)


def _socket(args: argparse.Namespace, config: Config) -> Path:
    if getattr(args, "runtime_dir", None):
        return Path(args.runtime_dir).resolve() / "control.sock"
    return config.control_socket


def _client(args: argparse.Namespace, config: Config, timeout: float = 10.0) -> ControlClient:
    from hookd.control.reach import check_reachable

    path = _socket(args, config)
    check_reachable(path)  # before grpc is imported: "not running" costs no 100 ms import
    from hookd.control.client import ControlClient

    return ControlClient(path, timeout=timeout)


def _guarded(run: Callable[[], int]) -> int:
    """Run a control command; a daemon that is not there or refuses is one line on stderr and exit 1."""
    from hookd.errors import ControlError

    try:
        return run()
    except ControlError as exc:
        print(f"hookd: {exc}", file=sys.stderr)
        return 1


def _to_dict(message: Any) -> dict[str, Any]:
    from google.protobuf.json_format import MessageToDict

    result: dict[str, Any] = MessageToDict(
        message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
    )
    return result


# --- status ----------------------------------------------------------------------------------------


def cmd_status(args: argparse.Namespace, config: Config) -> int:
    def run() -> int:
        with _client(args, config) as client:
            from hookd.v1 import hookd_pb2 as pb

            status = client.call(client.control.Status, pb.StatusRequest())
            listing = client.call(client.control.ListPolicies, pb.ListPoliciesRequest())
        if args.json:
            print(json.dumps(_to_dict(status), indent=2, sort_keys=True))
            return 0
        from hookd.transport.native_quiet import described

        print("\n".join([*format_status(status), f"stream lane: {described()}", *unregistered_lines(listing, config)]))
        return 0

    return _guarded(run)


def unregistered_lines(listing: pb.ListPoliciesResponse, config: Config) -> list[str]:
    """One line per event the running policy set needs and an agent's settings, where hookd is registered,
    lack, with the command that registers it (docs/install.md)."""
    from hookd.doctor.agents import (
        ScopeFile,
        hookd_entries,
        install_command,
        read_settings,
        settings_files,
        unregistered,
    )
    from hookd.policy.needs import needed_events
    from hookd.types import PackageInfo

    # The listing carries an absent `routing.events` as an empty list: counted as "every event", the safe side.
    packages = [PackageInfo(p.name, {}, {"events": frozenset(p.routing.events)} if p.routing.events else {})
                for p in listing.packages]  # fmt: skip
    needed = needed_events(packages)
    project = Path.cwd()
    lines = []
    for spec, scope, path in settings_files(project, os.environ):
        try:
            file = ScopeFile(spec, scope, path, read_settings(path))
        except HookdError:
            continue  # hookd doctor reports an unreadable settings file
        if not hookd_entries(file):
            continue
        fix = install_command(file, project, config.source)
        lines += [f"unregistered: {file.label}: {event} is needed by the policies; fix: {fix}"
                  for event in unregistered(file, needed)]  # fmt: skip
    return lines


def _duration(seconds: float) -> str:
    whole = int(seconds)
    days, rest = divmod(whole, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{days}d"] if days else []
    if days or hours:
        parts.append(f"{hours}h")
    if days or hours or minutes:
        parts.append(f"{minutes}m")
    parts.append(f"{secs}s")
    return " ".join(parts)


def _counts(counts: Any, order: tuple[str, ...] = ()) -> str:
    keys = [k for k in order if k in counts] + sorted(k for k in counts if k not in order)
    return ", ".join(f"{k} {counts[k]}" for k in keys) or "none"


def format_status(status: pb.StatusResponse) -> list[str]:
    counters, log = status.counters, status.decision_log
    lines = [
        f"hookd {status.version}, pid {status.pid}, up {_duration(status.uptime_seconds)} (since {status.started_at})",
        f"engine:    {status.engine}",
    ]
    for policy_set in status.policy_sets:
        mode = policy_set.mode or "enforce"
        if policy_set.replaces:
            mode += f", candidate for {policy_set.replaces}"
        lines.append(
            f"policies:  {policy_set.name} ({mode}): {policy_set.path}, revision {policy_set.revision}, "
            f"{len(policy_set.packages)} packages, loaded {policy_set.loaded_at}"
        )
    for bundle in status.bundles:
        serving = f"revision {bundle.revision}" if bundle.revision else "nothing active"
        line = (
            f"bundle:    {bundle.name}: {bundle.location}, {serving}, {bundle.activations} activations, "
            f"{bundle.refusals} refused, next poll {bundle.next_poll or '-'}"
        )
        if bundle.last_error:
            line += f"; last error: {bundle.last_error}"
        lines.append(line)
    lines += [
        f"requests:  {counters.requests} (errors: {_counts(counters.errors)})",
        f"decisions: {_counts(counters.decisions, OUTCOMES)}",
        f"reloads:   {counters.reloads} ({counters.reload_failures} refused)",
        f"log:       {log.path}: seq {log.seq}, head {log.head[:16]}…, written {log.written}, dropped {log.dropped}, "
        f"write errors {log.write_errors}, live tails {log.subscribers}",
        f"sockets:   hook {status.hook_socket}, control {status.control_socket}",
    ]
    if log.HasField("shipping"):
        ship = log.shipping
        lines.append(
            f"shipping:  {ship.url}: sent {ship.sent}, buffered {ship.buffered}, dropped {ship.dropped}, "
            f"failed uploads {ship.failures}" + (f" (last error: {ship.last_error})" if ship.last_error else "")
        )
    if status.metrics_address:
        lines.append(f"metrics:   http://{status.metrics_address}/metrics")
    if status.worker_pids or status.worker_restarts:
        pids = ", ".join(str(pid) for pid in status.worker_pids) or "none serving"
        lines.append(f"workers:   {pids} ({status.worker_restarts} restarted)")
    if status.lane_pid:
        lines.append(f"lane:      {status.lane_pid} ({status.lane_requests} heavy requests taken)")
    if status.stream_lane_pid:
        lines.append(f"streams:   {status.stream_lane_pid} (the stream lane: every streamed chunk)")
    layers = ", ".join(f"{layer.name} ({'on' if layer.active else 'off'})" for layer in status.sandbox_layers)
    lines.append(f"sandbox:   {layers or 'none'}: {status.sandbox_note}")
    return lines + format_rollout(status)


def format_rollout(status: pb.StatusResponse) -> list[str]:
    """Monitor layers' would-be decisions, the shadow's disagreements, what was shed, the export state."""
    rollout, lines = status.rollout, []
    by_layer: dict[str, list[str]] = {}
    for count in rollout.monitor:
        by_layer.setdefault(count.layer, []).append(f"{count.decision} {count.count}")
    for layer, counts in by_layer.items():
        lines.append(f"monitor:   {layer} would have decided: {', '.join(counts)}")
    if rollout.shadow:
        differing = sum(rollout.disagreements.values())
        lines.append(
            f"shadow:    {rollout.shadow}: {rollout.shadow_evaluated} evaluated, {differing} differ"
            + (f" ({_counts(rollout.disagreements)})" if differing else "")
        )
    if rollout.monitor or rollout.shadow or rollout.skipped or rollout.errors:
        lines.append(
            f"rollout:   budget {rollout.cpu_budget_percent}% of a core; skipped: {_counts(rollout.skipped)}; "
            f"errors {rollout.errors}"
        )
    if status.HasField("replay"):
        replay = status.replay
        lines.append(
            f"replay:    {replay.path}: written {replay.written}, dropped {replay.dropped}, write errors "
            f"{replay.write_errors}; {replay.segments} segments, {replay.bytes} bytes ({replay.deleted} deleted)"
        )
    if status.HasField("otel"):
        otel = status.otel
        lines.append(
            f"otel:      {otel.endpoint}: exported {otel.exported}, buffered {otel.buffered}, dropped {otel.dropped}, "
            f"failed exports {otel.failed_exports}" + (f" (last error: {otel.last_error})" if otel.last_error else "")
        )
    return lines + (format_fleet(status.fleet) if status.HasField("fleet") else [])


def format_fleet(fleet: pb.FleetStatus) -> list[str]:
    """Where status reports go and how the last one went; the discovery bundle in force (docs/fleet.md)."""
    if not fleet.status_url:
        report = "off"
    elif not fleet.last_report_at:
        report = f"{fleet.status_url}: no report yet"
    else:
        result = "accepted" if fleet.last_report_ok else f"failed: {fleet.last_report_error}"
        report = (
            f"{fleet.status_url}: last report ({fleet.last_report_reason}) {fleet.last_report_at} {result}; "
            f"{fleet.reports_sent} sent, {fleet.report_failures} failed"
        )
    lines = [f"status:    {report}"]
    if fleet.HasField("discovery"):
        found = fleet.discovery
        serving = f"revision {found.revision}, activated {found.active_since}" if found.revision else "nothing active"
        line = f"discovery: {found.location}: {serving}, {found.activations} activations, {found.refusals} refused"
        if found.last_error:
            line += f"; last error ({found.last_error_at}): {found.last_error}"
        if fleet.overrides_refused:
            line += f"; local settings not applied: {', '.join(fleet.overrides_refused)}"
        lines.append(line)
    return lines


# --- reload ----------------------------------------------------------------------------------------


def cmd_reload(args: argparse.Namespace, config: Config) -> int:
    def run() -> int:
        with _client(args, config, timeout=60.0) as client:
            from hookd.v1 import hookd_pb2 as pb

            result = client.call(client.control.Reload, pb.ReloadRequest())
        now = result.policy_set
        if not result.ok:
            print(f"hookd: reload refused, still serving revision {now.revision}: {result.error}", file=sys.stderr)
            return 1
        change = (
            f"revision {result.previous_revision} (unchanged)"
            if result.previous_revision == now.revision
            else f"revision {result.previous_revision} → {now.revision}"
        )
        print(f"reloaded {now.path}: {change}, {len(now.packages)} packages")
        return 0

    return _guarded(run)


# --- policies --------------------------------------------------------------------------------------


def cmd_policies(args: argparse.Namespace, config: Config) -> int:
    def run() -> int:
        with _client(args, config) as client:
            from hookd.v1 import hookd_pb2 as pb

            listing = client.call(client.control.ListPolicies, pb.ListPoliciesRequest())
        if args.json:
            print(json.dumps(_to_dict(listing), indent=2, sort_keys=True))
            return 0
        for policy_set in listing.policy_sets:
            print(f"{policy_set.name}: {policy_set.path} (revision {policy_set.revision})")
        for package in listing.packages:
            rules = ", ".join(rule.name for rule in package.rules) or "-"
            routing = package.routing
            scope = "; ".join(
                f"{label} {', '.join(values)}"
                for label, values in (("events", routing.events), ("kinds", routing.kinds), ("tools", routing.tools))
                if values
            )
            print(
                f"  {package.name:32} rules: {rules}" + (f"   routing: {scope}" if scope else "   routing: every event")
            )
        return 0

    return _guarded(run)


# --- tail ------------------------------------------------------------------------------------------


def format_record(record: pb.DecisionRecord) -> str:
    """One line per decision for people: time, event, tool, decision, rule ids, latency, id."""
    when = record.time.replace("T", " ")[:23] if record.time else "-"
    rules = ",".join(f"{v.policy}:{v.rule}" for v in record.verdicts) or "-"
    return (
        f"{when}  {record.event:<19} {record.tool or '-':<18} {record.decision:<7} {rules}  "
        f"{record.latency_ms:.2f}ms  {record.id}"
    )


def cmd_tail(args: argparse.Namespace, config: Config) -> int:
    def run() -> int:
        with _client(args, config) as client:
            import grpc

            from hookd.control.client import describe_rpc_error
            from hookd.v1 import hookd_pb2 as pb

            request = pb.StreamDecisionsRequest(
                events=args.event, decisions=args.decision, tools=args.tool, session_id=args.session
            )
            call = client.control.StreamDecisions(request)
            seen = 0
            try:
                call.initial_metadata()  # the daemon sends it once the stream is subscribed (or the call ends)
                if not call.done():
                    print(f"hookd: following decisions on {client.path} (Ctrl-C to stop)", file=sys.stderr, flush=True)
                for record in call:
                    if record.dropped_before:
                        print(
                            f"hookd: {record.dropped_before} decisions skipped: this reader fell behind",
                            file=sys.stderr,
                        )
                    print(record.json if args.json else format_record(record), flush=True)
                    seen += 1
                    if args.count and seen >= args.count:
                        return 0
            except grpc.RpcError as exc:
                if exc.code() == grpc.StatusCode.CANCELLED:
                    return 0
                raise describe_rpc_error(exc, client.path) from None
            finally:
                call.cancel()
        print("hookd: the daemon stopped; no more decisions", file=sys.stderr)
        return 1

    return _guarded(run)


# --- eval --daemon ---------------------------------------------------------------------------------


def eval_on_daemon(args: argparse.Namespace, config: Config, payload: bytes, env: dict[str, str]) -> int:
    """`hookd eval --daemon`: the same answer as the hook path, from the running daemon's policies."""
    from hookd.cli.output import print_evaluation

    def run() -> int:
        with _client(args, config) as client:
            from hookd.v1 import hookd_pb2 as pb

            request = pb.EvaluateRequest(
                client=args.client,
                event=args.event or "",
                payload=payload,
                env=env,
                cwd=os.getcwd(),
                interactive=pb.INTERACTIVE_YES if args.interactive else pb.INTERACTIVE_NO,
            )
            result = client.call(client.control.Evaluate, request)
        verdicts = []
        for v in result.verdicts:
            verdict: dict[str, Any] = {"kind": v.kind, "policy": v.policy, "rule": v.rule, "message": v.message}
            if v.patch_json:
                verdict["patch"] = json.loads(v.patch_json)
            verdicts.append(verdict)
        print_evaluation(
            {
                "decision": result.decision,
                "stdout": result.stdout.decode(errors="replace"),
                "stderr": result.stderr.decode(errors="replace"),
                "exit_code": result.exit_code,
                "verdicts": verdicts,
                "notes": list(result.notes),
                "decision_id": result.decision_id,
                "revision": result.revision,
            },
            as_json=args.json,
        )
        return 0

    return _guarded(run)


# --- log verify ------------------------------------------------------------------------------------


def cmd_log_verify(args: argparse.Namespace, config: Config) -> int:
    from hookd.audit.chain import kept_path, log_files, verify, verify_kept

    path = Path(args.path).resolve() if args.path else config.log.path
    if not log_files(path):
        print(f"hookd: no decision log at {path}", file=sys.stderr)
        return 1
    try:
        report = verify(path)
    except OSError as exc:
        raise HookdError(f"cannot read the decision log {path}: {exc.strerror or exc}") from None
    span = f"seq {report.first_seq}-{report.last_seq}" if report.records else "no records"
    state = "chain intact" if report.ok else f"{len(report.problems)} problems"
    print(f"{path}: {report.records} records in {report.files} files ({span}), {state}")
    for note in report.notes:
        print(f"note: {note}")
    for problem in report.problems:
        print(problem)
    if report.ok and report.head:
        print(f"head: {report.head}")
    if not log_files(kept_path(path)):
        return 0 if report.ok else 1
    try:
        held = verify_kept(path)
    except OSError as exc:
        raise HookdError(f"cannot read the kept log {kept_path(path)}: {exc.strerror or exc}") from None
    state = "every record matches its hash" if held.ok else f"{len(held.problems)} problems"
    print(f"{kept_path(path)}: {held.records} records kept (all but allows) in {held.files} files, {state}")
    for problem in held.problems:
        print(problem)
    return 0 if report.ok and held.ok else 1


def cmd_log_ocsf(args: argparse.Namespace, config: Config) -> int:
    """The decision log (rotated files first) as OCSF API Activity events, for a SIEM (docs/fleet.md)."""
    import json
    import socket

    from hookd.audit.chain import log_files
    from hookd.audit.ocsf import ocsf_event

    path = Path(args.path).resolve() if args.path else config.log.path
    files = log_files(path)
    if not files:
        print(f"hookd: no decision log at {path}", file=sys.stderr)
        return 1
    host = socket.gethostname()
    try:
        for file in files:
            with file.open(encoding="utf-8", errors="replace") as handle:
                for line in handle:
                    try:
                        record = json.loads(line)
                    except ValueError:
                        continue  # a torn line (`hookd log verify` reports it)
                    if isinstance(record, dict) and record.get("type") == "decision":
                        event = ocsf_event(record, int(record.get("seq") or 0), str(record.get("hash") or ""), host)
                        print(json.dumps(event, separators=(",", ":"), sort_keys=True))
    except OSError as exc:
        raise HookdError(f"cannot read the decision log {path}: {exc.strerror or exc}") from None
    return 0
