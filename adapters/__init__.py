"""Backends that run StableHLO programs: the oracle, XLA (CPU, GPU, constant-folded) and
the official StableHLO reference interpreter.  See adapters/base.py for the protocol.

    from adapters import get_backend
    xla = get_backend("xla")
    result = xla.run(program_text, [np.ones((2, 2), np.float32)])   # RunResult
    xla.close()

Importing this package imports neither jax nor the oracle; backends other than the
oracle run in worker subprocesses started on first use.
"""

from __future__ import annotations

from .base import STATUSES, Backend, RunResult

BACKEND_NAMES = ("oracle", "xla", "xla-folded", "xla-gpu", "stablehlo-ref")


def get_backend(name: str, **kwargs) -> Backend:
    """A new backend instance by name (one of BACKEND_NAMES).  Worker backends accept
    ``env={...}`` for their worker process.  Call ``close()`` when done."""
    if name == "oracle":
        from .oracle_backend import OracleBackend
        return OracleBackend(**kwargs)
    if name == "xla":
        from .xla import XlaBackend
        return XlaBackend(**kwargs)
    if name == "xla-folded":
        from .xla import XlaFoldedBackend
        return XlaFoldedBackend(**kwargs)
    if name == "xla-gpu":
        from .xla import XlaGpuBackend
        return XlaGpuBackend(**kwargs)
    if name == "stablehlo-ref":
        from .stablehlo_ref import StablehloRefBackend
        return StablehloRefBackend(**kwargs)
    raise ValueError(f"unknown backend {name!r}; known backends: {', '.join(BACKEND_NAMES)}")


__all__ = ["BACKEND_NAMES", "STATUSES", "Backend", "RunResult", "get_backend"]
