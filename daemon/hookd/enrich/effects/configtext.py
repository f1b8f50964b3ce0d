"""Texts of configuration languages whose commands hookd reads (docs/policies.md, "The effect model"): a makefile
handed to make (`make --eval TEXT`, `make -f /dev/stdin`), whose recipes and `$(shell …)` calls are shell command
lines, and a program's configuration file that may run commands (`~/.tmux.conf`) written with plain settings only
(programs.json `settings_files`)."""

from __future__ import annotations

import functools
import json
import re
import shlex
from collections.abc import Mapping
from typing import Any

from hookd.enrich.effects.catalogue import DATA, catalogue
from hookd.enrich.effects.direnv import direnv_settings
from hookd.enrich.effects.editor_settings import editor_settings_only
from hookd.enrich.effects.later_lines import alias_definitions, alias_runs_quietly
from hookd.enrich.effects.words import assignments, runs_nothing
from hookd.enrich.holdings import head


def _recipes(makefile: str) -> list[str]:
    """The recipe lines of a makefile's text (tab-indented, or after `;` on a rule's line: `x: ; cmd`), each a
    shell command line make runs once it has expanded its own references in it (as_shell)
    (https://www.gnu.org/software/make/manual/html_node/Rule-Syntax.html). `.RECIPEPREFIX` makes the first
    character of its value introduce recipe lines from there on (https://www.gnu.org/software/make/manual/html_node/Special-Variables.html);
    a value made by a reference (`$(space)`) is a character not known here: any leading blank is taken."""
    recipes, prefix = [], "\t"
    for line in _CONTINUED.sub(" ", makefile).splitlines():  # make joins a line ended by `\` with the next
        if changed := _RECIPE_PREFIX.fullmatch(line):
            value = changed.group(1).lstrip()
            prefix = " \t" if value.startswith("$") else (value[:1] or "\t")
            continue
        if line[:1] and (line[0] == "\t" or line[0] in prefix):
            recipes.append(_as_shell(line[1:].lstrip(" \t").lstrip("@-+")))
            continue
        at = _recipe_separator(line)
        head, recipe = (line[:at], line[at + 1 :]) if at >= 0 else (line, "")
        if at >= 0 and ":" in head.replace(":=", "") and "=" not in head.replace("::=", ""):
            recipes.append(_as_shell(recipe.strip().lstrip("@-+")))
        else:  # no rule's recipe: a `;` is the line's own text (`V := $(shell a; b)`, `X = a; b`)
            head = line
        recipes.extend(_shell_calls(head))  # `X := $(shell CMD)`: run as make reads the line
        if assigned := _SHELL_ASSIGN.match(head):  # `X != CMD`: CMD run by the shell as make reads the line
            recipes.append(_as_shell(assigned.group(1)))
    return [r for r in recipes if r.strip()]


def _recipe_separator(line: str) -> int:
    """The index of the `;` that starts a rule line's recipe, or -1: make looks for it outside its references, so
    a `;` inside `$(shell a; b)` or `${…}` belongs to the reference (GNU make's read.c skips a variable reference's
    contents when it searches a rule line for its recipe). `$$` is a literal `$`."""
    k = 0
    while k < len(line):
        if line[k] == ";":
            return k
        if line[k] == "$" and line[k + 1 : k + 2] in ("(", "{"):
            k = _closing(line, k + 1) + 1
        else:
            k += 2 if line.startswith("$$", k) else 1
    return -1


# An assignment of make's recipe prefix (`.RECIPEPREFIX = >`, `:=`, `+=`, `override`)
_RECIPE_PREFIX = re.compile(r"[ \t]*(?:override[ \t]+)?\.RECIPEPREFIX[ \t]*(?:::?|\?|\+|!)?=(.*)")
# A simple variable definition outside recipes: `NAME = v`, `NAME ?= v`, `NAME := v`, `NAME ::= v`, `NAME += v`
_MAKE_ASSIGN = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?:\?|::?|\+)?=[ \t]*(.*)")


