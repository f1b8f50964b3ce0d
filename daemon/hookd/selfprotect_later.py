"""What a startup file or the service manager's environment hands hookd's later shims and daemon
(docs/self-protection.md): the agents every later session starts unguarded, hookd's config, state and socket moved,
and the network and export settings the daemon's clients read from their environment."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from typing import Any

from hookd.config.runtime_dir import CONFIG_ENV
from hookd.dialects.launch import unguarded_start
from hookd.dialects.registry import AGENTS
from hookd.enrich.paths import event_home
from hookd.types import JSON, NormalisedEvent

# The XDG base directories' defaults (https://specifications.freedesktop.org/basedir-spec/latest/): a startup file
# setting one to its default moves nothing.
_XDG_DEFAULTS = {"XDG_CONFIG_HOME": ".config", "XDG_DATA_HOME": ".local/share", "XDG_STATE_HOME": ".local/state"}
# where a later hookd reads its config and keeps its state and decision log (README "Configuration", decision-log.md),
# and where every later shim looks for the daemon's socket: $XDG_RUNTIME_DIR/hookd/hook.sock (docs/protocol.md), a
# directory of the user's own that the shim trusts, so a listener the agent starts there answers every hook
_HOOKD_PLACES = {
    CONFIG_ENV: "points it at another config",
    "XDG_STATE_HOME": "moves its state and decision log",
    "XDG_RUNTIME_DIR": "moves the socket every later shim connects to, where any listener of this user is trusted",
}
# Variables the daemon's network clients read from their environment, whatever its config says: where its bundle
# fetches, decision-log shipping and OTLP export go, which CAs it trusts, whether the export runs at all. Set in a
# file the service manager or a login hands every later daemon, they change whom the guard trusts and reports to.
# urllib.request.getproxies: `<scheme>_proxy` in any case, https://docs.python.org/3/library/urllib.request.html
# OpenSSL's default verify paths, which ssl.create_default_context loads: SSL_CERT_FILE, SSL_CERT_DIR
#   (https://docs.openssl.org/3.0/man3/SSL_CTX_load_verify_locations/)
# gRPC core (the OTLP exporter's transport): grpc_proxy, GRPC_DEFAULT_SSL_ROOTS_FILE_PATH
#   (https://github.com/grpc/grpc/blob/master/doc/environment_variables.md)
# the OpenTelemetry SDK and OTLP exporter: OTEL_SDK_DISABLED, OTEL_EXPORTER_OTLP_*
#   (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/)
_DAEMON_NETWORK = re.compile(
    r"(?i:[a-z]+_proxy)|SSL_CERT_(FILE|DIR)|GRPC_DEFAULT_SSL_ROOTS_FILE_PATH|OTEL_SDK_DISABLED|OTEL_EXPORTER_OTLP_\w+"
)
# A no_proxy list only sends fewer requests through a proxy.
_NOT_REDIRECTING = frozenset({"no_proxy"})
# Files whose settings the user's service manager or every login hands the daemon it starts: environment.d(5),
# pam_env.conf(5), systemd-user.conf(5) (DefaultEnvironment=); and the manager's own environment (`manager` effects)
_DAEMON_ENVIRONMENT = (
    "/environment.d/",
    "/.pam_environment",
    "/etc/environment",
    "/pam_env.conf",
    "/systemd/user.conf",
)
# the uid as a shell line spells it
_UID = re.compile(r"\$\(\s*id\s+-u\s*\)|`\s*id\s+-u\s*`|\$\{UID\}|\$UID\b")


def later_starts(event: NormalisedEvent) -> list[JSON]:
    """The agents every later session starts without hookd's hooks because a startup file the call writes sets
    a variable (the effects' `sets`: `export CLAUDE_CODE_SIMPLE=1` in ~/.zshenv, `GEMINI_CLI_HOME=…` in
    environment.d), judged as a start with that variable set is (hookd.dialects.launch); hookd's own config,
    state or socket moved the same way ($HOOKD_CONFIG, $XDG_STATE_HOME, $XDG_RUNTIME_DIR), which every later shim
    and daemon would use; and the daemon's network clients redirected where only a daemon gets the file."""
    starts: list[JSON] = []
    for effect in _dicts(event.facts.get("effects")):
        sets = effect.get("sets")
        if isinstance(sets, dict) and sets:
            where = str(effect.get("path") or "a startup file")
            daemon = bool(effect.get("manager")) or any(part in where for part in _DAEMON_ENVIRONMENT)
            starts += starts_with_set(event, where, sets, daemon=daemon)
    return starts


def starts_with_set(event: NormalisedEvent, where: str, sets: Mapping[str, object], *, daemon: bool) -> list[JSON]:
    """The later starts (of agents, of hookd) that variables `sets`, left in `where` for every later session (of
    the daemon too, with `daemon`), make unguarded or moved."""
    home = event_home(event)
    current = {**_defaults(home), **event.env, "HOME": home}
    assigned = {str(k): _home_expanded(str(v), home) for k, v in sets.items()}
    starts: list[JSON] = []
    for spec in AGENTS.values():
        why = unguarded_start(spec, [], assigned, current, event.cwd)
        if why:
            starts.append({"program": where, "agent": spec.title, "why": why, "later": True})
    whys = list(_hookd_moved(assigned, current)) + (_network_redirected(assigned) if daemon else [])
    return starts + [{"program": where, "agent": "hookd", "why": why, "later": True} for why in whys]


def socket_moved(assigned: Mapping[str, str], home: str, env: Mapping[str, str]) -> str:
    """Why an agent started with `assigned` talks to another daemon: its hooks' shims take the socket from
    $XDG_RUNTIME_DIR (docs/protocol.md), so a value other than the caller's sends every hook of that session to
    whatever listens there. Empty when it does not."""
    current = {**_defaults(home), **env}
    name = "XDG_RUNTIME_DIR"
    if name not in assigned:
        return ""
    value = _uid_filled(_home_expanded(assigned[name], home)).rstrip("/")
    if value == str(current.get(name, "")).rstrip("/"):
        return ""
    return f"{name} set for it {_HOOKD_PLACES[name]}: its hooks would ask whatever listens there"


def _defaults(home: str) -> dict[str, str]:
    return {**{k: f"{home}/{v}" for k, v in _XDG_DEFAULTS.items()}, "XDG_RUNTIME_DIR": f"/run/user/{os.getuid()}"}


def _hookd_moved(assigned: Mapping[str, str], current: Mapping[str, str]) -> Iterator[str]:
    for name, why in _HOOKD_PLACES.items():
        if name in assigned and _uid_filled(assigned[name]).rstrip("/") != str(current.get(name, "")).rstrip("/"):
            yield f"{name} set for it {why}"


def _network_redirected(assigned: Mapping[str, str]) -> list[str]:
    names = [n for n in assigned if _DAEMON_NETWORK.fullmatch(n) and n.lower() not in _NOT_REDIRECTING]
    if not names:
        return []
    said = ", ".join(sorted(names))
    return [f"{said} set for the daemon changes where its bundle fetches and decision records go, or whom it trusts"]


def _uid_filled(value: str) -> str:
    return _UID.sub(str(os.getuid()), value)


def _home_expanded(value: str, home: str) -> str:
    """A setting's value with the home put in where the shell would (`$HOME/x`, `${HOME}/x`, `~/x`)."""
    value = value.replace("${HOME}", home).replace("$HOME", home)
    return home + value[1:] if value == "~" or value.startswith("~/") else value


def _dicts(value: object) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []
