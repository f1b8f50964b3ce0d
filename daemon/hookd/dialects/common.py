"""What every dialect needs: reading the payload, writing one JSON object. No I/O."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hookd import jsonstrict
from hookd.errors import DialectError, one_line
from hookd.policy.combine import merge_patch
from hookd.types import JSON, Decision, NormalisedEvent


def dump_json(value: Mapping[str, Any]) -> bytes:
    """One compact, pure-ASCII JSON object that JSON.parse accepts (non-finite numbers become null,
    as JSON.stringify would make them)."""
    return jsonstrict.dumps(value, separators=(",", ":")).encode("ascii")


def load_payload(raw: bytes) -> dict[str, JSON]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise DialectError(f"hook payload is not UTF-8 (bad byte at offset {exc.start})") from None
    try:
        payload = jsonstrict.loads(text)  # NaN, Infinity and 1e999 are no JSON numbers; too deep is an error
    except ValueError as exc:
        raise DialectError(f"hook payload is not valid JSON: {one_line(str(exc))}") from None
    if not isinstance(payload, dict):
        raise DialectError(f"hook payload must be a JSON object, got {json_type(payload)}")
    return payload


def json_type(value: JSON) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array"


def string_field(payload: Mapping[str, JSON], key: str) -> str:
    value = payload.get(key)
    return value if isinstance(value, str) else ""


def rewritten_tool_input(event: NormalisedEvent, decision: Decision, notes: list[str]) -> dict[str, Any] | None:
    """The complete new tool input (both clients replace the arguments whole), the combined merge
    patch applied over what the agent sent; None when there is no change."""
    if "tool_input" not in decision.rewrite or event.tool is None:
        return None
    patch = decision.rewrite["tool_input"]
    if not isinstance(patch, Mapping):
        notes.append("rewrite of tool_input not carried: the patch is not a JSON object")
        return None
    full = merge_patch(event.tool.input, patch)
    if full == event.tool.input:
        notes.append("rewrite of tool_input changed nothing")
        return None
    return dict(full)
