"""Discovery's merge rule (docs/fleet.md): the organisation's settings win, local configuration may add
layers and tighten, never loosen; a discovery bundle that sets what discovery may not set is refused."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from hookd.bundle.build import build
from hookd.bundle.config import BundleSource
from hookd.bundle.signing import Key
from hookd.config import Config, parse_config
from hookd.errors import BundleError
from hookd.fleet.discovery import Discovery, discovered_settings, effective, merge

ORG = {
    "bundles": {"acme": {"url": "https://b.example/acme.tar.gz", "key": "org", "mode": "monitor"}},
    "status": {"url": "https://status.example/status", "interval_seconds": 30},
    "log": {"ship": {"url": "https://logs.example/logs"}},
    "layers": {"project_mode": "monitor"},
}


def test_local_may_tighten_and_add() -> None:
    local = {
        "bundles": {"acme": {"mode": "enforce"}, "team": {"url": "https://t.example/t.tar.gz", "key": "org"}},
        "status": {"timeout_ms": 1000},
        "layers": {"project_mode": "enforce"},
    }
    merged, refused = merge(local, ORG)
    assert refused == []
    assert merged["bundles"]["acme"] == {**ORG["bundles"]["acme"], "mode": "enforce"}
    assert merged["bundles"]["team"] == local["bundles"]["team"]
    assert merged["status"] == {"url": "https://status.example/status", "interval_seconds": 30, "timeout_ms": 1000}
    assert merged["layers"]["project_mode"] == "enforce"


def test_local_may_not_loosen() -> None:
    org = {
        **ORG,
        "bundles": {"acme": {"url": "https://b.example/acme.tar.gz", "key": "org"}},
        "layers": {"mode": "enforce"},
    }
    local = {
        "bundles": {"acme": {"mode": "monitor", "url": "https://evil.example/acme.tar.gz", "key": "mine"}},
        "status": {"url": "https://elsewhere.example/status"},
        "log": {"ship": {"url": ""}},
        "layers": {"mode": "monitor"},
    }
    merged, refused = merge(local, org)
    assert sorted(refused) == sorted(
        ["bundles.acme.mode", "bundles.acme.url", "bundles.acme.key", "status.url", "log.ship.url", "layers.mode"]
    )
    assert merged["bundles"]["acme"] == org["bundles"]["acme"]
    assert merged["status"]["url"] == ORG["status"]["url"]
    assert merged["log"]["ship"]["url"] == ORG["log"]["ship"]["url"]
    assert merged["layers"]["mode"] == "enforce"


def test_a_shadow_keeps_its_mode() -> None:
    org = {
        "bundles": {"next": {"url": "https://b.example/n.tar.gz", "key": "org", "mode": "shadow", "replaces": "acme"}}
    }
    merged, refused = merge({"bundles": {"next": {"mode": "enforce"}}}, org)
    assert refused == ["bundles.next.mode"] and merged["bundles"]["next"]["mode"] == "shadow"


def signed_discovery(tmp_path: Path, settings: object, key: Key | None) -> bytes:
    directory = tmp_path / f"d-{abs(hash(json.dumps(settings)))}"
    (directory / "hookd" / "discovery").mkdir(parents=True)
    (directory / "hookd" / "discovery" / "data.json").write_text(json.dumps(settings))
    return build(directory, revision="d1", roots=["hookd/discovery"], key=key)


@pytest.mark.parametrize(
    ("settings", "error"),
    [
        ({"keys": {"org": {"key": "x"}}}, "may not set 'keys'"),
        ({"daemon": {"policies": "/tmp"}}, "may not set 'daemon'"),
        ({"log": {"path": "/tmp/x"}}, "may not set 'log.path'"),
        ({"bundles": {"acme": {"url": "https://b.example/a.tar.gz"}}}, "must be a url source that names a key"),
        ({"bundles": {"acme": {"file": "/tmp/a.tar.gz", "key": "org"}}}, "must be a url source that names a key"),
    ],
)
def test_what_discovery_may_not_set_refuses_the_bundle(tmp_path: Path, settings: object, error: str) -> None:
    secret = "s" * 32
    local = parse_config(
        {
            "keys": {"org": {"algorithm": "HS256", "key": secret}},
            "discovery": {"url": "https://d.example/d", "key": "org"},
        }
    )
    assert local.discovery is not None
    data = signed_discovery(tmp_path, settings, Key("HS256", secret))
    with pytest.raises(BundleError, match=error):
        discovered_settings(data, local.discovery, local)


def test_a_discovered_configuration_that_does_not_parse_is_refused(tmp_path: Path) -> None:
    secret = "s" * 32
    raw = {
        "keys": {"org": {"algorithm": "HS256", "key": secret}},
        "discovery": {"url": "https://d.example/d", "key": "org"},
    }
    local = parse_config(raw)
    assert isinstance(local.discovery, BundleSource)
    data = signed_discovery(
        tmp_path, {"bundles": {"acme": {"url": "https://b/a", "key": "nokey"}}}, Key("HS256", secret)
    )
    with pytest.raises(BundleError, match=r"not valid.*nokey"):
        effective(local, *discovered_settings(data, local.discovery, local))
    unsigned = signed_discovery(tmp_path, {"status": {"url": "https://s.example/status"}}, None)
    with pytest.raises(BundleError, match=r"not signed|signature"):
        discovered_settings(unsigned, local.discovery, local)


def test_a_revision_that_cannot_be_applied_is_refused_and_what_was_in_force_put_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A component failing to take a discovered configuration (an export that cannot be built) must not leave
    it half-applied, nor kill the poll: the previous configuration is applied again and the revision refused."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    secret = "s" * 32
    local = parse_config(
        {
            "keys": {"org": {"algorithm": "HS256", "key": secret}},
            "discovery": {"url": "https://d.example/d", "key": "org"},
        }
    )
    discovery = Discovery(local)
    applied: list[str] = []

    async def apply(config: Config) -> None:
        applied.append(config.status.url)
        if config.status.url == "https://broken.example/status":
            raise RuntimeError("the exporter cannot be built\nsecond line")

    discovery.apply = apply
    good = signed_discovery(tmp_path, {"status": {"url": "https://s.example/status"}}, Key("HS256", secret))
    bad = signed_discovery(tmp_path, {"status": {"url": "https://broken.example/status"}}, Key("HS256", secret))

    async def offers() -> tuple[bool, bool]:
        return await discovery.offer(good, "e1"), await discovery.offer(bad, "e2")

    assert asyncio.run(offers()) == (True, False)
    assert applied == ["https://s.example/status", "https://broken.example/status", "https://s.example/status"]
    assert discovery.current is not None and discovery.current.config.status.url == "https://s.example/status"
    assert discovery.status.refusals == 1 and discovery.status.activations == 1
    assert "not applied: the exporter cannot be built" in discovery.status.last_error
    assert "\n" not in discovery.status.last_error
