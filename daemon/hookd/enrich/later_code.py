"""Code a file tool leaves for another program to run later, in a file no catalogue entry names (part of the
effect model's tool effects, called by enrich/tool_effects.py). Three shapes, each judged by what the file IS,
never by the program that will run it:

* a file whose text is code (by its extension, or a `#!` line; a run-commands file, `…rc`, whose lines fetch
  or build what they run) written into a dot-directory of the home outside the project: some program's init,
  startup or plugin file (Gradle's init.d, IPython's startup, Neovim's plugin/, npm's ~/.npm-init.js, direnv's
  direnvrc, a desktop's autostart scripts);
* a configuration text (`.yml`, `.json`, `.properties`, a dotfile) naming code in scratch (`yarnPath: /tmp/x.cjs`);
* an agent's custom command (a Markdown or TOML file in a `commands/` directory) whose `!{…}` or "!`…`"
  markers run shell lines when the command is invoked: the lines are judged as the shell's analysis says
  (one that fetches, decodes or builds what it runs, or changes what lies outside the project).

Each is a deferred `exec` with `startup` (asked by protected_paths' startup-file rule): what runs later runs
outside the hooks. No filesystem access: only the call's own paths and texts. The same shapes hold for the texts a
shell line writes (`echo … >> ~/.xonshrc`, `printf … > ~/.cache/x`: `left_by_shell`, called by the shell's own
step): what a file IS does not depend on which tool wrote it.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterable, Mapping
from typing import Any

from hookd.enrich.build_files import is_makefile, is_users_started_file, unit_commands
from hookd.enrich.command_files import is_command_file, lines_run_later, marker_lines
from hookd.enrich.config_commands import parsed_settings
from hookd.enrich.effects.compose import MAX_SERVICES
from hookd.enrich.effects.configtext import makefile_commands, placed_changed
from hookd.enrich.effects.editor_settings import editor_settings_only
from hookd.enrich.effects.languages import code_runs_nothing
from hookd.enrich.effects.loaded import file_commands
from hookd.enrich.effects.model import EffectModel
from hookd.enrich.effects.words import CODE_LANGS, HOME_CODE_WHEN, home_code_lang, startup_language
from hookd.enrich.env_template import mark_templates
from hookd.enrich.facts import under
from hookd.enrich.gitconfig_text import plain_includes, unjudged_shell_writes
from hookd.enrich.holdings import head
from hookd.enrich.home_reach import (
    _code_lang,
    added_lines,
    analysed_line,
    code_reaching_home,
    reaches_home,
    runs_fetched,
    runs_unseen,
    touches_home,
    unit_risk,
)
from hookd.enrich.notebook_code import NOTEBOOK_SUFFIX, notebook_lines
from hookd.enrich.placed_code import MAX_PLACED_FILES, placed_text, unseen_loaded
from hookd.enrich.tree_entries import top_entries
from hookd.types import JSON

# What a configuration value may name for a program to load: code, a JVM agent, a shared library
_LOADED = "|".join(sorted({*CODE_LANGS, "jar", "so", "dylib", "node", "wasm"}))
# ... or code by its name's shape: `Gemfile`, `Rakefile`, `Vagrantfile` are the programs' own Ruby, run by name
_SCRATCH_CODE = re.compile(
    rf"""(?:^|[\s=:"'(,])((?:/tmp|/var/tmp|/dev/shm)/(?:[^\s"',;()]{{0,255}}\.(?:{_LOADED})"""
    rf"""|(?:[^\s"',;()]{{0,255}}/)?[A-Za-z][a-z]{{1,15}}file))(?=$|[\s"',;=)])""",
    re.MULTILINE,
)
# A settings key whose value is a program another program starts (a browser's native messaging host's `path`)
_PROGRAM_KEYS = frozenset({"path", "program", "executable", "binary", "bin", "exe", "interpreter", "launcher"})
_SCRATCH_ROOTS = ("/tmp/", "/var/tmp/", "/dev/shm/")
_CONFIG_SUFFIXES = (".yml", ".yaml", ".json", ".jsonc", ".json5", ".toml", ".properties", ".ini", ".cfg", ".conf",
                    ".xml", ".env")  # fmt: skip
_PROSE = (".md", ".markdown", ".mdx", ".txt", ".rst", ".adoc", ".asciidoc", ".org", ".html", ".htm", ".tex")
MAX_TEXT = 256 * 1024  # a text past this is not read for code left in it
MAX_LINES = 16


def left_for_later(
    written: Iterable[str], texts: list[str], program: str, *, home: str, project: str, known: set[str]
) -> list[dict[str, JSON]]:
    """The deferred execs of the files `written` (with the call's new `texts`), skipping the paths in `known`
    (already judged a startup file)."""
    whole = texts
    texts = [t[:MAX_TEXT] for t in texts]  # read no further, but a text cut here counts as what it may hide
    cut = any(len(t) > MAX_TEXT for t in whole)
    out: list[dict[str, JSON]] = []
    lines = _CommandLines(texts)
    for path in written:
        if path in known:
            continue
        later = _commands_later(path, texts, home, project, cut=cut) or _home_code(path, texts, home, project)
        if not later and path.endswith(NOTEBOOK_SUFFIX):  # its code cells, read as the kernel reads them
            later = later_lines(notebook_lines(texts), home, project)
        if not later:
            later = _scratch_code(path, texts, [t[MAX_TEXT:] for t in whole if len(t) > MAX_TEXT], project)
        prose = _is_prose(path, project)
        if not later and path and not prose:
            later = lines.fetched(is_makefile(path), home, project)
        if not later and not prose:  # a jest.config.js, a go.work name files too
            later = _named_file_runs(path, texts, home, project)
        if not later and not prose:
            later = next(((c, _CODE_WHEN) for t in texts if (c := code_reaching_home(path, t, home, project))), None)
        if later:
            code, when = later
            out.append({"op": "exec", "path": "", "known": bool(code["text"]), "recursive": False, "to": "",
                        "program": program, "via": "tool", "class": "unresolved", "code": code, "deferred": True,
                        "startup": path, "when": when})  # fmt: skip
        if path and ((run := lines_run_later(path, texts)) or not prose):  # a command or agent file is prose with code
            out.extend(_later_signals(path, run or lines.of(is_makefile(path)), home, project))
    return out


class _CommandLines:
    """The command lines of one call's texts (`file_commands` of each, or of what make hands the shell of each
    recipe: `@` off and `$$` made `$`), and what `_fetched_lines` finds in them: read once a call, whatever number
    of paths the call writes reads them."""

    def __init__(self, texts: list[str]) -> None:
        self._texts = texts
        self._lines: dict[bool, list[str]] = {}
        self._fetched: dict[bool, Later | None] = {}

    def of(self, makefile: bool) -> list[str]:
        found = self._lines.get(makefile)
        if found is None:
            texts = _recipes(self._texts) if makefile else self._texts
            found = self._lines[makefile] = _command_lines(texts)
        return found

    def fetched(self, makefile: bool, home: str, project: str) -> Later | None:
        if makefile not in self._fetched:
            lines, when = _fetched_from(self.of(makefile), home, project)
            self._fetched[makefile] = ({"lang": "sh", "text": "\n".join(lines)}, when) if lines else None
        found = self._fetched[makefile]
        return (dict(found[0]), found[1]) if found else None  # each path's effect its own code


def _recipes(texts: list[str]) -> list[str]:
    return ["\n".join(makefile_commands(t)) for t in texts]


def _command_lines(texts: list[str]) -> list[str]:
    return [line for text in texts for line in file_commands(added_lines(text))][:MAX_LINES]


def _later_signals(path: str, lines: list[str], home: str, project: str) -> list[dict[str, JSON]]:
    """The signals the command `lines` left in `path` send when they run (a makefile's recipes as make hands them
    to the shell, any other file's lines as `_fetched_lines` reads them): each a deferred `signal` effect, judged
    by the rules that judge a signal sent now (one that stops the guard is denied, another passes)."""
    return [
        {**e, "via": "tool", "deferred": True, "startup": path}
        for line in lines
        for e in analysed_line(line, home, project) or ()
        if e["op"] == "signal"
    ]


Later = tuple[dict[str, JSON], str]


def written_later(model: EffectModel, *, home: str, project: str) -> list[dict[str, JSON]]:
    """What a shell line's writes leave to judge beyond their own effects: code for another program to run later
    (`left_by_shell`), and a git configuration written whole (gitconfig_text.unjudged_shell_writes)."""
    effects = model.effects
    mark_templates(effects, model.ledger.contents)  # a .env filled in from its template (env_template.py)
    plain_includes(effects, home, model.ledger.produced)  # `git config include.path F`: judged by what F holds
    top_entries(effects, home, model.ledger.produced)  # `rsync -a ~/.claude/ …`: which stores it may hold now
    settle_units(effects, home, project)  # `cp deploy/app.service ~/.config/systemd/user/`: judged as a file tool's
    settings_texts(effects, model.ledger.contents)  # `printf '…' >> .codex/config.toml`: judged by its keys
    return [
        *left_by_shell(effects, model.ledger.contents, home=home, project=project, made=model.ledger.produced),
        *unjudged_shell_writes(effects, home, project),
        *placed_changed(effects),
    ]


def settings_texts(effects: list[dict[str, Any]], contents: Mapping[str, str]) -> None:
    """The text a line's one write of a settings file (JSON, TOML, YAML) puts there, where the line shows it (echo's,
    printf's, a here-document's): on the write as `text`, for hookd.selfprotect_edits to judge the file by its keys."""
    writes: dict[str, list[dict[str, Any]]] = {}
    for effect in effects:
        if effect["op"] != "exec" and effect.get("path"):
            writes.setdefault(str(effect["path"]), []).append(effect)
    for path, changes in writes.items():
        only = changes[0]
        if len(changes) == 1 and only["op"] == "write" and path.endswith(_CONFIG_SUFFIXES) and path in contents:
            only.setdefault("text", contents[path])


def settle_units(effects: list[dict[str, Any]], home: str, project: str) -> None:
    """A user's unit or drop-in a shell line writes whole with a text the line shows (printf's, a copy's source) is
    judged as a file tool's write of it is (tool_later.judged_unit): the commands of its `Exec*=` lines are judged
    as run now (the effect model follows them), and its deferred exec is kept (asked) only where one of them does
    more than a plain program start. A settled unit's text goes on its write (`text`: hookd.selfprotect judges it
    by name and text). A link, or more than one write of the file, keeps it asked: the text may change unseen."""
    for at in range(len(effects) - 1, -1, -1):
        e, path = effects[at], str(effects[at].get("startup") or "")
        code = e.get("code")
        if e["op"] != "exec" or e.get("known") is not True or e.get("when") or not isinstance(code, dict):
            continue
        if not (e.get("deferred") and is_users_started_file(path) and isinstance(text := code.get("text"), str)):
            continue
        if _UNSHOWN.search(text):  # words echoed as the line spells them (`$(…)`, `\n` of `echo -e`): not the text
            continue
        writes = [w for w in effects if w["op"] in ("write", "link") and path in (w.get("path"), w.get("to"))]
        if len(writes) != 1 or writes[0]["op"] != "write" or writes[0].get("target_of") == "link":
            continue
        lines = unit_commands(text)
        if len(lines) < MAX_SERVICES and all(_plain_start(line, path, home, project) for line in lines):
            writes[0]["text"] = text
            del effects[at]


_UNSHOWN = re.compile(r"[$`\\]")


def _plain_start(line: str, unit: str, home: str, project: str) -> bool:
    """A unit's command line that starts a program and does nothing `judged_unit` asks about."""
    effects = analysed_line(line, home, project)
    if effects is None or runs_fetched(effects) or reaches_home(effects, home, project):
        return False
    if named_script_runs_later(line, unit, home, project):
        return False
    unseen = any(e.get("flow") or (e["op"] == "exec" and e.get("known") is False) for e in effects)
    return not unseen and not any(unit_risk(e, home, project) for e in effects)


def left_by_shell(
    effects: list[dict[str, Any]],
    contents: dict[str, str],
    *,
    home: str,
    project: str,
    made: Mapping[str, str] | None = None,
) -> list[dict[str, JSON]]:
    """Code a shell line's writes (`effects`, with the texts the line wrote: `contents`; `made`: the paths it made
    unseen) leave for another program to run later, in files no startup table names, judged as a file tool's write
    of the same text is: `echo 'curl … | sh' >> ~/.xonshrc`, a `~/.sbt/1.0/global.sbt` whose string literal fetches
    and runs, a script left in `~/.cache`, and the text a copy, move or link puts in place (`cp x.sh Makefile`:
    placed_code). A shell's own startup file (judged by the effect model, and passed when it only sets variables)
    and a file the model already found run later are not judged again."""
    if not home:
        return []
    started = {str(e["startup"]) for e in effects if e["op"] == "exec" and e.get("startup")}
    out: list[dict[str, JSON]] = []
    read = 0
    for effect in effects:
        path = effect["path"]
        if effect["op"] != "write" or not path or path in started:
            continue
        text = contents.get(path)
        program = str(effect.get("program") or "shell")
        if text is None and not under(path, project):  # (the home's files placed: the effect model's _home_code)
            continue
        if text is None and effect.get("target_of") and (read := read + 1) > MAX_PLACED_FILES:
            out += unseen_loaded(path, program)  # (a copy's source read for at most so many of a line)
            continue
        if text is None:
            unseen, text = placed_text(effect, effects, contents, made or {})
            out += unseen_loaded(path, program) if unseen and text is None else []
        if text is None:
            continue
        started.add(path)
        if startup_language(path, home) != "sh":
            later = left_for_later([path], [text], program, home=home, project=project, known=set())
            out.extend(dict(e, via="shell") for e in later)
    return out


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
REACH_WHEN = "command lines that delete in the home, or send what they read from the home or the environment"


def _fetched_lines(texts: list[str], home: str, project: str) -> tuple[list[str], str]:
    """The command lines of the texts that run what they download or decode (`curl … | sh`, `curl -o x && sh
    x`, `base64 -d | sh`), else those that together reach into the home (`reaches_home`: `rm -rf ~/x`, `cat
    ~/.ssh/id_ed25519 | curl -d @- …`, a key copied on one line and uploaded on the next), with the reason:
    left in a code or configuration file (anything but prose, whatever program reads it: a `[hooks]` table, a
    git hook, an editor's exrc, a test runner's conftest.py, a package's lifecycle script, another agent's hook
    script or MCP server entry), a deferred exec. The lines are those the effect model walks in any file
    (loaded.file_commands: settings, lines, string literals, substitutions), each judged by the shell's
    analysis."""
    return _fetched_from(_command_lines(texts), home, project)


def _fetched_from(lines: list[str], home: str, project: str) -> tuple[list[str], str]:
    """`_fetched_lines` of the command lines read from the texts."""
    analysed = [(line, analysed_line(line, home, project)) for line in lines]
    fetched = [line for line, effects in analysed if effects is None or runs_fetched(effects)]
    if fetched:
        return fetched, _FETCHED_WHEN
    every = [e for _line, effects in analysed for e in effects or ()]
    if not reaches_home(every, home, project):
        return [], ""
    return [line for line, effects in analysed if effects and touches_home(effects, home, project)], REACH_WHEN


def later_lines(lines: list[str], home: str, project: str) -> Later | None:
    """The command `lines` that fetch or decode what they run, or reach into the home (`_fetched_from`), as code."""
    found, when = _fetched_from(lines, home, project)
    return ({"lang": "sh", "text": "\n".join(found)}, when) if found else None


def named_script_runs_later(line: str, config: str, home: str, project: str) -> bool:
    """A command for later that names a script file (`./hooks/format.sh`, relative to the configuration file
    that names it, as Cursor's hooks.json and Claude Code's settings resolve it, or to the project): the script's
    text (its first MAX_SCRIPT bytes, a regular file, never through a link) holds lines that run what they
    download or decode, or reach into the home (`_fetched_lines`). Read at decision time (TOCTOU: the script may
    change later; this widens what is asked, it is never a reason to allow)."""
    try:
        program = shlex.split(line)[0] if line.strip() else ""
    except ValueError:
        return False
    if "/" not in program or program.startswith("~"):
        return False
    places = (
        [program]
        if program.startswith("/")
        else [os.path.join(os.path.dirname(config), program), os.path.join(project, program)]
    )
    text = next((t for p in places if (t := head(os.path.normpath(p), MAX_SCRIPT)) is not None), None)
    return text is not None and bool(_fetched_lines([text], home, project)[0])


MAX_SCRIPT = 64 * 1024
_NAMED_WHEN = "a configuration naming a file whose lines run what they download or decode, or reach into the home"
_WORD = re.compile(r"""[^\s"'=,;()\[\]{}<>|]+""")
_MODULE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?::[A-Za-z_]\w*)?")
_MAX_NAMED = 16


