"""A file's content replaced by nothing of its own: an overwrite that is that file's delete (an `emptied` delete,
as `: > F` and `truncate -s 0 F` are). What marks the content lost is where the new bytes come from: a device that
only yields zeros, random bytes or nothing (zero(4), random(4), null(4): https://man7.org/linux/man-pages/man4/
zero.4.html, https://man7.org/linux/man-pages/man4/random.4.html, https://man7.org/linux/man-pages/man4/null.4.html),
or a file the same line made empty (`touch e && mv -f e F`) or that is empty on disk (holes44; a link to one too).

A link or a move onto a symbolic link replaces the link itself (rename(2), and `ln -f`'s unlink first), never the
file it points at: that destination is the link's own path, not the canonical one the words are placed at."""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping

from hookd.enrich.effects.emptied import is_empty
from hookd.enrich.effects.ledger import CommandView, Ledger, Place
from hookd.enrich.effects.words import STDIN_FILES
from hookd.enrich.facts import under

FILLER_DEVICES = frozenset(("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"))


def keyword_fills(
    ledger: Ledger, keyword_ops: Mapping[str, str], words: list[str], place: Place, named: tuple[str, bool]
) -> None:
    """`dd if=/dev/zero of=F conv=notrunc`: a program whose `KEY=VALUE` operands name what it reads and what it
    writes, reading only a filler device (no input named: its stdin, `filler_stdin`), leaves nothing of each file
    it writes (its length kept or not)."""
    name, filler_stdin = named
    reads: list[str] = []
    writes: list[str] = []
    for word in words:
        key, eq, value = word.partition("=")
        if eq and keyword_ops.get(key) in ("read", "write"):
            (reads if keyword_ops[key] == "read" else writes).append(value)
    if all(str(place(r).get("path") or "") in FILLER_DEVICES for r in reads) and (reads or filler_stdin):
        for value in writes:
            ledger.add("delete", place(value), name, emptied=True)


def holds_nothing_of_its_own(ledger: Ledger, sources: list[str], place: Place) -> bool:
    """Every source of a copy or move is a filler device, or a file the line made empty and that is empty on disk
    now (`touch e && mv -f e ~/thesis.tex`: the destination is left with nothing). `/dev/stdin` is the pipe's
    text, whatever hookd's own stdin resolves to."""
    if not sources or not STDIN_FILES.isdisjoint(sources):
        return False
    return all(_empty_source(ledger, str(place(s).get("path") or "")) for s in sources)


def links_to_nothing(ledger: Ledger, sources: list[str], place: Place) -> bool:
    """`ln -sf /dev/null F`, `ln -f EMPTY F`: F replaced by a link to a filler device or to a regular file that is
    empty on disk (holes44); a link to a directory, or to a file the line has yet to make, may be a new one."""
    paths = [str(place(s).get("path") or "") for s in sources]
    return bool(paths) and all(p in FILLER_DEVICES or (p not in ledger.emptied and is_empty(ledger, p)) for p in paths)


def _empty_source(ledger: Ledger, path: str) -> bool:
    if path in FILLER_DEVICES:
        return True
    if path not in ledger.emptied:
        return is_empty(ledger, path)  # (holes44: `cp -f ~/empty F`, a file empty on disk the line did not write)
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return True  # not there yet: the line's own `touch` makes it empty
    return stat.S_ISREG(info.st_mode) and info.st_size == 0


def filled_from_devices(ledger: Ledger, view: CommandView, start: int, copies_stdin: bool) -> None:
    """`head -c 1M /dev/zero > F`, `tee F < /dev/null`: a command that reads nothing but filler devices (one at
    least, its stdin no pipe's, or a pipe of filler only: `yields_filler`) writes nothing of F's own over it: each
    file it truncates and fills (a `>` redirect's; the operands of a program that copies its stdin to them,
    `copies_stdin`) and is there now is emptied, a delete as `: > F` is (a file not there loses nothing: `head -c
    32 /dev/urandom > new.key`). A `>>` keeps what F holds."""
    mine = ledger.effects[start:]
    reads = [e for e in mine if e["op"] == "read"]
    fed = view.stdin == "filler"  # (`cat /dev/urandom | head -c 64 > F`: the pipe carries filler only)
    if (view.stdin != "none" and not fed) or not (reads or fed) or any(_path(e) not in FILLER_DEVICES for e in reads):
        return
    if any(e["op"] in ("exec", "fetch") for e in mine):
        return
    emptied = {str(e.get("path")) for e in mine if e["op"] == "delete" and e.get("emptied")}
    truncated = [r for r in view.redirects if ">" in str(r.get("op") or "") and ">>" not in str(r.get("op") or "")]
    paths = {str(r.get("path")) for r in truncated if r.get("path")}
    written = [e for e in mine if e["op"] == "write" and (e["path"] in paths or (copies_stdin and not e.get("to")))]
    for effect in written:
        path = str(effect.get("path") or "")
        if path and path not in emptied and path not in FILLER_DEVICES and os.path.lexists(path):
            placed = {"raw": effect.get("raw", path), "path": path, "in_project": under(path, ledger.project)}
            ledger.add("delete", placed, view.name or "shell", emptied=True)
            ledger.emptied.add(path)
            emptied.add(path)


def yields_filler(ledger: Ledger, view: CommandView, start: int) -> bool:
    """What the command prints holds filler only (the next command's stdin is `filler`): it reads filler devices
    and nothing else (`cat /dev/urandom`, `od /dev/zero`), or filters a pipe of filler (`… | head -c 64`,
    `| tr -dc a-z`), and runs, fetches and writes nothing."""
    mine = ledger.effects[start:]
    if view.stdin not in ("none", "filler") or not (mine or view.stdin == "filler"):
        return False
    return all(e["op"] == "read" and _path(e) in FILLER_DEVICES for e in mine)


def stdin_filler(view: CommandView) -> bool:
    """Its standard input yields nothing of a file's own: a pipe of filler or of no text, or filler redirected."""
    if view.stdin == "filler" or (view.stdin == "text" and view.stdin_text == ""):
        return True
    given = [str(r.get("path") or "") for r in view.redirects if str(r.get("op") or "") == "<"]
    return bool(given) and all(p in FILLER_DEVICES for p in given)


def _path(effect: Mapping[str, object]) -> str:
    return str(effect.get("path") or "")
