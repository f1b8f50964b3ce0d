"""The text of a project file the line sources (`. FILE`, `source FILE`, `BASH_ENV=FILE bash -c …`): the shell
runs it in the line's own shell (or before the command), so the variables, functions and aliases it sets are
what the later commands of the line see, and what it runs runs then. A file an earlier call wrote into the
project is read and walked as the line's own text; past MAX_SOURCED bytes, not UTF-8, or outside the project
(the home's start-up files, a tool's own `nvm.sh`) it stays a file run as known, as before."""

from __future__ import annotations

import os
import stat

MAX_SOURCED = 16 * 1024


def sourced_text(path: str, project: str) -> str | None:
    """The text of the regular file `path` below `project` (its real path), or None."""
    real, root = os.path.realpath(path), os.path.realpath(project)
    if not path or not real.startswith(root.rstrip("/") + "/"):
        return None
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_SOURCED:
            return None
        data = os.read(fd, MAX_SOURCED + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return None if "\x00" in text or len(data) > MAX_SOURCED else text
