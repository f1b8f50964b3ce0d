"""A credential a command prints, known by what its words say rather than by a program's table (programs.json
`prints_secret` stays the authority for the programs it describes): blind-shell-15's credential brokers.

- An option that asks for what the program masks: a reveal verb with a credential noun (`glab auth status
  --show-token`, `pulumi stack output --show-secrets`), or a word that is the unmasking itself (`--reveal`,
  `--with-decryption`); `--no-…` asks the opposite. `--with-token` and `--password-stdin` hand one IN, and print
  nothing.
- A command named for its credential, of a program the catalogue does not know (a known one's operands have the
  meaning its entry gives: `grep password src/` searches for a word): a producing verb with a credential noun
  among its command words (`get-access-token`, `secrets get`), a minting verb with a token or an access key
  (`token create`, `create-access-key`: a new credential printed once), or a last command word that is the
  credential itself (`fly auth token`, `doctl auth token`). Listing, setting or creating a SECRET from a value
  (`secret list`, `secret set`, `create secret generic`) prints none.
- A setting read by its name (`heroku config:get NAME`, `npm config get NAME`, `git config --get NAME`) whose
  name says it holds a credential: a credential's words (`_authToken`, `SECRET_KEY`), a header sent with every
  request (git's `http.<url>.extraheader` carries `Authorization: …`), or an app's connection string (an
  environment variable's `…_URL`, `…_URI` or `…_DSN`: DATABASE_URL's userinfo is the database's password; not
  one named for a public address, `SITE_URL`, nor `remote.origin.url`, a repository's address).
- A decryption printed (programs.json `decrypts`: sops', age's and gpg's `-d`/`--decrypt` with no output file
  or in-place option): what was encrypted is what someone meant to keep secret, `sops -d secrets.enc.yaml`
  prints the production values.
- A configuration's outputs printed in clear (programs.json `clear_outputs`): Terraform masks a sensitive output in
  its listing but prints it in plain text under `-raw` and `-json`
  (https://developer.hashicorp.com/terraform/cli/commands/output). Whether an output is sensitive is written in
  the state, most often remote, so the name tells: every output (no name: the sensitive ones among them), or one
  whose name's words are a credential's (`db_admin_password`, `ssh_private_key`; not `cluster_endpoint`)."""

from __future__ import annotations

import re
from itertools import pairwise

from hookd.enrich.effects.options import Parsed
from hookd.enrich.effects.program import Program
from hookd.enrich.holdings import is_credential_key

_REVEAL = frozenset({"show", "reveal", "print", "display", "include", "unmask", "expose", "dump"})
_NOUNS = frozenset({
    "token", "tokens", "secret", "secrets", "password", "passwords", "passwd", "credential", "credentials",
    "creds", "sensitive",
})  # fmt: skip
_UNMASKING = frozenset({"reveal", "unmask", "unmasked", "decryption", "decrypted"})  # not gRPC's `--plaintext` (no TLS)
_PRODUCE = frozenset({
    "print", "get", "show", "reveal", "read", "export", "dump", "fill", "lookup", "view", "output", "display", "cat",
})  # fmt: skip
_MINT = frozenset({"create", "generate", "issue", "mint", "new"})
_MINTED = frozenset({"token", "tokens", "accesskey", "apikey", "credential", "credentials"})
# Words a credential's own command name may carry beside the noun (`print-access-token`, `auth:token`)
_QUALIFIERS = frozenset({"auth", "access", "api", "login", "session", "identity", "id", "refresh", "bearer"})
_COMMAND_WORD = re.compile(r"[a-z][a-z:-]*")
_GETTERS = frozenset({"get", "--get", "--get-all", "--get-regexp", "get-value"})
_HEADERS = frozenset({"header", "extraheader", "headers", "authorization"})
# Words of a connection string's name that say the address is a public one, not a server the app logs in to
_PUBLIC_ADDRESS = frozenset({"public", "site", "base", "app", "web", "callback", "redirect", "home", "cdn", "static"})
# Words of an output's name that say it holds a credential, beside the nouns: a private key, a password's short forms
_KEYS = frozenset({"private", "pwd", "pass", "apikey", "accesskey", "secretkey", "privatekey"})


