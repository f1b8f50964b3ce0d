"""The project's own configuration a runner reads in its directory and runs now (docs/policies.md, "The effect
model"): `make clean` runs the `clean` rule's recipe (and its prerequisites'), `npm run build` the package's
`prebuild`, `build` and `postbuild` scripts, `just setup` the recipe, `tox -e lint` the environment's commands,
`direnv allow` the `.envrc`, `pip install .` the package's `setup.py`, `nox` the noxfile, `cargo build` and
`./gradlew build` the build script. A runner's file the line itself wrote is loaded.py's (every line of it is
code the line made); this is the file already in the project, read as a project script is (projectcode.py): the
command lines that part of it holds are walked as the line's own, those holding a value known only when it
runs left out, so a recipe `rm -rf $(HOME)` is judged as `rm -rf ${HOME}` and `rm -rf build/` as itself.

Sources: GNU make's manual (rules, recipes, variables: https://www.gnu.org/software/make/manual/make.html),
npm's scripts (pre and post scripts, life cycle: https://docs.npmjs.com/cli/using-npm/scripts), just's manual
(https://just.systems/man/en/), tox's configuration (https://tox.wiki/en/latest/config.html), direnv(1)
(https://direnv.net/man/direnv.1.html), nox's Session.run (https://nox.thea.codes/en/stable/config.html)."""

from __future__ import annotations

import json
import os
import re
import shlex
from collections.abc import Mapping, Sequence

from hookd.enrich.effects.handed import literal_commands
from hookd.enrich.effects.ledger import Place
from hookd.enrich.effects.loaded import tool_environment
from hookd.enrich.effects.options import Parsed
from hookd.enrich.effects.pycode import UNKNOWN, python_effects
from hookd.enrich.sourced import sourced_text

_MAX_RULES = 32  # rules (recipes, scripts, environments) of one file followed for one run
_MAX_LINES = 2048  # lines of a configuration file read
_MAX_EXPANDED = 8192  # characters of a recipe line as make's references expand it
_MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
_JUSTFILES = ("justfile", "Justfile", ".justfile")
_LIFECYCLE = ("preinstall", "install", "postinstall", "prepare")  # npm's root scripts at a bare `npm install`


def runner_lines(
    kinds: frozenset[str], words: Sequence[str], parsed: Parsed, place: Place, project: str
) -> tuple[list[str], bool]:
    """The command lines of the working directory's configuration that this run of the program executes, and
    whether it was read whole (a makefile too large to read, or using what is not read here, is not)."""
    here = _directory(parsed, place)
    named = [o for o in parsed.operands[len(words) :] if o]
    lines: list[str] = []
    complete = True
    if "makefile" in kinds:
        made = _make_lines(here, parsed, named, project)
        lines, complete = made if made is not None else [], made is not None
    if "package-scripts" in kinds or any(k.startswith("script:") for k in kinds):
        lines += _package_lines(kinds, words, named, here, project)
    if "justfile" in kinds:
        lines += _just_lines(here, named, project)
    if "tox" in kinds:
        lines += _tox_lines(here, parsed, project)
    if "envrc" in kinds:
        path = os.path.join(here, named[0], ".envrc") if named and not named[0].endswith(".envrc") else ""
        path = path or os.path.join(here, named[0] if named else ".envrc")
        lines += [f". {shlex.quote(path)}"] if sourced_text(path, project) is not None else []
    for kind, names, lang in (("noxfile", ("noxfile.py",), "python"), ("build-script", ("build.rs", "build.gradle",
                              "build.gradle.kts"), "literals")):  # fmt: skip
        if kind in kinds:
            lines += [line for name in names for line in _code_lines(os.path.join(here, name), lang, project)]
    if "setup-py" in kinds:
        for directory in _package_directories(parsed, named, place):
            lines += _code_lines(os.path.join(directory, "setup.py"), "python", project)
    return lines, complete


def _directory(parsed: Parsed, place: Place) -> str:
    """Where the program reads its configuration: `-C DIR` / `--directory` (make, just's working directory
    is its justfile's), else the working directory."""
    moved = next((v for o, v in parsed.options if o in ("--directory", "-C") and v), ".")
    return str(place(moved).get("path") or "")


def _code_lines(path: str, lang: str, project: str) -> list[str]:
    """The command lines a project code file runs by literals: Python read by pycode (its commands and
    scripts), another language by its string literals that read as command lines (a build script's
    `commandLine 'sh', '-c', '…'`, `Command::new("curl").args([…])`)."""
    text = sourced_text(path, project)
    if text is None:
        return []
    if lang == "python":
        effects = python_effects(text)
        return [_argv_line(a) for a in effects.commands if a and UNKNOWN not in a] + list(effects.scripts)
    return literal_commands(text)


