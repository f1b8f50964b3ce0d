"""Config: TOML over defaults, every error names its key."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookd.config import Config, load_config, parse_config
from hookd.errors import ConfigError
from hookd.types import Event, FailMode


def test_defaults_without_a_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HOOKD_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    config = load_config(None)
    assert config == Config()
    assert config.shim.fail_modes[Event.BEFORE_TOOL] is FailMode.CLOSED
    assert config.shim.fail_modes[Event.AFTER_AGENT] is FailMode.OPEN


def test_runtime_dir_follows_xdg_and_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", "/run/user/1000")
    assert Config().hook_socket == Path("/run/user/1000/hookd/hook.sock")
    monkeypatch.delenv("XDG_RUNTIME_DIR")
    import os

    assert Config().hook_socket == Path(f"/tmp/hookd-{os.getuid()}/hook.sock")


def test_file_overrides_defaults(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text('[daemon]\nrequest_timeout_ms = 900\npolicies = "~/pol"\n[fail_mode]\nBeforeTool = "open"\n')
    config = load_config(str(path))
    assert config.daemon.request_timeout_ms == 900
    assert config.daemon.policies == Path.home() / "pol"
    assert config.shim.fail_modes[Event.BEFORE_TOOL] is FailMode.OPEN
    assert config.source == path


def test_hookd_config_env_is_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[daemon]\nmax_concurrency = 3\n")
    monkeypatch.setenv("HOOKD_CONFIG", str(path))
    assert load_config(None).daemon.max_concurrency == 3


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"daemon": {"request_timeout": 1}}, "unknown key 'daemon.request_timeout'"),
        ({"deamon": {}}, "unknown section or key 'deamon'"),
        (
            {"daemon": {"request_timeout_ms": "fast"}},
            "'daemon.request_timeout_ms' must be a positive integer",
        ),
        ({"daemon": {"request_timeout_ms": 0}}, "'daemon.request_timeout_ms' must be a positive integer"),
        ({"daemon": {"log_level": "loud"}}, "'daemon.log_level' must be one of debug, info, warning, error"),
        ({"ask": {"unknown_is_headless": "yes"}}, "'ask.unknown_is_headless' must be true or false"),
        ({"fail_mode": {"BeforeTools": "open"}}, "unknown key 'fail_mode.BeforeTools'"),
        ({"fail_mode": {"AfterAgent": "closed"}}, "'fail_mode.AfterAgent' cannot be \"closed\""),
        ({"fail_mode": {"BeforeToolSelection": "closed"}}, "'fail_mode.BeforeToolSelection' cannot be"),
        ({"shim": {"deadline_ms": 9000}}, "shim.deadline_ms (9000) must be below shim.hook_timeout_ms"),
        ({"daemon": []}, "'daemon' must be a table"),
    ],
)
def test_wrong_config_names_the_key(raw: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(raw)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_bad_toml_and_missing_explicit_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[daemon\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(str(bad))
    with pytest.raises(ConfigError, match="file not found"):
        load_config(str(tmp_path / "missing.toml"))
