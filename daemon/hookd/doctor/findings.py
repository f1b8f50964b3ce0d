"""One finding of `hookd doctor`: a fact that is fine, or a problem with the command or edit that fixes it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Finding:
    check: str
    ok: bool
    detail: str
    fix: str = ""

    def line(self) -> str:
        if self.ok:
            return f"ok       {self.check}: {self.detail}"
        return f"PROBLEM  {self.check}: {self.detail}" + (f"; fix: {self.fix}" if self.fix else "")
