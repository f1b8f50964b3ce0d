"""What git runs through the places it contacts, and which executing values run only a program of no consequence
(part of gitops, which judges every git command).

A remote's URL may be a command transport (git.json `command_transports`: `ext::CMD`, git-remote-ext(1)): git runs
CMD for every fetch, pull, push and ls-remote of that remote. Stored (`git remote add NAME URL`, `set-url`, `git
config remote.NAME.url`, a `url =` line a file tool writes into a configuration) the URL is a command git runs
later: an executing value. A later command that contacts remotes runs the command transports the configuration
git reads holds (gitaliases.remote_urls: every remote's, a superset of the one it contacts). A startup file that
exports `GIT_ALLOW_PROTOCOL` naming one lets every later clone, fetch and submodule update run a URL's command
(what `protocol.ext.allow = always`, an executing key, does in a configuration).

An executing key's value is judged by what it runs, not by the key alone: a program the catalogue knows runs no
code it is handed (no shell, no `runs` hook, no GTFOBins function that runs code, no launcher) and only reads what
it is given, with literal words (`diff.json.textconv = jq .`), is the program's own, which a later `git diff` runs
as itself (gitops also walks it as the command it is); a hooks
directory inside the work tree (`core.hooksPath = .husky`) runs the project's own hooks, files that are judged
where they are written."""

from __future__ import annotations

import re
import shlex

from hookd.enrich.effects.catalogue import Program, catalogue
from hookd.enrich.effects.ledger import CommandView, Ledger
from hookd.enrich.effects.loaded import may_run_files
from hookd.enrich.effects.words import SHELLS

# git's subcommands that contact a remote (and `remote update`, `submodule update`, which fetch)
CONTACTS = frozenset({"fetch", "pull", "push", "ls-remote", "remote", "submodule", "archive", "clone"})
_SHELL_SYNTAX = re.compile(r"[;&|<>()`$\\\n*?\[\]{}!#'\"]")


def transported(value: str) -> str:
    """The command of a command-transport URL (`ext::sh -c …`: what follows the prefix), "" for any other URL."""
    prefix = next((p for p in catalogue().git["command_transports"]["prefixes"] if value.startswith(p)), "")
    return value[len(prefix) :] if prefix else ""


def stored_url_runs(key: str, value: str) -> bool:
    """A remote's or submodule's URL (`remote.<name>.url`, `.pushurl`, `submodule.<name>.url`) that is a command
    transport: git runs its command whenever it contacts that remote."""
    section, _, name = key.lower().rpartition(".")
    return section.startswith(("remote.", "submodule.")) and name in ("url", "pushurl") and bool(transported(value))


def own_tool(key: str, value: str) -> bool:
    """An executing key's value that runs nothing of consequence: a catalogued program that runs no code it is
    handed, given literal words. Never a hooks directory (review46): the hooks already in it run, and a relative
    one set `--global` is every later repository's own directory of that name."""
    if key.lower() == "core.hookspath":
        return False
    if not value.strip() or _SHELL_SYNTAX.search(value):
        return False
    try:
        words = shlex.split(value)
    except ValueError:
        return False
    name = words[0] if words else ""
    program = catalogue().get(name) if "/" not in name else None
    if program is None or name in SHELLS or program.script_operand or program.network or not _reads_only(program):
        return False
    return not may_run_files(program) and not any(w.startswith(("/", "~")) or ".." in w.split("/") for w in words[1:])


def _reads_only(program: Program) -> bool:
    """The catalogue knows the program only to read what it is given: its operands read, no option or word that
    writes, moves or deletes, no GTFOBins file-write (`jq`, `cat`; not `tee`, `rm`, `sort -o`, `sed -i`, `dd of=`)."""
    return (
        program.operands == "read"
        and set(program.option_ops.values()) <= {"read"}
        and not (program.writes_in_place or program.keyword_ops or program.subcommand_ops or program.word_ops)
        and not (program.removes or program.empties_in_place or program.archive or program.writes_files)
        and "file-write" not in program.gtfobins
    )


def transports_allowed_later(ledger: Ledger, view: CommandView, start: int) -> None:
    """A deferred exec (asked, as a startup file's commands) for each startup file this command writes whose
    variables (`sets`, model._startup_files) allow git a command transport for every later command."""
    names = {p.removesuffix("::") for p in catalogue().git["command_transports"]["prefixes"]}
    variable = str(catalogue().git["command_transports"]["allow_env"])
    for effect in ledger.effects[start:]:
        sets = effect.get("sets") if effect["op"] == "write" else None
        value = sets.get(variable) if isinstance(sets, dict) else None
        if isinstance(value, str) and names & set(value.split(":")):
            when = f"{variable}={value} lets git run the command of any ext:: URL a later fetch or clone meets"
            code = {"lang": "sh", "text": ""}
            ledger.add(
                "exec", None, view.name, code=code, known=False, deferred=True, startup=effect["path"], when=when
            )
