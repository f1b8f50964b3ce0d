"""What a bundle holds, OPA's way: `.manifest`, `*.rego`, `data.json`/`data.yaml`, `.signatures.json`,
plus hookd's `*.py` policies; the manifest's roots; and OPA's canonical hashing of structured files.

OPA hashes `.manifest`, `data.json` and `data.yaml` not as bytes but as a canonical re-encoding of
their parsed value (object keys sorted, no whitespace, numbers exactly as written, strings escaped as
Go's encoding/json does with HTML escaping off), so that a signature survives reformatting.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hookd.errors import BundleError
from hookd.wire import jsonstrict

MANIFEST = ".manifest"
SIGNATURES = ".signatures.json"
DATA_FILES = frozenset({"data.json", "data.yaml", "data.yml"})
HASH_ALGORITHMS: Mapping[str, Callable[[], Any]] = {
    "MD5": hashlib.md5,
    "SHA-1": hashlib.sha1,
    "SHA-224": hashlib.sha224,
    "SHA-256": hashlib.sha256,
    "SHA-384": hashlib.sha384,
    "SHA-512": hashlib.sha512,
    "SHA-512-224": lambda: hashlib.new("sha512_224"),
    "SHA-512-256": lambda: hashlib.new("sha512_256"),
}
_PACKAGE = re.compile(r"^\s*package\s+([^\s#]+)", re.MULTILINE)


def is_structured(path: str) -> bool:
    """Files OPA hashes by value, not by bytes."""
    return posixpath.basename(path) in DATA_FILES or posixpath.basename(path) == MANIFEST


def is_python_policy(path: str) -> bool:
    return path.endswith(".py")


@dataclass(frozen=True, slots=True)
class Manifest:
    revision: str = ""
    roots: tuple[str, ...] = ("",)
    metadata: Mapping[str, Any] = field(default_factory=dict)
    rego_version: int | None = None
    raw: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def parse(cls, data: bytes) -> Manifest:
        value = parse_json(data, MANIFEST)
        if not isinstance(value, dict):
            raise BundleError(".manifest must be a JSON object")
        revision = value.get("revision", "")
        if not _is_text(revision):
            raise BundleError(".manifest: revision must be a string")
        roots = value.get("roots", [""])
        if not isinstance(roots, list) or not all(_is_text(r) for r in roots):
            raise BundleError(".manifest: roots must be a list of strings")
        metadata = value.get("metadata") or {}
        if not isinstance(metadata, dict):
            raise BundleError(".manifest: metadata must be an object")
        rego_version = value.get("rego_version")
        if rego_version is not None and str(rego_version) != "1":
            raise BundleError(".manifest: hookd runs Rego v1 only (rego_version must be 1)")
        manifest = cls(
            revision=str.__str__(revision),
            roots=tuple(str.__str__(r).strip("/") for r in roots),
            metadata=_plain(metadata),
            rego_version=1 if rego_version is not None else None,
            raw=value,
        )
        manifest.check_roots()
        return manifest

    def to_json(self) -> bytes:
        out: dict[str, Any] = {"revision": self.revision, "roots": list(self.roots)}
        if self.metadata:
            out["metadata"] = dict(self.metadata)
        if self.rego_version is not None:
            out["rego_version"] = self.rego_version
        return json.dumps(out, sort_keys=True, separators=(",", ":")).encode()

    def check_roots(self) -> None:
        for i, a in enumerate(self.roots):
            for b in self.roots[i + 1 :]:
                if roots_overlap(a, b):
                    raise BundleError(f".manifest has overlapping roots: '{a}' and '{b}'")


def _is_text(value: Any) -> bool:
    return isinstance(value, str) and not isinstance(value, Number)


def roots_overlap(a: str, b: str) -> bool:
    return root_contains(a, b) or root_contains(b, a)


def root_contains(root: str, path: str) -> bool:
    """OPA's rule: the root "" owns everything; otherwise path segments must start with the root's."""
    if root == "":
        return True
    r, p = root.split("/"), path.split("/")
    return len(r) <= len(p) and p[: len(r)] == r


def check_contents(manifest: Manifest, files: Mapping[str, bytes]) -> None:
    """Every package and every data path must lie under one of the manifest's roots (as OPA checks)."""
    for path, content in files.items():
        if path.endswith(".rego"):
            package = rego_package(path, content)
            if not any(root_contains(root, package.replace(".", "/")) for root in manifest.roots):
                raise BundleError(f"manifest roots {list(manifest.roots)} do not permit package '{package}' in {path}")
        elif posixpath.basename(path) in DATA_FILES:
            value = parse_data(path, content)
            _check_data(manifest.roots, posixpath.dirname(path).strip("/"), value)


def _check_data(roots: Iterable[str], path: str, value: Any) -> None:
    roots = tuple(roots)
    if any(root_contains(root, path) for root in roots):
        return
    if isinstance(value, dict) and any(root_contains(path, root) for root in roots if path):
        for key, child in value.items():
            _check_data(roots, f"{path}/{key}" if path else str(key), child)
        return
    if isinstance(value, dict) and not path:
        for key, child in value.items():
            _check_data(roots, str(key), child)
        return
    raise BundleError(f"manifest roots {list(roots)} do not permit data at path '/{path}'")


