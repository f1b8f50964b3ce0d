"""What a command substitution prints when its words show it: the directory the command runs in (`$(pwd)`), and
the installed program a search-path lookup finds (`$(which NAME)`, `$(command -v NAME)`, `$(type -P NAME)`).

Bash's `pwd` prints the current directory (https://www.gnu.org/software/bash/manual/bash.html#index-pwd), as `$PWD`
does: a word that starts with its substitution is placed below the directory the command runs in, where hookd
follows it. A lookup prints the path of an executable named NAME in a directory of the search path
(https://pubs.opengroup.org/onlinepubs/9799919799/utilities/command.html, which(1), bash's `type -P`): a program
installed for the user or the system, or in the environment a launcher prepends (`poetry run`, `uv run`). Its
directory is not known, but what is there is a program, not a key or a store of credentials; the effect carries the
name (`installed`) so the rules can tell a read or a link of it from a write that would replace it."""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Mapping
from typing import Any

from hookd.enrich.effects.ledger import CommandView
from hookd.enrich.shell.state import _Cwd
from hookd.enrich.shell.wrappers import _basename, _peel

# `$(pwd)`, `$(pwd -L)`, `` `pwd -P` ``, at the start of a word: the rest of the word is below the directory
_PWD = re.compile(r"^(?:\$\(\s*pwd(?:\s+-[LP])?\s*\)|`\s*pwd(?:\s+-[LP])?\s*`)")
# a command name a lookup finds on the search path: no slash (a slash names a path, not a lookup), no leading dot
_COMMAND_NAME = re.compile(r"[A-Za-z0-9_+][A-Za-z0-9_.+@-]*")
# the lookups that print a program's path and nothing else: (program, its options that do so)
_LOOKUPS: dict[str, frozenset[str]] = {
    "which": frozenset(),
    "command": frozenset({"-v"}),
    "type": frozenset({"-P", "-p"}),
}


def below_directory(text: str, cwd: str) -> str | None:
    """`text` with a leading substitution of `pwd` put as `cwd` (`$(pwd)/bin/tool` is `CWD/bin/tool`); None when it
    starts with none, or the rest is itself built when the shell runs."""
    match = _PWD.match(text)
    if match is None:
        return None
    rest = text[match.end() :]
    if "$" in rest or "`" in rest or (rest and not rest.startswith("/")):
        return None
    return cwd.rstrip("/") + rest if rest or cwd == "/" else cwd


def looked_up(text: str, redefined: tuple[Mapping[str, Any], ...] = ()) -> str | None:
    """The command name an operand that is one substitution of a search-path lookup finds (`$(which poetry)`,
    `$(poetry run which poetry)`: the launcher's environment prepends its own programs), None for any other word,
    an expansion inside it, assignments (a PATH of the command's own), a word a function or alias of the line
    makes something else (`redefined`: `which() { …; }`), or a name that is a path (`which ./x`) or a hidden
    file's (`.env`)."""
    if text.startswith("$(") and text.endswith(")"):
        inner = text[2:-1]
    elif len(text) > 2 and text[0] == text[-1] == "`":
        inner = text[1:-1]
    else:
        return None
    if "$" in inner or "`" in inner:
        return None
    try:
        words = shlex.split(inner)
    except ValueError:
        return None
    if any(word in names for word in words for names in redefined):
        return None
    env: dict[str, str] = {}
    argv, _wrappers = _peel(words, env)
    options = _LOOKUPS.get(_basename(argv[0])) if argv and not env else None
    if options is None or len(argv) != 2 + bool(options) or (options and argv[1] not in options):
        return None
    name = argv[-1]
    return name if _COMMAND_NAME.fullmatch(name) else None


def placed_output(
    text: str,
    cwd: _Cwd,
    place: Callable[[str, _Cwd], dict[str, Any]],
    view: CommandView,
    redefined: tuple[Mapping[str, Any], ...],
) -> dict[str, Any]:
    """`text` placed (`place`): a leading `$(pwd)` put as the directory the command runs in, where hookd follows it
    and no function or alias of the line (`redefined`) makes `pwd` something else; a lookup's operand marked with
    the name it finds, unless the line or the command sets the search path itself (`PATH=~/.ssh:$PATH`: anything
    could be found there)."""
    if "pwd" in text and cwd.known and not any("pwd" in names for names in redefined):
        below = below_directory(text, cwd.path)
        if below is not None:
            return place(below, cwd)
    placed = place(text, cwd)
    if not text.endswith((")", "`")) or any("PATH" in scope for scope in (view.env, view.variables, view.built)):
        return placed
    name = looked_up(text, redefined)
    return {**placed, "installed": name} if name else placed
