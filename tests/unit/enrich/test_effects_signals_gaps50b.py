"""gaps50b: a PID looked up from a file of the project (`kill "$(cat /w/hookd-x/shop/.dev-server.pid)"`) is named by
its place in the project: the directories the project sits in (the corpus runner's hookd-cases-…, a user's
~/src/hookd-plugins/) name no process (hookd.enrich.effects.signals), while a file of the project that does name the
guard, or a path outside the project, keeps its words."""

from __future__ import annotations

from pathlib import Path

from effect_support import ops


def _lookups(line: str, project: Path) -> list[str]:
    return [w for e in ops(line, project, "signal") for w in e.get("lookup", [])]


def test_a_pid_file_of_the_project_is_named_below_it(tmp_path: Path) -> None:
    project = tmp_path / "hookd-cases-x" / "shop"
    project.mkdir(parents=True)
    assert _lookups(f'kill -USR1 "$(cat {project}/.dev-server.pid)"', project) == ["./.dev-server.pid"]


def test_a_file_that_names_the_guard_or_lies_outside_keeps_it(tmp_path: Path) -> None:
    project = tmp_path / "hookd-cases-x" / "shop"
    project.mkdir(parents=True)
    assert _lookups(f'kill "$(cat {project}/run/hookd.pid)"', project) == ["./run/hookd.pid"]
    assert _lookups(f'kill "$(cat {tmp_path}/hookd-cases-x/x.pid)"', project) == [f"{tmp_path}/hookd-cases-x/x.pid"]


def test_the_target_names_processes_by_the_projects_paths(tmp_path: Path) -> None:
    project = tmp_path / "hookd-cases-x" / "shop"
    project.mkdir(parents=True)
    [signal] = ops(f'kill -USR1 "$(cat {project}/.dev-server.pid)"', project, "signal")
    assert signal["named"] == "$(cat ./.dev-server.pid)"
    assert str(project) in signal["target"]  # the reason shows it as spelled
    [other] = ops(f'kill "$(cat /x{project}/a.pid)"', project, "signal")
    assert "named" not in other  # another path that merely ends as the project's does


def test_a_postrotate_signal_in_a_project_below_a_directory_named_after_the_guard_is_allowed(tmp_path: Path) -> None:
    """blind-tamper-18 line 111: the corpus runner's hookd-cases-… directory; a file of the project naming the guard
    stays denied."""
    from tests.unit.test_selfprotect import tool_outcome

    home, project = tmp_path / "home", tmp_path / "hookd-cases-x" / "project"
    home.mkdir()
    project.mkdir(parents=True)
    outcomes = []
    for pid_file in (".dev-server.pid", "hookd.pid"):
        kill = f'kill -USR1 "$(cat {project}/{pid_file})"'
        text = f"{project}/logs/*.log {{\n  postrotate\n    {kill}\n  endscript\n}}\n"
        conf = {"file_path": str(project / "ops" / "logrotate.conf"), "content": text}
        outcomes.append(tool_outcome(home, project, "write_file", conf))
    assert outcomes == ["allow", "deny"]
