"""What command lines and code left for later do to the home, as the shell's analysis reads them
(hookd.enrich.later_code and tool_later judge a file's later code by it): a delete or move there, a send of what
they read there or from the environment, code fetched or decoded and run; and the shell's analysis itself,
registered by hookd.enrich.shell."""

from __future__ import annotations

import functools
import re
import shlex
from collections.abc import Callable
from typing import Any

from hookd.enrich.effects.languages import follow_code
from hookd.enrich.effects.later_lines import register_later_analysis
from hookd.enrich.effects.pycode import python_effects
from hookd.enrich.effects.words import CODE_LANGS
from hookd.enrich.env_template import env_name
from hookd.enrich.facts import in_home_cache, under
from hookd.types import JSON

# The shell's analysis of one line (its `input.shell` and effects): hookd.enrich.shell registers its
# analyse_shell here when it is imported, since it calls this module on the texts a line writes (left_by_shell)
# and so this module cannot import it
Analyse = Callable[..., tuple[dict[str, Any], list[dict[str, Any]]]]
_SHELL: list[Analyse] = []


def register_shell_analysis(analyse: Analyse) -> None:
    _SHELL[:] = [analyse]  # (and effects.later_lines' own)
    register_later_analysis(analyse)


def shell_effects(line: str, home: str, project: str) -> list[dict[str, Any]]:
    if not _SHELL:
        raise RuntimeError("later_code needs the shell's analysis: import hookd.enrich.shell first")
    return _SHELL[0](line, home=home, base_dir=project, project_dir=project)[1]


_OWN_PLACES = ("project", "scratch")
# How each language's interpreter takes code on its command line: a code file's text is judged as that line
_INLINE = {"python": ("python3", "-c"), "node": ("node", "-e"), "ruby": ("ruby", "-e"), "perl": ("perl", "-e")}
MAX_CODE_TEXT = 16 * 1024  # a code file past this is not judged by its interpreter's reading (what a shell line is)


def code_reaching_home(path: str, text: str, home: str, project: str) -> dict[str, JSON] | None:
    """The code of a file its language's interpreter runs or a program imports (`conftest.py`, a jest or vitest
    setup module, a pytest plugin): its text (a patch's added lines) read as that interpreter's inline code is
    (`python3 -c`, `node -e`: the languages' tables, pycode.py), when what it does reaches into the home
    (`reaches_home`) or runs what it downloads or decodes. None for any other file, a language the shell's
    analysis does not follow inline, or a text past MAX_CODE_TEXT (a file that long is not judged this way)."""
    lang = _code_lang(path)
    inline = _INLINE.get(lang)
    code = added_lines(text)
    if inline is None or not code.strip() or len(code) > MAX_CODE_TEXT or not _names_a_reach(code, home):
        return None
    if _touches_nothing(lang, code):
        return None
    effects = shell_effects(shlex.join([*inline, code]), home, project)
    if not (runs_fetched(effects) or reaches_home(effects, home, project)):
        return None
    return {"lang": lang, "text": code}


# How code names what `reaches_home` judges, as the languages' readings know it: the home (`~`, `expanduser`,
# `Path.home()`, `os.homedir()`, `$HOME`, `process.env.HOME`), the environment, the root, a climb out of the
# project; the shell lines code runs are `_fetched_lines`' (its string literals), read before this
_REACH_WORDS = re.compile(r"~|home|environ|getenv|process\.env|\.\./|['\"]/['\"]", re.IGNORECASE)


def _names_a_reach(code: str, home: str) -> bool:
    """The code names the home, the environment, the root or a climb out of the project (or the home's own path):
    without one, nothing it does can reach them, and the code's reading (an AST walk: the costly step) is skipped."""
    return _REACH_WORDS.search(code) is not None or (bool(home) and home in code)


def _touches_nothing(lang: str, code: str) -> bool:
    """The language's own reading finds no command run and no file or connection touched (the shell's analysis,
    which gives those back as commands, would find nothing to judge): skipped, as the cheaper step."""
    if lang == "python":
        found = python_effects(code)
        return not (found.commands or found.scripts or found.dynamic)
    followed = follow_code(lang, code)
    return not (followed.commands or followed.files)


def _code_lang(path: str) -> str:
    """The language of a code file by its extension (words.CODE_LANGS), or ""."""
    base = path.rpartition("/")[2]
    return CODE_LANGS.get(base.rpartition(".")[2], "") if "." in base.lstrip(".") else ""


