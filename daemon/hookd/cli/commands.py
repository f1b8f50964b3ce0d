"""The `hookd` commands that work on this machine: serve, eval, test, install, uninstall, shim, bench."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shlex
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hookd.cli.output import print_evaluation
from hookd.config import Config, check_opa
from hookd.dialects.registry import AGENTS, DEFAULT_AGENT
from hookd.errors import DaemonError, DialectError, HookdError
from hookd.types import Caller, Deadline, HookRequest

if TYPE_CHECKING:
    from hookd.install import InstallPlan


CLIENTS = tuple(AGENTS)
SCOPES = tuple(dict.fromkeys(scope for spec in AGENTS.values() for scope in spec.install.scopes))


def register(sub: Any) -> None:
    serve = sub.add_parser("serve", help="run the daemon")
    serve.set_defaults(run=cmd_serve)
    serve.add_argument("--policies", help="policy directory (default: the bundled policies/)")
    serve.add_argument("--runtime-dir", help="directory for the sockets (default: $XDG_RUNTIME_DIR/hookd)")
    serve.add_argument("--log-level", choices=("debug", "info", "warning", "error"))

    ev = sub.add_parser("eval", help="decide one payload from stdin without a daemon")
    ev.set_defaults(run=cmd_eval)
    ev.add_argument("--event", help="the client's hook event name (default: the payload's hook_event_name)")
    ev.add_argument("--client", default=DEFAULT_AGENT, choices=CLIENTS)
    ev.add_argument("--policies", help="policy directory (default: the configured one)")
    ev.add_argument("--interactive", action="store_true", help="treat the session as interactive (ask is kept)")
    ev.add_argument("--json", action="store_true", help="print one JSON object")
    ev.add_argument("--daemon", action="store_true", help="ask the running daemon (its policies, its pipeline)")
    ev.add_argument("--runtime-dir", help="with --daemon: the daemon's socket directory (default: the configured one)")

    test = sub.add_parser("test", help="run a policy directory's test_ rules and case files")
    test.set_defaults(run=cmd_test)
    test.add_argument("dir", nargs="?", help="policy directory (default: the configured one)")
    test.add_argument("-v", "--verbose", action="store_true", help="list passing tests too")
    test.add_argument(
        "--engine", choices=("embedded", "opa"), help="who evaluates the Rego (default: daemon.engine of the config)"
    )
    test.add_argument(
        "--opa-url", help="with --engine opa: this OPA server (default: a private `opa run --server` on 127.0.0.1)"
    )

    for name, text in (
        ("install", "register hookd's shim as the agent's hook"),
        ("uninstall", "remove it again"),
    ):
        cmd = sub.add_parser(name, help=text)
        cmd.set_defaults(run=cmd_install if name == "install" else cmd_uninstall)
        cmd.add_argument("--client", default=DEFAULT_AGENT, choices=CLIENTS)
        cmd.add_argument("--scope", default="user", choices=SCOPES, help="the scopes each agent has: docs/install.md")
        cmd.add_argument("--project-dir", default=".", help="project directory for --scope project")
        if name == "install":
            cmd.add_argument(
                "--managed-hooks-only",
                action="store_true",
                help="with --scope managed: let only managed hooks run (Claude Code, Codex CLI, Copilot CLI)",
            )
            cmd.add_argument(
                "--transport",
                default="command",
                choices=("command", "http"),
                help="http: the agent's http hooks to hookd's HTTP endpoint, where it has them (Claude Code)",
            )
            cmd.add_argument(
                "--shim",
                default="auto",
                choices=("auto", "native", "python"),
                help="the hook command: the native shim (hookd shim build), the Python one, or native when built",
            )
            cmd.add_argument(
                "--autostart",
                action="store_true",
                help="where no service manager runs: the shim starts `hookd serve` when no daemon answers",
            )

    shim = sub.add_parser("shim", help="build the native shim, or show where it is")
    shim.set_defaults(run=cmd_shim)
    shim_sub = shim.add_subparsers(dest="shim_command", required=True, metavar="SUBCOMMAND")
    shim_build = shim_sub.add_parser("build", help="compile client_shim/hookd_shim.c into the data directory")
    shim_build.add_argument("--cc", help="C compiler (default: $CC, then cc, gcc, clang)")
    shim_build.add_argument("--out", help="directory for hookd-shim (default: $XDG_DATA_HOME/hookd/bin)")
    shim_sub.add_parser("path", help="print where the native shim is (exit 1 when it is not built)")

    # every argument after `bench` (--help too) goes to bench/run.py: see main()
    bench = sub.add_parser(
        "bench", add_help=False, help="run bench/run.py from the source checkout (hookd bench --help)"
    )
    bench.set_defaults(run=cmd_bench)


def cmd_serve(args: argparse.Namespace, config: Config) -> int:
    from hookd.app import serve

    daemon = config.daemon
    if args.policies:
        daemon = replace(daemon, policies=Path(args.policies).resolve())
    if args.runtime_dir:
        # Not resolved: a symlink must reach the runtime-dir check as one (it is refused, never followed).
        daemon = replace(daemon, runtime_dir=Path(os.path.abspath(args.runtime_dir)))
    if args.log_level:
        daemon = replace(daemon, log_level=args.log_level)
    try:
        return serve(replace(config, daemon=daemon))
    except DaemonError as exc:
        print(f"hookd: {exc}", file=sys.stderr)
        return 1


def cmd_eval(args: argparse.Namespace, config: Config) -> int:
    from hookd.dialects.registry import forwarded_env

    forwarded = forwarded_env()
    env = {k: v for k, v in os.environ.items() if k in forwarded}
    if getattr(args, "daemon", False):
        if args.policies:
            raise HookdError("--policies and --daemon do not go together: the daemon serves its own policies")
        from hookd.cli.control import eval_on_daemon

        return eval_on_daemon(args, config, sys.stdin.buffer.read(), env)
    from hookd.assembly import build_pipeline, enrichers, load_engine
    from hookd.logs import quiet_logging

    quiet_logging()
    raw = sys.stdin.buffer.read()
    event = args.event or _event_of(raw)
    policies = Path(args.policies).resolve() if args.policies else config.daemon.policies
    interactive = bool(args.interactive)
    engine = load_engine(config, policies)  # before the deadline starts: Python workers take a moment to start
    steps = enrichers(config, processes=1)  # a dry run: a daemon's stream texts are left alone
    pipeline, _ = build_pipeline(config, engine, probe=lambda _pid: interactive, steps=steps)
    request = HookRequest(
        client=args.client,
        event=event,
        payload=raw,
        env=env,
        cwd=os.getcwd(),
        caller=Caller(uid=os.getuid(), gid=os.getgid(), pid=os.getpid(), ppid=os.getppid()),
        deadline=Deadline.after(config.daemon.request_timeout_ms / 1000),
    )

    async def decide() -> Any:
        try:
            return await pipeline.handle(request)
        finally:
            await engine.aclose()

    handled = asyncio.run(decide())
    decision, reply = handled.decision, handled.reply
    print_evaluation(
        {
            "decision": decision.outcome.name.lower(),
            "stdout": reply.stdout.decode(),
            "stderr": reply.stderr.decode(),
            "exit_code": reply.exit_code,
            "verdicts": [v.as_json() for v in decision.verdicts],
            "notes": list(decision.notes),
            "decision_id": decision.decision_id,
        },
        as_json=args.json,
    )
    return 0


def _event_of(raw: bytes) -> str:
    try:
        payload = json.loads(raw)
    except ValueError as exc:
        raise DialectError(f"stdin is not valid JSON: {exc}") from None
    name = payload.get("hook_event_name") if isinstance(payload, dict) else None
    if not isinstance(name, str):
        raise DialectError("the payload has no hook_event_name: pass --event")
    return name


def cmd_test(args: argparse.Namespace, config: Config) -> int:
    from hookd.logs import quiet_logging
    from hookd.policycorpus import figures
    from hookd.policytest import run_case_files, run_rego_tests, summarise

    quiet_logging()
    policy_dir = Path(args.dir).resolve() if args.dir else config.daemon.policies
    engine = args.engine or config.daemon.engine
    if args.opa_url and engine != "opa":
        raise HookdError("--opa-url needs --engine opa")
    config = replace(config, daemon=replace(config.daemon, engine=engine))
    with contextlib.ExitStack() as stack:
        if engine == "opa":
            from hookd.opaserver import OpaProcess

            url = args.opa_url or stack.enter_context(OpaProcess()).url
            config = replace(config, opa=replace(config.opa, url=url))
            check_opa(config.opa, "--opa-url")
        opa = config.opa if engine == "opa" else None
        results = run_rego_tests(policy_dir, opa) + run_case_files(policy_dir, config)
    for result in results:
        if result.status in ("FAIL", "ERROR") or args.verbose:
            print(f"{result.status:5} {result.name}" + (f": {result.detail}" if result.detail else ""))
    for line in figures(results):
        print(line)
    passed, failed = summarise(results)
    gaps = sum(r.status == "GAP" for r in results)
    outside = sum(r.status == "OUTSIDE" for r in results)
    extra = (f", {gaps} known gaps" if gaps else "") + (f", {outside} outside the aims" if outside else "")
    print(f"{passed} passed, {failed} failed" + extra)
    return 1 if failed else 0


def shim_path() -> Path:
    from hookd.resources import python_shim

    return python_shim()


def shim_program(config: Config, native: Path | None = None) -> list[str]:
    """The hook program: the native shim binary when given, else the Python shim."""
    return [str(native)] if native else [config.shim_python, "-I", "-S", str(shim_path())]


def _settings_path(args: argparse.Namespace) -> Path:
    from hookd.install import settings_path

    project_dir = Path(args.project_dir).resolve()
    return settings_path(args.client, args.scope, home=Path.home(), project_dir=project_dir, env=os.environ)


def _trust_path(args: argparse.Namespace) -> Path | None:
    from hookd.install import trust_path

    project_dir = Path(args.project_dir).resolve()
    return trust_path(args.client, args.scope, home=Path.home(), project_dir=project_dir, env=os.environ)


def install_plan(
    config: Config, client: str, path: Path, native: Path | None, transport: str = "command", autostart: bool = False
) -> tuple[InstallPlan, str]:
    """What `hookd install` writes into `path` for this client, and the line that describes it."""
    from hookd.install import make_plan

    plan, described = make_plan(client, path, config, shim_program(config, native), transport)
    if not autostart:
        return plan, described
    extra = ["--autostart", sys.executable]  # this venv's python: `python -m hookd serve` finds hookd
    if config.source is not None:
        extra += ["--autostart-config", str(Path(config.source).resolve())]
    if transport == "command":
        described = f"{described} {shlex.join(extra)}"
    if plan.args:  # exec form (Claude Code): the shim's arguments are a list
        return replace(plan, args={e: (*a, *extra) for e, a in plan.args.items()}), described
    return replace(plan, commands={e: f"{c} {shlex.join(extra)}" for e, c in plan.commands.items()}), described


def cmd_install(args: argparse.Namespace, config: Config) -> int:
    from hookd.install import install
    from hookd.shimbuild import choose

    path = _settings_path(args)
    native, fallback = choose(getattr(args, "shim", "auto"))
    transport = getattr(args, "transport", "command")
    autostart = bool(getattr(args, "autostart", False))
    plan, described = install_plan(config, args.client, path, native, transport, autostart)
    if getattr(args, "managed_hooks_only", False):
        if args.scope != "managed":
            raise HookdError("--managed-hooks-only goes with --scope managed")
        from hookd.install import managed_only_path

        plan = replace(plan, managed_hooks_only=True, managed_only_path=managed_only_path(args.client, path))
    trust = _trust_path(args)
    if trust is not None:
        project = Path(args.project_dir).resolve() if args.scope == "project" else None
        plan = replace(plan, trust_path=trust, project_dir=project)
    _guard_socket_dir(config)
    if args.scope == "managed":  # a machine-wide directory such as /etc/claude-code may not exist yet
        path.parent.mkdir(parents=True, exist_ok=True)
    result = install(plan)
    if fallback:
        print(fallback, file=sys.stderr)
    if transport == "http":
        _print_http_setup(config)
    if not result.changed:
        print(f"hookd is already installed in {path}; nothing changed")
        return 0
    print(f"installed hookd for {len(result.added)} events in {path}")
    print(f"hook command: {described}")
    if plan.project_dir is not None:  # trusting the project loads every hook and server it configures
        print(f"trusted {plan.project_dir} in {plan.trust_path}: the agent loads all of this project's hooks")
    if result.backup_path:
        print(f"backup of the previous file: {result.backup_path}")
    return 0


def _guard_socket_dir(config: Config) -> None:
    """A socket in a directory others can write to (/tmp) is registered only once its runtime dir is
    ours and 0700: made now if missing, refused if another user got there first (docs/protocol.md)."""
    from hookd.transport.runtime_dir import in_shared_dir, prepare_runtime_dir

    runtime = config.hook_socket.parent
    if in_shared_dir(runtime):
        try:
            prepare_runtime_dir(runtime)
        except DaemonError as exc:
            raise HookdError(f"not installing: the hook socket's directory is unsafe: {exc}") from None


def _print_http_setup(config: Config) -> None:
    """The token file is created now (0600) if needed; Claude reads the token from the environment."""
    from hookd.transport.http_hooks import load_token

    load_token(config.http.token_file)
    if not config.http.enabled:
        print("note: the HTTP hook endpoint is off: set `[http] enabled = true` in hookd's config", file=sys.stderr)
    print(f"the HTTP hooks send the token in ${config.http.token_env}; start Claude Code with it set:")
    print(f'  export {config.http.token_env}="$(cat {shlex.quote(str(config.http.token_file))})"')


def cmd_shim(args: argparse.Namespace, config: Config) -> int:
    from hookd.errors import ShimBuildError
    from hookd.shimbuild import build, is_usable, native_shim_path

    if args.shim_command == "path":
        native = native_shim_path()
        print(native)
        if not is_usable(native):
            print("hookd: the native shim is not built there yet: run `hookd shim build`", file=sys.stderr)
            return 1
        return 0
    try:
        built = build(Path(args.out) if args.out else None, args.cc)
    except ShimBuildError as exc:
        print(f"hookd: {exc}", file=sys.stderr)
        return 1
    linked = "static" if built.static else "dynamically linked"
    print(f"built the native shim: {built.path} ({linked}, {built.compiler})")
    return 0


def cmd_uninstall(args: argparse.Namespace, config: Config) -> int:
    from hookd.install import uninstall

    result = uninstall(_settings_path(args), client=args.client, trust_path=_trust_path(args))
    if not result.changed:
        print(f"hookd is not installed in {result.settings_path}; nothing changed")
        return 0
    print(f"removed hookd from {len(result.removed)} events in {result.settings_path}")
    if result.backup_path:
        print(f"backup of the previous file: {result.backup_path}")
    return 0


def cmd_bench(args: argparse.Namespace, _config: Config) -> int:
    """`hookd bench`: the side-by-side bench lives in the checkout's bench/ (it spawns the shims, a
    per-call hook and `opa`), so run it with this interpreter; an installed wheel has no bench/."""
    import hookd

    runner = Path(hookd.__file__).resolve().parents[2] / "bench" / "run.py"
    if not runner.is_file():
        raise HookdError(f"hookd bench needs a source checkout: {runner} does not exist")
    argv = [sys.executable, str(runner), *args.bench_args]
    os.execv(sys.executable, argv)
    return 1  # not reached: execv replaces this process
