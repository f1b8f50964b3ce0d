"""The rollout, replay and otel sections and the layer modes: bad input is a one-line error naming the key."""

from __future__ import annotations

from pathlib import Path

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
        (
            {"layers": {"projects": ["/src/a"], "monitor_projects": ["/src/b"]}},
            "'layers.monitor_projects' names /src/b, which is not in 'layers.projects'",
        ),
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


def test_one_project_can_be_monitored_while_the_others_are_enforced(tmp_path: Path) -> None:
    from hookd.assembly import local_layers
    from hookd.runtime.resources import policies_dir

    roots = [tmp_path / "a", tmp_path / "b"]
    for root in roots:
        (root / ".hookd" / "policies").mkdir(parents=True)
        (root / ".hookd" / "policies" / "p.rego").write_text("package hookd.p\n")
    config = parse_config(
        {
            "daemon": {"policies": str(policies_dir())},
            "layers": {"projects": [str(r) for r in roots], "monitor_projects": [str(roots[1])]},
        }
    )
    modes = {layer.name: layer.mode for layer in local_layers(config)}
    assert modes == {"default": "enforce", f"project:{roots[0]}": "enforce", f"project:{roots[1]}": "monitor"}
