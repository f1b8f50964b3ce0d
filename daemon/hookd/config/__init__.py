"""Configuration: TOML over built-in defaults, validated into frozen dataclasses.

Where the file comes from: `--config PATH`, else `$HOOKD_CONFIG`, else
`$XDG_CONFIG_HOME/hookd/config.toml` (default `~/.config/hookd/config.toml`) if it exists. Every
problem is a ConfigError that names the file and the key.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, is_dataclass, replace
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import SplitResult, urlsplit

from hookd.bundle.config import (
    BundlesConfig,
    BundleSource,
    LayersConfig,
    StatusConfig,
    check_status,
    parse_bundles,
    parse_discovery,
)
from hookd.config.runtime_dir import CONFIG_ENV, default_runtime_dir
from hookd.errors import ConfigError
from hookd.types import CAN_FAIL_CLOSED, FAIL_CLOSED_BY_DEFAULT, Event, FailMode

T = TypeVar("T")

# Per canonical event (hookd.types, which the agents' event tables agree with): an event fails closed by
# default when some agent's event of that kind does (AfterAgent never does: a deny there makes the agent
# go on in a loop; lifecycle events cannot block at all), and may be made to where some agent has a
# blocking output for it.
DEFAULT_FAIL_MODES: Mapping[Event, FailMode] = {
    event: FailMode.CLOSED if event in FAIL_CLOSED_BY_DEFAULT else FailMode.OPEN for event in Event
}


def default_config_path() -> Path:
    xdg = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(xdg) / "hookd" / "config.toml"


def default_state_dir() -> Path:
    xdg = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(xdg) / "hookd"


def bundled_policies_dir() -> Path:
    from hookd.runtime.resources import policies_dir

    return policies_dir()


MAX_WORKERS = 64  # decision ids keep 6 bits for the process that made them (hookd.audit.ids)


@dataclass(frozen=True, slots=True)
class DaemonConfig:
    runtime_dir: Path = field(default_factory=default_runtime_dir)
    policies: Path = field(default_factory=bundled_policies_dir)
    request_timeout_ms: int = 2500
    max_concurrency: int = 256
    max_header_bytes: int = 64 * 1024
    max_payload_bytes: int = 16 * 1024 * 1024
    log_level: str = "info"
    engine: str = "embedded"  # who evaluates the Rego policies: "embedded" (regorus) or "opa" ([opa])
    state_dir: Path = field(default_factory=default_state_dir)  # kept bundles: state_dir/bundles/NAME/
    workers: int = 1  # processes deciding hook-socket requests: the daemon and workers - 1 more (hookd.procs)
    lane: bool = True  # heavy requests ([limits] lane_*) are decided in a process of their own (hookd.procs)
    # Rego policies but hookd's bundled set in sandboxed workers a deadline kills (docs/policies.md)
    isolate_policies: bool = True


@dataclass(frozen=True, slots=True)
class LimitsConfig:
    """What one shell command or file tool call may cost (hookd.enrich.limits); over a cap it gets the
    input-limit verdict."""

    max_command_bytes: int = 64 * 1024
    max_command_tokens: int = 4096  # whitespace-separated, heredoc bodies and quoted text included
    max_command_substitutions: int = 32  # `$(`, backticks, `<(`, `>(`: bounds the nesting
    max_command_words: int = 256  # argv words and redirections of every command found, `bash -c` scripts included
    max_tool_paths: int = 256  # paths one file tool call names (read_many_files' list, say)
    # Under the caps, a request this large is decided in the lane process ([daemon] lane), not beside the
    # others: its evaluation would hold the deciding process for milliseconds (docs/reliability.md).
    lane_payload_bytes: int = 32 * 1024
    lane_command_tokens: int = 32
    lane_command_substitutions: int = 4
    lane_tool_paths: int = 16


@dataclass(frozen=True, slots=True)
class ShimConfig:
    deadline_ms: int = 4000
    hook_timeout_ms: int = 5000
    python: str = ""
    fail_modes: Mapping[Event, FailMode] = field(default_factory=lambda: dict(DEFAULT_FAIL_MODES))


@dataclass(frozen=True, slots=True)
class AskConfig:
    headless_fallback: str = "deny"
    unknown_is_headless: bool = True


# Paths into the input document (docs/decision-log.md): `tool.input` is the same object as
# `raw.tool_input`, so each tool argument is listed under both.
DEFAULT_MASK = (
    "tool.input.content", "raw.tool_input.content",
    "tool.input.old_string", "raw.tool_input.old_string",
    "tool.input.new_string", "raw.tool_input.new_string",
    "raw.tool_response", "raw.prompt", "raw.prompt_response", "raw.llm_request", "raw.llm_response",
)  # fmt: skip
DEFAULT_ERASE = ("raw.llm_request.messages",)


@dataclass(frozen=True, slots=True)
class ShipConfig:
    """Shipping decision log records to an HTTP collector in OPA's decision-log format (opt-in)."""

    url: str = ""  # POST target, e.g. http://127.0.0.1:8181/logs; empty: no shipping
    token: str = ""  # sent as `Authorization: Bearer <token>` when set
    batch_size: int = 500  # records per POST at most
    max_buffer: int = 10_000  # records held (queued and in flight); beyond it the oldest is dropped and counted
    min_delay_ms: int = 1000  # upload interval when a batch is not full; the first retry delay
    max_delay_ms: int = 60_000  # the longest back-off between retries
    timeout_ms: int = 5000  # one POST
    format: str = "opa"  # "opa": OPA decision-log events; "ocsf": OCSF 1.8.0 API Activity events (docs/fleet.md)


