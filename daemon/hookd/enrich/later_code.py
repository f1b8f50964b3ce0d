"""Code a file tool leaves for another program to run later, in a file no catalogue entry names (part of the
effect model's tool effects, called by enrich/tool_effects.py). Three shapes, each judged by what the file IS,
never by the program that will run it:

* a file whose text is code (by its extension, or a `#!` line; a run-commands file, `…rc`, whose lines fetch
  or build what they run) written into a dot-directory of the home outside the project: some program's init,
  startup or plugin file (Gradle's init.d, IPython's startup, Neovim's plugin/, npm's ~/.npm-init.js, direnv's
  direnvrc, a desktop's autostart scripts);
* a configuration text (a `.yml`, `.json`, `.properties`, … or a dotfile) naming code in scratch space, where
  anyone can plant it (`yarnPath: /tmp/x.cjs`, `org.gradle.jvmargs=-javaagent:/tmp/a.jar`);
* an agent's custom command (a Markdown or TOML file in a `commands/` directory) whose `!{…}` or "!`…`"
  markers run shell lines when the command is invoked: the lines are judged as the shell's analysis says
  (one that fetches, decodes or builds what it runs, or changes what lies outside the project).

Each is a deferred `exec` with `startup` (asked by protected_paths' startup-file rule): what runs later runs
outside the hooks. No filesystem access: only the call's own paths and texts. The same shapes hold for the texts a
shell line writes (`echo … >> ~/.xonshrc`, `printf … > ~/.cache/x`: enrich/shell/build.py): what a file IS does
not depend on which tool wrote it. The shell's analysis of a line is handed in (`analyse`), so that the shell's
own step can call here without an import cycle.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from hookd.enrich.effects.loaded import file_commands
from hookd.enrich.effects.words import CODE_LANGS, HOME_CODE_WHEN, home_code_lang, startup_language
from hookd.enrich.facts import under
from hookd.types import JSON

# The shell's analysis of one line (hookd.enrich.shell.build.analyse_shell): its `input.shell` and effects
Analyse = Callable[..., tuple[dict[str, Any], list[dict[str, Any]]]]

# What a configuration value may name for a program to load: code, a JVM agent, a shared library
_LOADED = "|".join(sorted({*CODE_LANGS, "jar", "so", "dylib", "node", "wasm"}))
_SCRATCH_CODE = re.compile(
    rf"""(?:^|[\s=:"'(,])((?:/tmp|/var/tmp|/dev/shm)/[^\s"',;()]{{0,255}}\.(?:{_LOADED}))(?=$|[\s"',;=)])""",
    re.MULTILINE,
)
_SCRATCH_ROOTS = ("/tmp/", "/var/tmp/", "/dev/shm/")
_CONFIG_SUFFIXES = (".yml", ".yaml", ".json", ".jsonc", ".json5", ".toml", ".properties", ".ini", ".cfg", ".conf",
                    ".xml", ".env")  # fmt: skip
_MARKERS = re.compile(r"!\{([^{}\n]{1,4096})\}|!`([^`\n]{1,4096})`")
_COMMAND_FILES = (".md", ".toml")
_PROSE = (".md", ".markdown", ".mdx", ".txt", ".rst", ".adoc", ".asciidoc", ".org", ".html", ".htm", ".tex")
MAX_TEXT = 256 * 1024  # a text past this is not read for code left in it
MAX_LINES = 16


def left_for_later(
    written: Iterable[str],
    texts: list[str],
    program: str,
    analyse: Analyse,
    *,
    home: str,
    project: str,
    known: set[str],
) -> list[dict[str, JSON]]:
    """The deferred execs of the files `written` (with the call's new `texts`), skipping the paths in `known`
    (already judged a startup file); `analyse`: the shell's analysis of a line (of the lines the texts hold)."""
    lines = _Lines(analyse, home, project)
    whole = texts
    texts = [t[:MAX_TEXT] for t in texts]  # read no further, but a text cut here counts as what it may hide
    cut = any(len(t) > MAX_TEXT for t in whole)
    out: list[dict[str, JSON]] = []
    fetched: list[str] | None = None
    for path in written:
        if path in known:
            continue
        later = _commands_later(path, texts, lines, cut=cut) or _home_code(path, texts, lines)
        if not later:
            later = _scratch_code(path, texts, [t[MAX_TEXT:] for t in whole if len(t) > MAX_TEXT])
        if not later and path and not _is_prose(path, project):
            fetched = _fetched_lines(texts, lines) if fetched is None else fetched  # once a call
            later = ({"lang": "sh", "text": "\n".join(fetched)}, _FETCHED_WHEN) if fetched else None
        if later:
            code, when = later
            out.append({"op": "exec", "path": "", "known": bool(code["text"]), "recursive": False, "to": "",
                        "program": program, "via": "tool", "class": "unresolved", "code": code, "deferred": True,
                        "startup": path, "when": when})  # fmt: skip
    return out


def left_by_shell(
    effects: list[dict[str, Any]], contents: dict[str, str], *, home: str, project: str, analyse: Analyse
) -> list[dict[str, JSON]]:
    """Code a shell line's writes (`effects`, with the texts the line wrote: `contents`) leave for another program
    to run later, in files no startup table names, judged as a file tool's write of the same text is:
    `echo 'curl … | sh' >> ~/.xonshrc`, a `~/.sbt/1.0/global.sbt` whose string literal fetches and runs, a script
    left in `~/.cache`. A shell's own startup file (judged by the effect model, and passed when it only sets
    variables) and a file the model already found run later are not judged again."""
    if not home or not contents:
        return []
    started = {str(e["startup"]) for e in effects if e["op"] == "exec" and e.get("startup")}
    out: list[dict[str, JSON]] = []
    for effect in effects:
        path = effect["path"]
        if effect["op"] != "write" or not path or path not in contents or path in started:
            continue
        started.add(path)
        if startup_language(path, home) != "sh":
            program = str(effect.get("program") or "shell")
            later = left_for_later([path], [contents[path]], program, analyse, home=home, project=project, known=set())
            out.extend(dict(e, via="shell") for e in later)
    return out


Later = tuple[dict[str, JSON], str]


class _Lines:
    """What the shell's analysis says of a line of a written text (see `_runs_unseen`)."""

    __slots__ = ("analyse", "home", "project")

    def __init__(self, analyse: Analyse, home: str, project: str) -> None:
        self.analyse, self.home, self.project = analyse, home, project

    def effects(self, line: str) -> list[dict[str, Any]]:
        return self.analyse(line, home=self.home, base_dir=self.project, project_dir=self.project)[1]


def may_leave_code(path: str, home: str, project: str) -> bool:
    """False only where `left_for_later` finds nothing in `path`, whatever the texts: no agent's custom command,
    nothing in a dot-directory or dotfile of the home, no configuration text (each shape's own first test)."""
    base = path.rpartition("/")[2]
    return (
        not _is_prose(path, project)
        or is_command_file(path)
        or path.startswith(home + "/.")
        or base.endswith(_CONFIG_SUFFIXES)
        or (base.startswith(".") and "." not in base[1:])
    )


def _is_prose(path: str, project: str) -> bool:
    """A document for people, by its extension or a `docs/` directory: install lines there are read, not run."""
    rest = "/" + path[len(project) + 1 :] if under(path, project) else path
    return path.lower().endswith(_PROSE) or "/docs/" in rest or "/doc/" in rest


_FETCHED_WHEN = "a command line that runs what it downloads or decodes"


def _fetched_lines(texts: list[str], lines: _Lines) -> list[str]:
    """The command lines of the texts that run what they download or decode (`curl … | sh`, `curl -o x && sh
    x`, `base64 -d | sh`): left in a code or configuration file (anything but prose, whatever program reads it:
    a `[hooks]` table, a git hook, an editor's exrc, a test runner's conftest.py, a package's lifecycle
    script), a deferred exec. The lines are those the effect model walks in any file (loaded.file_commands:
    settings, lines, string literals, substitutions), each judged by the shell's analysis."""
    found = [line for text in texts for line in file_commands(_added_lines(text))][:MAX_LINES]
    return [line for line in found if _runs_fetched(line, lines)]


def _added_lines(text: str) -> str:
    """A file's text as written: for a patch, its added lines."""
    if not text.startswith("*** Begin Patch") and "\n+++ " not in text:
        return text
    return "\n".join(line[1:] for line in text.splitlines() if line.startswith("+") and not line.startswith("+++"))


def _runs_fetched(line: str, lines: _Lines) -> bool:
    if len(line) > 16 * 1024:
        return True
    effects = lines.effects(line)
    return any(e["op"] == "exec" and e.get("flow") in ("fetch", "decode") for e in effects)


def _home_code(path: str, texts: list[str], lines: _Lines) -> Later | None:
    """Code written into a dot-directory (or a dotfile) of the home, outside the project and the caches."""
    first = next((_added_text(t) for t in texts), None)
    lang = home_code_lang(path, lines.home, lines.project, first)
    if lang is None and _home_rc(path, lines.home, lines.project):
        # a run-commands file (`direnvrc`): code when its lines fetch or build what they run
        lang = "sh" if any(_runs_unseen(text, lines) for text in _lines(texts)) else None
    if lang is None:
        return None
    return {"lang": lang, "text": "\n".join(texts)}, HOME_CODE_WHEN


def _added_text(text: str) -> str:
    """A file's text as written: for a patch, its first added line on (a `#!` the patch adds counts)."""
    if not text.startswith("*** Begin Patch"):
        return text
    return next((line[1:] for line in text.splitlines() if line.startswith("+")), "")


def _home_rc(path: str, home: str, project: str) -> bool:
    rest = path[len(home) + 1 :] if path.startswith(home + "/") else ""
    return path.endswith("rc") and rest.startswith(".") and not rest.startswith(".cache/") and not under(path, project)


def _scratch_code(path: str, texts: list[str], unread: list[str]) -> Later | None:
    """A configuration text that names code in scratch space for a program to load (or scratch space at all in
    what lies past the part read)."""
    base = path.rpartition("/")[2]
    if not (base.endswith(_CONFIG_SUFFIXES) or (base.startswith(".") and "." not in base[1:])):
        return None
    if any(root in rest for rest in unread for root in _SCRATCH_ROOTS):
        return {"lang": "text", "text": ""}, "a configuration too long to read that names scratch space"
    for text in texts:
        found = _SCRATCH_CODE.search(text)
        if found:
            return {
                "lang": "text",
                "text": found.group(1),
            }, f"a configuration naming code in scratch space ({found.group(1)})"
    return None


def is_command_file(path: str) -> bool:
    """An agent's custom command: a Markdown or TOML file in a `commands/` directory."""
    return path.endswith(_COMMAND_FILES) and "/commands/" in path


def _commands_later(path: str, texts: list[str], lines: _Lines, *, cut: bool) -> Later | None:
    """An agent's custom command whose markers run shell lines when it is invoked (more markers than are read,
    or a text cut before its end, count as lines that may run anything)."""
    if not is_command_file(path):
        return None
    marked = [a or b for text in texts for a, b in _MARKERS.findall(text)]
    if cut or len(marked) > MAX_LINES:
        return {"lang": "sh", "text": ""}, "shell lines an agent's custom command runs when invoked (too many to read)"
    risky = [line for line in marked if _runs_unseen(line, lines, changes=True)]
    if not risky:
        return None
    return {"lang": "sh", "text": "\n".join(risky)}, "shell lines an agent's custom command runs when invoked"


def _lines(texts: list[str]) -> list[str]:
    return [t for t in texts if t.strip()][:MAX_LINES]


def _runs_unseen(line: str, lines: _Lines, *, changes: bool = False) -> bool:
    """The shell's analysis of `line`: it runs what it fetches, decodes or builds (or, with `changes`, it
    deletes, moves or changes the mode of anything, or writes outside the project and scratch space)."""
    if len(line) > 16 * 1024:
        return True
    for e in lines.effects(line):
        if e.get("flow") or e["op"] == "fetch" or (e["op"] == "exec" and e.get("known") is False):
            return True
        if changes and (
            e["op"] in ("delete", "move", "chmod", "device", "privilege")
            or (e["op"] == "write" and e.get("class") not in ("project", "scratch"))
        ):
            return True
    return False
