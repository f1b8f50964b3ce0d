"""The native quiet chunk's reader against hookd's: on generated and hostile payloads, whatever the library reads
of a chunk (its session and text) is what hookd's Python reads of it, and the journal's line is the one Python
writes (hookd.transport.native_quiet, `client_shim/hookd_quiet.c`). A chunk read differently by the two is a split
secret missed: any difference fails."""

from __future__ import annotations

import ctypes
import json
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from hookd.dialects.common import load_payload
from hookd.dialects.repeated import RepeatedField
from hookd.enrich.stream import candidate_of, ends, text_of
from hookd.errors import DialectError
from hookd.shims.build import build_quiet, find_compiler
from hookd.transport import native_quiet
from hookd.wire import jsonstrict

ESCAPES = ['\\"', "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t", "\\u0041", "\\u00e9", "\\u0000", "\\u001f",
           "\\ud83d\\ude00", "\\uD83D\\uDE00", "\\ud83d", "\\ude00", "\\ud83dx", "\\ud83d\\u0041", "\\u12", "\\x",
           "\\U0041", "\\uFFFF", "\\u007f", "\\u2028"]  # fmt: skip
RAW = ["a", " ", "é", "😀", "\u2028", "\x7f", "AKIA", "\t", "\x01", "\ufeff", "\\", '"', "中"]
GOOD_ESCAPES = [e for e in ESCAPES if e not in ("\\ud83d", "\\ude00", "\\ud83dx", "\\ud83d\\u0041", "\\u12", "\\x",
                                              "\\U0041")]  # fmt: skip
