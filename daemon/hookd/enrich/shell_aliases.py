"""The aliases a shell's startup file defines (bash's and zsh's `alias NAME=VALUE`, fish's `alias NAME VALUE`): each
value is a command line the shell runs later, when the user types NAME (bash(1), ALIASES). It is judged as any command
line left for later is (later_code.later_lines): one that runs what it downloads or decodes, or deletes in or sends
from the home (`alias sudo='curl … | sh; sudo'`, `alias ls='rm -rf ~'`), is code run later; an alias whose value is
plain (`alias gs='git status'`, `alias ll='ls -la'`) runs only what the user types, a setting as a variable's
assignment is, unless it takes the name of a command hookd knows (the catalogue's programs, the shell's builtins) for
another one: `alias sudo='x'` makes the user's next `sudo` run `x` (an alias of the command itself with options,
`alias ls='ls -F'`, `alias sudo='sudo '`, stays plain). A line that does more than define aliases, or whose value is
expanded as it is read (`"$(…)"`, backquotes), is left to be judged whole."""

from __future__ import annotations

import re
import shlex

from hookd.dialects.launch import agents_started, unguarded_start
from hookd.dialects.registry import AGENTS
from hookd.enrich.effects.catalogue import catalogue
from hookd.enrich.later_code import later_lines

_NAME = re.compile(r"[A-Za-z0-9_.+:@%^,-][A-Za-z0-9_.+:@%^,!-]*")  # bash's alias names: no `/`, `$`, quotes, blanks
_EXPANDED = ("$(", "`", "<(", ">(")  # what the shell runs while it reads the definition, whatever the alias
MAX_ALIAS_LINE = 4096
_OPERATORS = frozenset("();<>|&")  # shlex's punctuation_chars: a control or redirection operator outside quotes
# bash's builtins (https://www.gnu.org/software/bash/manual/html_node/Shell-Builtin-Commands.html): an alias of one
# of these names changes what that typed builtin does
_BUILTINS = frozenset(
    {".", ":", "alias", "bg", "bind", "break", "builtin", "caller", "cd", "command", "compgen", "complete", "continue",
     "declare", "dirs", "disown", "echo", "enable", "eval", "exec", "exit", "export", "false", "fc", "fg", "getopts",
     "hash", "help", "history", "jobs", "kill", "let", "local", "logout", "mapfile", "popd", "printf", "pushd", "pwd",
     "read", "readarray", "readonly", "return", "set", "shift", "shopt", "source", "suspend", "test", "times", "trap",
     "true", "type", "typeset", "ulimit", "umask", "unalias", "unset", "wait"}
)  # fmt: skip


def unaliased(text: str, home: str, project: str) -> str:
    """`text` with each line that only defines plain aliases blanked: the rest is judged as it is."""
    return "\n".join("" if _plain_aliases(line, home, project) else line for line in text.split("\n"))


def _plain_aliases(line: str, home: str, project: str) -> bool:
    pairs = _alias_pairs(line.strip())
    values = [value for _, value in pairs]
    if any(_unguarded(value, home, project) for value in values):
        return False
    return bool(pairs) and not any(_shadows(n, v) for n, v in pairs) and later_lines(values, home, project) is None


def _unguarded(value: str, home: str, project: str) -> bool:
    """The alias starts an agent with options that switch hookd's hooks off (`alias claude='claude --danger…'`):
    the user's next start of it is unguarded (dialects.launch)."""
    words = value.split()
    started = agents_started(words[0].rsplit("/", 1)[-1], words, AGENTS) if words else []
    return any(unguarded_start(spec, words[at + 1 :], {}, {"HOME": home}, project) for spec, at in started)


def _shadows(name: str, value: str) -> bool:
    """The alias takes a known command's name for another command (its value's first word is not that name)."""
    known = name in _BUILTINS or catalogue().get(name) is not None
    return known and value.split(maxsplit=1)[0] != name


def _alias_pairs(line: str) -> list[tuple[str, str]]:
    """The (name, value) pairs a line of alias definitions gives (bash's `alias a='x' b=y`, fish's `alias a 'x'`),
    or []."""
    if not line.startswith("alias ") or len(line) > MAX_ALIAS_LINE or any(m in line for m in _EXPANDED):
        return []
    try:
        lexer = shlex.shlex(line[len("alias ") :], posix=True, punctuation_chars=True)
        lexer.whitespace_split, lexer.commenters = True, "#"
        tokens = list(lexer)
    except ValueError:
        return []
    if any(t and set(t) <= _OPERATORS for t in tokens):  # `alias ll=ls; export LD_PRELOAD=…`: more than aliases
        return []
    words = [w for w in tokens if not w.startswith("-")]
    if len(words) == 2 and "=" not in words[0]:  # fish: `alias NAME VALUE`
        words = [f"{words[0]}={words[1]}"]
    pairs = [w.partition("=") for w in words]
    if not pairs or not all(eq and _NAME.fullmatch(name) and value.strip() for name, eq, value in pairs):
        return []
    return [(name, value) for name, _, value in pairs]
