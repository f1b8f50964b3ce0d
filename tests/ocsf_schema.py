"""A validator for OCSF events against the published OCSF schema, read from its source files as the OCSF
project publishes them (tests/fixtures/ocsf-1.8.0: github.com/ocsf/ocsf-schema at the v1.8.0 release commit,
see its SOURCE file): the class's attributes with its `extends` chain and `$include`d profiles, each
attribute's type from the dictionary (scalar types, arrays, objects with their own `extends`, `$include`s
and `at_least_one` constraints), required attributes, enumerations of `*_id` attributes, and profile
attributes only where `metadata.profiles` names the profile. It reports every problem by path."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

SCHEMA = Path(__file__).resolve().parent / "fixtures" / "ocsf-1.8.0"
SCALARS: dict[str, tuple[type, ...]] = {
    "string_t": (str,), "integer_t": (int,), "long_t": (int,), "float_t": (float, int), "boolean_t": (bool,),
    "json_t": (object,),
}  # fmt: skip


@cache
def _load(relative: str) -> Any:
    return json.loads((SCHEMA / relative).read_text())


@cache
def _by_name(folder: str) -> dict[str, str]:
    return {
        _load(str(p.relative_to(SCHEMA)))["name"]: str(p.relative_to(SCHEMA)) for p in (SCHEMA / folder).rglob("*.json")
    }


def _attributes(relative: str) -> dict[str, dict[str, Any]]:
    """A class's or object's attributes, its parents' first, then its $includes, then its own."""
    spec = _load(relative)
    folder = relative.split("/", 1)[0]
    merged: dict[str, dict[str, Any]] = {}
    parent = spec.get("extends")
    if parent and parent != "object":
        merged.update(_attributes(_by_name(folder)[parent]))
    own = dict(spec.get("attributes", {}))
    for include in own.pop("$include", []):
        included = _load(include)
        profile = included.get("name") if included.get("meta") == "profile" else None
        for name, attr in included.get("attributes", {}).items():
            merged[name] = _merge(merged.get(name, {}), {**attr, **({"profile": profile} if profile else {})})
    for name, attr in own.items():
        merged[name] = _merge(merged.get(name, {}), attr)
    return merged


def _merge(base: dict[str, Any], more: dict[str, Any]) -> dict[str, Any]:
    """A child's attribute over its parent's; enumerations add up (a class adds activities to the base's)."""
    out = {**base, **more}
    if "enum" in base and "enum" in more:
        out["enum"] = {**base["enum"], **more["enum"]}
    return out


def _constraints(relative: str) -> dict[str, list[str]]:
    spec = _load(relative)
    if "constraints" in spec:
        return dict(spec["constraints"])
    parent = spec.get("extends")
    folder = relative.split("/", 1)[0]
    return _constraints(_by_name(folder)[parent]) if parent and parent != "object" else {}


def _dictionary() -> dict[str, Any]:
    return dict(_load("dictionary.json"))


def validate(event: dict[str, Any]) -> list[str]:
    classes = {_load(p).get("uid"): p for p in _by_name("events").values() if "uid" in _load(p)}
    category = {v["uid"]: k for k, v in _load("categories.json")["attributes"].items()}
    problems: list[str] = []
    uid = event.get("class_uid")
    if not isinstance(uid, int) or uid // 1000 not in category or uid % 1000 not in classes:
        return [f"class_uid {uid!r}: no such class in OCSF {_load('version.json')['version']}"]
    relative = classes[uid % 1000]
    if event.get("category_uid") != uid // 1000:
        problems.append(f"category_uid {event.get('category_uid')!r} is not {uid // 1000}")
    if event.get("type_uid") != uid * 100 + int(event.get("activity_id", -1)):
        problems.append(f"type_uid {event.get('type_uid')!r} is not class_uid * 100 + activity_id")
    profiles = set(event.get("metadata", {}).get("profiles", []))
    attrs = _attributes(relative)  # as the schema compiles a class: its own category and class uid
    attrs["category_uid"] = {**attrs["category_uid"], "enum": {str(uid // 1000): {}}}
    attrs["class_uid"] = {**attrs["class_uid"], "enum": {str(uid): {}}}
    _check_object(event, attrs, {}, "", profiles, problems)
    return problems


def _check_object(
    value: dict[str, Any], attrs: dict[str, dict[str, Any]], constraints: dict[str, list[str]], path: str,
    profiles: set[str], problems: list[str],
) -> None:  # fmt: skip
    for name, attr in attrs.items():
        if attr.get("requirement") == "required" and name not in value and _in_profile(attr, profiles):
            problems.append(f"{path}{name}: required, missing")
    group = constraints.get("at_least_one")
    if group and not any(name in value for name in group):
        problems.append(f"{path or '.'}: needs at least one of {', '.join(group)}")
    for name, item in value.items():
        attr = attrs.get(name)
        if attr is None:
            problems.append(f"{path}{name}: not an attribute here")
            continue
        if not _in_profile(attr, profiles):
            problems.append(f"{path}{name}: belongs to profile {attr['profile']}, not in metadata.profiles")
        _check_value(name, item, attr, f"{path}{name}", profiles, problems)


def _in_profile(attr: dict[str, Any], profiles: set[str]) -> bool:
    return attr.get("profile") is None or attr["profile"] in profiles


def _check_value(
    name: str, item: Any, attr: dict[str, Any], path: str, profiles: set[str], problems: list[str]
) -> None:
    entry = _merge(_dictionary()["attributes"].get(name, {}), attr)
    kind = entry.get("type", "")
    if entry.get("is_array"):
        if not isinstance(item, list):
            problems.append(f"{path}: must be an array")
            return
        for i, element in enumerate(item):
            _check_one(element, kind, entry, f"{path}[{i}]", profiles, problems)
        return
    _check_one(item, kind, entry, path, profiles, problems)


def _check_one(item: Any, kind: str, entry: dict[str, Any], path: str, profiles: set[str], problems: list[str]) -> None:
    types = _dictionary()["types"]["attributes"]
    base = kind
    while base in types and base not in SCALARS:
        base = types[base].get("type", "")
    if base in SCALARS:
        ok = isinstance(item, SCALARS[base]) and not (isinstance(item, bool) and base != "boolean_t")
        if not ok:
            problems.append(f"{path}: {item!r} is not {kind}")
        elif "enum" in entry and str(item) not in entry["enum"]:
            problems.append(f"{path}: {item!r} is not one of {sorted(entry['enum'])}")
        return
    if kind == "object":  # any object (unmapped)
        if not isinstance(item, dict):
            problems.append(f"{path}: must be an object")
        return
    objects = _by_name("objects")
    if kind not in objects:
        problems.append(f"{path}: unknown type {kind!r}")
        return
    if not isinstance(item, dict):
        problems.append(f"{path}: must be an object ({kind})")
        return
    _check_object(item, _attributes(objects[kind]), _constraints(objects[kind]), f"{path}.", profiles, problems)
