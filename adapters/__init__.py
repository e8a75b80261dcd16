"""Backends that run StableHLO programs: the oracle, XLA (CPU, GPU, constant-folded),
the official StableHLO reference interpreter, IREE (llvm-cpu, vmvx), PyTorch (eager,
inductor; adapters/torch_backend.py), any external program
(``cmd:TEMPLATE``, adapters/cmd.py) and backends other packages register under the
entry-point group ``shlo_conform.backends`` (adapters/plugins.py).  See adapters/base.py for
the protocol.

    from adapters import get_backend
    xla = get_backend("xla")
    result = xla.run(program_text, [np.ones((2, 2), np.float32)])   # RunResult
    xla.close()

Importing this package imports neither jax nor the oracle; backends other than the
oracle run in worker subprocesses started on first use.
"""

from __future__ import annotations

from .base import STATUSES, Backend, RunResult, RunStatus

#: The backends built in (plug-ins: ``plugins.plugin_names()``; ``cmd:...`` is open-ended).
BACKEND_NAMES = ("oracle", "xla", "xla-fast", "xla-folded", "xla-gpu", "stablehlo-ref", "iree-llvm-cpu", "iree-vmvx",
                 "torch-eager", "torch-inductor")


def all_backend_names() -> list[str]:
    """Built-in backends, then those installed packages register (entry points)."""
    from .plugins import plugin_names
    return list(BACKEND_NAMES) + [n for n in plugin_names() if n not in BACKEND_NAMES]


def get_backend(name: str, **kwargs) -> Backend:
    """A new backend instance by name: one of BACKEND_NAMES, ``cmd:TEMPLATE`` or a plug-in's
    entry-point name.  Worker backends accept ``env={...}`` for their worker process.  Call
    ``close()`` when done."""
    if name == "oracle":
        from .oracle_backend import OracleBackend
        return OracleBackend(**kwargs)
    if name == "xla":
        from .xla import XlaBackend
        return XlaBackend(**kwargs)
    if name == "xla-folded":
        from .xla import XlaFoldedBackend
        return XlaFoldedBackend(**kwargs)
    if name == "xla-fast":
        from .xla import XlaFastBackend
        return XlaFastBackend(**kwargs)
    if name == "xla-gpu":
        from .xla import XlaGpuBackend
        return XlaGpuBackend(**kwargs)
    if name == "stablehlo-ref":
        from .stablehlo_ref import StablehloRefBackend
        return StablehloRefBackend(**kwargs)
    if name.startswith("iree-"):
        from .iree import IreeBackend
        return IreeBackend(name, **kwargs)
    if name in ("torch-eager", "torch-inductor"):
        from .torch_backend import TorchBackend
        return TorchBackend(name, **kwargs)
    if name.startswith("fault:"):  # the oracle with one injected bug (the suite's own fault-injection check)
        from .faults import FaultyBackend
        return FaultyBackend(name, **kwargs)
    if name.startswith("cmd:"):
        from .cmd import CmdBackend
        return CmdBackend(name[len("cmd:"):], **kwargs)
    from .plugins import entry_points, load_plugin
    if name in entry_points():
        return load_plugin(name, **kwargs)
    raise ValueError(f"unknown backend {name!r}; known backends: {', '.join(all_backend_names())}, "
                     f"or cmd:'RUNNER {{program}} {{inputs}} {{outputs}}'")


__all__ = ["BACKEND_NAMES", "STATUSES", "Backend", "RunResult", "RunStatus", "all_backend_names", "get_backend"]
