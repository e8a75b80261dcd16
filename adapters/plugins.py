"""Backends from other installed packages, through the entry-point group ``shlo_conform.backends``.

A package declares, in its pyproject.toml::

    [project.entry-points."shlo_conform.backends"]
    my-accel = "my_package.shlo:make_backend"

and ``get_backend("my-accel", **kwargs)`` then calls ``make_backend(**kwargs)``, which returns
either an ``adapters.base.Backend`` or any object with the members of the plug-in protocol
(name, flushes_subnormals, available(), supports(), run(), run_many(), close()); such an object
is wrapped in a :class:`PluginBackend`, which forwards the members it offers and gives the
others Backend's defaults.  Nothing in this repository changes.  A worked example is
examples/plugin/ (docs/adding-a-backend.md).
"""

from __future__ import annotations

from importlib import metadata

from .base import Backend, GridResult, RunResult

GROUP = "shlo_conform.backends"

#: Optional Backend methods a plug-in object may have; the wrapper forwards those it has.
OPTIONAL_METHODS = ("run_batch", "run_grid", "set_jobs", "restart", "worker_restarts")


def entry_points() -> dict:
    """Backend name -> EntryPoint, for every installed package that declares one."""
    found = {}
    for ep in metadata.entry_points(group=GROUP):
        found.setdefault(ep.name, ep)  # the first one on sys.path wins, as for imports
    return found


def plugin_names() -> list[str]:
    return sorted(entry_points())


class PluginBackend(Backend):
    """A plug-in's backend object that does not derive from Backend, seen as one: the plug-in
    protocol's members and the optional ones it has (``OPTIONAL_METHODS``, ``batch_size``,
    ``batch_stats``, a ``version`` string, a ``deviations_file`` path) are its own, every other member Backend's default."""

    def __init__(self, plugged, name: str):
        self.plugged, self.name = plugged, name
        self.flushes_subnormals = bool(getattr(plugged, "flushes_subnormals", False))
        self.offered = frozenset(m for m in OPTIONAL_METHODS if callable(getattr(plugged, m, None)))
        self.batch_size = getattr(plugged, "batch_size", 0) or 0
        self.batch_stats = getattr(plugged, "batch_stats", None)
        shipped = getattr(plugged, "deviations_file", None)
        self.deviations_file = shipped if isinstance(shipped, str) and shipped else None
        self.supports_grid = "run_grid" in self.offered
        self.takes_concurrent_callers = "set_jobs" in self.offered
        self.restartable = "restart" in self.offered
        version = getattr(plugged, "version", "")
        self._version = version if isinstance(version, str) else ""

    def available(self) -> tuple[bool, str]:
        return self.plugged.available()

    def supports(self, element_type_names: set[str]) -> tuple[bool, str]:
        return self.plugged.supports(element_type_names)

    def run(self, program: str, inputs: list, timeout: float = 60) -> RunResult:
        return self.plugged.run(program, inputs, timeout=timeout)

    def run_many(self, program: str, input_sets: list[list], timeout: float = 60) -> list[RunResult]:
        return self.plugged.run_many(program, input_sets, timeout=timeout)

    def run_batch(self, programs: list[str], input_sets: list[list], timeout: float = 60) -> list[RunResult]:
        if "run_batch" in self.offered:
            return self.plugged.run_batch(programs, input_sets, timeout)
        return super().run_batch(programs, input_sets, timeout)

    def run_grid(self, program: str, inputs: dict, num_replicas: int, num_partitions: int,
                 timeout: float = 60) -> GridResult:
        if "run_grid" in self.offered:
            return self.plugged.run_grid(program, inputs, num_replicas, num_partitions, timeout=timeout)
        return super().run_grid(program, inputs, num_replicas, num_partitions, timeout)

    def set_jobs(self, jobs: int) -> None:
        if "set_jobs" in self.offered:
            self.plugged.set_jobs(jobs)

    def restart(self) -> None:
        if "restart" in self.offered:
            self.plugged.restart()

    def worker_restarts(self) -> int:
        return self.plugged.worker_restarts() if "worker_restarts" in self.offered else 0

    def version(self) -> str:
        return self._version

    def close(self) -> None:
        self.plugged.close()

    def __repr__(self) -> str:
        return f"<PluginBackend {self.name}: {self.plugged!r}>"


def load_plugin(name: str, **kwargs) -> Backend:
    """A backend instance from the entry point ``name`` (KeyError if there is none)."""
    ep = entry_points()[name]
    factory = ep.load()
    backend = factory(**kwargs)
    if getattr(backend, "name", None) != name:
        # results.json and known deviations go by the name: keep the one the user asked for
        try:
            backend.name = name
        except AttributeError:
            pass
    return backend if isinstance(backend, Backend) else PluginBackend(backend, name)


def describe(name: str) -> str:
    """``package version (module:attr)`` of an entry point, for `shlo-conform backends`."""
    ep = entry_points()[name]
    dist = getattr(ep, "dist", None)
    origin = f"{dist.name} {dist.version}, " if dist is not None else ""
    return f"plug-in: {origin}{ep.value}"
