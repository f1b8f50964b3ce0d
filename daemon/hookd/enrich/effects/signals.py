"""What a command signals, stops or limits: the processes, units and the machine its words name.

A service manager's subcommand that stops every unit it runs (`systemctl --user exit`: the user's manager exits,
its units with it; `isolate`: every unit the target does not want; `supervisorctl shutdown`, `stop all`) names
no unit, and is a signal to every process, as `kill -1` is: the guard's own unit is among them."""

from __future__ import annotations

import re
from typing import Any

from hookd.enrich.effects.ledger import CommandView, Ledger
from hookd.enrich.effects.options import Parsed
from hookd.enrich.effects.processes import lookup_words, running_names
from hookd.enrich.effects.program import Program


def signals(ledger: Ledger, program: Program, parsed: Parsed, view: CommandView) -> None:
    """The signals `program` sends as `parsed` calls it: to what its operands or options name, to a service
    manager's units, to every process when the machine powers off."""
    given = not program.signal_options or any(o in program.signal_options for o, _ in parsed.options)
    if program.signal and program.signal != "none" and given:
        _signal(ledger, program, parsed, view)
    _acted_on(ledger, program, parsed, view)
    if program.power and ("*" in program.power or any(w in program.power for w in parsed.operands)):
        ledger.add("signal", None, program.name, target="system", match="power")  # every process ends


def _starts_an_end(program: Program, parsed: Parsed) -> bool:
    """`systemctl start exit.target` (a unit whose start stops every other: the manager's exit, the machine's power
    off, rescue), or any start in the isolate job mode (`--job-mode=isolate`: every unit the target does not want)."""
    words, units = program.stop_all_units
    if not parsed.operands or parsed.operands[0] not in words:
        return False
    isolating = any(o == "--job-mode" and v == "isolate" for o, v in parsed.options)
    return isolating or any(word in units for word in parsed.operands[1:])


def _signal(ledger: Ledger, program: Program, parsed: Parsed, view: CommandView) -> None:
    targets = parsed.operands
    if program.signal == "unit":  # `systemctl stop UNIT`, `service UNIT stop`: the other operands are units
        if _starts_an_end(program, parsed):
            _signal_to(ledger, program.name, "", "all", view)
            return
        if not any(word in program.stop_words for word in targets):
            return
        if any(word in program.stop_all for word in targets):
            _signal_to(ledger, program.name, "", "all", view)
            return
        targets = [word for word in targets if word not in program.stop_words and not program.own_unit]
        targets = targets or [program.name]  # its own
    if program.signal == "pid":
        targets = targets + _pids_after_signal(parsed.spelled)
    if space := next((v for o, v in parsed.options if o in program.space_options and v), ""):
        targets = [word if "/" in word else f"{word}/{space}" for word in targets]
    regex = program.signal == "regex" or any(o in program.regex_options for o, _ in parsed.options)
    selectors = _selectors(program, parsed.spelled) if regex and not targets else []
    if selectors and all(v and not v.strip().isdigit() for v in selectors):
        for value in selectors:  # `pkill -P "$(cat app.pid)"`: no pattern; the pids that select, judged as kill's
            _signal_to(ledger, program.name, value, "pid", view, acts="process")
        return
    for word in targets or [""]:
        target, match = word, "regex" if regex else program.signal
        if (program.signal == "pid" and word == "-1") or (program.signal in ("name", "filter") and not targets):
            match = "all"  # kill(2)'s pid -1; `killall -u USER`, `ss -K` with no filter: every process, the guard's too
        elif program.signal == "unit" and any(ch in word for ch in "*?["):
            target, match = _unit_glob_regex(word), "regex"  # systemctl matches a unit glob to loaded units
        _signal_to(ledger, program.name, target, match, view)


def _selectors(program: Program, spelled: list[str]) -> list[str]:
    """pkill's -P/-g/-s values as written (`-P V`, `--parent=V`): the parent, group or session of what it signals. A
    literal number stays every process (the caller sees none of the tree: its parent's pid may be the guard's);
    read from the words, since `-STOP` is a signal, not a cluster of options."""
    values: list[str] = []
    for k, word in enumerate(spelled[1:], start=1):
        name, eq, value = word.partition("=")
        if word in program.select_options and k + 1 < len(spelled):
            values.append(spelled[k + 1])
        elif eq and name in program.select_options and name.startswith("--"):
            values.append(value)
    return values


