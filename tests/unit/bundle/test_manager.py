"""BundleManager.offer: a bundle is swapped in only once it is verified, compiled and started; anything
else is refused with its reason and the swap never happens."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bundle_support import make_key, policy_dir

from hookd.bundle.activate import Active
from hookd.bundle.build import build
from hookd.bundle.config import BundlesConfig, BundleSource, KeyConfig
from hookd.bundle.manager import BundleManager
from hookd.bundle.signing import Key
from hookd.bundle.store import BundleStore
from hookd.engines.rego.embedded import RegoEmbeddedEngine
from hookd.testing import StaticEngine
from hookd.types import Engine


def manager(tmp_path: Path, compile_dir: Any) -> tuple[BundleManager, list[Mapping[str, Active]], BundleSource, Key]:
    pair = make_key("ES256")
    source = BundleSource(name="acme", file=tmp_path / "b.tar.gz", key="org")
    config = BundlesConfig(sources=(source,), keys={"org": KeyConfig("org", algorithm="ES256", key=pair.public)})
    swaps: list[Mapping[str, Active]] = []
    return (
        BundleManager(config, BundleStore(tmp_path / "state"), compile_dir, swaps.append),
        swaps,
        source,
        Key("ES256", pair.private),
    )


def rego(path: Path, signed: bool) -> Engine:
    return RegoEmbeddedEngine.load(path)


def test_a_good_bundle_is_swapped_in_kept_and_counted(tmp_path: Path) -> None:
    mgr, swaps, source, key = manager(tmp_path, rego)
    data = build(policy_dir(tmp_path / "src", "acme", 'deny contains "x" if false'), revision="v1", key=key)
    assert asyncio.run(mgr.offer(source, data, '"e1"'))
    assert [list(s) for s in swaps] == [["acme"]] and mgr.active["acme"].revision == "v1"
    kept = mgr.store.load("acme")
    assert kept is not None and (kept.data, kept.etag, kept.revision) == (data, '"e1"', "v1")
    status = mgr.snapshot()[0]
    assert (status["revision"], status["activations"], status["refusals"]) == ("v1", 1, 0)
    assert asyncio.run(mgr.offer(source, data, '"e2"'))  # the same bytes: no recompile, no swap
    assert len(swaps) == 1


def test_an_engine_that_cannot_start_refuses_the_bundle_and_is_closed(tmp_path: Path) -> None:
    started: list[StaticEngine] = []

    def compile_dir(path: Path, signed: bool) -> Engine:
        started.append(StaticEngine(start_error="guard.py: NameError: name 'x' is not defined"))
        return started[-1]

    mgr, swaps, source, key = manager(tmp_path, compile_dir)
    data = build(policy_dir(tmp_path / "src", "acme", 'deny contains "x" if false'), revision="v1", key=key)
    assert not asyncio.run(mgr.offer(source, data, ""))
    assert swaps == [] and mgr.active == {} and started[0].closed
    status = mgr.snapshot()[0]
    assert status["refusals"] == 1
    assert status["last_error"] == "policies do not start: guard.py: NameError: name 'x' is not defined"
    assert mgr.store.load("acme") is None  # nothing kept: a restart would not serve it either


def test_an_unusable_state_dir_refuses_the_bundle_with_its_reason(tmp_path: Path) -> None:
    mgr, swaps, source, key = manager(tmp_path, rego)
    (tmp_path / "state").write_text("a file where the state directory should be")
    data = build(policy_dir(tmp_path / "src", "acme", 'deny contains "x" if false'), revision="v1", key=key)
    assert not asyncio.run(mgr.offer(source, data, ""))
    assert swaps == [] and mgr.snapshot()[0]["last_error"].startswith("cannot extract the bundle into")
