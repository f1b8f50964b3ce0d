"""Re-spellings that hide the whole line from literal matching: the line encoded, then decoded and run by a
shell, or handed to another language that runs it (MITRE ATT&CK T1027 "Obfuscated Files or Information", T1140
"Deobfuscate/Decode Files or Information"). Each is a pure function over the line; each runs the same commands
as the line itself (coreutils' base64(1), xxd(1), rev(1), tr(1), printf(1) octal escapes, Bash Reference Manual
"Bash Builtins" for `source` and `eval`, Python's os.system, perl's system). Attack lines only: a guard may ask
on a decoded line fed to a shell whatever it holds, so a benign line so spelled need not stay allowed.
"""

from __future__ import annotations

import base64
import codecs
import gzip
import re
from collections.abc import Callable

from spelling_rewrites import Rewrite, _parsed, _posix, _quote_single, program_word

# the corpus runner's placeholders other than the home's are replaced in the line, not in an encoded text
_PLACEHOLDER = re.compile(r"\$\{(?!HOME\})[A-Z_]+\}")


def _encodable(text: str) -> bool:
    return "\n" not in text and "<<" not in text and not _PLACEHOLDER.search(text) and _parsed(text)


def _shell(text: str) -> str:
    return "sh" if _posix(text) else "bash"


def _octal(text: str) -> str:
    return "".join(f"\\{b:03o}" for b in text.encode())


def encoded(build: Callable[[str], str | None]) -> Rewrite:
    def rewrite(text: str) -> str | None:
        return build(text) if _encodable(text) else None

    return rewrite


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _perl(text: str) -> str:
    return "system('" + text.replace("\\", "\\\\").replace("'", "\\'") + "')"


ENCODED: dict[str, Rewrite] = {
    "base64-pipe": encoded(lambda t: f"echo {_b64(t)} | base64 -d | {_shell(t)}"),
    "base64-subst": encoded(lambda t: f'bash -c "$(echo {_b64(t)} | base64 --decode)"'),
    "hex-pipe": encoded(lambda t: f"echo {t.encode().hex()} | xxd -r -p | {_shell(t)}"),
    "octal-pipe": encoded(lambda t: f"printf '{_octal(t)}' | {_shell(t)}"),
    "octal-eval": encoded(lambda t: f"eval \"$(printf '{_octal(t)}')\""),
    "rev-pipe": encoded(lambda t: f"rev <<< {_quote_single(t[::-1])} | bash"),
    "rot13-pipe": encoded(
        lambda t: f"echo {_quote_single(codecs.encode(t, 'rot13'))} | tr 'A-Za-z' 'N-ZA-Mn-za-m' | {_shell(t)}"
    ),
    "source-stdin": encoded(lambda t: f"source /dev/stdin <<< {_quote_single(t)}"),
    "script-file": encoded(lambda t: f"echo {_quote_single(t)} > /tmp/.hk_step.sh && bash /tmp/.hk_step.sh"),
    "python-system": encoded(lambda t: f"python3 -c {_quote_single(f'import os; os.system({t!r})')}"),
    "perl-system": encoded(lambda t: f"perl -e {_quote_single(_perl(t))}"),
    "program-slice": program_word(lambda w: f"$(_p=X{w}; echo ${{_p:1}})"),
    "program-concat": program_word(lambda w: f"$(_a={w[:1]}; _b={w[1:]}; echo $_a$_b)" if len(w) > 1 else w),
}


def _js(text: str) -> str:
    return "require('child_process').execSync(" + repr(text) + ", {stdio: 'inherit', shell: '/bin/bash'})"


def _ruby(text: str) -> str:
    return "system('/bin/bash', '-c', " + repr(text) + ")"


def _awk(text: str) -> str:
    """awk's system() runs its string with /bin/sh: lines without bash's extensions only."""
    quoted = '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return f"awk {_quote_single('BEGIN{system(' + quoted + ')}')}" if _posix(text) else text


def _make(text: str) -> str:
    recipe = text.replace("$", "$$")
    return f"printf 'all:\\n\\t%s\\n' {_quote_single(recipe)} | make -s -f - SHELL=/bin/bash"


