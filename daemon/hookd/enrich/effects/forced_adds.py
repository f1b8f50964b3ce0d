"""`git add -f` of a whole tree: forcing stages the files the ignore rules keep out (https://git-scm.com/docs/git-add:
`-f` allows adding otherwise ignored files), an ignored `.env` among them, which a commit and a push then publish.
No operand names them, so the tree is walked (bounded) and each file below it is read as staged, as a file `git add
-f` names is (gitops._staged); the policies ask for those that are secrets. Without `-f` the ignore rules hold and
nothing ignored is staged. The ignore rules are not read: every file below the tree counts, and past the walk's
bound one file whose name is not known stands for the rest (asked)."""

from __future__ import annotations

import os

from hookd.enrich.effects.files import MAX_GUESSED
from hookd.enrich.effects.ledger import Ledger, Place
from hookd.enrich.effects.worktree import MAX_WALK, Unknown, repository_of

_WHOLE = frozenset({"-A", "--all", "--no-ignore-removal"})  # the whole work tree when no pathspec is given
_TREES = frozenset({".", "..", ":/", ":"})  # pathspecs that are a tree by their spelling


def forced_tree_adds(rest: list[str], place: Place, model: Ledger) -> None:
    """The files a forced `git add` of a tree stages (see the module doc); `rest` is the words after `add`."""
    options = [w for w in rest if w.startswith("-") and w != "--"]
    short = "".join(o[1:] for o in options if not o.startswith("--"))
    if not ("--force" in options or "f" in short) or "--dry-run" in options or "n" in short:
        return  # (`-n`: a dry run stages nothing)
    pathspecs = [w for w in rest if not w.startswith("-")]
    cwd = str(place(".").get("path") or "")
    trees = [str(place(w).get("path") or "") if w not in (":/", ":") else _top(cwd) for w in pathspecs]
    trees = [t for t, w in zip(trees, pathspecs, strict=True) if w in _TREES or os.path.isdir(t)]
    if not pathspecs and (set(options) & _WHOLE or "A" in short):
        trees = [_top(cwd)]
    for tree in filter(None, trees):
        files = _files_below(tree)
        if files is None:
            model.add("read", {"raw": "${many_paths}", "path": ""}, "git", guess=True, staged=True)
            return
        for path in files:
            model.add("read", place(path), "git", guess=True, staged=True)


def _top(cwd: str) -> str:
    """The work tree holding `cwd` (`git add -A` stages all of it), else `cwd` itself."""
    try:
        found = repository_of(cwd) if cwd else None
    except Unknown:
        found = None
    return found[0] if found else cwd


def _files_below(tree: str) -> list[str] | None:
    """The files below `tree` (not in `.git`), or None past the walk's bound."""
    files: list[str] = []
    seen = 0
    for top, dirs, names in os.walk(tree):
        dirs[:] = [d for d in dirs if d != ".git"]
        seen += len(dirs) + len(names)
        files.extend(os.path.join(top, n) for n in names)
        if seen > MAX_WALK or len(files) > MAX_GUESSED:
            return None
    return files
