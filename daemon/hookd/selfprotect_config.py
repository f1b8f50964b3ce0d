"""The config a later hookd of the caller reads: `~/.config/hookd/config.toml` in the caller's home, the file the
service manager's `hookd serve` and every autostart without `--config` load (README "Configuration"). Whatever
config the running daemon was given, the files that one names are what the next daemon verifies bundles with,
fetches and loads policies from and writes its log to: hookd's, as the running config's are."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

from hookd.config import Config, parse_config
from hookd.errors import ConfigError

_CALLER_CONFIG = (".config", "hookd", "config.toml")

# a config file's identity: (device, inode, size, mtime); None when there is none to read
Stamp = tuple[int, int, int, int] | None


def caller_config_stamp(home: str) -> Stamp:
    """What tells a set derived from the caller's config that the file changed (one stat a call)."""
    if not home.startswith("/"):
        return None
    try:
        stat = os.stat(os.path.join(home, *_CALLER_CONFIG))  # not pathlib: ~10 functions on every writing call
    except OSError:
        return None
    return (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns)


def caller_config(home: str) -> Config | None:
    """The caller's own config, read with its `~` as the caller's home (the daemon's may differ). A file that cannot
    be read or parsed names nothing more."""
    path = Path(home, *_CALLER_CONFIG)
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
        return parse_config(_home_filled(raw, home.rstrip("/")), source=path)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, ConfigError, ValueError, TypeError):
        return None


def _home_filled(value: Any, home: str) -> Any:
    """Every `~`-led path of the TOML document as the caller's home has it (parse_config would expand the daemon's)."""
    if isinstance(value, str):
        return home + value[1:] if value == "~" or value.startswith("~" + os.sep) else value
    if isinstance(value, list):
        return [_home_filled(v, home) for v in value]
    if isinstance(value, dict):
        return {k: _home_filled(v, home) for k, v in value.items()}
    return value