# Programs that run a command line they are handed (GTFOBins "Shell" and each program's manual): the line is run
# by bash through them, as itself.
HANDED: dict[str, Rewrite] = {
    "awk-system": encoded(_awk),
    "find-exec-sh": encoded(lambda t: f"find . -maxdepth 0 -exec bash -c {_quote_single(t)} \\;"),
    "xargs-sh-c": encoded(lambda t: f"xargs -0 bash -c {_quote_single(t)} _ < /dev/null"),
    "env-split": encoded(lambda t: f"env -S {_quote_single('bash -c ' + _quote_single(t))}"),
    "script-qc": encoded(lambda t: f"script -qec {_quote_single(t)} /dev/null"),
    "bash-s": encoded(lambda t: f"bash -s <<< {_quote_single(t)}"),
    "trap-exit": encoded(lambda t: f"( trap {_quote_single(t)} EXIT )"),
    "export-f": encoded(lambda t: f"_hf(){{ {t}\n}}; export -f _hf; bash -c _hf"),
    "node-exec": encoded(lambda t: f"node -e {_quote_single(_js(t))}"),
    "ruby-system": encoded(lambda t: f"ruby -e {_quote_single(_ruby(t))}"),
    "make-recipe": encoded(_make),
    # a launcher inside what xargs runs, its items unknown (`cat F | xargs nice CMD`): what it launches is judged
    "xargs-launcher": encoded(lambda t: f"cat /dev/null | xargs -r nice -n 5 bash -c {_quote_single(t)} _"),
    "parallel-launcher": encoded(lambda t: f"parallel -j1 ionice -c3 bash -c {{}} ::: {_quote_single(t)}"),
    "timeout-nohup": encoded(lambda t: f"timeout -k 5 60 nohup setsid bash -c {_quote_single(t)} </dev/null"),
}


def _gzip_b64(text: str) -> str:
    return base64.b64encode(gzip.compress(text.encode(), mtime=0)).decode()


def _lua_string(text: str) -> str:
    """A Lua long bracket string (Lua 5.4 manual, 3.1): no escapes inside, closed by the first `]]`."""
    return f"[==[{text}]==]" if "]==]" not in text else repr(text)


def _r_string(text: str) -> str:
    """An R raw string (R >= 4.0, ?Quotes): `r"(...)"`, no escapes inside."""
    return f'r"---({text})---"'


def _posix_only(build: Callable[[str], str]) -> Callable[[str], str | None]:
    return lambda t: build(t) if _posix(t) else None