def makefile_commands(makefile: str) -> list[str]:
    """The shell lines a makefile's recipes amount to, its own variables' values put in their references
    (`PYTEST ?= pytest` … `$(PYTEST) -q`): make expands a recipe's variables before handing it to the shell
    (https://www.gnu.org/software/make/manual/html_node/Reference.html); one level, the last definition of a name.
    A name the makefile does not define has make's own default, if make has one (`$(RM)`: make_defaults.json)."""
    values: dict[str, str] = dict(_make_defaults())
    exported: list[str] = []
    for line in makefile.splitlines():
        if line.startswith("\t"):
            continue
        setting = line.strip()
        if m := _MAKE_EXPORT.fullmatch(setting):  # `export NAME := VALUE`: in every recipe's environment
            exported.append(m.group(2))
            setting = m.group(1)
        if m := _MAKE_ASSIGN.fullmatch(setting):
            values[m.group(1)] = _as_shell(m.group(2))
    expand = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
    env = "".join(f"export {n}={shlex.quote(values[n])}; " for n in dict.fromkeys(exported) if n in values)
    return [env + expand.sub(lambda m: values.get(m.group(1), m.group(0)), r) for r in _recipes(makefile)]


# GNU make's `export` directive (https://www.gnu.org/software/make/manual/html_node/Variables_002fRecursion.html):
# the variable, defined on the same line or elsewhere, is put in the environment of every recipe's shell
_MAKE_EXPORT = re.compile(r"export[ \t]+(([A-Za-z_][A-Za-z0-9_]*)(?:[ \t]*(?:\?|::?|\+)?=.*)?)")


@functools.cache
def _make_defaults() -> Mapping[str, str]:
    table: Mapping[str, str] = json.loads((DATA / "make_defaults.json").read_text(encoding="utf-8"))["variables"]
    return table


def _shell_calls(line: str) -> list[str]:
    """The commands of the `$(shell CMD)` (or `${shell CMD}`: make takes either bracket) calls in a makefile line
    outside recipes (linear: each jumps past its own)."""
    found, at = [], _SHELL_CALL.search(line)
    while at:
        close = _closing(line, at.start() + 1)
        found.append(line[at.end() : close])
        at = _SHELL_CALL.search(line, close)
    return found


_SHELL_CALL = re.compile(r"\$[({]shell[ \t]")
# GNU make's shell assignment (https://www.gnu.org/software/make/manual/html_node/Setting.html): `NAME != CMD`
_SHELL_ASSIGN = re.compile(r"[ \t]*(?:override[ \t]+|export[ \t]+)*[^:#=\s]+[ \t]*!=(.*)")
_CONTINUED = re.compile(r"\\\n[ \t]*")


# make's functions that do more than compute a text: a file written or read, text made into make code, a hook
# into Guile (https://www.gnu.org/software/make/manual/html_node/Functions.html); `include` and SHELL likewise
# (a line's own leading blanks only: `^\s*` ran over every following blank line from each, quadratic)
_MAKE_REACHES = re.compile(
    r"\$[({](?:file|eval|value|guile|call)\s|^[ \t]*-?s?include\s|^[ \t]*\.?SHELL\s*[:?+!]*=", re.M
)


def make_runs_only_recipes(makefile: str) -> bool:
    """Nothing in the makefile's text reaches the system but its recipes (and `$(shell …)`, walked with them)."""
    return _MAKE_REACHES.search(makefile) is None


