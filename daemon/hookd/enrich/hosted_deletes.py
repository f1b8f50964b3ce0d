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
which the paths' effects judge."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hookd.enrich.tool_args import _DELETE, _PATH_WORDS, words
from hookd.types import JSON

_VERBS = _DELETE | {"destroy", "drop", "terminate"}
# Words of a boolean argument's name that take the contents along
_WHOLE = frozenset({"recursive", "recursively", "cascade", "purge"})
# Words of a boolean argument's name that push the delete through: the contents go too when the name says a store
_FORCE = frozenset({"force", "forced"})
_STORES = frozenset({
    "bucket", "buckets", "database", "databases", "db", "dataset", "datasets", "schema", "keyspace", "namespace",
    "namespaces", "project", "projects", "repository", "repositories", "repo", "repos",
})  # fmt: skip


def hosted_deletes(tool: str, tool_input: Mapping[str, Any]) -> list[dict[str, JSON]]:
    """The `delete` of a hosted resource with everything in it that a server's tool makes (see the module doc)."""
    if not words(tool) & _VERBS or any(words(arg) & _PATH_WORDS for arg in tool_input):
        return []
    whole = _WHOLE | (_FORCE if words(tool) & _STORES else frozenset())
    if not any(value is True and words(arg) & whole for arg, value in tool_input.items()):
        return []
    name = next((v for v in tool_input.values() if isinstance(v, str) and v), "")
    return [
        {"op": "delete", "path": "", "known": True, "recursive": True, "program": tool, "via": "tool",
         "what": "hosted", "name": name}
    ]  # fmt: skip
