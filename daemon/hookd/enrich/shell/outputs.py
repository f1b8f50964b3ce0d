"""What a command substitution prints when its words show it: the directory the command runs in (`$(pwd)`), the top
of the git work tree holding it (`$(git rev-parse --show-toplevel)`), and the installed program a search-path lookup
finds (`$(which NAME)`, `$(command -v NAME)`, `$(type -P NAME)`).

Bash's `pwd` prints the current directory (https://www.gnu.org/software/bash/manual/bash.html#index-pwd), as `$PWD`
does; `git rev-parse --show-toplevel` prints the top of the work tree (https://git-scm.com/docs/git-rev-parse), the
nearest directory upwards that holds a `.git` (https://git-scm.com/docs/gitrepository-layout). A word that starts with
either is placed below that directory, and `cd` to it is followed, where hookd follows the directory the command
runs in. So does the directory of the running script, `$(dirname "${BASH_SOURCE[0]}")` and
`$(cd "$(dirname …)" && pwd)`, in the line the agent's shell runs: that line is a command string (`bash -c`), not a
file, so `BASH_SOURCE` is empty there (bash(1), "BASH_SOURCE"), `dirname ""` prints `.`
(https://pubs.opengroup.org/onlinepubs/9799919799/utilities/dirname.html), and `realpath`/`readlink -f` of an empty
name print nothing. A script a file or stdin holds has a `BASH_SOURCE` of its own: hookd's nested walks set it
(`state.in_own_source`), so the idiom is unknown there.
A lookup prints the path of an executable named NAME in a directory of the search path
(https://pubs.opengroup.org/onlinepubs/9799919799/utilities/command.html, which(1), bash's `type -P`): a program
installed for the user or the system, or in the environment a launcher prepends (`poetry run`, `uv run`). Its
directory is not known, but what is there is a program, not a key or a store of credentials; the effect carries the
name (`installed`) so the rules can tell a read or a link of it from a write that would replace it."""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Mapping
from typing import Any

from hookd.enrich.effects.ledger import CommandView
from hookd.enrich.holdings import head
from hookd.enrich.shell.state import _Cwd
from hookd.enrich.shell.tree import ARRAY_MARK
from hookd.enrich.shell.words import LITERAL_MARK
from hookd.enrich.shell.wrappers import _basename, _peel

# `$(pwd)`, `$(pwd -L)`, `` `pwd -P` ``, at the start of a word: the rest of the word is below the directory
_PWD = re.compile(r"^(?:\$\(\s*pwd(?:\s+-[LP])?\s*\)|`\s*pwd(?:\s+-[LP])?\s*`)")
# the running script's name, empty in a command string; what `realpath`/`readlink -f` of it print; its directory
_SOURCE = r'"?\$(?:BASH_SOURCE|\{BASH_SOURCE(?:\[0\])?\})"?'
_RESOLVED = rf'(?:{_SOURCE}|"?\$\(\s*(?:realpath|readlink\s+-[ef])\s+(?:--\s+)?{_SOURCE}\s*\)"?)'
_DIRNAME = rf"\$\(\s*dirname\s+(?:--\s+)?{_RESOLVED}\s*\)"
_DIRECTORY = rf'(?:{_DIRNAME}|\$\(\s*(?:realpath|readlink\s+-[ef])\s+(?:--\s+)?"?{_DIRNAME}"?\s*\))'
_QUIET = r"(?:\s*(?:[12&]?>|>>)\s*/dev/null|\s*2>&1)*"
_SCRIPT_DIR = re.compile(
    rf'^(?:\$\(\s*cd\s+(?:-P\s+)?(?:--\s+)?"?{_DIRECTORY}"?{_QUIET}\s*&&\s*pwd(?:\s+-[LP])?\s*\)|{_DIRECTORY})'
)
_SCRIPT_DIR_NAMES = ("BASH_SOURCE", "cd", "dirname", "realpath", "readlink", "pwd")
_TOPLEVEL = re.compile(r"^(?:\$\(\s*git\s+rev-parse\s+--show-toplevel\s*\)|`\s*git\s+rev-parse\s+--show-toplevel\s*`)")
# what makes git find another repository or work tree than the one on disk (git(1), "ENVIRONMENT VARIABLES")
_GIT_PLACES = ("GIT_DIR", "GIT_WORK_TREE", "GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM")
# core.worktree moves the work tree (git-config(1)); an included file (`[include]`, `[includeIf …]`) may set it
# a line's leading blanks, not the newlines before it: `^\s*` tried each blank line to the end of the text again
# (a config of 64 KB of newlines, 34 s)
_WORKTREE_KEY = re.compile(r"^[^\S\n]*(?:worktree\s*=|\[\s*include)", re.IGNORECASE | re.MULTILINE)
# a command name a lookup finds on the search path: no slash (a slash names a path, not a lookup), no leading dot
_COMMAND_NAME = re.compile(r"[A-Za-z0-9_+][A-Za-z0-9_.+@-]*")
# the lookups that print a program's path and nothing else: (program, its options that do so)
_LOOKUPS: dict[str, frozenset[str]] = {
    "which": frozenset(),
    "command": frozenset({"-v"}),
    "type": frozenset({"-P", "-p"}),
}