GOOD_RAW = [r for r in RAW if r not in ("\t", "\x01", "\\", '"')]
BAD_BYTES = [b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82", b"\x80"]


def json_string(rng: random.Random) -> str:
    """A JSON string literal, its characters and escapes drawn from every kind there is."""
    escapes, raw = (ESCAPES, RAW) if rng.random() < 0.3 else (GOOD_ESCAPES, GOOD_RAW)
    parts = []
    for _ in range(rng.randint(0, 12)):
        kind = rng.random()
        parts.append(rng.choice(escapes) if kind < 0.4 else rng.choice(raw))
    return '"' + "".join(parts) + '"'


def member(rng: random.Random, name: str, value: str) -> str:
    """`"name":value`, the name sometimes spelled with an escape (the same key to a JSON reader)."""
    if rng.random() < 0.1 and name:
        at = rng.randrange(len(name))
        name = name[:at] + f"\\u{ord(name[at]):04x}" + name[at + 1 :]
    space = rng.choice(["", " ", "\n", "\t"]) if rng.random() < 0.2 else ""
    return f'"{name}"{space}:{space}{value}'


def obj(rng: random.Random, members: list[str]) -> str:
    if rng.random() < 0.05 and members:
        members = [*members, rng.choice(members)]  # a duplicate key
    if rng.random() < 0.05:
        members = [*members, member(rng, rng.choice(["thought", "x", "extra", "role", "text"]), anything(rng, 1))]
    rng.shuffle(members) if rng.random() < 0.2 else None
    return "{" + ",".join(members) + "}"


def anything(rng: random.Random, depth: int) -> str:
    choice = rng.random()
    if depth > 3 or choice < 0.3:
        return json_string(rng)
    if choice < 0.45:
        return rng.choice(["0", "-1", "12.5", "1e3", "1E999", "01", "-", "1.", "true", "false", "null", "NaN",
                           "123456789012345678901234567890"])  # fmt: skip
    if choice < 0.7:
        return "[" + ",".join(anything(rng, depth + 1) for _ in range(rng.randint(0, 3))) + "]"
    return obj(rng, [member(rng, f"k{n}", anything(rng, depth + 1)) for n in range(rng.randint(0, 3))])


def part(rng: random.Random) -> str:
    choice = rng.random()
    if choice < 0.6:
        return json_string(rng)
    if choice < 0.85:
        return obj(rng, [member(rng, "text", json_string(rng))])
    return anything(rng, 2)


def payload(rng: random.Random, request: str) -> bytes:
    parts = [part(rng) for _ in range(rng.choice([1, 1, 1, 1, 0, 2]))]
    content = [member(rng, "role", '"model"'), member(rng, "parts", "[" + ",".join(parts) + "]")]
    candidate = [member(rng, "content", obj(rng, content)), member(rng, "index", "0")]
    if rng.random() < 0.2:
        candidate.append(member(rng, "finishReason", rng.choice(['"STOP"', '""', "null", "0"])))
    if rng.random() < 0.1:
        candidate.append(member(rng, "safetyRatings", anything(rng, 2)))
    candidates = [obj(rng, candidate)] + [anything(rng, 2) for _ in range(rng.choice([0, 0, 0, 1]))]
    response = [member(rng, "text", json_string(rng)), member(rng, "candidates", "[" + ",".join(candidates) + "]")]
    if rng.random() < 0.3:
        response.append(member(rng, "usageMetadata", obj(rng, [member(rng, "totalTokenCount", "12")])))
    top = [member(rng, "session_id", json_string(rng) if rng.random() < 0.5 else '"s1"'),
           member(rng, "hook_event_name", rng.choice(['"AfterModel"'] * 8 + ['"BeforeModel"', "null", '"x"'])),
           member(rng, "cwd", '"/p"'), member(rng, "timestamp", '"2026-12-06T00:00:00Z"')]  # fmt: skip
    # the request's key and value, then the response's: the repeated field's order
    body = "{" + ",".join(top) + ',"llm_request":' + request + ',"llm_response":' + obj(rng, response) + "}"
    if rng.random() < 0.15:
        body = body.replace(',"llm_request":', ',"transcript_path":"\\"llm_request\\":",' + '"llm_request":', 1)
    if rng.random() < 0.05:
        body = body[:-1] + ',"x":",\\"llm_response\\":"}'
    if rng.random() < 0.05:
        body = rng.choice(["\ufeff", " ", "\n"]) + body + rng.choice(["", " ", "x", "}", "\n"])
    data = body.encode("utf-8", "surrogatepass")
    if rng.random() < 0.15:  # bytes no reader should take, anywhere
        at = rng.randrange(len(data))
        data = data[:at] + rng.choice(BAD_BYTES) + data[at:]
    return data


def python_reads(data: bytes, request: bytes) -> tuple[str, str] | None:
    """What hookd's Python reads of the chunk, by both its ways (the repeated field's and the whole payload):
    its session and text when it is a chunk that does not end its response, of request `request`; None
    otherwise. The two ways must agree."""
    field = RepeatedField("llm_request", "llm_response")
    field.load(1, b'{"llm_request":' + request + b',"llm_response":{}}')  # the request kept, as the lane has it
    fast = field.load(1, data)
    try:
        whole: dict[str, object] | None = load_payload(data)
        jsonstrict.check_document(data, 100)
    except (DialectError, ValueError):
        whole = None
    if fast is not None:
        assert whole is not None and fast[0] == whole, "the repeated field's read differs from the whole one"
    if whole is None or whole.get("hook_event_name") not in (None, "AfterModel"):
        return None
    session = whole.get("session_id")
    candidate = candidate_of(whole.get("llm_response"))  # type: ignore[arg-type]
    wanted = jsonstrict.digest(load_payload(request))
    if not isinstance(session, str) or ends(candidate) or jsonstrict.digest(whole.get("llm_request")) != wanted:  # type: ignore[arg-type]
        return None
    return session, text_of(candidate)


def requests(rng: random.Random) -> bytes:
    contents = [{"role": "user", "parts": [{"text": "q" * rng.randint(0, 50) + "\u00e9\U0001f600"}]}]
    return json.dumps({"contents": contents}, separators=(",", ":"), ensure_ascii=rng.random() < 0.5).encode()


def compare(lib: ctypes.CDLL, make: Callable[[random.Random, str], bytes], seed: int, count: int) -> int:
    rng, read = random.Random(seed), 0
    for n in range(count):
        request = requests(rng)
        data = make(rng, request.decode())
        native = native_quiet.read_payload(lib, data, request)
        if native is None:
            continue
        read += 1
        assert native == python_reads(data, request), f"case {n}: {data!r}"
    return read


def test_what_the_library_reads_of_a_chunk_is_what_python_reads(lib: ctypes.CDLL) -> None:
    read = compare(lib, payload, 36, 6000)
    assert read > 400  # many ordinary chunks are read natively: the comparison is not of doubts only


def test_mutated_bytes_are_read_alike_or_doubted(lib: ctypes.CDLL) -> None:
    """Valid chunks with a byte changed, inserted or dropped anywhere."""

    def mutated(rng: random.Random, request: str) -> bytes:
        data = bytearray(payload(rng, request))
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(data))
            action = rng.random()
            if action < 0.4:
                data[at] = rng.randrange(256)
            elif action < 0.7:
                data.insert(at, rng.choice(b'"\\{}[],: \x00u0'))
            else:
                del data[at]
        return bytes(data)

    compare(lib, mutated, 37, 6000)


