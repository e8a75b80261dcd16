"""Persistent worker subprocesses that run one backend each.

``python -m adapters.worker BACKEND`` imports the backend's engine once (jax takes ~1 s)
and then serves requests over its stdin/stdout pipes (framing in adapters/base.py).  The
parent side is :class:`WorkerClient` (adapters/worker_client.py): it starts the worker
lazily, sends a program with one or more input sets, and reads one answer per set, each
under its own deadline.  This module hosts the engines (it imports them; they import only
the parent side, to subclass WorkerBackend).

* The worker dies (XLA aborts, the interpreter hits SIGFPE/SIGSEGV): the case in flight
  becomes ``RunResult('crash')`` naming the signal and the tail of the worker's stderr;
  the results already received are kept, a fresh worker is started and the remaining
  input sets are sent again.  A crash before the program compiled is attributed to every
  remaining set (it would recur for each) and remembered for that program text.
* No answer before the deadline: the worker is killed, the case is ``'timeout'``, and the
  rest continue on a fresh worker.
* The worker's stderr goes to a temporary file, never to the terminal.
* Programs are compiled once per text and cached inside the worker.
* XLA and torch workers import jax / torch once (inductor's also compiles a first program)
  and serve from a forked child (``_preload_and_fork``): when the child dies the worker says
  ``{"kind": "died", "status"}`` and forks the next one, so a crash costs a fork instead of a
  fresh import (SHLO_WORKER_FORK=0 turns this off).
* ``WorkerBackend.set_jobs(n)``: up to n threads use the backend at once, one worker each;
  ``WorkerBackend.run_batch``: many programs compiled as one module (adapters/batch.py),
  a failed batch isolated case by case.

Protocol (parent -> worker): ``{"op": "run", "program": text, "counts": [n_inputs per set]}``
plus the arrays of all sets in order; ``{"op": "batch", "programs": [text, ...], "counts": [...]}``
(one input set per program, compiled as one module, adapters/batch.py); ``{"op": "exit"}``.
Worker -> parent: ``{"kind": "ready", "ok": bool, "message": str, "per_case_compile": bool}``
once; per run request ``{"kind": "compiled", "status": "ok"|"rejected", "message"}`` then, if
ok (with "seconds" spent preparing), one ``{"kind": "result", "status", "message", "seconds"}``
+ output arrays per set.  Per batch request one ``{"kind": "batch", "status": "ok"|"failed",
"cases": [{"status", "message", "outputs": count}]}`` + every case's outputs in order.
"""

from __future__ import annotations

import importlib
import os
import struct
import sys
import threading
import time
import traceback
from collections import OrderedDict

from .base import Rejected, RunStatus, decode_payload, encode_message, split_arrays
from .stablehlo_ref import RefEngine
from .worker_client import REPO_ROOT
from .worker_client import WorkerBackend  # noqa: F401  (adapters/iree.py and torch_backend.py import it from here)
from .xla import XlaEngine

# --------------------------------------------------------------------------- engines
# An engine runs inside the worker.  Interface:
#   per_case_compile: bool        (True: execute() compiles per input set, e.g. xla-folded)
#   info() -> str
#   prepare(program) -> handle    (parse/compile; raises Rejected)
#   execute(handle, inputs) -> list[np.ndarray]   (raises Rejected or anything else -> 'error')


def make_engine(name: str):
    if name == "xla":
        return XlaEngine("cpu", folded=False)
    if name == "xla-folded":
        return XlaEngine("cpu", folded=True)
    if name == "xla-gpu":
        return XlaEngine("gpu", folded=False)
    if name == "xla-gpu-folded":
        return XlaEngine("gpu", folded=True)
    if name == "stablehlo-ref":
        return RefEngine()
    if ":" in name:  # "package.module:factory[:argument]": engines defined elsewhere (IREE, plug-ins)
        module, factory, *argument = name.split(":", 2)
        return getattr(importlib.import_module(module), factory)(*argument)
    raise ValueError(f"no worker engine named {name!r}")


