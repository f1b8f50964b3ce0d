"""direnv's standard library in an `.envrc`, read as the settings it makes (gaps38): direnv runs an `.envrc` as bash
with its stdlib loaded (https://direnv.net/man/direnv-stdlib.1.html), and some of its functions only change the
environment the way a plain assignment does. Each such line is rewritten into that assignment, so the startup-file
judgment (words.runs_nothing: a search path into scratch space, a variable that loads code) reads it as one:

* `PATH_add DIR…` and `path_add VAR DIR…` prepend DIRs, made absolute against the `.envrc`'s own directory, to PATH
  or VAR (`export PATH=/opt/x/bin:$PATH`); one below that directory is the project's own, and left out. A DIR the
  shell expands below the home before direnv sees it (a leading `~`, `$HOME`, `${HOME}`: bash(1) "Tilde Expansion",
  "Parameter Expansion") is kept below the home (`export PATH="$HOME/Android/Sdk/platform-tools":$PATH`), where the
  judgment places `$HOME`; one that climbs out of the home, holds another expansion, or is quoted is left as written;
* `dotenv [FILE]`, `dotenv_if_exists [FILE]` load a dotenv file's variables (FILE defaults to `.env`): nothing runs
  when the file is one of the project's `.env` files, which the policies guard against the agent's writes
  (protected_paths' env-file), so the line is left out; any other file, wherever it is (a `.env` in the home or
  in /tmp: `dotenv ~/scratch/.env`), is no plain setting;
* `watch_file`, `watch_dir`, `strict_env`, `unstrict_env` only tell direnv when to reload or how strictly to run;
* `layout python [INTERPRETER]`, `layout python3` (benign44) make and load a virtualenv below the `.envrc`'s own
  directory (`$PWD/.direnv/python-VERSION`, direnv-stdlib(1) and its stdlib.sh's `layout_python`: the interpreter,
  `python` unless named, runs `-m venv` into that directory, then `VIRTUAL_ENV` is exported and its `bin`
  PATH_add-ed): the program run is an installed interpreter found on the search path, as `$(command -v NAME)` finds
  one (shell/outputs.py), and the search path gains the project's own directory, which PATH_add below the
  `.envrc`'s directory leaves out; so the line is left out. An interpreter named by a path or an expansion, and any
  word after it (`layout_python` hands those to venv: `--upgrade-deps` installs from an index), stay as written.

Every other line stays as written: `source_env`, `source_up`, `use …`, another `layout …` run code, and are asked.

direnv exports what the `.envrc` sets into the shell the user works in, for every later command there: its
settings are judged as a startup file's variables (`envrc_environment`)."""

from __future__ import annotations

import os
import re
import shlex

from hookd.enrich.effects.words import _SETTING_LINE, assignments, runs_nothing

_SILENT = frozenset({"watch_file", "watch_dir", "strict_env", "unstrict_env"})
_DOTENV = frozenset({"dotenv", "dotenv_if_exists"})
# a directory word's leading home, as the shell expands it (`~/x`, `$HOME/x`, `${HOME}`); `~user` is another home
_HOME_LEAD = re.compile(r"(?:~|\$HOME\b|\$\{HOME\})(?=/|$)")
# a directory spelled with nothing a shell would expand or split, kept as written in a double-quoted assignment
_PLAIN_DIRECTORY = re.compile(r"[\w@%+=,./-]+")
# `layout python3` is `layout python python3` (direnv's stdlib.sh); a command name the search path finds: no slash
_PYTHON_LAYOUTS = frozenset({"python", "python2", "python3"})
_COMMAND_NAME = re.compile(r"[A-Za-z0-9_+][A-Za-z0-9_.+@-]*")


def direnv_settings(path: str, text: str) -> str:
    """`text` of the `.envrc` at `path` with its stdlib settings spelled as the assignments they make."""
    if os.path.basename(path) != ".envrc":
        return text
    here = os.path.dirname(path)
    named = not _PATH_SET.search(text)  # `layout python NAME`: NAME from the user's search path, which no line moves
    return "\n".join(_as_setting(line, here, named) for line in text.split("\n"))


_PATH_SET = re.compile(r"\b(?:PATH_add|path_add|PATH\s*[+]?=|export\s+PATH\b)")  # (review46: `PATH_add bin` first)


