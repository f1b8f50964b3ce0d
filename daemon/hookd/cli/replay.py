"""`hookd replay`: recorded requests against a candidate policy set, for people and for CI (docs/rollout.md).

Exit codes: 0 nothing listed in --fail-on happened, 1 it did, 2 usage or input errors (no store, a
candidate that does not load or verify, a recorded request the candidate could not evaluate).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

from hookd.config import Config
from hookd.errors import BundleError, HookdError


def register(sub: Any) -> None:
    replay = sub.add_parser("replay", help="replay recorded requests against a candidate policy set")
    candidate = replay.add_mutually_exclusive_group(required=True)
    candidate.add_argument("--policies", help="the candidate: a policy directory")
    candidate.add_argument("--bundle", help="the candidate: a bundle file, verified as the daemon would")
    place = replay.add_mutually_exclusive_group()
    place.add_argument(
        "--replaces",
        metavar="LAYER",
        help="the candidate stands in for this layer of the configured policy set (a bundle's name, default, "
        "project:ROOT); the other layers stay (default: the candidate is the whole set)",
    )
    place.add_argument(
        "--add", action="store_true", help="the candidate joins the configured policy set as one more bundle"
    )
    replay.add_argument("--store", help="the replay store directory, or one segment file (default: [replay] path)")
    replay.add_argument("--first", type=int, default=10, help="how many differing requests to show (default 10)")
    replay.add_argument(
        "--fail-on", default="", help="exit 1 when one of these happened: deny-to-allow,allow-to-deny,… or any"
    )
    replay.add_argument("--json", action="store_true", help="print the report as JSON")
    replay.add_argument("--verification-key", help="--bundle: PEM public key file, or the HMAC secret")
    replay.add_argument("--signing-alg", default="RS256")
    replay.add_argument("--key-id", default="default")
    replay.add_argument("--scope", default="")
    replay.set_defaults(run=cmd_replay)


def cmd_replay(args: argparse.Namespace, config: Config) -> int:
    from hookd.assembly import in_process
    from hookd.rollout.compare import parse_transitions
    from hookd.rollout.replay import format_report, replay
    from hookd.rollout.store import read_entries
    from hookd.runtime.logs import quiet_logging

    config = in_process(config)
    try:
        fail_on = parse_transitions(args.fail_on)
    except ValueError as exc:
        raise HookdError(f"--fail-on: {exc}") from None
    store = Path(args.store) if args.store else config.replay.path
    if not store.exists():
        raise HookdError(f"no replay store at {store} (turn it on with [replay] enabled = true, docs/rollout.md)")
    quiet_logging()
    with tempfile.TemporaryDirectory(prefix="hookd-replay-") as scratch:
        engine, described = _candidate(args, config, Path(scratch))
        if args.replaces or args.add:
            engine, described = _within_configured(config, engine, described, args.replaces or "")

        async def run() -> Any:
            try:
                entries = (entry for _, entry in read_entries(store))
                return await replay(entries, engine, max(args.first, 0), config.shim.fail_modes)
            finally:
                await engine.aclose()

        report = asyncio.run(run())
    if report.replayed + report.skipped == 0:  # nothing compared is no evidence that the candidate agrees
        raise HookdError(f"the replay store {store} holds no recorded decision: nothing to replay")
    if args.json:
        print(json.dumps({"store": str(store), "candidate": described, **report.as_json()}, indent=2))
    else:
        print("\n".join(format_report(report, str(store), described)))
    if report.errors:
        return 2
    return 1 if any(report.by_transition.get(t) for t in fail_on) else 0


def _within_configured(config: Config, candidate: Any, described: str, replaces: str) -> tuple[Any, str]:
    """The configured policy set as the daemon loads it (kept bundles, the user's directory, projects; no
    shadow) with the candidate in place of the layer `replaces`, or added as a bundle."""
    from dataclasses import replace

    from hookd.assembly import load_policy_set
    from hookd.rollout.replay import within

    unshadowed = replace(config, rollout=replace(config.rollout, shadow_policies="", shadow_replaces=""))
    try:
        configured = load_policy_set(unshadowed)
    except HookdError:
        asyncio.run(candidate.aclose())
        raise
    try:
        served = within(configured, candidate, described, replaces)
    except HookdError:
        asyncio.run(_close(configured.engine, candidate))
        raise
    where = f"in place of layer {replaces!r}" if replaces else "added as a bundle"
    kept = ", ".join(layer.name for layer in served.layers if layer.name != (replaces or "candidate"))
    return served.engine, f"{described} {where} of the configured set (with {kept or 'no other layer'})"


async def _close(*engines: Any) -> None:
    for engine in engines:
        await engine.aclose()


def _candidate(args: argparse.Namespace, config: Config, scratch: Path) -> tuple[Any, str]:
    """The candidate's engine and how to name it. Raises HookdError (PolicyLoadError, BundleError)."""
    from hookd.assembly import engine_for_dir

    if args.policies:
        directory = Path(args.policies).resolve()
        if not directory.is_dir():
            raise HookdError(f"--policies {args.policies}: not a directory")
        return engine_for_dir(config, directory), f"policies {directory}"
    from hookd.bundle.load import extract, open_bundle
    from hookd.cli.bundle import _key, _read

    key = _key(args.verification_key, args.signing_alg, args.key_id, args.scope)
    try:
        bundle = open_bundle(_read(args.bundle), key)
    except BundleError as exc:
        raise HookdError(f"--bundle {args.bundle}: refused: {exc}") from None
    directory = extract(bundle, scratch)
    engine = engine_for_dir(config, directory, source="bundle", signed=bundle.verified.signed)
    signed = "signed" if bundle.verified.signed else "unsigned"
    return engine, f"bundle {args.bundle} (revision {bundle.revision!r}, {signed})"
