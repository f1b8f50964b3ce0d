"""What a recursive walk that follows symbolic links reaches (`find -L`, findutils "Symbolic Links": with -L find
examines the file each link points to and descends into linked directories): below a root, each link whose target
lies outside the root is a root of its own. And the start points of `find`, after the options that come before
them (`-H`, `-L`, `-P`, `-D DEBUGOPTS`, `-OLEVEL`: find(1) SYNOPSIS), which otherwise hide them."""

from __future__ import annotations

import os

MAX_WALKED = 4096  # entries looked at below one root; past them what else it reaches is not known


def find_roots(argv: list[str]) -> tuple[list[str], bool]:
    """`find`'s start points, and whether it follows links while it walks (`-L`, or the expression's `-follow`)."""
    k, follows = 1, "-follow" in argv
    while k < len(argv) and (argv[k] in ("-H", "-L", "-P", "-D") or argv[k].startswith("-O")):
        follows = follows or argv[k] == "-L"
        k += 2 if argv[k] == "-D" else 1
    roots = []
    for word in argv[k:]:
        if word.startswith(("-", "(", "!", ")")):
            break
        roots.append(word)
    return roots, follows


def linked_roots(root: str) -> list[str]:
    """The targets outside `root` of the symbolic links below it (found on disk now, in time linear in the entries
    looked at); "" for what cannot be known: a tree past MAX_WALKED entries."""
    if not root or not os.path.isdir(root):
        return []
    base = os.path.realpath(root)
    found: list[str] = []
    seen = 0
    for directory, subdirs, files in os.walk(root):
        for entry in (*subdirs, *files):
            seen += 1
            if seen > MAX_WALKED:
                return [*found, ""]
            path = os.path.join(directory, entry)
            if os.path.islink(path):
                target = os.path.realpath(path)
                if target != base and not target.startswith(base.rstrip("/") + "/"):
                    found.append(target)
    return found