@dataclass(frozen=True, slots=True)
class MetricsConfig:
    listen: str = ""  # "127.0.0.1:9464" serves Prometheus metrics at /metrics; empty: off. Loopback only


@dataclass(frozen=True, slots=True)
class LogConfig:
    """The decision log (docs/decision-log.md): where, how it rotates, and what of the input it masks."""

    path: Path = field(default_factory=lambda: default_state_dir() / "decisions.log")
    max_bytes: int = 16 * 1024 * 1024  # rotate before a file would pass this size
    keep: int = 5  # rotated files kept besides the current one: decisions.log.1 … .keep
    # Every record but an allow is also written to decisions.kept.log, rotated on its own (docs/decision-log.md,
    # "Retention"): allows never push a deny, ask, rewrite or halt out.
    kept_max_bytes: int = 16 * 1024 * 1024
    kept_keep: int = 5
    stdout: bool = False  # also print each record on the daemon's stdout
    queue_size: int = 10_000  # records waiting for the writer; when full the oldest is dropped and counted
    mask: tuple[str, ...] = DEFAULT_MASK  # every string under these paths is cut to mask_length
    erase: tuple[str, ...] = DEFAULT_ERASE  # these values are replaced by a one-line summary
    mask_length: int = 256
    max_string_length: int = 4096  # every other string is cut to this
    builtin_secret_patterns: bool = True  # redact AWS keys, GitHub tokens, private keys, JWTs, password=…
    secret_patterns: tuple[str, ...] = ()  # more regular expressions whose matches are redacted
    ship: ShipConfig = field(default_factory=ShipConfig)


@dataclass(frozen=True, slots=True)
class PythonConfig:
    """Python policies' workers and sandbox (docs/python-policies.md)."""

    workers: int = 2  # pre-started workers per policy set
    timeout_ms: int = 1000  # per call; then the worker is killed and replaced, and the event's fail mode applies
    start_timeout_ms: int = 30_000  # a loaded machine (load 20 on 2 cores) took over 10 s
    cpu_seconds: int = 60  # RLIMIT_CPU of a worker; it retires after half of it
    memory_mb: int = 1024  # RLIMIT_AS
    open_files: int = 64  # RLIMIT_NOFILE
    file_size_mb: int = 16  # RLIMIT_FSIZE
    user: str = "nobody"  # the uid workers run as when the daemon runs as root
    env: tuple[str, ...] = ()  # names of the daemon's environment variables that workers get
    paths: tuple[str, ...] = ()  # more import paths for policies (the standard library is always there)
    scratch_dir: Path = field(default_factory=lambda: Path(tempfile.gettempdir()))  # holds each worker's scratch dir


@dataclass(frozen=True, slots=True)
class HttpConfig:
    """The HTTP hook endpoint for Claude Code's `type: "http"` hooks (docs/claude.md): off unless enabled,
    loopback only, every request must carry `Authorization: Bearer <the token in token_file>`."""

    enabled: bool = False
    host: str = "127.0.0.1"
    port: int = 8765
    token_file: Path = field(default_factory=lambda: default_state_dir() / "http-token")
    token_env: str = "HOOKD_HOOK_TOKEN"  # the variable Claude Code interpolates into the header
    max_connections: int = 256  # open connections in all; more are answered 503 and closed
    max_connections_per_peer: int = 32  # open connections of one uid (another user cannot take them all)


