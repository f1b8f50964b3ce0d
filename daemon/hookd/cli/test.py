"""`hookd test`: run a policy directory's test_ rules and case files."""

from __future__ import annotations

import argparse
import contextlib
from dataclasses import replace
from pathlib import Path
from typing import Any

from hookd.config import Config, check_opa
from hookd.errors import HookdError


def register(sub: Any) -> None:
    test = sub.add_parser("test", help="run a policy directory's test_ rules and case files")
    test.set_defaults(run=cmd_test)
    test.add_argument("dir", nargs="?", help="policy directory (default: the configured one)")
    test.add_argument("-v", "--verbose", action="store_true", help="list passing tests too")
    test.add_argument(
        "--engine", choices=("embedded", "opa"), help="who evaluates the Rego (default: daemon.engine of the config)"
    )
    test.add_argument(
        "--corpus",
        action="append",
        default=[],
        metavar="GLOB",
        help="only the corpus files whose name matches GLOB (e.g. 'blind-shell-*'); repeatable; default: every one",
    )
    test.add_argument(
        "--opa-url", help="with --engine opa: this OPA server (default: a private `opa run --server` on 127.0.0.1)"
    )


def cmd_test(args: argparse.Namespace, config: Config) -> int:
    from hookd.policytest import run_case_files, run_rego_tests, summarise
    from hookd.policytest.corpus import figures
    from hookd.runtime.logs import quiet_logging

    quiet_logging()
    policy_dir = Path(args.dir).resolve() if args.dir else config.daemon.policies
    engine = args.engine or config.daemon.engine
    if args.opa_url and engine != "opa":
        raise HookdError("--opa-url needs --engine opa")
    config = replace(config, daemon=replace(config.daemon, engine=engine))
    engine_config = config  # the engine's: a private OPA server's URL is not the daemon's (the policies see that)
    with contextlib.ExitStack() as stack:
        if engine == "opa":
            from hookd.opaserver import OpaProcess

            url = args.opa_url or stack.enter_context(OpaProcess()).url
            engine_config = replace(config, opa=replace(config.opa, url=url))
            check_opa(engine_config.opa, "--opa-url")
        opa = engine_config.opa if engine == "opa" else None
        results = run_rego_tests(policy_dir, opa) + run_case_files(policy_dir, config, args.corpus, engine_config)
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
