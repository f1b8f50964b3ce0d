"""A store emptied by its own configuration: a lifecycle rule handed to a cloud CLI as JSON that expires every object
of the store (MITRE ATT&CK T1485.001, lifecycle-triggered deletion: https://attack.mitre.org/techniques/T1485/001/).
The delete happens later, on the provider's side, but the line is what schedules it.

Read from the document's shape, not from one provider's schema: a rule is an object inside a list (S3's `Rules`,
GCS's `rule`, Azure's management-policy `rules`); it expires objects when a key of it says so (S3's `Expiration`:
https://docs.aws.amazon.com/AmazonS3/latest/userguide/intro-lifecycle-rules.html; Azure's `delete` action:
https://learn.microsoft.com/en-us/azure/storage/blobs/lifecycle-management-overview) or an action's type is a delete
(GCS's `{"type": "Delete"}`: https://cloud.google.com/storage/docs/lifecycle); and it takes the whole store when
nothing narrows it to part (a prefix, a tag, a suffix or a size filter). What expires only old versions, delete
markers or unfinished uploads (`NoncurrentVersionExpiration`, `ExpiredObjectDeleteMarker`) keeps the current data,
and a disabled rule does nothing."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from hookd.enrich.tool_args import words

_EXPIRES = frozenset({"expiration", "expire", "expires", "delete"})
_OLD = frozenset({"noncurrent", "version", "versions", "snapshot", "snapshots", "marker", "multipart", "incomplete"})
_NARROWS = frozenset({"prefix", "tag", "tags", "suffix", "size"})
_ACTION = frozenset({"type", "action"})


def expires_whole_store(texts: list[str]) -> bool:
    """Some text among `texts` is a JSON document with an enabled rule that expires every object (module doc)."""
    return any(_expires_all(rule) for text in texts for rule in _rules(_document(text)))


def _document(text: str) -> Any:
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        return None
    try:
        return json.loads(stripped)
    except ValueError:
        return None


def _rules(node: Any, in_list: bool = False) -> Iterator[dict[str, Any]]:
    """Every object that is an element of a list, at any depth."""
    if isinstance(node, dict):
        if in_list:
            yield node
        for value in node.values():
            yield from _rules(value)
    elif isinstance(node, list):
        for item in node:
            yield from _rules(item, True)


def _expires_all(rule: dict[str, Any]) -> bool:
    pairs = list(_pairs(rule))
    disabled = any(
        (words(k) & {"status"} and str(v).lower() == "disabled") or (words(k) == {"enabled"} and v is False)
        for k, v in pairs
    )
    narrowed = any(words(k) & _NARROWS and v not in ("", [], {}, None) for k, v in pairs)
    return not disabled and not narrowed and any(_expiring(k, v) for k, v in pairs)


def _pairs(node: Any) -> Iterator[tuple[str, Any]]:
    """Every key and value under `node`, not descending below keys about old versions only."""
    if isinstance(node, dict):
        for key, value in node.items():
            if words(str(key)) & _OLD:
                continue
            yield str(key), value
            yield from _pairs(value)
    elif isinstance(node, list):
        for item in node:
            yield from _pairs(item)


def _expiring(key: str, value: Any) -> bool:
    said = words(key)
    if said & _ACTION and isinstance(value, str):
        return bool(words(value) & _EXPIRES)
    if not said & _EXPIRES or value in (False, None, {}, []):
        return False
    return not isinstance(value, dict) or any(not words(str(k)) & _OLD for k in value)
