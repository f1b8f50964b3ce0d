"""Known engine gaps: where regorus (the embedded engine) and OPA v1.22.4 answer differently. Each case
pins both answers, so it fails the day the engines agree (then drop the case and its line in
docs/policies.md, "Engine gaps"). The differential harness keeps its inputs clear of these."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from opa_server import OpaServer, running_opa

from hookd.engines.rego.policyset import new_engine

ERROR, UNDEFINED = "<error>", "<undefined>"


@pytest.fixture(scope="module")
def opa() -> Iterator[OpaServer]:
    with running_opa() as server:
        yield server


def regorus_answer(module: str, input_doc: dict[str, Any]) -> Any:
    engine = new_engine()
    try:
        engine.add_policy("gap.rego", module)
        engine.set_input(input_doc)
        answer = engine.eval_rule_as_json("data.gap.x")
    except Exception:
        return ERROR
    return UNDEFINED if answer == '"<undefined>"' else json.loads(answer)


def opa_answer(server: OpaServer, module: str, input_doc: dict[str, Any]) -> Any:
    put = urllib.request.Request(f"{server.url}/v1/policies/gap", data=module.encode(), method="PUT")
    urllib.request.urlopen(put, timeout=10).close()
    post = urllib.request.Request(
        f"{server.url}/v1/data/gap/x", data=json.dumps({"input": input_doc}).encode(), method="POST"
    )
    try:
        with urllib.request.urlopen(post, timeout=10) as response:
            body = json.load(response)
    except urllib.error.HTTPError:
        return ERROR
    return body.get("result", UNDEFINED)


GAPS = [
    pytest.param(
        "time.parse_rfc3339_ns(input.when)", {"when": "2026-02-30T10:00:00Z"}, ERROR, UNDEFINED,
        id="builtin-error-is-an-error-in-regorus-undefined-in-opa",
    ),
    pytest.param("startswith(input.n, \"a\")", {"n": 1}, ERROR, UNDEFINED, id="builtin-type-error"),
    pytest.param("input.a / input.b", {"a": 1, "b": 0}, ERROR, UNDEFINED, id="divide-by-zero"),
    pytest.param('regex.globs_match("a.*", "[ab]+")', {}, ERROR, True, id="missing-regex.globs_match"),
    pytest.param('net.cidr_intersects("10.0.0.0/8", "10.1.0.0/16")', {}, ERROR, True, id="missing-net.cidr_intersects"),
    pytest.param(
        'net.cidr_merge(["10.0.0.0/9", "10.128.0.0/9"])', {}, ERROR, ["10.0.0.0/8"], id="missing-net.cidr_merge"
    ),
    pytest.param(
        'net.cidr_contains_matches(["10.0.0.0/8"], "10.1.2.3")', {}, ERROR, [[0, "10.1.2.3"]],
        id="missing-net.cidr_contains_matches",
    ),
    pytest.param(
        'crypto.sha256("a")', {}, ERROR, "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb",
        id="missing-crypto",
    ),
    pytest.param("count(input.s)", {"s": "a😀"}, 3, 2, id="count-of-a-character-outside-the-bmp"),
    pytest.param('json.marshal("<&>")', {}, '"<&>"', '"\\u003c\\u0026\\u003e"', id="json.marshal-html-escaping"),
    pytest.param('urlquery.encode("~*")', {}, "%7E*", "~%2A", id="urlquery.encode-tilde-and-star"),
    pytest.param('glob.quote_meta("a{b}")', {}, "a{b}", "a\\{b\\}", id="glob.quote_meta-braces"),
    pytest.param("glob.quote_meta(input.s)", {"s": "a\\b"}, "a\\b", "a\\\\b", id="glob.quote_meta-backslash"),
    pytest.param(
        "time.format(1700000000294020000)", {}, "2023-11-14T22:13:20.294020Z", "2023-11-14T22:13:20.29402Z",
        id="time.format-trailing-zeros",
    ),
    pytest.param(
        'time.add_date(time.parse_rfc3339_ns("2023-01-31T00:00:00Z"), 0, 1, 0)', {},
        1677542400000000000, 1677801600000000000,  # regorus: 28 Feb 2023; OPA (Go): 3 Mar (31 Feb normalised)
        id="time.add_date-month-end",
    ),
    pytest.param('units.parse_bytes("1.5")', {}, 2, 1, id="units.parse_bytes-fraction-without-unit"),
    pytest.param("10000000000000000000001", {}, 1e22, 10000000000000000000001, id="integers-beyond-float-precision"),
]  # fmt: skip


@pytest.mark.parametrize(("expression", "input_doc", "in_regorus", "in_opa"), GAPS)
def test_gap_is_still_there(
    opa: OpaServer, expression: str, input_doc: dict[str, Any], in_regorus: Any, in_opa: Any
) -> None:
    module = f"package gap\n\nx := {expression}\n"
    assert (regorus_answer(module, input_doc), opa_answer(opa, module, input_doc)) == (in_regorus, in_opa)
