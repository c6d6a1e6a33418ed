"""The two Milvus collections of a system, as the adapter creates them.

``chunks`` holds one row per chunk: its identity and labels as scalar fields (the tenant
the partition key when one collection holds every tenant), its text under Milvus' BM25
function (``terms``, a ``VARCHAR`` with ``enable_analyzer=True`` feeding the
``SPARSE_FLOAT_VECTOR`` ``sparse``) and its vector (``dense``, ``FLAT`` index, ``COSINE``,
null for a chunk with no direction). ``versions`` holds one row per ``(tenant, doc_id)``:
the highest version accepted; Milvus wants a vector field in every collection, so it
carries an unused one.
"""

from __future__ import annotations

from typing import Any

__all__ = ["create_chunks", "create_versions"]

#: Milvus' longest ``VARCHAR``, in bytes.
_TEXT = {"max_length": 65535}


def _create(client: Any, name: str, schema: Any, index: Any) -> None:
    # Strong: a read sees every write acknowledged before it (Milvus' default, Bounded,
    # may miss the last seconds of writes).
    client.create_collection(name, schema=schema, consistency_level="Strong")
    # sync=False: pymilvus waits for an index by sleeping 0.5 s at least, per field;
    # loading the collection waits for its indexes anyway.
    client.create_index(name, index, sync=False)
    client.load_collection(name)


def create_versions(client: Any, m: Any, name: str) -> None:
    """A new ``versions`` collection called ``name``."""
    schema = client.create_schema(auto_id=False)
    schema.add_field("key", m.DataType.VARCHAR, is_primary=True, **_TEXT)
    schema.add_field("version", m.DataType.INT64)
    schema.add_field("unused", m.DataType.FLOAT_VECTOR, dim=2)
    index = client.prepare_index_params()
    index.add_index("unused", index_type="FLAT", metric_type="L2")
    _create(client, name, schema, index)


def create_chunks(client: Any, m: Any, name: str, *, dimensions: int, partition_key: bool) -> None:
    """A new ``chunks`` collection called ``name``, the tenant its partition key or not."""
    schema = client.create_schema(auto_id=False)
    schema.add_field("pk", m.DataType.VARCHAR, is_primary=True, **_TEXT)
    schema.add_field("tenant", m.DataType.VARCHAR, is_partition_key=partition_key, **_TEXT)
    for field in ("doc_id", "chunk_id", "section", "text"):
        schema.add_field(field, m.DataType.VARCHAR, **_TEXT)
    for field in ("version", "start_char", "end_char", "level", "tick"):
        schema.add_field(field, m.DataType.INT64)
    schema.add_field("barrier", m.DataType.VARCHAR, nullable=True, **_TEXT)
    # Milvus Lite's analyzers are "standard" and "jieba" ("english" is refused).
    analyzer = {"tokenizer": "standard"}
    schema.add_field(
        "terms", m.DataType.VARCHAR, enable_analyzer=True, analyzer_params=analyzer, **_TEXT
    )
    schema.add_field("sparse", m.DataType.SPARSE_FLOAT_VECTOR)
    schema.add_field("dense", m.DataType.FLOAT_VECTOR, dim=dimensions, nullable=True)
    schema.add_function(
        m.Function(
            name="bm25",
            function_type=m.FunctionType.BM25,
            input_field_names=["terms"],
            output_field_names=["sparse"],
        )
    )
    index = client.prepare_index_params()
    index.add_index("sparse", index_type="SPARSE_INVERTED_INDEX", metric_type="BM25")
    index.add_index("dense", index_type="FLAT", metric_type="COSINE")
    _create(client, name, schema, index)
