"""The guard's own endpoints (gaps49): a request that changes the policies or data of the OPA server the config
names, and a signal to what holds the HTTP hook port, are found from the config and the call's effects
(hookd.selfprotect_config.reached_endpoints, handed as input.hookd.endpoints); a GET, a query, other ports are not."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from effect_support import effects

from hookd.config import Config, HttpConfig, OpaConfig
from hookd.dialects.registry import AGENTS
from hookd.enrich.tool_urls import request_method
from hookd.selfprotect import ProtectedSet
from hookd.selfprotect_config import own_endpoints, reached_endpoints
from hookd.selfprotect_first import ProtectedPlaces
from hookd.types import Caller, Deadline, HookRequest

_OWN = own_endpoints(Config(opa=OpaConfig(url="http://127.0.0.1:8181"), http=HttpConfig(port=8765)))


@pytest.mark.parametrize(
    "line",
    [
        "curl -s -X PUT --data-binary 'package x' http://127.0.0.1:8181/v1/policies/destructive_shell",
        "curl -s -X PATCH -d '[]' localhost:8181/v1/data/hookd",
        "curl --request=DELETE 'http://[::1]:8181/v1/policies/self_protection'",
        "curl -T empty.rego http://localhost:8181/v1/policies/x",
        "wget -qO- --method=PUT --body-data='{}' http://127.0.0.1:8181/v1/data",
        "http PUT localhost:8181/v1/data/hookd x=1",
        "fuser -k 8765/tcp",
        "fuser -km -TERM 8765/tcp",
        # endpoints49: every spelling of loopback, case, dot segments; routes to the hook port's holder
        "curl -X DELETE HTTP://LocalHost:8181/v1/policies/x",
        "curl -X PUT -d '{}' http://0x7f.1:8181/v1/data/x",
        "curl -X PUT -d '{}' http://2130706433:8181/v1/data",
        "curl -X PUT -d '{}' 'http://[::ffff:127.0.0.1]:8181/v1/%70olicies/x'",
        "curl -X PATCH -d '[]' http://127.0.0.2:8181/v1/./data//hookd",
        "http put localhost:8181/v1/data/x a=1",
        "fuser -k -n tcp 8765",
        "fuser --namespace=tcp 8765 -k",
        "fuser -k 8765,,/tcp",
        "kill $(lsof -t -i :8765)",
        "lsof -ti tcp:8765 | xargs kill -9",
        "kill -9 $(lsof -iTCP:8765 -sTCP:LISTEN -t)",
        "for p in $(fuser 8765/tcp 2>/dev/null); do kill $p; done",
        "ss -tK 'sport = :8765'",
    ],
)
def test_a_change_of_the_engine_or_a_stop_of_the_hook_port_is_found(line: str, tmp_path: Path) -> None:
    assert reached_endpoints(_OWN, effects(line, tmp_path))["endpoints"]


@pytest.mark.parametrize(
    "line",
    [
        "curl -s http://localhost:8181/v1/data/x",
        "curl -s -d '{\"input\": {}}' http://localhost:8181/v1/data/hookd/decide",
        "curl -X PUT -d '{}' http://127.0.0.1:8182/v1/data/x",
        "curl -X PUT -d '{}' https://opa.example.com/v1/policies/x",
        "fuser 8765/tcp",
        "fuser -k 3000/tcp",
        "curl -X POST localhost:8181/v1/data/hookd -d @input.json",
        "curl -X OPTIONS http://localhost:8181/v1/policies",
        "lsof -i :8765",
        "kill $(lsof -t -i :3000)",
        "fuser -k 5173/tcp",
        "kill 8765",
        "ss -tK 'sport = :3000'",
    ],
)
def test_a_read_a_query_or_another_port_is_not(line: str, tmp_path: Path) -> None:
    assert reached_endpoints(_OWN, effects(line, tmp_path)) == {}


def test_the_config_moves_them() -> None:
    moved = own_endpoints(Config(opa=OpaConfig(url="http://opa.internal:9000"), http=HttpConfig(port=9001)))
    put = [{"op": "fetch", "url": "http://opa.internal:9000/v1/policies/p", "method": "PUT"}]
    assert reached_endpoints(moved, put)["endpoints"]
    assert not reached_endpoints(_OWN, put)
    assert reached_endpoints(moved, [{"op": "signal", "target": "9001/tcp", "program": "fuser"}])


@pytest.mark.parametrize(
    "line",
    [
        "curl -X FOO http://localhost:8181/v1/policies/x",
        'curl -X "$M" http://localhost:8181/v1/policies/x',
        'curl -X PUT -d @p.rego "http://localhost:$OPA_PORT/v1/policies/x"',
    ],
)
def test_a_method_or_server_not_known_is_asked(line: str, tmp_path: Path) -> None:
    assert [hit.get("ask") for hit in reached_endpoints(_OWN, effects(line, tmp_path))["endpoints"]] == [True]


def test_a_unix_socket_is_the_server_it_reaches(tmp_path: Path) -> None:
    opa = own_endpoints(Config(opa=OpaConfig(url="unix:///run/opa/opa.sock")))
    put = "curl --unix-socket /run/opa/opa.sock -X PUT -d @p.rego http://x/v1/policies/p"
    assert reached_endpoints(opa, effects(put, tmp_path))["endpoints"]
    assert not reached_endpoints(opa, effects(put.replace("opa.sock", "docker.sock"), tmp_path))
    own = f"curl --unix-socket {Config().hook_socket} http://x/v1/decide"
    assert reached_endpoints(_OWN, effects(own, tmp_path))["endpoints"][0]["what"] == "hookd's own socket"


def test_a_fetch_tools_method_or_body_is_its_request() -> None:
    assert request_method({"url": "u", "method": "put"}) == "PUT"
    assert request_method({"url": "u", "body": "{}"}) == "POST"
    assert request_method({"url": "u", "prompt": "summarise"}) == ""


def test_a_web_tools_request_gets_the_endpoints_in_both_paths(tmp_path: Path) -> None:
    """A web tool is no write, yet its request (`method: PUT`) may change the engine: ProtectedSet and its first
    test both hand the hit on, and a plain GET leaves the event as it came."""
    payload = {"session_id": "s", "transcript_path": "", "cwd": str(tmp_path), "hook_event_name": "BeforeTool",
               "tool_name": "web_fetch", "tool_input": {"prompt": "x"}}  # fmt: skip
    request = HookRequest(
        client="gemini", event="BeforeTool", payload=json.dumps(payload).encode(), env={"HOME": str(tmp_path)},
        cwd=str(tmp_path), caller=Caller(uid=os.getuid(), gid=os.getgid(), pid=os.getpid()), deadline=Deadline.after(5),
    )  # fmt: skip
    fetched = AGENTS["gemini"].dialect.parse(request).with_facts(home=str(tmp_path))
    put = fetched.with_facts(effects=[{"op": "fetch", "url": "http://127.1:8181/v1/policies/x", "method": "PUT"}])
    for judge in (ProtectedSet(Config(), env={}), ProtectedPlaces(Config(), env={})):
        assert judge(put).facts["hookd"]["endpoints"]  # type: ignore[index,call-overload]
        assert "hookd" not in judge(fetched).facts
