"""What a process given by its number runs now: the names a policy matches against the guard's.

A PID learnt in an earlier call (`pgrep hookd`, then `kill -STOP 4242` or `strace -p 4242` in the next) is a
lookup made earlier: its target is named only by what runs under that number now. hookd's own processes
are its daemon (`python -m hookd serve`, the `hookd` console script) and what the daemon starts (workers, lanes,
policy evaluators: `python -c …`, named by no word of their own), so the process and its ancestors are read:
a process under the guard is the guard's.
"""

from __future__ import annotations

import itertools
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
_ROW_KEEPERS = frozenset({"cat", "cut", "tr", "sort", "uniq", "tac", "column", "rev", "nl", "paste", "expand", "tee"})
_GREP_VALUES = frozenset("efmABCdD")  # grep's short options that take a value: the rest of a cluster is it


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
    texts += [built[n] for text in texts[1:] for n in _NAMED.findall(text) if n in built]  # `pid=$(basename "$d")`
    words: list[str] = [EVERY_NAME] if any(_PROCESS_TABLE.search(text) for text in texts) else []
    for match in (m for text in texts for m in _SUBSTITUTION.finditer(text)):
        text = match.group(1) or match.group(2) or ""
        if lists_every_process(text) or EVERY_NAME in _through_pipes(text):
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
    every = [EVERY_NAME] if EVERY_NAME in words else []  # first: the cut below keeps it
    words = [_glued_address(w) if w.startswith("-") else w for w in words]
    return [*every, *(w for w in words if w and w != EVERY_NAME)][:_LOOKUP_WORDS]


def _glued_address(option: str) -> str:
    """An option word's address glued to it (lsof's `-ti:8765`, `-iTCP:8765`): what it selects; else nothing."""
    at = option.find(":")
    return option[at:] if at > 0 and not option.startswith("--") else ""


# A PID read off the process table's directory (proc(5): one `/proc/PID` entry per process): a glob or a variable
# over its entries (`for p in /proc/[0-9]*`, `${p#/proc/}`, `$(basename "$d")` of `/proc/*/`), or a pattern of
# numbers left where the glob was (`[0-9]*`): any process, the guard among them.
_PROCESS_TABLE = re.compile(r"/proc/(?:[*?\[]|\$)|^\[0-9\]|^[0-9]*[*?]")


def _through_pipes(text: str) -> list[str]:
    """What a substitution's pipeline (`$(ps -eo pid= | tail -n +2)`) hands on, as `piped_words` reads a line's."""
    if "|" not in text:
        return []
    fed: list[str] = []
    for piece in text.split("|")[:_LOOKUP_WORDS]:
        try:
            program = shlex.split(piece)
        except ValueError:
            return []
        fed = piped_words(fed, program) if program else fed
    return fed


def piped_words(fed: list[str], program: list[str]) -> list[str]:
    """The words a pipeline's next command is fed once `program` (its words, the program's name first) has run:
    `fed` and the program's operands, a listing of every process standing for every name (EVERY_NAME: `ps -eo pid=
    | xargs kill`, `ps ax -o pid= | while read p`) until a command keeps only some of its rows (`grep node`,
    `head`); one that passes them on, reordered or cut to a column (`awk '{print $2}'`, `grep -v 1`), keeps it."""
    listed = EVERY_NAME in fed
    if lists_every_process(shlex.join(program)):
        listed = True
    elif listed and not _passes_rows(program):
        listed = False
    return [EVERY_NAME] * listed + [word for word in fed if word != EVERY_NAME] + program[1:]


def _passes_rows(program: list[str]) -> bool:
    name, operands = (program[0].rsplit("/", 1)[-1], program[1:]) if program else ("", [])
    if name in _ROW_KEEPERS:
        return True
    if name in ("awk", "gawk", "mawk", "nawk"):  # no pattern, or one that skips a header, acts on every row
        code = next((w for w in operands if not w.startswith("-")), "")
        return _EVERY_ROW.match(code) is not None
    if name in ("grep", "egrep", "fgrep"):  # `-v`: every row but the matching ones
        return any(_inverts(w) for w in operands) or "--invert-match" in operands
    if name == "tail":  # from a line on (`tail -n +2`: past the header), not the last few
        return _line_count(operands, "+") or any(w.startswith("+") and w[1:].isdigit() for w in operands)
    if name == "head":  # all but the last lines (`head -n -1`), not the first few
        return _line_count(operands, "-")
    return name == "sed" and not any(w == "-n" or w.startswith("-n") for w in operands)


