"""A server's tool that deletes a hosted resource together with what it holds: S3's `delete_bucket` with `force`, a
storage, registry or cloud server's delete with `recursive`, `cascade` or `purge`. Its effect is the `delete` of
`what: "hosted"` a forge API's DELETE has (entries.rest_deletes), asked by destructive_shell's
`remote-resource-delete`: gone for everyone, from every machine.

Known by what the call says, not by which server it is: its name's verb is a delete (tool_args' delete words, and
`destroy`, `drop`, `terminate`) and an argument named for taking the contents along is true: `recursive`, `cascade`,
`purge` (`gcloud storage rm --recursive`: https://cloud.google.com/sdk/gcloud/reference/storage/rm, `kubectl delete
--cascade`: https://kubernetes.io/docs/reference/kubectl/generated/kubectl_delete/), or `force` when the name says
the thing deleted is a store of others (a bucket, database, dataset, schema, keyspace, namespace, project,
repository), where forcing is what empties it first (`aws s3 rb --force` deletes every object:
https://docs.aws.amazon.com/cli/latest/reference/s3/rb.html). `force` elsewhere only pushes one thing through
(`docker rm -f` stops the container it removes). A delete without these (one object, one pod, one issue) is the
everyday removal of one named thing and is left to what it names; a tool with a path argument deletes local files,
which the paths' effects judge.

What the verb itself does to what the name names counts with no argument at all: a store other than a bucket
deleted, dropped or destroyed goes with what it holds (`DROP DATABASE` removes its tables:
https://dev.mysql.com/doc/refman/8.4/en/drop-database.html; a bucket alone refuses while it holds objects:
https://docs.aws.amazon.com/AmazonS3/latest/API/API_DeleteBucket.html); a table or collection dropped loses its
rows; a verb that empties (`empty_bucket`, `truncate`, `wipe`, Redis's FLUSHALL and FLUSHDB:
https://redis.io/docs/latest/commands/flushall/, a `flush` of a store or of all keys) takes every item. A flag's
value is read as the servers read it: a string or number a server's boolean parser takes as true (pydantic's
`1, on, t, true, y, yes` in any case: https://docs.pydantic.dev/latest/api/standard_library_types/#booleans; Go's
strconv.ParseBool) is true. A tool whose server argument names this machine (`localhost`, a loopback address) acts
on a local server, left to the everyday."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import pairwise
from typing import Any
from urllib.parse import urlsplit

from hookd.enrich.effects.fetches import loopback
from hookd.enrich.hosted_words import _BUCKETS, _STORES, _VERBS, _WHOLE
from hookd.enrich.tool_args import _PATH_WORDS, _WORD, words
from hookd.types import JSON

# Words of a boolean argument's name that push the delete through: the contents go too when the name says a store
_FORCE = frozenset({"force", "forced"})
_ROWS = frozenset({"table", "tables", "collection", "collections"})  # dropped, every row or document goes
_EMPTIES = frozenset({"empty", "truncate", "wipe"})  # verbs that take every item of what they name
_FLUSHES = frozenset({"flushall", "flushdb"})  # Redis's: every key of every database, of the selected one
_FLUSHED = _STORES | frozenset({"all", "keys", "cache"})  # `flush` of one of these: every key of it
_TRUE = frozenset({"1", "on", "t", "true", "y", "yes"})
_KIND_WORDS = frozenset({"kind", "type"})  # an argument naming what sort of resource the call acts on
_SERVER_WORDS = frozenset({"host", "hostname", "server", "url", "uri", "address", "endpoint"})


def hosted_deletes(tool: str, tool_input: Mapping[str, Any]) -> list[dict[str, JSON]]:
    """The `delete` of a hosted resource with everything in it that a server's tool makes (see the module doc)."""
    own = tool.rpartition("__")[2]  # the tool's own name, not its server's (`mcp__db__drop_index`)
    named = words(own)
    if any(words(arg) & _PATH_WORDS for arg in tool_input) or _on_this_machine(tool_input):
        return []
    kinds = _kinds(tool_input)
    if not (_takes_everything(own, kinds) or (named & _VERBS and _flagged(named | kinds, tool_input))):
        return []
    given = [(a, v) for a, v in tool_input.items() if isinstance(v, str) and v and not words(a) & _SERVER_WORDS]
    name = next((v for a, v in given if "name" in words(a)), "") or next((v for _, v in given), "")
    return [
        {"op": "delete", "path": "", "known": True, "recursive": True, "program": tool, "via": "tool",
         "what": "hosted", "name": name}
    ]  # fmt: skip


def _kinds(tool_input: Mapping[str, Any]) -> frozenset[str]:
    """The words of what a generic tool is told to act on (`resources_delete` given `kind: "Namespace"`: a
    cluster's tool deletes any resource its `kind` or `type` argument names:
    https://pkg.go.dev/github.com/containers/kubernetes-mcp-server)."""
    out: set[str] = set()
    for arg, value in tool_input.items():
        if isinstance(value, str) and words(arg) & _KIND_WORDS:
            out |= {w.lower() for w in _WORD.findall(value)}
    return frozenset(out)


def _takes_everything(tool: str, kinds: frozenset[str] = frozenset()) -> bool:
    """The verb alone takes what the name names whole: a store (not a bucket) deleted or dropped, a table dropped,
    a store emptied or flushed. What a delete acts on is the name's last word that is no verb
    (`remove_project_member` acts on a member, `namespaces_delete` on namespaces); what an emptying verb acts on is
    the word after it (`empty_bucket`, `mcp_s3_truncate_table`; not `check_if_empty`); `flushall`, `flushdb` name
    both."""
    ordered = [w.lower() for w in _WORD.findall(tool)]
    acted_on = next((w for w in reversed(ordered) if w not in _VERBS | _EMPTIES | {"flush"}), "")
    emptied = {after for verb, after in pairwise(ordered) if verb in _EMPTIES}
    named = set(ordered)
    return bool(
        (named & _VERBS and ({acted_on} | kinds) & (_STORES - _BUCKETS))
        or ("drop" in named and acted_on in _ROWS)
        or emptied & (_STORES | _ROWS | _FLUSHED)
        or named & _FLUSHES
        or ("flush" in named and acted_on in _FLUSHED)
    )


def _flagged(named: frozenset[str], tool_input: Mapping[str, Any]) -> bool:
    whole = _WHOLE | (_FORCE if named & _STORES else frozenset())
    return any(words(arg) & whole and truthy(value) for arg, value in tool_input.items())


def truthy(value: object) -> bool:
    """A flag's value as a server's boolean parser reads it: `true`, or `1`, `"true"`, `"yes"`, `"On"`…"""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return value == 1
    return isinstance(value, str) and value.strip().lower() in _TRUE


def _on_this_machine(tool_input: Mapping[str, Any]) -> bool:
    """An argument naming the server is this machine (`host: "localhost"`, `url: "redis://127.0.0.1:6379/0"`)."""
    return any(
        isinstance(value, str) and words(arg) & _SERVER_WORDS and loopback(_host(value))
        for arg, value in tool_input.items()
    )


def _host(value: str) -> str:
    """The host of a URL or of a bare `HOST[:PORT]`."""
    try:
        return urlsplit(value if "://" in value else f"//{value}").hostname or ""
    except ValueError:  # a malformed address names no host
        return ""
