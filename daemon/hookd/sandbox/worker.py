"""The worker: started by the daemon as `python -I -S -B -c "...; main()"` with a clean environment.

It moves its channel off stdin/stdout (which become /dev/null, so that a policy's print() is harmless),
reads its set-up frame, puts itself under the sandbox layers, loads the policy sources it was sent, and
answers requests until the daemon closes the channel. Policy code runs only after every layer is in force.
"""

from __future__ import annotations

import json
import linecache
import os
import resource
import sys
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from hookd import policy_api
from hookd.errors import SandboxFrameError
from hookd.sandbox import frames, layers


@dataclass(frozen=True, slots=True)
class LoadedPolicy:
    name: str  # "<file>:<function>", the key the daemon routes by
    policy_id: str
    declared: policy_api.Declared


def take_channel() -> tuple[int, int]:
    channel_in, channel_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    return channel_in, channel_out


def default_policy_id(relpath: str) -> str:
    return "hookd." + relpath.removesuffix(".py").replace("/", ".")


def load_policies(sources: Sequence[Mapping[str, str]]) -> list[LoadedPolicy]:
    loaded: list[LoadedPolicy] = []
    for entry in sources:
        relpath, filename, source = entry["path"], entry["filename"], entry["source"]
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        module_name = "hookd_policies." + relpath.removesuffix(".py").replace("/", ".")
        namespace: dict[str, Any] = {"__name__": module_name, "__file__": filename}
        policy_api.REGISTRY.clear()
        exec(compile(source, filename, "exec"), namespace)
        if not policy_api.REGISTRY:
            raise ValueError(f"{relpath} declares no policy (decorate a function with @policy)")
        for declared in policy_api.REGISTRY:
            name = f"{relpath}:{declared.function.__name__}"
            loaded.append(LoadedPolicy(name, declared.policy_id or default_policy_id(relpath), declared))
        policy_api.REGISTRY.clear()
    return loaded


def describe(policy: LoadedPolicy) -> dict[str, Any]:
    declared = policy.declared

    def listed(values: frozenset[str] | None) -> list[str] | None:
        return sorted(values) if values is not None else None

    return {
        "name": policy.name,
        "policy_id": policy.policy_id,
        "events": listed(declared.events),
        "kinds": listed(declared.kinds),
        "tools": listed(declared.tools),
    }


def as_verdicts(policy: LoadedPolicy, result: Any) -> list[dict[str, Any]]:
    if result is None:
        return []
    items = [result] if isinstance(result, policy_api.PolicyVerdict) else result
    if not isinstance(items, (list, tuple)) or not all(isinstance(v, policy_api.PolicyVerdict) for v in items):
        raise TypeError(f"returned {type(result).__name__}: expected None, a verdict or a list of verdicts")
    return [
        {
            "kind": verdict.kind,
            "policy": verdict.policy or policy.policy_id,
            "rule": verdict.rule or policy.declared.function.__name__,
            "message": str(verdict.message),
            "patch": json.loads(json.dumps(dict(verdict.patch), allow_nan=False)),  # refuse what JSON cannot carry
        }
        for verdict in items
    ]


def evaluate(policies: Mapping[str, LoadedPolicy], names: Sequence[str], document: bytes) -> dict[str, Any]:
    verdicts: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    for name in names:
        policy = policies[name]
        try:
            verdicts += as_verdicts(policy, policy.declared.function(json.loads(document)))
        except BaseException as exc:
            errors.append(
                {
                    "name": name,
                    "policy": policy.policy_id,
                    "error": f"{type(exc).__name__}: {exc}"[:500],
                    "traceback": traceback.format_exc()[-8000:],
                }
            )
    return {"verdicts": verdicts, "errors": errors}


def serve(channel_in: int, channel_out: int, policies: Mapping[str, LoadedPolicy], cpu_seconds: int) -> None:
    while True:
        request = frames.read_frame(channel_in)
        if request is None:
            return
        header = frames.read_exactly(channel_in, frames.HEADER.size)
        if header is None:
            return
        document = frames.read_exactly(channel_in, frames.decode_length(header)) or b"null"
        answer = evaluate(policies, request["policies"], document)
        used = resource.getrusage(resource.RUSAGE_SELF)
        answer["id"] = request["id"]
        # An exception may have left state behind, and CPU time adds up over calls: hand over to a fresh worker.
        answer["retire"] = bool(answer["errors"]) or used.ru_utime + used.ru_stime > cpu_seconds / 2
        try:
            frames.write_frame(channel_out, answer)
        except (TypeError, ValueError, SandboxFrameError) as exc:
            error = {"name": "", "policy": "", "error": f"the answer cannot be sent: {exc}", "traceback": ""}
            frames.write_frame(channel_out, {"id": request["id"], "verdicts": [], "retire": True, "errors": [error]})


def main() -> None:
    channel_in, channel_out = take_channel()
    init = frames.read_frame(channel_in)
    if init is None:
        return
    try:
        report = layers.apply(init)
        sys.path.extend(init.get("paths", []))
        loaded = load_policies(init["sources"])
    except BaseException as exc:
        frames.write_frame(channel_out, {"fatal": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()})
        return
    frames.write_frame(
        channel_out,
        {"ready": True, "pid": os.getpid(), "layers": report, "policies": [describe(p) for p in loaded]},
    )
    serve(channel_in, channel_out, {p.name: p for p in loaded}, int(init["limits"]["cpu_seconds"]))