# ---------------------------------------------------------------------- worker side

class _Channel:
    def __init__(self, rfd: int, wfd: int):
        self.rfd, self.wfd = rfd, wfd
        self.seq = None  # the request being answered: every reply carries its "seq"

    def _read_exact(self, n: int) -> bytes | None:
        chunks, got = [], 0
        while got < n:
            b = os.read(self.rfd, min(n - got, 1 << 24))
            if not b:
                return None
            chunks.append(b)
            got += len(b)
        return b"".join(chunks)

    def recv(self):
        head = self._read_exact(8)
        if head is None:
            return None
        (n,) = struct.unpack("<Q", head)
        payload = self._read_exact(n)
        if payload is None:
            return None
        return decode_payload(payload)

    def send(self, header: dict, arrays=()):
        if self.seq is not None:
            header = {**header, "seq": self.seq}
        data = memoryview(encode_message(header, list(arrays)))
        while data:
            k = os.write(self.wfd, data)
            data = data[k:]


def _watch_parent():
    parent = os.getppid()
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            os._exit(0)


#: Engines whose worker sets up once ("module:function": imports, nothing that starts a
#: thread) and then forks a fresh server from, again after each crash: importing jax and
#: scipy's LAPACK costs ~2 s of CPU, a fork ~0.1 s, and XLA aborts the process on some
#: programs (a full run meets ~150 such crashes); importing torch costs seconds and inductor's
#: first compile ~25 s more, and inductor's integer division by zero kills the process;
#: importing tensorflow costs 10-20 s.
_FORK_PRELOAD = {"xla": "adapters.xla:preload_worker", "xla-folded": "adapters.xla:preload_worker",
                 "adapters.torch_backend:TorchEngine:eager": "adapters.torch_backend:preload_eager",
                 "adapters.torch_backend:TorchEngine:inductor": "adapters.torch_backend:preload_inductor",
                 "adapters.tensorflow_backend:TensorflowEngine:eager": "adapters.tensorflow_backend:preload_worker",
                 "adapters.tensorflow_backend:TensorflowEngine:jit": "adapters.tensorflow_backend:preload_worker"}


def _preload_and_fork(name: str, chan: "_Channel") -> bool:
    """In the worker: set the engine up (``_FORK_PRELOAD``), then serve from forked children, one at a
    time; when one dies of a signal or an error exit, tell the parent ``{"kind": "died",
    "status": returncode}`` and fork the next (which says "ready" as a fresh worker would).
    Returns True in a child (go on serving), False in the worker when a child exited cleanly."""
    module, function = _FORK_PRELOAD[name].split(":")
    getattr(importlib.import_module(module), function)()
    while True:
        pid = os.fork()
        if pid == 0:
            threading.Thread(target=_watch_parent, daemon=True).start()  # the parent is this worker
            return True
        _, status = os.waitpid(pid, 0)
        code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
        if code == 0:
            return False
        chan.send({"kind": "died", "status": code})


