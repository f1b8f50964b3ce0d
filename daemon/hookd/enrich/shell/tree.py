"""The parsed tree of a script: `_Block`, `_Pipe`, `_Simple`, `_Redir` (shared through the parse
cache, so never mutated once built), and the exceptions the parsers raise. Owned by the policies engineer."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeAlias

# --------------------------------------------------------------------------------------------------
# The parsed tree (shared through the cache: never mutated once built)


@dataclass(slots=True)
class _Redir:
    op: str
    target: str | None
    is_path: bool  # false for fd duplication (`2>&1`), here-documents and here-strings
    body: str | None = None  # a here-document's text (set by the parser before the tree is shared)


@dataclass(slots=True)
class _Simple:
    assigns: list[tuple[str, str]]
    words: list[str]
    redirects: list[_Redir]
    subs: list[_Block]  # the substitutions inside its words and redirect targets, in order


@dataclass(slots=True)
class _Pipe:
    elements: list[_Item]  # two or more


@dataclass(slots=True)
class _Block:
    items: list[_Item]
    subshell: bool = False  # `( … )`, a function body: a `cd` inside does not leak out
    subst: bool = False  # `$(…)`, backticks, `<(…)`: one level deeper, its own pipelines
    redirects: list[_Redir] = field(default_factory=list)  # of a compound: apply to all inside
    function: str | None = None  # a function's body: its name (the builder runs it where it is called)
    binds: tuple[str, tuple[str, ...]] | None = None  # a `for` loop's body: its variable, the words it goes through


_Item: TypeAlias = _Simple | _Pipe | _Block

_EMPTY = _Block([])


class _Decline(Exception):
    """The fast lexer met something that only the full parser handles."""


class _Unsupported(Exception):
    """A bashlex node this module does not know; the caller falls back."""


class _TooDeep(Exception):
    """Substitutions nested beyond reason: every level gives up at once (retrying each level with
    bashlex would take seconds), and the builder falls back for the whole script."""