def _argv_line(argv: Sequence[str]) -> str:
    return " ".join("~/" + shlex.quote(w[2:]) if w.startswith("~/") else shlex.quote(w) for w in argv)


def _package_directories(parsed: Parsed, named: Sequence[str], place: Place) -> list[str]:
    """`pip install .`, `pip install -e ./lib`: the local directories given (a package name is not one)."""
    given = [v for o, v in parsed.options if o in ("-e", "--editable") and v] + list(named)
    local = [g for g in given if g == "." or g.startswith(("./", "../", "/"))]
    return [str(place(g).get("path") or "") for g in local][:4]


# --- make ---

_ASSIGN = re.compile(r"(?:export\s+|override\s+)?([A-Za-z_][\w.-]*)\s*(::?=|:::=|\?=|\+=|!=|=)\s*(.*)")
_MAKE_REFERENCE = re.compile(r"\$\(([^()]*)\)|\$\{([^{}]*)\}|\$([@<^*?+|])")
_SHELL_DOLLAR = "\x01"  # a `$` the shell receives, which make no longer expands
_MAX_TOTAL = 64 * 1024  # characters of all the recipe lines of one run, as expanded
# what the make reader does not follow: multi-line variables, another recipe prefix (GNU make's manual,
# "Multi-Line", "Special Variables"); a recipe's functions that choose or build text (`$(if …)`, `$(call …)`)
_UNFOLLOWED = re.compile(r"^[^\S\n]*(?:define|\.RECIPEPREFIX)\b", re.M)
_INCLUDE = re.compile(r"^[^\S\n]*(-|s)?include[^\S\n]+([^#\n]*)", re.M)
_DEFAULT_GOAL = re.compile(r"^[^\S\n]*\.DEFAULT_GOAL[^\S\n]*:{0,3}=[^\S\n]*([^\s#]+)", re.M)
_CHOOSING = frozenset({"call", "if", "or", "and", "foreach", "file", "value", "guile", "let", "intcmp"})


def _make_lines(here: str, parsed: Parsed, named: Sequence[str], project: str) -> list[str] | None:
    """The recipe lines a run of make executes; None where the makefile is not read whole: one there but too
    large to read, longer than _MAX_LINES, including a file there that cannot be read, using what this reader
    does not follow (`define`, `.RECIPEPREFIX`; `$(call …)`, `$(if …)`, `$(foreach …)` in a recipe that runs),
    or expanding past _MAX_TOTAL characters."""
    given = next((v for o, v in parsed.options if o in ("--file", "--makefile", "-f") and v), "")
    if given in ("-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"):
        return []  # the text on its standard input: read where the line's stdin is (code.py)
    paths = [os.path.join(here, given)] if given else [os.path.join(here, n) for n in _MAKEFILES]
    path = next((p for p in paths if os.path.lexists(p)), None)
    text = _with_included(sourced_text(path, project), here, project) if path is not None else None
    if text is None or _UNFOLLOWED.search(text) or text.count("\n") >= _MAX_LINES:
        return None if path is not None else []
    variables = {n: v for n, _, v in (w.partition("=") for w in named if "=" in w)}
    rules, order = _make_rules(_joined(text), variables)
    goal = [m.group(1) for m in _DEFAULT_GOAL.finditer(text)][-1:]
    targets = [w for w in named if "=" not in w] or goal or order[:1]
    lines, total = [], 0
    for target, prereqs, line in _walk(rules, targets):
        expanded = _make_expanded(line, variables, target, prereqs)
        total += len(expanded or "")
        if expanded is None or total > _MAX_TOTAL:  # (`Y = $(X)$(X)…` on each line of a short makefile: megabytes)
            return None
        lines.append(expanded)
    return lines


def _with_included(text: str | None, here: str, project: str) -> str | None:
    """The makefile with the files its `include` lines name put in their place (one level; `-include` of a file
    that is not there is nothing, as make has it); None where an included file is there but cannot be read."""
    if text is None or _INCLUDE.search(text) is None:
        return text
    out: list[str] = []
    for line in text.splitlines()[:_MAX_LINES]:
        included = _INCLUDE.match(line)
        if included is None:
            out.append(line)
            continue
        for name in included.group(2).split():
            found = sourced_text(os.path.join(here, name), project)
            if found is None and (included.group(1) is None or os.path.lexists(os.path.join(here, name))):
                return None  # (make fails on a missing plain `include`: nothing is known to run either way)
            out.append(found or "")
    return "\n".join(out)


def _joined(text: str) -> list[str]:
    """The lines of a makefile or ini file with backslash continuations joined, at most _MAX_LINES."""
    return text.replace("\\\n", " ").splitlines()[:_MAX_LINES]


