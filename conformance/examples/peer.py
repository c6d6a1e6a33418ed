"""A minimal wire-protocol peer that uses nothing of ragward.

It declares only the required verbs, keeps each document whole as one chunk, and answers
a query with the asker's visible, fresh documents containing the query's first word.
Run the kit against it with ``ragward conform --external "python3 peer.py"``.
"""

import json
import sys

docs = {}  # (tenant, doc_id) -> the newest version; deleted ones stay as tombstones
RANK = {"public": 0, "internal": 1, "confidential": 2, "restricted": 3}


def retrieve(query, asker, now_tick, policy):
    words = query.lower().split()[:1]
    hits = []
    for (tenant, doc_id), doc in docs.items():
        visible = (
            tenant == asker["tenant"]
            and not doc["deleted"]
            and RANK[doc["classification"]] <= RANK[asker.get("max_classification", "internal")]
            and (doc["barrier"] is None or doc["barrier"] in asker.get("barriers", []))
        )
        limit = policy.get("max_stale_ticks")
        fresh = limit is None or now_tick - doc["updated_tick"] <= limit
        if visible and fresh and words and words[0] in doc["text"].lower():
            hits.append(
                {
                    "chunk_id": f"{doc_id}::1",
                    "doc_id": doc_id,
                    "version": doc["version"],
                    "start": 0,
                    "end": len(doc["text"]),
                    "text": doc["text"],
                    "score": 1.0,
                }
            )
    hits.sort(key=lambda hit: hit["chunk_id"])
    return {"hits": hits[: policy.get("result_limit", 5)]}


def ingest(doc):
    key = (doc["tenant"], doc["doc_id"])
    if key in docs and docs[key]["version"] >= doc.get("version", 1):
        return False
    defaults = {"classification": "internal", "barrier": None, "version": 1, "updated_tick": 0}
    docs[key] = {**defaults, **doc, "deleted": False}
    return True


def delete(tenant, doc_id):
    if (tenant, doc_id) in docs:
        docs[(tenant, doc_id)]["deleted"] = True


OPS = {
    "hello": lambda: {"counts": False, "scores": False},
    "reset": docs.clear,
    "ingest": ingest,
    "delete": delete,
    "retrieve": retrieve,
}


def main():
    for line in sys.stdin:
        request = json.loads(line)
        try:
            answer = {"ok": True, "result": OPS[request["op"]](**request["args"])}
        except Exception as error:
            answer = {"ok": False, "error": {"kind": "exception", "message": str(error)}}
        print(json.dumps({"ragward": 1, "id": request["id"], **answer}), flush=True)


if __name__ == "__main__":
    main()
