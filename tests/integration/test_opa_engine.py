"""RegoOpaEngine against the real OPA server: what it pushes and removes, rollback of a refused set,
OPA restarts, Unix sockets, the per-decision budget, and the same verdicts as the embedded engine."""

from __future__ import annotations

import asyncio
import json
import socket
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from opa_server import OpaServer, running_opa

from hookd.config import OpaConfig
from hookd.engines.rego.embedded import RegoEmbeddedEngine
from hookd.engines.rego.opa import RegoOpaEngine
from hookd.errors import EngineError, PolicyLoadError
from hookd.types import Deadline, EngineRequest, settled

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "tests" / "fixtures" / "policies"


@pytest.fixture(scope="module")
def opa() -> Iterator[OpaServer]:
    with running_opa() as server:
        yield server


def write_doc(path: str, event: str = "BeforeTool") -> dict[str, object]:
    return {
        "client": "gemini",
        "event": event,
        "tool": {"name": "write_file", "kind": "write", "input": {"file_path": path, "content": "x"}},
        "shell": {"commands": []},
        "raw": {},
    }


def decide(engine: RegoOpaEngine, document: dict[str, object], seconds: float = 2) -> list[tuple[str, str]]:
    async def run() -> list[tuple[str, str]]:
        try:
            verdicts = await settled(engine.evaluate(EngineRequest(None, document, Deadline.after(seconds))))  # type: ignore[arg-type]
            return [(v.rule_id, v.message) for v in verdicts]
        finally:
            await engine.aclose()

    return asyncio.run(run())


def policy_ids(opa: OpaServer) -> list[str]:
    if opa.socket_path is not None:  # OPA on its Unix socket: one HTTP/1.0 request by hand
        with socket.socket(socket.AF_UNIX) as conn:
            conn.settimeout(5)
            conn.connect(str(opa.socket_path))
            conn.sendall(b"GET /v1/policies HTTP/1.0\r\nHost: opa\r\n\r\n")
            reply = b"".join(iter(lambda: conn.recv(65536), b""))
        return sorted(p["id"] for p in json.loads(reply.split(b"\r\n\r\n", 1)[1])["result"])
    with urllib.request.urlopen(f"{opa.url}/v1/policies", timeout=5) as response:
        return sorted(p["id"] for p in json.load(response)["result"])


def data(opa: OpaServer, path: str) -> object:
    with urllib.request.urlopen(f"{opa.url}/v1/data/{path}", timeout=5) as response:
        return json.load(response).get("result")


