"""direnv's standard library in an `.envrc`, read as the settings it makes (gaps38): direnv runs an `.envrc` as bash
with its stdlib loaded (https://direnv.net/man/direnv-stdlib.1.html), and some of its functions only change the
environment the way a plain assignment does. Each such line is rewritten into that assignment, so the startup-file
judgment (words.runs_nothing: a search path into scratch space, a variable that loads code) reads it as one:

* `PATH_add DIR…` and `path_add VAR DIR…` prepend DIRs, made absolute against the `.envrc`'s own directory, to PATH
  or VAR (`export PATH=/opt/x/bin:$PATH`); one below that directory is the project's own, and left out;
* `dotenv [FILE]`, `dotenv_if_exists [FILE]` load a dotenv file's variables (FILE defaults to `.env`): nothing runs
  when the file is one of the project's `.env` files, which the policies guard against the agent's writes
  (protected_paths' env-file), so the line is left out; any other file is no plain setting;
* `watch_file`, `watch_dir`, `strict_env`, `unstrict_env` only tell direnv when to reload or how strictly to run.

Every other line stays as written: `source_env`, `source_up`, `use …`, `layout …` run code, and are asked."""

from __future__ import annotations

import os
import shlex

_SILENT = frozenset({"watch_file", "watch_dir", "strict_env", "unstrict_env"})
_DOTENV = frozenset({"dotenv", "dotenv_if_exists"})


def direnv_settings(path: str, text: str) -> str:
    """`text` of the `.envrc` at `path` with its stdlib settings spelled as the assignments they make."""
    if os.path.basename(path) != ".envrc":
        return text
    here = os.path.dirname(path)
    return "\n".join(_as_setting(line, here) for line in text.split("\n"))


def _as_setting(line: str, here: str) -> str:
    try:
        words = shlex.split(line, comments=True)
    except ValueError:
        return line
    if not words or any(c in line for c in "$`;&|<>()"):
        return line
    name, args = words[0], words[1:]
    if name in _SILENT:
        return ""
    if name in _DOTENV:
        file = args[0] if args else ".env"
        return "" if len(args) <= 1 and os.path.basename(file).startswith(".env") else line
    if name == "PATH_add" and args:
        return _prepended("PATH", args, here)
    if name == "path_add" and len(args) > 1:
        return _prepended(args[0], args[1:], here)
    return line


def _prepended(variable: str, directories: list[str], here: str) -> str:
    """The assignment; none for PATH when every directory lies below the `.envrc`'s own (the project's programs,
    run as its scripts are: a project under scratch space is no more planted than its scripts are). Another
    variable is always assigned, and judged (`path_add GEMINI_CLI_HOME …` moves an agent's settings)."""
    if not variable.isidentifier():
        return f"{variable}=$("  # no setting: left for the judgment to refuse
    absolute = [os.path.normpath(os.path.join(here, d)) for d in directories]
    if variable == "PATH" and all(a == here or a.startswith(here.rstrip("/") + "/") for a in absolute):
        return ""
    return f"export {variable}={shlex.quote(':'.join(absolute))}:${variable}"
