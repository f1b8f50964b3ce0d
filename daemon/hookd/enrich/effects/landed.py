"""Where a copy of a directory's contents lands (`rsync -a SRC/ DEST/`, `cp -a SRC/. DEST`): each file below SRC is
written at the same path below DEST (rsync(1): "a trailing slash on the source … copy the contents of this
directory"; cp(1) of `SRC/.`). The write of DEST as a whole does not name them, and a home or project root written
whole is left to what lands there (policies/self_protection), so the files are listed from the source as it is now."""

from __future__ import annotations

import os

LISTED = 512  # files listed from one source; past them what lands is unknown


def names_contents(source: str) -> bool:
    """Whether a copy's source word names a directory's contents rather than the directory (`dir/`, `dir/.`)."""
    return source.rpartition("/")[2] in ("", ".")


def landed_files(directory: str, limit: int = LISTED) -> tuple[list[str], bool]:
    """The files and links below `directory` (relative to it, links not followed), and whether they are all of
    them: at most `limit` are listed."""
    found: list[str] = []
    for root, dirs, files in os.walk(directory):
        for name in [*files, *(d for d in dirs if os.path.islink(os.path.join(root, d)))]:
            if len(found) == limit:
                return found, False
            found.append(os.path.relpath(os.path.join(root, name), directory))
    return found, True
