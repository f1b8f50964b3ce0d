"""The [bundles.NAME], [keys.NAME] and [layers] sections: defaults, and every mistake named."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hookd.config import parse_config
from hookd.errors import ConfigError

KEY = {"org": {"key_file": "/etc/org.pem"}}


def test_a_full_source() -> None:
    config = parse_config({
        "keys": {"org": {"algorithm": "ES256", "key": "PEM", "scope": "prod"}},
        "bundles": {"acme": {"url": "https://x.example/b.tar.gz", "key": "org", "token_file": "~/t",
                             "min_delay_seconds": 1, "max_delay_seconds": 2.5, "long_polling_timeout_seconds": 30}},
        "layers": {"projects": ["~/src/app"], "watch": True},
    })  # fmt: skip
    (source,) = config.bundles.sources
    assert (source.name, source.min_delay_seconds, source.max_delay_seconds) == ("acme", 1.0, 2.5)
    assert source.token_file == Path("~/t").expanduser()
    key = config.bundles.key_for(source)
    assert key is not None and (key.algorithm, key.material, key.key_id, key.scope) == ("ES256", "PEM", "org", "prod")
    assert config.layers.projects == (str(Path("~/src/app").expanduser()),) and config.layers.watch


def test_defaults_have_no_bundles_and_do_not_watch() -> None:
    config = parse_config({})
    assert config.bundles.sources == () and not config.layers.watch and config.layers.projects == ()


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"bundles": {"a": {}}}, "'bundles.a' needs exactly one of url"),
        ({"bundles": {"a": {"url": "ftp://x"}}}, "must be an http:// or https:// URL"),
        ({"bundles": {"a": {"file": "/x", "key": "nope"}}}, "names 'nope', which is not a [keys.NAME]"),
        ({"bundles": {"a": {"file": "/x", "colour": 1}}}, "unknown key 'bundles.a.colour'"),
        (
            {"bundles": {"a": {"file": "/x", "min_delay_seconds": "1"}}},
            "'bundles.a.min_delay_seconds' has the wrong type",
        ),
        (
            {"bundles": {"a": {"file": "/x", "min_delay_seconds": 5, "max_delay_seconds": 1}}},
            "min_delay_seconds <= max",
        ),
        ({"bundles": {"default": {"file": "/x"}}}, "'bundles.default': a name"),
        ({"bundles": {"a b": {"file": "/x"}}}, "'bundles.a b': a name"),
        ({"keys": {"k": {"algorithm": "none", "key": "x"}}}, "'keys.k.algorithm' must be one of"),
        ({"keys": {"k": {}}}, "'keys.k' needs exactly one of key, key_file"),
        ({"layers": {"watch": "yes"}}, "'layers.watch' must be true or false"),
    ],
)
def test_mistakes_are_refused_naming_the_key(raw: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config({"keys": KEY, **raw} if "keys" not in raw else raw)
    assert message in str(caught.value)
