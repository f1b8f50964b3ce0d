"""Code handed to a program the catalogue does not know (docs/policies.md, "What cannot be known is asked").

hookd cannot know what an unknown program does with its arguments, so it asks when one of them IS a command
line, by mechanism rather than by the program's name: the value of a `-c`/`-e`-style option (the spelling
shells, interpreters and task runners use for "run this": `-c`, `-e`, `--command`, `--exec`, `--eval`, …),
or an operand, that reads as a shell command line of a program hookd knows: its first word names a
catalogued program (or a path to one), and it holds shell syntax (`|`, `;`, `&&`, `$(…)`, a redirect) or an
argument that is an option or a path. A sentence (`"fix the build"`, `"make it faster"`), a SQL query, a
test selector (`-k "a or b"`), an environment name (`tox -e py311`) are not. The text is also walked as a
script, so what it would do is judged by every rule (`tool "rm -rf ~"` is denied as `rm -rf ~`).

An unknown program may also run the words that follow it as a command (`op run -- rm -rf ~`, `direnv exec .
rm -rf ~`, `toolbox run rm -rf ~`): the words after `--`, or from the first word that names a program hookd
knows and reads as a command line, are walked as that command (judged as itself, not asked)."""

from __future__ import annotations

import re
import shlex

from hookd.enrich.effects.catalogue import catalogue
from hookd.enrich.effects.words import _INERT, _NOTHING, SHELLS

# What the shell builder walks itself (hookd.enrich.shell: eval, `command`/`builtin`/`exec` prefixes, GNU
# parallel's ::: inputs), and programs whose words are never a command line (_NOTHING, _INERT's tools).
WALKED_BY_THE_SHELL = _INERT | {"parallel"}
CODE_OPTIONS = frozenset(
    {
        "-c",
        "-e",
        "-eval",
        "--command",
        "--cmd",
        "--exec",
        "--execute",
        "--eval",
        "--run",
        "--shell-command",
        "--script-code",
        "-command",  # PowerShell's, in any case (pwsh -Command, -EncodedCommand): compared in lower case
        "-encodedcommand",
    }
)
_SYNTAX = re.compile(r"[|;&<>`]|\$\(")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_ARGUMENT = re.compile(r"^(?:-|/|~|\./|\.\./)")


def handed_commands(argv: list[str]) -> list[str]:
    """The words of an unknown program's argv that are command lines it is handed (see the module doc)."""
    found: list[str] = []
    i, n = 1, len(argv)
    while i < n:
        word = argv[i]
        option, eq, value = word.partition("=")
        if word.startswith("-") and eq and option in CODE_OPTIONS:
            candidate: str | None = value
        elif word in CODE_OPTIONS and i + 1 < n:
            candidate = argv[i + 1]
            i += 1
        elif not word.startswith("-") and (" " in word or "\t" in word or "\n" in word):
            candidate = word
        else:
            candidate = None
        if candidate is not None and is_command_line(candidate):
            found.append(candidate)
        elif candidate is not None:
            found.extend(literal_commands(candidate))
        i += 1
    return found


# A string literal of code in a language hookd does not know (`erl -eval 'os:cmd("rm -rf ~")'`), or a run of
# them that is a list argv (`System.cmd("rm", ["-rf", …])`, `(run-program "/bin/rm" (list "-rf" …))`)
# a quoted string, or a Lua long string on one line (`[[…]]`, `[==[…]==]`)
_STRING = re.compile(r""""((?:[^"\\\n]|\\.)*)"|'((?:[^'\\\n]|\\.)*)'|\[(=*)\[([^\[\]\n]{0,4096})\]\3\]""")
_ARGV_RUN = 8  # literals taken together as one argv
# a quote or backslash escaped inside a string literal is that character (C, JSON, Scala, Python, Ruby, a bazelrc's
# `--flag="sh -c \"…\""`): the command line the literal holds has it unescaped
_ESCAPED = re.compile(r"""\\(["'\\])""")
# A task of a build tool that runs the rest of its string as a shell command line: a Mix alias's `"cmd …"`
# (https://hexdocs.pm/mix/Mix.Tasks.Cmd.html); the literal `"cmd rm -rf ~"` holds the command line `rm -rf ~`
_COMMAND_TASKS = frozenset({"cmd"})


def literal_commands(code: str) -> list[str]:
    """The command lines in `code`'s string literals: one literal that reads as a command line, or consecutive
    literals that read as one argv, starting with a program hookd knows (see is_command_line)."""
    literals = [next(g for g in (m.group(1), m.group(2), m.group(4)) if g is not None) for m in _STRING.finditer(code)]
    literals = [_ESCAPED.sub(r"\1", w) if "\\" in w else w for w in literals]
    literals = [_task_command(w) for w in literals]
    found: list[str] = []
    for k, literal in enumerate(literals):
        if is_command_line(literal):
            found.append(literal)
            continue
        run = literals[k : k + _ARGV_RUN]
        if len(run) > 1 and " " not in literal and is_command_line(" ".join(run[:2])):
            found.append(shlex.join(run))
    return found