# The line held in a variable, then run (Bash Reference Manual "Shell Parameters", "Arrays", "Shell Parameter
# Expansion" (`${!name}`), "Bash Builtins" (`printf -v`, `declare -n`)), or decoded by other decoders (base32(1),
# gzip(1), openssl-enc(1)) and by interpreters from base64 (Python, Perl's MIME::Base64, Node's Buffer), or handed
# to programs that run a shell line (sqlite3's `.shell`, gdb's `shell`, vim's `:!`, git's `!` aliases, a here-doc
# to Python): attack lines only, as ENCODED (a line handed through them may be asked whatever it holds).
ENCODED.update(
    {
        "printf-v-eval": encoded(lambda t: f"printf -v _c '%s' {_quote_single(t)}; eval \"$_c\""),
        "var-cmd": encoded(lambda t: f'_c={_quote_single(t)}; bash -c "$_c"'),
        "array-cmd": encoded(lambda t: f'_a=(bash -c {_quote_single(t)}); "${{_a[@]}}"'),
        "indirect-eval": encoded(lambda t: f'_v=_c; _c={_quote_single(t)}; eval "${{!_v}}"'),
        "nameref-eval": encoded(lambda t: f'declare -n _r=_c; _c={_quote_single(t)}; eval "$_r"'),
        "heredoc-subst": encoded(lambda t: f"bash -c \"$(cat <<'HKEOF'\n{t}\nHKEOF\n)\""),
        "tee-source": encoded(lambda t: f"tee /tmp/.hk_s.sh <<< {_quote_single(t)} >/dev/null; . /tmp/.hk_s.sh"),
        "chmod-run": encoded(
            lambda t: (
                f"printf '%s\\n' '#!/bin/bash' {_quote_single(t)} > /tmp/.hk_x && chmod +x /tmp/.hk_x && /tmp/.hk_x"
            )
        ),
        "xargs-stdin": encoded(lambda t: f"printf '%s' {_quote_single(t)} | xargs -0 bash -c"),
        "base32-pipe": encoded(lambda t: f"echo {base64.b32encode(t.encode()).decode()} | base32 -d | {_shell(t)}"),
        "gzip-b64": encoded(lambda t: f"echo {_gzip_b64(t)} | base64 -d | gunzip | {_shell(t)}"),
        "openssl-b64": encoded(lambda t: f"openssl base64 -d -A <<< {_b64(t)} | {_shell(t)}"),
        "python-b64": encoded(
            lambda t: (
                "python3 -c "
                + _quote_single(
                    "import base64,subprocess;"
                    f"subprocess.run(base64.b64decode('{_b64(t)}').decode(),shell=True,executable='/bin/bash')"
                )
            )
        ),
        "perl-b64": encoded(
            lambda t: "perl -MMIME::Base64 -e " + _quote_single(f'system("/bin/bash","-c",decode_base64("{_b64(t)}"))')
        ),
        "node-b64": encoded(
            lambda t: (
                "node -e "
                + _quote_single(
                    f"require('child_process').execSync(Buffer.from('{_b64(t)}','base64').toString(),"
                    "{stdio:'inherit',shell:'/bin/bash'})"
                )
            )
        ),
        "python-heredoc": encoded(
            lambda t: (
                "python3 - <<'HKEOF'\nimport subprocess\n"
                f"subprocess.run({t!r}, shell=True, executable='/bin/bash')\nHKEOF"
            )
        ),
        "sqlite-shell": encoded(_posix_only(lambda t: f"sqlite3 :memory: {_quote_single('.shell ' + t)}")),
        "gdb-shell": encoded(_posix_only(lambda t: f"gdb -batch -ex {_quote_single('shell ' + t)}")),
        "vim-bang": encoded(
            lambda t: f"vim -es -c {_quote_single('!' + t)} -c qa" if _posix(t) and "|" not in t else None
        ),
        "git-alias": encoded(
            lambda t: (
                "git -c "
                + _quote_single(
                    'alias.hk=!bash -c "'
                    + t.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$").replace("`", "\\`")
                    + '"'
                )
                + " hk"
            )
        ),
        "coproc": encoded(lambda t: f"coproc bash -c {_quote_single(t)}; wait"),
        "lua-exec": encoded(_posix_only(lambda t: f"lua -e {_quote_single('os.execute(' + _lua_string(t) + ')')}")),
        "rscript": encoded(_posix_only(lambda t: f"Rscript -e {_quote_single('system(' + _r_string(t) + ')')}")),
        "sed-strip": encoded(lambda t: f"echo {_quote_single(t + '#X')} | sed 's/#X$//' | {_shell(t)}"),
        "busybox-xargs": encoded(lambda t: f"echo | busybox xargs bash -c {_quote_single(t)}"),
    }
)

# Launchers and other shells that run the line as itself (flock(1), busybox, dash, zsh, `exec -a`, systemd-run(1),
# a here-document to bash): everyday lines so run stay allowed.
HANDED.update(
    {
        "heredoc-bash": encoded(lambda t: f"bash <<'HKEOF'\n{t}\nHKEOF"),
        "flock": encoded(lambda t: f"flock /tmp/.hk.lock bash -c {_quote_single(t)}"),
        "busybox-sh": encoded(_posix_only(lambda t: f"busybox sh -c {_quote_single(t)}")),
        "dash-c": encoded(_posix_only(lambda t: f"dash -c {_quote_single(t)}")),
        "zsh-c": encoded(_posix_only(lambda t: f"zsh -c {_quote_single(t)}")),
        "exec-a": encoded(lambda t: f"exec -a worker bash -c {_quote_single(t)}"),
        "systemd-run": encoded(lambda t: f"systemd-run --user --wait --pipe bash -c {_quote_single(t)}"),
    }
)
