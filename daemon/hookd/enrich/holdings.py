"""What a file read from a dot-tree of the home holds, when its name says nothing (part of the effect model,
docs/policies.md "The effect model"): credential stores will never all be named (glab's config.yml,
~/.databrickscfg, ngrok.yml, Snowflake's connections.toml, MinIO mc's config.json, FileZilla's sitemanager.xml,
…), but what they hold has one shape. A read (or copy, move) of such a file, or a search of such a directory,
is marked `holds: "credential"` when its first bytes hold one of:

* a key whose last word says credential (`token`, `password`, `secret`, `api_key`, `accessKey`,
  `client_secret`, `auth`, `Pass`, …) with a value that is not empty, a placeholder, a number or a boolean, in
  INI/TOML/YAML/JSON/dotenv (`key = v`, `key: v`, `"key": "v"`) or XML (`<Pass>v</Pass>`) shapes;
* a PEM private-key header or a well-known token prefix (the patterns of policies/model_secrets/data.json);
* a URL whose user information holds a password (`postgresql://admin:pw@db/prod`).

Bounded: only paths below a dot-directory (or dotfile) of the home, outside the project; the first
MAX_SNIFF bytes of a regular file only (O_NOFOLLOW|O_NONBLOCK, never a FIFO or a device); a search reads the
directory's own entries only (MAX_DIR_FILES of them), never a walk. Any failure is "not known" (no mark).
TOCTOU: the file is read when the call is decided; what the tool reads a moment later may differ (a file that
gains a token after the decision is not seen): this mark widens what secret_reads stops, it is never a reason
to allow.
"""

from __future__ import annotations

import os
import re
import stat

from hookd.enrich.facts import under
from hookd.types import JSON

MAX_SNIFF = 8 * 1024  # bytes of a file read at decision time
MAX_DIR_FILES = 16  # entries of a searched directory looked at

# The last word of a key that names a credential, and the words before `key` that make it one (`api_key`,
# `accessKey`, `secret_key`, `private_key`, `client_secret`).
_CREDENTIAL_WORDS = frozenset(
    {"token", "authtoken", "password", "passwd", "pwd", "pass", "passphrase", "secret", "auth", "credential",
     "credentials", "apikey", "accesskey", "secretkey", "privatekey", "pat"}
)  # fmt: skip
_KEY_QUALIFIERS = frozenset({"api", "access", "secret", "private", "auth", "master", "account"})
_KEY_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_PAIR = re.compile(
    r"""["']?([A-Za-z_][\w.-]{0,63})["']?[ \t]*[:=][ \t]*"""
    r"""(?:"([^"\n]{0,1024})"|'([^'\n]{0,1024})'|([^\s"',{}\[\]#;]{1,1024}))"""
)
_XML = re.compile(r"<([A-Za-z_][\w.-]{0,63})(?:\s[^<>]{0,256})?>([^<>\n]{1,1024})</\1>")
# policies/model_secrets/data.json's patterns (a test keeps them the same): a PEM private key, AWS, GitHub, Slack
_SHAPES = re.compile(
    r"-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY-----|AKIA[0-9A-Z]{16}|\b(?:ghp_|gho_|ghs_|ghu_|github_pat_)[A-Za-z0-9_]{30,}"
    r"|xox[baprs]-[A-Za-z0-9-]{10,}"
)
# a URL with a password in its user information (RFC 3986 3.2.1: `postgresql://admin:pw@db/x`, `https://u:pw@host`)
_URL_PASSWORD = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]{0,31}://[^\s/:@\"']{1,256}:([^\s/@\"']{1,256})@")
# every word `is_credential_key` takes ends in one of these (a cheap test of a line before its pairs are read)
_HINT = re.compile(r"(?i)token|pass|pwd|secret|auth|credential|key|pat\b")
_PLACEHOLDERS = frozenset({"null", "none", "nil", "true", "false", "yes", "no", "on", "off", "~", "changeme"})


