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
        ({"python": {"workers": 0}}, "'python.workers' must be a positive integer"),
        ({"daemon": {"workers": 0}}, "'daemon.workers' must be a positive integer"),
        ({"daemon": {"workers": 65}}, "'daemon.workers' must be at most 62 beside the lanes, got 65"),
        ({"python": {"timeout": 5}}, "unknown key 'python.timeout'"),
        ({"python": {"env": "HOME"}}, "'python.env' must be a list of non-empty strings"),
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


# --- [log] ---------------------------------------------------------------------------------------------


def test_log_defaults_live_in_the_state_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", "/var/lib/alice")
    log = Config().log
    assert log.path == Path("/var/lib/alice/hookd/decisions.log")
    assert (log.max_bytes, log.keep, log.stdout, log.queue_size) == (16 * 1024 * 1024, 5, False, 10_000)
    assert "raw.tool_input.content" in log.mask
    assert "raw.prompt" in log.mask
    assert "raw.tool_response" in log.mask
    assert log.builtin_secret_patterns is True
    monkeypatch.delenv("XDG_STATE_HOME")
    assert Config().log.path == Path.home() / ".local" / "state" / "hookd" / "decisions.log"


def test_log_section_overrides(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(
        "[log]\n"
        'path = "~/audit/d.log"\nmax_bytes = 1000\nkeep = 2\nstdout = true\n'
        'mask = ["raw.prompt", "raw.*.secret"]\nerase = []\nmask_length = 10\n'
        'secret_patterns = ["ACME-[0-9]+"]\nbuiltin_secret_patterns = false\n'
    )
    log = load_config(str(path)).log
    assert log.path == Path.home() / "audit" / "d.log"
    assert (log.max_bytes, log.keep, log.stdout, log.mask_length) == (1000, 2, True, 10)
    assert log.mask == ("raw.prompt", "raw.*.secret")
    assert log.erase == ()
    assert log.secret_patterns == ("ACME-[0-9]+",)
    assert log.builtin_secret_patterns is False


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"log": {"keep": 0}}, "'log.keep' must be a positive integer"),
        ({"log": {"max_bytes": "big"}}, "'log.max_bytes' must be a positive integer"),
        ({"log": {"stdout": "yes"}}, "'log.stdout' must be true or false"),
        ({"log": {"mask": "raw.prompt"}}, "'log.mask' must be a list of non-empty strings"),
        ({"log": {"mask": ["raw..prompt"]}}, "'log.mask' entry 1 ('raw..prompt') must be a dotted path"),
        ({"log": {"erase": ["ok", ""]}}, "'log.erase' must be a list of non-empty strings"),
        ({"log": {"secret_patterns": ["ok", "(unclosed"]}}, "'log.secret_patterns' entry 2 is not a valid regular"),
        ({"log": {"rotate": 3}}, "unknown key 'log.rotate'"),
        ({"log": []}, "'log' must be a table"),
    ],
)
def test_wrong_log_config_names_the_key(raw: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(raw)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_control_socket_is_beside_the_hook_socket(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_RUNTIME_DIR", "/run/user/1000")
    assert Config().control_socket == Path("/run/user/1000/hookd/control.sock")


def test_python_section_overrides() -> None:
    config = parse_config({"python": {"workers": 4, "timeout_ms": 250, "memory_mb": 512, "user": "daemon",
                                      "env": ["GIT_DIR"], "paths": ["/opt/policy-libs"]}})  # fmt: skip
    python = config.python
    assert (python.workers, python.timeout_ms, python.memory_mb, python.user) == (4, 250, 512, "daemon")
    assert (python.env, python.paths, python.cpu_seconds) == (("GIT_DIR",), ("/opt/policy-libs",), 60)


def test_http_endpoint_is_off_and_on_loopback_by_default() -> None:
    http = Config().http
    assert (http.enabled, http.host, http.port, http.token_env) == (False, "127.0.0.1", 8765, "HOOKD_HOOK_TOKEN")


@pytest.mark.parametrize("host", ["127.0.0.1", "::1", "localhost", "127.1.2.3"])
def test_http_loopback_hosts_are_accepted(host: str) -> None:
    assert parse_config({"http": {"host": host}}).http.host == host


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.2", "example.com", ""])
def test_http_other_hosts_are_refused(host: str) -> None:
    with pytest.raises(ConfigError, match=r"'http\.host' must be a loopback address"):
        parse_config({"http": {"host": host}})


@pytest.mark.parametrize(
    ("raw", "message"),
    [({"port": 70000}, "'http.port' must be at most 65535"), ({"token_env": "bad-name"}, "'http.token_env'"),
     ({"bogus": 1}, "unknown key 'http.bogus'")],
)  # fmt: skip
def test_http_bad_values_are_refused(raw: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_config({"http": raw})


def test_log_ship_and_metrics_sections() -> None:
    config = parse_config(
        {
            "log": {"ship": {"url": "https://logs.example/v1/logs", "token": "t", "batch_size": 50}},
            "metrics": {"listen": "[::1]:9464"},
        }
    )
    assert (config.log.ship.url, config.log.ship.token, config.log.ship.batch_size) == (
        "https://logs.example/v1/logs",
        "t",
        50,
    )
    assert config.log.ship.max_buffer == 10_000
    assert config.metrics.listen == "[::1]:9464"
    assert Config().log.ship.url == Config().metrics.listen == ""  # both off unless asked for


@pytest.mark.parametrize(
    ("raw", "error"),
    [
        ({"log": {"ship": {"url": "ftp://x/logs"}}}, "config: 'log.ship.url' must be an http:// or https:// URL"),
        ({"log": {"ship": {"urls": "http://x"}}}, "config: unknown key 'log.ship.urls'"),
        ({"log": {"ship": "http://x"}}, "config: 'log.ship' must be a table"),
        ({"log": {"ship": {"url": "http://x", "batch_size": 0}}}, "'log.ship.batch_size' must be a positive integer"),
        (
            {"log": {"ship": {"url": "http://x", "min_delay_ms": 5000, "max_delay_ms": 1000}}},
            "'log.ship.min_delay_ms' (5000) must not be above 'log.ship.max_delay_ms' (1000)",
        ),
        ({"metrics": {"listen": "9464"}}, "'metrics.listen' must be HOST:PORT, like 127.0.0.1:9464"),
        ({"metrics": {"listen": "10.0.0.1:9464"}}, "'metrics.listen' must be a loopback address"),
        ({"metrics": {"listen": "example.org:9464"}}, "'metrics.listen' must be a loopback address"),
        ({"metrics": {"port": 1}}, "unknown key 'metrics.port'"),
    ],
)
def test_log_ship_and_metrics_errors_name_the_key(raw: dict[str, object], error: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_config(raw)
    assert error in str(info.value)


def test_the_lanes_take_a_decision_id_slot_each() -> None:
    assert parse_config({"daemon": {"workers": 62}}).processes == 64  # the lane and the stream lane
    assert parse_config({"daemon": {"workers": 1, "lane": False}}).processes == 1
    with pytest.raises(ConfigError, match=r"'daemon\.workers = 2' needs 'daemon\.lane = true'"):
        parse_config({"daemon": {"workers": 2, "lane": False}})  # the lane is where a response's chunks meet
    with pytest.raises(ConfigError, match=r"'daemon\.workers' must be at most 62 beside the lanes, got 63"):
        parse_config({"daemon": {"workers": 63}})
