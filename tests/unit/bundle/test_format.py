"""OPA's canonical hashing of structured bundle files, the manifest, and roots."""

from __future__ import annotations

import hashlib

import pytest

from hookd.bundle.format import Manifest, canonical, check_contents, file_hash, go_string, parse_json, roots_overlap
from hookd.errors import BundleError

# Produced by `opa build --bundle src --signing-key key.pem -r rev1` (opa v1.22.4): the file as opa
# wrote it, and the hash opa put in the signature. The hash is of the canonical value, not the bytes.
OPA_DATA_JSON = b'{"a":{"b":[1e3,-0,true,null],"k":1.50,"z":"a\\u003cb\\u003e\\u2028"}}'
OPA_DATA_HASH = "3a62c2e50b14808ea775229ebe5ba33b6b9fcfb6888ed629adbee82d382416db"
OPA_MANIFEST = b'{"revision":"rev1","roots":[""],"rego_version":1}'
OPA_MANIFEST_HASH = "2a9e6ebfa2279af26c5b5b4c1c0526e439dff6acb65a0fdddbfe055bb7ec89b1"


class TestCanonicalHash:
    def test_matches_what_opa_signed(self) -> None:
        assert file_hash("data.json", OPA_DATA_JSON) == OPA_DATA_HASH
        assert file_hash(".manifest", OPA_MANIFEST) == OPA_MANIFEST_HASH

    def test_independent_of_whitespace_key_order_and_escaping(self) -> None:
        reformatted = b'{ "a" : { "z": "a<b>\\u2028", "k": 1.50,\n "b": [1e3, -0, true, null] } }'
        assert file_hash("data.json", reformatted) == OPA_DATA_HASH

    def test_numbers_are_hashed_as_written(self) -> None:
        assert canonical(parse_json(b'{"n": 1.50}', "x")) == b'{"n":1.50}'
        assert file_hash("data.json", b'{"n": 1.5}') != file_hash("data.json", b'{"n": 1.50}')

    def test_other_files_are_hashed_as_bytes(self) -> None:
        content = b"package x\n"
        assert file_hash("a/p.rego", content) == hashlib.sha256(content).hexdigest()
        assert file_hash("a/other.json", b'{"a": 1}') == hashlib.sha256(b'{"a": 1}').hexdigest()

    def test_yaml_data_hashes_like_the_same_json(self) -> None:
        assert file_hash("x/data.yaml", b"b: [1, true]\na: hi\n") == file_hash(
            "x/data.json", b'{"a":"hi","b":[1,true]}'
        )

    @pytest.mark.parametrize(
        ("text", "encoded"),
        [
            ('a"b\\c', '"a\\"b\\\\c"'),
            ("<&>", '"<&>"'),  # HTML escaping off, as opa's hasher sets it
            ("\n\t\r\b\f\x01\x7f", '"\\n\\t\\r\\b\\f\\u0001\x7f"'),
            ("\u2028\u2029é", '"\\u2028\\u2029é"'),
        ],
    )
    def test_strings_are_escaped_like_go(self, text: str, encoded: str) -> None:
        assert go_string(text) == encoded

    def test_unknown_algorithm_is_refused(self) -> None:
        with pytest.raises(BundleError, match="unsupported hashing algorithm"):
            file_hash("a.rego", b"", "CRC32")


class TestManifest:
    def test_defaults_own_everything(self) -> None:
        manifest = Manifest.parse(b"{}")
        assert (manifest.revision, manifest.roots) == ("", ("",))

    def test_roots_are_trimmed_and_must_not_overlap(self) -> None:
        assert Manifest.parse(b'{"roots": ["/hookd/org/"]}').roots == ("hookd/org",)
        with pytest.raises(BundleError, match="overlapping roots: 'hookd' and 'hookd/org'"):
            Manifest.parse(b'{"roots": ["hookd", "hookd/org"]}')

    @pytest.mark.parametrize(
        "bad", [b"[]", b'{"revision": 3}', b'{"roots": "x"}', b'{"rego_version": 0}', b'{"rego_version": "v1"}', b"{"]
    )
    def test_bad_manifests_are_refused(self, bad: bytes) -> None:
        with pytest.raises(BundleError):
            Manifest.parse(bad)

    def test_overlap_follows_path_segments(self) -> None:
        assert roots_overlap("hookd/org", "hookd/org/x")
        assert roots_overlap("", "anything")
        assert not roots_overlap("hookd/org", "hookd/organisation")

    def test_packages_and_data_must_lie_under_the_roots(self) -> None:
        manifest = Manifest.parse(b'{"roots": ["hookd/org"]}')
        check_contents(manifest, {"p.rego": b"package hookd.org.guard\n", "hookd/org/data.json": b"{}"})
        check_contents(manifest, {"data.json": b'{"hookd": {"org": {"x": 1}}}'})
        with pytest.raises(BundleError, match=r"do not permit package 'hookd\.team'"):
            check_contents(manifest, {"p.rego": b"package hookd.team\n"})
        with pytest.raises(BundleError, match="do not permit data at path '/hookd/other'"):
            check_contents(manifest, {"data.json": b'{"hookd": {"other": 1}}'})
