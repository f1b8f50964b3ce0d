"""Command lines left to run later whose text the call shows, judged by what they do when they run (gaps38):

* an alias a shell's startup text defines (`alias gs='git status -sb'`) runs its value, followed by the words typed
  after its name, whenever the name is typed: its value is judged as that command line with unknown words after it
  (`"$@"`), so `alias cd='rm -rf'` is a delete of unknown operands (https://www.gnu.org/software/bash/manual/html_node/Aliases.html);
  an alias that gives a program's name to another program is a hijack, and the aliases are kept on the write
  (`aliases`) for hookd.selfprotect to judge each value as an agent's start (`alias codex='codex --disable hooks'`);
* a job at or batch reads from standard input (`echo 'notify-send hi' | at 09:55`) is the shell text it runs at its
  time (https://man7.org/linux/man-pages/man1/at.1p.html: "read commands from standard input").

A line runs quietly when the shell's analysis of it finds only reads and listings: nothing written, deleted, moved,
fetched, signalled, scheduled or run from a file, and no code built at run time. Such a line left for later does
nothing run now would not; anything else stays a deferred exec (asked whole).
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hookd.enrich.effects.catalogue import catalogue

if TYPE_CHECKING:
    from hookd.enrich.effects.catalogue import Program
    from hookd.enrich.effects.ledger import CommandView, Place
    from hookd.enrich.effects.options import Parsed

# `alias` at a line's start (bash, zsh, ksh); a definition is `NAME=VALUE` (https://pubs.opengroup.org/onlinepubs/9799919799/utilities/alias.html)
_ALIAS_LINE = re.compile(r"[ \t]*alias[ \t]+(.*)")
_ALIAS_NAME = re.compile(r"[^\s=/$`'\"\\;&|<>()]+")
_QUIET_OPS = frozenset({"read", "list"})
MAX_LINE = 4096  # a longer line left for later is not analysed (asked)
MAX_ALIASES = 16
_NOWHERE = "/nonexistent/later"  # the directory an alias runs in is not known: no project's files are assumed


# The shell's analysis of one line: hookd.enrich.shell imports this package, so it registers its analyse_shell here
# (through later_code.register_shell_analysis) rather than this module importing it
Analyse = Callable[..., tuple[dict[str, Any], list[dict[str, Any]]]]
_SHELL: list[Analyse] = []


def register_later_analysis(analyse: Analyse) -> None:
    _SHELL[:] = [analyse]


def alias_definitions(text: str) -> tuple[str, dict[str, str]] | None:
    """`text` without its alias lines, and the aliases those lines define (name: value); None when an alias line
    does more than define (a shell operator outside quotes, a substitution run as the startup file is read, a word
    that is no `NAME=VALUE`: `alias a=b; rm -rf ~`) or when there are too many to judge."""
    rest: list[str] = []
    defined: dict[str, str] = {}
    for line in text.split("\n"):
        found = _ALIAS_LINE.fullmatch(line)
        if found is None:
            rest.append(line)
            continue
        pairs = _definitions(found.group(1))
        if pairs is None:
            return None
        defined.update(pairs)
    if len(defined) > MAX_ALIASES:
        return None
    return "\n".join(rest), defined


def _definitions(words_text: str) -> list[tuple[str, str]] | None:
    if "`" in words_text or "$(" in words_text or len(words_text) > MAX_LINE:
        return None
    lexer = shlex.shlex(words_text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        words = list(lexer)
    except ValueError:
        return None
    pairs: list[tuple[str, str]] = []
    for word in words:
        name, equals, value = word.partition("=")
        if not equals or not _ALIAS_NAME.fullmatch(name):
            return None  # an operator (`;`, `|`), an option (`-p`) or a name looked up: not a plain definition
        pairs.append((name, value))
    return pairs


# bash's builtins (https://www.gnu.org/software/bash/manual/html_node/Shell-Builtin-Commands.html): an alias of one
# of these names changes what that typed builtin does
BASH_BUILTINS = frozenset(
    {".", ":", "alias", "bg", "bind", "break", "builtin", "caller", "cd", "command", "compgen", "complete", "continue",
     "declare", "dirs", "disown", "echo", "enable", "eval", "exec", "exit", "export", "false", "fc", "fg", "getopts",
     "hash", "help", "history", "jobs", "kill", "let", "local", "logout", "mapfile", "popd", "printf", "pushd", "pwd",
     "read", "readarray", "readonly", "return", "set", "shift", "shopt", "source", "suspend", "test", "times", "trap",
     "true", "type", "typeset", "ulimit", "umask", "unalias", "unset", "wait"}
)  # fmt: skip


# what an alias's value may not start with to be judged as the command it runs: a builtin that changes the shell
# the user types into (its variables, loaded builtins, command table, completions, key bindings, traps), or a
# wrapper that runs the next words as another command with its own options or environment (bash(1), SHELL BUILTIN
# COMMANDS; env(1), nice(1), nohup(1), timeout(1), setsid(1), stdbuf(1))
_CHANGES_THE_SHELL = frozenset(
    {"export", "declare", "typeset", "local", "readonly", "set", "shopt", "unset", "enable", "hash", "complete",
     "compgen", "bind", "trap", "source", ".", "eval", "alias", "unalias", "builtin", "command", "exec", "ulimit",
     "umask", "cd", "pushd", "popd", "env", "nice", "nohup", "time", "timeout", "setsid", "stdbuf"}
)  # fmt: skip
_ASSIGNMENT_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")


def operator_words(text: str) -> list[str] | None:
    """`text` split as the shell splits words, its operators (`;`, `|`, `<`, `(`) words of their own outside
    quotes; None when its quotes do not close."""
    try:
        lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        return list(lexer)
    except ValueError:
        return None


def one_plain_command(value: str) -> bool:
    """An alias's value is one command of a program with its words: no control operator or redirection outside
    quotes (`ls -la; export LD_PRELOAD=…`), no leading assignment (`CLAUDE_CODE_SIMPLE=1 claude`), no builtin that
    changes the shell or wrapper that hands on (`command claude --bare`, `enable -f x.so x`)."""
    words = operator_words(value)
    if words is None:
        return False
    if not words or any(w and set(w) <= set("();<>|&") for w in words):
        return False
    return not _ASSIGNMENT_WORD.match(words[0]) and words[0].rsplit("/", 1)[-1] not in _CHANGES_THE_SHELL


def alias_runs_quietly(name: str, value: str, home: str) -> bool:
    """The alias's value run with whatever words are typed after its name does only reads and listings, and the
    alias takes no program's name for another program (`alias sudo='x'` hands the next `sudo` and its password to
    x; `alias ls='ls --color=auto'` still runs ls)."""
    try:
        first = shlex.split(value)[:1]
    except ValueError:
        return False
    program = first[0].rsplit("/", 1)[-1] if first else ""
    if not one_plain_command(value) or (program != name and (name in BASH_BUILTINS or names_a_shadowed_program(name))):
        return False
    return runs_quietly(f'{value} "$@"', home, _NOWHERE)


def names_a_shadowed_program(name: str) -> bool:
    """A program the catalogue says takes privilege or a secret on its stdin (sudo, doas, docker login: the next
    call and what is typed into it would go to the alias's program), or one in the system's own program
    directories. Any other program the catalogue describes only for what it does (Ghostscript's `gs`, whose
    entry made every `alias gs='git status'` a takeover on every machine) is shadowed only where it is installed."""
    known = catalogue()
    program = known.get(name)
    if program is not None and (program.privilege or program.secret_stdin):
        return True
    return any(os.access(os.path.join(directory, name), os.X_OK) for directory in known.system_programs)


def runs_quietly(line: str, home: str, cwd: str) -> bool:
    """The shell's analysis of `line`, run in `cwd`, finds only reads and listings, none of code built or fetched
    at run time."""
    if len(line) > MAX_LINE:
        return False
    if not _SHELL:
        raise RuntimeError("later_lines needs the shell's analysis: import hookd.enrich.shell first")
    found: list[dict[str, Any]] = _SHELL[0](line, home=home, base_dir=cwd, project_dir=cwd)[1]
    return all(e["op"] in _QUIET_OPS and not e.get("flow") for e in found)


def scheduled_later(program: Program, parsed: Parsed, view: CommandView, home: str, place: Place) -> bool:
    """The program schedules commands to run later (not only listing or removing jobs: `crontab -l`), other than a
    job read from standard input whose text the line shows and which runs quietly in the directory it was queued
    from (at keeps it). A line naming an option keeps its job asked: one could name a job file read instead of the
    input (`at -f FILE`)."""
    if not program.schedules or any(w in program.schedule_inert for w in view.argv[1:]):
        return False
    text = view.stdin_text
    if program.schedules != "job" or parsed.options or view.stdin != "text" or text is None:
        return True
    return not runs_quietly(text, home, str(place(".")["path"]))
