"""The parsed tree of a script: `_Block`, `_Pipe`, `_Simple`, `_Redir` (shared through the parse
cache, so never mutated once built), and the exceptions the parsers raise. Owned by the policies engineer."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TypeAlias

# An assignment's value that is an array (`a=(x y)`, its source kept): only the parser can tell it from a quoted
# scalar that looks like one (`c='(cd ~ && rm -rf D)'` is text, which `bash -c "$c"` runs as a subshell).
ARRAY_MARK = "\x00="
# A word whose every `$` and backtick is quoted (`'$x'`, `\$x`, `$'\x24x'`) starts with this mark: it is text,
# nothing in it is expanded, whatever the line set (`x=b; sh -c 'x=~/D; rm -rf "$x"'` runs `rm -rf ~/D`).
LITERAL_MARK = "\x00'"

# --------------------------------------------------------------------------------------------------
# The parsed tree (shared through the cache: never mutated once built)


@dataclass(slots=True)
class _Redir:
    op: str
    target: str | None
    is_path: bool  # false for fd duplication (`2>&1`), here-documents and here-strings
    body: str | None = None  # a here-document's text (set by the parser before the tree is shared)
    fd: int | None = None  # the descriptor a redirect's digits name (`exec 7<FILE`), when they name one


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
    forks: bool = False  # it starts processes without bound (sitter.py: `while :; do x & done`, `f(){ f & f; }`)
    maybe: bool = False  # it may not run: an `if` branch, a `case` arm, what follows `&&` or `||`
    repeats: bool = False  # it runs any number of times: a `while`/`until`/`select` loop (its condition and body)
    runs: bool | None = None  # a `maybe` and-or part that runs for certain, or never, while `assumes` keep their
    assumes: tuple[str, ...] = ()  # meaning (builtins no function or alias replaced: `known_run`, choices.py)


_Item: TypeAlias = _Simple | _Pipe | _Block

_EMPTY = _Block([])


class _Decline(Exception):
    """The fast lexer met something that only the full parser handles."""


class _Unsupported(Exception):
    """A bashlex node this module does not know; the caller falls back."""


class _TooDeep(Exception):
    """Substitutions nested beyond reason: every level gives up at once (retrying each level with
    bashlex would take seconds), and the builder falls back for the whole script."""


def with_assigns(body: _Block, assigns: list[tuple[str, str]]) -> _Block:
    """A function's body with the call's assignments before each of its commands (the bash manual, "Shell
    Functions" and "Environment": `X=v f` puts X in the environment of what f runs). A new tree: the parsed
    one is shared."""
    if not assigns:
        return body

    def each(item: _Item) -> _Item:
        if isinstance(item, _Simple):
            return replace(item, assigns=[*assigns, *item.assigns])
        if isinstance(item, _Pipe):
            return _Pipe([each(e) for e in item.elements])
        return replace(item, items=[each(i) for i in item.items]) if item.function is None else item

    return replace(body, items=[each(i) for i in body.items])


def and_or(parts: list[list[_Item]], operators: list[str]) -> list[_Item]:
    """The items of an and-or list (`a && b || c`: bash(1), "Lists", equal precedence, left to right), each part
    run only when what is to its left ends as its operator asks: a part after a leading run of `&&` runs only if
    every part before it did (one block after the first part: each sees what those before it set, and the tree stays
    flat however long the run); any other part may or may not run, unless what is to its left ends as `exits`
    reads it (`false || X` runs X, `true || X` never does): then the part is marked so, with the names whose
    meaning that relies on, which the walk checks where it knows the line's functions and aliases."""
    items = list(parts[0])
    known = exits(parts[0])
    block: _Block | None = None  # the open block a run of `&&` after a part that runs joins
    certain = True  # the part before runs
    for part, operator in zip(parts[1:], operators, strict=True):
        if known is not None:
            certain = known[0] == (operator == "&&")
            items.append(_Block(list(part), maybe=True, runs=certain, assumes=known[1]))
            after = exits(part) if certain else (known[0], ())
            names = tuple(dict.fromkeys(known[1] + after[1])) if after is not None else ()  # (a few: linear)
            known, block = (after[0], names) if after is not None else None, None
        elif operator == "&&" and block is not None:
            block.items.extend(part)
        else:
            items.append(new := _Block(list(part), maybe=True))
            block, certain = new if operator == "&&" and certain else None, False
    return items


# The exit status of the builtins that ignore their arguments; coreutils' false (absent, the shell's 127 fails too:
# `/bin/true` may be absent, NixOS, and is not read)
_EXITS = {"true": True, ":": True, "false": False, "/bin/false": False, "/usr/bin/false": False}


def exits(part: list[_Item]) -> tuple[bool, tuple[str, ...]] | None:
    """Whether an and-or part ends with success, known from its words alone (`false`, `command true`, `:`), and the
    command names that relies on not being functions or aliases (a function may be named `/bin/false`): None when
    not known (anything with arguments, assignments, redirects or substitutions: `/bin/false --version` succeeds)."""
    one = part[0] if len(part) == 1 else None
    if not isinstance(one, _Simple) or one.assigns or one.redirects or one.subs or not 1 <= len(one.words) <= 2:
        return None
    *runner, name = one.words
    if runner not in ([], ["command"], ["builtin"]) or name not in _EXITS or (runner and name.startswith("/")):
        return None
    return _EXITS[name], tuple(runner or [name])


def sequence(pipelines: list[_Item], operators: list[str]) -> list[_Item]:
    """Pipelines each followed by its operator (`&&`, `||`, `;`, `&`, a newline) as the items of a script: and-or
    lists (`and_or`), one ended by `&` run in the background, a subshell of its own ("Lists": what it sets is
    not the shell's)."""
    out: list[_Item] = []
    parts: list[list[_Item]] = []
    between: list[str] = []
    for pipeline, operator in zip(pipelines, operators, strict=True):
        parts.append([pipeline])
        if operator in ("&&", "||"):
            between.append(operator)
            continue
        chained = and_or(parts, between)
        out.extend([_Block(chained, subshell=True)] if operator == "&" else chained)
        parts, between = [], []
    if parts:
        out.extend(and_or(parts, between[: len(parts) - 1]))
    return out


def opened(items: list[_Item]) -> list[_Item]:
    """A pipeline part's items with the block that may not run at its end opened (`… | (cd / && xargs rm)`): it
    reads the pipe if it runs, and nothing after it in the part sees what it set (the part is a subshell)."""
    while items and isinstance(last := items[-1], _Block) and last.maybe and not (last.redirects or last.subshell):
        items = [*items[:-1], *last.items]
    return items


def one_command(item: _Item) -> _Simple | None:
    """The one command a pipeline element or a function's body is (through subshells and groups with no
    redirection of their own), which reads what the element reads and prints what it prints."""
    while (
        isinstance(item, _Block)
        and not (item.redirects or item.subst or item.binds or item.repeats)
        and len(item.items) == 1
    ):
        item = item.items[0]
    return item if isinstance(item, _Simple) else None


def pipes_into_itself(body: _Block, name: str) -> bool:
    """Whether a function's body runs the function itself as a pipeline's element (anywhere in the body but in
    another function's): every call then starts more of itself, each in a process of its own, with nothing
    between it and the next (`:(){ :|:& };:`, `b() { b | b & }`): processes without bound, whatever spelled or
    printed the body. A call inside a loop the pipeline feeds (`ls | while read d; do walk "$d"; done`) is not
    one: it runs when the loop reads a line."""

    def piped(item: _Item) -> bool:
        if isinstance(item, _Pipe):
            return any(_runs(e, name) or piped(e) for e in item.elements)
        return isinstance(item, _Block) and item.function is None and any(piped(i) for i in item.items)

    return any(piped(i) for i in body.items)


def _runs(item: _Item, name: str) -> bool:
    one = one_command(item)
    return one is not None and one.words[:1] == [name]


def gathers(item: _Item) -> bool:
    """A group or subshell (no loop, substitution or redirection of its own) of commands and such groups, none of
    them redirected nor piped: what it prints is what its commands print, one after the other (a `while` loop's
    body as once: what it would print again is the same text)."""
    if not isinstance(item, _Block) or item.binds is not None or item.subst or item.redirects or item.function:
        return False
    return all((isinstance(i, _Simple) and not i.redirects) or gathers(i) for i in item.items)


@dataclass(frozen=True, slots=True)
class Spawn:
    """A command another one runs (find -exec, xargs, parallel, fd -x, a container's, a D-Bus call's)."""

    argv: list[str]
    runner: str
    mounts: tuple[tuple[str, str], ...] = ()  # (inside, host) for containers
    sweep: bool = False  # its operands stand for whatever the runner selects below a root (find -exec)
    selects: str = ""  # the word that stands for what find's tests select (`ROOT/**/PAT`), matched as find does
    root: bool = False  # it runs as root on the host's files (a container of a root daemon, no other --user)
    image: str = ""  # a container given no command: the image whose own entrypoint runs, with `mounts`
    workdir: str = ""  # a container's working directory (`-w`) as the host path its mounts put it at


def assignment(target: str, value: str) -> tuple[str, str]:
    """`NAME=VALUE` as (NAME, VALUE) for the line's state; `NAME+=VALUE` appends (bash(1), "Parameters"): the
    variable's value followed by VALUE, an array's elements followed by VALUE's."""
    name = target.rstrip("+")
    if name == target:
        return name, value
    if value.startswith(ARRAY_MARK + "("):
        return name, f'{ARRAY_MARK}("${{{name}[@]}}" {value[len(ARRAY_MARK) + 1 :]}'
    return name, "${" + name + "}" + value.removeprefix(LITERAL_MARK)
