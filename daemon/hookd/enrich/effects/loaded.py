"""Files the line wrote, then handed to a program that may run them (docs/policies.md, "The effect model").

`curl -o x.sh … && sh x.sh` is followed where a shell or interpreter takes its script (code.py, `run_file`);
the same flow reaches any program that loads code from a file it is given: `go run /tmp/m.go`, `pandoc -L
f.lua`, `wg-quick up wg0.conf` (its `PostUp`), `cowsay -f x.cow` (Perl), `systemctl link x.service` (its
`ExecStart`), `COMPOSER=/tmp/c.json composer run-script x`. By mechanism, not by those programs: a path the
line wrote (or downloaded, or decoded) that a later command names as an operand, an option's value or an
environment variable's value (or loads unnamed from its directory: `implicit_files`, a Makefile), when the
catalogue does not say what that command does with it (no effect of its own: not a read, a write, a copy,
…; a code-file option's file, `awk -f F`, is loaded though read) and the program may run code (GTFOBins'
shell, command or inherit functions, a `runs` hook, a launcher) or is not in the catalogue at all. Then
the file's text is code that program runs: an `exec` of the file. The command lines its text holds
(`ExecStart=…`, `PostUp = …`, a recipe line, a JSON script, backticks) are walked as scripts of their own,
so `rm -rf ~` there is judged as itself; it is `known` when it is not a program's source by its extension
and holds no command line or has every line followed (settings, sections, command lines): else asked.

`file_commands` is also how a file run later (a startup file, a service unit in place) shows its commands.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Collection, Mapping
from typing import Any

from hookd.enrich.effects.catalogue import Program, catalogue
from hookd.enrich.effects.configtext import make_runs_only_recipes, makefile_commands
from hookd.enrich.effects.handed import is_command_line, literal_commands
from hookd.enrich.effects.languages import follow_code
from hookd.enrich.effects.ledger import CommandView, Followups, Ledger, Place
from hookd.enrich.effects.options import parse
from hookd.enrich.effects.words import _NOTHING, SHELLS, _dynamic, named_by_options
from hookd.enrich.holdings import head

# GTFOBins functions of a program that runs code it is given (https://gtfobins.github.io/#+shell)
_RUNS_CODE = frozenset({"shell", "command", "inherit", "reverse-shell", "bind-shell", "library-load"})
# `key = value`, `key: value`, `"key": "value"`: a setting whose value may be a command line
# (matched on a stripped line, its value's trailing white space and comma cut by `_setting`: a pattern that
# tried them took time cubic in a line's run of spaces)
_SETTING = re.compile(r"""(?:-\s+)?"?[\w.@/-]+"?\s*[=:]\s*(.+)""")
_SUBSTITUTED = re.compile(r"`([^`]+)`|\$\(([^()]+)\)")
# a line that runs nothing: blank, a comment, a section, punctuation, a key or a make target alone
_PLAIN_LINE = re.compile(r"""(?:[#;].*|//.*|\[[^\]]*\]|[{}\[\],]+|-?\s*"?[\w.@/%-]+"?\s*:)?""")  # a stripped line
_GLOB = re.compile(r"[*?\[]")  # a pattern: what it matches is judged by the command's own effects
_SETTING_KEY = re.compile(r"[A-Za-z][\w.-]*")  # the name in a `NAME=VALUE` word an option hands on
_MAX_COMMANDS = 16  # command lines of one file walked (each is parsed as a script: the cost stays linear)
_MAX_COMMAND = 4096  # characters of one
_MAX_LINES = 256  # lines of a written file looked at for settings (the input caps bound its size)
# A configuration or build language's reference to an environment variable, which the tool (or the code that
# builds the command line) substitutes before the command runs: tox's `{env:HOME}`
# (https://tox.wiki/en/latest/config.html, "Environment variable substitutions"), dev containers'
# `${localEnv:HOME}` and `${containerEnv:HOME}` (the devcontainer.json reference, "Variables in
# devcontainer.json"), VS Code's `${env:HOME}`, each with an optional `:default`; dune's `%{env:HOME=default}`
# (https://dune.readthedocs.io/en/stable/concepts/variables.html); CMake's and Perl's `$ENV{HOME}`
# (https://cmake.org/cmake/help/latest/variable/ENV.html, https://perldoc.perl.org/perlvar#%ENV); a JavaScript
# template literal's `${process.env.HOME}` or `${Bun.env.HOME}` (https://nodejs.org/api/process.html#processenv,
# https://bun.com/docs/runtime/shell). Each is walked as the shell's `${HOME}`.
_NAME = r"([A-Za-z_][A-Za-z0-9_]*)"
_TOOL_ENVIRONMENT = re.compile(
    rf"\$?\{{(?:env|localEnv|containerEnv):{_NAME}(?::[^{{}}\s]*)?\}}|%\{{env:{_NAME}(?:=[^{{}}\s]*)?\}}"
    rf"|\$ENV\{{{_NAME}\}}|\$\{{\s*(?:process|Bun)\.env\.{_NAME}\s*\}}"
)


def tool_environment(command: str) -> str:
    """`command` with each tool's reference to an environment variable written as the shell's `${NAME}`."""
    return _TOOL_ENVIRONMENT.sub(lambda m: "${" + next(g for g in m.groups() if g) + "}", command)


def may_run_files(program: Program | None) -> bool:
    """A program that may run code given in a file: one the catalogue does not know, or one it knows to run
    code it is handed (GTFOBins' functions, a `runs` hook, a launcher, a file of code by option)."""
    if program is None:
        return True
    return bool(
        program.runs
        or program.implicit_files
        or program.launcher is not None
        or program.code_file_options
        or program.task_modules is not None  # a module runs a script it is given (`ansible -m script -a F`)
        or bool(program.project_runs)  # a runner of the project's build files runs one it is handed (`--init-script`)
        or not program.gtfobins.isdisjoint(_RUNS_CODE)
    )


def loaded_files(ledger: Ledger, view: CommandView, place: Place, follow: Followups, start: int) -> None:
    """The exec effects of files the line made that this command is handed (see the module doc); `start`:
    where this command's own effects begin."""
    if not view.argv or view.name in _NOTHING or view.name in SHELLS:
        return
    program = catalogue().get(view.name)
    if program is not None and program.rewrites_configured is not None:
        _configurations_on_disk(ledger, view, place, program.rewrites_configured)
    if not ledger.produced:
        return
    # a file it links somewhere (`systemctl link U`) is still loaded from there later: its commands are walked
    judged = {e["path"] for e in ledger.effects[start:] if e["path"] and not e.get("guess") and e["op"] != "link"}
    implicit = program.implicit_files if program is not None else ()
    for name in [*implicit, *_own_configurations(ledger, view, place, program)]:  # `… > Makefile && make`
        placed = place(name)
        kind = ledger.produced.get(str(placed.get("path") or ""))
        if kind is not None and placed["path"] not in judged:
            judged.add(placed["path"])
            _loaded(ledger, placed, view.name, kind, follow, catalogued=True)
    if not may_run_files(program) or (
        program is not None and (program.script_operand or program.compiles or program.builds)
    ):  # an interpreter runs its script (code.py), the words after it are the script's arguments; a compiler's
        # sources are built into the file it names, judged where that runs (entries.compiled); a package
        # installer's directory is judged by code.package_dirs
        return
    code_files: list[str] = []
    if program is not None and program.code_file_options:  # `awk -f F`, `make -f F`: F is read as its code
        code_files = program.code_files(parse(view.argv, program.table).options)
    _handed_files(ledger, view, place, follow, (program, code_files, judged))
    if program is not None and program.rewrites_configured is not None:
        for path in _directory_configurations(ledger, view, place, judged):
            _loaded(ledger, place(path), view.name, ledger.produced[path], follow, catalogued=True)
        _configured_rewrites(ledger, view, place, start, program.rewrites_configured)


def _handed_files(
    ledger: Ledger,
    view: CommandView,
    place: Place,
    follow: Followups,
    given: tuple[Program | None, list[str], set[str]],
) -> None:
    """The files the line made among the words it hands the program, and its code files (`given`: the program,
    its code files, the paths already judged, which this adds to)."""
    program, code_files, judged = given
    code_paths = {str(place(v).get("path") or "") for v in code_files}
    judged -= code_paths
    patterns = program.pattern_options if program is not None else frozenset()
    for word in [*_handed_words(view, patterns), *code_files]:  # (`-l F.py:Lexer` hands F.py in a word of its own)
        placed = place(word)
        path = str(placed.get("path") or "")
        kind = ledger.produced.get(path)
        if path and path not in judged:  # `--rulesdir D`: the files the line wrote below D
            for below, made in [(b, m) for b, m in _made_below(ledger, path) if b not in judged]:  # (not its own)
                _loaded(ledger, place(below), view.name, made, follow, catalogued=program is not None)
        if kind is None or path in judged:
            continue
        judged.add(path)
        lang = program.code_file_lang if program is not None and path in code_paths else None
        _loaded(ledger, placed, view.name, kind, follow, catalogued=program is not None, lang=lang)


def _made_below(ledger: Ledger, directory: str) -> list[tuple[str, str]]:
    """The files the line made below a directory a command is handed (`eslint --rulesdir /tmp/rules`, a plugin or
    hook directory a tool loads every file of): each is handed to it as a file would be."""
    prefix = directory.rstrip("/") + "/"
    return [(path, kind) for path, kind in ledger.produced.items() if path.startswith(prefix)][:_MAX_COMMANDS]


def _directory_configurations(ledger: Ledger, view: CommandView, place: Place, judged: set[str]) -> list[str]:
    """The files the line wrote in a directory handed to a program that reads configurations (logrotate(8): "if
    a directory is given on the command line, every file in that directory is used as a config file")."""
    handed = {str(place(word).get("path") or "") for word in _handed_words(view)} - {""}
    return [p for p in ledger.produced if p.rpartition("/")[0] in handed and p not in judged][:_MAX_COMMANDS]


_STANZA = re.compile(r"^[ \t]*((?:\"[^\"\n]+\"|[^\s{#\"]+)(?:[ \t]+(?:\"[^\"\n]+\"|[^\s{#\"]+))*)[ \t]*\{", re.M)


def _configured_rewrites(ledger: Ledger, view: CommandView, place: Place, start: int, inert: frozenset[str]) -> None:
    """`logrotate -f CONF` of a configuration the line wrote: each stanza's files are rewritten (rotated,
    truncated, removed), as a write of each (under an option that changes nothing, `-d`, none is)."""
    if not inert.isdisjoint(view.argv[1:]):
        return
    loaded = [e for e in ledger.effects[start:] if e["op"] == "exec" and e.get("loaded")]
    for text in [str(e["code"]["text"]) for e in loaded if e.get("code")]:
        _stanza_writes(ledger, view, place, text)


def _stanza_writes(ledger: Ledger, view: CommandView, place: Place, text: str) -> None:
    for heads in _STANZA.findall(text):
        for word in re.findall(r'"([^"]+)"|(\S+)', heads):
            ledger.add("write", place(word[0] or word[1]), view.name)


_MAX_ON_DISK = 64 * 1024  # bytes of one configuration read at decision time


def _configurations_on_disk(ledger: Ledger, view: CommandView, place: Place, inert: frozenset[str]) -> None:
    """`logrotate -f CONF` of a configuration already on disk (left by an earlier call, which rotated nothing then):
    each handed file the line did not write, or each file of a handed directory (logrotate(8)), is read at decision
    time (at most _MAX_ON_DISK bytes, _MAX_COMMANDS files) and its stanzas' files are writes, as for one it wrote."""
    if not inert.isdisjoint(view.argv[1:]):
        return
    for word in _handed_words(view):
        path = str(place(word).get("path") or "")
        if not path.startswith("/") or path in ledger.produced:
            continue
        try:
            names = sorted(os.listdir(path))[:_MAX_COMMANDS] if os.path.isdir(path) else [""]
        except OSError:
            continue
        for name in names:
            text = head(os.path.join(path, name) if name else path, _MAX_ON_DISK, follow=True)
            if text is not None:
                _stanza_writes(ledger, view, place, text)


def _own_configurations(ledger: Ledger, view: CommandView, place: Place, program: Program | None) -> list[str]:
    """Files the line wrote in the directory this command runs in that are named after the program, which reads
    them there unnamed by convention (`tox.ini` for tox, `Vagrantfile` for vagrant, `.devcontainer.json` or
    `.devcontainer/devcontainer.json` for devcontainer, `noxfile.py`, `Brewfile`, `Tiltfile`, `skaffold.yaml`,
    `docker-compose.yml`): by the name's shape, not a list of programs (a list is `implicit_files`). Each is
    relative to the working directory; none for a shell or interpreter (its script is its operand)."""
    name = view.name.lower()
    if len(name) < 3 or (program is not None and program.script_operand):
        return []
    here = str(place(".").get("path") or "")
    found = []
    for path in ledger.produced:
        directory, _, base = path.rpartition("/")
        if directory == here and _names_program(base, name):
            found.append(base)
        elif _in_own_directory(directory, here, name) and _names_program(base, name):
            found.append(directory.rpartition("/")[2] + "/" + base)  # `.devcontainer/devcontainer.json`
    return found[:_MAX_COMMANDS]


def _in_own_directory(directory: str, here: str, name: str) -> bool:
    parent, _, own = directory.rpartition("/")
    return parent == here and own.lstrip(".").lower() == name


def _names_program(base: str, name: str) -> bool:
    """`base` is a configuration named after program `name`, in any case: the name alone or followed by `file`
    (`Vagrantfile`, `noxfile.py`), or with a configuration format's extension, after at most one more word
    (`tox.ini`, `.devcontainer.json`, `docker-compose.yml`; not `git-cleanup.sh`, `git.txt`); or with the
    program's name as its extension (`x.nimble` for nimble, `x.cabal` for cabal), unless that extension is a
    language's own (`main.go` is go's source, judged where it is built)."""
    stem = base.lstrip(".").lower()
    if stem.endswith("." + name) and len(stem) > len(name) + 1:
        return "." + name not in catalogue().code_extensions
    if not stem.startswith(name):
        return False
    rest = stem[len(name) :]
    if rest in ("", "file") or (rest.startswith("file.") and "." not in rest[5:]):
        return True
    word, dot, extension = rest.rpartition(".")
    return bool(dot) and extension in _CONFIG_FORMATS and (not word or (word[0] in "-_" and word[1:].isalnum()))


_CONFIG_FORMATS = frozenset({"ini", "toml", "yaml", "yml", "json", "jsonc", "json5", "cfg", "conf", "hcl", "xml"})


def _handed_words(view: CommandView, patterns: frozenset[str] = frozenset()) -> list[str]:
    """The words that may name a file: operands, option values (`-L f`, `--filter=f`), environment values; not
    those it hands a command it runs, whose effects are that command's, nor the values of its options that take a
    pattern (`patterns`: `go test -bench .` matches benchmark names by a regular expression, `.` no directory)."""
    words = []
    pattern = False  # the word is the value of a pattern option before it
    for word in [*view.argv[1:], *view.env.values()]:
        value = word.split("=", 1)[1] if word.startswith("-") and "=" in word else word
        if pattern or word.split("=", 1)[0] in patterns:
            pattern = not pattern and "=" not in word
            continue
        if word in view.handed:  # handed to a command it runs (`find -exec tar -xf F {} +`): judged there
            continue
        if value and not value.startswith("-") and not _dynamic(value) and not _GLOB.search(value):
            words.append(value)
            key, equals, setting = value.partition("=")  # `-o PKCS11Provider=/tmp/p.so`: a setting names the file
            if equals and setting and _SETTING_KEY.fullmatch(key):
                words.append(setting)
    return words


def _loaded(
    ledger: Ledger,
    placed: Mapping[str, Any],
    name: str,
    kind: str,
    follow: Followups,
    *,
    catalogued: bool,
    lang: str | None = None,
) -> None:
    """`lang`: the language the program reads the file as (`make -f F`: a makefile), else its extension's."""
    path = str(placed.get("path") or "")
    if path in ledger.loaded:  # `deno task t` of a deno.json whose task runs deno again: its lines are walked once
        return
    ledger.loaded.add(path)
    text = ledger.contents.get(path) if kind == "write" else None
    lang = lang or _extension_language(path)
    extra: dict[str, Any] = {"loaded": kind}
    # fetched or decoded for a program that runs code, or a program's source written otherwise (`mkdir d`, a
    # report redirected: not code): what it holds hookd cannot see
    if text is None and ((catalogued and kind != "write") or lang is not None):
        ledger.add("exec", placed, name, code={"lang": lang or "text", "text": ""}, known=False, **extra)
        return
    if text is None:
        return
    if lang == "make":  # its recipes as the shell gets them (`$$` is `$`), and nothing else of it reaches
        commands, known = makefile_commands(text), make_runs_only_recipes(text)
        ledger.add("exec", placed, name, code={"lang": lang, "text": text}, known=known, **extra)
        follow.scripts.extend(commands)
        return
    commands, covered = _read_lines(text)
    known = lang is None and (covered or not commands)  # its commands are all it runs, or it holds none
    if lang is not None and not commands and lang in catalogue().languages:
        followed = follow_code(lang, text)
        commands, known = list(followed.commands), followed.known
        follow.scripts.extend(followed.files)
    ledger.add("exec", placed, name, code={"lang": lang or "text", "text": text}, known=known, **extra)
    follow.scripts.extend(tool_environment(command) for command in commands)


def _extension_language(path: str) -> str | None:
    base = path.rsplit("/", 1)[-1]
    dot = base.rfind(".")
    return catalogue().code_extensions.get(base[dot:]) if dot > 0 else None


def file_commands(text: str) -> list[str]:
    """The command lines a file's text holds: a setting's value that reads as one (`ExecStart=/bin/sh -c …`,
    `PostUp = rm -rf …`, `"build": "make && ./x"`), a line that is one (a recipe, a tmux or vim script, `:!cmd`),
    a string literal that does, a substitution (`` `cmd` ``, `$(cmd)`)."""
    return _read_lines(text)[0]


def _setting(line: str) -> str | None:
    """The value of a stripped line that is a setting (`key = value,`), None when it is not one."""
    matched = _SETTING.fullmatch(line)
    if matched is None:
        return None
    value = matched.group(1)  # ends in no white space: the line is stripped
    if len(value) > 1 and value.endswith(","):
        value = value[:-1].rstrip()
    return value


def _read_lines(text: str) -> tuple[list[str], bool]:
    """`file_commands`, and whether every line is followed: a command line, a setting, a section, a key or a
    target (`build:`), punctuation, a comment or blank (a unit, a WireGuard or INI file, a Makefile of
    recipes): then its commands, each judged as itself, are all it runs."""
    data = _json(text)
    if data is not None:  # a JSON document, on one line or many: its strings are settings' values
        found = [v for v in _strings(data) if is_command_line(v)]
        walked = [tool_environment(c) for c in found if len(c) <= _MAX_COMMAND][:_MAX_COMMANDS]
        return walked, len(walked) == len(found)
    found = []
    lines = text.splitlines()
    covered = len(lines) <= _MAX_LINES
    for line in lines[:_MAX_LINES]:
        stripped = line.strip()
        setting = _setting(stripped)
        value = setting if setting is not None else stripped
        value = value[2:].lstrip() if setting is None and value.startswith("- ") else value  # a YAML list's entry
        if len(value) > 1 and value[0] == value[-1] and value[0] in "\"'":  # `"build": "make && ./x"`
            value = _json_string(value) if value[0] == '"' and "\\" in value else value[1:-1]
        value = value.lstrip(":!").strip() if value.startswith(("!", ":!")) else value  # `x = !cmd`, vim's `:!cmd`
        value = directed(value) if setting is None else value  # a Dockerfile's `RUN …`, `HEALTHCHECK CMD …`
        ran = option_commands(value, command_options())  # `org.gradle.jvmargs=… -XX:OnOutOfMemoryError="cmd"`
        if ran or is_command_line(value):
            found.extend(ran or [value])
            continue
        substituted = [m.group(1) or m.group(2) for m in _SUBSTITUTED.finditer(line)]
        found.extend(substituted)
        covered = covered and (setting is not None or _PLAIN_LINE.fullmatch(stripped) is not None) and not substituted
    if not found or not covered:  # a line not followed may hold a command in a string literal (build.rs's
        literals = [c for c in literal_commands(text) if c not in found]  # `.arg("curl … | sh")` after a `println!`)
        found += literals
        covered = covered and not literals
    walked = [tool_environment(c) for c in found if len(c) <= _MAX_COMMAND][:_MAX_COMMANDS]
    return walked, covered and len(walked) == len(found)  # the rest, not followed: asked


def directed(line: str) -> str:
    """The command line a build file's instruction runs (the catalogue's `command_directives`: a Dockerfile's `RUN`,
    `CMD`, `ENTRYPOINT`, also after `HEALTHCHECK` or `ONBUILD`), its own `--options` left out and an exec form's JSON
    array as its words; `line` itself when it is no such instruction."""
    rest, known = line, catalogue().command_directives
    for _ in range(_MAX_DIRECTIVES):
        head, _, after = rest.partition(" ")
        if head.upper() not in known:
            break
        rest = after.lstrip()
        while rest.startswith("--"):  # `RUN --mount=type=cache,target=/root/.npm npm ci`
            rest = rest.partition(" ")[2].lstrip()
    if rest is line or not rest.startswith("["):
        return rest
    try:
        argv = json.loads(rest)
    except ValueError:
        return rest
    return shlex.join(argv) if isinstance(argv, list) and all(isinstance(w, str) for w in argv) else rest


_MAX_DIRECTIVES = 3  # `ONBUILD HEALTHCHECK CMD …` at most


def _json_string(quoted: str) -> str:
    """A double-quoted value as JSON reads it (an edit's fragment of a JSON file: `"x": "node -e \\"…\\""`), else
    as written between its quotes."""
    try:
        value = json.loads(quoted)
    except ValueError:
        return quoted[1:-1]
    return value if isinstance(value, str) else quoted[1:-1]


def _json(text: str) -> object | None:
    """`text` parsed as a JSON object or array, None when it is not one."""
    if not text.lstrip().startswith(("{", "[")):
        return None
    try:
        return json.loads(text)  # type: ignore[no-any-return]
    except (ValueError, RecursionError):  # nested deeper than the decoder goes: read as lines, whose sense is not known
        return None


def _strings(data: object) -> list[str]:
    """The string values of a JSON document (object keys aside), depth first, at most _MAX_LINES of them."""
    found: list[str] = []
    pending = [data]
    while pending and len(found) < _MAX_LINES:
        item = pending.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            pending.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            pending.extend(reversed(item))
    return found


def configured_code(ledger: Ledger, view: CommandView, place: Place, start: int) -> None:
    """A key of a program's configuration file set by this command's write (`printf 'script-shell=…' >>
    .npmrc`): the program runs its value later (the catalogue's `program_configs`), a deferred exec; a key that
    is an environment variable's value (`node-options` is NODE_OPTIONS) loads the files its options name, each
    a deferred exec of that file (`node-options=--require /tmp/r.js`), and nothing else of it runs."""
    known = catalogue()
    for effect in ledger.effects[start:]:
        path = str(effect["path"] or "")
        name = path.rpartition("/")[2]
        if effect["op"] != "write" or name not in known.program_configs:
            continue
        text = ledger.contents.get(path) or (view.stdin_text if view.name in ("echo", "printf", "tee") else None)
        mirrors = known.config_environment.get(name, {})
        for key, value in _settings(text or "", known.program_configs[name] | set(mirrors)):
            loaded = known.environment.get(mirrors.get(key, ""))
            if loaded is None:
                ledger.add("exec", None, view.name, code={"lang": "sh", "text": value}, deferred=True, startup=path,
                           key=key)  # fmt: skip
                continue
            for word in named_by_options(value, loaded.options):
                ledger.add("exec", place(word), view.name, code={"lang": loaded.lang, "text": ""}, known=False,
                           deferred=True, startup=path, key=key)  # fmt: skip
            for command in option_commands(value, loaded.commands):  # `-XX:OnError=…`: a command the JVM runs
                ledger.add("exec", None, view.name, code={"lang": "sh", "text": command}, deferred=True, startup=path,
                           key=key)  # fmt: skip


def command_options() -> frozenset[str]:
    """Every interpreter option whose value is a command it runs (the catalogue's `environment` `commands`)."""
    return frozenset().union(*(entry.commands for entry in catalogue().environment.values()))


def option_commands(value: str, commands: Collection[str]) -> list[str]:
    """The commands an interpreter's options give to run (`-XX:OnOutOfMemoryError="sh -c '…'"`: a JVM runs it on
    its first OutOfMemoryError), each option's value after `=`, the options split as a shell splits them."""
    if not commands or not any(option in value for option in commands):
        return []
    try:
        words = shlex.split(value)
    except ValueError:
        words = value.split()
    return [rest for word in words for option, eq, rest in [word.partition("=")] if eq and option in commands and rest]


def _settings(text: str, keys: Collection[str]) -> list[tuple[str, str]]:
    """The `key = value` lines of `text` whose key is one of `keys` (ignoring case, as npm's ini parser does)."""
    lowered = {k.lower(): k for k in keys}
    found = []
    for line in text.splitlines()[:_MAX_LINES]:
        key, sep, value = line.partition("=")
        key = key.strip().lower()
        value = value.strip()
        if len(value) > 1 and value[0] == value[-1] and value[0] in "\"'":  # `node-options="--require x"`
            value = value[1:-1]
        if sep and key in lowered and value:
            found.append((lowered[key], value))
    return found
