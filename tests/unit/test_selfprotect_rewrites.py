"""gaps50b (blind-tamper-18 lines 102 and 103): an interpreter's one-liner that loads an agent's JSON settings, sets or
deletes keys to literal values and dumps the document back is judged by the keys it leaves
(hookd.selfprotect_rewrites, through hookd.selfprotect_edits.shell_texts), as a file tool's edit is; code that does
anything else keeps the write guarded whole."""

from __future__ import annotations

from pathlib import Path

import pytest

from hookd.selfprotect_rewrites import _javascript, _python
from tests.unit.test_selfprotect import shell_outcome

QWEN = '{\n  "model": {"name": "qwen3-coder-plus"}\n}\n'
GEMINI = (
    '{\n  "hooksConfig": {"enabled": true},\n'
    '  "hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": "hookd-shim --client gemini"}]}]}\n}\n'
)
PY = "python3 -c \"import json; p = '{f}'; d = json.load(open(p)); {change}; json.dump(d, open(p, 'w'), indent=2)\""
JS = (
    'node -e \'const fs = require("fs"); const f = "{f}"; const s = JSON.parse(fs.readFileSync(f, "utf8")); '
    '{change}; fs.writeFileSync(f, JSON.stringify(s, null, 2) + "\\n")\''
)


@pytest.mark.parametrize(
    ("line", "outcome"),
    [
        (PY.format(f=".qwen/settings.json", change="d['model']['name'] = 'qwen3-coder-flash'"), "allow"),
        (JS.format(f=".gemini/settings.json", change='s.ui = { theme: "GitHub" }'), "allow"),
        (JS.format(f=".gemini/settings.json", change='s["ui"] = {"theme": "GitHub", hide: [1, 2,]}'), "allow"),
        (PY.format(f=".qwen/settings.json", change="d['disableAllHooks'] = True"), "deny"),
        (JS.format(f=".gemini/settings.json", change="s.hooksConfig.enabled = false"), "deny"),
        (JS.format(f=".gemini/settings.json", change="delete s.hooks"), "deny"),
        (PY.format(f=".gemini/settings.json", change="del d['hooks']['BeforeTool']"), "deny"),
        # not a rewrite of literals: the write stays guarded whole
        (PY.format(f=".qwen/settings.json", change="import os; d['model']['name'] = os.environ['M']"), "deny"),
        (JS.format(f=".gemini/settings.json", change="s.ui = theme"), "deny"),
        (JS.format(f=".gemini/settings.json", change="s[k] = 1"), "deny"),
    ],
)
def test_an_interpreters_rewrite_is_judged_by_the_keys_it_leaves(
    line: str, outcome: str, world: tuple[Path, Path]
) -> None:
    home, project = world
    for name, text in (("qwen", QWEN), ("gemini", GEMINI)):
        (project / f".{name}").mkdir()
        (project / f".{name}" / "settings.json").write_text(text)
    assert shell_outcome(home, project, line) == outcome


@pytest.mark.parametrize(
    "code",
    [
        "import json; d = json.load(open('a.json')); d['x'] = 1; json.dump(d, open('a.json', 'w')); print(1)",
        "import json; d = json.load(open('a.json')); d['x'] = 1; json.dump(d, open('b.json', 'w'))",
        "import json; d = json.load(open('a.json', 'a')); d['x'] = 1; json.dump(d, open('a.json', 'w'))",
        "import json; d = json.load(open('a.json')); d['x'] = 1",  # no dump
        "import json; d = json.load(open('a.json')); d['x'] += 1; json.dump(d, open('a.json', 'w'))",
    ],
)
def test_python_that_does_more_is_no_rewrite(code: str) -> None:
    assert _python(code) is None


def test_each_spelling_of_load_and_dump_is_one_rewrite() -> None:
    load = "from pathlib import Path; import json; d = json.loads(Path('a.json').read_text()); d['x'] = [1]; "
    assert _python(load + "Path('a.json').write_text(json.dumps(d))") == ("a.json", [(("x",), [1], False)])
    assert _python(load + "open('a.json', 'w').write(json.dumps(d, indent=2))") == ("a.json", [(("x",), [1], False)])
    code = "const s = JSON.parse(require('fs').readFileSync('a.json')); s.a.b = null; "
    assert _javascript(code + "require('fs').writeFileSync('a.json', JSON.stringify(s))") == (
        "a.json",
        [(("a", "b"), None, False)],
    )
    assert _javascript(code + "require('fs').writeFileSync('b.json', JSON.stringify(s))") is None