@dataclass(frozen=True, slots=True)
class OpaConfig:
    """The OPA server that decides when daemon.engine = "opa" (docs/opa.md)."""

    url: str = "http://127.0.0.1:8181"  # http://, https:// or unix:///path/to/opa.sock
    token: str = ""  # sent as `Authorization: Bearer ...`
    token_file: str = ""  # or read from this file (first line) at load
    ca_file: str = ""  # PEM bundle that verifies an https server (default: the system's)
    client_cert: str = ""  # PEM certificate for mutual TLS
    client_key: str = ""  # its key, when not in client_cert
    timeout_ms: int = 500  # one decision's cap; the request deadline can cut it shorter
    max_connections: int = 16  # keep-alive connections to OPA


@dataclass(frozen=True, slots=True)
class RolloutConfig:
    """Shadow evaluation of a candidate policy set, and the budget that monitor and shadow layers run in
    after each reply (docs/rollout.md). A shadow bundle is a `[bundles.NAME]` source with mode = "shadow"."""

    shadow_policies: str = ""  # a local candidate policy directory; "" = none
    shadow_replaces: str = ""  # the enforced layer it stands in for ("default" = the user's); "" = added to them
    cpu_budget_percent: int = 20  # of one core, for monitor and shadow evaluation; beyond it they are dropped
    burst_ms: int = 50  # CPU time the budget may run ahead by after an idle spell
    queue_size: int = 1000  # decisions waiting for monitor/shadow evaluation; beyond it the oldest skips it


@dataclass(frozen=True, slots=True)
class ReplayConfig:
    """The opt-in replay store: the input of each decision, for `hookd replay` (docs/rollout.md)."""

    enabled: bool = False
    path: Path = field(default_factory=lambda: default_state_dir() / "replay")  # owner-only directory
    max_bytes: int = 64 * 1024 * 1024  # all segments together; the oldest segment goes first
    segment_bytes: int = 4 * 1024 * 1024
    max_age_hours: int = 168  # segments older than this are deleted
    max_string_length: int = 65_536  # longer strings are cut (replay then sees the cut string)
    queue_size: int = 10_000


@dataclass(frozen=True, slots=True)
class OtelConfig:
    """OpenTelemetry export of decision records (OTLP logs) and decision metrics (OTLP metrics) over gRPC."""

    endpoint: str = ""  # http://HOST:4317 (plaintext) or https://HOST:4317; "" = off
    agent: str = ""  # the `hookd.agent` resource attribute (default: every agent hookd serves, "gemini,claude,…")
    max_queue_size: int = 10_000  # log records buffered for export; beyond it new ones are dropped and counted
    batch_size: int = 512
    schedule_delay_ms: int = 1000
    export_timeout_ms: int = 5000
    metrics_interval_ms: int = 10_000


@dataclass(frozen=True, slots=True)
class Config:
    daemon: DaemonConfig = field(default_factory=DaemonConfig)
    shim: ShimConfig = field(default_factory=ShimConfig)
    ask: AskConfig = field(default_factory=AskConfig)
    log: LogConfig = field(default_factory=LogConfig)
    python: PythonConfig = field(default_factory=PythonConfig)
    http: HttpConfig = field(default_factory=HttpConfig)
    metrics: MetricsConfig = field(default_factory=MetricsConfig)
    opa: OpaConfig = field(default_factory=OpaConfig)
    bundles: BundlesConfig = field(default_factory=BundlesConfig)
    layers: LayersConfig = field(default_factory=LayersConfig)
    rollout: RolloutConfig = field(default_factory=RolloutConfig)
    replay: ReplayConfig = field(default_factory=ReplayConfig)
    otel: OtelConfig = field(default_factory=OtelConfig)
    limits: LimitsConfig = field(default_factory=LimitsConfig)
    status: StatusConfig = field(default_factory=StatusConfig)
    discovery: BundleSource | None = None  # the signed discovery bundle's source (docs/fleet.md)
    source: Path | None = None
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False)  # as parsed (discovery merges into it)

    @property
    def hook_socket(self) -> Path:
        return self.daemon.runtime_dir / "hook.sock"

    @property
    def lane_socket(self) -> Path:
        """The lane process's socket: only the daemon and its workers forward requests there."""
        return self.daemon.runtime_dir / "lane.sock"

    @property
    def processes(self) -> int:
        """Processes that decide hook requests: the daemon, its workers, the lane and the stream lane."""
        return self.daemon.workers + 2 * self.daemon.lane

    @property
    def control_socket(self) -> Path:
        return self.daemon.runtime_dir / "control.sock"

    @property
    def shim_python(self) -> str:
        return self.shim.python or os.path.realpath(sys.executable)


