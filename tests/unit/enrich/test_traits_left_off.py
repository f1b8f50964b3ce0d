"""gaps38 (policies/README.md, "Known gaps closed (gaps38)"): a Jupyter or IPython setting named for what runs or
lets in is plain when its value runs and exposes nothing: a loopback address, a program or code setting left off
(hookd.enrich.effects.languages `_left_off`); a token's, password's or path's never."""

from __future__ import annotations

import pytest

from hookd.enrich.effects.languages import python_sets_only


@pytest.mark.parametrize(
    "text",
    [
        "c.NotebookApp.ip = '127.0.0.1'\nc.NotebookApp.port = 8888\nc.NotebookApp.open_browser = False\n",
        "c.ServerApp.ip = 'localhost'\n",
        "c.ServerApp.ip = '::1'\n",
        "c.InteractiveShellApp.exec_lines = []\n",
    ],
)
def test_a_setting_left_off_or_on_loopback_is_plain(text: str) -> None:
    assert python_sets_only(text)  # was asked: the setting's name decided, whatever its value


@pytest.mark.parametrize(
    "text",
    [
        "c.ServerApp.ip = '0.0.0.0'\n",  # every host reaches it
        "c.ServerApp.ip = '10.0.0.5'\n",
        "c.ServerApp.token = ''\n",  # no token: anyone in
        "c.ServerApp.password = ''\n",
        "c.ServerApp.open_browser = True\n",
        "c.InteractiveShellApp.exec_lines = ['import os']\n",
        "c.ServerApp.allow_remote_access = False\n",
        "c.ServerApp.root_dir = ''\n",
    ],
)
def test_a_setting_that_runs_or_lets_in_stays_asked(text: str) -> None:
    assert not python_sets_only(text)
