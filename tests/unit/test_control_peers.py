"""Who may call what on the control socket, with real kernel peer credentials."""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest

from hookd.control.peers import OWNER_ONLY, PeerTable, authorize
from hookd.transport.peers import peer_credentials
from hookd.types import Caller
from support import require

OWNER = 1000
METHODS = [
    "/hookd.v1.Control/Status",
    "/hookd.v1.Control/ListPolicies",
    "/hookd.v1.Control/Evaluate",
    "/hookd.v1.Hook/Decide",
    "/grpc.health.v1.Health/Check",
    "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
]


class TestAuthorize:
    @pytest.mark.parametrize("method", [*METHODS, *sorted(OWNER_ONLY)])
    @pytest.mark.parametrize("uid", [OWNER, 0])
    def test_the_owner_and_root_may_call_everything(self, method: str, uid: int) -> None:
        assert authorize(method, Caller(uid=uid, gid=uid, pid=1), OWNER) is None

    @pytest.mark.parametrize("method", METHODS)
    def test_another_uid_may_read_and_decide(self, method: str) -> None:
        assert authorize(method, Caller(uid=2000, gid=2000, pid=1), OWNER) is None

    def test_another_uid_may_not_reload_or_stream(self) -> None:
        other = Caller(uid=2000, gid=2000, pid=1)
        assert authorize("/hookd.v1.Control/Reload", other, OWNER) == (
            "uid 2000 may not call Reload: only the daemon's own uid (1000) or root may"
        )
        assert authorize("/hookd.v1.Control/StreamDecisions", other, OWNER) == (
            "uid 2000 may not call StreamDecisions: only the daemon's own uid (1000) or root may"
        )


class TestPeerTable:
    def test_names_map_back_to_their_caller_until_removed(self) -> None:
        table = PeerTable(Path("/run/user/1000/hookd"))
        alice, bob = Caller(1000, 1000, 11), Caller(1001, 1001, 12)
        a, b = table.add(alice), table.add(bob)
        assert a != b
        assert a.startswith("/run/user/1000/hookd/peer-")  # in the 0700 runtime dir: no abstract names
        assert table.lookup(f"unix:{a}") == alice
        assert table.lookup(f"unix:{b}") == bob
        table.remove(a)
        assert table.lookup(f"unix:{a}") is None
        assert len(table) == 1

    def test_connections_that_did_not_come_through_the_front_are_unknown(self) -> None:
        table = PeerTable(Path("/run/hookd"))
        name = table.add(Caller(0, 0, 1))
        assert table.lookup("unix:") is None
        assert table.lookup("unix:/tmp/x") is None
        assert table.lookup(f"unix-abstract:{name}") is None
        assert table.lookup("ipv4:127.0.0.1:5000") is None


class TestRealPeers:
    def test_a_socketpair_peer_is_this_process(self) -> None:
        left, right = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        with left, right:
            caller = peer_credentials(right)
        assert (caller.uid, caller.gid, caller.pid) == (os.getuid(), os.getgid(), os.getpid())
        assert authorize("/hookd.v1.Control/Reload", caller, os.getuid()) is None

    def test_a_peer_running_as_nobody_may_not_reload(self) -> None:
        require(os.getuid() == 0 and shutil.which("setpriv") is not None, "root and setpriv (to become nobody)")
        nobody = pwd.getpwnam("nobody").pw_uid
        directory = Path(tempfile.mkdtemp(prefix="hkdpeer", dir="/tmp"))
        os.chmod(directory, 0o755)
        path = directory / "s.sock"
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(str(path))
        os.chmod(path, 0o777)
        server.listen(1)
        server.settimeout(15)
        client = subprocess.Popen(
            ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "/usr/bin/python3", "-I", "-S", "-c",
             f"import socket; s = socket.socket(socket.AF_UNIX); s.connect({str(path)!r}); s.recv(1)"],
        )  # fmt: skip
        try:
            conn, _ = server.accept()
            with conn:
                caller = peer_credentials(conn)
                assert (caller.uid, caller.pid) == (nobody, client.pid)
                assert authorize("/hookd.v1.Control/Reload", caller, os.getuid()) == (
                    f"uid {nobody} may not call Reload: only the daemon's own uid (0) or root may"
                )
                assert authorize("/hookd.v1.Control/Status", caller, os.getuid()) is None
        finally:
            server.close()
            assert client.wait(timeout=15) == 0
            shutil.rmtree(directory)
