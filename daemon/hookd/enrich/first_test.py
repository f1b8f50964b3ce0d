"""A first test before the full analysis of a call (issue 26 item 7: a decision's cost).

A cold step costs its warm time plus some 2 µs for each distinct function it touches (docs/performance.md, cost36),
and the full analysis of a shell line or a file tool's call runs a first test of every mechanism hookd knows. For
the commonest shapes of call the answer of all of them is known from the call's shape alone, so a short route
makes the same facts with a handful of functions:

* a shell line (`plain_shell`) of plain words (no expansion, quote, redirect, glob, pipe or flow but `&&`; of
  tildes only a whole word `~` or `~/`, the home), each command a program the catalogue knows to only read, list
  or delete its operands, or git run plainly (gitops' `_PLAIN`), every operand a path in the project with no
  dot-named part, or the home itself (`rm -rf ~/`: the line spells it whole, so no file below it is named);
* a file tool's read of one such path (`plain_read_effects`: its `paths` are resolved as for any call, by
  hookd.enrich.paths, whose cost is the file system's lookups, not its mechanisms).

Anything else falls through to the full analysis (`first_tested`). That the facts are the same is not argued
here but tested: tests/unit/enrich/test_first_test.py compares them with the full analysis' for every payload of
the corpus and the golden file, and for mutations of them (`$`, quotes, redirects, `;`, globs, `~`, `..`, protected
names); a mechanism added to the full analysis whose cases fall in these shapes fails that test until the short
route answers as it does (or leaves the shape to the full analysis).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable
from typing import Any

from hookd.enrich.effects.catalogue import Program, catalogue
from hookd.enrich.effects.files import _path_in
from hookd.enrich.effects.gitops import _PLAIN as PLAIN_GIT
from hookd.enrich.effects.options import parse
from hookd.enrich.effects.untabled import runs_without_table
from hookd.enrich.effects.words import _ENVIRONMENT_PRINTERS, _NOTHING
from hookd.enrich.facts import add_arg_facts, arg_class
from hookd.enrich.holdings import mark_holdings
from hookd.enrich.paths import PathResolver, event_home
from hookd.enrich.shell.runners import operands
from hookd.enrich.shell.wrappers import _peel
from hookd.enrich.tool_args import inferred
from hookd.enrich.tool_effects import _aliased
from hookd.enrich.tool_entries import path_effect
from hookd.types import JSON, NormalisedEvent, ToolKind

Step = Callable[[NormalisedEvent], NormalisedEvent]
Answer = Callable[[NormalisedEvent], NormalisedEvent | None]

_WORD = r"[A-Za-z0-9_./,+@%:=-]+"
_HOME_WORDS = ("~", "~/")  # the home itself: the only tilde words a plain line holds (no `~user`, `~+`, `~/x`)
_COMMAND = rf"{_WORD}(?: (?:{_WORD}|~/?))*"
PLAIN_LINE = re.compile(rf"{_COMMAND}(?: && {_COMMAND}){{0,7}}")  # at most eight commands, single spaces
PLAIN_PROGRAM = re.compile(r"[a-z][a-z0-9_+-]*")  # a name looked up on PATH, not a file run by its path
PLAIN_PATH = re.compile(_WORD)
MAX_LINE = 400
MAX_WORDS = 24  # a command's words: far below the walk's budget (shell.state.walked_too_far)
# What a catalogue entry of a program that only reads, lists or deletes its operands may say beyond that; and
# `passes_input` (what it writes is what it reads: judged only where its output lands in a file, and a plain line
# redirects nothing)
_OPERAND_FIELDS = frozenset({"name", "source", "table", "operands", "recursive", "gtfobins", "passes_input"})
_PLAIN_OPS = frozenset({"read", "list", "delete"})


def first_tested(full: Step, *answers: Answer) -> Step:
    """`full`, with `answers` asked first: the first that answers (not None) gives the event's facts."""

    @functools.wraps(full)
    def step(event: NormalisedEvent) -> NormalisedEvent:
        for answer in answers:
            quick = answer(event)
            if quick is not None:
                return quick
        return full(event)

    return step


