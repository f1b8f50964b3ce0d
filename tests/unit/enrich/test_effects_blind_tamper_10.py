"""Mechanisms blind-tamper-10's first run missed (policies/README.md, "The fourth blind tamper batch"): what a
program does with the files, packages, units and processes its arguments name, and the look-alikes that stay
everyday work."""

from __future__ import annotations

from pathlib import Path

import pytest
from effect_support import HOME, analysed, effects

# --- a .pth file's lines: only those that begin with `import` run ---


def test_a_pth_of_paths_in_the_projects_venv_runs_nothing(tmp_path: Path) -> None:
    found = effects('echo "$PWD/src" > .venv/lib/python3.11/site-packages/myproject-src.pth', tmp_path)
    assert not [e for e in found if e["op"] == "exec" and e.get("deferred")]


def test_a_pth_with_an_import_line_runs_at_every_start(tmp_path: Path) -> None:
    found = effects("echo 'import os; os.system(\"id\")' > .venv/lib/python3.11/site-packages/x.pth", tmp_path)
    assert [e["startup"] for e in found if e["op"] == "exec" and e.get("deferred")] == [
        str(tmp_path / ".venv/lib/python3.11/site-packages/x.pth")
    ]


# --- a package named by a requirement: its project's name, whatever version or file follows ---


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("pipx install --force 'hookd==0.3.1'", "hookd"),
        ("uv tool install --force hookd@0.3.0", "hookd"),
        ("pip uninstall -y 'hookd[http]>=1'", "hookd"),
        ("pipx install ./dist/hookd-0.3.0-py3-none-any.whl", "hookd"),
        ("pipx install --force 'git+https://github.com/x/hookd.git@v0.3'", "hookd"),
        ("pipx install 'git+https://github.com/x/tools.git#egg=hookd'", "hookd"),
        ("pipx install black", "black"),
    ],
)
def test_a_requirement_names_its_project(line: str, name: str, tmp_path: Path) -> None:
    assert [e["name"] for e in effects(line, tmp_path) if e.get("what") == "package"] == [name]


# --- the environment a pip writes: the interpreter's that runs it, or the one an option names ---


@pytest.mark.parametrize(
    "line",
    [
        "~/.local/share/pipx/venvs/hookd/bin/python -m pip install --force-reinstall 'hookd==0.4.0'",
        "~/.local/share/pipx/venvs/hookd/bin/pip install 'hookd==0.4.0'",
        "pip --python ~/.local/share/pipx/venvs/hookd/bin/python uninstall -y hookd",
        "uv pip install -p ~/.local/share/pipx/venvs/hookd/bin/python 'hookd<0.5'",
    ],
)
def test_pip_run_from_an_environment_writes_it(line: str, tmp_path: Path) -> None:
    written = [e for e in effects(line, tmp_path) if e["op"] == "write" and e["recursive"]]
    assert [e["path"] for e in written] == [f"{HOME}/.local/share/pipx/venvs/hookd"]


@pytest.mark.parametrize("line", ["python3 -m pip install requests", "pip install -r requirements.txt"])
def test_pip_of_the_active_environment_names_none(line: str, tmp_path: Path) -> None:
    assert not [e for e in effects(line, tmp_path) if e["op"] == "write"]


def test_the_projects_venv_pip_writes_the_projects_venv(tmp_path: Path) -> None:
    written = [e for e in effects(".venv/bin/pip install 'django==4.2.11'", tmp_path) if e["op"] == "write"]
    assert [(e["path"], e["class"]) for e in written] == [(str(tmp_path / ".venv"), "project")]


# --- git rm: the files leave the work tree, committed or not ---


def test_git_rm_deletes_the_tree_it_names(tmp_path: Path) -> None:
    deleted = [e for e in effects("git rm -rq .hookd/policies", tmp_path) if e["op"] == "delete"]
    assert [(e["path"], e["recursive"]) for e in deleted] == [(str(tmp_path / ".hookd/policies"), True)]


def test_git_rm_cached_keeps_the_work_tree(tmp_path: Path) -> None:
    assert not [e for e in effects("git rm -r --cached build/", tmp_path) if e["op"] == "delete"]
    assert not [e for e in effects("git rm -n old.txt", tmp_path) if e["op"] == "delete"]


# --- plutil: the property lists its editing options rewrite ---


