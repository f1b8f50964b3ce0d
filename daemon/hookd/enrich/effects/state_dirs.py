"""The files a program writes whatever its operands, in the directory of its state that the line names (part of the
effect model): gpg's keyring is `~/.gnupg` unless `--homedir DIR` or `GNUPGHOME=DIR` names another (gpg(1) FILES
and ENVIRONMENT), so a trust command given a throwaway keyring writes that one, not the user's."""

from __future__ import annotations

from hookd.enrich.effects.catalogue import Program
from hookd.enrich.effects.ledger import CommandView, Ledger, Place
from hookd.enrich.effects.options import Parsed


def files_written(ledger: Ledger, program: Program, parsed: Parsed, view: CommandView, place: Place) -> None:
    """A write of each of the program's `writes_files` this command gives, below the state directory it names."""
    default = _expanded(str(program.state_dir.get("default", "")), ledger.home)
    named = _named_dir(program, parsed, view)
    for path in program.files_written(parsed.operands, [o for o, _ in parsed.options], ledger.home):
        if default and named and path.startswith(default + "/"):
            ledger.add("write", place(named.rstrip("/") + path[len(default) :]), program.name)
        else:
            ledger.add("write", {"raw": path, "path": path, "in_project": False}, program.name)


def _named_dir(program: Program, parsed: Parsed, view: CommandView) -> str:
    """The directory the command's last option or else its environment names; "" when none is named or its name is
    built at run time (then the default is what it may be: kept)."""
    given = [v for o, v in parsed.options if o in program.state_dir.get("options", ()) and v is not None]
    given = given[-1:] or [
        view.env.get(name) or view.variables.get(name) or "" for name in program.state_dir.get("variables", ())
    ]
    value = next((v for v in given if v), "")
    return "" if any(c in value for c in "$`") else value


def _expanded(path: str, home: str) -> str:
    return home + path[1:] if path.startswith("~/") else path
