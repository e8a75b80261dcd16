"""The parent side of the worker protocol (adapters/worker.py) against scripted "workers": a
reply to a request given up on is dropped, and a worker busy writing a large reply while the
parent sends a large request does not hang the two (both seen in a full run after crashes)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time

import numpy as np

from adapters.base import encode_message
from adapters.worker_client import REPO_ROOT, WorkerClient


def _client_on(script: str) -> WorkerClient:
    client = WorkerClient("scripted")
    client.proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(script)], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, bufsize=0, cwd=REPO_ROOT)
    return client


def _close(client: WorkerClient) -> None:
    client.kill()
    client.close()


def test_a_reply_to_an_earlier_request_is_dropped():
    stale = encode_message({"kind": "result", "status": "ok", "message": "stale", "seq": 1})
    fresh = encode_message({"kind": "result", "status": "ok", "message": "fresh", "seq": 2})
    client = _client_on(f"""
        import os, sys, time
        os.write(1, {stale!r} + {fresh!r})
        time.sleep(30)
        """)
    try:
        client._seq = 2  # request 1 was given up on; its reply comes first
        header, _ = client._read(time.monotonic() + 10)
        assert header["message"] == "fresh"
    finally:
        _close(client)


def test_a_large_request_to_a_worker_writing_a_large_reply_does_not_hang():
    client = _client_on("""
        import os
        import numpy as np
        from adapters.base import encode_message
        # a reply of 2 MiB (far more than a pipe holds), written before anything is read
        data = encode_message({"kind": "result", "status": "ok", "message": "", "seq": 1},
                              [np.zeros(1 << 18, np.float64)])
        while data:
            data = data[os.write(1, data):]
        got = 0
        while got < (1 << 21):
            got += len(os.read(0, 1 << 16))
        os.write(1, encode_message({"kind": "result", "status": "ok", "message": "read", "seq": 2}))
        """)
    try:
        client._seq = 1  # the request that reply answers was given up on
        client._send({"op": "run"}, [np.ones(1 << 18, np.float64)], time.monotonic() + 20)
        header, _ = client._read(time.monotonic() + 20)
        assert header["message"] == "read"
    finally:
        _close(client)