def policy_dir(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "p"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


RULE = 'package hookd.{pkg}\n\ndeny contains "{msg}" if input.tool.input.file_path == "x.txt"\n'


class TestPush:
    def test_modules_router_and_data_are_pushed(self, opa: OpaServer, tmp_path: Path) -> None:
        root = policy_dir(
            tmp_path,
            {
                "a/policy.rego": (
                    'package hookd.a\n\ndeny contains data.a.msg if input.tool.input.file_path == "x.txt"\n'
                ),
                "a/data.json": '{"msg": "from data"}',
                "data.json": '{"top": [1, 2]}',
            },
        )
        engine = RegoOpaEngine.load(root, OpaConfig(url=opa.url))
        assert policy_ids(opa) == ["hookd/_router.rego", "hookd/a/policy.rego"]
        assert data(opa, "a") == {"msg": "from data"}
        assert data(opa, "top") == [1, 2]
        assert decide(engine, write_doc("x.txt")) == [("deny", "from data")]
        assert decide(engine, write_doc("y.txt")) == []

    def test_a_reload_removes_modules_that_are_gone(self, opa: OpaServer, tmp_path: Path) -> None:
        first = policy_dir(
            tmp_path / "1", {"a.rego": RULE.format(pkg="a", msg="a"), "b.rego": RULE.format(pkg="b", msg="b")}
        )
        RegoOpaEngine.load(first, OpaConfig(url=opa.url))
        assert policy_ids(opa) == ["hookd/_router.rego", "hookd/a.rego", "hookd/b.rego"]
        second = policy_dir(tmp_path / "2", {"b.rego": RULE.format(pkg="b", msg="b2")})
        engine = RegoOpaEngine.load(second, OpaConfig(url=opa.url))
        assert policy_ids(opa) == ["hookd/_router.rego", "hookd/b.rego"]
        assert decide(engine, write_doc("x.txt")) == [("deny", "b2")]

    def test_a_refused_set_leaves_the_previous_one_on_the_server(self, opa: OpaServer, tmp_path: Path) -> None:
        good = policy_dir(tmp_path / "good", {"a.rego": RULE.format(pkg="a", msg="good"), "a/data.json": '{"v": 1}'})
        engine = RegoOpaEngine.load(good, OpaConfig(url=opa.url))
        bad = policy_dir(
            tmp_path / "bad",
            {
                "a.rego": RULE.format(pkg="a", msg="new") + 'bad contains x if x := 1 + "a"\n',
                "c.rego": RULE.format(pkg="c", msg="c"),
                "a/data.json": '{"v": 2}',
            },
        )
        with pytest.raises(PolicyLoadError, match="refused the policies"):
            RegoOpaEngine.load(bad, OpaConfig(url=opa.url))
        assert policy_ids(opa) == ["hookd/_router.rego", "hookd/a.rego"]
        assert data(opa, "a") == {"v": 1}
        assert decide(engine, write_doc("x.txt")) == [("deny", "good")]

    def test_modules_that_call_each_others_functions_load_in_any_order(self, opa: OpaServer, tmp_path: Path) -> None:
        root = policy_dir(
            tmp_path,
            {
                "a.rego": (
                    "package hookd.a\n\nimport data.hookd.z.lib\n\n"
                    'deny contains lib.msg(1) if input.tool.input.file_path == "x.txt"\n'
                ),
                "z/lib.rego": 'package hookd.z.lib\n\nmsg(n) := sprintf("n=%d", [n])\n',
            },
        )
        engine = RegoOpaEngine.load(root, OpaConfig(url=opa.url))
        assert decide(engine, write_doc("x.txt")) == [("deny", "n=1")]

    def test_other_policies_on_the_server_are_left_alone(self, opa: OpaServer, tmp_path: Path) -> None:
        request = urllib.request.Request(
            f"{opa.url}/v1/policies/theirs", data=b"package theirs\n\nx := 1\n", method="PUT"
        )
        urllib.request.urlopen(request, timeout=5).close()
        RegoOpaEngine.load(policy_dir(tmp_path, {"a.rego": RULE.format(pkg="a", msg="a")}), OpaConfig(url=opa.url))
        assert "theirs" in policy_ids(opa)


class TestTransport:
    def test_a_unix_socket_server(self, tmp_path: Path) -> None:
        with running_opa(unix=True) as server:
            engine = RegoOpaEngine.load(DEMO, OpaConfig(url=server.url))
            assert decide(engine, write_doc("secret.txt"))[0][0] == "no-secret"

    def test_an_opa_that_restarted_gets_the_set_again(self, tmp_path: Path) -> None:
        # on its Unix socket: a TCP port freed by the stop may be taken by another test before the restart
        with running_opa(unix=True) as server:
            engine = RegoOpaEngine.load(DEMO, OpaConfig(url=server.url))
            server.stop()
            with pytest.raises(EngineError, match="unreachable"):
                decide(engine, write_doc("secret.txt"))
            server.start()
            assert policy_ids(server) == []
            assert decide(engine, write_doc("secret.txt"))[0][0] == "no-secret"
            assert "hookd/_router.rego" in policy_ids(server)

    def test_a_stalled_opa_costs_the_budget_not_the_timeout(self, tmp_path: Path) -> None:
        with running_opa() as server:
            engine = RegoOpaEngine.load(DEMO, OpaConfig(url=server.url, timeout_ms=5000))
            server.pause()
            try:
                with pytest.raises(EngineError, match=r"did not answer within [0-9]+ ms"):
                    decide(engine, write_doc("secret.txt"), seconds=0.3)  # the request's deadline is shorter
            finally:
                server.resume()
            assert decide(engine, write_doc("secret.txt"))[0][0] == "no-secret"

    def test_a_wrong_token_is_refused_by_an_opa_that_checks_tokens(self, tmp_path: Path) -> None:
        authz = tmp_path / "authz.rego"
        authz.write_text(
            'package system.authz\n\ndefault allow := false\n\nallow if input.identity == "s3cret"\n\n'
            'allow if input.path == ["health"]\n'
        )
        server = OpaServer()
        server.extra_args = ["--authentication=token", "--authorization=basic", str(authz)]
        server.start()
        try:
            with pytest.raises(PolicyLoadError, match=r"(?i)unauthorized"):
                RegoOpaEngine.load(DEMO, OpaConfig(url=server.url, token="wrong"))
            engine = RegoOpaEngine.load(DEMO, OpaConfig(url=server.url, token="s3cret"))
            assert decide(engine, write_doc("secret.txt"))[0][0] == "no-secret"
        finally:
            server.close()


class TestSameAnswersAsEmbedded:
    @pytest.mark.parametrize(
        "document",
        [write_doc("secret.txt"), write_doc("ask-me.txt"), write_doc("fine.txt"), write_doc("x", "SessionStart")],
    )
    def test_demo_policies(self, opa: OpaServer, document: dict[str, object]) -> None:
        embedded = RegoEmbeddedEngine.load(DEMO).evaluate_sync(document)
        remote = RegoOpaEngine.load(DEMO, OpaConfig(url=opa.url))
        assert decide(remote, document) == [(v.rule_id, v.message) for v in embedded]
