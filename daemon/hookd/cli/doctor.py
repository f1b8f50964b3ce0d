"""`hookd doctor`: check the whole set-up (hookd.doctor) and print one line per finding; exit 1 on any
problem, 0 when everything is sound."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path
from typing import Any

from hookd.config import Config


def register(sub: Any) -> None:
    doctor = sub.add_parser("doctor", help="check the daemon, service, agents' hooks, runtime dir, sandbox, policies")
    doctor.add_argument("--policies", help="policy directory to check (default: the configured one)")
    doctor.add_argument("--project-dir", default=".", help="the project whose agent settings are checked too")
    doctor.add_argument("--runtime-dir", help="the daemon's socket directory (default: the configured one)")
    doctor.add_argument("--strict", action="store_true", help="an unavailable sandbox layer is a problem even "
                        "without Python policies")  # fmt: skip
    doctor.add_argument("--no-sandbox", action="store_true", help="skip starting a Python worker to probe the sandbox")
    doctor.add_argument("--json", action="store_true", help="print one JSON object")
    doctor.set_defaults(run=cmd_doctor)


def cmd_doctor(args: argparse.Namespace, config: Config) -> int:
    from hookd.doctor import as_json, run_checks
    from hookd.runtime.logs import quiet_logging

    quiet_logging()
    daemon = config.daemon
    if args.policies:
        daemon = replace(daemon, policies=Path(args.policies).resolve())
    if args.runtime_dir:
        daemon = replace(daemon, runtime_dir=Path(args.runtime_dir).resolve())
    from hookd.cli.install import policy_needs

    checked = replace(config, daemon=daemon)
    needed = policy_needs(checked)  # None: the set does not load (the policy checks say why): check the fixed events
    findings = run_checks(checked, Path(args.project_dir).resolve(), sandbox=not args.no_sandbox,
                          strict=args.strict, needed=frozenset() if needed is None else needed)  # fmt: skip
    if args.json:
        print(as_json(findings))
    else:
        for finding in findings:
            print(finding.line())
    return 0 if all(f.ok for f in findings) else 1