_CHOICES: Mapping[str, tuple[str, ...]] = {
    "daemon.log_level": ("debug", "info", "warning", "error"),
    "ask.headless_fallback": ("deny", "allow"),
    "daemon.engine": ("embedded", "opa"),
    "layers.mode": ("enforce", "monitor"),
    "layers.project_mode": ("enforce", "monitor"),
    "status.method": ("POST", "PUT"),
    "log.ship.format": ("opa", "ocsf"),
}


def load_config(explicit: str | None = None) -> Config:
    path, required = _locate(explicit)
    if path is None or (not required and not path.exists()):
        return Config()
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"config {path}: file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"config {path}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config {path}: not valid TOML: {exc}") from None
    return parse_config(raw, source=path)


def _locate(explicit: str | None) -> tuple[Path | None, bool]:
    if explicit:
        return Path(explicit), True
    env = os.environ.get(CONFIG_ENV)
    if env:
        return Path(env), True
    return default_config_path(), False


def parse_config(raw: Mapping[str, Any], *, source: Path | None = None) -> Config:
    where = f"config {source}" if source else "config"
    unknown = set(raw) - {
        "daemon",
        "shim",
        "ask",
        "log",
        "fail_mode",
        "python",
        "http",
        "metrics",
        "opa",
        "bundles",
        "keys",
        "layers",
        "rollout",
        "replay",
        "otel",
        "limits",
        "status",
        "discovery",
    }
    if unknown:
        raise ConfigError(f"{where}: unknown section or key '{sorted(unknown)[0]}'")
    daemon = _section(DaemonConfig(), raw.get("daemon", {}), "daemon", where)
    if daemon.workers + 2 * daemon.lane > MAX_WORKERS:
        most = f"{MAX_WORKERS - 2} beside the lanes" if daemon.lane else str(MAX_WORKERS)
        raise ConfigError(f"{where}: 'daemon.workers' must be at most {most}, got {daemon.workers}")
    if daemon.workers > 1 and not daemon.lane:  # the chunks of a streamed response meet in the lane (hookd.lane)
        raise ConfigError(f"{where}: 'daemon.workers = {daemon.workers}' needs 'daemon.lane = true'")
    shim = _section(ShimConfig(), raw.get("shim", {}), "shim", where)
    ask = _section(AskConfig(), raw.get("ask", {}), "ask", where)
    log = _section(LogConfig(), raw.get("log", {}), "log", where)
    _check_log(log, where)
    python = _section(PythonConfig(), raw.get("python", {}), "python", where)
    http = _section(HttpConfig(), raw.get("http", {}), "http", where)
    _check_http(http, where)
    _check_ship(log.ship, where)
    metrics = _section(MetricsConfig(), raw.get("metrics", {}), "metrics", where)
    if metrics.listen:
        loopback_address(metrics.listen, f"{where}: 'metrics.listen'")
    opa = _section(OpaConfig(), raw.get("opa", {}), "opa", where)
    check_opa(opa, where)
    bundles = parse_bundles(raw.get("bundles", {}), raw.get("keys", {}), where)
    layers = _section(LayersConfig(), raw.get("layers", {}), "layers", where)
    layers = _check_layers(layers, where)
    shim = replace(shim, fail_modes=_fail_modes(raw.get("fail_mode", {}), where))
    rollout = _section(RolloutConfig(), raw.get("rollout", {}), "rollout", where)
    rollout = _check_rollout(rollout, bundles, where)
    replay = _section(ReplayConfig(), raw.get("replay", {}), "replay", where)
    otel = _section(OtelConfig(), raw.get("otel", {}), "otel", where)
    limits = _section(LimitsConfig(), raw.get("limits", {}), "limits", where)
    _check_otel(otel, where)
    status = check_status(_section(StatusConfig(), raw.get("status", {}), "status", where), where)
    if shim.deadline_ms >= shim.hook_timeout_ms:
        raise ConfigError(
            f"{where}: shim.deadline_ms ({shim.deadline_ms}) must be below shim.hook_timeout_ms "
            f"({shim.hook_timeout_ms}), or the agent kills the shim before it can apply its fail mode"
        )
    return Config(
        daemon=daemon,
        shim=shim,
        ask=ask,
        log=log,
        python=python,
        http=http,
        metrics=metrics,
        opa=opa,
        bundles=bundles,
        layers=layers,
        rollout=rollout,
        replay=replay,
        otel=otel,
        limits=limits,
        status=status,
        discovery=parse_discovery(raw.get("discovery"), bundles.keys, where),
        source=source,
        raw=raw,
    )


