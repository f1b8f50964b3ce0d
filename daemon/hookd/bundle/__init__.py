"""Policy bundles in OPA's format: build, sign, verify, fetch, keep and activate them (docs/bundles.md).

format (files, manifest, roots, canonical hashing) → archive (safe tar.gz) → signing (OPA's JWT scheme)
→ load (one verified bundle, extracted) → store (the last good bundle per source) → sources (polling)
→ manager (compile the whole set, then swap).
"""
