"""Backends that run StableHLO programs: the oracle, XLA (CPU, GPU, constant-folded),
the official StableHLO reference interpreter, IREE (llvm-cpu, vmvx), PyTorch (eager,
inductor; adapters/torch_backend.py), any external program
(``cmd:TEMPLATE``, adapters/cmd.py) and backends other packages register under the
entry-point group ``shlo_conform.backends`` (adapters/plugins.py).  adapters/base.py declares
what a backend offers (``Backend``); adapters/registry.py lists the built-in ones.

    from adapters import get_backend
    xla = get_backend("xla")
    result = xla.run(program_text, [np.ones((2, 2), np.float32)])   # RunResult
    xla.close()

Importing this package imports neither jax nor the oracle; backends other than the
oracle run in worker subprocesses started on first use.
"""

from __future__ import annotations

from .base import STATUSES, Backend, RunResult, RunStatus
from .registry import BACKEND_NAMES, all_backend_names, get_backend

__all__ = ["BACKEND_NAMES", "STATUSES", "Backend", "RunResult", "RunStatus", "all_backend_names", "get_backend"]
