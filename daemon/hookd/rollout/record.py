"""The fields monitor and shadow layers add to a decision record (docs/decision-log.md): built by the
decision log's writer, off the hot path, with the same masking as the rest of the record."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hookd.types import JSON

if TYPE_CHECKING:
    from hookd.audit.mask import Masker
    from hookd.rollout.observe import Observed


def observed_fields(observed: Observed, mask: Masker) -> dict[str, JSON]:
    """`monitor` (one entry per monitor layer) and `shadow`, or `rollout.skipped` when shed or failed."""
    fields: dict[str, JSON] = {}
    if observed.skipped:
        fields["rollout"] = {"skipped": observed.skipped}
    if observed.monitor:
        fields["monitor"] = [
            {
                "layer": v.layer,
                "decision": v.decision,
                "rules": list(v.rules),
                "reasons": [
                    mask.text(x.message) for x in v.verdicts if x.message and f"{x.policy_id}:{x.rule_id}" in v.rules
                ],
                **({"error": mask.text(v.error)} if v.error else {}),
            }
            for v in observed.monitor
        ]
    shadow = observed.shadow
    if shadow is not None:
        fields["shadow"] = {
            "layer": shadow.layer,
            "enforced": shadow.enforced,
            "decision": shadow.candidate,
            "differs": bool(shadow.transition),
            "transition": shadow.transition,
            "rules": list(shadow.rules),
            "enforced_rules": list(shadow.enforced_rules),
            **({"error": mask.text(shadow.error)} if shadow.error else {}),
        }
    return fields
