"""The command line a tool that wraps one program's subcommands amounts to: an MCP git server's `git_reset`,
`git_push`, `git_clean`, `git_diff` (mcp-server-git, cyanheads' git-mcp-server), a package manager server's
`install` (npm-mcp). Part of what an MCP tool runs (tool_args.command_lines), judged by the shell's analysis of the
line as the same command typed into the agent's shell is.

The tool's name says the program (a word of it naming git, or a package manager hookd knows packages of: the
catalogue's `url_packages`) and the subcommand (the next word of the name, which for a package manager must be one
of its install words). Its arguments are the subcommand's options and operands as such a server builds its argv
from them: a boolean that is true is the long option of its name (`force` → `--force`, `saveExact` →
`--save-exact`); a string that is one of the subcommand's long options is that option (`mode: "hard"` →
`--hard`); an argument naming the repository or directory is where the line runs (`cd DIR &&`); any other string
without blanks, and each string of a list, is an operand, in the order given (a message with blanks is none). For
git the subcommand's long options are git.json's `subcommand_long_options`: a boolean option it does not list
(`directories`, spelled `-d` by git) is left out, so the line says no more than git would be told."""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from typing import Any

from hookd.enrich.effects.catalogue import catalogue

_WORD = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")
# Words of an argument's name that make it the repository or directory the subcommand runs in
_PLACE_WORDS = frozenset({"path", "repo", "repository", "cwd", "dir", "directory", "workdir", "project", "root"})
MAX_NAME = 200
MAX_OPERANDS = 64


def _words(name: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(name[:MAX_NAME])]


def _program(said: list[str]) -> tuple[str, str, frozenset[str] | None] | None:
    """The program, subcommand and (for git) that subcommand's long options a tool's name says, or None."""
    for at, word in enumerate(said[:-1]):
        sub = next((w for w in said[at + 1 :] if w != word), "")
        if word == "git" and sub:
            options = catalogue().git["subcommand_long_options"].get(sub, [])
            return word, sub, frozenset(options)
        program = catalogue().get(word)
        if program is not None and sub in {words[0] for words in program.url_packages}:
            return word, sub, None
    return None


def _kebab(name: str) -> str:
    return "-".join(_words(name))


def _option(key: str, said: tuple[str, str], options: frozenset[str] | None) -> str:
    """The long option a true boolean argument sets: its name (`force_with_lease`), or its name without the words
    the tool's name already says (`forcePush` of `git_push` is `--force`); for git only one the subcommand takes."""
    whole = _kebab(key)
    bare = "-".join(w for w in _words(key) if w not in said)
    if options is None:
        return whole
    return whole if whole in options else bare if bare in options else ""


def cli_line(tool: str, tool_input: Mapping[str, Any]) -> str | None:
    """The shell line the tool amounts to (the module doc), or None: a tool whose name says no such program."""
    said = _program(_words(tool))
    if said is None:
        return None
    program, sub, options = said
    flags: list[str] = []
    operands: list[str] = []
    where = ""
    for key, value in tool_input.items():
        if isinstance(value, str) and set(_words(key)) & _PLACE_WORDS:
            where = where or value
        elif value is True and (option := _option(key, (program, sub), options)):
            flags.append(f"--{option}")
        elif isinstance(value, str) and options is not None and value.strip().lower() in options:
            flags.append(f"--{value.strip().lower()}")
        elif isinstance(value, str) and value and not any(c.isspace() for c in value):
            operands.append(value)
        elif isinstance(value, list):
            operands += [v for v in value if isinstance(v, str) and v and not any(c.isspace() for c in v)]
    line = shlex.join([program, sub, *flags, *operands[:MAX_OPERANDS]])
    return f"cd {shlex.quote(where)} && {line}" if where else line
