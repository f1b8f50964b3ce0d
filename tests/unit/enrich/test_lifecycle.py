"""A lifecycle rule that expires every object of a store (enrich/effects/lifecycle.py): read from the document's
shape across providers; a narrowed, disabled or old-versions-only rule is no whole-store delete."""

from __future__ import annotations

import json

import pytest

from hookd.enrich.effects.lifecycle import expires_whole_store

_S3_ALL = {"Rules": [{"ID": "x", "Status": "Enabled", "Filter": {}, "Expiration": {"Days": 1}}]}
_GCS_ALL = {"rule": [{"action": {"type": "Delete"}, "condition": {"age": 1}}]}
_AZURE_ALL = {
    "rules": [
        {"enabled": True, "name": "w", "type": "Lifecycle",
         "definition": {"actions": {"baseBlob": {"delete": {"daysAfterModificationGreaterThan": 1}}},
                        "filters": {"blobTypes": ["blockBlob"]}}}
    ]
}  # fmt: skip


_S3_OLD_CALL = {"Rules": [{"Prefix": "", "Expiration": {"Days": 3}}]}  # an empty prefix narrows nothing


@pytest.mark.parametrize("document", [_S3_ALL, _GCS_ALL, _AZURE_ALL, _S3_OLD_CALL])
def test_a_rule_expiring_every_object_is_found(document: object) -> None:
    assert expires_whole_store([json.dumps(document)])


@pytest.mark.parametrize(
    "document",
    [
        {"Rules": [{"Status": "Enabled", "Filter": {"Prefix": "tmp/"}, "Expiration": {"Days": 7}}]},
        {"Rules": [{"Status": "Disabled", "Filter": {}, "Expiration": {"Days": 1}}]},
        {"Rules": [{"Status": "Enabled", "NoncurrentVersionExpiration": {"NoncurrentDays": 30}}]},
        {"Rules": [{"Status": "Enabled", "Expiration": {"ExpiredObjectDeleteMarker": True}}]},
        {"rule": [{"action": {"type": "SetStorageClass"}, "condition": {"age": 30}}]},
        {"rule": [{"action": {"type": "Delete"}, "condition": {"age": 1, "matchesPrefix": ["logs/"]}}]},
        {"Rules": [{"Status": "Enabled", "Filter": {"Tag": {"Key": "tmp", "Value": "1"}}, "Expiration": {"Days": 1}}]},
    ],
)
def test_a_narrowed_disabled_or_old_versions_rule_is_not(document: object) -> None:
    assert not expires_whole_store([json.dumps(document)])


def test_text_that_is_no_json_document_is_not() -> None:
    assert not expires_whole_store(["acme-prod", "{not json", "[1, 2]"])
