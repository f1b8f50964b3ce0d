"""gaps50b: a fetch tool's method and body argument names are data (effects/data/fetch_tools.json), compared as words,
so a tool that spells them in camel case or names a multipart upload is judged as `method`/`body` were."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hookd.enrich import tool_urls
from hookd.enrich.tool_urls import request_method


@pytest.mark.parametrize(
    ("given", "method"),
    [
        ({"url": "u", "httpMethod": "delete"}, "DELETE"),  # API Gateway's event spelling
        ({"url": "u", "HTTP-METHOD": "patch"}, "PATCH"),
        ({"url": "u", "files": {"f": "@a.rego"}}, "POST"),  # requests' multipart upload
        ({"url": "u", "method": "put"}, "PUT"),
        ({"url": "u", "method": "GET", "body": "{}"}, ""),  # the method given wins over the body
        ({"url": "u", "prompt": "summarise"}, ""),
    ],
)
def test_a_fetch_tools_method_and_body_names_are_words(given: dict[str, object], method: str) -> None:
    assert request_method(given) == method


def test_every_name_in_the_data_has_a_source() -> None:
    data = json.loads(Path(tool_urls.__file__).with_name("effects").joinpath("data", "fetch_tools.json").read_text())
    for part in ("method", "body"):
        assert data[part] and all(e["name"] and e["source"].startswith("https://") for e in data[part])
