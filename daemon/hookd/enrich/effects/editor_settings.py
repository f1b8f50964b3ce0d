"""Texts of editors' and line editors' init files that only set options (enrich/effects/configtext.settings_only
for the files whose language is no word list; blind-tools-19's false positives, policies/README.md "A nineteenth
blind batch of the agents' tools"). Each file's grammar of plain settings, line by line; any other line (a call, a
hook, a binding to a macro, a form spanning lines) is code run later and stays asked. Emacs Lisp init files are not
read here (review46: a mode switched on loads the state files it keeps, `savehist-mode`, `desktop-save-mode`, and
variables Emacs does not call risky still name programs and directories: `*-bin`, `package-user-dir`,
`enable-local-eval`, `org-confirm-babel-evaluate`); they stay asked:

* Neovim's Lua init (`init.lua`, https://neovim.io/doc/user/lua-guide.html#lua-guide-options): an option set to a
  literal through `vim.opt`, `vim.o`, `vim.go`, `vim.wo`, `vim.bo`, `vim.opt_local`, `vim.opt_global` (or
  `:append`, `:prepend`, `:remove` of a literal), an option vim itself keeps from running anything (the vim entry
  of programs.json `settings_files`: `shell`, `makeprg`, the `*expr` and `*func` options, `runtimepath`, ...); a
  global variable `vim.g` set to a number or a boolean, or a leader key to a string (a plugin may run a string
  global as a command: `g:python3_host_prog`, `g:clipboard`);
* readline's init file (`.inputrc`, readline(3) INITIALIZATION FILE): `set VARIABLE VALUE`, the `$if`, `$else`,
  `$endif` conditionals, `$include` of the system's file, and a key bound to a readline function by name (a key
  bound to a quoted macro types its text into the line the user runs: asked)."""

from __future__ import annotations

import re
from collections.abc import Callable

from hookd.enrich.effects.catalogue import catalogue
from hookd.enrich.effects.repl_settings import repl_settings_only

MAX_TEXT = 64 * 1024  # characters of a settings text read; a longer one stays asked

_LUA_LITERAL = r"""(?:-?[0-9][0-9.]*|true|false|nil|'[^'\\\n]*'|"[^"\\\n]*")"""
_LUA_VALUE = rf"(?:{_LUA_LITERAL}|\{{\s*(?:{_LUA_LITERAL}\s*,?\s*)*\}})"
_LUA_OPTION = re.compile(
    rf"vim\.(?:opt|o|go|wo|bo|opt_local|opt_global)\.([A-Za-z_]+)\s*(?:=\s*{_LUA_VALUE}|:(?:append|prepend|remove)\(\s*{_LUA_VALUE}\s*\))\s*;?"
)
# what makes a value of a drawn option (`winbar`, `statuscolumn`) an expression vim evaluates, or a command it runs
_LUA_UNSAFE = ("%{", "%!", "system(", "`", "!")
_LUA_TRAILING_COMMENT = re.compile(r"\s+--[^'\"]*$")
_LUA_GLOBAL = re.compile(r"vim\.g\.([A-Za-z_]+)\s*=\s*(-?[0-9][0-9.]*|true|false|'[^'\\\n]*'|\"[^\"\\\n]*\")\s*;?")


_READLINE_SET = re.compile(r"set\s+[A-Za-z-]+\s+\S+")
_READLINE_COND = re.compile(r"\$(?:if\s+\S.*|else|endif|include\s+/etc/inputrc)")
_READLINE_BIND = re.compile(r"""(?:"(?:[^"\\]|\\.)+"|[A-Za-z][A-Za-z0-9-]*)\s*:\s*[a-z][a-z0-9-]*""")


def editor_settings_only(path: str, text: str) -> bool:
    """`text`, written into the init file `path` of Neovim (Lua) or readline, only sets options (see the
    module doc); False for any other file or any other line."""
    base = path.rpartition("/")[2]
    if len(text) > MAX_TEXT:
        return False
    if base.endswith(".lua") and "/nvim/" in path:
        return _every_line(text, "--", _lua_setting)
    if base == ".inputrc":
        return _every_line(text, "#", _readline_setting)
    return repl_settings_only(path, text) is True  # an interactive program's (effects/repl_settings.py)


def _every_line(text: str, comment: str, setting: Callable[[str], bool]) -> bool:
    lines = [line.strip() for line in text.splitlines()]
    return all(not line or line.startswith(comment) or setting(line) for line in lines)


def _lua_setting(line: str) -> bool:
    line = _LUA_TRAILING_COMMENT.sub("", line)
    if any(marker in line for marker in _LUA_UNSAFE):
        return False
    if (option := _LUA_OPTION.fullmatch(line)) is not None:
        name = option.group(1)
        return name not in _vim_unsafe_options() and not name.startswith("shell")
    if (variable := _LUA_GLOBAL.fullmatch(line)) is not None:
        value = variable.group(2)
        return not value.startswith(("'", '"')) or variable.group(1).endswith("leader")
    return False


def _vim_unsafe_options() -> frozenset[str]:
    entry = catalogue().settings_files.get(".vimrc")
    return frozenset(entry["unsafe_options"]) if entry is not None else frozenset()


def _readline_setting(line: str) -> bool:
    return any(p.fullmatch(line) is not None for p in (_READLINE_SET, _READLINE_COND, _READLINE_BIND))
