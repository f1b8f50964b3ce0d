"""Status reports in OPA's status API format from a real daemon polling a real bundle server on 127.0.0.1,
to a real HTTP status receiver: one at start, one on every activation and refusal (with the error, while
the last good revision keeps serving), one periodically; a PUT to an object-store style URL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bundle_support import BundleServer, KeyPair, make_key, named, policy_dir, start, wait_for
from fleet_support import StatusReceiver

from hookd.bundle.build import build
from hookd.bundle.signing import Key
from support import eventually

pytestmark = pytest.mark.timeout(300)
RULE = 'deny contains {{"id": "rev", "reason": "revision {rev}"}} if input.tool.name == "never-{rev}"\n'


def bundle(tmp_path: Path, rev: str, key: KeyPair) -> bytes:
    source = policy_dir(tmp_path / f"src-{rev}", "org", RULE.format(rev=rev))
    return build(source, revision=rev, roots=["hookd/org"], key=Key(key.algorithm, key.private))


@pytest.fixture
def receiver() -> Iterator[StatusReceiver]:
    r = StatusReceiver()
    yield r
    r.close()


@pytest.fixture
def server() -> Iterator[BundleServer]:
    s = BundleServer()
    yield s
    s.close()


def config(server: BundleServer, pub: Path, status_url: str, extra: str = "") -> str:
    return (
        f'[keys.org]\nalgorithm = "RS256"\nkey_file = "{pub}"\n\n'
        f'[bundles.acme]\nurl = "{server.url("acme.tar.gz")}"\nkey = "org"\n'
        "min_delay_seconds = 0.2\nmax_delay_seconds = 0.4\n\n"
        f'[status]\nurl = "{status_url}"\ntoken = "status-s3cret"\ninterval_seconds = 2\n{extra}'
    )


def with_reason(reason: str, **bundle: Any) -> Any:
    def match(reports: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [
            r for r in reports
            if r["hookd"]["reason"] == reason
            and all(r["bundles"].get("acme", {}).get(k) == v for k, v in bundle.items())
        ]  # fmt: skip

    return match


def test_reports_on_start_activation_refusal_and_periodically(
    tmp_path: Path, server: BundleServer, receiver: StatusReceiver
) -> None:
    key, wrong = make_key("RS256"), make_key("RS256")
    _, pub = key.write(tmp_path / "keys")
    server.publish("acme.tar.gz", bundle(tmp_path, "r1", key))
    daemon = start(tmp_path, config=config(server, pub, receiver.url()))
    try:
        wait_for(daemon, named("bundle_activated", source="acme", revision="r1"))
        activated = receiver.wait(with_reason("activation", active_revision="r1"))[-1]
        server.publish("acme.tar.gz", bundle(tmp_path, "r2-wrong-key", wrong))
        refused = receiver.wait(with_reason("failure", active_revision="r1", code="bundle_error"))[-1]
        periodic = receiver.wait(with_reason("periodic"))[-1]
    finally:
        daemon.stop()
    assert [m for m, p, _ in receiver.snapshot()] == ["POST"] * len(receiver.snapshot())
    assert {p for _, p, _ in receiver.snapshot()} == {"/status"}
    assert activated["labels"]["app"] == "hookd" and activated["labels"]["id"]
    acme = activated["bundles"]["acme"]
    assert acme["name"] == "acme" and acme["type"] == "snapshot"
    assert {"last_request", "last_successful_request", "last_successful_download", "last_successful_activation"} <= set(
        acme
    )
    assert acme["hookd"]["mode"] == "enforce"
    assert acme["metrics"]["counter_bundle_activations"] == 1
    assert activated["plugins"]["bundle"] == {"state": "OK"}
    layers = {layer["name"]: layer for layer in activated["hookd"]["policy_sets"]}
    assert layers["acme"]["revision"] == "r1" and layers["acme"]["mode"] == "enforce"
    assert layers["default"]["rank"] == "user"
    assert (
        "verification" in refused["bundles"]["acme"]["message"] or "signature" in refused["bundles"]["acme"]["message"]
    )
    assert refused["bundles"]["acme"]["metrics"]["counter_bundle_refusals"] >= 1
    assert any("bundle acme:" in e for e in refused["hookd"]["errors"])
    assert "doctor" in periodic["hookd"] and "checked_at" in periodic["hookd"]["doctor"]
    assert set(periodic["hookd"]["rollout"]) >= {"monitor", "shadow_evaluated", "disagreements", "skipped", "errors"}


def test_put_to_an_object_store_url(tmp_path: Path, server: BundleServer, receiver: StatusReceiver) -> None:
    key = make_key("RS256")
    _, pub = key.write(tmp_path / "keys")
    server.publish("acme.tar.gz", bundle(tmp_path, "r1", key))
    url = receiver.url("fleet/{host}-{user}.json")
    daemon = start(tmp_path, config=config(server, pub, url, 'method = "PUT"\n'))
    try:
        report = receiver.wait(with_reason("activation", active_revision="r1"))[-1]
    finally:
        daemon.stop()
    method, path, _ = receiver.snapshot()[-1]
    labels = report["labels"]
    assert method == "PUT" and path == f"/fleet/{labels['host']}-{labels['user']}.json"


def test_a_held_long_poll_does_not_hold_up_the_stop(tmp_path: Path, server: BundleServer) -> None:
    """SIGTERM while the bundle server holds a long poll (120 s): the daemon exits at once, without waiting for
    the held request (a fleet's daemons restart for upgrades; a unit's stop timeout is finite)."""
    key = make_key("RS256")
    _, pub = key.write(tmp_path / "keys")
    server.publish("acme.tar.gz", bundle(tmp_path, "r1", key))
    config = (
        f'[keys.org]\nalgorithm = "RS256"\nkey_file = "{pub}"\n\n'
        f'[bundles.acme]\nurl = "{server.url("acme.tar.gz")}"\nkey = "org"\nlong_polling_timeout_seconds = 120\n'
    )
    daemon = start(tmp_path, config=config)
    try:
        wait_for(daemon, named("bundle_activated", source="acme", revision="r1"))
        eventually(lambda: server.in_flight >= 1, timeout=60, what="a long poll held by the server")
    finally:
        assert daemon.stop(timeout=30) == 0  # the held request (up to 120 s) would time this out
