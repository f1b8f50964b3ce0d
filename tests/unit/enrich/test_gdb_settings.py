"""gaps38 (policies/README.md, "Known gaps closed (gaps38)"): gdb's init files hold plain settings when every
line is a `set`/`show`/`handle`/`directory`/`info` that names no file gdb writes, no code it loads and no program
it starts, matched by a unique prefix of each word as gdb takes it (programs.json `settings_files`, configtext)."""

from __future__ import annotations

import pytest

from hookd.enrich.effects.configtext import settings_only

GDBINIT = "/home/u/.config/gdb/gdbinit"


@pytest.mark.parametrize(
    "text",
    ["set history save on\nset print pretty on\n", "# mine\nhandle SIGPIPE nostop noprint\nset pagination off\n"],
)
def test_gdbs_own_settings_run_nothing(text: str) -> None:
    assert settings_only(GDBINIT, text)  # was asked as any text of a runs-later file
    assert settings_only("/home/u/.gdbinit", text)


@pytest.mark.parametrize(
    "text",
    [
        "shell rm -rf ~\n",
        "set history filename ~/.bashrc\n",
        "set hist filen ~/.bashrc\n",  # gdb's unique prefixes
        "set logging file /home/u/.profile\n",
        "set auto-load safe-path /\n",
        "set exec-wrapper env LD_PRELOAD=/tmp/x.so\n",
        'set $x = $_shell("id")\n',  # a convenience function that runs a command
        "python import os\n",
        "source ~/.cache/x.gdb\n",
        "define hook-stop\nshell id\nend\n",
    ],
)
def test_settings_that_write_load_or_run_are_not_plain(text: str) -> None:
    assert not settings_only(GDBINIT, text)
