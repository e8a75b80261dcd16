"""The backends built in, one record each, and the one way to make a backend by name.

A record names the adapters module that defines the backend and its class (imported only
when one is made), says what the backend is and which distributions must be installed for it
to run.  ``get_backend``, ``BACKEND_NAMES`` and `shlo-conform backends` all read the records;
`backends` answers from them and the installed packages' metadata without importing jax,
torch or IREE (``backend_lines``), and starts each backend only when asked to ``check``.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from importlib import metadata

from . import plugins
from .base import Backend


@dataclass(frozen=True)
class BuiltIn:
    """One built-in backend, or (``prefix``) a family of them named ``PREFIX<rest>``."""
    name: str  # the backend's name, or the family's prefix
    module: str  # the adapters module that defines it
    factory: str  # the class in that module
    description: str  # what it is, for `shlo-conform backends`
    distributions: tuple[str, ...] = ()  # what must be installed to run it (beyond this project's own needs)
    install: str = ""  # how to install them, where they are optional
    takes_name: bool = False  # the class serves several backends and is given the name
    prefix: bool = False  # a family: the class is given the rest of the name after the prefix

    def make(self, name: str, **kwargs) -> Backend:
        cls = getattr(importlib.import_module(f".{self.module}", __package__), self.factory)
        if self.prefix:
            return cls(name[len(self.name):], **kwargs)
        return cls(name, **kwargs) if self.takes_name else cls(**kwargs)


_JAX = ("jax", "jaxlib")
_IREE = ("iree-base-compiler", "iree-base-runtime")
IREE_INSTALL = "pip install 'stablehlo-conformance[iree]'"
TORCH_INSTALL = "pip install 'stablehlo-conformance[torch]' (torch==2.13.0, CPU)"
TENSORFLOW_INSTALL = "pip install 'stablehlo-conformance[tensorflow]' (tensorflow-cpu)"

#: The backends built in, by name, in the order `shlo-conform backends` lists them.
BUILT_IN: dict[str, BuiltIn] = {b.name: b for b in (
    BuiltIn("oracle", "oracle_backend", "OracleBackend", "in-process numpy oracle"),
    BuiltIn("xla", "xla", "XlaBackend", "XLA CPU", _JAX),
    BuiltIn("xla-fast", "xla", "XlaFastBackend", "XLA CPU, fast-compile options", _JAX),
    BuiltIn("xla-folded", "xla", "XlaFoldedBackend", "XLA CPU, the inputs folded in as constants", _JAX),
    BuiltIn("xla-gpu", "xla", "XlaGpuBackend", "XLA GPU, where jax finds a GPU", _JAX),
    BuiltIn("stablehlo-ref", "stablehlo_ref", "StablehloRefBackend", "StableHLO reference interpreter", ("jaxlib",)),
    BuiltIn("iree-llvm-cpu", "iree", "IreeBackend", "IREE, target llvm-cpu", _IREE, IREE_INSTALL, takes_name=True),
    BuiltIn("iree-vmvx", "iree", "IreeBackend", "IREE, target vmvx", _IREE, IREE_INSTALL, takes_name=True),
    BuiltIn("torch-eager", "torch_backend", "TorchBackend", "PyTorch, eager", ("torch",), TORCH_INSTALL,
            takes_name=True),
    BuiltIn("torch-inductor", "torch_backend", "TorchBackend", "PyTorch, inductor (CPU)", ("torch",), TORCH_INSTALL,
            takes_name=True),
    BuiltIn("tensorflow", "tensorflow_backend", "TensorflowBackend", "TensorFlow CPU, StableHLO through XlaCallModule",
            ("tensorflow-cpu",), TENSORFLOW_INSTALL, takes_name=True),
)}

#: Families of built-in backends, named by a prefix and what follows it.
FAMILIES = (
    # the oracle with one injected bug (the suite's own fault-injection check)
    BuiltIn("fault:", "faults", "FaultyBackend", "the oracle with one injected bug", prefix=True),
    BuiltIn("cmd:", "cmd", "CmdBackend", "any program", prefix=True),
)

#: The backends built in (plug-ins: ``plugins.plugin_names()``; ``cmd:...`` is open-ended).
BACKEND_NAMES = tuple(BUILT_IN)

CMD_LINE = ("cmd:TEMPLATE     any program: --backend 'cmd:RUNNER {program} {inputs} {outputs}' "
            "(see docs/adding-a-backend.md)")


def all_backend_names() -> list[str]:
    """Built-in backends, then those installed packages register (entry points)."""
    return list(BUILT_IN) + [n for n in plugins.plugin_names() if n not in BUILT_IN]


def get_backend(name: str, **kwargs) -> Backend:
    """A new backend instance by name: one of BACKEND_NAMES, ``cmd:TEMPLATE`` or a plug-in's
    entry-point name.  Worker backends accept ``env={...}`` for their worker process.  Call
    ``close()`` when done."""
    if name in BUILT_IN:
        return BUILT_IN[name].make(name, **kwargs)
    for family in FAMILIES:
        if name.startswith(family.name):
            return family.make(name, **kwargs)
    if name in plugins.entry_points():
        return plugins.load_plugin(name, **kwargs)
    raise ValueError(f"unknown backend {name!r}; known backends: {', '.join(all_backend_names())}, "
                     f"or cmd:'RUNNER {{program}} {{inputs}} {{outputs}}'")


def installed_versions(distributions: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """(``name version`` of each distribution installed, the names of those missing)."""
    found, missing = [], []
    for dist in distributions:
        try:
            found.append(f"{dist} {metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            missing.append(dist)
    return found, missing


def installed(record: BuiltIn) -> tuple[bool, str]:
    """(its distributions are installed?, what it is and their versions, or what is missing)."""
    found, missing = installed_versions(record.distributions)
    if missing:
        how = f": {record.install}" if record.install else ""
        return False, f"{record.description}; needs {', '.join(missing)}{how}"
    return True, record.description + (f"; {', '.join(found)}" if found else "")


def checked(name: str) -> tuple[bool, str]:
    """(usable here?, why): the backend started and asked (``available()``)."""
    backend = None
    try:
        backend = get_backend(name)
        return backend.available()
    except Exception as e:  # an adapter that cannot even be built is reported, not raised
        return False, f"{type(e).__name__}: {e}"
    finally:
        if backend is not None:
            backend.close()


def backend_lines(check: bool = False) -> list[str]:
    """`shlo-conform backends`: one line per backend, built in then plug-ins, and the cmd: line.
    Without ``check`` a line says whether the backend's packages are installed (the records and
    the packages' metadata: nothing is imported or started); with it, whether the backend is
    usable here (each one started and asked)."""
    lines = []
    for name in all_backend_names():
        if check:
            ok, why = checked(name)
            word = "usable" if ok else "not usable"
        elif name in BUILT_IN:
            ok, why = installed(BUILT_IN[name])
            word = "installed" if ok else "not installed"
        else:
            ok, why, word = True, "", "installed"
        if name not in BUILT_IN:
            why = f"{plugins.describe(name)}; {why}" if why else plugins.describe(name)
        lines.append(f"{name:<16} {word}" + (f"  ({why})" if why else ""))
    lines.append(CMD_LINE)
    if not check:
        lines.append("(`shlo-conform backends --check` starts each backend to say whether it is usable here)")
    return lines
