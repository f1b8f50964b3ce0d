"""A backup tool's retention prune that keeps no history: `borg prune --keep-within 1H`, `restic forget --keep-last
1 --prune`. A prune removes every archive or snapshot its keep rules do not hold; when no rule holds more than
the newest one, or more than the last day's, the backups of before are gone (MITRE T1490, inhibit system recovery).
A retention kept over days, weeks or months (`--keep-daily 7 --keep-weekly 4`) is the everyday housekeeping, and a
rehearsal (`--dry-run`) removes nothing.

The rules come from the program's entry (programs.json `retention`: the command word, the rehearsal options, and
each keep option with what it keeps: a count of the newest, a span written as a duration, or a count of periods of
so many seconds), so no spelling of a command is listed here. A version control tool's sweep of the files it does
not track is a loss of the same kind (programs.json `sweeps`, `worktree_sweeps`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from hookd.enrich.effects.ledger import CommandView, Ledger, Place
from hookd.enrich.effects.options import Parsed
from hookd.enrich.effects.program import Program

_DAY = 86400
# borg's `1H`, `2d`, `3w`, `1m`, `1y` (https://borgbackup.readthedocs.io/en/stable/usage/prune.html) and restic's
# `1y5m7d2h` (https://restic.readthedocs.io/en/stable/060_forget.html#removing-snapshots-according-to-a-policy)
_UNITS = {"S": 1, "M": 60, "H": 3600, "h": 3600, "d": _DAY, "w": 7 * _DAY, "m": 30 * _DAY, "y": 365 * _DAY}
_DURATION = re.compile(r"(?:(\d+)([SMHhdwmy]))+")
_PART = re.compile(r"(\d+)([SMHhdwmy])")


def retention_prunes(ledger: Ledger, program: Program, parsed: Parsed, view: CommandView) -> None:
    """The `delete` of a repository's history (`what: "backups"`) that a prune keeping none of it makes."""
    spec = program.retention
    word = str(spec.get("word", ""))
    if not word or word not in parsed.operands[:1]:
        return
    given = [(o, v) for o, v in parsed.options]
    if any(o in spec.get("rehearse", ()) for o, _ in given):
        return
    keeps: Mapping[str, Any] = spec.get("keep", {})
    rules = [(keeps[o], v) for o, v in given if o in keeps]
    if not rules or any(_keeps_history(kind, value) for kind, value in rules):
        return
    repository = next((v for o, v in given if o in spec.get("repository", ()) and v), "")
    repository = repository or next(iter(parsed.operands[1:]), "")
    repository = repository or next((view.env[n] for n in spec.get("repository_env", ()) if view.env.get(n)), "")
    ledger.add("delete", None, program.name, what="backups", name=repository)


def _keeps_history(kind: Any, value: str | None) -> bool:
    """What one keep rule holds is more than the newest backup and more than the last day's. A value hookd cannot
    read (a variable, `unlimited`) is taken to keep it."""
    text = (value or "").strip()
    if kind == "span":
        if not _DURATION.fullmatch(text):
            return True
        return sum(int(n) * _UNITS[u] for n, u in _PART.findall(text)) > _DAY
    if not text.lstrip("-").isdigit() or int(text) < 0:
        return True
    if kind == "count":
        return int(text) > 1
    return int(text) * int(kind) > _DAY


def worktree_sweeps(ledger: Ledger, program: Program, parsed: Parsed, place: Place) -> None:
    """A version control tool's sweep of its working copy (`hg purge --all`, `svn cleanup --remove-ignored`): the
    files it does not track, and with an option those it ignores (.env, local config), deleted for good below the
    paths named or the working copy, as `git clean -fdx` is modelled (`what`: `untracked-trees`, `ignored`)."""
    spec = program.sweeps
    if not spec or not set(parsed.operands[:1]) & set(spec.get("words", ())):
        return
    given = {o for o, _ in parsed.options}
    if given & set(spec.get("rehearse", ())):
        return
    widened = [str(w) for o, w in spec.get("widen", {}).items() if o in given]
    what = "ignored" if "ignored" in widened else next(iter(widened), str(spec.get("what", "")))
    if not what:
        return
    for path in parsed.operands[1:] or ["."]:
        ledger.add("delete", place(path), program.name, recursive=True, what=what, whole=path == ".")
