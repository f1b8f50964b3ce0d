"""Differential conformance: every generated input decided identically by regorus and by the real OPA,
except where a documented engine gap (docs/policies.md, "Engine gaps") explains the difference; each gap
is pinned by a test in test_engine_gaps.py that fails once the engines agree."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest
from harness import Pair, combined_policy_dir, document_of, payloads
from hypothesis import HealthCheck, Phase, given, settings
from opa_server import running_opa

from hookd.config import OpaConfig
from hookd.engines.rego.embedded import RegoEmbeddedEngine
from hookd.engines.rego.opa import RegoOpaEngine

INPUTS = 1200  # generated; every one that the Gemini dialect accepts is compared (at least 1,000)


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pair]:
    policies = combined_policy_dir(tmp_path_factory.mktemp("diff") / "policies")
    with running_opa() as server, asyncio.Runner() as runner:
        remote = RegoOpaEngine.load(policies, OpaConfig(url=server.url, timeout_ms=120_000))
        yield Pair(RegoEmbeddedEngine.load(policies), remote, runner)
        runner.run(remote.aclose())


@pytest.mark.timeout(900)  # ~30 s on an idle 2-core box; the limit only keeps a stuck run from hanging
def test_every_decision_matches_the_real_opa(pair: Pair) -> None:
    compared: list[int] = []
    mismatches: list[str] = []
    started = time.monotonic()

    @settings(
        max_examples=INPUTS,
        derandomize=True,  # the same inputs on every run
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(payloads)
    def check(payload: dict[str, object]) -> None:
        document = document_of(payload)
        embedded, remote = pair.embedded_outcome(document), pair.opa_outcome(document)
        compared.append(1)
        if embedded != remote:
            mismatches.append(f"{payload}\n  regorus: {embedded}\n  opa:     {remote}")

    check()
    elapsed = time.monotonic() - started
    print(f"differential: {len(compared)} inputs compared in {elapsed:.1f} s, {len(mismatches)} mismatches")
    assert len(compared) >= 1000
    assert not mismatches, "\n".join(mismatches[:5])
