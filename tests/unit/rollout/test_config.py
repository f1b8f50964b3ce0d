"""The rollout, replay and otel sections and the layer modes: bad input is a one-line error naming the key."""

from __future__ import annotations

import pytest

from hookd.config import parse_config
from hookd.errors import ConfigError


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"layers": {"mode": "shadow"}}, "'layers.mode' must be one of enforce, monitor"),
        ({"bundles": {"org": {"file": "/b.tar.gz", "mode": "observe"}}}, "'bundles.org.mode' must be one of"),
        ({"bundles": {"org": {"file": "/b.tar.gz", "replaces": "x"}}}, "'bundles.org.replaces' needs mode"),
        ({"rollout": {"cpu_budget_percent": 101}}, "'rollout.cpu_budget_percent' must be at most 100"),
        ({"rollout": {"shadow_replaces": "default"}}, "'rollout.shadow_replaces' needs 'rollout.shadow_policies'"),
        (
            {"rollout": {"shadow_policies": "/c"}, "bundles": {"n": {"file": "/n.tar.gz", "mode": "shadow"}}},
            "one shadow at a time, got n, shadow",
        ),
        ({"otel": {"endpoint": "127.0.0.1:4317"}}, "'otel.endpoint' must be http://HOST:PORT or https://HOST:PORT"),
        ({"replay": {"max_bytes": 0}}, "'replay.max_bytes' must be a positive integer"),
        ({"replay": {"enabled": "yes"}}, "'replay.enabled' must be true or false"),
    ],
)
def test_bad_rollout_settings_are_one_line_errors(raw: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(")) as caught:
        parse_config(raw)
    assert "\n" not in str(caught.value)


def test_good_settings_parse() -> None:
    config = parse_config(
        {
            "layers": {"mode": "monitor", "project_mode": "monitor"},
            "bundles": {"next": {"file": "/n.tar.gz", "mode": "shadow", "replaces": "org"}},
            "replay": {"enabled": True, "max_age_hours": 24},
            "otel": {"endpoint": "https://otel.example:4317", "agent": "claude"},
        }
    )
    assert (config.layers.mode, config.bundles.sources[0].mode, config.bundles.sources[0].replaces) == (
        "monitor", "shadow", "org"
    )  # fmt: skip
    assert config.replay.enabled and config.replay.max_age_hours == 24 and config.otel.agent == "claude"
