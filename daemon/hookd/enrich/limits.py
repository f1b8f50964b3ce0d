"""Input caps: what a shell command or a file tool call may cost hookd, checked in linear time around
the shell parser.

A prompt-injected agent can send a command whose parse or evaluation would hold the event loop for
seconds (a `rm -rf` with 20,000 arguments took 3.8 s of regorus alone, every other session waiting).
Commands over a cap are not parsed or evaluated: they get a verdict by rule (`hookd/input-limit`, the
event's fail mode: a deny where it fails closed) whose reason says which cap and what to do. Before
parsing: the command's bytes, its whitespace-separated tokens and its substitution openers (`$(`, `` ` ``,
`<(`, `>(`: a bound on how deep it nests); after parsing, before evaluation: the words of every command
found, inner scripts (`bash -c`) included. A file tool call may name at most `max_tool_paths` paths
(each is resolved, and checked by every path rule: 5,000 cost 1.3 s). The caps are `[limits]`
(docs/reliability.md gives what an input at each cap costs). Owned by the hardening of issue 13; the
parser itself is enrich/shell.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from hookd.config import LimitsConfig
from hookd.enrich.tool_args import inferred, named_paths
from hookd.types import JSON, NormalisedEvent, ToolKind

_OPENERS = ("$(", "`", "<(", ">(")


def _command(event: NormalisedEvent) -> str | None:
    tool = event.tool
    if tool is None or tool.kind is not ToolKind.SHELL:
        return None
    command = tool.input.get("command")
    return command if isinstance(command, str) else None


def _over(what: str, found: int, cap: int) -> str:
    return f"the shell command has {found} {what}, over hookd's limit of {cap}: split it into smaller commands"


def _tool_paths(event: NormalisedEvent) -> int:
    """How many paths the event's file tool names (a list argument counts each element)."""
    tool = event.tool
    if tool is None or tool.spec is None:
        return 0
    guess = inferred(tool)  # an MCP or other tool's path arguments, read from its input (enrich/tool_args.py)
    named = named_paths(guess.input, guess.spec) + len(guess.unknown) if guess else named_paths(tool.input, tool.spec)
    patches = (tool.input.get(arg) for arg in tool.spec.patches)
    return named + sum(_patch_headers(text) for text in patches if isinstance(text, str))


def _patch_headers(text: str) -> int:
    """An upper bound of the files a patch names: its header lines (enrich/patches.py reads them)."""
    return sum(text.count(mark) for mark in ("\n*** ", "\n+++ ", "\ndiff --git ", "\nrename to ", "\ncopy to "))


def before_parse(event: NormalisedEvent, limits: LimitsConfig) -> str | None:
    """Why the event's shell command is too large to parse, or its file tool names too many paths to
    resolve and check, or None."""
    paths = _tool_paths(event)
    if paths > limits.max_tool_paths:
        cap = limits.max_tool_paths
        return f"the tool call names {paths} paths, over hookd's limit of {cap}: split it into smaller calls"
    command = _command(event)
    if command is None:
        return None
    if len(command) > limits.max_command_bytes:  # characters: a first cut before encoding anything
        return _over("characters", len(command), limits.max_command_bytes)
    size = len(command.encode("utf-8", "surrogatepass"))
    if size > limits.max_command_bytes:
        return _over("bytes", size, limits.max_command_bytes)
    tokens = len(command.split())
    if tokens > limits.max_command_tokens:
        return _over("tokens", tokens, limits.max_command_tokens)
    openers = sum(command.count(opener) for opener in _OPENERS)
    if openers > limits.max_command_substitutions:
        return _over("substitutions", openers, limits.max_command_substitutions)
    return None


def after_parse(event: NormalisedEvent, limits: LimitsConfig) -> str | None:
    """Why the parsed command (`facts["shell"]`) has too many words (redirections included) to evaluate, or None."""
    shell = event.facts.get("shell")
    if not isinstance(shell, Mapping):
        return None
    commands = shell.get("commands")
    if not isinstance(commands, Sequence):
        return None
    words = sum(_words(command) for command in commands)
    if words > limits.max_command_words:
        return _over("words in its commands", words, limits.max_command_words)
    return None


def _words(command: JSON) -> int:
    """Its argv words and its redirections: each names a path the policies judge as they judge an operand (`echo x
    >/srv/f0 … >/srv/f2999`, 3,000 writes of one two-word command, cost 260 ms)."""
    if not isinstance(command, Mapping):
        return 0
    return sum(len(part) for part in (command.get("argv"), command.get("redirects")) if isinstance(part, Sequence))


def heavy(event: NormalisedEvent, limits: LimitsConfig) -> str | None:
    """Why deciding `event` could hold the deciding process for milliseconds (policies look at each word
    and path: 40-150 us each in regorus), so it goes to the lane process ([daemon] lane); or None. A
    linear-time estimate from the raw input, made before any parsing: the payload's size is checked by
    the caller before the dialect reads it."""
    paths = _tool_paths(event)
    if paths > limits.lane_tool_paths:
        return "tool-paths"
    command = _command(event)
    if command is None:
        return None
    if len(command.split(None, limits.lane_command_tokens)) > limits.lane_command_tokens:
        return "command-tokens"
    if sum(command.count(opener) for opener in _OPENERS) > limits.lane_command_substitutions:
        return "command-substitutions"  # each nests a parse and a command the policies look at
    return None
