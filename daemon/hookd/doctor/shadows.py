"""`hookd doctor`: what would run as hookd instead of this hookd (issue 25; hookd.runtime.isolated says how hookd
starts itself so that none of it does).

Findings, one line each with its fix: the daemon's start command (`python -I -m hookd`, from /) does not
import this package (another `hookd` earlier on its path, or this one only reachable through PYTHONPATH
or the user site); a `hookd` package or module where a start that is not isolated would find it first
(the working directory, $HOME, the project, the installed unit's WorkingDirectory, each PYTHONPATH entry,
the user site); a .pth file naming hookd that hookd's own installation did not write (in the user site or
the interpreter's site-packages: Python runs its `import` lines at every start).
"""

from __future__ import annotations

import json
import os
import shlex
import site
import subprocess
import sys
from importlib import machinery, metadata
from pathlib import Path

from hookd.doctor.findings import Finding
from hookd.runtime import isolated

CHECK = "shadows"
_PROBE = "import hookd, json, sys; print(json.dumps([hookd.__file__, sys.path]))"


def check_shadows(project_dir: Path) -> list[Finding]:
    findings = [*_start_command(), *_planted(project_dir), *_pth_files()]
    return [f for f in findings if not f.ok] or [Finding(CHECK, True, "nothing shadows this hookd where it starts")]


def this_package() -> Path:
    return Path(isolated.PACKAGE_ROOT) / "hookd"


def _start_command() -> list[Finding]:
    """Which hookd `python -I -m hookd` imports when started from / (the units, the launchd agent, both
    shims' autostart): it must be this one."""
    python = _unit_python() or sys.executable
    try:
        done = subprocess.run([python, "-I", "-c", _PROBE], cwd=isolated.SAFE_CWD, capture_output=True,
                              text=True, timeout=30, check=False)  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as exc:
        return [
            Finding(CHECK, False, f"the daemon's interpreter {python} does not run: {exc}", "hookd service install")
        ]
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return [Finding(CHECK, False, f"`{python} -I -m hookd` (how the daemon starts) does not import hookd: {why}",
                        "install hookd into a virtual environment (pipx install hookd), not the user site or "
                        "PYTHONPATH, then run hookd install and hookd service install again")]  # fmt: skip
    found = Path(json.loads(done.stdout)[0]).resolve().parent
    if found != this_package().resolve():
        return [Finding(CHECK, False, f"`{python} -I -m hookd` imports {found}, not this hookd ({this_package()})",
                        f"remove {shlex.quote(str(found))} if you did not put it there")]  # fmt: skip
    return [Finding(CHECK, True, f"`{python} -I -m hookd` imports this hookd")]


def _unit_python() -> str | None:
    """The interpreter of the installed user unit's ExecStart, if there is one."""
    from hookd.service import systemd

    unit = systemd.user_scope().unit_dir / systemd.SERVICE
    try:
        lines = unit.read_text().splitlines()
    except OSError:
        return None
    start = next((line.removeprefix("ExecStart=") for line in lines if line.startswith("ExecStart=")), "")
    return shlex.split(start)[0] if start else None


def _planted(project_dir: Path) -> list[Finding]:
    """A `hookd` in a directory that a start without -I would search before this package."""
    places = [
        (Path.cwd(), "the working directory, which `python -m hookd` searches first"),
        (Path.home(), "your home directory, where a user unit without WorkingDirectory= starts"),
        (project_dir, "the project, where an agent runs `python -m hookd` from"),
        (Path(site.getusersitepackages()), "the user site, which Python searches unless run with -I"),
        *((Path(p), "a PYTHONPATH entry, which Python searches first unless run with -I")
          for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p),
    ]  # fmt: skip
    if (working := _unit_working_directory()) is not None:
        places.append((working, "the installed unit's working directory"))
    findings, seen = [], {this_package().resolve()}
    for directory, where in places:
        for shadow in _hookd_in(directory):
            if shadow.resolve() in seen:
                continue
            seen.add(shadow.resolve())
            findings.append(Finding(CHECK, False, f"{shadow} is a `hookd` in {where}: a start that is not "
                                    "isolated would run it as hookd",
                                    f"remove it (rm -r {shlex.quote(str(shadow))}) unless it is yours"))  # fmt: skip
    return findings


def _hookd_in(directory: Path) -> list[Path]:
    """What `import hookd` would find in `directory`: a package (a directory) or a module of any suffix."""
    modules = {f"hookd{suffix}" for suffix in machinery.all_suffixes()}
    try:
        return sorted(p for p in directory.iterdir() if (p.name == "hookd" and p.is_dir()) or p.name in modules)
    except OSError:
        return []


def _unit_working_directory() -> Path | None:
    from hookd.service import systemd

    try:
        lines = (systemd.user_scope().unit_dir / systemd.SERVICE).read_text().splitlines()
    except OSError:
        return None
    value = next((line.split("=", 1)[1] for line in lines if line.startswith("WorkingDirectory=")), "~")
    return Path(value.lstrip("-")).expanduser()


def _pth_files() -> list[Finding]:
    """.pth files that name hookd, other than those hookd's installation wrote."""
    ours = _installed_files()
    findings = []
    for directory in {Path(site.getusersitepackages()), *(Path(p) for p in site.getsitepackages())}:
        try:
            candidates = sorted(directory.glob("*.pth"))
        except OSError:
            continue
        for pth in candidates:
            try:
                text = pth.read_text(errors="replace")
            except OSError:
                continue
            if "hookd" in text and pth.resolve() not in ours:
                findings.append(Finding(CHECK, False, f"{pth} names hookd and is not hookd's own: Python runs its "
                                        "import lines at every start and adds its paths to sys.path",
                                        f"remove it (rm {shlex.quote(str(pth))}) unless it is yours"))  # fmt: skip
    return findings


def _installed_files() -> set[Path]:
    try:
        dist = metadata.distribution("hookd")
    except metadata.PackageNotFoundError:
        return set()
    return {Path(str(dist.locate_file(f))).resolve() for f in dist.files or ()}