def _named_file_runs(config: str, texts: list[str], home: str, project: str) -> Later | None:
    """A configuration that names a file another program loads or runs from it (kitty's `startup_session
    ~/.config/kitty/launch.conf`, flake8's local plugin `tools.lint:Checker`, mypy's `plugins = ./p.py`): a path
    (`~/…`, absolute, or relative to the configuration or the project) or a Python module's dotted name, naming
    a regular file (never through a link) that is no document: its first MAX_SCRIPT bytes judged as
    `_fetched_lines` judges any file's text. Only names on lines the configuration did not hold before count (a
    version bumped in a `package.json` whose scripts name a setup script is no new reference; npm's inert
    `_postinstall` renamed `postinstall` is). Read at decision time
    (TOCTOU: it widens what is asked)."""
    seen: set[str] = set()
    before = head(config, MAX_TEXT) or ""  # a name on a line the file held already is no new reference
    held = {line.strip() for line in before.splitlines()}  # (a line changed around it is: a key renamed)
    for text in texts:
        fresh = "\n".join(line for line in added_lines(text).splitlines() if line.strip() not in held)
        for word in [*_backend_files(fresh), *_WORD.findall(fresh)][:256]:
            for place in _places(word, config, home, project):
                if len(seen) >= _MAX_NAMED or place in seen or place == config or _is_prose(place, project):
                    continue
                seen.add(place)
                if any(_code_runs(f, t, home, project) for f, t in _named_texts(place)):
                    return {"lang": "text", "text": place}, f"{_NAMED_WHEN} ({place})"
    return None