@pytest.mark.parametrize(
    ("body", "reads"),
    [
        ('{"session_id":"s","llm_request":R,"llm_response":{"candidates":[{"content":{"parts":["a\\ud83d\\ude00"]}}]}}',
         ("s", "a\U0001f600")),
        ('{"session_id":"s","llm_request":R,"llm_response":{"candidates":[{"content":{"parts":["\\ud83d"]}}]}}', None),
        ('{"session_id":"s","session_id":"t","llm_request":R,"llm_response":{"candidates":[{"content":{"parts":["a"]}}]}}',
         None),
        ('{"session_id":"s","llm_request":R,"llm_response":{"candidates":[{"content":{"parts":["a"]},"finishReason":""}]}}',
         None),
        ('{"session_id":"s","llm_request":R,"llm_response":{"candidates":[{"content":{"parts":["a","b"]}}]}}', None),
        ('{"session_id":"s","llm_request":R,"llm_response":{"candidates":[{"content":{"parts":[{"text":"a","x":1}]}}]}}',
         None),
        ('{"session_id":"s","llm_request":R,"llm_response":{"candidates":[{"content":{"parts":["a"]}}]},"other":1}',
         None),
        ('{"session_id":"s","llm_request":R,"llm_response":{"candidates":[{"content":{"parts":["a"]}}]},"x":",\\"llm_response\\":{}"}',
         None),
    ],
)  # fmt: skip
def test_the_doubts_named(lib: ctypes.CDLL, body: str, reads: tuple[str, str] | None) -> None:
    """A pair read, and what is doubted: a lone surrogate (Python makes it U+FFFD), a duplicate key (Python keeps the
    last), a finish reason of any value, two parts (joined there), a part's unknown field, an unknown top-level
    field, a follower inside a string after the real one."""
    request = b'{"contents":[]}'
    data = body.replace("R", request.decode()).encode()
    assert native_quiet.read_payload(lib, data, request) == reads
    if reads is not None:
        assert python_reads(data, request) == reads


def test_the_journal_line_is_pythons(lib: ctypes.CDLL) -> None:
    rng = random.Random(38)
    alphabet = [chr(c) for c in range(0x250)] + ["\u2028", "\ufffd", "\uffff", "\U0001f600", "\U0010ffff", "中"]
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        assert native_quiet.escaped(lib, text) == json.encoder.encode_basestring_ascii(text)[1:-1]


def test_the_library_builds_where_the_shim_does(tmp_path: Path) -> None:
    built = build_quiet(find_compiler(), tmp_path, tmp_path)
    assert built == tmp_path / native_quiet.LIBRARY_NAME and built.is_file()