def worker_main(name: str) -> int:
    # Keep the protocol pipes private: anything else printing to fd 1 goes to stderr.
    rfd, wfd = os.dup(0), os.dup(1)
    os.dup2(2, 1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    sys.stdout = sys.stderr
    chan = _Channel(rfd, wfd)
    threading.Thread(target=_watch_parent, daemon=True).start()
    sys.path.insert(0, REPO_ROOT)
    if name in _FORK_PRELOAD and os.environ.get("SHLO_WORKER_FORK", "1") != "0":
        if not _preload_and_fork(name, chan):
            return 0

    try:
        engine = make_engine(name)
        chan.send({"kind": "ready", "ok": True, "message": engine.info(),
                   "per_case_compile": bool(engine.per_case_compile)})
    except Exception as e:
        chan.send({"kind": "ready", "ok": False, "message": f"{type(e).__name__}: {e}",
                   "per_case_compile": False})
        return 0

    cache: OrderedDict[str, tuple] = OrderedDict()  # program -> ("ok", handle) | ("rejected", msg)
    while True:
        msg = chan.recv()
        if msg is None:
            return 0
        header, arrays = msg
        chan.seq = header.get("seq")
        op = header.get("op")
        if op == "exit":
            return 0
        if op == "batch":
            _serve_batch(chan, engine, header, arrays)
            continue
        if op != "run":
            chan.send({"kind": "compiled", "status": RunStatus.REJECTED, "message": f"worker: unknown op {op!r}"})
            continue
        program = header["program"]
        entry = cache.get(program)
        t_prepare = time.perf_counter()
        if entry is None:
            try:
                entry = (RunStatus.OK, engine.prepare(program))
            except Rejected as e:
                entry = (RunStatus.REJECTED, str(e))
            except Exception as e:
                entry = (RunStatus.REJECTED, f"{type(e).__name__}: {e}")
            cache[program] = entry
            while len(cache) > 64:
                cache.popitem(last=False)
        else:
            cache.move_to_end(program)
        if entry[0] != RunStatus.OK:
            chan.send({"kind": "compiled", "status": RunStatus.REJECTED, "message": entry[1]})
            continue
        chan.send({"kind": "compiled", "status": RunStatus.OK, "message": "",
                   "seconds": time.perf_counter() - t_prepare})
        handle = entry[1]
        for inputs in split_arrays(arrays, header["counts"]):
            t0 = time.perf_counter()
            status, message, outputs = execute_answer(engine, handle, inputs)
            chan.send({"kind": "result", "status": status, "message": message,
                       "seconds": time.perf_counter() - t0}, outputs)


def execute_answer(engine, handle, inputs) -> tuple[str, str, list]:
    """(status, message, outputs) of ``engine.execute(handle, inputs)``: what a worker answers
    for one input set (Rejected: "rejected"; any other exception: "error")."""
    try:
        return RunStatus.OK, "", engine.execute(handle, inputs)
    except Rejected as e:
        return RunStatus.REJECTED, str(e), []
    except Exception as e:
        return RunStatus.ERROR, f"{type(e).__name__}: {e}", []


def execute_each(engine, handles: dict, left_out: dict, same_as: list[int], input_sets) -> list[tuple]:
    """The answers of a batch compiled as one module whose programs run one at a time: case k
    runs program ``same_as[k]``'s handle on its input set (``execute_answer``), or answers as
    that program was left out of the module (adapters.batch.LeftOut)."""
    return [left_out[f].answer() if f in left_out else execute_answer(engine, handles[f], inputs)
            for f, inputs in zip(same_as, input_sets)]


def _serve_batch(chan, engine, header: dict, arrays) -> None:
    """Compile the programs as one module, run each on its input set, answer once: every
    case's status, message and output count, and all outputs in order; or "failed" (the
    parent then runs the programs one at a time).  Nothing is cached: a batch is not reused."""
    started = time.perf_counter()
    try:
        if not hasattr(engine, "prepare_batch"):
            raise Rejected("this engine has no batches")
        answers = engine.execute_batch(engine.prepare_batch(header["programs"]),
                                       split_arrays(arrays, header["counts"]))
    except Exception as e:
        chan.send({"kind": "batch", "status": "failed", "message": f"{type(e).__name__}: {e}"})
        return
    chan.send({"kind": "batch", "status": RunStatus.OK, "seconds": time.perf_counter() - started,
               "cases": [{"status": s, "message": m, "outputs": len(o)} for s, m, o in answers]},
              [a for _, _, o in answers for a in o])


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: python -m adapters.worker BACKEND", file=sys.stderr)
        sys.exit(2)
    try:
        sys.exit(worker_main(sys.argv[1]))
    except Exception:  # pragma: no cover
        traceback.print_exc()
        sys.exit(1)
