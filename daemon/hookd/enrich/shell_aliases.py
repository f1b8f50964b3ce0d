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

from hookd.enrich.effects.later_lines import BASH_BUILTINS, names_a_shadowed_program, one_plain_command
from hookd.enrich.later_code import later_lines

_NAME = re.compile(r"[A-Za-z0-9_.+:@%^,-][A-Za-z0-9_.+:@%^,!-]*")  # bash's alias names: no `/`, `$`, quotes, blanks
_EXPANDED = ("$(", "`", "<(", ">(")  # what the shell runs while it reads the definition, whatever the alias
MAX_ALIAS_LINE = 4096
_OPERATORS = frozenset("();<>|&")  # shlex's punctuation_chars: a control or redirection operator outside quotes


def unaliased(text: str, home: str, project: str) -> str:
    """`text` with each line that only defines plain aliases blanked: the rest is judged as it is."""
    return "\n".join("" if _plain_aliases(line, home, project) else line for line in text.split("\n"))


def _plain_aliases(line: str, home: str, project: str) -> bool:
    """Only plain aliases; one of a program under its own name with more words (`alias codex='codex --disable
    hooks'`) is kept for the settings reader, which records it for hookd.selfprotect_aliases to judge the start."""
    pairs = _alias_pairs(line.strip())
    if any(not one_plain_command(v) or (len(v.split()) > 1 and v.split()[0].rsplit("/", 1)[-1] == n) for n, v in pairs):
        return False
    values = [value for _, value in pairs]
    return bool(pairs) and not any(_shadows(n, v) for n, v in pairs) and later_lines(values, home, project) is None


def _shadows(name: str, value: str) -> bool:
    """The alias takes a known command's name for another command (its value's first word is not that name)."""
    known = name in BASH_BUILTINS or names_a_shadowed_program(name)  # (later_lines: the same takeover)
    return known and value.split(maxsplit=1)[0] != name


def _alias_pairs(line: str) -> list[tuple[str, str]]:
    """The (name, value) pairs a line of alias definitions gives (bash's `alias a='x' b=y`, fish's `alias a 'x'`,
    fish's abbreviation `abbr -a a x y`), or []."""
    definer = line.partition(" ")[0]
    if definer not in ("alias", "abbr") or len(line) > MAX_ALIAS_LINE or any(m in line for m in _EXPANDED):
        return []
    tokens = _tokens(line[len(definer) + 1 :])
    if tokens is None or any(t and set(t) <= _OPERATORS for t in tokens):  # `alias ll=ls; export …`: more
        return []
    if definer == "abbr":
        return _abbreviation(tokens)
    words = [w for w in tokens if not w.startswith("-")]
    if len(words) == 2 and "=" not in words[0]:  # fish: `alias NAME VALUE`
        words = [f"{words[0]}={words[1]}"]
    pairs = [w.partition("=") for w in words]
    if not pairs or not all(eq and _NAME.fullmatch(name) and value.strip() for name, eq, value in pairs):
        return []
    return [(name, value) for name, _, value in pairs]


def _tokens(text: str) -> list[str] | None:
    try:
        lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
        lexer.whitespace_split, lexer.commenters = True, "#"
        return list(lexer)
    except ValueError:
        return None


# fish's abbr(1) options (https://fishshell.com/docs/current/cmds/abbr.html): those that take a value, and those that
# make the expansion something run rather than typed (`--function`: a function's output)
_ABBR_VALUED = frozenset({"--position", "-p", "--regex", "-r", "--command", "-c"})
_ABBR_RUNS = frozenset({"--function", "-f"})


def _abbreviation(tokens: list[str]) -> list[tuple[str, str]]:
    """fish's `abbr [-a] [OPTIONS] NAME EXPANSION…`: NAME typed is replaced by EXPANSION on the command line the
    user then runs, as an alias's value is (an `--function` abbreviation, or a query or erase, is none)."""
    words, k = [], 0
    while k < len(tokens):
        word = tokens[k]
        if word.partition("=")[0] in _ABBR_RUNS or word in ("-e", "--erase", "-l", "--list", "-s", "--show"):
            return []
        if word.startswith("-"):
            k += 2 if word in _ABBR_VALUED else 1
            continue
        words.append(word)
        k += 1
    if len(words) < 2 or not _NAME.fullmatch(words[0]):
        return []
    return [(words[0], " ".join(words[1:]))]