def _code_runs(path: str, text: str, home: str, project: str) -> bool:
    return bool(_fetched_lines([text], home, project)[0] or code_reaching_home(path, text, home, project))


MAX_DIR_CODE = 8  # the code files of a named directory read (its first entries, no walk below it)


def _named_texts(place: str) -> list[tuple[str, str]]:
    """The text of the regular file at `place`; for a directory (never through a link: a go.work `replace`, a
    plugin directory, an installation prefix a version manager runs from), that of its first code files and scripts
    (a `#!` line), and those of its `bin/`: a program builds, loads or runs the code a directory holds."""
    named = head(place, MAX_SCRIPT)
    if named is not None or os.path.islink(place) or not os.path.isdir(place):
        return [(place, named)] if named else []
    files = [*_entries(place), *_entries(os.path.join(place, "bin"))]  # a prefix's programs are in its bin/
    code = [f for f in files if _code_lang(f) or f.endswith(".go") or head(f, 2) == "#!"][:MAX_DIR_CODE]
    return [(f, t) for f in code if (t := head(f, MAX_SCRIPT))]


def _entries(directory: str) -> list[str]:
    """The first entries of a directory (never through a link), or none."""
    if os.path.islink(directory) or not os.path.isdir(directory):
        return []
    try:
        with os.scandir(directory) as entries:
            return [e.path for _, e in zip(range(4 * MAX_DIR_CODE), entries, strict=False)]
    except (OSError, ValueError):
        return []


