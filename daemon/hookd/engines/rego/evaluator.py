"""The worker side of an isolated Rego engine (hookd.engines.rego.isolated): started like a Python policy
worker (`python -I -S -B`, a clean environment), it imports regorus, puts itself under the same sandbox
layers (hookd.sandbox.layers), compiles the policy sources the daemon sent, and evaluates one router rule
per request until the daemon closes the channel, or kills it at a request's deadline.

A request is a frame `{"id": n}` followed by a frame holding the input document; the worker routes it with
its own router (the daemon's only tells whether any package applies); the answer is
`{"id": n, "result": {package: {rule: [elements]}}}` or `{"id": n, "error": "..."}`.
"""

from __future__ import annotations

import json
import os
import resource
import traceback
from pathlib import Path
from typing import Any

from hookd.engines.rego.policyset import (
    ROUTER_PACKAGE,
    DataDocument,
    PolicySet,
    PolicySources,
    compile_policy_set,
)
from hookd.sandbox import frames, layers
from hookd.sandbox.worker import take_channel


def sources_of(init: dict[str, Any]) -> PolicySources:
    rego = init["rego"]
    return PolicySources(
        Path(rego["policy_dir"]),
        tuple((str(path), str(source)) for path, source in rego["modules"]),
        tuple(DataDocument(tuple(prefix), value) for prefix, value in rego["data"]),
    )


def with_room_for_regorus(init: dict[str, Any]) -> dict[str, Any]:
    """The address-space limit counted from what is mapped already: regorus maps about 1 GiB of address
    space when it loads (RSS 29 MB), so `memory_mb` of address space would leave it none to allocate."""
    limits = dict(init["limits"])
    limits["memory_mb"] = int(limits["memory_mb"]) + mapped_mb()
    return {**init, "limits": limits}


def mapped_mb() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        size = next((line.split()[1] for line in status if line.startswith("VmSize:")), "0")
    return int(size) // 1024


def describe(policies: PolicySet) -> list[dict[str, Any]]:
    return [
        {"name": p.name, "rules": dict(p.rules), "routing": {k: sorted(v) for k, v in p.routing.items()}}
        for p in policies.packages
    ]


def evaluate(policies: PolicySet, document: bytes) -> dict[str, Any]:
    try:
        rule = policies.router.rule_for(json.loads(document))
        if not rule:
            return {"result": {}}
        policies.engine.set_input_json(document.decode())
        return {"result": json.loads(policies.engine.eval_rule_as_json(f"data.{ROUTER_PACKAGE}.{rule}"))}
    except Exception as exc:  # the daemon turns it into the event's fail mode
        return {"error": f"{type(exc).__name__}: {exc}"[:500]}


def serve(channel_in: int, channel_out: int, policies: PolicySet, cpu_seconds: int) -> None:
    while True:
        request = frames.read_frame(channel_in)
        if request is None:
            return
        header = frames.read_exactly(channel_in, frames.HEADER.size)
        if header is None:
            return
        document = frames.read_exactly(channel_in, frames.decode_length(header)) or b"null"
        answer = evaluate(policies, document)
        used = resource.getrusage(resource.RUSAGE_SELF)
        answer["id"] = request["id"]
        answer["retire"] = used.ru_utime + used.ru_stime > cpu_seconds / 2  # CPU time adds up over calls
        frames.write_frame(channel_out, answer)


def main() -> None:
    channel_in, channel_out = take_channel()
    init = frames.read_frame(channel_in)
    if init is None:
        return
    try:
        report = layers.apply(with_room_for_regorus(init))
        policies = compile_policy_set(sources_of(init))
    except BaseException as exc:
        frames.write_frame(channel_out, {"fatal": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()})
        return
    frames.write_frame(
        channel_out,
        {"ready": True, "pid": os.getpid(), "layers": report, "policies": [], "packages": describe(policies)},
    )
    serve(channel_in, channel_out, policies, int(init["limits"]["cpu_seconds"]))
