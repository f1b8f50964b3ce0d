"""The branch a `git push` with no refspec updates: the current branch (git-push(1), push.default `simple`: the
current branch to its upstream of the same name), as the line left it (`git switch NAME`, `git checkout -b NAME`,
https://git-scm.com/docs/git-switch) or, before any, as the repository's HEAD names it on disk
(https://git-scm.com/docs/gitrepository-layout: `ref: refs/heads/NAME`). "" when it cannot be known: a detached or
unreadable HEAD, a switch to a name built at run time or to the previous branch (`-`), an upstream of another name
(`branch.NAME.merge`), the line's own push or branch configuration; "" is judged as a protected branch."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from hookd.enrich.effects.ledger import Ledger, Place
from hookd.enrich.facts import is_unresolved
from hookd.enrich.holdings import head

_CREATE = {"switch": ("-c", "-C", "--create", "--force-create"), "checkout": ("-b", "-B", "--orphan")}
_DETACH = ("-d", "--detach", "--orphan", "-")


def note_switch(argv: list[str], place: Place, model: Ledger) -> None:
    """`git switch NAME`, `git checkout -b NAME` on the line: the branch later pushes of the line update."""
    sub = next((w for w in argv[1:] if not w.startswith("-")), "")
    if sub not in _CREATE:
        return
    if argv[1] != sub:  # global options before it (`-C dir`): another repository's branch
        model.branch = ""
        return
    rest = argv[2:]
    for k, word in enumerate(rest[:-1]):
        if word in _CREATE[sub]:
            model.branch = "" if is_unresolved(rest[k + 1]) else rest[k + 1]
            return
    operands = [w for w in rest if not w.startswith("-")]
    if sub == "checkout" and ("--" in rest or len(operands) != 1):
        return  # paths restored (`git checkout main -- a.txt`), or nothing named: the branch stays
    name = operands[0] if operands else ""
    path = str(place(name).get("path") or "") if name else ""
    unknown = not name or any(w in _DETACH for w in rest) or is_unresolved(name) or (path and os.path.exists(path))
    model.branch = "" if unknown else name


def current_branch(directory: str, model: Ledger) -> str:
    if model.branch is not None:
        return model.branch
    if any(key.startswith(("push.", "branch.", "remote.")) for key in model.git_config):
        return ""
    path = directory.rstrip("/") or "/"
    while not os.path.isdir(os.path.join(path, ".git")):
        parent = os.path.dirname(path)
        if parent == path or os.path.exists(os.path.join(path, ".git")):
            return ""  # none, or a `.git` file (a linked work tree's HEAD is elsewhere)
        path = parent
    head = _read(os.path.join(path, ".git", "HEAD"))
    name = head[len("ref: refs/heads/") :].strip() if head.startswith("ref: refs/heads/") else ""
    return name if name and _same_upstream(name, _read(os.path.join(path, ".git", "config"))) else ""


def _same_upstream(name: str, config: str) -> bool:
    """No `branch.NAME.merge` naming another branch, no push configuration that sends it elsewhere."""
    # a line's own blanks (`[^\S\n]*`): `^\s*` tried each blank line to the end again (64 KB of newlines: 34 s)
    if re.search(r"^[^\S\n]*\[\s*(?:push|remote\s+\"[^\"]*\"\s*\]\s*push|include)", config, re.M | re.I):
        return False
    head = rf'^[^\S\n]*\[\s*branch\s+"{re.escape(name)}"\s*\]'
    section = re.search(rf"{head}(.*?)(?=^[^\S\n]*\[|\Z)", config, re.M | re.S)
    merge = re.search(r"^[^\S\n]*merge\s*=\s*(\S+)", section.group(1), re.M) if section else None
    return merge is None or merge.group(1) == f"refs/heads/{name}"


def _read(path: str) -> str:
    """A regular file's first 64 KiB: never through a link, a FIFO (an open that would wait for a writer: the
    decision stalled) or a device (holdings.head)."""
    return head(path, 65536) or ""


def pushed_branch(place: Place, base: str, model: Ledger) -> str:
    placed: Mapping[str, object] = place(base)
    directory = str(placed.get("path") or "")
    return current_branch(directory, model) if directory else ""