def reveals_credential(program: Program | None, argv: list[str]) -> bool:
    """The command prints a credential by what its words say (see the module doc)."""
    if any(_reveals(option) for option in argv[1:] if option.startswith("--")) or _gets_credential_setting(argv):
        return True
    return program is None and _names_credential(_command_words(argv))


def decrypted(program: Program, parsed: Parsed) -> list[str]:
    """The files a decryption prints in plain text: the operands of a decrypting option, when no output file or
    in-place option sends the plain text elsewhere."""
    given = {option for option, _ in parsed.options}
    spec = program.decrypts
    if not given & set(spec.get("options", ())) or given & set(spec.get("elsewhere", ())):
        return []
    return [w for w in parsed.operands if w != "-"]


def prints_sensitive_output(program: Program, parsed: Parsed) -> bool:
    """The command prints the configuration's outputs in clear, a sensitive one among them (see the module doc)."""
    spec = program.clear_outputs
    said = [str(w) for w in spec.get("words", ())]
    given = {w.split("=", 1)[0] for w in parsed.spelled[1:] if w.startswith("-")}  # Go's `-raw` as written
    if parsed.operands[: len(said)] != said or not given & set(spec.get("options", ())):
        return False
    names = parsed.operands[len(said) :]
    return not names or any(set(_parts(name)) & (_NOUNS | _KEYS) for name in names)


def _parts(word: str) -> list[str]:
    return [p for p in re.split(r"[^a-z0-9]+", word.lower()) if p]


def _gets_credential_setting(argv: list[str]) -> bool:
    """A configuration getter (`config get`, `config:get`, `config --get`) given a credential setting's name."""
    for at, word in enumerate(argv[1:], 1):
        said = [w.lower() for w in argv[1:at]]
        getter = word.lower().endswith("config:get") or ("config" in said and word.lower() in _GETTERS)
        if getter:
            name = next((w for w in argv[at + 1 :] if not w.startswith("-")), "")
            return bool(name) and _credential_setting(name)
    return False


def _credential_setting(name: str) -> bool:
    """The setting's own name, its last dotted or `:` part, says so (`http.<url>.extraheader`; not the section:
    `credential.helper` names a program)."""
    own = re.split(r"[.:/]", name.rstrip(".:/"))[-1]
    parts = set(_parts(own))
    if is_credential_key(own) or parts & (_NOUNS | _KEYS | _HEADERS):
        return True
    connection = own.isupper() and _parts(own)[-1:] in (["url"], ["uri"], ["dsn"])  # an app's environment
    return connection and not parts & _PUBLIC_ADDRESS


def _reveals(option: str) -> bool:
    parts = _parts(option.split("=", 1)[0])
    if not parts or parts[0] == "no":
        return False
    return bool(set(parts) & _UNMASKING) or bool(set(parts) & _REVEAL and set(parts) & _NOUNS)


def _command_words(argv: list[str]) -> list[str]:
    """The leading non-option words that are command words (lower-case words: no path, URL, digit, quoted
    pattern or identifier)."""
    out: list[str] = []
    for word in argv[1:]:
        if word.startswith("-"):
            continue
        if not _COMMAND_WORD.fullmatch(word) or "/" in word:
            break
        out.append(word)
    return out


def _names_credential(commands: list[str]) -> bool:
    parts = [p for word in commands for p in _parts(word)]
    said = set(parts)
    compounds = {a + b for a, b in pairwise(parts)}
    if said & _PRODUCE and said & _NOUNS:
        return True
    if said & _MINT and (said | compounds) & _MINTED:
        return True
    last = set(_parts(commands[-1])) if len(commands) > 1 else set()  # a lone word may be a search's pattern
    return bool(last & _NOUNS) and last <= _NOUNS | _QUALIFIERS


def prints_none(program: Program, parsed: Parsed, given: set[str]) -> bool:
    """Whether what its options read reaches no output (`openssl pkey -in KEY -pubout`, `openssl rsa -noout -check`)."""
    quiet = program.prints_none
    if not quiet or not parsed.operands:
        return False
    words = given | set(parsed.spelled[1:])  # a single-dash long option its table does not name (`-noout`)
    return parsed.operands[0] in quiet["subcommands"] and bool(words & quiet["quiet"]) and not words & quiet["unless"]
