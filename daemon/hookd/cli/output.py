"""What the CLI prints that more than one command shares (`hookd eval`, with or without --daemon)."""

from __future__ import annotations

import json
from typing import Any


def print_evaluation(result: dict[str, Any], *, as_json: bool) -> None:
    """What `hookd eval` prints, with or without --daemon. The decision id is that of a dry run: it
    appears in the reason as the agent would see it, but no decision log holds it."""
    if as_json:
        print(json.dumps(result, indent=2))
        return
    print(f"decision: {result['decision']}")
    print(f"stdout:   {result['stdout'] or '(nothing)'}")
    print(f"exit:     {result['exit_code']}")
    print("verdicts:" + ("" if result["verdicts"] else " none"))
    for v in result["verdicts"]:
        print(f"  {v['kind']:8} {v['policy']}:{v['rule']}  {v['message']}")
    for note in result["notes"]:
        print(f"note:     {note}")
    print(f"id:       {result['decision_id']} (a dry run: not in the decision log)")