def is_credential_key(key: str) -> bool:
    """`key`'s last word names a credential (`password`, `authtoken`, `accessKey`, `client_secret`), or ends in
    a long one when the name runs its words together (`PGPASSWORD`, `githubtoken`: an environment variable's
    name in one case)."""
    words = [w.lower() for w in _KEY_WORDS.findall(key)]
    if not words:
        return False
    last = words[-1]
    if last == "key" and len(words) > 1:
        return words[-2] in _KEY_QUALIFIERS
    return last in _CREDENTIAL_WORDS or last.endswith(_RUN_TOGETHER)


# The credential words long enough to end a run-together name alone (not `pass`, `pat`, `auth`: `compass`, `oauth`)
_RUN_TOGETHER = tuple(w for w in _CREDENTIAL_WORDS if len(w) >= 5)


def is_secret_value(value: str) -> bool:
    """A value that may be a secret: not empty, a placeholder (`${TOKEN}`, `<your token>`), a number or a flag."""
    value = value.strip()
    if not value or value.lower() in _PLACEHOLDERS or value[0] in "$<{%" or value.isdigit():
        return False
    return len(set(value)) > 1  # `xxxx`, `****`: a mask


def holds_credential(text: str) -> bool:
    """`text` holds a credential by its shape (see the module doc)."""
    if _SHAPES.search(text) or any(is_secret_value(m.group(1)) for m in _URL_PASSWORD.finditer(text)):
        return True
    text = "\n".join(line for line in text.splitlines() if _HINT.search(line))  # lines a credential key may be on
    for match in _PAIR.finditer(text):
        value = next((v for v in match.groups()[1:] if v is not None), "")
        if is_credential_key(match.group(1)) and is_secret_value(value):
            return True
    return any(is_credential_key(m.group(1)) and is_secret_value(m.group(2)) for m in _XML.finditer(text))


def head(path: str, size: int = MAX_SNIFF, *, follow: bool = False) -> str | None:
    """The first `size` bytes of the regular file at `path` (never a FIFO or a device; through a link only with
    `follow`: a dotfiles manager's `~/.gitconfig`)."""
    nofollow = 0 if follow else os.O_NOFOLLOW
    try:
        if not stat.S_ISREG((os.stat if follow else os.lstat)(path).st_mode):  # a device is not even opened
            return None
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | nofollow | os.O_NOCTTY | os.O_CLOEXEC)
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, size).decode("utf-8", "replace")
    except OSError:
        return None
    finally:
        os.close(fd)


def _directory_holds(path: str) -> bool:
    """One of the first MAX_DIR_FILES entries of the directory `path` holds a credential (no walk below it)."""
    try:
        with os.scandir(path) as entries:
            files = [e.path for _, e in zip(range(MAX_DIR_FILES), entries, strict=False)]
    except (OSError, ValueError):
        return False
    return any(holds_credential(text) for p in files if (text := head(p)) is not None)


# A PEM file named as a key store may hold certificates or public keys only (RFC 7468: each block's label says
# what it holds; a private key's ends in `PRIVATE KEY`). Seen whole, such a file is public, whatever its name says.
_PEM_NAMES = (".pem", ".crt", ".cer", ".cert")
_PEM_BLOCK = re.compile(r"-----BEGIN ([A-Z0-9 ]+)-----")


def holds_public_pem_only(path: str) -> bool:
    """`path` names a PEM file read whole here (smaller than MAX_SNIFF) whose every block is a certificate, a
    request, a revocation list or a public key: no private key, so reading it reveals no secret."""
    if not path.lower().endswith(_PEM_NAMES):
        return False
    text = head(path)
    if text is None or len(text) >= MAX_SNIFF:
        return False
    labels = _PEM_BLOCK.findall(text)
    return bool(labels) and not any("PRIVATE" in label for label in labels)