def _check_layers(layers: LayersConfig, where: str) -> LayersConfig:
    """Project roots made absolute; a monitored project must be one of the opted-in projects."""

    def absolute(roots: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(str(Path(os.path.expanduser(p)).absolute()) for p in roots)

    layers = replace(layers, projects=absolute(layers.projects), monitor_projects=absolute(layers.monitor_projects))
    stray = [root for root in layers.monitor_projects if root not in layers.projects]
    if stray:
        raise ConfigError(f"{where}: 'layers.monitor_projects' names {stray[0]}, which is not in 'layers.projects'")
    return layers


def _check_rollout(rollout: RolloutConfig, bundles: BundlesConfig, where: str) -> RolloutConfig:
    if rollout.cpu_budget_percent > 100:
        raise ConfigError(
            f"{where}: 'rollout.cpu_budget_percent' must be at most 100, got {rollout.cpu_budget_percent}"
        )
    if rollout.shadow_replaces and not rollout.shadow_policies:
        raise ConfigError(f"{where}: 'rollout.shadow_replaces' needs 'rollout.shadow_policies'")
    shadows = [s.name for s in bundles.sources if s.mode == "shadow"] + (["shadow"] if rollout.shadow_policies else [])
    if len(shadows) > 1:
        raise ConfigError(f"{where}: one shadow at a time, got {', '.join(shadows)}")
    if not rollout.shadow_policies:
        return rollout
    path = Path(os.path.expanduser(rollout.shadow_policies)).absolute()
    return replace(rollout, shadow_policies=str(path))


def _check_otel(otel: OtelConfig, where: str) -> None:
    if not otel.endpoint:
        return
    parts = urlsplit(otel.endpoint)
    if parts.scheme not in ("http", "https") or not parts.hostname or not _valid_port(parts):
        raise ConfigError(
            f"{where}: 'otel.endpoint' must be http://HOST:PORT or https://HOST:PORT, got {otel.endpoint!r}"
        )


def _check_http(http: HttpConfig, where: str) -> None:
    if not is_loopback(http.host):
        raise ConfigError(
            f"{where}: 'http.host' must be a loopback address (127.0.0.1, ::1, localhost), got {http.host!r}: "
            "the hook endpoint decides for local agents only"
        )
    if http.port > 65535:
        raise ConfigError(f"{where}: 'http.port' must be at most 65535, got {http.port}")
    if not 1 <= http.max_connections_per_peer <= http.max_connections:
        raise ConfigError(
            f"{where}: 'http.max_connections_per_peer' must be from 1 to 'http.max_connections' "
            f"({http.max_connections}), got {http.max_connections_per_peer}"
        )
    if not re.fullmatch(r"[A-Z_][A-Z0-9_]*", http.token_env):
        raise ConfigError(f"{where}: 'http.token_env' must be an environment variable name, got {http.token_env!r}")


def is_loopback(host: str) -> bool:
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


_MASK_PATH = re.compile(r"[^.\s]+(\.[^.\s]+)*")


def _check_log(log: LogConfig, where: str) -> None:
    for key in ("mask", "erase"):
        for i, path in enumerate(getattr(log, key)):
            if not _MASK_PATH.fullmatch(path):
                raise ConfigError(
                    f"{where}: 'log.{key}' entry {i + 1} ({path!r}) must be a dotted path into the input, "
                    "like raw.tool_input.content (`*` matches any one key)"
                )
    for i, pattern in enumerate(log.secret_patterns):
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ConfigError(
                f"{where}: 'log.secret_patterns' entry {i + 1} is not a valid regular expression: {exc}"
            ) from None


def _check_ship(ship: ShipConfig, where: str) -> None:
    if not ship.url:
        return
    parts = urlsplit(ship.url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"{where}: 'log.ship.url' must be an http:// or https:// URL, got {ship.url!r}")
    if ship.min_delay_ms > ship.max_delay_ms:
        above = f"'log.ship.min_delay_ms' ({ship.min_delay_ms}) must not be above 'log.ship.max_delay_ms'"
        raise ConfigError(f"{where}: {above} ({ship.max_delay_ms})")


def loopback_address(listen: str, what: str) -> tuple[str, int]:
    """Parse HOST:PORT ([::1]:PORT for IPv6); refuse anything but a loopback address. Raises ConfigError."""
    host, sep, port = listen.rpartition(":")
    host = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not sep or not port.isdigit() or int(port) > 65535:
        raise ConfigError(f"{what} must be HOST:PORT, like 127.0.0.1:9464, got {listen!r}")
    if not is_loopback(host):
        raise ConfigError(
            f"{what} must be a loopback address (127.0.0.1, ::1 or localhost): the metrics endpoint has no "
            f"authentication, got {listen!r}"
        )
    return ("127.0.0.1" if host == "localhost" else host), int(port)


def check_opa(opa: OpaConfig, where: str) -> None:
    url = urlsplit(opa.url)
    if url.scheme == "unix":
        if not url.path.startswith("/") or url.netloc:
            raise ConfigError(f"{where}: 'opa.url' must be unix:///absolute/path for a Unix socket, got {opa.url!r}")
    elif url.scheme not in ("http", "https") or not url.hostname or url.path not in ("", "/") or not _valid_port(url):
        raise ConfigError(f"{where}: 'opa.url' must be http(s)://host[:port] or unix:///path, got {opa.url!r}")
    if opa.token and opa.token_file:
        raise ConfigError(f"{where}: set one of 'opa.token' and 'opa.token_file', not both")
    if (opa.ca_file or opa.client_cert) and url.scheme != "https":
        raise ConfigError(f"{where}: 'opa.ca_file' and 'opa.client_cert' need an https:// 'opa.url'")
    if opa.client_key and not opa.client_cert:
        raise ConfigError(f"{where}: 'opa.client_key' needs 'opa.client_cert'")


def _valid_port(url: SplitResult) -> bool:
    try:
        return url.port is None or url.port > 0
    except ValueError:
        return False


def _section(default: T, raw: object, name: str, where: str) -> T:
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{where}: '{name}' must be a table")
    known = {f.name: f for f in fields(default) if f.name != "fail_modes"}  # type: ignore[arg-type]
    values: dict[str, Any] = {}
    for key, value in raw.items():
        dotted = f"{name}.{key}"
        if key not in known:
            raise ConfigError(f"{where}: unknown key '{dotted}'")
        current = getattr(default, key)
        values[key] = _coerce(dotted, value, current, where)
    return replace(default, **values)  # type: ignore[type-var]


def _coerce(dotted: str, value: object, current: object, where: str) -> object:
    if is_dataclass(current):  # a table inside a section, like [log.ship]
        return _section(current, value, dotted, where)
    if isinstance(current, tuple):
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise ConfigError(f"{where}: '{dotted}' must be a list of non-empty strings, got {value!r}")
        return tuple(value)
    if isinstance(current, bool):
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: '{dotted}' must be true or false, got {value!r}")
        return value
    if isinstance(current, int):
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ConfigError(f"{where}: '{dotted}' must be a positive integer, got {value!r}")
        return value
    if isinstance(current, Path):
        if not isinstance(value, str) or not value:
            raise ConfigError(f"{where}: '{dotted}' must be a non-empty path string, got {value!r}")
        return Path(os.path.expanduser(value)).absolute()
    if not isinstance(value, str):
        raise ConfigError(f"{where}: '{dotted}' must be a string, got {value!r}")
    choices = _CHOICES.get(dotted)
    if choices and value not in choices:
        raise ConfigError(f"{where}: '{dotted}' must be one of {', '.join(choices)}, got {value!r}")
    return value


def _fail_modes(raw: object, where: str) -> dict[Event, FailMode]:
    if not isinstance(raw, Mapping):
        raise ConfigError(f'{where}: \'fail_mode\' must be a table of event = "closed" | "open"')
    modes = dict(DEFAULT_FAIL_MODES)
    for key, value in raw.items():
        try:
            event = Event(key)
        except ValueError:
            raise ConfigError(f"{where}: unknown key 'fail_mode.{key}' (not a hook event)") from None
        if value not in ("closed", "open"):
            raise ConfigError(f'{where}: \'fail_mode.{key}\' must be "closed" or "open", got {value!r}')
        if value == "closed" and event not in CAN_FAIL_CLOSED:
            raise ConfigError(
                f"{where}: 'fail_mode.{key}' cannot be \"closed\": a deny on {key} cannot block "
                "(AfterAgent retries on a deny, BeforeToolSelection has no deny, lifecycle events cannot block)"
            )
        modes[event] = FailMode(value)
    return modes
