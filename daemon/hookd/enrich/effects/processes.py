"""What a process given by its number runs now: the names a policy matches against the guard's.

A PID learnt in an earlier call (`pgrep hookd`, then `kill -STOP 4242` or `strace -p 4242` in the next) is a
lookup made earlier: its target is named only by what runs under that number now. hookd's own processes
are its daemon (`python -m hookd serve`, the `hookd` console script) and what the daemon starts (workers, lanes,
policy evaluators: `python -c …`, named by no word of their own), so the process and its ancestors are read:
a process under the guard is the guard's.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping

from hookd.enrich.effects.words import XARGS_INPUT

MAX_ANCESTORS = 8
_CMDLINE_BYTES = 4096
_INTERPRETER = re.compile(r"(?:python|pypy|node|nodejs|perl|ruby)[0-9.]*")
_INLINE_CODE = frozenset({"-c", "-e", "-E", "--eval", "-p", "--print"})
_SUBSTITUTION = re.compile(r"\$\((.*)\)|`([^`]*)`", re.S)
_NAMED = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")
_LOOKUP_WORDS = 64
_CLUSTER = re.compile(r"-?[A-Za-z]+")  # ps(1)'s options: `-e`, `-eo`, BSD `aux` (no dash), `-ax`
EVERY_NAME = ".*"  # what a listing of every process looks up: a pattern every name matches
_EVERY_ROW = re.compile(r"\s*(?:NR\s*(?:>|>=|!=)\s*[0-9]+\s*)?\{")  # awk's `{print $2}`, `NR>1 {print $2}`
_ROW_KEEPERS = frozenset({"cat", "cut", "tr", "sort", "uniq", "tail", "tac", "column", "rev", "nl", "paste", "expand"})


def running_names(target: str, proc: str = "/proc") -> list[str]:
    """For a PID spelled as a number (a process group as `-PID`), the names of what it and its ancestors run:
    each one's program and, for an interpreter, the module or script it was started with (`python3 -I -m
    hookd serve`: python3, hookd), never its operands (a file an editor has open is not its name). Empty when
    there is no such process (or for 0 and 1)."""
    digits = target[1:] if target.startswith("-") else target
    if not (digits.isascii() and digits.isdigit()) or len(digits) > 10:
        return []
    pid, names = int(digits), []
    for _ in range(MAX_ANCESTORS + 1):
        if pid <= 1:
            break
        names.extend(_names(_cmdline(pid, proc)))
        pid = _parent(pid, proc)
    return list(dict.fromkeys(names))


def _names(argv: list[str]) -> list[str]:
    if not argv:
        return []
    program = argv[0].rsplit("/", 1)[-1]
    names = [program]
    if _INTERPRETER.fullmatch(program):
        rest = iter(argv[1:])
        for word in rest:
            if word == "-m":
                names.append(next(rest, ""))
                break
            if word in _INLINE_CODE:
                break  # the code is text, not the name of what runs
            if word and not word.startswith("-"):
                names.append(word.rsplit("/", 1)[-1])
                break
    return [name for name in names if name]


def _cmdline(pid: int, proc: str) -> list[str]:
    try:
        with open(f"{proc}/{pid}/cmdline", "rb") as handle:
            return handle.read(_CMDLINE_BYTES).decode(errors="replace").split("\0")
    except OSError:
        return []


def _parent(pid: int, proc: str) -> int:
    try:
        with open(f"{proc}/{pid}/stat", "rb") as handle:
            stat = handle.read().decode(errors="replace")
    except OSError:
        return 0
    fields = stat[stat.rfind(")") + 2 :].split()  # the command name may hold spaces and parentheses
    return int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else 0


def lookup_words(target: str, built: Mapping[str, str], fed: tuple[str, ...]) -> list[str]:
    """The operands of the commands whose output a PID built at run time is (options and program words left
    out): a substitution in the target or in a variable it names that the line set (`built`: `p=$(pgrep x); kill
    $p`, `for p in $(…)`, `pgrep x | while read p`), or, for xargs' input, the commands before it in the pipeline
    (`fed`). A substitution that lists every process (`ps -e -o pid=`, `ps aux`) looks up every name (EVERY_NAME)."""
    texts = [target, *(built[n] for n in _NAMED.findall(target) if n in built)]
    words: list[str] = []
    for match in (m for text in texts for m in _SUBSTITUTION.finditer(text)):
        text = match.group(1) or match.group(2) or ""
        if _lists_every_process(text):
            words.append(EVERY_NAME)
        first = True  # words split at white space, quotes dropped: only names are looked for in them
        for word in text.replace("|", " | ").replace(";", " ; ").replace('"', " ").replace("'", " ").split():
            if word in ("|", ";", "&&", "||"):
                first = True
            elif first:
                first = False  # the program
            else:
                words.append(word)
    if XARGS_INPUT in target:
        words.extend(fed)
    return [w for w in words if w and not w.startswith("-")][:_LOOKUP_WORDS]


def piped_words(fed: list[str], program: list[str]) -> list[str]:
    """The words a pipeline's next command is fed once `program` (its words, the program's name first) has run:
    `fed` and the program's operands, a listing of every process standing for every name (EVERY_NAME: `ps -eo pid=
    | xargs kill`, `ps ax -o pid= | while read p`) until a command keeps only some of its rows (`grep node`,
    `head`); one that passes them on, reordered or cut to a column (`awk '{print $2}'`, `grep -v 1`), keeps it."""
    listed = EVERY_NAME in fed
    if _lists_every_process(shlex.join(program)):
        listed = True
    elif listed and not _passes_rows(program):
        listed = False
    return [word for word in fed if word != EVERY_NAME] + program[1:] + [EVERY_NAME] * listed


def _passes_rows(program: list[str]) -> bool:
    name, operands = (program[0].rsplit("/", 1)[-1], program[1:]) if program else ("", [])
    if name in _ROW_KEEPERS:
        return True
    if name in ("awk", "gawk", "mawk", "nawk"):  # no pattern, or one that skips a header, acts on every row
        code = next((w for w in operands if not w.startswith("-")), "")
        return _EVERY_ROW.match(code) is not None
    if name in ("grep", "egrep", "fgrep"):  # `-v`: every row but the matching ones
        return (
            any(w.startswith("-") and not w.startswith("--") and "v" in w for w in operands)
            or "--invert-match" in operands
        )
    return name == "sed" and not any(w == "-n" or w.startswith("-n") for w in operands)


def _lists_every_process(text: str) -> bool:
    """`ps -e -o pid=`, `ps aux`, `ps -A`: one `ps` (no pipe, no list) with an option that selects every process
    and none that narrows it to named ones (`-C NAME`, `-p PID`, `--pid`, `-u`/`-U` a user's are still many)."""
    words = text.split()
    if not words or words[0] != "ps" or any(c in text for c in "|;&<>`$("):
        return False
    options = words[1:]
    return any(_selects_all(w) for w in options) and not any(
        w in ("-C", "-p", "--pid", "-q", "--quick-pid", "--ppid", "--sid") or w.startswith(("-C", "-p", "--pid="))
        for w in options
    )


def _selects_all(word: str) -> bool:
    """ps(1): `-e` and `-A` select every process (in any cluster of standard options, `-eo`), and so do BSD
    options `a` and `x` together (`ax`, `aux`, `-ax`)."""
    if not _CLUSTER.fullmatch(word):
        return False
    letters = word.lstrip("-")
    return (word.startswith("-") and ("e" in letters or "A" in letters)) or ("a" in letters and "x" in letters)