def _as_shell(recipe: str) -> str:
    """A recipe as the shell gets it: `$$` is `$`, `$(shell CMD)` a command substitution, a variable `$(NAME)` or
    `${NAME}` the variable of that name (make imports the environment's), any other reference (a function, an
    automatic `$@`, a computed name) a value only known when make runs (`${MAKE_VALUE}`). One scan."""
    out: list[str] = []
    i = 0
    while i < len(recipe):
        ch = recipe[i]
        if ch != "$" or i + 1 >= len(recipe):
            out.append(ch)
            i += 1
            continue
        nxt = recipe[i + 1]
        if nxt == "$":
            out.append("$")
            i += 2
        elif nxt in "({":
            close = _closing(recipe, i + 1)
            body = recipe[i + 2 : close]
            if body.startswith("shell "):  # (make references inside stay as written: read as the shell would)
                out.append("$(" + body[6:] + ")")
            elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", body):
                out.append("${" + body + "}")
            else:
                out.append("${MAKE_VALUE}")
            i = close + 1
        else:
            out.append("${MAKE_VALUE}")
            i += 2
    return "".join(out)


def _closing(text: str, start: int) -> int:
    """The index of the bracket closing the one at `start` (nested ones skipped), or the text's end."""
    opening = text[start]
    closing = ")" if opening == "(" else "}"
    depth = 0
    for k in range(start, len(text)):
        if text[k] == opening:
            depth += 1
        elif text[k] == closing:
            depth -= 1
            if depth == 0:
                return k
    return len(text)


def pth_paths_only(text: str) -> bool:
    """A `.pth` file's text that runs nothing: site executes only the lines that begin with `import` and a blank;
    every other line is a directory appended to sys.path, after the interpreter's own, so it shadows no module
    (https://docs.python.org/3/library/site.html, CPython's `site.addpackage`)."""
    return not any(line.startswith(("import ", "import\t")) for line in text.splitlines())


def settings_only(path: str, text: str) -> bool:
    """`text`, written into a program's configuration file that may run commands (`~/.tmux.conf`), holds only
    settings and bindings that run none: every command of every line is one the catalogue's `settings_files`
    entry calls inert (a bound key's command too), no option set is one whose value runs later, and nothing
    holds a marker that runs a command (`#(…)`, a hook)."""
    entry = catalogue().settings_files.get(path.rpartition("/")[2])
    if entry is None:
        return editor_settings_only(path, text)  # a file whose settings are no word list (init.lua, init.el)
    if len(text) > 64 * 1024 or any(marker in text for marker in entry["unsafe"]):
        return False
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(entry["comment"]):
            continue
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            return False
        command: list[str] = []
        for word in [*words, ";"]:
            if word != ";":
                command.append(word)
            elif command and not _inert_setting(command, entry, bound=False):
                return False
            else:
                command = []
    return True


def _inert_setting(words: list[str], entry: Mapping[str, Any], *, bound: bool) -> bool:
    name, rest = words[0], words[1:]
    if name not in entry["inert"] or (bound and name in entry["binds"]):
        return False
    if name in entry["binds"]:
        k = 0
        while k < len(rest) and rest[k].startswith("-") and len(rest[k]) > 1:
            k += 2 if rest[k] in entry["bind_flags"] else 1
        # the words before the bound command: tmux's key, vim's autocmd's event and pattern
        bound_at = k + int(entry.get("bind_words", 1))
        return len(rest) <= bound_at or _inert_setting(rest[bound_at:], entry, bound=True)
    if name in entry["sets"] and entry.get("option_words"):  # vim: `set nu mp=make sw=4`, each word one option
        return not any(_option_name(w) in entry["unsafe_options"] for w in rest)
    if name in entry["sets"]:
        named = [w for w in rest if not w.startswith("-")]
        return not any(
            _names_option(named, u.split(), entry.get("option_prefixes", False)) for u in entry["unsafe_options"]
        )
    if name in ("source-file", "source"):  # another configuration of the same program (`bind r source-file` itself)
        return all(w.rpartition("/")[2] in entry["names"] for w in rest if not w.startswith("-"))
    if name in entry["take_command"]:  # a word that is no option nor an option's value is a shell command
        k = 0
        while k < len(rest):
            if not rest[k].startswith("-"):
                return False
            k += 2 if rest[k] in entry["value_flags"] else 1
    return True


