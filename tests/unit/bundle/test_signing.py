"""OPA's signature scheme, both ways, and every verification rule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bundle_support import make_key

from hookd.bundle.archive import read_tarball, write_tarball
from hookd.bundle.build import build, sign_tarball
from hookd.bundle.load import check_files, open_bundle
from hookd.bundle.signing import Key, sign
from hookd.errors import BundleError

FILES = {".manifest": b'{"revision":"r1","roots":["hookd/org"]}', "org/p.rego": b"package hookd.org\n",
         "hookd/org/data.json": b'{"limit": 3}'}  # fmt: skip


def keys(algorithm: str) -> tuple[Key, Key]:
    pair = make_key(algorithm)
    return Key(algorithm, pair.private), Key(algorithm, pair.public)


@pytest.mark.parametrize("algorithm", ["RS256", "ES256", "HS256", "PS384", "ES384", "HS512"])
def test_sign_then_verify(algorithm: str) -> None:
    private, public = keys(algorithm)
    files = {**FILES, ".signatures.json": sign(FILES, private)}
    bundle = check_files(files, public)
    assert bundle.verified.signed and bundle.revision == "r1"
    token = json.loads(files[".signatures.json"])["signatures"][0]
    import jwt

    assert jwt.get_unverified_header(token) == {"alg": algorithm, "kid": "default", "typ": "JWT"}
    names = [f["name"] for f in jwt.decode(token, options={"verify_signature": False})["files"]]
    assert sorted(names) == sorted(FILES)


def signed(files: dict[str, bytes], key: Key) -> dict[str, bytes]:
    return {**files, ".signatures.json": sign(files, key)}


def test_each_verification_rule_refuses_with_its_reason() -> None:
    private, public = keys("RS256")
    _, other_public = keys("RS256")
    good = signed(FILES, private)
    cases = {
        "does not verify with key": (good, other_public),
        "not signed (no .signatures.json) but a verification key": (FILES, public),
        "signed (.signatures.json) but no verification key": (good, None),
        "are in the bundle but not in its signature": ({**good, "extra.rego": b"package hookd.org.x"}, public),
        "are in the bundle signature but not in the bundle": (
            {k: v for k, v in good.items() if k != "org/p.rego"},
            public,
        ),
        "org/p.rego: digest mismatch": ({**good, "org/p.rego": b"package hookd.org\nallow := 1\n"}, public),
        "scope '' does not match the configured scope 'prod'": (good, Key("RS256", public.material, scope="prod")),
        "signature uses 'RS256', the key 'default' is HS256": (good, Key("HS256", "secret")),
    }
    for reason, (files, key) in cases.items():
        with pytest.raises(BundleError, match=reason.replace("(", r"\(").replace(")", r"\)")):
            check_files(files, key)


def test_reformatted_data_still_verifies() -> None:
    private, public = keys("ES256")
    good = signed(FILES, private)
    check_files({**good, "hookd/org/data.json": b'{\n  "limit" : 3\n}\n'}, public)
    with pytest.raises(BundleError, match="digest mismatch"):
        check_files({**good, "hookd/org/data.json": b'{"limit": 4}'}, public)


def test_python_policies_must_be_signed() -> None:
    with_python = {**FILES, "org/guard.py": b"def decide(event): return []\n"}
    with pytest.raises(BundleError, match="contains Python policies and is not signed"):
        check_files(with_python, None)
    private, public = keys("RS256")
    assert check_files(signed(with_python, private), public).has_python


def test_build_sign_and_open(tmp_path: Path) -> None:
    source = tmp_path / "src"
    (source / "org").mkdir(parents=True)
    (source / "org" / "p.rego").write_text("package hookd.org\n")
    (source / "org" / "data.json").write_text('{"a": 1}')
    (source / ".git").mkdir()
    (source / ".git" / "x.rego").write_text("package junk\n")
    private, public = keys("RS256")
    unsigned = build(source, revision="v1", roots=["hookd/org", "org"])
    assert sorted(read_tarball(unsigned)) == [".manifest", "org/data.json", "org/p.rego"]
    bundle = open_bundle(sign_tarball(unsigned, private), public)
    assert (bundle.revision, bundle.manifest.roots, bundle.verified.signed) == ("v1", ("hookd/org", "org"), True)
    with pytest.raises(BundleError, match=r"manifest roots \['elsewhere'\] do not permit"):
        build(source, roots=["elsewhere"])
    resigned = sign_tarball(sign_tarball(unsigned, private), private)  # an old signature is replaced
    assert open_bundle(resigned, public).verified.signed
    assert write_tarball(read_tarball(resigned)) == resigned
