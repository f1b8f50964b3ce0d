"""A kernel-parameter tool's operands (the catalogue's `parameters`: procps' sysctl(8)): each names a parameter,
a file below `root` (`vm.swappiness` is /proc/sys/vm/swappiness, `.` or `/` between its parts); given alone it is
read, given `NAME=VALUE` (or under a `write` option) it is written. Under a `load` option the operands are
files of settings, read, and the parameters they set written: so is every parameter under `system` (all the
system's settings files applied)."""

from __future__ import annotations

from hookd.enrich.effects.catalogue import Program
from hookd.enrich.effects.ledger import Ledger, Place
from hookd.enrich.effects.options import Parsed


def kernel_parameters(ledger: Ledger, program: Program, parsed: Parsed, place: Place) -> None:
    spec = program.parameters
    if not spec:
        return
    root, given = str(spec["root"]), {o for o, _ in parsed.options}
    loads = given & set(spec.get("load", ()))
    writes = bool(given & set(spec.get("write", ())))
    for option, value in parsed.options:
        if option in loads and value:
            ledger.add("read", place(value), program.name)
    if loads or given & set(spec.get("system", ())):
        for word in parsed.operands if loads else ():
            ledger.add("read", place(word), program.name)
        ledger.add("write", place(root), program.name, recursive=True)
        return
    for word in parsed.operands:
        name, eq, _ = word.partition("=")
        path = root + (name.lstrip("/") if "/" in name else name.replace(".", "/"))
        ledger.add("write" if eq or writes else "read", place(path), program.name)