def rego_package(path: str, content: bytes) -> str:
    match = _PACKAGE.search(content.decode("utf-8", errors="replace"))
    if match is None:
        raise BundleError(f"{path}: no package declaration")
    return match.group(1).removeprefix("data.")


class Number(str):
    """A JSON number kept exactly as written (OPA decodes with UseNumber and hashes the literal)."""


MAX_JSON_DEPTH = 100  # the embedded engine refuses data nested past 128 levels, data paths included


def parse_json(data: bytes, name: str) -> Any:
    """Strict JSON (no NaN/Infinity, at most MAX_JSON_DEPTH levels deep): anything else refuses the bundle."""
    text = data.removeprefix(b"\xef\xbb\xbf")
    try:
        value = jsonstrict.loads(text, parse_int=Number, parse_float=Number)
    except (ValueError, UnicodeDecodeError) as exc:
        raise BundleError(f"{name}: not valid JSON: {exc}") from None
    if jsonstrict.deeper_than(value, MAX_JSON_DEPTH):
        raise BundleError(f"{name}: not valid JSON: nested more than {MAX_JSON_DEPTH} levels deep")
    return value


def parse_data(path: str, data: bytes) -> Any:
    """The value of a data file: JSON for data.json, YAML (converted to JSON values) for data.yaml."""
    if path.endswith(".json"):
        return parse_json(data, path)
    import yaml

    try:
        value = yaml.safe_load(data.removeprefix(b"\xef\xbb\xbf"))
    except yaml.YAMLError as exc:
        raise BundleError(f"{path}: not valid YAML: {' '.join(str(exc).split())}") from None
    return _yaml_to_json(value, path)


def _yaml_to_json(value: Any, path: str) -> Any:
    if isinstance(value, dict):
        return {_yaml_key(k, path): _yaml_to_json(v, path) for k, v in value.items()}
    if isinstance(value, list):
        return [_yaml_to_json(v, path) for v in value]
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return Number(str(value))
    if isinstance(value, float):
        return Number(_go_float(value))
    raise BundleError(f"{path}: YAML value of type {type(value).__name__} has no JSON form")


def _yaml_key(key: Any, path: str) -> str:
    if isinstance(key, bool):
        return "true" if key else "false"
    if isinstance(key, str | int | float):
        return str(key)
    raise BundleError(f"{path}: YAML key {key!r} cannot be a JSON object key")


def _go_float(value: float) -> str:
    """Go's encoding/json float format: shortest repr, exponent form outside [1e-6, 1e21)."""
    if value == int(value) and abs(value) < 1e21:
        return str(int(value))
    text = repr(value)
    if "e" in text:
        mantissa, exp = text.split("e")
        sign = "-" if exp.startswith("-") else "+"
        return f"{mantissa}e{sign}{abs(int(exp)):02d}"
    return text


def _plain(value: Any) -> Any:
    if isinstance(value, Number):
        return json.loads(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def canonical(value: Any) -> bytes:
    """OPA's canonical form of a parsed JSON value (bundle/hash.go: walk + primitiveEncoder)."""
    out: list[str] = []
    _walk(value, out)
    return "".join(out).encode("utf-8", errors="surrogatepass")


def _walk(value: Any, out: list[str]) -> None:
    if isinstance(value, dict):
        out.append("{")
        for i, key in enumerate(sorted(value, key=_go_order)):
            if i:
                out.append(",")
            out.append(go_string(key))
            out.append(":")
            _walk(value[key], out)
        out.append("}")
    elif isinstance(value, list):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _walk(item, out)
        out.append("]")
    elif isinstance(value, Number):
        out.append(str.__str__(value))
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif value is None:
        out.append("null")
    elif isinstance(value, str):
        out.append(go_string(value))
    else:
        out.append(json.dumps(value))


def _go_order(key: str) -> bytes:
    return _go_valid(key).encode("utf-8")  # Go sorts strings bytewise


_GO_SHORT = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
_NEEDS_ESCAPE = re.compile('["\\\\\x00-\x1f\u2028\u2029]')


def go_string(text: str) -> str:
    """A string as Go's json.Encoder writes it with SetEscapeHTML(false)."""
    text = _go_valid(text)

    def escape(match: re.Match[str]) -> str:
        char = match.group(0)
        return _GO_SHORT.get(char) or f"\\u{ord(char):04x}"

    return '"' + _NEEDS_ESCAPE.sub(escape, text) + '"'


def _go_valid(text: str) -> str:
    """Lone surrogates (from \\ud800-style escapes) decode to U+FFFD in Go."""
    return "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text) if _has_surrogate(text) else text


def _has_surrogate(text: str) -> bool:
    return any(0xD800 <= ord(c) <= 0xDFFF for c in text)


def file_hash(path: str, content: bytes, algorithm: str = "SHA-256") -> str:
    """The hex digest OPA records for one bundle file."""
    factory = HASH_ALGORITHMS.get(algorithm)
    if factory is None:
        raise BundleError(f"unsupported hashing algorithm {algorithm!r} for {path}")
    digest = factory()
    if is_structured(path):
        value = parse_data(path, content) if posixpath.basename(path) in DATA_FILES else parse_json(content, path)
        digest.update(canonical(value))
    else:
        digest.update(content)
    return str(digest.hexdigest())
