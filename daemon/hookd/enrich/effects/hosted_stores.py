"""A hosted store deleted with what it holds, through the command line of a program that manages hosted resources
(programs.json `hosted`: cloud CLIs, a cluster's client, infrastructure-as-code tools, a database server's client
given another host). Its effect is the `delete` of `what: "hosted"` a forge API's DELETE and an MCP server's
recursive delete have (entries.rest_deletes, enrich/hosted_deletes.py), asked by destructive_shell's
`remote-resource-delete`: gone for everyone, from every machine, beyond any undo on this one.

Known by what the command's words say, the same reading enrich/hosted_deletes.py gives a tool's name and arguments,
not by a list of commands: a delete verb among its command words or option names (`delete`, `destroy`, `drop`,
`terminate`, `rm`, …), and what goes is a whole: the words name a store of others (a bucket, project, database,
table, namespace, volume claim, resource group), an option takes the contents along (`--recursive`, `--all`,
`--all-collections`, `--cascade`, `--purge`), the verb is a batch, the program's every delete takes all its
configuration manages (`terraform destroy`, `pulumi destroy`: `whole`), the program's commands act on a store
by nature (`mysqladmin drop`: `store`; redis' FLUSHALL: `deletes`), a lifecycle rule handed to it expires every
object of the store (effects/lifecycle.py), or a sync deletes from it what a directory the line made empty lacks
(`hosted.mirror`), or a local engine's stores given to its delete by its own whole listing of them (effects/
listed_all.py). A server or an app deleted goes with the disks and add-ons it holds unless an option keeps them
(`--keep-disks`); a local engine's sweep of its named volumes (`docker volume prune -a`) takes other projects'
data (`hosted.own`). A rehearsal deletes nothing (`plan -destroy`, `--dry-run`, `--preview-only`, `--what-if`); one
object, one pod, one file is the everyday removal of one named thing (`aws s3 rm s3://b/key`, `kubectl delete pod -l
app=web`). A database client's delete counts only against another host (`-h db.prod.internal`, a `mongodb://` URL):
a local test database is the developer's own; so does a container engine's, against another machine's daemon
(`DOCKER_HOST=ssh://…`, `--context prod`, or the context an earlier `docker context use prod` on the line chose).

A program's entry names what is a store in its own terms (`hosted.stores`: a Neon or PlanetScale branch is a
database, a Linode a server, a Netlify site or a Fly app holds its deploys, machines and volumes), the verbs that
empty one (`hosted.empties`: Heroku's `pg:reset`, Neon's `branches reset`, Supabase's `db reset`), the top-level
verbs that remove the whole deployment the project configures (`hosted.root`: `wrangler delete`, `sst remove`,
`serverless remove`, `flyctl destroy`), and the commands that act on a local stack unless an option names the
hosted one (`hosted.local_unless`: `supabase db reset` resets the local database, `--linked` or `--db-url` the
hosted one). A virtual server or instance is a store too: its disks go with it (Linode:
https://techdocs.akamai.com/linode-api/reference/delete-linode-instance; `gcloud compute instances delete`'s boot
disk: https://cloud.google.com/sdk/gcloud/reference/compute/instances/delete)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from hookd.enrich.effects.code import left_empty
from hookd.enrich.effects.ledger import CommandView, Ledger, Place
from hookd.enrich.effects.lifecycle import expires_whole_store
from hookd.enrich.effects.listed_all import lists_every_own
from hookd.enrich.effects.options import Parsed
from hookd.enrich.effects.program import Program
from hookd.enrich.hosted_words import _STORES, _VERBS, _WHOLE
from hookd.enrich.tool_args import words

# Stores beyond an MCP tool's names: a table of items, an SQL server's databases, a claim on a volume's data, a
# resource group (https://learn.microsoft.com/en-us/cli/azure/group: every resource in it goes with it), Firestore's
# collections, a stack of everything a template manages (CloudFormation's delete-stack, as `terraform destroy`)
_MORE_STORES = frozenset({
    "table", "tables", "sql", "volume", "volumes", "persistentvolumeclaim", "persistentvolumeclaims",
    "persistentvolume", "persistentvolumes", "group", "groups", "collections", "firestore", "stack", "stacks",
    "server", "servers", "instance", "instances",
})  # fmt: skip
# What goes with what it holds though no store of others: a server deleted takes its disks (a droplet's disk is
# destroyed with it: https://docs.digitalocean.com/reference/doctl/reference/compute/droplet/delete/; an instance's
# boot disk unless kept: https://cloud.google.com/sdk/gcloud/reference/compute/instances/delete; an EC2 root
# volume's DeleteOnTermination), an app takes its add-ons, databases included (`heroku apps:destroy`:
# https://devcenter.heroku.com/articles/heroku-cli-commands; `fly apps destroy`, its volumes:
# https://fly.io/docs/flyctl/apps-destroy/)
_HOLDERS = frozenset({
    "instance", "instances", "droplet", "droplets", "server", "servers", "vm", "vms", "machine", "machines",
    "app", "apps",
})  # fmt: skip
# An option that keeps what the server holds (gcloud's `--keep-disks=all`): then only the server goes. It keeps
# the store only when it names what the server holds (`--keep-history` keeps a record, no data) and its value
# names all of it (`--keep-disks=boot` keeps the boot disk: the data disks go)
_KEEPS = frozenset({"keep", "retain", "preserve"})
_HELD = frozenset({"disk", "disks", "volume", "volumes", "data", "database", "databases", "storage", "addons"})
_WHOLE_VALUE = frozenset({"", "all", "true", "yes", "1"})
# A verb that deletes many at once (`az storage blob delete-batch`), and `--all` beside `--recursive`
_MANY = frozenset({"batch", "all"})
# Words of a rehearsal, which deletes nothing
_TRIAL = frozenset({"dry", "dryrun", "preview", "plan", "whatif", "what-if"})  # the AWS and Azure CLIs' `--dryrun`
# Documented short names that stand for a verb or a store: s3's `rb` (remove bucket:
# https://docs.aws.amazon.com/cli/latest/reference/s3/rb.html), kubectl's short resource names
# (https://kubernetes.io/docs/reference/kubectl/#resource-types)
_SHORT = {
    "rb": ("remove", "bucket"), "ns": ("namespace",), "pvc": ("persistentvolumeclaim",),
    "pv": ("persistentvolume",),
}  # fmt: skip
_COMMAND_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_:.-]*")
# rclone's `remote:path` (https://rclone.org/docs/#syntax-of-remote-paths): not `:backend:` given on the fly, not a
# Windows drive letter, not a path (`./a:b`)
_REMOTE_PREFIX = re.compile(r"([A-Za-z0-9_][\w.-]+):(?!//)")
_LOCAL = frozenset({"localhost", "127.0.0.1", "::1", "0.0.0.0", "ip6-localhost"})


def hosted_store_deletes(ledger: Ledger, program: Program, parsed: Parsed, view: CommandView, place: Place) -> None:
    """The `delete` of a hosted store with everything in it that the command makes (see the module doc)."""
    spec, env = program.hosted, view.env
    if _selects(ledger, program, parsed):
        return
    host = _host(spec, parsed) or next((env[v] for v in spec.get("host_env", ()) if env.get(v)), "")
    host = host or ledger.selected.get(program.name, "") or _remote_flag(spec, parsed)
    host = _hostname(host) if "://" in host else host
    hosts = bool(spec.get("host") or spec.get("remote_prefix"))
    local = hosts and (not _remote(host) or host in spec.get("local", ()))
    commands = _command_words(parsed.operands)
    if _local_stack(spec, parsed, commands):
        return
    said = _parts(commands) | _parts(_code(spec, parsed))
    named = _option_words(spec, parsed)
    if _rehearses(spec, parsed, commands) or _keeps_held(spec, parsed):
        return
    if local and not (_sweeps_own(spec, said, named) or lists_every_own(spec, program.name, parsed.operands, view.fed)):
        return
    listed = {w.lower() for w in commands} & set(spec.get("deletes", ()))
    mirrored = _mirrors_nothing(ledger, spec, parsed, commands, place)
    if mirrored is False:
        return
    scheduled = bool(mirrored) or expires_whole_store([v for _, v in parsed.options if v] + parsed.operands)
    root = bool(commands) and commands[0].lower() in spec.get("root", ())
    if not ((said | named) & (_VERBS | set(spec.get("empties", ()))) or listed or root or scheduled):
        return
    stores = _parts([w for w in commands if not any(c.isdigit() for c in w)]) | _parts(_code(spec, parsed))
    whole = bool(spec.get("whole") or spec.get("store") or listed or root) or _holder_deleted(commands)
    own = _MORE_STORES | set(spec.get("stores", ()))
    many = (said | named) & (_WHOLE | _MANY) or _takes_own(spec, parsed, commands) or _unnamed_many(parsed)
    if not (scheduled or whole or stores & (_STORES | own) or many):
        return
    name = next((w for w in parsed.operands if w not in commands), "") or host
    ledger.add("delete", None, program.name, what="hosted", name=name, recursive=True)


def _takes_own(spec: Mapping[str, Any], parsed: Parsed, commands: list[str]) -> bool:
    """`compose down -v`: a command (`hosted.takes_own`) given the option that removes the stores it declared too
    (an option of that command only: `docker run -v` mounts a volume)."""
    given = {w.split("=", 1)[0] for w in parsed.spelled[1:] if w.startswith("-")}
    said = {w.lower() for w in commands}
    return any(word in said and given & set(options) for word, options in spec.get("takes_own", {}).items())


def _unnamed_many(parsed: Parsed) -> bool:
    """What goes is not one named thing: a wildcard over a whole store (`s5cmd rm 's3://b/*'`, `gsutil rm
    gs://b/**`), or a list read from a file at run time (`aws s3api delete-objects --delete file://d.json`)."""
    for word in parsed.spelled[1:]:
        value = word.split("=", 1)[-1]
        if value.startswith(("file://", "fileb://")):
            return True
        if "://" in value:
            path = value.split("://", 1)[1].partition("/")[2]
            if "*" in path and set(path) <= {"*", "/"}:
                return True
    return False


def _remote_flag(spec: Mapping[str, Any], parsed: Parsed) -> str:
    """`podman --remote`: an option that sends every command to the remote service it is configured with."""
    given = {w.split("=", 1)[0] for w in parsed.spelled[1:] if w.startswith("-")}
    return "remote" if given & set(spec.get("remote", ())) else ""


def _given(spec: Mapping[str, Any], parsed: Parsed) -> list[tuple[str, str]]:
    """The options given, each as its name (`dry-run`) and its value: after `=`, else the next word unless an
    option (`--keep-disks boot`, whether or not the catalogue knows the option takes a value); empty when none."""
    short = dict(spec.get("short", {}))
    spelled = parsed.spelled[1:]
    pairs = [(o, v) for o, v in parsed.options if v]
    for k, word in enumerate(spelled):
        after = spelled[k + 1] if k + 1 < len(spelled) and not spelled[k + 1].startswith("-") else ""
        if word.startswith("-"):
            pairs.append((word.split("=", 1)[0], word.partition("=")[2] if "=" in word else after))
    return [(short.get(o, o).lstrip("-").lower(), v.lower()) for o, v in pairs if len(o.lstrip("-")) > 1]


def _rehearses(spec: Mapping[str, Any], parsed: Parsed, commands: list[str]) -> bool:
    """A rehearsal, as the program says it: an option (`--dry-run`, `--dryrun`, `--preview-only`, `--what-if`; not
    `--dry-run=false`), or a command word that is wholly a rehearsal verb before any delete verb (`terraform plan
    -destroy`, `az deployment group what-if`). A rehearsal word inside a name (`neonctl branches delete
    dry-run-main`, `fly apps destroy plan-api`) or in code (`db.dropDatabase() /* dry */`) rehearses nothing."""
    if any(_parts([o]) & _TRIAL and v not in ("false", "no", "0") for o, v in _given(spec, parsed)):
        return True
    verbs = {str(v) for v in spec.get("deletes", ())} | _VERBS
    trial = {t.replace("-", "") for t in _TRIAL}
    for word in commands:
        if _parts([word]) & verbs:
            return False
        if re.sub(r"[-_]", "", word.lower()) in trial:
            return True
    return False


def _keeps_held(spec: Mapping[str, Any], parsed: Parsed) -> bool:
    """An option that keeps all the deleted server holds (`--keep-disks=all`, `--retain-volumes`): its name says
    keep and names the data held, and its value keeps all of it. A name (`fly apps destroy keep-api`), code, a
    part kept (`--keep-disks=boot`) or a record kept (`helm uninstall --keep-history`) keeps no store."""
    for option, value in _given(spec, parsed):
        parts = _parts([option])
        if parts & _KEEPS and parts & _HELD and value in _WHOLE_VALUE:
            return True
    return False


def _holder_deleted(commands: list[str]) -> bool:
    """The server or app a delete verb acts on, as the cloud CLIs say it: in the verb's own word
    (`terminate-instances`, `apps:destroy`) or the word just before it (`droplet delete`, `apps destroy`,
    `instances delete`). A name after the verb is what a verb-first CLI deletes by kind (`kubectl delete
    deployment app`), and a word further back names what holds the thing deleted (`gcloud app versions delete`)."""
    return any(
        _parts([word]) & _VERBS and _parts(commands[max(0, k - 1) : k + 1]) & _HOLDERS
        for k, word in enumerate(commands)
    )


def _sweeps_own(spec: Mapping[str, Any], said: frozenset[str], named: frozenset[str]) -> bool:
    """A local server's stores of others swept (`hosted.own`: the Docker daemon's named volumes, other projects'
    databases): the words or an option name them (`volume prune`, `system prune --volumes`) and the sweep takes the
    named ones too: `--all` (`docker volume prune -a`: https://docs.docker.com/reference/cli/docker/volume/prune/),
    or the store named as an option (`--volumes`: every unused volume before Docker 23 and on Podman:
    https://docs.podman.io/en/latest/markdown/podman-system-prune.1.html). What the line itself started (`docker
    compose down -v`) is the project's own."""
    own = frozenset(str(w) for w in spec.get("own", ()))
    return bool((said | named) & _VERBS | said & set(spec.get("deletes", ()))) and bool(
        named & own or (said & own and named & _MANY)
    )


def _mirrors_nothing(
    ledger: Ledger, spec: Mapping[str, Any], parsed: Parsed, commands: list[str], place: Place
) -> bool | None:
    """A sync that deletes what its source lacks (`hosted.mirror`: `aws s3 sync SRC DEST --delete`, `gsutil rsync
    -d`) from a directory the line has just made empty: every object of the destination goes. None when the
    command is no sync; False for any other sync: a build synced with its deleting option is the everyday deploy,
    whatever else its options say (`--recursive`). (`commands`: the leading command words, a relative source
    among them: `s3 sync empty s3://b`.)"""
    mirror = spec.get("mirror", {})
    words = {str(w) for w in mirror.get("words", ())}
    at = next((k for k, w in enumerate(commands) if w.lower() in words), None)
    if at is None:
        return None
    options = {str(o) for o in mirror.get("deletes", ())}
    deletes = any(o in options and (v or "").lower() != "false" for o, v in parsed.options)
    sources = [w for w in parsed.operands[at + 1 : at + 2] if "://" not in w]
    return deletes and any(left_empty(ledger, str(place(w).get("path") or "")) for w in sources)


def _selects(ledger: Ledger, program: Program, parsed: Parsed) -> bool:
    """`docker context use prod`: the words (`hosted.selects`) that choose the server the program's later
    commands on the line talk to; remembered for them."""
    words = [str(w) for w in program.hosted.get("selects", ())]
    if not words or [w.lower() for w in parsed.operands[: len(words)]] != words or len(parsed.operands) <= len(words):
        return False
    ledger.selected[program.name] = parsed.operands[len(words)]
    return True


def _local_stack(spec: Mapping[str, Any], parsed: Parsed, commands: list[str]) -> bool:
    """`supabase db reset`: a command (`hosted.local_unless.words`) that acts on the local stack unless one of the
    options it names (`--linked`, `--db-url`) or a server URL among its words points it at the hosted one."""
    local = spec.get("local_unless", {})
    if not local or [w.lower() for w in commands[: len(local["words"])]] != list(local["words"]):
        return False
    given = {w.split("=", 1)[0] for w in parsed.spelled[1:] if w.startswith("-")}
    return not (given & set(local["options"]) or any("://" in w for w in parsed.spelled[1:]))


def _command_words(operands: list[str]) -> list[str]:
    """The leading operands that are command words (`s3 rm`, `projects delete acme-prod`), up to a path or URL."""
    out: list[str] = []
    for word in operands:
        if not _COMMAND_WORD.fullmatch(word) or "/" in word:
            break
        out.append(word)
    return out


def _parts(texts: list[str]) -> frozenset[str]:
    """The words of command words or code (`delete-db-instance`, `firestore:delete`, `db.dropDatabase()`), with
    the documented short names spelled out."""
    out: set[str] = {text.lower() for text in texts}
    for text in texts:
        for word in re.split(r"[^A-Za-z0-9]+", text):
            out |= words(word) | set(_SHORT.get(word.lower(), ()))
    return frozenset(out)


def _option_words(spec: Mapping[str, Any], parsed: Parsed) -> frozenset[str]:
    """The words of the options given as written (`--all-collections`: all, collections; terraform's `-destroy`:
    destroy), a short option by what the program's `hosted.short` says it means (gsutil's `-r`: recursive)."""
    short = dict(spec.get("short", {}))
    given = [w.split("=", 1)[0] for w in parsed.spelled[1:] if w.startswith("-")]  # Go's `-destroy` as written
    names = [short.get(option, option) for option in given + [o for o, _ in parsed.options]]
    return _parts([n.lstrip("-") for n in names if len(n.lstrip("-")) > 1])


def _code(spec: Mapping[str, Any], parsed: Parsed) -> list[str]:
    """The values of the options whose text is code the program runs against the store (mongosh's `--eval`)."""
    options = set(spec.get("code", ()))
    return [v for o, v in parsed.options if o in options and v]


def _host(spec: Mapping[str, Any], parsed: Parsed) -> str:
    """The host a database client talks to: its host option's value, else a server URL among its operands."""
    options = set(spec.get("host", ()))
    given = next((v for o, v in parsed.options if o in options and v), "")
    if given:
        return given
    for word in parsed.operands:
        remote = _REMOTE_PREFIX.match(word) if spec.get("remote_prefix") else None
        if remote is not None:  # rclone's `remote:path`: a remote its configuration names
            return remote.group(1)
        if "://" in word:
            try:
                return urlsplit(word).hostname or ""
            except ValueError:
                return word
    return ""


def _hostname(url: str) -> str:
    """The host of a server URL (`ssh://ops@db.internal`, `tcp://10.0.0.5:2376`); a local socket's is empty."""
    return url.split("://", 1)[-1].split("/", 1)[0].rsplit("@", 1)[-1].rsplit(":", 1)[0]


def _remote(host: str) -> bool:
    """A host other than this machine (not the loopback, not a local socket path)."""
    return bool(host) and not host.startswith("/") and host.lower() not in _LOCAL and not host.startswith("127.")