def _line_count(operands: list[str], sign: str) -> bool:
    """A `-n`/`--lines` count of head or tail given with `sign` (`-n +2`, `-n+2`, `--lines=-1`)."""
    counts = [v for w, v in itertools.pairwise(operands) if w in ("-n", "--lines")]
    counts += [w[2:] if w.startswith("-n") else w[8:] for w in operands if w.startswith(("-n", "--lines=")) and w[2:]]
    return any(c.startswith(sign) and c[1:].isdigit() for c in counts)


def _inverts(word: str) -> bool:
    """A cluster of grep's short options holding `-v` before any option that takes the rest as its value."""
    if not word.startswith("-") or word.startswith("--"):
        return False
    for letter in word[1:]:
        if letter == "v":
            return True
        if letter in _GREP_VALUES:
            return False
    return False


# a substitution inside the listing's words (`lsof -t -u "$(id -un)"`): a user's name the shell finds
_INNER = re.compile(r"\$\([^()]*\)|`[^`]*`")
# pgrep's options that take a value (procps pgrep(1); lsof(8) "OPTIONS")
_PGREP_VALUES = frozenset({"-u", "-U", "-G", "-g", "-P", "-s", "-t", "-d", "-F", "--signal", "--ns", "--nslist",
                           "--euid", "--uid", "--group", "--pgroup", "--parent", "--session", "--terminal",
                           "--delimiter", "--pidfile", "--runstates", "--cgroup", "--env"})  # fmt: skip
_USER_OPTIONS = ("-u", "-U", "--user", "--euid", "--uid")


def lists_every_process(text: str) -> bool:
    """`text`, one command, prints the PIDs of every process, or of every process of a user (the guard runs as
    the user who runs the agent): `ps -e -o pid=`, `ps aux`, `ps -A`, `ps -u USER`; `pgrep -u USER` with no
    pattern; `lsof -t -u USER` selecting nothing else (not `-i :3000`, `-p`, `-c NAME`, a file)."""
    words = [w.strip("\"'") for w in _INNER.sub("user", text).split()]
    if not words or any(c in text for c in "|;&<>"):
        return False
    program, options = words[0].rsplit("/", 1)[-1], words[1:]
    if program == "ps":
        narrowed = any(
            w in ("-C", "-p", "--pid", "-q", "--quick-pid", "--ppid", "--sid") or w.startswith(("-C", "-p", "--pid="))
            for w in options
        )
        return not narrowed and any(_selects_all(w) or _names_user(w) for w in options)
    if program == "pgrep":  # no pattern: every process the other options select
        return any(_names_user(w) for w in options) and not _pgrep_patterns(options)
    return program == "lsof" and _lsof_every_of_user(options)


def _pgrep_patterns(options: list[str]) -> list[str]:
    found, value = [], False
    for word in options:
        if value or word in _PGREP_VALUES:
            value = not value
            continue
        if not word.startswith("-"):
            found.append(word)
    return found


def _lsof_every_of_user(options: list[str]) -> bool:
    """`lsof -t -u USER`: PIDs only (`-t`, with flags that change nothing selected: -a -n -P -l -w), of a user's
    processes, with no other selection (`-i :3000`, `-p PID`, `-c NAME`, a file)."""
    terse = users = value = False
    for word in options:
        if value:
            value = False
        elif word == "-u":
            users = value = True
        elif word.startswith("-u"):
            users = True
        elif word.startswith("-") and not word.startswith("--") and set(word[1:]) <= set("tanPlw"):
            terse = terse or "t" in word
        else:
            return False
    return terse and users


def _names_user(word: str) -> bool:
    return word in _USER_OPTIONS or word.startswith(("-u", "-U", "--user=", "--euid=", "--uid="))


def _selects_all(word: str) -> bool:
    """ps(1): `-e` and `-A` select every process (in any cluster of standard options, `-eo`), and so do BSD
    options `a` and `x` together (`ax`, `aux`, `-ax`)."""
    if not _CLUSTER.fullmatch(word):
        return False
    letters = word.lstrip("-")
    return (word.startswith("-") and ("e" in letters or "A" in letters)) or ("a" in letters and "x" in letters)