def test_plutil_replace_rewrites_the_property_list(tmp_path: Path) -> None:
    line = "plutil -replace ProgramArguments -json '[\"/usr/bin/true\"]' ~/Library/LaunchAgents/dev.hookd.daemon.plist"
    assert [e["path"] for e in effects(line, tmp_path) if e["op"] == "write"] == [
        f"{HOME}/Library/LaunchAgents/dev.hookd.daemon.plist"
    ]


def test_plutil_lint_only_reads(tmp_path: Path) -> None:
    assert not [e for e in effects("plutil -lint ~/Library/LaunchAgents/x.plist", tmp_path) if e["op"] == "write"]


# --- cpulimit: the process it throttles, by pid, name or executable ---


@pytest.mark.parametrize(
    ("line", "target", "match"),
    [
        ("cpulimit -p \"$(pgrep -f 'hookd serve')\" -l 1 -b", "$(pgrep -f 'hookd serve')", "pid"),
        ("cpulimit --exe=python3.11 -l 1", "python3.11", "name"),
        ('cpulimit -P "$HOME/.local/share/pipx/venvs/hookd/bin/python" -l 2', "python", "name"),
        ("ionice -c3 -P \"$(pgrep -f 'hookd serve')\"", "$(pgrep -f 'hookd serve')", "pid"),
    ],
)
def test_cpulimit_acts_on_the_process_it_names(line: str, target: str, match: str, tmp_path: Path) -> None:
    signals = [e for e in effects(line, tmp_path) if e["op"] == "signal"]
    assert [(e["target"], e["match"], e["acts"]) for e in signals] == [(target, match, "process")]


def test_cpulimit_of_a_command_it_starts_signals_nothing_else(tmp_path: Path) -> None:
    assert not [e for e in effects("cpulimit -l 50 -- ./scripts/reindex.sh", tmp_path) if e["op"] == "signal"]


# --- the service manager's environment: what every unit it starts later gets ---


@pytest.mark.parametrize(
    "line",
    [
        'systemctl --user set-environment LD_AUDIT="$HOME/.cache/libaudit.so"',
        "dbus-update-activation-environment --systemd LD_AUDIT=$HOME/.cache/libaudit.so",
        "launchctl setenv LD_AUDIT $HOME/.cache/libaudit.so",
        "launchctl setenv DYLD_INSERT_LIBRARIES $HOME/.cache/libaudit.so",
    ],
)
def test_a_loader_variable_in_the_managers_environment_runs_later(line: str, tmp_path: Path) -> None:
    later = [e for e in effects(line, tmp_path) if e["op"] == "exec" and e.get("deferred")]
    assert [e["code"]["text"].partition("=")[2] for e in later] == [f"{HOME}/.cache/libaudit.so\n"]


def test_hookds_config_in_the_managers_environment_is_a_setting_kept(tmp_path: Path) -> None:
    (written,) = [e for e in effects("launchctl setenv HOOKD_CONFIG /tmp/h.toml", tmp_path) if e.get("manager")]
    assert written["sets"] == {"HOOKD_CONFIG": "/tmp/h.toml"}


def test_a_plain_variable_in_the_managers_environment_runs_nothing(tmp_path: Path) -> None:
    found = effects("dbus-update-activation-environment --systemd DISPLAY=:0", tmp_path)
    assert not [e for e in found if e["op"] == "exec"]


# --- systemctl's unit-file verbs: what they write in the manager's unit directory ---


def test_systemctl_edit_writes_the_units_drop_in_whatever_editor_runs(tmp_path: Path) -> None:
    line = 'SYSTEMD_EDITOR="cp $HOME/.cache/ovr.conf" systemctl --user edit hookd.service'
    assert [e["path"] for e in effects(line, tmp_path) if e["op"] == "write"] == [
        f"{HOME}/.config/systemd/user/hookd.service.d/override.conf"
    ]
    full = [e["path"] for e in effects("systemctl edit --full --drop-in=x hookd", tmp_path) if e["op"] == "write"]
    assert full == ["/etc/systemd/system/hookd.service"]


def test_systemctl_link_lands_a_link_in_the_unit_directory(tmp_path: Path) -> None:
    found = effects("systemctl --user link --force ~/.cache/hookd.service", tmp_path)
    (link,) = [e for e in found if e["op"] == "link"]
    assert (link["path"], link["to"]) == (f"{HOME}/.cache/hookd.service", f"{HOME}/.config/systemd/user/hookd.service")


# --- an archive's members named on the line land below the extraction directory ---


