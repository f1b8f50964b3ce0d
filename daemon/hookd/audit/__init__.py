"""The decision log: ids, records and masking, the bounded sink, the hash-chained writer, verification.

Only `writer` imports structlog; the hot path touches `ids` (in the pipeline) and `sink.put_nowait`.
"""
