"""Every store of a kind deleted through the program's own listing of that kind: `docker volume rm $(docker volume ls
-q)`, `docker volume ls -q | xargs docker volume rm -f`. The listing names each store the local server holds, other
projects' too, so the delete is the sweep `docker volume prune -a` is (hosted_stores._sweeps_own). A listing that
keeps only some (a filter option: `-f dangling=true`, `--filter name=app`; a pipe through `grep`; a name or pattern
among its words) is the everyday removal of those.

What a listing is comes from the program's entry (programs.json `hosted.lists`: the verbs that list, the options
that narrow, the options whose value only shapes each row), so no spelling of a command is listed here."""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from typing import Any

from hookd.enrich.effects.words import XARGS_INPUT

_SUBSTITUTION = re.compile(r"\$\((.*)\)|`(.*)`", re.DOTALL)


def lists_every_own(spec: Mapping[str, Any], program: str, operands: list[str], fed: tuple[str, ...]) -> bool:
    """An operand of the delete is the whole listing of a store kind the server holds of others (`hosted.own`),
    from a substitution of the same program or the words fed to xargs by the command before in the pipeline."""
    lists = spec.get("lists")
    own = frozenset(str(w) for w in spec.get("own", ()))
    if not isinstance(lists, Mapping) or not own:
        return False
    for word in operands:
        if word == XARGS_INPUT and _whole_listing(lists, own, list(fed)):
            return True
        found = _SUBSTITUTION.fullmatch(word)
        text = (found.group(1) or found.group(2) or "") if found else ""
        if "|" in text:
            continue  # a pipe may keep only some rows
        try:
            words = shlex.split(text)
        except ValueError:
            continue
        if words and words[0].rsplit("/", 1)[-1] == program and _whole_listing(lists, own, words[1:]):
            return True
    return False


def _whole_listing(lists: Mapping[str, Any], own: frozenset[str], words: list[str]) -> bool:
    """`volume ls -q`: the kind and a listing verb, and nothing that narrows it (a filter, a name, a pattern)."""
    verbs = frozenset(str(v) for v in lists.get("verbs", ()))
    narrows = tuple(str(o) for o in lists.get("narrow", ()))
    shapes = frozenset(str(o) for o in lists.get("shape", ()))
    if not (set(words) & verbs and set(words) & own):
        return False
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word in shapes:
            skip = True  # `--format '{{.Name}}'`: each row shaped, none left out
        elif word.startswith("--"):
            if word.split("=", 1)[0] in narrows:
                return False
        elif word.startswith("-"):
            if any(f"-{letter}" in narrows for letter in word[1:]):
                return False
        elif word not in verbs and word not in own:
            return False  # a name, a pattern, or a filter's words fed through a pipe
    return True