@pytest.mark.parametrize(
    ("line", "member"),
    [
        ("unzip -o -q ~/Downloads/dotfiles.zip '.gemini/*' -d ~", f"{HOME}/.gemini/*"),
        ('tar -C "$HOME" -xf ~/Downloads/dots.tar .codex/hooks.json', f"{HOME}/.codex/hooks.json"),
        ("7z x x.zip -o$HOME .gemini/settings.json", f"{HOME}/.gemini/settings.json"),
        ("7z e x.zip -o$HOME/.codex sub/hooks.json", f"{HOME}/.codex/hooks.json"),
    ],
)
def test_a_named_member_is_written_below_the_directory(line: str, member: str, tmp_path: Path) -> None:
    assert [e["path"] for e in effects(line, tmp_path) if e.get("member")] == [member]


@pytest.mark.parametrize(
    "line",
    ["unzip -l ~/Downloads/x.zip .gemini/settings.json", "unzip -o -q assets.zip -d public/", "7z l x.7z .codex/x"],
)
def test_a_listing_or_a_whole_extraction_names_no_member(line: str, tmp_path: Path) -> None:
    assert not [e for e in effects(line, tmp_path) if e.get("member")]


# --- cpio's copy-pass mode: the files stdin names land below its directory ---


def test_cpio_pass_through_writes_the_listed_names_below_its_directory(tmp_path: Path) -> None:
    found = effects('cd /tmp/seed && find .copilot -print | cpio -pdmu "$HOME"', tmp_path)
    assert [e["path"] for e in found if e["op"] == "write"] == [f"{HOME}/.copilot"]


def test_cpio_pass_through_of_unknown_names_writes_its_whole_directory(tmp_path: Path) -> None:
    found = effects("cpio -pdm build/ < files.txt", tmp_path)
    assert [(e["path"], e["recursive"]) for e in found if e["op"] == "write"] == [(str(tmp_path / "build"), True)]


# --- a process's own file written through a PID lookup: that file, of that process ---


def test_a_process_file_written_through_a_pid_lookup_is_known(tmp_path: Path) -> None:
    found = effects("echo 500 > \"/proc/$(pgrep -f 'node server.js' | head -n1)/oom_score_adj\"", tmp_path)
    (written,) = [e for e in found if e["op"] == "write"]
    assert (written["path"], written["known"]) == ("/proc/PID/oom_score_adj", True)
    assert [e["acts"] for e in found if e["op"] == "signal"] == ["process"]


def test_a_process_file_through_another_substitution_stays_unknown(tmp_path: Path) -> None:
    (written,) = [e for e in effects("echo 0 > /proc/$(cat /tmp/pid)/oom_score_adj", tmp_path) if e["op"] == "write"]
    assert written["known"] is False


# --- /dev/fd/N: the file a redirect opened on descriptor N ---


def test_a_descriptor_opened_by_exec_names_its_file_later_on_the_line(tmp_path: Path) -> None:
    found = effects('exec 7<"$HOME/.local/state/hookd/decisions.log"; truncate -s 0 /dev/fd/7', tmp_path)
    assert [e["path"] for e in found if e.get("emptied")] == [f"{HOME}/.local/state/hookd/decisions.log"]


def test_a_commands_own_redirect_names_its_file_for_that_command_only(tmp_path: Path) -> None:
    found = effects("cat /dev/fd/3 3<a.txt; cat /proc/self/fd/3", tmp_path)
    assert [e["path"] for e in found if e["op"] == "read" and not e.get("guess")] == [
        str(tmp_path / "a.txt"),
        str(tmp_path / "a.txt"),
        "/proc/self/fd/3",
    ]


def test_a_closed_descriptor_names_nothing(tmp_path: Path) -> None:
    found = effects("exec 3<a.txt; exec 3<&-; cat /dev/fd/3", tmp_path)
    assert [e["path"] for e in found if e["program"] == "cat"] == ["/proc/self/fd/3"]


def test_a_variable_imported_into_the_managers_environment_hands_on_its_value(tmp_path: Path) -> None:
    line = "export HOOKD_CONFIG=/tmp/h.toml; systemctl --user import-environment HOOKD_CONFIG"
    (written,) = [e for e in effects(line, tmp_path) if e.get("manager")]
    assert written["sets"] == {"HOOKD_CONFIG": "/tmp/h.toml"}


# --- a mount: every file below its mount point is replaced for whoever sees it ---