# A dotenv file whose every value names its secret instead of holding it: a 1Password secret reference (`op://vault/
# item/field`, https://developer.1password.com/docs/cli/secret-reference-syntax/; env files of references are what
# `op run --env-file` resolves, and may be checked in: https://developer.1password.com/docs/cli/secrets-environment-
# variables/), another variable's expansion, a number or a flag under a name that is no credential's, or nothing.
# Seen whole, such a file reveals no secret when read, whatever its name says; one literal text value anywhere
# (which may be a secret under any name) and it is judged by its name as before.
_ENV_ASSIGNMENT = re.compile(r"(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_.]*)[ \t]*=[ \t]*(.*)")
_REFERENCE = re.compile(r"op://[^\s/]+/[^\s/]+(?:/[^\s/]+){1,2}")
_EXPANSION = re.compile(r"\$(?:[A-Za-z_][A-Za-z0-9_]*|\{[A-Za-z_][A-Za-z0-9_]*\})")
_FLAGS = frozenset({"true", "false", "yes", "no", "on", "off"})


# A whole-file read carries the comments too: a comment is accounted for only when every word of it is prose (a
# short word of letters, a small number), never a value-like token (`sk_live_…`, `KEY=…`, a long number or word)
# a word of prose: a passphrase of words joined by hyphens (`correct-horse-battery-staple`) is none (review44)
_PROSE_WORD = re.compile(r"""[(\["']*(?:[A-Za-z]{1,16}(?:[-'][A-Za-z]{1,16})?|\d{1,4})[)\]"'.,;:!?]*""")
# The last word of a name whose number is a quantity, not an identifier (a port, a size, a count, a switch)
_QUANTITY_WORDS = frozenset({
    "port", "ports", "size", "count", "timeout", "limit", "max", "min", "workers", "threads", "retries", "ttl",
    "interval", "level", "debug", "replicas", "concurrency", "days", "hours", "minutes", "seconds", "ms", "mb", "kb",
    "gb", "enabled", "disabled", "verbose", "verbosity", "version", "percent", "rate", "width", "height", "depth",
    "bytes", "kib", "mib", "gib", "length", "lines", "items", "attempts", "retry", "pool", "connections", "jobs",
    "parallelism", "memory", "mem", "cpus", "batch", "offset", "delay", "backoff", "year", "weeks",
})  # fmt: skip
# A reference segment (a vault, item, section or field name) is names and small numbers joined by `-_. `
_SEGMENT_WORD = re.compile(r"[A-Za-z]{1,16}|\d{1,4}")
_QUANTITY_DIGITS = 10  # a port, a size, a count; a longer number (or one led by 0) is an identifier or a secret


def _split_value(value: str) -> tuple[str, str] | None:
    """A dotenv value as its reader takes it and the comment after it: the text inside one pair of quotes, or
    before an unquoted ` #`; None for a value this does not read (an open quote: a value continued on the next
    line)."""
    if value[:1] in ("'", '"'):
        end = value.find(value[0], 1)
        rest = value[end + 1 :].strip() if end > 0 else "#"
        return (value[1:end], rest[1:]) if end > 0 and (not rest or rest.startswith("#")) else None
    for mark in (" #", "\t#"):
        if mark in value:
            before, _, comment = value.partition(mark)
            return before.strip(), comment
    return value.strip(), ""


def _is_prose(comment: str) -> bool:
    """Words of prose that name no credential (`# admin password is …` tells one: review44)."""
    words = comment.lstrip("#").split()
    return all(_PROSE_WORD.fullmatch(w) and not is_credential_key(w.strip("()[]\"'.,;:!?")) for w in words)


def _is_reference(value: str) -> bool:
    """1Password's secret reference by its documented grammar, `op://vault/item/[section/]field`
    (https://developer.1password.com/docs/cli/secret-reference-syntax/), each segment a plain name: a segment
    shaped as a value (`op://Dev/stripe/sk_live_51Hq…`) holds the secret it claims to name."""
    inner = value.strip()
    if inner.startswith("{{") and inner.endswith("}}"):
        inner = inner[2:-2].strip()
    if not _REFERENCE.fullmatch(inner):
        return False
    segments = inner.removeprefix("op://").split("/")
    return all(0 < len(s) <= 64 and all(_SEGMENT_WORD.fullmatch(w) for w in re.split(r"[-_. ]", s)) for s in segments)


