"""Files that hand variables to every later session in a format of their own, not a shell's (blind-tamper-15,
policies/README.md): what such a file sets is kept on its write (`sets`), judged as a startup file's settings are
(hookd.selfprotect_later): `CLAUDE_CONFIG_DIR` moved there starts every later Claude without hookd's hooks.

* mise's `[env]` table (https://mise.jdx.dev/environments/): applied to every shell where mise is activated, in
  the config's directory and below it; the global config (`~/.config/mise/config.toml`, `conf.d/*.toml`) everywhere.
* fish's universal variables (`fish_variables`, `SETUVAR --export NAME:VALUE`; `set -Ux`,
  https://fishshell.com/docs/current/cmds/set.html): exported into every fish the user starts.
* VS Code's `terminal.integrated.env.<os>` (its user or workspace `settings.json`, a `.code-workspace`'s
  `settings`): set in every integrated terminal it opens, where agents are started.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Mapping
from typing import Any

from hookd.enrich.effects.ledger import Ledger
from hookd.enrich.effects.words import planted_path
from hookd.enrich.facts import under
from hookd.jsonc import loads as jsonc_loads

# mise's config files: mise.toml, .mise.toml, mise.local.toml, mise.<env>.toml in any directory; every .toml of a
# `mise` configuration directory (~/.config/mise/config.toml, conf.d/*.toml, .mise/config.toml)
_MISE = re.compile(r"(?:^|/)(?:\.?mise(?:\.[\w-]+)?\.toml|(?:[^/]*/)*\.?mise/(?:conf\.d/)?[^/]+\.toml)$")
_FISH = re.compile(r"/fish/fish_variables$")
# the editors that read VS Code's settings: its user settings under each build's name, a workspace's
_VSCODE = re.compile(
    r"/(?:Code|Code - OSS|Code - Insiders|VSCodium|Cursor|Windsurf)/User/settings\.json$|/\.vscode/settings\.json$"
    r"|\.code-workspace$"
)
_TERMINAL_ENV = ("terminal.integrated.env.linux", "terminal.integrated.env.osx", "terminal.integrated.env.windows")
_SETUVAR = re.compile(r"^SETUVAR\s+(?:--export|-x)\s+([A-Za-z_]\w*):(.*)$|^SET_EXPORT\s+([A-Za-z_]\w*):(.*)$")
_ESCAPE = re.compile(r"\\x([0-9a-fA-F]{2})")
_PLANTED = "a search path whose entry anything can fill, before the system's, in every later session"


def environment_set(path: str, text: str) -> dict[str, str]:
    """The variables `text`, written as `path`, hands every later session of the program that reads it; empty
    for a file of no such format, or a text it does not read as one."""
    for pattern, reader in _READERS:
        if pattern.search(path):
            try:
                return reader(text, path)
            except ValueError:  # tomllib.TOMLDecodeError and JSON errors are ValueErrors
                return {}
    return {}


def sets_kept(ledger: Ledger, effect: dict[str, Any], found: dict[str, str], name: str) -> None:
    """The variables a file of another program's hands later sessions (`sets`: env_files), and a PATH among them
    with an entry anything can fill (`fish_add_path /tmp/x`, `set -U fish_user_paths /tmp/x`): every later
    session runs what is put there under a system program's name, as `export PATH=/tmp/x:$PATH` in ~/.bashrc."""
    effect["sets"] = found
    text = found.get("PATH", "").replace(ledger.home + "/", "$HOME/")  # (a home below /tmp is no scratch space)
    if text and planted_path(text) and not under(str(effect["path"]), ledger.project):  # (the project's: its own)
        ledger.add("exec", None, name, code={"lang": "text", "text": ""}, known=False, deferred=True,
                   startup=effect["path"], when=f"{_PLANTED} ({text})")  # fmt: skip


def unseen_environment(path: str, project: str) -> str:
    """Why a write whose text the line does not show (`jq … > s.json && mv s.json ~/.config/Code/User/settings.json`,
    a download, a copy of a file not read) is asked, when `path` is such a file of the user's own, outside the
    project: what it hands every later session is not known ("" for another file, or the project's: its settings
    reach the sessions started there, and a formatter's rewrite of them is everyday work)."""
    if under(path, project) or not any(p.search(path) for p, _ in _READERS):
        return ""
    return "variables every later session of its program starts with, in a text the line does not show"


def _mise(text: str, path: str) -> dict[str, str]:
    env = tomllib.loads(text).get("env")
    return _strings(env) if isinstance(env, Mapping) else {}


def _fish(text: str, path: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for line in text.splitlines():
        match = _SETUVAR.match(line.strip())
        if match:
            name, value = (match.group(1), match.group(2)) if match.group(1) else (match.group(3), match.group(4))
            found[name] = _ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), value).replace("\x1e", ":")
    return found


def _vscode(text: str, path: str) -> dict[str, str]:
    doc = jsonc_loads(text)
    if not isinstance(doc, Mapping):
        return {}
    if path.endswith(".code-workspace"):
        doc = doc.get("settings")
        if not isinstance(doc, Mapping):
            return {}
    found: dict[str, str] = {}
    for key in _TERMINAL_ENV:
        env = doc.get(key)
        if isinstance(env, Mapping):
            found.update(_strings(env))
    return found


def _strings(table: Mapping[object, object]) -> dict[str, str]:
    """A table's variables as the program sets them: strings and numbers as text; `false` or null unsets (nothing
    set); mise's `_` directives are not variables."""
    return {
        str(k): str(v).lower() if isinstance(v, bool) else str(v)
        for k, v in table.items()
        if k != "_" and v is not None and v is not False and isinstance(v, str | int | float | bool)
    }


_READERS: tuple[tuple[re.Pattern[str], Callable[[str, str], dict[str, str]]], ...] = (
    (_MISE, _mise),
    (_FISH, _fish),
    (_VSCODE, _vscode),
)


def shell_text(loads: str, variable: str, value: str) -> str:
    """The script a variable's value is: shell code as is; a prompt as the double-quoted word it is expanded as;
    `BASH_FUNC_ls%%='() { …; }'` as the definition of ls that bash imports from it, shadowing the program."""
    if loads == "code":
        return value
    if loads == "function":
        return variable.removeprefix("BASH_FUNC_").removesuffix("%%") + " " + value
    return ': "' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