def _task_command(literal: str) -> str:
    """A build tool's task that runs a shell command line (`cmd rm -rf ~`) as that command line, else the literal."""
    task, _, rest = literal.partition(" ")
    return rest if task in _COMMAND_TASKS and is_command_line(rest) else literal


def is_command_line(text: str) -> bool:
    """`text` reads as a shell command line of a program hookd knows (see the module doc); a shell builtin that
    runs the rest of its words (`exec`, `command`, `builtin`: `exec sh -c '…'`) is read through to the program
    it runs; a list of commands (`husky && node -e …`, `a; b`) when one of them does, whoever heads it."""
    parts = _LIST_PARTS.split(text, maxsplit=_MAX_LIST_PARTS)
    return _heads_command(text) or any(_heads_command(part) for part in parts[1:])


# The operators between a list's commands (`a && b`, `a || b`, `a ; b`): the shell needs no blank around them
# (`husky; curl … | sh`, `a&&b`: https://www.gnu.org/software/bash/manual/bash.html#Lists): none is matched (a run
# of blanks before an operator would be tried from each of its blanks)
_LIST_PARTS = re.compile(r"&&|\|\||;")
_MAX_LIST_PARTS = 8


def _heads_command(text: str) -> bool:
    words = text.split()
    while words and (_ASSIGNMENT.match(words[0]) or words[0] in _RUNS_THE_REST):
        words = words[1:]
    if not words:
        return False
    if not names_a_program(words[0]):
        return False
    return bool(_SYNTAX.search(text)) or any(_ARGUMENT.match(w) for w in words[1:])


def names_a_program(word: str) -> bool:
    """`word` at a command's head runs a program hookd knows: a path, a shell or a program of the catalogue (the
    first test of a command line, also asked of a written text's words by hookd.enrich.plain_write)."""
    name = word.rsplit("/", 1)[-1]
    return "/" in word or name in SHELLS or (name not in _NOTHING and catalogue().get(name) is not None)


_RUNS_THE_REST = frozenset({"exec", "command", "builtin"})


def launched_words(argv: list[str]) -> list[str]:
    """The words an unknown program may run as a command (see the module doc), [] when none."""
    if "--" in argv[1:]:
        k = argv.index("--", 1) + 1
        return argv[k:] if k < len(argv) and is_command_line(" ".join(argv[k:])) else []
    for k in range(1, len(argv) - 1):
        word = argv[k]
        if word.startswith("-") or " " in word:
            continue
        if "/" not in word and catalogue().get(word) is not None and is_command_line(" ".join(argv[k:])):
            return argv[k:]
    return []


# The command languages of editors, pagers and debuggers in which a line starting with `!` (vim and ex
# also `:!`, gdb also `shell `) runs the rest of the line in a shell: vim(1) ":!", less(1) "!", ed(1) "!",
# more(1) "!", gdb(1) "shell"; GTFOBins' `shell` function of each.
ESCAPING_LANGS = frozenset({"vim", "ex", "less", "more", "ed", "gdb", "man"})
# The address types of a relay's two ends that run a command on one end: socat(1)'s EXEC: and SYSTEM:, websocat's
# `exec:`, `cmd:` and `sh-c:` (https://github.com/vi/websocat/blob/master/doc.md, "Address types")
_COMMAND_ADDRESSES = frozenset({"EXEC", "SYSTEM", "CMD", "SH-C"})


def shell_escapes(lang: str, text: str) -> list[str]:
    """The shell command lines in `text`, code in an editor's or pager's command language."""
    if lang == "socat":  # an address `EXEC:cmd,opts` / `SYSTEM:cmd` runs cmd (socat(1), "ADDRESS TYPES")
        kind, _, rest = text.partition(":")
        return [rest.split(",", 1)[0]] if kind.upper() in _COMMAND_ADDRESSES and rest else []
    if lang not in ESCAPING_LANGS:
        return []
    found = []
    for line in text.replace("\\n", "\n").splitlines():
        command = line.strip().lstrip(":").strip()
        if command.startswith("!") and len(command) > 1:
            found.append(command[1:])
        elif lang == "gdb" and command.startswith("shell "):
            found.append(command[len("shell ") :])
    return found


def piped_commands(argv: list[str]) -> list[str]:
    """Output "files" that are commands: a word or option value starting with `|` is, for the programs that take
    one (strace -o '|CMD', ltrace, gdb's `set logging`, perl's two-argument open), a command the output is piped
    into; no file name starts so. The command lines among them (see is_command_line)."""
    found = []
    for word in argv[1:]:
        at = 0 if word.startswith("|") else word.find("=|") + 1
        if at >= 0 and word[at : at + 1] == "|":
            command = word[at + 1 :].strip()
            if is_command_line(command) or _SYNTAX.search(command):
                found.append(command)
    return found
