"""A file read whose name is built at run time only from numbers: each substitution in it prints a number
(`/proc/$(pgrep -f gunicorn)/status`, `/sys/fs/cgroup/…/user-$(id -u).slice/…/memory.current`), or the digits a
file holds now that the line did not write (`/proc/$(cat .dev-server.pid)/status`: a pid file). A number is one
path component of digits: no slash, no `..`, no dot, so it cannot climb out of the directory the fixed text names
nor reach a name the fixed text does not spell. The read is placed with a stand-in for each number (the catalogue's
`number_outputs`: `PID` for a process lookup, `N` for an id) or the file's digits, and judged as a known path is:
`/proc/PID/status` is no secret, `/proc/PID/environ` and `/proc/PID/root/home/u/.ssh/id_rsa` are, as their
spelled forms are. Any other expansion (`$(cat F)` of a file holding other text, a variable, a glob) leaves the
read unknown, asked; so does a recursive read (an unquoted lookup printing two PIDs splits the word: `/proc/1`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from hookd.enrich.effects.later_lines import operator_words
from hookd.enrich.effects.ledger import Ledger
from hookd.enrich.holdings import head

# `$(…)` or `` `…` `` holding no further expansion or parenthesis of its own
_SUBSTITUTION = re.compile(r"\$\(([^()$`]*)\)|`([^`$]*)`")
_OPERATORS = frozenset("|;&<>()")  # shlex's punctuation: a word of these alone is an operator the shell acts on
_DIGITS = re.compile(r"\s*([0-9]{1,10})\s*")
# what a command before the read may have done to the file the read's number comes from
_CHANGES = frozenset({"write", "delete", "copy", "link", "fetch", "exec"})


def bounded_read(effect: dict[str, Any], ledger: Ledger, outputs: Mapping[str, Any]) -> None:
    """Place `effect` (a read of an unknown path) where each substitution in its name prints a number."""
    raw = str(effect.get("raw", ""))
    if effect.get("recursive") or effect.get("path") or ("$(" not in raw and "`" not in raw):
        return
    parts: list[str] = []
    end = 0
    for match in _SUBSTITUTION.finditer(raw):
        number = _printed_number(match.group(1) or match.group(2) or "", ledger, outputs)
        if number is None:
            return
        parts += [raw[end : match.start()], number]
        end = match.end()
    parts.append(raw[end:])
    path = "".join(parts)
    if not path.startswith("/") or "$" in path or "`" in path or "\\" in path:
        return
    effect.update(path=path, known=True)
    effect.pop("fixed", None)


def _printed_number(text: str, ledger: Ledger, outputs: Mapping[str, Any]) -> str | None:
    """The stand-in for what `text` prints when that is a number: one command of `number_outputs`, its output
    maybe passed through filters that keep some of its lines (`pgrep -f x | head -n1`); or the digits of the file
    `cat FILE` prints when it holds one. None for anything else."""
    words = operator_words(text)
    if words is None:
        return None
    commands: list[list[str]] = [[]]
    for word in words:
        if word == "|":
            commands.append([])
        elif word and set(word) <= _OPERATORS:
            return None  # a list, a redirect, a subshell: not one pipeline read here
        else:
            commands[-1].append(word)
    first, *rest = commands
    if not first or "=" in first[0] or not all(_keeps_lines(c, outputs.get("filters", ())) for c in rest):
        return None
    options = [w for w in first[1:] if w.startswith("-")]
    if first[0] == "cat" and len(first) == 2 and not options and not rest:
        return _held_number(first[1], ledger)
    spec = outputs.get("programs", {}).get(first[0])
    if spec is None:
        return None
    flags = {o for o in options if o.startswith("--")} | {
        f"-{c}" for o in options if not o.startswith("--") for c in o[1:]
    }
    need, never = set(spec.get("need", ())), set(spec.get("never", ()))
    return None if flags & never or (need and not flags & need) else str(spec.get("stands_for", "N"))


def _keeps_lines(command: list[str], filters: Any) -> bool:
    """`head -n1`, `sort -n`: a filter given options only (a number only as an option's value), no file."""
    if not command or command[0] not in filters:
        return False
    return all(w.startswith("-") or (w.isdigit() and command[k].startswith("-")) for k, w in enumerate(command[1:]))


def _held_number(name: str, ledger: Ledger) -> str | None:
    """The digits the file `cat NAME` reads hold now, when no command before on the line may have changed it."""
    read = next((e for e in ledger.effects if e["op"] == "read" and e.get("raw") == name and e.get("known")), None)
    if read is None or not read["path"] or read["path"] in ledger.produced:
        return None
    if any(e["op"] in _CHANGES for e in ledger.effects):
        return None
    text = head(read["path"], 64)
    found = _DIGITS.fullmatch(text) if text is not None else None
    return found.group(1) if found else None
