"""[daemon] engine and [opa]: choices, URL shapes, TLS settings that only https can use."""

from __future__ import annotations

import pytest

from hookd.config import parse_config
from hookd.errors import ConfigError


def test_defaults_keep_the_embedded_engine() -> None:
    config = parse_config({})
    assert config.daemon.engine == "embedded"
    assert config.opa.url == "http://127.0.0.1:8181"


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:8181", "https://opa.example:443", "unix:///run/opa.sock", "http://[::1]:8181"]
)
def test_accepted_urls(url: str) -> None:
    config = parse_config({"daemon": {"engine": "opa"}, "opa": {"url": url, "token": "t", "timeout_ms": 200}})
    assert (config.daemon.engine, config.opa.url, config.opa.timeout_ms) == ("opa", url, 200)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"daemon": {"engine": "wasm"}}, "'daemon.engine' must be one of embedded, opa"),
        ({"opa": {"url": "ftp://x"}}, "'opa.url' must be http(s)://host[:port] or unix:///path"),
        ({"opa": {"url": "http://x:99999"}}, "'opa.url' must be"),
        ({"opa": {"url": "http://x/v1/data"}}, "'opa.url' must be"),
        ({"opa": {"url": "unix://relative.sock"}}, "unix:///absolute/path"),
        ({"opa": {"token": "a", "token_file": "/t"}}, "one of 'opa.token' and 'opa.token_file'"),
        ({"opa": {"ca_file": "/ca.pem"}}, "need an https:// 'opa.url'"),
        ({"opa": {"url": "https://x", "client_key": "/k.pem"}}, "'opa.client_key' needs 'opa.client_cert'"),
        ({"opa": {"timeout_ms": 0}}, "'opa.timeout_ms' must be a positive integer"),
        ({"opa": {"retries": 2}}, "unknown key 'opa.retries'"),
    ],
)
def test_refused_naming_the_key(raw: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match="config: ") as info:
        parse_config(raw)
    assert message in str(info.value)