def _names_no_secret(name: str, value: str) -> bool:
    if not value or _is_reference(value) or _EXPANSION.fullmatch(value):
        return True
    quantity = value.isdigit() and len(value) <= _QUANTITY_DIGITS and (value == "0" or not value.startswith("0"))
    last = (_KEY_WORDS.findall(name) or [""])[-1].lower()  # `DOOR_PIN=4821`, `BANK_ACCOUNT=…`: identifiers
    quantity = quantity and (len(value) == 1 or last in _QUANTITY_WORDS)
    return (quantity or value.lower() in _FLAGS) and not is_credential_key(name)


def holds_no_secret_values(path: str) -> bool:
    """`path` names a dotenv file (`.env` in its name) read whole here whose every byte is accounted for: each line
    blank, a comment of prose, or an assignment of a value that names no secret (see above) with at most a comment
    of prose after it. Reading it reveals none."""
    if ".env" not in os.path.basename(path):
        return False
    text = head(path)
    if text is None or len(text) >= MAX_SNIFF:
        return False
    assigned = 0
    for raw in text.split("\n"):
        line = raw.strip(" \t\r")
        if not line or line.startswith("#"):
            if _is_prose(line):
                continue
            return False
        match = _ENV_ASSIGNMENT.fullmatch(line)
        split = _split_value(match.group(2)) if match else None
        if match is None or split is None or not _names_no_secret(match.group(1), split[0]) or not _is_prose(split[1]):
            return False
        assigned += 1
    return assigned > 0


# A program's settings file named as a credential store (npm's `.npmrc`, `.pypirc`, `.s3cfg`, `rclone.conf`,
# `gradle.properties`: INI, properties and flat TOML shapes, https://docs.npmjs.com/cli/v9/configuring-npm/npmrc/)
# holds its credentials under the program's own keys (`_authToken`, `_auth`, `password`, `secret_key`): seen
# whole, one whose every line is a section, a comment or a setting whose key names no credential (or names one
# with no secret value: `${NPM_TOKEN}`, empty), with no credential's shape anywhere, holds none (blind-benign-17:
# a project `.npmrc` holding only `registry=`). A dotenv file is never judged so (its names are the app's own).
_SETTINGS_NAMES = (".conf", ".cfg", ".cnf", ".ini", ".properties", ".toml")
_SECTION = re.compile(r"\[[^\[\]\n]{1,256}\]")
_SETTING = re.compile(r"([^\s=#;\[][^\s=]{0,255})[ \t]*=[ \t]*(.{0,1024})")


# A value that carries a credential under any key (review44): a signed URL's signature or a token in a query, a
# URL's user and password, an HTTP authorization header, `user:password`, or a known token's shape (ghp_, squ_, …)
_CARRIED = re.compile(
    r"[?&](?:sig|signature|token|access_token|api_key|apikey|key|secret|password|pwd|auth|code)=|://[^/\s@]+:[^/\s@]+@"
    r"|\b(?:authorization|bearer|basic)\b|\A[^\s:/@=]+:[^\s/@]+\Z|\A[a-z]{2,6}_[A-Za-z0-9]{20,}\Z"
    r"|\A(?=\D*\d)(?=[^A-Za-z]*[A-Za-z])[A-Za-z0-9_+=]{24,}\Z",  # a long run of letters and digits: a token
    re.IGNORECASE,
)


def _carries_credential(value: str) -> bool:
    return bool(_CARRIED.search(value))


def _names_credential(key: str) -> bool:
    """A setting's key that names a credential, or a key of any kind (`key`, `gpr.key`: rclone's azureblob `key`)."""
    words = _KEY_WORDS.findall(key)
    return is_credential_key(key) or (bool(words) and words[-1].lower() == "key")


