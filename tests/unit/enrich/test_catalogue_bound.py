"""The catalogue keeps what it has looked up, but not a miss for every distinct word a daemon ever reads
(enrich/effects/catalogue.py, `_MAX_REMEMBERED`): memory stays bounded whatever texts the agent writes."""

from __future__ import annotations

from hookd.enrich.effects import catalogue as catalogue_module
from hookd.enrich.effects.catalogue import catalogue


def test_misses_past_the_bound_are_not_kept() -> None:
    known = catalogue()
    for k in range(catalogue_module._MAX_REMEMBERED + 500):
        assert known.get(f"no-such-program-{k}") is None
    assert len(known._built) <= catalogue_module._MAX_REMEMBERED
    assert known.get("rm") is not None