def reaches_home(effects: list[dict[str, JSON]], home: str, project: str) -> bool:
    """What command lines left for later do that the policies stop when a shell line does it now, told apart
    from what build, test and lint commands do: they delete, move or change the mode of the home, of anything
    in it outside the project and its caches, or of the whole filesystem (`rm -rf ~/`, `shutil.rmtree(~/x)`);
    or they send something out (a fetch, any send: effects/sends.py) while reading a file of the home outside the
    project or the environment (`curl -T ~/.netrc`, `env > f; curl -F x=@f`); not scratch space or the project."""
    sends = any(e["op"] in ("fetch", "send") or e.get("sent") for e in effects)
    for e in effects:
        path = str(e.get("path") or "")
        if e["op"] in ("delete", "move", "chmod") and (
            e.get("class") in ("root", "home") or _in_home(path, home, project)
        ):
            return True
        read = e["op"] in ("read", "copy", "move") and not e.get("uses")  # a key it signs in with is not sent
        if sends and read and (_in_home(path, home, project) or _environment(path)):
            return True
    return False


def touches_home(effects: list[dict[str, JSON]], home: str, project: str) -> bool:
    return any(
        e["op"] in ("fetch", "send") or _in_home(path := str(e.get("path") or ""), home, project) or _environment(path)
        for e in effects
    )


def _in_home(path: str, home: str, project: str) -> bool:
    return under(path, home) and not under(path, project) and not in_home_cache(path, home)


in_home = _in_home  # a path of the home outside the project and its caches


def _environment(path: str) -> bool:
    """A process's environment (`env`, `printenv`, `/proc/self/environ`: /proc/PID/environ), or an env file's."""
    return (path.startswith("/proc/") and path.endswith("/environ")) or env_name(path.rpartition("/")[2])


@functools.lru_cache(maxsize=256)
def analysed_line(line: str, home: str, project: str) -> list[dict[str, JSON]] | None:
    """The shell's effects of `line`; None for a line too long to analyse (it may run anything). Kept for the
    few lines of one call, which several judgments read (not to be changed)."""
    if len(line) > 16 * 1024:
        return None
    return shell_effects(line, home, project)


def added_lines(text: str) -> str:
    """A file's text as written: for a patch, its added lines."""
    if not text.startswith("*** Begin Patch") and "\n+++ " not in text:
        return text
    return "\n".join(line[1:] for line in text.splitlines() if line.startswith("+") and not line.startswith("+++"))


def runs_fetched(effects: list[dict[str, JSON]]) -> bool:
    return any(e["op"] == "exec" and e.get("flow") in ("fetch", "decode") for e in effects)


def changes_outside(effect: dict[str, Any], here: bool = True) -> bool:
    """A change (write, delete, move, mode) of a named path outside the project and scratch space (`here`: of
    this machine's files)."""
    named = here and bool(effect.get("path")) and effect.get("known") is not False
    return named and effect["op"] in ("write", "delete", "move", "chmod") and effect.get("class") not in _OWN_PLACES


def runs_unseen(line: str, home: str, project: str, *, changes: bool = False) -> bool:
    """The shell's analysis of `line`: it runs what it fetches, decodes or builds (or, with `changes`, it
    deletes, moves or changes the mode of anything, or writes outside the project and scratch space)."""
    if len(line) > 16 * 1024:
        return True
    effects = shell_effects(line, home, project)
    for e in effects:
        if e.get("flow") or e["op"] == "fetch" or (e["op"] == "exec" and e.get("known") is False):
            return True
        if changes and (
            e["op"] in ("delete", "move", "chmod", "device", "privilege")
            or (e["op"] == "write" and e.get("class") not in ("project", "scratch"))
        ):
            return True
    return False


# what a unit's command may not do unseen outside the project and scratch space: it runs whenever the unit starts
_UNIT_RISKS = frozenset({"write", "delete", "move", "chmod", "link", "signal", "privilege", "device"})


def unit_risk(effect: dict[str, JSON], home: str, project: str) -> bool:
    """A change outside the project and scratch space (the home's own files count, wherever the home is), a
    signal or privilege; or a program or script run from scratch space (`/tmp/x`, `~/.cache/x.sh`), where any call
    may leave code hookd never sees run."""
    path, cls = str(effect.get("path") or ""), effect.get("class")
    if effect["op"] == "exec":
        return bool(path) and cls == "scratch" and not _in_home(path, home, project)
    return effect["op"] in _UNIT_RISKS and (cls not in ("project", "scratch") or _in_home(path, home, project))
