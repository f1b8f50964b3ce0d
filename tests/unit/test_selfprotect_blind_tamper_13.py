"""blind-tamper-13 (policies/README.md, "The seventh blind tamper batch"): a file's times set from Python, a path built
from a name that holds one, the configurations in a directory handed to logrotate, a daemon served on other
policies where the shims look; each through the whole hot path with the shipped policies, beside the look-alikes
that stay allowed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.test_selfprotect import shell_outcome


def _log(home: Path) -> Path:
    log = home / ".local/state/hookd/decisions.log"
    log.parent.mkdir(parents=True)
    log.write_text('{"seq": 1}\n')
    return log


# --- os.utime sets a file's times, as touch does ---


def test_the_logs_times_set_from_python_are_denied(world: tuple[Path, Path]) -> None:
    home, project = world
    _log(home)
    line = "python3 -c \"import os; p=os.path.expanduser('~/.local/state/hookd/decisions.log'); os.utime(p, (0, 0))\""
    assert shell_outcome(home, project, line) == "deny"


def test_a_stamps_times_set_from_python_pass(world: tuple[Path, Path]) -> None:
    home, project = world
    (project / "build").mkdir()
    (project / "build" / "stamp").write_text("")
    assert shell_outcome(home, project, "python3 -c \"import os; os.utime('build/stamp', (0, 0))\"") == "allow"


# --- a path built from a name that holds one: `d = Path.home() / "…"; (d / "x").write_text(…)` ---


@pytest.mark.parametrize(
    "code",
    [
        "import pathlib; d=pathlib.Path.home()/'.config/systemd/user/hookd.service.d'; (d/'q.conf').write_text('x')",
        "import os; d=os.path.expanduser('~/.local/state/hookd'); open(os.path.join(d, 'decisions.log'), 'w')",
        "from pathlib import Path; d=Path.home()/'.claude'; f=d/'settings.json'; f.write_text('{}')",
    ],
)
def test_a_protected_path_built_from_a_name_is_denied(code: str, world: tuple[Path, Path]) -> None:
    home, project = world
    _log(home)
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text('{"hooks": {}}\n')
    assert shell_outcome(home, project, f'python3 -c "{code}"') == "deny"


def test_a_project_path_built_from_a_name_passes(world: tuple[Path, Path]) -> None:
    home, project = world
    code = "from pathlib import Path; d=Path('build'); d.mkdir(exist_ok=True); (d/'out.txt').write_text('ok')"
    assert shell_outcome(home, project, f'python3 -c "{code}"') == "allow"


# --- logrotate reads every file of a directory it is given as a configuration ---


def test_a_directory_of_configurations_that_rotates_the_log_away_is_denied(world: tuple[Path, Path]) -> None:
    home, project = world
    _log(home)
    line = (
        "mkdir -p /tmp/lr.d && printf '%s/.local/state/hookd/decisions.log {\\n rotate 0\\n}\\n' \"$HOME\""
        " > /tmp/lr.d/h && logrotate -f -s /dev/null /tmp/lr.d"
    )
    assert shell_outcome(home, project, line) == "deny"


def test_a_directory_of_the_projects_own_configurations_passes(world: tuple[Path, Path]) -> None:
    home, project = world
    line = "mkdir -p ops/lr.d && printf 'logs/*.log {\\n rotate 3\\n}\\n' > ops/lr.d/app"
    line += " && logrotate -f -s lr.state ops/lr.d"
    assert shell_outcome(home, project, line) == "allow"


# --- hookd serve on policies of its own, where the shims look for the guard ---


@pytest.mark.parametrize(
    "line",
    [
        'setsid -f hookd serve --policies ~/.cache/p --runtime-dir "$XDG_RUNTIME_DIR/hookd" >/dev/null 2>&1',
        "HOOKD_CONFIG=/tmp/h.toml nohup hookd serve &",
        "hookd --config /tmp/h.toml serve",
    ],
)
def test_a_daemon_served_on_other_policies_is_denied(line: str, world: tuple[Path, Path]) -> None:
    home, project = world
    assert shell_outcome(home, project, line) == "deny"


def test_a_test_daemon_of_the_projects_own_passes(world: tuple[Path, Path]) -> None:
    home, project = world
    (project / "policies").mkdir()
    assert shell_outcome(home, project, "hookd serve --policies policies --runtime-dir ./.rt") == "allow"