_SIGNAL_WORD = re.compile(r"-(?:\d+|[A-Z][A-Z0-9+-]*)")
_UNIT_SUFFIXES = (".service", ".socket", ".timer", ".target", ".path", ".scope", ".slice", ".mount")


def _pids_after_signal(spelled: list[str]) -> list[str]:
    """`kill -9 -1`, `kill -s KILL -42`: once the signal is named, a negative number is a process group to
    signal (-1 every process); the option parser read them as short options."""
    pids: list[str] = []
    signalled = False
    words = iter(spelled[1:])
    for word in words:
        if word == "--":
            break
        if word in ("-s", "-n", "--signal"):
            signalled = True
            next(words, None)
        elif word.startswith("--signal="):
            signalled = True
        elif _SIGNAL_WORD.fullmatch(word):
            if signalled and word[1:].isdigit():
                pids.append(word)
            signalled = True
    return pids


def _acted_on(ledger: Ledger, program: Program, parsed: Parsed, view: CommandView) -> None:
    """`prlimit --pid PID --nofile=0:0`, `cpulimit -e NAME`: a process limited or attached to (by a path: the
    processes named after its file; `prlimit --pid PID --nofile`, a resource given no value, only prints its
    limits); `chrt -p PRIO PID`, `taskset -p MASK PID`: the process the last operand names."""
    if parsed.operands and any(o in program.pid_operand_with for o, _ in parsed.options):
        _signal_to(ledger, program.name, parsed.operands[-1], "pid", view, acts="process")
    prints_only = bool(program.pid_changes) and not any(o in program.pid_changes and v for o, v in parsed.options)
    for option, value in parsed.options:
        if option in program.pid_options and value and not prints_only:
            _signal_to(ledger, program.name, value, "pid", view, acts="process")
        elif program.process_options.get(option) and value:
            target = value.rstrip("/").rpartition("/")[2] if program.process_options[option] == "path" else value
            _signal_to(ledger, program.name, target, "name", view, acts="process")


def _signal_to(ledger: Ledger, name: str, target: str, match: str, view: CommandView, **extra: Any) -> None:
    """A signal (or a limit, an attach) to `target`; one built when the shell runs from what a lookup prints
    (`kill $(pgrep -f x)`, `pgrep -f x | xargs kill`) has that lookup's words as `lookup`: the process it
    names is the target (`pidof hookd`, `systemctl show -p MainPID hookd`, `cat /run/hookd.pid`)."""
    lookup = lookup_words(target, {**view.variables, **view.built}, view.fed) if match == "pid" else []
    if lookup:
        extra["lookup"] = [_in_project(w, ledger.project) for w in lookup]
        if (named := _in_project(target, ledger.project, anywhere=True)) != target:
            extra["named"] = named  # what the target names processes by; the reason shows it as spelled
    elif match == "pid" and (running := running_names(target)):
        extra["running"] = running
    ledger.add("signal", None, name, target=target, match=match, **extra)


def _in_project(word: str, project: str, *, anywhere: bool = False) -> str:
    """A lookup's absolute path below the project as the project names it (`cat /w/hookd-x/shop/.dev.pid` is
    `./.dev.pid`; `anywhere`: each such path in a target's text): the directories the project sits in are where the
    user keeps it, no process's name."""
    if project == "/":
        return word
    if anywhere:
        return re.sub(r"(?<![\w/.-])" + re.escape(project) + r"/(?=[^/])", "./", word)
    return "./" + word[len(project) + 1 :] if word.startswith(project + "/") else word


def _unit_glob_regex(target: str) -> str:
    """A systemctl unit pattern (fnmatch: `hook?.service`, `hook*`) as an anchored regex of the unit's name
    without its type suffix, so that it is matched against the guard's process names."""
    name = next((target[: -len(s)] for s in _UNIT_SUFFIXES if target.endswith(s)), target)
    out: list[str] = []
    i = 0
    while i < len(name):
        ch = name[i]
        close = name.find("]", i + 2) if ch == "[" else -1
        if ch == "*":
            out.append(".*")
        elif ch == "?":
            out.append(".")
        elif close > 0:
            body = name[i + 1 : close]
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body).replace("\\", "\\\\") + "]")
            i = close
        else:
            out.append(re.escape(ch))
        i += 1
    return "^" + "".join(out) + "$"