def holds_no_secret_settings(path: str) -> bool:
    """`path` names a settings file (a dotfile, or an INI, properties or TOML name) read whole here whose every
    line is blank, a comment, a section or a setting that holds no credential (see above): reading it reveals none."""
    base = os.path.basename(path)
    if ".env" in base or not (base.startswith(".") or base.lower().endswith(_SETTINGS_NAMES)):
        return False
    text = head(path)
    if text is None or len(text) >= MAX_SNIFF or "\x00" in text or holds_credential(text):
        return False
    settings = 0
    for raw in text.split("\n"):
        line = raw.strip(" \t\r")
        if not line or line[0] in "#;" or _SECTION.fullmatch(line):
            continue
        match = _SETTING.fullmatch(line)
        split = _split_value(match.group(2)) if match else None
        value = split[0] if split else None  # (the whole text's credentials are looked for above, comments too)
        if match is None or value is None or _carries_credential(value):
            return False
        if _names_credential(match.group(1)) and is_secret_value(value):
            return False
        settings += 1
    return settings > 0


# The directories the project's test tools keep their test data in, a key among it being the tests' own (a fixture
# a parser or TLS test loads, checked in with the code): Go's `testdata` ("The go tool will ignore a directory named
# "testdata", making it available to hold ancillary data needed by the tests", https://pkg.go.dev/cmd/go#hdr-
# Test_packages), Rails' `test/fixtures` (https://guides.rubyonrails.org/testing.html#the-low-down-on-fixtures),
# rspec-rails' `spec/fixtures` (its fixture_paths default, https://github.com/rspec/rspec-rails#fixtures) and
# Cypress' `cypress/fixtures` (fixturesFolder, https://docs.cypress.io/app/references/configuration#Folders--Files).
TEST_DATA_DIRS = (("testdata",), ("test", "fixtures"), ("spec", "fixtures"), ("cypress", "fixtures"))


def in_test_data(path: str, project: str) -> bool:
    """`path` is a regular file of the project below one of its test data directories, reached through no link and
    of one name (a link there to `~/.ssh/id_rsa`, or a hard link of it, is the key it names, judged by that name)."""
    if not project or not under(path, project) or path == project:
        return False
    try:
        st = os.lstat(path)  # one name only: a hard link may be another name of a key elsewhere
        if os.path.realpath(path) != path or not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
            return False
    except (OSError, ValueError):
        return False
    parts = path[len(project) :].strip("/").split("/")[:-1]
    return any(tuple(parts[i : i + len(d)]) == d for d in TEST_DATA_DIRS for i in range(len(parts)))


def _in_home_dot_tree(path: str, home: str, project: str) -> bool:
    return path.startswith(home + "/.") and not under(path, project)


def mark_holdings(effects: list[JSON], home: JSON, project: str) -> list[JSON]:
    """`effects` with `holds: "credential"` on each read, copy or move of a home dot-tree file that holds one
    (a search: of a directory one of whose files does), `holds: "public"` on one of a PEM file that holds no
    private key, `holds: "no-secret"` on one of a dotenv file whose values name no secret or of a settings file
    whose settings hold none, `holds: "test-data"` on one of a file below the project's test data; `effects` itself when
    none does."""
    home = home.removesuffix("/") if isinstance(home, str) else ""
    if not home:
        return effects
    out = effects
    for k, effect in enumerate(effects):
        if not isinstance(effect, dict):
            continue
        path = effect.get("path")
        if effect.get("op") not in ("read", "copy", "move") or not isinstance(path, str) or not path:
            continue
        if effect.get("recursive") is not True and holds_public_pem_only(path):
            out = out if out is not effects else list(effects)
            out[k] = {**effect, "holds": "public"}
            continue
        if effect.get("recursive") is not True and in_test_data(path, project):
            out = out if out is not effects else list(effects)
            out[k] = {**effect, "holds": "test-data"}
            continue
        if effect.get("recursive") is not True and (holds_no_secret_values(path) or holds_no_secret_settings(path)):
            out = out if out is not effects else list(effects)
            out[k] = {**effect, "holds": "no-secret"}
            continue
        if not _in_home_dot_tree(path, home, project):
            continue
        if effect.get("recursive") is True:
            found = _directory_holds(path)
        else:
            text = head(path)
            found = text is not None and holds_credential(text)
        if found:
            out = out if out is not effects else list(effects)
            out[k] = {**effect, "holds": "credential"}
    return out
