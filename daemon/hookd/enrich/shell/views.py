"""What a launcher that mounts, binds, hides or overlays paths (`bwrap`, `proot`, `nsjail`, `firejail`,
`systemd-run -p`, `systemd-nspawn`, `chroot`: data/views.json) makes of the filesystem for the command it starts:
its binds (inside, host), as `docker run -v` has (hookd.enrich.shell.containers: a path the command names below
a bind's target is the host path bound there), the paths it covers (hidden or replaced), the paths it keeps where
the rest of the home is hidden, and whether the command sees only what is bound. Self-protection judges an agent
started so (hookd.dialects.launch.view_changes): a bind over or a hiding of its settings is an unguarded start."""

from __future__ import annotations

import functools
import itertools
import json
import posixpath
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from hookd.enrich.effects.catalogue import DATA, catalogue
from hookd.enrich.effects.launchers import value_words
from hookd.enrich.effects.options import EMPTY_TABLE, parse
from hookd.enrich.shell.state import LineState, in_container

View = dict[str, Any]  # {"binds": [[inside, host]…], "covers": […], "keeps": […], "empty": bool}


@functools.cache
def _launchers() -> Mapping[str, Any]:
    programs: Mapping[str, Any] = json.loads((DATA / "views.json").read_text(encoding="utf-8"))["programs"]
    return programs


@contextmanager
def launched_in(
    state: LineState, words: list[str], argv: list[str], wrappers: list[str], cwd: str
) -> Iterator[View | None]:
    """While a command its launchers bind paths for (or a `mount --bind` earlier on the line) is walked, a path it
    names below a bind's target is the host path bound there (as a container's command: state.in_container); the
    view, None when nothing changes it. A bind mount it makes holds for the line's later commands."""
    view = launcher_view(words[: len(words) - len(argv)], wrappers, state.home, cwd) if wrappers else None
    if state.mounted:
        view = view or {"binds": [], "covers": [], "keeps": [], "empty": False}
        view["binds"] = [*view["binds"], *([i, h] for i, h in state.mounted if [i, h] not in view["binds"])]
    with in_container(state, tuple((inside, host) for inside, host in view["binds"]) if view else ()):
        yield view
    if argv and posixpath.basename(argv[0]) in ("mount", "bindfs"):
        state.mounted.extend(_bind_mount(argv, (state.home, cwd)))


_BIND_OPTIONS = frozenset({"--bind", "-B", "--rbind", "-R", "bind", "rbind"})


def _bind_mount(argv: list[str], where: tuple[str, str]) -> list[tuple[str, str]]:
    """`mount --bind SRC DST` (`-B`, `--rbind`, `-R`, `-o bind`: mount(8)), `bindfs SRC DST` (bindfs(1)): DST shows
    SRC from then on."""
    program = catalogue().get(posixpath.basename(argv[0]))
    parsed = parse(argv, program.table if program is not None else EMPTY_TABLE)
    options = {name for name, _ in parsed.options} | {
        o for name, value in parsed.options if name in ("-o", "--options") and value for o in value.split(",")
    }
    binds = posixpath.basename(argv[0]) == "bindfs" or bool(options & _BIND_OPTIONS)
    if not binds or len(parsed.operands) != 2:
        return []
    return [(_absolute(parsed.operands[1], where), _absolute(parsed.operands[0], where))]


def launcher_view(prefix: list[str], wrappers: list[str], home: str, cwd: str) -> View | None:
    """The view the launchers among the words peeled off a command (`prefix`: each wrapper's name and its own
    words, in `wrappers`' order) give it; None when none changes it. Paths are absolute (`~` the home, a relative
    one below `cwd`)."""
    if not any(w in _launchers() for w in wrappers):
        return None
    view: View = {"binds": [], "covers": [], "keeps": [], "empty": False}
    starts = [k for k, word in enumerate(prefix) if posixpath.basename(word) in wrappers] + [len(prefix)]
    for start, end in itertools.pairwise(starts):
        spec = _launchers().get(posixpath.basename(prefix[start]))
        if spec is not None:
            _read_options(spec, prefix[start:end], view, (home, cwd))
    changed = any(i != h for i, h in view["binds"]) or view["covers"] or view["keeps"] or view["empty"]
    return view if changed else None


def _read_options(spec: Mapping[str, Any], words: list[str], view: View, where: tuple[str, str]) -> None:
    program = catalogue().get(posixpath.basename(words[0]))
    table = program.table if program is not None else EMPTY_TABLE
    options: Mapping[str, str] = spec["options"]
    rooted, k = False, 1
    while k < len(words):
        word = words[k]
        if word == "--" or not word.startswith("-") or len(word) < 2:
            if spec.get("operand_root") and word != "--":  # `chroot NEWROOT CMD`
                view["binds"].append(["/", _absolute(word, where)])
                rooted = True
            break
        name, eq, attached = word.partition("=") if word.startswith("--") else (word[:2], "", word[2:])
        taken = (
            value_words(word, table)
            if name not in options
            else (2 if options[name] == "bind" else 1) - bool(eq or attached)
        )
        given = ([attached] if eq or attached else []) + words[k + 1 : k + 1 + taken]
        form = options.get(name, "")
        if form == "property" and given:
            key, _, value = given[0].partition("=")
            form = spec.get("properties", {}).get(key, "")
            for item in value.split():
                rooted |= _add(form, [item], view, where)
        elif form:
            rooted |= _add(form, given, view, where)
        k += 1 + taken
    view["empty"] = view["empty"] or (bool(spec.get("empty_root")) and not rooted)


def _add(form: str, given: list[str], view: View, where: tuple[str, str]) -> bool:
    """Adds one option's value to `view`; True when it gives the command another root."""
    if not given or not given[0]:
        return False
    value = given[0].lstrip("-+") if form != "bind" else given[0]
    if form == "bind" and len(given) > 1:
        view["binds"].append([_absolute(given[1], where), _absolute(given[0], where)])
    elif form in ("bind:", "bind,"):
        host, _, rest = value.partition(form[-1])
        inside = rest.split(":")[0].lstrip("+") or host
        view["binds"].append([_absolute(inside, where), _absolute(host, where)])
    elif form in ("cover", "overlay"):
        view["covers"].append(_absolute(value.split(":")[-1 if form == "overlay" else 0], where))
    elif form == "keep":
        view["keeps"].append(_absolute(value, where))
    elif form == "home" and value in ("yes", "true", "tmpfs"):
        view["covers"].append(where[0])
    elif form == "root":
        view["binds"].append(["/", _absolute(value, where)])
        return True
    return False


def _absolute(path: str, where: tuple[str, str]) -> str:
    home, cwd = where
    if path == "~" or path.startswith("~/"):
        path = home + path[1:]
    elif path.startswith("${HOME}"):  # firejail(1) expands `${HOME}` in its paths itself
        path = home + path[len("${HOME}") :]
    return posixpath.normpath(posixpath.join(cwd, path)) if cwd or path.startswith("/") else path