def test_a_mount_writes_the_tree_below_its_mount_point(tmp_path: Path) -> None:
    for line in ("mount --bind /tmp/e ~/.factory", "mount -t tmpfs tmpfs --target ~/.factory"):
        written = [e for e in effects(line, tmp_path) if e["op"] == "write"]
        assert [(e["path"], e["recursive"]) for e in written] == [(f"{HOME}/.factory", True)]


# --- the shell's own /proc entry: /proc/$$ as /proc/self ---


def test_a_path_through_the_shells_own_proc_entry_is_the_file_it_reaches(tmp_path: Path) -> None:
    found = effects("sed -i 's/true/false/' /proc/$$/root$HOME/.gemini/settings.json", tmp_path)
    assert [e["path"] for e in found if e["op"] == "write"] == [f"{HOME}/.gemini/settings.json"]
    found = effects('exec 7<"$HOME/.local/state/hookd/decisions.log"; truncate -s 0 /proc/$BASHPID/fd/7', tmp_path)
    assert [e["path"] for e in found if e.get("emptied")] == [f"{HOME}/.local/state/hookd/decisions.log"]


# --- a PID written into a cgroup's member list: that process moved under the cgroup's limits ---


@pytest.mark.parametrize(
    ("line", "lookup"),
    [
        ("pgrep -f 'hookd serve' | tee /sys/fs/cgroup/user.slice/slow/cgroup.procs", ["hookd serve"]),
        ("echo $(pidof hookd) > /sys/fs/cgroup/x/cgroup.threads", ["hookd"]),
    ],
)
def test_a_pid_written_into_a_cgroup_acts_on_that_process(line: str, lookup: list[str], tmp_path: Path) -> None:
    signals = [e for e in effects(line, tmp_path) if e["op"] == "signal"]
    assert [(e["acts"], e["lookup"]) for e in signals] == [("process", lookup)]


def test_the_shells_own_pid_moved_into_a_cgroup_names_no_other_process(tmp_path: Path) -> None:
    (signal,) = [
        e for e in effects("echo $$ > /sys/fs/cgroup/user.slice/mine/cgroup.procs", tmp_path) if e["op"] == "signal"
    ]
    assert "lookup" not in signal and "running" not in signal


# --- chrt and taskset with -p act on a running process; without it they launch their command ---


@pytest.mark.parametrize(
    ("line", "lookup"),
    [("chrt -i -p 0 \"$(pgrep -f 'hookd serve')\"", ["hookd", "serve"]), ("taskset -cp 0 $(pgrep -f vite)", ["vite"])],
)
def test_a_scheduling_change_of_a_running_process_acts_on_it(line: str, lookup: list[str], tmp_path: Path) -> None:
    found = effects(line, tmp_path)
    assert [(e["acts"], e["lookup"]) for e in found if e["op"] == "signal"] == [("process", lookup)]
    assert not [e for e in found if e["op"] == "exec"]  # the PID is no command it runs


def test_chrt_without_pid_still_launches_its_command(tmp_path: Path) -> None:
    argv, found = analysed("chrt -i 0 sh -c 'rm -rf ~/x'", tmp_path)
    assert ["rm", "-rf", f"{HOME}/x"] in argv
    assert not [e for e in found if e["op"] == "signal"]


def test_git_checkout_index_force_writes_the_files_it_names(tmp_path: Path) -> None:
    found = effects("git -C ~ checkout-index -f .qwen/settings.json", tmp_path)
    assert [e["path"] for e in found if e["op"] == "delete"] == [f"{HOME}/.qwen/settings.json"]
    assert not [e for e in effects("git -C ~ checkout-index .qwen/settings.json", tmp_path) if e["op"] == "delete"]


def test_pythons_unpack_archive_writes_below_its_directory(tmp_path: Path) -> None:
    code = "import shutil,os; shutil.unpack_archive('/tmp/d.zip', os.path.expanduser('~/.gemini'))"
    written = [e for e in effects(f'python3 -c "{code}"', tmp_path) if e["op"] == "write"]
    assert [(e["path"], e["recursive"]) for e in written] == [(f"{HOME}/.gemini", True)]
    here = [
        e
        for e in effects("python3 -c \"import shutil; shutil.unpack_archive('a.zip')\"", tmp_path)
        if e["op"] == "write"
    ]
    assert [e["path"] for e in here] == [str(tmp_path)]
