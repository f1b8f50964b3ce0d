"""Can the control socket be reached? Standard library only, so that a CLI command can say "the daemon is
not running" before it pays for importing grpc."""

from __future__ import annotations

import errno
import socket
from pathlib import Path

from hookd.errors import ControlError


def not_running(path: Path, why: str) -> ControlError:
    return ControlError(f"the daemon is not running ({why} {path}): start it with `hookd serve`")


def check_reachable(path: Path) -> None:
    """One plain connect first, so that 'not running' and 'permission denied' read as such."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(2.0)
    try:
        probe.connect(str(path))
    except FileNotFoundError:
        raise not_running(path, "no control socket at") from None
    except ConnectionRefusedError:
        raise not_running(path, "nothing listens on the stale socket") from None
    except PermissionError:
        raise ControlError(
            f"cannot reach the daemon at {path}: permission denied (it belongs to another user)"
        ) from None
    except OSError as exc:
        if exc.errno == errno.ENOTSOCK:
            raise not_running(path, "not a socket:") from exc
        raise ControlError(f"cannot reach the daemon at {path}: {exc.strerror or exc}") from exc
    finally:
        probe.close()
