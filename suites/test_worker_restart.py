"""WorkerBackend.restart(): the next call runs in a fresh worker process, so a result that
depends on what the worker ran before (XLA's compiler reading memory out of bounds on a sort
with a negative dimension) is not repeated there -- what a fuzz campaign relies on to confirm
a new finding before writing it (conformance/fuzz.py, Campaign._confirmed).  Fast: seconds."""

from __future__ import annotations

import os

import numpy as np

from adapters.worker_client import WorkerBackend

_STATE = {"spoiled": False}


class StatefulEngine:
    """"inc" adds 1 to its input, or 2 once the process has prepared a "spoil" program; "crash"
    aborts the process while compiling (remembered by the client for that program text)."""
    per_case_compile = False

    def info(self) -> str:
        return "an engine that a program leaves in a bad state"

    def prepare(self, program: str):
        if program == "crash" and _STATE["spoiled"]:
            os.abort()
        _STATE["spoiled"] = _STATE["spoiled"] or program == "spoil"
        return program

    def execute(self, program, inputs):
        return [inputs[0] + (2 if _STATE["spoiled"] else 1)]


class StatefulBackend(WorkerBackend):
    name = "stateful"
    worker_name = "suites.test_worker_restart:StatefulEngine"


def test_restart_gives_a_fresh_worker_that_forgets_what_ran_before():
    x = [np.array([10], np.int32)]
    with StatefulBackend() as backend:
        assert backend.run("inc", x).outputs[0].tolist() == [11]
        backend.run("spoil", x)
        assert backend.run("inc", x).outputs[0].tolist() == [12]  # the worker's state, not the program
        backend.restart()
        assert backend.run("inc", x).outputs[0].tolist() == [11]
        # a crash while compiling is remembered per program text: after restart() it is run again
        backend.run("spoil", x)
        assert backend.run("crash", x).status == "crash"
        assert backend.run("crash", x).status == "crash"  # (remembered: the worker, fresh now, is not asked)
        backend.restart()
        assert backend.run("crash", x).status == "ok"
