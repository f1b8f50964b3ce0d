"""A variable that a block which may not run sets holds one of several values after it (`out=build; if [ -n "$CI" ];
then out=dist; fi; rm -rf "$out"`): the value before it or the one it set. Where each is known and they are few
(CHOICES), the line's state keeps the variable as that set of values (LineState.choices, out of `variables`, so that
whatever does not ask here sees it as unknown), and a command that names it is walked once per value (`each_value`):
every path it reaches is a known one, judged as such, rather than an unknown operand asked (headless: denied).

The set is per variable, not a walk of the rest of the line per value: the line's commands are each walked once, and
only one that names such a variable again, at most CHOICES times, and not again inside that walk (a variable named
there is as unknown as before): the cost stays linear in the line, at most CHOICES times it. (`uncertain`, below,
walks the blocks that may not run: state44.)"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Collection

from hookd.enrich.shell.state import POSITIONAL, LineState, _Cwd
from hookd.enrich.shell.tree import _Block, _Simple

CHOICES = 8  # the values a variable may hold and still be judged as each; past it, not known
_SEP = "\x1e"  # between the values of a choice (a value holding it is not known: it would split)
_NAMED = re.compile(r"\$\{?[#!]?([A-Za-z_][A-Za-z0-9_]*)")
_Values = frozenset[str] | None  # what a variable may hold, each known; None: not known


def possible(state: LineState, key: str) -> _Values:
    """What `key` may hold here: its value, one of its choices, or None (not known)."""
    if key in state.built or key in state.references:
        return None
    value = state.variables.get(key)
    if value is not None:
        return frozenset((value,))
    held = state.choices.get(key)
    return frozenset(held.split(_SEP)) if held is not None else None


def either(state: LineState, names: set[str], changed: list[dict[str, str | None]]) -> set[str]:
    """After a block that may not run (`uncertain`, `changed`: each table's values before it, as
    Journaled.settle gives them): each scalar it changed holds the value before or the value after. The names left
    not known (an array, a value not known on either side, too many values) are returned, to be forgotten."""
    keys = {key for frame in changed for key in frame}
    left: set[str] = set()
    for name in names:
        if any(key != name and key.split("[", 1)[0].rstrip("\x00") == name for key in keys) or not settle(
            state, name, [_before(state, name, changed), possible(state, name)]
        ):
            left.add(name)
    return left


def _before(state: LineState, key: str, changed: list[dict[str, str | None]]) -> _Values:
    variables, built, chosen = (frame[key] if key in frame else table.get(key) for frame, table in zip(
        changed, (state.variables, state.built, state.choices), strict=True))  # fmt: skip
    if built is not None or key in state.references:
        return None
    if variables is not None:
        return frozenset((variables,))
    return frozenset(chosen.split(_SEP)) if chosen is not None else None


def settle(state: LineState, name: str, each: list[_Values]) -> bool:
    """`name` holds one of the values in `each` (one set per way the line may have gone); False when that is not
    known (the caller forgets it)."""
    union: set[str] = set()
    for values in each:
        if values is None:
            return False
        union |= values
    if len(union) > CHOICES or any(_SEP in value for value in union):
        return False
    state.variables.pop(name, None)  # (and its choice: Journaled.linked)
    if len(union) == 1:
        state.variables[name] = next(iter(union))
    else:
        state.choices[name] = _SEP.join(sorted(union))
    return True


def combinations(state: LineState, simple: _Simple) -> list[dict[str, str]]:
    """The values the variables with choices that a command names may hold together, one binding each: none where
    no such variable is named, or they hold more than CHOICES together (each then as not known)."""
    if not state.choices or state.choosing:
        return []
    texts = [*simple.words, *(v for _, v in simple.assigns), *(f"{r.target} {r.body}" for r in simple.redirects)]
    names = sorted({name for text in texts if "$" in text for name in _NAMED.findall(text)} & set(state.choices))
    named = [(name, sorted(values)) for name in names if (values := possible(state, name)) is not None]
    if not named or len(list(itertools.islice(itertools.product(*(v for _, v in named)), CHOICES + 1))) > CHOICES:
        return []
    return [dict(zip((n for n, _ in named), combo, strict=True)) for combo in itertools.product(*(v for _, v in named))]


def each_value(state: LineState, combos: list[dict[str, str]], cwd: _Cwd, walk: Callable[[], str]) -> str:
    """Walks a command once per binding of `combos`, each from the state before it; after it, what it set holds
    one of the values the walks left (`settle`), and where it runs is not known when they went to different places.
    Returns its output's origin (EffectModel's), "unknown" when the walks differ."""
    start, ends, places, origins = cwd.copy(), [], set(), set()
    state.choosing = True
    try:
        for combo in combos:
            cwd.path, cwd.known, cwd.previous = start.path, start.known, start.previous
            state.scope()
            try:
                state.variables.update(combo)
                origins.add(walk())
            finally:
                keys = {key for table in (state.variables, state.built, state.choices) for key in table.changes()}
                ends.append({key: possible(state, key) for key in keys})
                places.add((cwd.path, cwd.known))
                state.restore()
    finally:
        state.choosing = False
    for key in sorted(set().union(*ends)):
        name = key.split("[", 1)[0].rstrip("\x00")
        if key != name or not settle(state, key, [end[key] if key in end else possible(state, key) for end in ends]):
            state.forget([name])
    if len(places) > 1:
        cwd.known = False
    return origins.pop() if len(origins) == 1 else "unknown"


def uncertain(state: LineState, walk: Callable[[], None], cwd: _Cwd, repeats: bool, own: tuple[str, ...] = ()) -> None:
    """`walk` a block that may not run (`repeats`: or run again and again, each pass seeing what the last one
    set): what it changes has either value after it, kept as both where both are known (`either`), else not known
    from there on; a loop's, not known (nor on a second pass, walked when the first changed anything); a directory
    it moves to, not known either. `own`: the names the
    loop sets itself on each pass (its variable, walked with each word), not known after it unless OPTIND (a
    `while getopts` loop's, which `getopts` gives as the loop's last: line_builtins.options_end)."""
    where = (cwd.path, cwd.known)
    kept: dict[str, str] = {}
    for turn in range(2 if repeats else 1):
        state.scope()
        try:
            walk()
        finally:
            changed = [table.settle() for table in (state.variables, state.built, state.choices)]
        names = {name.split("[", 1)[0].rstrip("\x00") for frame in changed for name in frame}
        if turn == 0 and "OPTIND" in own and "OPTIND" in state.variables:
            kept["OPTIND"] = state.variables["OPTIND"]
        if (cwd.path, cwd.known) != where:
            cwd.known = False
        last = turn == 1 or not repeats or (not names - set(own) and cwd.known)
        if not repeats:  # it ran or it did not: each name one of the values before and after
            names = either(state, names - set(POSITIONAL), changed) | (names & set(POSITIONAL))
        state.forget(sorted(names if last else names - set(own)))
        if names & set(POSITIONAL):  # `shift`, `set --` in a loop: `$@` and the rest not known
            state.positional(None)
        if last:
            break
    state.variables.update(kept)


def known_run(item: _Block, functions: Collection[str], aliases: Collection[str], state: LineState) -> bool | None:
    """Whether an and-or part the tree marked runs for certain (True) or never (False) does so here: each name it
    relies on (`tree.exits`) is no function or alias the line defined, and no code the walk did not read ran in this
    shell (an unread `. FILE`, `enable`: LineState.unread), which may have defined them; else None (may not run)."""
    if not item.maybe or item.runs is None or state.unread or any(n in functions or n in aliases for n in item.assumes):
        return None
    return item.runs


def unrun(state: LineState, walk: Callable[[], None], cwd: _Cwd) -> None:
    """`walk` a block that never runs (`true || X`): what it does is judged as if it ran, what it sets is dropped."""
    start = cwd.copy()
    state.scope()
    try:
        walk()
    finally:
        state.restore()
        cwd.path, cwd.known, cwd.previous = start.path, start.known, start.previous
