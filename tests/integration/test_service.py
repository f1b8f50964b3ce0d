"""`hookd service`: the units it writes, checked by the real systemd tools (Debian's `systemd` package),
and the daemon under the real activation protocol.

* every unit written passes `systemd-analyze verify` (user and system scope, several configs);
* `systemd-analyze security --offline=yes` rates the service 3.5 or lower for each config;
* `systemd-socket-activate` binds the two sockets and starts `hookd serve` on the first shim call, which
  gets its decision; the daemon speaks sd_notify (READY, WATCHDOG, RELOADING, STOPPING) to a
  NOTIFY_SOCKET the test listens on;
* bad input: a clear one-line error and no unit file written.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from support import SHIM, SHIM_PYTHON, gemini_payload, require

UNITS = ("hookd.socket", "hookd-control.socket", "hookd.service")
MAX_EXPOSURE = 3.5
PYTHON_POLICY = (
    'from hookd.policy_api import policy\n\n\n@policy(events=["BeforeTool"])\ndef quiet(input):\n    return None\n'
)


def configs(root: Path) -> dict[str, str]:
    """The configs whose units are checked: from the plainest to one that needs everything."""
    python_dir = root / "python-policies"
    python_dir.mkdir(mode=0o755, exist_ok=True)
    (python_dir / "quiet.py").write_text(PYTHON_POLICY)
    return {
        "default": "",
        "http": "[http]\nenabled = true\n",
        "metrics": '[metrics]\nlisten = "127.0.0.1:9464"\n',
        "everything": f'[daemon]\npolicies = "{python_dir}"\n[http]\nenabled = true\n[log.ship]\n'
        'url = "https://logs.example.com/v1"\n[bundles.org]\nurl = "https://bundles.example.com/org.tar.gz"\n',
    }


@pytest.fixture(scope="module")
def analyze() -> str:
    path = shutil.which("systemd-analyze")
    require(path is not None, "systemd-analyze (Debian package systemd)")
    assert path is not None
    return path


@pytest.fixture(scope="module")
def workdir() -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="hkdsvc", dir="/tmp"))
    (root / "xdg").mkdir(mode=0o700)
    (root / "home").mkdir()
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def environment(root: Path) -> dict[str, str]:
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "HOOKD_", "LISTEN_", "NOTIFY_"))}
    return keep | {"HOME": str(root / "home"), "XDG_RUNTIME_DIR": str(root / "xdg")}


def hookd(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hookd", *args], env=environment(root), capture_output=True,
                          text=True, timeout=60, check=False)  # fmt: skip


def write_units(root: Path, name: str, text: str, *scope: str) -> Path:
    config, unit_dir = root / f"{name}.toml", root / f"units-{name}-{'-'.join(scope) or 'user'}"
    config.write_text(text)
    done = hookd(root, "--config", str(config), "service", "install", *scope, "--unit-dir", str(unit_dir),
                 "--no-start")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in unit_dir.iterdir()) == sorted(UNITS)
    return unit_dir


@pytest.mark.parametrize("scope", [(), ("--system", "--run-as", "daemon")], ids=["user", "system"])
@pytest.mark.parametrize("name", ["default", "http", "metrics", "everything"])
def test_units_verify_and_score(analyze: str, workdir: Path, name: str, scope: tuple[str, ...]) -> None:
    unit_dir = write_units(workdir, name, configs(workdir)[name], *scope)
    user = ["--user"] if not scope else []
    env = environment(workdir)
    verify = subprocess.run([analyze, *user, "verify", *(str(unit_dir / u) for u in UNITS)], cwd=unit_dir,
                            env=env, capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert verify.returncode == 0 and not verify.stderr.strip(), verify.stderr
    service = str(unit_dir / "hookd.service")
    security = subprocess.run([analyze, *user, "security", "--offline=yes", service], env=env,
                              capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    match = re.search(r"Overall exposure level for hookd\.service: ([0-9.]+)", security.stdout)
    assert match, security.stdout + security.stderr
    assert float(match.group(1)) <= MAX_EXPOSURE, security.stdout


def test_the_old_unit_scores_worse(analyze: str, workdir: Path) -> None:
    """The check can fail: the unit that shipped before scores 8.0."""
    old = workdir / "old" / "hookd.service"
    old.parent.mkdir()
    old.write_text("[Service]\nExecStart=/bin/true\nNoNewPrivileges=yes\nProtectSystem=strict\n"
                   "RestrictAddressFamilies=AF_UNIX\n")  # fmt: skip
    security = subprocess.run([analyze, "security", "--offline=yes", str(old)], capture_output=True, text=True,
                              timeout=120, check=False)  # fmt: skip
    match = re.search(r"Overall exposure level for hookd\.service: ([0-9.]+)", security.stdout)
    assert match and float(match.group(1)) > MAX_EXPOSURE


def test_bad_input_writes_nothing(workdir: Path) -> None:
    unit_dir = workdir / "never"
    done = hookd(workdir, "service", "install", "--system", "--unit-dir", str(unit_dir), "--no-start")
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "--run-as" in done.stderr and not unit_dir.exists()
    done = hookd(workdir, "service", "install", "--system", "--run-as", "no-such-user-hookd", "--unit-dir",
                 str(unit_dir), "--no-start")  # fmt: skip
    assert done.returncode == 2 and "no such user" in done.stderr and not unit_dir.exists()
    blocked = workdir / "a-file"
    blocked.write_text("not a directory\n")
    done = hookd(workdir, "service", "install", "--unit-dir", str(blocked / "units"), "--no-start")
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_status_and_uninstall(workdir: Path) -> None:
    unit_dir = write_units(workdir, "default", "")
    config = str(workdir / "default.toml")
    status = hookd(workdir, "--config", config, "service", "status", "--unit-dir", str(unit_dir))
    assert status.returncode == 0 and status.stdout.count(" current") == 3, status.stdout
    (unit_dir / "hookd.service").write_text((unit_dir / "hookd.service").read_text() + "# edited\n")
    status = hookd(workdir, "--config", config, "service", "status", "--unit-dir", str(unit_dir))
    assert status.returncode == 1 and "hookd.service" in status.stdout and "out of date" in status.stdout
    (unit_dir / "other.service").write_text("[Service]\nExecStart=/bin/true\n")
    done = hookd(workdir, "service", "uninstall", "--unit-dir", str(unit_dir))
    assert done.returncode == 0, done.stderr
    assert [p.name for p in unit_dir.iterdir()] == ["other.service"]


# --- the activation protocol ---------------------------------------------------------------------------


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, f"timed out waiting for {what}"
        time.sleep(0.02)


def command_of(pid: int) -> str:
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()


def test_socket_activation_and_notify(workdir: Path) -> None:
    activate = shutil.which("systemd-socket-activate")
    require(activate is not None, "systemd-socket-activate (Debian package systemd)")
    assert activate is not None
    runtime = Path(tempfile.mkdtemp(prefix="hkdsa", dir="/tmp")) / "run"
    runtime.mkdir(mode=0o700)
    notify_path = runtime.parent / "notify"
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(str(notify_path))
    notify.settimeout(30)
    log = runtime.parent / "daemon.log"
    env = environment(workdir) | {"XDG_STATE_HOME": str(runtime.parent / "state")}
    command = [
        activate, "-l", str(runtime / "hook.sock"), "-l", str(runtime / "control.sock"), "--fdname=hook:control",
        "-E", f"NOTIFY_SOCKET={notify_path}", "-E", "WATCHDOG_USEC=400000",
        "-E", f"XDG_STATE_HOME={env['XDG_STATE_HOME']}",
        sys.executable, "-m", "hookd", "serve", "--runtime-dir", str(runtime),
    ]  # fmt: skip
    with log.open("wb") as out:
        proc = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        wait_for(lambda: (runtime / "hook.sock").exists() and (runtime / "control.sock").exists(), "the sockets")
        assert command_of(proc.pid).startswith(f"{activate} ")  # nothing started yet: only the activator
        payload = gemini_payload("BeforeTool", tool_name="run_shell_command", tool_input={"command": "rm -rf /"})
        shim_command = [SHIM_PYTHON, "-I", "-S", str(SHIM), "gemini", "BeforeTool",
                        "--socket", str(runtime / "hook.sock"), "--deadline-ms", "20000"]  # fmt: skip
        shim = subprocess.run(shim_command, input=json.dumps(payload).encode(), capture_output=True, timeout=60,
                              check=False)  # fmt: skip
        reply = json.loads(shim.stdout)
        assert reply["decision"] == "deny" and "rm-rf-root" in reply["reason"], (shim, log.read_text())
        assert command_of(proc.pid).startswith(f"{sys.executable} -m hookd serve")  # the daemon took over the pid

        messages = [notify.recv(4096).decode() for _ in range(2)]
        assert messages[0].startswith("READY=1\n") and f"MAINPID={proc.pid}" in messages[0], messages
        assert messages[1] == "WATCHDOG=1", messages
        proc.send_signal(signal.SIGHUP)
        seen = [notify.recv(4096).decode() for _ in range(4)]
        seen = [m for m in seen if m != "WATCHDOG=1"]
        assert seen[0].startswith("RELOADING=1\nMONOTONIC_USEC="), seen
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0, log.read_text()
        rest = []
        with pytest.raises(TimeoutError):
            notify.settimeout(0.5)
            while True:
                rest.append(notify.recv(4096).decode())
        assert "STOPPING=1" in rest and any(m.startswith("READY=1") for m in seen + rest), (seen, rest)
        # The sockets are the manager's: the daemon leaves them in place for the next start.
        assert (runtime / "hook.sock").exists() and (runtime / "control.sock").exists()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
        notify.close()
        shutil.rmtree(runtime.parent, ignore_errors=True)


# --- the unit allows exactly what the daemon uses ------------------------------------------------------

TRACED = "socket,openat,open,creat,mkdir,mkdirat,rename,renameat,renameat2,unlink,unlinkat,bind,connect,link,symlink"
WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND")
SYSCALL = re.compile(r"^(\d+) +(\w+)\((.*)\) += (-?\d+)")


def completed_calls(trace: str) -> list[tuple[str, str]]:
    """(name, arguments) of every traced call that succeeded; strace -f splits interrupted ones in two."""
    pending: dict[str, str] = {}
    calls = []
    for text in trace.splitlines():
        pid, line = text.split(" ", 1)[0], text
        if line.endswith("<unfinished ...>"):
            pending[pid] = line.removesuffix("<unfinished ...>")
            continue
        if "resumed>" in line:
            line = pending.pop(pid, "") + line.split("resumed>", 1)[1]
        match = SYSCALL.match(line)
        if match and int(match.group(4)) >= 0:
            calls.append((match.group(2), match.group(3)))
    return calls


def written_paths(calls: list[tuple[str, str]]) -> set[str]:
    paths = set()
    for name, arguments in calls:
        quoted = re.findall(r'"([^"]*)"', arguments)
        if not quoted or (name in ("openat", "open") and not any(flag in arguments for flag in WRITE_FLAGS)):
            continue
        if name == "unlinkat" or (name == "mkdirat" and not quoted[0].startswith("/")):
            continue  # relative to a directory descriptor: removing a scratch tree the daemon made itself
        paths.add(quoted[0])
    return {p for p in paths if p.startswith("/")}


def used_families(calls: list[tuple[str, str]]) -> set[str]:
    """The families of the sockets bound or connected, and netlink (which neither binds nor connects).
    gRPC's C core opens an AF_INET socket at start-up to probe the kernel and closes it unused: under
    RestrictAddressFamilies=AF_UNIX that probe is refused and gRPC goes on without it."""
    used = {m.group(1) for name, arguments in calls if name in ("bind", "connect")
            for m in [re.search(r"sa_family=(AF_\w+)", arguments)] if m}  # fmt: skip
    netlink = any(name == "socket" and arguments.startswith("AF_NETLINK") for name, arguments in calls)
    return used | ({"AF_NETLINK"} if netlink else set())


def unit_allows(service: str, runtime_root: Path) -> tuple[set[Path], set[str]]:
    """The directories a service unit lets the daemon write, and the address families it may open."""
    allowed: set[Path] = set()
    families: set[str] = set()
    for line in service.splitlines():
        key, _, value = line.partition("=")
        if key == "RuntimeDirectory":
            allowed |= {runtime_root / v for v in value.split()}
        elif key == "ReadWritePaths":
            allowed |= {Path(v) for v in value.split()}
        elif key == "StateDirectory":
            allowed |= {Path("/var/lib") / v for v in value.split()}
        elif key == "RestrictAddressFamilies":
            families |= set(value.split())
    return allowed, families


@pytest.mark.parametrize("everything", [False, True], ids=["default", "python-http-metrics"])
def test_unit_allows_exactly_what_the_daemon_uses(workdir: Path, everything: bool) -> None:
    """Run the daemon under strace the way the unit runs it (its environment), with the default config and
    with one that uses Python policies, the HTTP endpoint and metrics; drive each part once; then every
    path it wrote lies in a directory the unit allows, every allowed directory was written, and the socket
    families it opened are exactly the ones the unit allows."""
    strace = shutil.which("strace")
    require(strace is not None, "strace")
    assert strace is not None
    root = Path(tempfile.mkdtemp(prefix="hkdtr", dir="/tmp"))
    xdg, home = root / "xdg", root / "home"
    xdg.mkdir(mode=0o700)
    home.mkdir()
    policies = root / "policies"
    policies.mkdir(mode=0o755)
    (policies / "quiet.py").write_text(PYTHON_POLICY)
    from support import free_port

    http_port, metrics_port = free_port(), free_port()
    config = root / "config.toml"
    config.write_text(f'[daemon]\npolicies = "{policies}"\n[http]\nenabled = true\nport = {http_port}\n'
                      f'[metrics]\nlisten = "127.0.0.1:{metrics_port}"\n' if everything else "")  # fmt: skip
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "HOOKD_", "TMPDIR"))}
    env |= {"HOME": str(home), "XDG_RUNTIME_DIR": str(xdg)}
    unit_dir = root / "units"
    done = subprocess.run([sys.executable, "-m", "hookd", "--config", str(config), "service", "install", "--unit-dir",
                           str(unit_dir), "--no-start"], env=env, capture_output=True, text=True, timeout=60,
                          check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    service = (unit_dir / "hookd.service").read_text()
    exec_start = next(line for line in service.splitlines() if line.startswith("ExecStart=")).removeprefix("ExecStart=")
    for line in service.splitlines():  # the unit's environment
        if line.startswith("Environment="):
            name, value = line.removeprefix("Environment=").split("=", 1)
            env[name] = value
    for relative in " ".join(re.findall(r"^RuntimeDirectory=(.*)$", service, re.M)).split():
        (xdg / relative).mkdir(mode=0o700, exist_ok=True)  # what systemd does before it starts the service
    for path in " ".join(re.findall(r"^ReadWritePaths=(.*)$", service, re.M)).split():
        Path(path).mkdir(mode=0o700, parents=True, exist_ok=True)  # what `hookd service install` did
    trace = root / "trace"
    log = root / "daemon.log"
    with log.open("wb") as out:
        proc = subprocess.Popen([strace, "-f", "-qq", "-e", f"trace={TRACED}", "-e", "signal=none", "-o", str(trace),
                                 *exec_start.split()], env=env, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)  # fmt: skip
    runtime = xdg / "hookd"
    try:
        wait_for(lambda: (runtime / "control.sock").exists() or proc.poll() is not None, "the daemon")
        assert proc.poll() is None, log.read_text()
        payload = gemini_payload("BeforeTool", tool_name="run_shell_command", tool_input={"command": "ls"})
        shim_command = [SHIM_PYTHON, "-I", "-S", str(SHIM), "gemini", "BeforeTool",
                        "--socket", str(runtime / "hook.sock"), "--deadline-ms", "20000"]  # fmt: skip
        shim = subprocess.run(shim_command, input=json.dumps(payload).encode(), capture_output=True, timeout=60,
                              check=False)  # fmt: skip
        assert shim.returncode == 0 and not shim.stderr, (shim, log.read_text())
        if everything:  # the HTTP endpoint (its netlink peer lookup) and the metrics endpoint
            drive_http(env, http_port, metrics_port)
    finally:
        for child in Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split():
            os.kill(int(child), signal.SIGTERM)  # the daemon, which strace runs
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            raise
    calls = completed_calls(trace.read_text())
    allowed, families = unit_allows(service, xdg)
    written = written_paths(calls)
    outside = sorted(p for p in written if not p.startswith(("/dev/", "/proc/")) and
                     not any(Path(p).is_relative_to(a) for a in allowed))  # fmt: skip
    assert not outside, f"written outside what the unit allows {sorted(allowed)}: {outside}"
    unused = sorted(str(a) for a in allowed if not any(Path(p).is_relative_to(a) for p in written))
    assert not unused, f"the unit allows writing {unused}, which the daemon never wrote"
    assert used_families(calls) == families, f"used {sorted(used_families(calls))}, the unit allows {sorted(families)}"
    shutil.rmtree(root, ignore_errors=True)


def test_first_call_bench_runs() -> None:
    require(shutil.which("systemd-socket-activate") is not None, "systemd-socket-activate (Debian package systemd)")
    bench = Path(__file__).resolve().parents[2] / "bench" / "first_call.py"
    done = subprocess.run([sys.executable, str(bench), "--rounds", "1", "--json"], capture_output=True, text=True,
                          timeout=120, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["first_call_ms_p50"] > 0 and result["warm_call_ms_p50"] > 0


def drive_http(env: dict[str, str], http_port: int, metrics_port: int) -> None:
    import urllib.request

    token = (Path(env["XDG_STATE_HOME"]) / "hookd" / "http-token").read_text().strip()
    request = urllib.request.Request(
        f"http://127.0.0.1:{http_port}/v1/hooks/claude", headers={"Authorization": f"Bearer {token}"},
        data=json.dumps({"hook_event_name": "PreToolUse", "tool_name": "Bash", "session_id": "s", "cwd": "/tmp",
                         "tool_input": {"command": "ls"}}).encode(),
    )  # fmt: skip
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 200
    with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=30) as response:
        assert response.status == 200
