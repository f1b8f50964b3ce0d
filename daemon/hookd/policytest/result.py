"""One test's outcome, for `hookd test`: a Rego test rule, a case file's case or a corpus line."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TestResult:
    name: str
    status: str  # PASS, FAIL, ERROR, SKIP; GAP (a listed gap), OUTSIDE (outside the aims) for corpus cases
    detail: str = ""
    category: str = ""  # corpus cases only (hookd.policytest.corpus)
    attack: bool | None = None