def plain_shell(event: NormalisedEvent) -> NormalisedEvent | None:
    """`shell` and `effects` of a plain line (the module docstring), as hookd.enrich.shell.enrich_shell makes
    them; None for any other event."""
    tool = event.tool
    if tool is None or tool.kind is not ToolKind.SHELL:
        return None
    command = tool.input.get("command")
    if not isinstance(command, str) or len(command) > MAX_LINE or not PLAIN_LINE.fullmatch(command):
        return None
    if tool.spec is not None and any(arg in tool.input for arg in tool.spec.cwd_args):
        return None
    home = event_home(event)
    resolver = PathResolver(home=home, project_dir=event.project_dir)
    cwd = resolver.absolute(event.cwd or event.project_dir, event.project_dir)
    if not resolver.contains(cwd):
        return None
    homes = _home_words(home)
    commands: list[dict[str, Any]] = []
    effects: list[dict[str, JSON]] = []
    for pipeline, text in enumerate(command.split(" && ")):
        words = text.split(" ")
        if (words[0] == "git" or not homes) and not set(_HOME_WORDS).isdisjoint(words):
            return None  # (git's operands are pathspecs; a home the shell spells otherwise: the full analysis')
        argv = [homes.get(word, word) for word in words]
        made = _plain_command(argv, pipeline, resolver, cwd, home, frozenset(homes.values()))
        if made is None:
            return None
        commands.append(made[0])
        effects.extend(made[1])
    shell = {"source": command, "parse_error": False, "error": None, "commands": commands}
    earlier = event.facts.get("effects")
    if isinstance(earlier, list):
        effects = [*earlier, *effects]
    facts = add_arg_facts(shell, home=event.facts.get("home"), project_dir=event.project_dir)
    return event.with_facts(shell=facts, effects=effects)


def _plain_command(
    argv: list[str], pipeline: int, resolver: PathResolver, cwd: str, home: str, homes: frozenset[str]
) -> tuple[dict[str, Any], list[dict[str, JSON]]] | None:
    """The command object and effects of one plain command, None when its program is not a plain one or an
    operand is neither a plain project path nor the home itself (`homes`, spelt by a tilde or whole)."""
    name = argv[0]
    if len(argv) > MAX_WORDS or not PLAIN_PROGRAM.fullmatch(name) or "-" in argv or "--" in argv:
        return None  # (`-` is the standard input, `--` ends the options: each read as the full analysis reads it)
    if name in _NOTHING or name in _ENVIRONMENT_PRINTERS or _peel(list(argv), {}) != (argv, []):
        return None
    placed = {word: _placed(word, resolver, cwd, homes) for word in operands(argv)}
    args = [placed[word] for word in operands(argv)]
    if any(arg is None for arg in args):
        return None
    command = {
        "argv": argv, "name": name, "env": {}, "sudo": False, "wrappers": [], "pipeline": pipeline, "position": 0,
        "depth": 0, "redirects": [], "args": args,
    }  # fmt: skip
    if name == "git":
        return (command, []) if len(argv) > 1 and argv[1] in PLAIN_GIT else None
    program = catalogue().get(name)
    if program is None or not _only_operands(program):
        return None
    parsed = parse(argv, program.table)
    if not parsed.operands or _guessed(argv, parsed.operands):
        return None  # (`ls` alone lists the directory it runs in; `cat` alone reads its input)
    recursive = any(option in program.recursive for option, _ in parsed.options)
    if program.operands == "delete" and not recursive:
        return None  # (one file deleted: what it loses, the ledger's `holds`, is the full analysis')
    ledger_home = home.rstrip("/") or "/"
    effects: list[dict[str, JSON]] = []
    for word in parsed.operands:
        at = placed.get(word)
        if at is None:
            return None
        path = str(at["path"])
        effects.append(
            {
                "op": program.operands, "path": path, "known": True, "recursive": recursive, "to": "",
                "program": name, "via": "shell",
                "class": arg_class(at, path, home=ledger_home, project=resolver.project.rstrip("/") or "/"),
                "raw": word,
            }
        )  # fmt: skip
    return command, effects