def _names_option(words: list[str], option: list[str], prefixes: bool) -> bool:
    """Whether a setting's words name `option` (`history filename`: its words in order), each word whole or, where
    the program takes a unique prefix of each (gdb: `set hist filen`), a prefix of it."""
    if len(words) < len(option):
        return False
    return all(o.startswith(w) if prefixes else o == w for w, o in zip(words, option, strict=False))


def _option_name(word: str) -> str:
    """The option a word of vim's `:set` names: `makeprg=make` and `mp+=x` are makeprg's and mp's, `noexrc`,
    `invexrc`, `exrc!`, `exrc&` exrc's."""
    name = re.split(r"[-+^]?[=:]|[!&?<]", word, maxsplit=1)[0]
    return name[2:] if name.startswith("no") and len(name) > 2 else name[3:] if name.startswith("inv") else name


def quiet_setting(effect: dict[str, Any], path: str, text: str, lang: str | None, home: str = "") -> bool:
    """Whether `text` written into the startup or configuration file `path` runs nothing later (runs_nothing for a
    shell's file, settings_only for another program's; a shell's aliases each run quietly, later_lines). The
    variables a shell's text sets are kept on the write (`sets`): one can still move or switch off what guards the
    next sessions (hookd.selfprotect judges them)."""
    if lang != "sh":
        return pth_paths_only(text) if path.endswith(".pth") else settings_only(path, text)
    text = direnv_settings(path, text)
    split = alias_definitions(text)
    if split is None or not runs_nothing(split[0]):
        return False
    if not all(alias_runs_quietly(name, value, home) for name, value in split[1].items()):
        return False
    if split[1]:
        effect["aliases"] = split[1]
    if found := assignments(text):
        effect["sets"] = found
    return True


MAX_PLACED = 16 * 1024  # a dotfile's text read whole; a longer one stays unknown (asked)


def placed_text(effect: dict[str, Any], effects: list[dict[str, Any]]) -> str | None:
    """The text a link or a copy puts at `effect`'s path (`ln -s ~/dotfiles/.zshrc ~/.zshrc`): the text of its
    source as it is on disk, when the line changes that source nowhere (a dotfiles checkout's file linked in is
    judged as that text written; its later changes are the linked file's, enrich/aliases.py). None for anything
    else, a source that is no regular file, or one past MAX_PLACED."""
    if effect.get("target_of") not in ("link", "copy"):
        return None
    path = effect["path"]
    sources = [e["path"] for e in effects if e["op"] == effect["target_of"] and e.get("to") == path and e["path"]]
    if len(sources) != 1 or _changes(sources[0], effects):
        return None
    text = head(sources[0], MAX_PLACED + 1)
    if text is None or len(text) > MAX_PLACED:
        return None
    effect["placed"] = sources[0]  # changed later on the line: placed_changed
    return text


def placed_changed(effects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A startup file judged on the text its link or copy placed there, whose source a command after it changes
    (`ln -s ~/d/.zshrc ~/.zshrc; echo 'curl … | sh' >> ~/d/.zshrc`): code run later that the line hides."""
    return [
        _unknown_later(e) for e in effects if e["op"] == "write" and e.get("placed") and _changes(e["placed"], effects)
    ]


def _unknown_later(write: Mapping[str, Any]) -> dict[str, Any]:
    code = {"lang": "text", "text": ""}
    where = {"startup": write["path"], "program": write.get("program", ""), "class": "unresolved", "via": "shell"}
    return {
        "op": "exec",
        "path": "",
        "known": False,
        "recursive": False,
        "to": "",
        "code": code,
        "deferred": True,
        **where,
    }


def _changes(path: str, effects: list[dict[str, Any]]) -> bool:
    return any(e["path"] == path and e["op"] in ("write", "delete", "move", "chmod") for e in effects)