# A PEP 517 in-tree backend: pip imports `build-backend` from the `backend-path` directories to build the project
# (https://peps.python.org/pep-0517/#in-tree-build-backends)
_BACKEND = re.compile(r"""build-backend\s*=\s*["']([A-Za-z_][\w.]*)(?::\w+)?["']""")
_BACKEND_PATH = re.compile(r"backend-path\s*=\s*\[([^\]]*)\]")


def _backend_files(text: str) -> list[str]:
    """The source files an in-tree backend's module may be (`_build/backend.py`, `_build/backend/__init__.py`)."""
    module, paths = _BACKEND.search(text), _BACKEND_PATH.search(text)
    if module is None or paths is None:
        return []
    stem = module.group(1).replace(".", "/")
    dirs = re.findall(r"""["']([^"']+)["']""", paths.group(1))[:4]
    return [f"{d.rstrip('/')}/{stem}{end}" for d in dirs for end in (".py", "/__init__.py")]


def _places(word: str, config: str, home: str, project: str) -> list[str]:
    """Where a configuration's word may name a file: a path as written, or a dotted module's source file."""
    if _MODULE.fullmatch(word) and not word.rpartition(".")[2].isdigit():
        stem = word.partition(":")[0].replace(".", "/")
        bases = (project, os.path.dirname(config))
        return [os.path.join(b, stem + end) for b in bases for end in (".py", "/__init__.py")]
    if "/" not in word or "://" in word:
        return []
    scheme, colon, rest = word.partition(":")
    if colon and scheme.isalpha() and rest.startswith(("/", "~/", "./", "../")):
        word = rest  # a version manager's `path:DIR` (asdf's .tool-versions), npm's `file:../x`: the path after it
    if word.startswith("~/"):
        return [os.path.normpath(home + word[1:])]
    if word.startswith("/"):
        return [os.path.normpath(word)]
    return [os.path.normpath(os.path.join(b, word)) for b in (os.path.dirname(config), project)]


