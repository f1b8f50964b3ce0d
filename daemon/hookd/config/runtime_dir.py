"""The runtime dir that holds the hook and control sockets: where it is, and that it is ours alone.

Whoever can create or replace entries in it can answer the shims, so it must be a real directory
(never a symlink), owned by the daemon's uid, mode 0700. The shims check the same from their side
(docs/protocol.md, "Who the shim talks to").
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from hookd.errors import DaemonError

# The variable that names the config file hookd reads, besides --config (hookd.config; the shims and every hookd
# command read it too): where hookd's files are, as the runtime dir below.
CONFIG_ENV = "HOOKD_CONFIG"


def runtime_dir_choices(login_root: Path = Path("/run/user")) -> tuple[Path, ...]:
    """Every directory default_runtime_dir() can choose for this user, whatever the environment it runs in
    (a service manager sets XDG_RUNTIME_DIR, a bare shell may not): all of them are hookd's."""
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    uid = os.getuid()
    first = (Path(xdg) / "hookd",) if xdg and xdg.startswith("/") else ()
    home = os.environ.get("HOME", "")
    fallback = (Path(home) / FALLBACK,) if home.startswith("/") else ()
    return (*first, login_root / str(uid) / "hookd", Path(f"/tmp/hookd-{uid}"), *fallback)


def default_runtime_dir(login_root: Path = Path("/run/user")) -> Path:
    """$XDG_RUNTIME_DIR/hookd; else /run/user/<uid>/hookd when that is this user's private dir; else
    /tmp/hookd-<uid>, the one choice another user could create first: when another user (or a symlink)
    holds it, FALLBACK under the home directory, which no other user can write (both shims make the same
    choice, for the default socket and for /tmp/hookd-<uid>/hook.sock named by --socket)."""
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if xdg and xdg.startswith("/"):
        return Path(xdg) / "hookd"
    uid = os.getuid()
    login = login_root / str(uid)
    if is_private_dir(login, uid):
        return login / "hookd"
    shared = Path(f"/tmp/hookd-{uid}")
    home = os.environ.get("HOME", "")
    return Path(home) / FALLBACK if squatted(shared, uid) and home.startswith("/") else shared


FALLBACK = ".cache/hookd/run"  # below $HOME


def squatted(path: Path, uid: int) -> bool:
    """True when something not ours holds `path`: a symlink, a file, or a directory of another uid."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        return False
    except OSError:
        return True
    return not stat.S_ISDIR(info.st_mode) or info.st_uid != uid


def is_private_dir(path: Path, uid: int) -> bool:
    try:
        info = path.lstat()
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == uid and not info.st_mode & 0o077


def in_shared_dir(path: Path) -> bool:
    """True when others may create entries beside `path` (its parent is group- or world-writable, as
    /tmp is): a name there can be taken by another user first."""
    try:
        return bool(path.parent.stat().st_mode & 0o022)
    except OSError:
        return False


def prepare_runtime_dir(path: Path) -> None:
    """Create the runtime dir 0700, or check that an existing one is a real directory of ours; make it
    0700. A symlink or a directory of another uid is refused, never followed or chmod-ed."""
    path = Path(os.path.abspath(path))
    path.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        path.mkdir(mode=0o700)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        if path.is_symlink():
            raise DaemonError(f"runtime dir {path} is a symlink: remove it, hookd makes its own directory") from None
        raise DaemonError(f"runtime dir {path} cannot be used: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        uid = os.getuid()
        if info.st_uid != uid:
            raise DaemonError(
                f"runtime dir {path} belongs to uid {info.st_uid}, not to this user ({uid}): "
                "another user made it first; remove it, or set [daemon] runtime_dir"
            )
        if stat.S_IMODE(info.st_mode) != 0o700:
            os.fchmod(fd, 0o700)
    finally:
        os.close(fd)
