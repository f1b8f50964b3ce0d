"""Socket activation: the listening sockets a service manager bound and passed in (sd_listen_fds(3)).

systemd (and `systemd-socket-activate`) passes them as descriptors 3, 4, … with ``LISTEN_PID`` (this
process), ``LISTEN_FDS`` (how many) and ``LISTEN_FDNAMES`` (their names, colon-separated: hookd's
socket units name them ``hook`` and ``control``). They are taken once, at start-up, and the variables
removed, so that no child mistakes them for its own. A passed socket must be a listening Unix stream
socket bound to the path the config names, else the daemon refuses to start: the units and the config
disagree, and serving an unexpected socket would hide it.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping
from pathlib import Path

from hookd.errors import DaemonError

LISTEN_FDS_START = 3


def take_inherited(environ: dict[str, str] | None = None) -> dict[str, socket.socket]:
    """The passed sockets by name (unnamed ones by their bound path); empty when none were passed."""
    env = os.environ if environ is None else environ
    pid, count = env.pop("LISTEN_PID", ""), env.pop("LISTEN_FDS", "")
    names = env.pop("LISTEN_FDNAMES", "").split(":")
    if not pid.isdigit() or int(pid) != os.getpid() or not count.isdigit():
        return {}
    sockets: dict[str, socket.socket] = {}
    for index in range(int(count)):
        fd = LISTEN_FDS_START + index
        try:
            sock = socket.socket(fileno=fd)
        except OSError as exc:
            raise DaemonError(f"descriptor {fd} from the service manager is not a socket: {exc.strerror}") from None
        sock.set_inheritable(False)
        if sock.family != socket.AF_UNIX or sock.type != socket.SOCK_STREAM:
            raise DaemonError(f"descriptor {fd} passed by the service manager is not a Unix stream socket")
        if not sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN):
            raise DaemonError(f"descriptor {fd} passed by the service manager is not listening")
        name = names[index] if index < len(names) and names[index] not in ("", "unknown") else _bound_path(sock)
        sockets[name] = sock
    return sockets


def listener(sockets: Mapping[str, socket.socket], name: str, path: Path) -> socket.socket | None:
    """The passed socket for `name` (or bound to `path`), checked against the configured path."""
    sock = sockets.get(name) or sockets.get(str(path))
    if sock is None:
        return None
    bound = _bound_path(sock)
    if bound != str(path):
        raise DaemonError(
            f"the {name} socket passed by the service manager is bound to {bound or 'no path'}, but the config "
            f"says {path}: run `hookd service install` again"
        )
    return sock


def _bound_path(sock: socket.socket) -> str:
    address = sock.getsockname()
    return address if isinstance(address, str) else ""