_CODE_WHEN = "code that deletes in the home, or sends what it reads from the home, when a program loads the file"


def _home_code(path: str, texts: list[str], home: str, project: str) -> Later | None:
    """Code written into a dot-directory (or a dotfile) of the home, outside the project and the caches."""
    if texts and all(editor_settings_only(path, added_lines(t)) for t in texts):
        return None  # an editor's init file given options only (effects/editor_settings.py)
    first = next((_added_text(t) for t in texts), None)
    lang = home_code_lang(path, home, project, first)
    if lang is None and _home_rc(path, home, project):
        # a run-commands file (`direnvrc`): code when its lines fetch or build what they run
        lang = "sh" if any(runs_unseen(text, home, project) for text in _lines(texts)) else None
    if lang is None or (texts and all(code_runs_nothing(lang, added_lines(t)) for t in texts)):
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


def _scratch_code(path: str, texts: list[str], unread: list[str], project: str) -> Later | None:
    """A configuration text that names code in scratch space for a program to load, by its extension or its
    name's shape, or a program there under a key naming what another program starts (or scratch space at all in
    what lies past the part read)."""
    if not is_configuration(path):
        return None
    if any(root in rest for rest in unread for root in _SCRATCH_ROOTS):
        return {"lang": "text", "text": ""}, "a configuration too long to read that names scratch space"
    for text in map(added_lines, texts):  # a patch's lines added, not its headers (the file's own name)
        found = (m.group(1) for m in _SCRATCH_CODE.finditer(text) if not under(m.group(1), project))
        named = next(found, "") or _scratch_program(text, project)
        if named:
            return {"lang": "text", "text": named}, f"a configuration naming code in scratch space ({named})"
    return None


