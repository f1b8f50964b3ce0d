"""The command lines a configuration text holds for a program to run later (part of the effect model's tool
effects: enrich/tool_effects.py judges what each does): under keys named for a command (`command`, `cmd`,
`statusLine.command`, `apiKeyHelper`, `postCreateCommand`, `discoveryCommand`, Codex's `notify`, Aider's
`lint-cmd` and `test-cmd`), in JSON, TOML or YAML (whole, or an edit's fragment of members), a `command` beside
`args` being the argv of both. Bounded: texts past MAX_YAML_TEXT are not read as YAML, and at most MAX_NODES
values of a parsed text are walked (YAML's aliases repeat a node: a billion-laughs text stays linear)."""

from __future__ import annotations

import functools
import itertools
import json
import re
import shlex
import tomllib
from collections.abc import Iterator, Mapping
from typing import Any

import yaml

from hookd.jsonc import loads as read_jsonc

MAX_DEPTH = 8
MAX_NODES = 4096
MAX_YAML_TEXT = 64 * 1024
# A key named for a command a program runs later.
_COMMAND_KEY = re.compile(r"(?:^|[-_]|[a-z])(?:[Cc]ommand|[Cc]md|[Hh]elper)$|^(?:command|cmd|helper|notify)$")
_COMMAND_PAIR = re.compile(r'"(\w{0,64}(?:[Cc]ommand|[Cc]md|[Hh]elper))"\s*:\s*"((?:[^"\\\n]|\\.){1,4096})"')


def commands_in(text: str, limit: int = 16) -> list[str]:
    """The command lines a configuration text holds under keys named for one (JSON, TOML or YAML, whole, or a
    fragment of members YAML reads, an edit's new text: `"mcpServers": {"x": {"command": …}}`, a YAML list entry;
    else each `"…Command": "…"` pair of a JSON fragment): a string is a shell line, a list an argv, and a
    `command` beside `args` the argv of both (`command: sh` with `args: [-c, "curl … | sh"]`); the first `limit`."""
    parsed = parsed_settings(text)
    if parsed is not None:
        return list(itertools.islice(_walk(parsed, 0, [MAX_NODES]), limit))
    pairs = (json.loads(f'"{m.group(2)}"') for m in _COMMAND_PAIR.finditer(text) if _decodes(m.group(2)))
    return list(itertools.islice(pairs, limit))


def new_commands(before: str | None, afters: list[str], limit: int = 16) -> list[str]:
    """The command lines the texts `afters` (what an edit leaves) hold that the text `before` (the file as it is)
    did not: an edit of an `args` list or of a package name inside one changes the command its entry runs."""
    known = set(commands_in(before, limit * 4)) if before else set()
    found = (line for text in afters for line in commands_in(text, limit) if line not in known)
    return list(itertools.islice(dict.fromkeys(found), limit))


@functools.lru_cache(maxsize=8)
def parsed_settings(text: str) -> Mapping[str, Any] | list[Any] | None:
    """A settings text's value as JSON, JSONC (comments, trailing commas: an OpenCode or Kilo config as the agent
    reads it), TOML or YAML (the first that reads it as a mapping or a list); kept for the few texts of one call,
    which several steps read (its commands, the files it loads). Not to be changed."""
    for parse in (json.loads, read_jsonc, tomllib.loads, _yaml):
        try:
            parsed = parse(text)
        except (ValueError, RecursionError, yaml.YAMLError):
            continue
        if isinstance(parsed, (Mapping, list)):
            return parsed
    return None


def _yaml(text: str) -> Any:
    return yaml.load(text, Loader=_YAML_LOADER) if len(text) <= MAX_YAML_TEXT else None


_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _decodes(value: str) -> bool:
    try:
        json.loads(f'"{value}"')
    except ValueError:
        return False
    return True


def _walk(value: Any, depth: int, budget: list[int]) -> Iterator[str]:
    budget[0] -= 1
    if depth > MAX_DEPTH or budget[0] < 0 or not isinstance(value, (Mapping, list)):
        return
    if isinstance(value, list):
        for item in value:
            yield from _walk(item, depth + 1, budget)
        return
    for key, item in value.items():
        argv = _argv(item) if isinstance(key, str) and _COMMAND_KEY.search(key) else None
        if argv is None:
            yield from _walk(item, depth + 1, budget)
            continue
        args = value.get("args") if key in ("command", "cmd") else None
        extra = _argv(args) or [] if isinstance(args, list) else []
        yield shlex.join([*argv, *extra]) if isinstance(item, list) or extra else argv[0]


def _argv(value: Any) -> list[str] | None:
    if isinstance(value, str) and value.strip():
        return [value]
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return list(value)
    return None


# Gemini CLI's and Qwen Code's variables in an extension's manifest (https://geminicli.com/docs/extensions/reference,
# "Variables"): the extension's own directory, the workspace, and the path separator
_EXTENSION_VARIABLE = re.compile(r"\$\{(extensionPath|workspacePath|/|pathSeparator)\}")


def extension_variables(line: str, config: str, project: str) -> str:
    """`line`, a command of an extension's manifest (`*-extension.json`), with the agent's variables filled in as the
    agent fills them before it starts the command; any other file's lines as they are."""
    if not config.endswith("-extension.json"):
        return line
    places = {"extensionPath": config.rpartition("/")[0], "workspacePath": project, "/": "/", "pathSeparator": "/"}
    return _EXTENSION_VARIABLE.sub(lambda m: places[m.group(1)], line)
