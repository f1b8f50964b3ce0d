"""Who is calling the control plane: kernel-verified peer credentials for gRPC calls, and who may call what.

gRPC Python gives a server no way to read SO_PEERCRED: for a Unix socket `context.peer()` is just
`unix:`, and `local_server_credentials(UDS)` checks nothing and reports no identity (grpc/grpc#15511,
#28755). So the daemon owns the listening socket itself. `control.sock` is accepted by hookd's own
asyncio server, which reads SO_PEERCRED of the connection, then opens a connection to the gRPC server
(on a private socket beside it) from a client socket bound to a fresh name in the 0700 runtime dir
(unlinked once connected), and splices the bytes. gRPC reports that bound name as the call's peer
(`unix:<runtime dir>/peer-…`), which this table maps back to the caller's uid, gid and pid. A
connection that did not come through the front door has no entry and is refused. No abstract names:
those are visible in /proc/net/unix and any user could bind the next one first.
"""

from __future__ import annotations

import contextvars
from pathlib import Path

from hookd.types import Caller

CONTROL_SERVICE = "hookd.v1.Control"
HOOK_SERVICE = "hookd.v1.Hook"
# Calls that change the daemon or show other users' decisions: the daemon's own uid or root only.
OWNER_ONLY = frozenset({f"/{CONTROL_SERVICE}/Reload", f"/{CONTROL_SERVICE}/StreamDecisions"})
_PREFIX = "unix:"

current_caller: contextvars.ContextVar[Caller] = contextvars.ContextVar("hookd_control_caller")


def authorize(method: str, caller: Caller, owner_uid: int) -> str | None:
    """None when `caller` may call `method` (a full gRPC method name); otherwise why not, in one line.

    Anyone who can reach the socket may read the status, list policies, dry-run a payload, check health,
    and ask for a hook decision (which is logged with their uid). Reload and StreamDecisions are for the
    daemon's own uid and root. With the default layout only those two can reach the socket anyway (it is
    0600 in a 0700 directory); the check keeps it so when an admin opens the socket up.
    """
    if caller.uid in (owner_uid, 0) or method not in OWNER_ONLY:
        return None
    name = method.rsplit("/", 1)[-1]
    return f"uid {caller.uid} may not call {name}: only the daemon's own uid ({owner_uid}) or root may"


class PeerTable:
    """Bound backend names → the credentials of the front connection they carry."""

    def __init__(self, directory: Path) -> None:
        self._directory = directory
        self._count = 0
        self._peers: dict[str, Caller] = {}

    def add(self, caller: Caller) -> str:
        """A fresh socket path in the runtime dir, registered for `caller`."""
        self._count += 1
        name = str(self._directory / f"peer-{self._count}")
        self._peers[_PREFIX + name] = caller
        return name

    def remove(self, name: str) -> None:
        self._peers.pop(_PREFIX + name, None)

    def lookup(self, peer: str) -> Caller | None:
        """The caller behind a gRPC `context.peer()` string, or None for a connection that did not come
        through control.sock."""
        return self._peers.get(peer)

    def __len__(self) -> int:
        return len(self._peers)