def _as_setting(line: str, here: str, named: bool) -> str:
    try:
        words = shlex.split(line, comments=True)
    except ValueError:
        return line
    if not words or any(c in line for c in "`;&|<>()"):
        return line
    if ("$" in line or "~" in line) and any(c in line for c in "'\"\\"):
        return line  # quoted or escaped, a `$HOME` or `~` may stay as written: not read here
    name, args = words[0], words[1:]
    if "$" in line and name not in ("PATH_add", "path_add"):
        return line
    if name in _SILENT or (name == "layout" and _virtualenv_layout(args, named)):
        return ""
    if name in _DOTENV:
        file = args[0] if args else ".env"
        return "" if len(args) <= 1 and _projects_env_file(file) else line
    assignment = None
    if name == "PATH_add" and args:
        assignment = _prepended("PATH", args, here)
    elif name == "path_add" and len(args) > 1:
        assignment = _prepended(args[0], args[1:], here)
    return line if assignment is None else assignment


def _virtualenv_layout(args: list[str], named: bool) -> bool:
    """`layout python`, `layout python NAME` (`named`: where the file moves no search path, review46), `layout
    python3`: a virtualenv below the `.envrc`'s directory, made by an interpreter the search path finds (see the
    module's docstring)."""
    if not args or args[0] not in _PYTHON_LAYOUTS:
        return False
    return len(args) == 1 or (
        named and len(args) == 2 and args[0] == "python" and _COMMAND_NAME.fullmatch(args[1]) is not None
    )


def _projects_env_file(file: str) -> bool:
    """A dotenv file of the `.envrc`'s own directory tree: a relative path that stays below it (no `..`, `~`, `$`)."""
    relative = os.path.normpath(file)
    inside = not file.startswith(("/", "~", "$")) and relative != ".." and not relative.startswith("../")
    return inside and os.path.basename(file).startswith(".env")


def envrc_environment(path: str, text: str) -> tuple[bool, dict[str, str]]:
    """What an allowed `.envrc` at `path` leaves in the user's shell: whether its settings load code or take
    programs from scratch space there (a startup file's judgment, words.runs_nothing: `export LD_PRELOAD=…`), and
    the variables it sets (judged as a startup file's `sets`: `CODEX_HOME=…` moves an agent's settings). Its other
    lines (`use nix`, `layout python`) are judged as the commands they are."""
    settings = "\n".join(line for line in direnv_settings(path, text).split("\n") if _SETTING_LINE.fullmatch(line))
    return not runs_nothing(settings), assignments(settings)


def _prepended(variable: str, directories: list[str], here: str) -> str | None:
    """The assignment; none for PATH when every directory lies below the `.envrc`'s own (the project's programs,
    run as its scripts are: a project under scratch space is no more planted than its scripts are). Another
    variable is always assigned, and judged (`path_add GEMINI_CLI_HOME …` moves an agent's settings). None when a
    directory is not known before the shell runs (the line is then left as written)."""
    if not variable.isidentifier():
        return f"{variable}=$("  # no setting: left for the judgment to refuse
    entries = [_directory(d, here) for d in directories]
    known = [e for e in entries if e is not None]
    if len(known) < len(entries):
        return None
    if variable == "PATH" and all(e == here or e.startswith(here.rstrip("/") + "/") for e in known):
        return ""
    if not any(e.startswith("$HOME") for e in known):
        return f"export {variable}={shlex.quote(':'.join(known))}:${variable}"
    if not all(_PLAIN_DIRECTORY.fullmatch(e.removeprefix("$HOME")) for e in known if e != "$HOME"):
        return None
    return f'export {variable}="{":".join(known)}":${variable}'


def _directory(word: str, here: str) -> str | None:
    """Where a directory word points once the shell has expanded it: below the home (`$HOME/…`, the judgment places
    it), or absolute against the `.envrc`'s own directory, as direnv's `expand_path` makes it. None for another
    expansion, another user's home, or a home path that climbs out of the home (`~/../../tmp/x` is `/tmp/x`)."""
    lead = _HOME_LEAD.match(word)
    if lead is not None:
        rest = word[lead.end() :].strip("/")
        relative = os.path.normpath(rest) if rest else "."
        if relative == ".." or relative.startswith("../") or "$" in relative:
            return None
        return "$HOME" if relative == "." else f"$HOME/{relative}"
    if "$" in word or word.startswith("~"):
        return None
    return os.path.normpath(os.path.join(here, word))