def unmarked(value: str) -> str:
    """An assignment's value as the command's environment shows it (an array's or quoted text's mark off)."""
    return value.removeprefix(ARRAY_MARK).removeprefix(LITERAL_MARK)


def quoted_words(words: list[str]) -> frozenset[str]:
    """The words whose `$` and backticks are all quoted (LITERAL_MARK) and that the command is not also given
    unquoted: `echo '$T' $T` expands its second, and a word's text alone cannot tell the two apart."""
    marked = frozenset(w[len(LITERAL_MARK) :] for w in words if w.startswith(LITERAL_MARK))
    return marked - {w[2:] if w.startswith("\x00") else w for w in words if not w.startswith(LITERAL_MARK)}


def printed_directory(text: str, cwd: _Cwd, own: tuple[Mapping[str, Any], ...]) -> str | None:
    """`text` with a leading substitution that prints a directory put as that directory: `$(pwd)/bin/tool` is
    `CWD/bin/tool` (so is `$(dirname "${BASH_SOURCE[0]}")/bin/tool`), `$(git rev-parse --show-toplevel)/go.mod` the
    work tree's `go.mod`. None when it starts with
    neither, the rest is itself built when the shell runs, hookd does not follow where the command runs, or the line
    gives `pwd`, `git`, git's places or the idiom's words a meaning of its own (`own`: its functions, aliases,
    variables; a nested script's `BASH_SOURCE`)."""
    if not cwd.known or not text.startswith(("$(", "`")):
        return None
    match = _PWD.match(text) or _SCRIPT_DIR.match(text)
    if match is not None:
        words = ("pwd",) if match.re is _PWD else _SCRIPT_DIR_NAMES
        base = None if any(word in names for names in own for word in words) else cwd.path
    else:
        match = _TOPLEVEL.match(text)
        mine = any(n in names for names in own for n in ("git", *_GIT_PLACES))
        base = None if match is None or mine else work_tree(cwd.path)
    if match is None or base is None:
        return None
    rest = text[match.end() :]
    if "$" in rest or "`" in rest or (rest and not rest.startswith("/")):
        return None
    return base.rstrip("/") + rest if rest and base != "/" else rest or base


def work_tree(directory: str) -> str | None:
    """The top of the git work tree holding `directory`, as `git rev-parse --show-toplevel` finds it: the nearest
    directory upwards holding a `.git` (a repository, or a file naming one: a linked work tree, a submodule). None
    outside one, inside a repository's own directory, or where the repository may move its work tree (`core.worktree`,
    or a file its configuration includes)."""
    path = directory.rstrip("/") or "/"
    while True:
        dot = os.path.join(path, ".git")
        if os.path.isfile(dot):
            return path
        if _is_repository(dot):
            return None if _moves_work_tree(dot) else path
        if _is_repository(path):
            return None  # a repository's own directory (`.git`, a bare one): git prints no work tree there
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path = parent


def _is_repository(path: str) -> bool:
    return os.path.isfile(os.path.join(path, "HEAD")) and os.path.isdir(os.path.join(path, "objects"))


def _moves_work_tree(repository: str) -> bool:
    config = head(os.path.join(repository, "config"), 65536)  # a regular file only: a FIFO would stall the decision
    return config is None or _WORKTREE_KEY.search(config) is not None  # unreadable: what it says is not known


def cd_words(argv: list[str], cwd: _Cwd, own: tuple[Mapping[str, Any], ...]) -> list[str]:
    """`cd`'s words with a target that a substitution prints put as the directory it prints (`printed_directory`):
    `cd "$(git rev-parse --show-toplevel)"` is followed as `cd /path/of/the/work/tree` is."""
    return [argv[0], *(printed_directory(w, cwd, own) or w for w in argv[1:])]


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
    own: tuple[Mapping[str, Any], ...],
) -> dict[str, Any]:
    """`text` placed (`place`): a leading substitution that prints a directory put as it (`printed_directory`); a
    lookup's operand marked with the name it finds (`installed`), unless the line or the command sets the search
    path itself (`PATH=~/.ssh:$PATH`: anything could be found there) or gives a word of it a meaning of its own
    (`own`: the line's functions and aliases, `which() { …; }`)."""
    if not text.startswith(("$(", "`")):  # the plain word, as almost every word is: no cost beyond this test
        return place(text, cwd)
    below = printed_directory(text, cwd, (*own, view.env, view.variables))
    if below is not None:
        return place(below, cwd)
    placed = place(text, cwd)
    if not text.endswith((")", "`")) or any("PATH" in scope for scope in (view.env, view.variables, view.built)):
        return placed
    name = looked_up(text, own)
    return {**placed, "installed": name} if name else placed
