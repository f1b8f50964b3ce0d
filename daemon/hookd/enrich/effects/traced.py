"""What a tracer attached to a running process prints of it (`strace -p PID -s 4096`, `ltrace -p PID -s 512`): the
data the process reads and writes, a password typed into it too, as a read of its memory (/proc/PID/mem,
proc_pid_mem(5)) takes it. Attaching by itself is everyday (a hung dev server traced by its PID: the first bytes of
each buffer shown); the catalogue's `traces_memory` names what asks for the data: its `string_limit` options given a
size past the tracer's default, its `dumps` qualifiers (strace's `-e read=FD`, `-e write=FD`: every byte), or a
selection through its `filters` (`-e trace=SET`, `--trace=SET`) of calls that move data (`data`: the read and write
family, a negation, a regular expression), strace's long forms of the qualifiers (`--read=FD`, holes44), or a
debugger's command that prints memory (`shows`: gdb's `-ex 'x/s $rsp'`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hookd.enrich.effects.ledger import Ledger, Place
from hookd.enrich.effects.options import Parsed
from hookd.enrich.effects.program import Program


def traced_memory(ledger: Ledger, program: Program, parsed: Parsed, place: Place) -> None:
    """A read of /proc/PID/mem for each process a pid option attaches to, when the tracer prints its data."""
    spec = program.traces_memory
    if spec is None or not (_longer_strings(spec, parsed) or _selects_data(spec, parsed) or _shows_data(spec, parsed)):
        return
    for option, pid in parsed.options:
        if option in program.pid_options and pid:
            ledger.add("read", place(f"/proc/{pid}/mem"), program.name)


def _longer_strings(spec: Mapping[str, Any], parsed: Parsed) -> bool:
    limit = spec.get("string_limit") or {}
    options, default = set(limit.get("options", ())), int(limit.get("default", 0))
    sizes = [v for o, v in parsed.options if o in options and v is not None]
    return any(not size.isdigit() or int(size) > default for size in sizes)


def _selects_data(spec: Mapping[str, Any], parsed: Parsed) -> bool:
    filters, dumps, data = set(spec.get("filters", ())), set(spec.get("dumps", ())), set(spec.get("data", ()))
    for option, value in parsed.options:
        if option not in filters or not value:
            continue
        qualifier, eq, names = value.partition("=")
        if option.startswith("--"):  # `--trace=SET`, `--read=FD`: the qualifier is the option's name
            qualifier, names = option[2:], value
        elif not eq:  # `-e SET`: the trace qualifier is the default one
            qualifier, names = "trace", value
        if qualifier in dumps:
            return True
        chosen = [n.strip().lstrip("?") for n in names.split(",")] if qualifier == "trace" else []
        if any(n in data or n.startswith(("!", "/")) for n in chosen):
            return True
    return False


def _shows_data(spec: Mapping[str, Any], parsed: Parsed) -> bool:
    """A debugger's command, handed by an option, that prints the attached process's memory (gdb's `x/s $rsp`,
    `print`, `dump`: the catalogue's `shows`), as opposed to a backtrace or a list of its threads."""
    commands, shows = set(spec.get("commands", ())), set(spec.get("shows", ()))
    for option, value in parsed.options:
        if option in commands and value:
            line = value.strip().split(None, 1)
            if line and line[0].split("/", 1)[0] in shows:
                return True
    return False
