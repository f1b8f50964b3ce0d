"""Launchers that change the child's view of the filesystem (hookd.enrich.shell.views, data/views.json): a path
the command they start names below a bind's target is the host path bound there, as `docker run -v` has it; bwrap's
two-word binds are parsed as two words (programs.json `arity`); a link farm (`stow`, effects/farms.py) links, adopts
and unlinks each file of its package; a dev container's lifecycle commands run through its mounts
(hookd.enrich.devcontainer). holes48."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookd.enrich.devcontainer import container_lines
from tests.effect_support import HOME, analysed


def _changed(command: str, proj: Path) -> set[tuple[str, str]]:
    return {(e["op"], e["path"]) for e in analysed(command, proj)[1] if e["op"] in ("write", "delete", "move")}


@pytest.mark.parametrize(
    ("command", "deleted"),
    [
        ("bwrap --bind ~/.claude /tmp/x rm -rf /tmp/x/settings.json", f"{HOME}/.claude/settings.json"),
        ("bwrap --ro-bind /usr /usr --bind ~/.ssh /s --dev /dev rm /s/config", f"{HOME}/.ssh/config"),
        ("nsjail -Mo --bindmount $HOME/.config/kilo:/k -- /bin/rm -f /k/plugin/hookd.js",
         f"{HOME}/.config/kilo/plugin/hookd.js"),
        ("nsjail -Mo -R /etc:/e -B ~/.gnupg:/g -- rm -rf /g", f"{HOME}/.gnupg"),
        ("proot -b ~/.aws:/creds -w / rm /creds/credentials", f"{HOME}/.aws/credentials"),
        ("proot -r /srv/root rm /etc/passwd", "/srv/root/etc/passwd"),
        ("systemd-run --user -p BindPaths=$HOME/.kube:/k rm /k/config", f"{HOME}/.kube/config"),
        ("systemd-nspawn -D /var/lib/machines/m --bind=$HOME:/root rm -rf /root/.bashrc", f"{HOME}/.bashrc"),
        ("firejail --bind=$HOME/.docker,/d rm /d/config.json", f"{HOME}/.docker/config.json"),
        ("chroot /mnt/host rm -f /home/u/.zshrc", "/mnt/host/home/u/.zshrc"),
    ],
)  # fmt: skip
def test_a_delete_inside_a_bind_is_of_the_host_path(command: str, deleted: str, proj: Path) -> None:
    assert ("delete", deleted) in _changed(command, proj), analysed(command, proj)


def test_bwraps_binds_take_two_words(proj: Path) -> None:
    argv, _ = analysed('bwrap --ro-bind /usr /usr --bind "$PWD" "$PWD" --proc /proc pytest -q', proj)
    assert argv == [["pytest", "-q"]]
    argv, _ = analysed("bwrap --symlink usr/lib /lib --setenv A b --chmod 0755 /x make", proj)
    assert argv == [["make"]]


def test_an_identity_bind_leaves_paths_where_they_are(proj: Path) -> None:
    assert ("delete", f"{proj}/build") in _changed(f'nsjail -Mo --bindmount "{proj}" -- rm -rf {proj}/build', proj)


@pytest.fixture
def stowed(proj: Path) -> Path:
    (proj / "stow" / "claude" / ".claude").mkdir(parents=True)
    (proj / "stow" / "claude" / ".claude" / "settings.json").write_text("{}")
    (proj / "stow" / "vim" / "dot-vim").mkdir(parents=True)
    (proj / "stow" / "vim" / "dot-vim" / "vimrc").write_text("set nu")
    return proj


def test_stow_links_each_file_of_the_package_into_the_target(stowed: Path) -> None:
    changed = _changed("stow -d stow -t ~ claude", stowed)
    assert ("write", f"{HOME}/.claude/settings.json") in changed
    assert ("write", f"{HOME}/.vim/vimrc") in _changed("stow --dotfiles -d stow -t ~ vim", stowed)


def test_stow_adopt_moves_the_targets_file_into_the_package(stowed: Path) -> None:
    changed = _changed("stow --adopt -d stow --target=$HOME claude", stowed)
    assert ("move", f"{HOME}/.claude/settings.json") in changed
    assert ("write", f"{stowed}/stow/claude/.claude/settings.json") in changed


def test_stow_delete_unlinks_and_a_simulation_does_nothing(stowed: Path) -> None:
    assert ("delete", f"{HOME}/.claude/settings.json") in _changed("stow -D -d stow -t ~ claude", stowed)
    assert _changed("stow -n --adopt -d stow -t ~ claude", stowed) == set()
    assert _changed("cd stow && stow -t ~ absent", stowed) == set()


def test_a_dev_containers_commands_run_through_its_mounts() -> None:
    text = '{"mounts": ["source=${localEnv:HOME}/.copilot,target=/c,type=bind", {"source": "v", "target": "/v", '
    text += '"type": "volume"}], "workspaceMount": "source=${localWorkspaceFolder},target=/w,type=bind", '
    text += '"remoteUser": "vscode", "initializeCommand": "echo hi", "postCreateCommand": "rm -rf /c/hooks"}'
    target = "/p/.devcontainer/devcontainer.json"
    lines = container_lines(target, [text], ["echo hi", "rm -rf /c/hooks"], HOME)
    assert lines[0] == "echo hi"  # initializeCommand runs on the host
    assert lines[1] == (
        f"docker run --rm --volume={HOME}/.copilot:/c --volume=/p:/w --user=vscode devcontainer sh -c 'rm -rf /c/hooks'"
    )
    assert container_lines(target, ['{"postCreateCommand": "make"}'], ["make"], HOME) == ["make"]
    assert container_lines("/p/config.json", [text], ["rm -rf /c/hooks"], HOME) == ["rm -rf /c/hooks"]


@pytest.mark.parametrize(
    ("command", "deleted"),
    [
        ("unshare -mr sh -c 'mount --bind ~/.codex /mnt && rm /mnt/hooks.json'", f"{HOME}/.codex/hooks.json"),
        ("unshare -m bash -c 'mount -o rbind,ro $HOME/.ssh /srv/k; rm -f /srv/k/config'", f"{HOME}/.ssh/config"),
        ("bindfs ~/.gnupg /tmp/g && rm -rf /tmp/g/private-keys-v1.d", f"{HOME}/.gnupg/private-keys-v1.d"),
    ],
)  # fmt: skip
def test_a_bind_mount_made_on_the_line_holds_for_its_later_commands(command: str, deleted: str, proj: Path) -> None:
    assert ("delete", deleted) in _changed(command, proj), analysed(command, proj)


def test_a_mount_that_binds_nothing_maps_nothing(proj: Path) -> None:
    assert ("delete", "/mnt/x") in _changed("mount -t tmpfs none /mnt && rm -rf /mnt/x", proj)