def _make_rules(
    lines: Sequence[str], variables: dict[str, str]
) -> tuple[dict[str, tuple[list[str], list[str]]], list[str]]:
    """Each target's prerequisites and recipe lines, and the targets in order (the first is the default)."""
    rules: dict[str, tuple[list[str], list[str]]] = {}
    order: list[str] = []
    current: list[str] = []
    for line in lines:
        if line.startswith("\t"):
            recipe = line.strip().lstrip("@-+").strip()
            for target in current if recipe and not recipe.startswith("#") else ():
                rules[target][1].append(recipe)
            continue
        stripped = line.split("#", 1)[0].strip()
        assigned = _ASSIGN.fullmatch(stripped)
        if assigned is not None:
            name, how, value = assigned.groups()
            if how != "?=" or name not in variables:
                variables[name] = f"{variables.get(name, '')} {value}".strip() if how == "+=" else value
            current = []
            continue
        rule = _rule(stripped)
        if rule is None:
            current = [] if stripped else current
            continue
        targets, prereqs, inline = rule
        current = [t for t in targets if "%" not in t]
        for target in current:
            entry = rules.setdefault(target, ([], []))
            entry[0].extend(prereqs)
            entry[1].extend([inline] if inline else [])
        order += [t for t in current if not t.startswith(".") and t not in order]
    return rules, order


def _rule(line: str) -> tuple[list[str], list[str], str] | None:
    """`targets: prerequisites ; recipe` (or `::`), split at its first colon (no pattern: linear in the line);
    None for anything else (an assignment `x := y`, a directive, a line holding a reference before the colon)."""
    head, colon, rest = line.partition(":")
    rest = rest[1:] if rest.startswith(":") else rest
    if not colon or not head.strip() or rest.startswith("=") or "=" in head or "$" in head:
        return None
    prereqs, _, inline = rest.partition(";")
    return head.split(), prereqs.split(), inline.strip()


def _walk(rules: Mapping[str, tuple[list[str], list[str]]], targets: Sequence[str]) -> list[tuple[str, list[str], str]]:
    """The recipe lines a run of `targets` executes, prerequisites first, each rule once."""
    found: list[tuple[str, list[str], str]] = []
    seen: set[str] = set()

    def visit(target: str) -> None:
        if target in seen or len(seen) >= _MAX_RULES or target not in rules:
            return
        seen.add(target)
        prereqs, recipe = rules[target]
        for prereq in prereqs:
            visit(prereq)
        found.extend((target, prereqs, line) for line in recipe)

    for target in targets:
        visit(target)
    return found


class _NotFollowed(Exception):
    """A recipe's function that chooses or builds its text when make runs (`$(if …)`, `$(call …)`)."""


def _make_expanded(line: str, variables: Mapping[str, str], target: str, prereqs: Sequence[str]) -> str | None:
    """A recipe line as the shell receives it: the makefile's variables substituted (a few levels deep), one the
    makefile does not set left as the shell's `${NAME}` (make imports the environment), `$(shell …)` as the
    shell's `$(…)`, the automatic `$@`, `$<`, `$^`, and `$$` as `$`; None past _MAX_EXPANDED characters."""
    automatic = {"@": target, "<": prereqs[0] if prereqs else "", "^": " ".join(prereqs), "+": " ".join(prereqs)}

    def one(match: re.Match[str]) -> str:
        if match.group(3):
            return automatic.get(match.group(3), "")
        name = (match.group(1) or match.group(2) or "").strip()
        if name.startswith("shell "):
            return f"{_SHELL_DOLLAR}({name[6:]})"
        if name.split(" ", 1)[0] in _CHOOSING:
            raise _NotFollowed(name)
        if name in variables:
            return variables[name].replace("$$", _SHELL_DOLLAR)
        return f"{_SHELL_DOLLAR}{{{name}}}" if re.fullmatch(r"[A-Za-z_]\w*", name) else ""

    line = line.replace("$$", _SHELL_DOLLAR)
    for _ in range(8):
        try:
            expanded = _MAKE_REFERENCE.sub(one, line)
        except _NotFollowed:
            return None
        if len(expanded) > _MAX_EXPANDED:  # (`A = $(A) $(A)` doubles at each level): not known
            return None
        if expanded == line:
            break
        line = expanded
    return line.replace(_SHELL_DOLLAR, "$")


# --- package.json scripts ---


