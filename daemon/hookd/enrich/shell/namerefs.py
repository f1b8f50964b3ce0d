"""Name references (`declare -n ref=NAME`, bash(1) "Shell Parameters"): reading `$ref` reads NAME and assigning
`ref=…` assigns NAME, so a variable the line sets or reads through a reference is known by the name it names."""

from __future__ import annotations

from typing import Protocol

from hookd.enrich.shell.held_text import unheld
from hookd.enrich.shell.words import _NAME


class LineState(Protocol):
    """What of the line's shell state a reference reads and sets (state.LineState; not imported: it imports this)."""

    @property
    def references(self) -> dict[str, str]: ...

    @property
    def variables(self) -> dict[str, str]: ...

    @property
    def built(self) -> dict[str, str]: ...

    def forget(self, names: list[str]) -> None: ...


def declare_references(state: LineState, argv: list[str], pairs: list[list[str]], *, lossy: bool) -> None:
    """`declare -n ref=NAME` (`local -n`, `typeset -n`): ref stands for NAME from here on. A target spelled other
    than as a plain name (`$1`), none, or an attribute that changes values (`-u`, `-l`, `-i`: `lossy`) is known
    only when the line runs: the reference and its target are unknown, and assigning through it sets a variable
    named then."""
    targets = {pair[0]: pair[1] for pair in pairs}
    for name in [w.split("=", 1)[0] for w in argv[1:] if w[:1] not in "-+"]:
        target = targets.get(name, "")
        known = bool(_NAME.fullmatch(target)) and not lossy
        state.references[name] = target if known else ""
        if not known:
            state.forget([name, target] if target else [name])
    mirror_references(state)


def through_references(state: LineState, assigns: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The assignments as bash makes them: one to a reference assigns its target; one through a reference whose
    target is named only when the line runs leaves every variable unknown (and none is made)."""
    if any(state.references.get(key) == "" for key, _ in assigns):
        unheld(state.built)
        state.variables.clear()
        return []
    return [(state.references.get(key) or key, value) for key, value in assigns]


def targets_too(state: LineState, names: list[str]) -> list[str]:
    """The variables a builtin that sets `names` sets (`read r`, `printf -v r`, `mapfile r`): a reference's target
    as well; one whose target is named only when the line runs leaves every variable unknown."""
    if not state.references:
        return names
    if any(state.references.get(name) == "" for name in names):
        unheld(state.built)
        state.variables.clear()
        return names
    return [*names, *(target for name in names if (target := state.references.get(name)))]


def mirror_references(state: LineState) -> None:
    """Each reference reads its target: the target's value, or what is known of one built when the line runs."""
    for name, target in state.references.items():
        for store in (state.variables, state.built):
            if target and target in store:  # (a target's quoted text read through a reference: not held, held_text)
                store[name] = str(store[target])
            else:
                store.pop(name, None)
