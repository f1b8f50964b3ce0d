"""What a program runs (docs/policies.md, "The effect model"): code handed by an option, an operand, the
environment or stdin; a script file, with the flow that made it when the line wrote, fetched or decoded it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hookd.enrich.effects.catalogue import Hook, Program
from hookd.enrich.effects.handed import (
    shell_escapes,
)
from hookd.enrich.effects.ledger import CommandView, Followups, Ledger, Place
from hookd.enrich.effects.options import Parsed
from hookd.enrich.effects.words import (
    _SECRET_HINT,
    SHELLS,
    STDIN_FILES,
    _code_operands,
    _dynamic,
    _recipes,
    _short_spellings,
)


class CodeRuns:
    """The exec effects of one line, recorded into its ledger; what is to be walked goes to `Followups`."""

    __slots__ = ("ledger",)

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    def hooks(self, program: Program, parsed: Parsed, view: CommandView, follow: Followups) -> None:
        for hook in program.runs:
            if hook.kind == "option":
                for option, value in parsed.options:
                    if option == hook.option and value is not None and value.startswith(hook.prefix):
                        self._handed(program.name, value[len(hook.prefix) :], hook, follow)
            elif hook.kind == "operand":
                operands = _code_operands(program, parsed)
                if hook.index < len(operands) and not any(o in program.code_file_options for o, _ in parsed.options):
                    self._handed(program.name, operands[hook.index], hook, follow, code=True)
            elif hook.kind == "env":
                value = view.env.get(hook.name)
                if value is not None:
                    self._handed(program.name, value, hook, follow)
            elif hook.kind == "argv-code" and parsed.operands[: len(hook.subcommands)] == list(hook.subcommands):
                text = " ".join(parsed.operands[len(hook.subcommands) :])
                self._handed(program.name, text, Hook("option", code=True, lang=hook.lang), follow, code=True)
        self._code_words(program, parsed, view, follow)

    def _code_words(self, program: Program, parsed: Parsed, view: CommandView, follow: Followups) -> None:
        """Code in a file an option names (`make -f FILE`), or in a `+CMD` operand (`vim +CMD`)."""
        if program.code_file_lang:
            for option, value in parsed.options:
                if option in program.code_file_options and value is not None:
                    self._code_file(program, value, view, follow)
        if program.stdin_lang and view.stdin == "text" and view.stdin_text:  # `printf '!cmd\nq\n' | ed`
            self._handed(program.name, view.stdin_text, Hook("option", code=True, lang=program.stdin_lang), follow)
        if program.plus_code:
            for word in parsed.operands:
                if word.startswith("+") and len(word) > 1:
                    self._handed(program.name, word[1:], Hook("option", code=True, lang=program.plus_code), follow)

    def _handed(self, name: str, text: str, hook: Hook, follow: Followups, *, code: bool = False) -> None:
        """`text` is run by `name`: a command line (parsed as one) or code in hook.lang."""
        if hook.code or code:
            lang = hook.lang or name
            if lang == "sh":
                follow.scripts.append(text)
            elif follow.code is None:
                follow.code = (lang, text)
            follow.scripts.extend(shell_escapes(lang, text))
            # `$` in another language's code is that language's own (`awk '{print $1}'`): the text is known
            self.ledger.add(
                "exec", None, name, code={"lang": lang, "text": text}, known=lang != "sh" or not _dynamic(text)
            )
            return
        self.ledger.add(
            "exec", None, name, code={"lang": "sh", "text": text}, known=not _dynamic(text.split(" ", 1)[0])
        )
        follow.scripts.append(text)

    def _code_file(self, program: Program, value: str, view: CommandView, follow: Followups) -> None:
        """`make -f FILE`, `awk -f FILE`: the code is in FILE; on stdin, it is what stdin gives."""
        lang = program.code_file_lang
        if value in STDIN_FILES:
            text = view.stdin_text if view.stdin == "text" else None
            if text is None:
                self.stdin_code(program.name, view.stdin if view.stdin != "none" else "unknown")
                return
            self.ledger.add("exec", None, program.name, code={"lang": lang, "text": text})
            follow.scripts.extend(_recipes(text) if lang == "make" else [])
            if lang != "make" and follow.code is None:
                follow.code = (lang, text)

    def run_file(self, placed: Mapping[str, Any], name: str, lang: str, follow: Followups) -> None:
        """A file run as a program or script: a file the line wrote with known text is parsed; one it
        downloaded, decoded or wrote otherwise is code hookd cannot see (`flow`)."""
        path = str(placed.get("path") or "")
        raw = str(placed.get("raw", ""))
        if raw.startswith(("<(", ">(")) or path in STDIN_FILES:
            return
        flow = self.ledger.made(path) if not _dynamic(raw) else ""
        text = self.ledger.contents.get(path) if flow == "write" else None
        if text is not None and lang == "sh":
            follow.scripts.append(text)
            self.ledger.add("exec", placed, name, code={"lang": lang, "text": text})
            return
        known = not flow and not _dynamic(raw)
        extra: dict[str, Any] = {"flow": flow} if flow else {}
        self.ledger.add("exec", placed, name, code={"lang": lang, "text": ""}, known=known, **extra)

    def stdin_code(self, name: str, origin: str) -> None:
        """A shell or interpreter runs what its stdin gives, which is not known text."""
        extra: dict[str, Any] = {"flow": origin, "through": "stdin"} if origin in ("fetch", "decode") else {}
        self.ledger.add(
            "exec", None, name, code={"lang": "sh" if name in SHELLS else name, "text": ""}, known=False, **extra
        )

    def script(self, program: Program, parsed: Parsed, view: CommandView, place: Place, follow: Followups) -> None:
        """A shell or interpreter: its first operand is the script it runs (unless code came by an option)."""
        options = {o for o, _ in parsed.options}
        if (program.script_operand == "sh" and any(o in ("-c",) for o in options)) or "-" + "c" in _short_spellings(
            view.argv
        ):
            return
        if any(h.kind == "option" and h.option in options for h in program.runs) or "-m" in options or "-c" in options:
            return
        if not parsed.operands:
            return
        first = parsed.operands[0]
        if first.startswith(("<(", ">(")):
            self.ledger.add(
                "exec",
                None,
                view.name,
                code={"lang": program.script_operand, "text": ""},
                known=False,
                flow=view.substituted or "substitution",
                through="substitution",
            )
            return
        if first in STDIN_FILES:
            return
        self.run_file(place(first), view.name, program.script_operand, follow)
        for word in parsed.operands[1:]:
            if _SECRET_HINT.search(word) and not word.startswith("-"):
                self.ledger.add("read", place(word), view.name, guess=True)