def plain_read_effects(event: NormalisedEvent) -> NormalisedEvent | None:
    """`effects` of a read of one plain project path as hookd.enrich.tool_effects.enrich_tool_effects makes them,
    from its `paths` (hookd.enrich.paths); None for any other event."""
    tool = event.tool
    if tool is None or tool.kind is not ToolKind.READ:  # (before any call: most events are not reads)
        return None
    entries, read = event.facts.get("paths"), _plain_read(event)
    if tool.spec is None or read is None or not isinstance(entries, list) or len(entries) != 1:
        return None
    entry = entries[0]
    if not isinstance(entry, dict) or entry.get("raw") != read[1] or entry.get("in_project") is not True:
        return None
    home = event.facts.get("home")
    home_dir = home.removesuffix("/") if isinstance(home, str) else None
    project = event.project_dir.removesuffix("/")
    out = [path_effect(entry, tool.spec, tool.name, home=home_dir, project=project)]
    out.extend(_aliased(out, home_dir, project))
    before = event.facts.get("effects")
    every: list[JSON] = [*(before if isinstance(before, list) else []), *out]
    return event.with_facts(effects=mark_holdings(every, home, project))


def _plain_read(event: NormalisedEvent) -> tuple[str, str] | None:
    """(argument, path as written) of a declared read tool's call naming one path, in the project's directory,
    with no other text (a URL, a pattern): None for any other call."""
    tool = event.tool
    if tool is None or tool.kind is not ToolKind.READ or tool.spec is None or event.cwd not in ("", event.project_dir):
        return None
    spec = tool.spec
    if spec.globs or spec.patches or spec.relative_to or spec.cwd_args or inferred(tool) is not None:
        return None
    named = [(arg, access) for arg, access in spec.paths if arg in tool.input]
    if len(named) != 1 or named[0][1] != "read":
        return None
    arg = named[0][0]
    raw = tool.input[arg]
    others = (value for key, value in tool.input.items() if key != arg)
    if not isinstance(raw, str) or not PLAIN_PATH.fullmatch(raw) or not all(isinstance(v, int) for v in others):
        return None
    if raw.startswith("/") or any(part.startswith(".") for part in raw.split("/")):
        return None
    return arg, raw


def _guessed(argv: list[str], operands: list[str]) -> bool:
    """A word of `argv` that no operand covers may name a file the program reads (effects.files' `unread_words`,
    whose own test of a word is asked here: a value such as `-n 5/x` is a guessed read the short route has not)."""
    return any(
        _path_in(word)[0] for word in argv[1:] if word not in operands and not (word[:1] == "-" and "=" not in word)
    )


def _home_words(home: str) -> dict[str, str]:
    """`~` and `~/` by the words the shell expands them to (one word each, whatever the home holds), when the home
    is an absolute path below `/` with no slash at its end; empty otherwise (`//`, `/root//`: the full analysis')."""
    if not home.startswith("/") or home.endswith("/"):
        return {}
    return {"~": home, "~/": home + "/"}


def _placed(word: str, resolver: PathResolver, cwd: str, homes: frozenset[str]) -> dict[str, Any] | None:
    """`word` placed as the shell analysis places an operand, None unless it is a plain path in the project or
    the home itself (`homes`: the words `~` and `~/` expand to)."""
    if word in homes:
        return resolver.resolve(word, cwd, tilde=False)
    if word.startswith("/") or word == "." or any(part.startswith(".") for part in word.split("/") if part):
        return None
    placed = resolver.resolve(word, cwd, tilde=False)
    if not placed["in_project"] or placed["path"] == resolver.project:
        return None
    return placed


def _only_operands(program: Program) -> bool:
    """The catalogue says nothing of `program` but that it reads, lists or deletes its operands (and which options
    make it recursive): no option's value, subcommand, code, network, privilege or other mechanism of its own, so
    that a field the catalogue gains later takes the program out of the short route until it is shown to keep it."""
    known = _ONLY_OPERANDS.get(program.name)
    if known is None:
        known = _ONLY_OPERANDS[program.name] = (
            program.operands in _PLAIN_OPS
            and not runs_without_table(program)
            and all(
                getattr(program, f.name) == _default(f)
                for f in dataclasses.fields(program)
                if f.name not in _OPERAND_FIELDS
            )
        )
    return known


_ONLY_OPERANDS: dict[str, bool] = {}  # by program name: the catalogue is read once


def _default(field: dataclasses.Field[Any]) -> object:
    if field.default is not dataclasses.MISSING:
        return field.default
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return dataclasses.MISSING