def is_configuration(path: str) -> bool:
    """A configuration file by its name: a configuration format's extension, a dotfile, or any file below a
    dot-directory (`.mvn/jvm.config`, `~/.bundle/config`, `~/.config/sway/config`: a program's own settings)."""
    directory, _, base = path.rpartition("/")
    return (
        base.endswith(_CONFIG_SUFFIXES)
        or (base.startswith(".") and "." not in base[1:])
        or any(part.startswith(".") and part not in (".", "..") for part in directory.split("/"))
    )


def _scratch_program(text: str, project: str) -> str:
    """The first value of a settings text (JSON, TOML, YAML) under a key naming a program to start that is a file
    in scratch space (`"path": "/tmp/.b/host"`), or ``."""
    parsed = parsed_settings(text) if "/" in text else None
    stack: list[Any] = [parsed] if parsed is not None else []
    budget = 1024
    while stack and budget > 0:
        node = stack.pop()
        budget -= 1
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in items:
            if isinstance(value, (dict, list)):
                stack.append(value)
            elif _names_scratch_program(key, value, project):
                return str(value)
    return ""


def _names_scratch_program(key: object, value: object, project: str) -> bool:
    return (
        isinstance(key, str)
        and key.lower() in _PROGRAM_KEYS
        and isinstance(value, str)
        and value.startswith(_SCRATCH_ROOTS)
        and not under(value, project)
    )


def _commands_later(path: str, texts: list[str], home: str, project: str, *, cut: bool) -> Later | None:
    """An agent's custom command whose markers run shell lines when it is invoked (more markers than are read,
    or a text cut before its end, count as lines that may run anything)."""
    if not is_command_file(path):
        return None
    lines = marker_lines(texts)
    if cut or len(lines) > MAX_LINES:
        return {"lang": "sh", "text": ""}, "shell lines an agent's custom command runs when invoked (too many to read)"
    risky = [line for line in lines if runs_unseen(line, home, project, changes=True)]
    if not risky:
        return None
    return {"lang": "sh", "text": "\n".join(risky)}, "shell lines an agent's custom command runs when invoked"


def _lines(texts: list[str]) -> list[str]:
    return [t for t in texts if t.strip()][:MAX_LINES]
