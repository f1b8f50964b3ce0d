"""The words that say a hosted thing goes whole: shared by an MCP tool's reading (enrich/hosted_deletes.py) and a
command's (effects/hosted_stores.py), which sit on either side of the effect model and so meet here."""

from __future__ import annotations

from hookd.enrich.tool_args import _DELETE

_VERBS = _DELETE | {"destroy", "drop", "terminate"}
# Words of a boolean argument's name that take the contents along
_WHOLE = frozenset({"recursive", "recursively", "cascade", "purge"})
_BUCKETS = frozenset({"bucket", "buckets"})  # a store whose delete refuses while it holds anything
_STORES = _BUCKETS | frozenset({
    "database", "databases", "db", "dataset", "datasets", "schema", "keyspace", "namespace",
    "namespaces", "project", "projects", "repository", "repositories", "repo", "repos",
})  # fmt: skip