def _package_lines(
    kinds: frozenset[str], words: Sequence[str], named: Sequence[str], here: str, project: str
) -> list[str]:
    """`npm run NAME` (the operand after the words), `npm test` (`script:test`), a bare `npm install`
    (`script:install`: its life-cycle scripts): each script with its `pre` and `post` scripts."""
    text = sourced_text(os.path.join(here, "package.json"), project)
    try:
        scripts = json.loads(text or "{}").get("scripts", {})
    except (ValueError, AttributeError):
        return []
    if not isinstance(scripts, dict):
        return []
    names = [named[0]] if "package-scripts" in kinds and named else []
    fixed = [k.partition(":")[2] for k in kinds if k.startswith("script:")]
    if "script:install" in kinds and named:
        fixed = []  # `npm install lodash`: the package's scripts, not the project's life cycle
    names += [n for f in fixed for n in (_LIFECYCLE if f == "install" else (f,))]
    lines = []
    for name in names[:_MAX_RULES]:
        for script in (f"pre{name}", name, f"post{name}") if not name.startswith(("pre", "post")) else (name,):
            value = scripts.get(script)
            lines += [value] if isinstance(value, str) else []
    return list(dict.fromkeys(lines))


# --- just ---

_NAME = re.compile(r"[A-Za-z_][\w-]*")


def _just_lines(here: str, named: Sequence[str], project: str) -> list[str]:
    text = next((t for t in (sourced_text(os.path.join(here, n), project) for n in _JUSTFILES) if t is not None), None)
    if text is None:
        return []
    recipes: dict[str, tuple[list[str], list[str]]] = {}
    order: list[str] = []
    current = ""
    for line in _joined(text):
        if line[:1] in (" ", "\t"):
            body = line.strip().lstrip("@-").strip()
            if current and body and not body.startswith("#"):
                recipes[current][1].append(body)
            continue
        header = _recipe(line) if not line.startswith(("#", "[", "set ", "alias ", "export ")) else None
        current = header[0] if header is not None else ""
        if header is not None:
            recipes[current] = (header[1], [])
            order.append(current)
    targets = [n for n in named if n in recipes][:1] or order[:1]
    lines = [line for _, _, line in _walk(recipes, targets)]
    if any(line.startswith("#!") for line in lines):  # a shebang recipe is a script of another language
        return []
    return [line for line in lines if "{{" not in line]


def _recipe(line: str) -> tuple[str, list[str]] | None:
    """A justfile recipe's header, `[@]name [params]: [dependencies]`: its name and dependencies (split at the
    first colon, linear in the line); None for an assignment (`x := y`) or anything else."""
    head, colon, rest = line.strip().partition(":")
    words = head.split()
    name = words[0].lstrip("@") if words else ""
    if not colon or rest.startswith("=") or _NAME.fullmatch(name) is None:
        return None
    return name, [d.split("(", 1)[0] for d in rest.split("#", 1)[0].split()]


# --- tox ---

_SECTION = re.compile(r"\[([^\]]+)\]")
_SUBSTITUTIONS = {"{posargs}": "", "{toxinidir}": ".", "{tox_root}": "."}


def _tox_lines(here: str, parsed: Parsed, project: str) -> list[str]:
    sections = _ini(sourced_text(os.path.join(here, "tox.ini"), project) or "")
    chosen = ",".join(v for o, v in parsed.options if o in ("-e", "--envlist") and v)
    listed = chosen or sections.get("tox", {}).get("envlist", "") or sections.get("tox", {}).get("env_list", "")
    envs = [e.strip() for e in re.split(r"[,\n]", listed) if e.strip() and "{" not in e]
    base = sections.get("testenv", {})
    lines: list[str] = []
    for env in envs[:_MAX_RULES]:
        own = sections.get(f"testenv:{env}", {})
        for key in ("commands_pre", "commands", "commands_post"):
            lines += [c for c in map(_tox_command, own.get(key, base.get(key, "")).splitlines()) if c]
    return lines


def _tox_command(line: str) -> str:
    """A command of tox.ini as the shell gets it: its `-` (errors ignored) and `!` prefixes off, tox's own
    substitutions made (`{posargs}`: none given; `{env:HOME}`: the environment's), a comment as nothing."""
    command = line.strip().lstrip("-!").strip()
    for old, new in _SUBSTITUTIONS.items():
        command = command.replace(old, new)
    return "" if command.startswith("#") else tool_environment(command)


def _ini(text: str) -> dict[str, dict[str, str]]:
    """An ini file's sections and keys, a key's indented continuation lines joined to its value by newlines."""
    sections: dict[str, dict[str, str]] = {}
    section: dict[str, str] | None = None
    key = ""
    for line in text.splitlines()[:_MAX_LINES]:
        if not line.strip() or line.lstrip().startswith(("#", ";")):
            continue
        heading = _SECTION.fullmatch(line.strip())
        if heading is not None and not line[:1].isspace():
            section, key = sections.setdefault(heading.group(1).strip(), {}), ""
        elif line[:1].isspace() and section is not None and key:
            section[key] += "\n" + line.strip()
        elif section is not None and "=" in line:
            key, _, value = line.partition("=")
            key = key.strip()
            section[key] = value.strip()
    return sections
