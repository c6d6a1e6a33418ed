"""A wire peer that records the traffic of another: ``python wire_recorder.py LOG CMD ...``.

It starts ``CMD`` as the real peer and passes every request line to it and its response
line back, unchanged, appending each exchange to ``LOG/<pid>.jsonl`` as
``{"request": line, "response": line}``. The protocol answers each request with exactly
one line before the next is sent, so the two streams are read in lockstep.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    log = Path(argv[0]) / f"{os.getpid()}.jsonl"
    peer = subprocess.Popen(argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert peer.stdin is not None
    assert peer.stdout is not None
    with log.open("a", encoding="utf-8") as record:
        for request in sys.stdin.buffer:
            if not request.strip():
                continue
            peer.stdin.write(request)
            peer.stdin.flush()
            response = peer.stdout.readline()
            if not response:
                break
            exchange = {"request": request.decode(), "response": response.decode()}
            record.write(json.dumps(exchange) + "\n")
            record.flush()
            sys.stdout.buffer.write(response)
            sys.stdout.buffer.flush()
    peer.stdin.close()
    return peer.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
