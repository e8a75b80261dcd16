"""The op registry: ONE record per op (in the spirit of PyTorch's OpInfo).

An ``OpInfo`` holds what an op means -- its spec facts and its evaluation -- and nothing else
holds them (how the suite draws the op lives beside it, in ``generators/ops/``):

  * ``name``, ``family``, ``spec``, ``notes``;
  * ``evaluate``: how the oracle evaluates it; ``element_types``: the types the spec allows;
  * ``extra``: e.g. ``error_bound`` (per-element bound), ``compare`` (statistical judging);
  * ``tolerances``: tolerance rows {type key: Tolerance} with reasons (``broadcast_of``:
    share another op's rows);
  * ``impl_defined``: the implementation-defined entries with their masks;
  * ``quantized``: the quantized rule ("elementwise", "integer-accumulation", "bounded-in-float",
    None); ``retype_quantized``: its quantized form is drawn by retyping a float signature;
  * ``precision_config``: takes one (DEFAULT / HIGH allow low-precision products);
  * ``domain`` ("positive" or ""), ``fuzz`` (drawn by random programs), ``manual_sharding``;

The readable tables are views generated from the records: ``judge/tolerance.py``
(TOLERANCE_TABLE, tolerance_for), ``oracle/impl_defined.py`` (IMPL_DEFINED_TABLE,
entries_for, op_masks), the op sets of ``generators/random_programs.py``,
``generators/quantized.py``, ``oracle/quantization.py`` and ``adapters/base.py``.  Suites,
the CLI and the fuzzer are generic loops over ``OPS``.

Adding an op = one family file under ``oracle/ops/`` (its records: ``@op``/``register``,
plus ``record_facts``/``add_impl_defined`` for facts shared with other ops), its samplers in
``generators/ops/<family>.py``, plus its tests.
The data types and shared row builders are in ``oracle/allowances.py``.  Backend knowledge
(which backend lowers an op how, e.g. ``adapters/torch_lowering.py``) is not an op fact and
stays with the backend.
"""

from __future__ import annotations

import importlib
import pkgutil
import threading
from dataclasses import dataclass, field, fields
from typing import Any, Callable, Optional

from .allowances import ImplDefined, Tolerance, combine

#: Evaluates one op: evaluate(op, args, ctx, env) -> list of result values, where ``args`` are
#: the operand values, ``ctx`` the evaluator Context (func calls, regions, side effects) and
#: ``env`` the enclosing scope (values a region may capture).
Evaluate = Callable[..., list]


@dataclass(frozen=True)
class Signature:
    """A concrete, valid instance of an op: operand types, attributes, result types."""
    operand_types: tuple
    attributes: dict
    result_types: tuple
    regions: tuple = ()  # region builders, for ops that take regions
    # (num_replicas, num_partitions): collectives run on a process grid; their inputs are then
    # drawn per process ({(replica_id, partition_id): [arrays]}, see generators/collectives.py).
    grid: tuple = (1, 1)


@dataclass
class OpInfo:
    name: str                      # full name: "stablehlo.add"
    family: str                    # module under oracle/ops that defines it
    evaluate: Evaluate
    element_types: tuple[str, ...] = ()   # element types of the first operand the spec allows (Inputs table)
    spec: str = ""                 # spec section name (the op's mnemonic unless stated)
    notes: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    # --- what a backend may do differently (oracle/allowances.py) and how the suite draws it
    # Tolerance rows {type key: Tolerance} (judge/tolerance.py: TOLERANCE_TABLE is their view).
    tolerances: dict[str, Tolerance] = field(default_factory=dict)
    # The op this one is after broadcasting its operands to the result shape (chlo.broadcast_<op>):
    # that op's tolerance rows and implementation-defined entries apply.
    broadcast_of: str = ""
    # Implementation-defined results with their masks (oracle/impl_defined.py: IMPL_DEFINED_TABLE).
    impl_defined: tuple[ImplDefined, ...] = ()
    # The quantized rule (oracle/quantization.py, judge, oracle/impl_defined.py): "elementwise" (the
    # spec's dequantize_op_quantize per element), "integer-accumulation" (the integer reading is
    # accepted besides the spec's float one), "bounded-in-float" (the float result is only bounded,
    # and that bound in storage units can span many steps: quantized results are masked whole), or None.
    quantized: Optional[str] = None
    # Its quantized form is drawn by retyping a float signature (generators/quantized.py).
    retype_quantized: bool = True
    # Takes a precision_config: DEFAULT / HIGH allow low-precision products (judge/tolerance.py).
    precision_config: bool = False
    domain: str = ""               # input domain random programs respect: "positive" or "" (any)
    fuzz: bool = True              # drawn by random programs (generators/random_programs.py)
    # Marked mhlo.sharding = "{manual}" in multi-partition programs (adapters/base.grid_program).
    manual_sharding: bool = False

    @property
    def mnemonic(self) -> str:
        return self.name.split(".", 1)[1]


OPS: dict[str, OpInfo] = {}


def register(info: OpInfo) -> OpInfo:
    if info.name in OPS:
        raise ValueError(f"op {info.name} registered twice")
    OPS[info.name] = info
    return info


def record_name(key: str) -> str:
    """The full op name of a table key: "add" -> "stablehlo.add"; "chlo.erf" stays."""
    return key if "." in key else f"stablehlo.{key}"


def table_key(name: str) -> str:
    """The key the readable tables use for an op: its mnemonic for StableHLO ops, else the full name."""
    return name.split(".", 1)[1] if name.startswith("stablehlo.") else name


_FACTS = {f.name for f in fields(OpInfo)} - {"name", "family", "evaluate"}


def record_facts(name: str, **facts) -> OpInfo:
    """Adds facts to a registered op's record, from its family file: ``tolerances`` rows are
    merged (a type key given twice is an error), ``impl_defined`` entries appended (each must
    name this op), the other fields set."""
    info = OPS[name]
    for key, value in facts.items():
        if key not in _FACTS:
            raise TypeError(f"OpInfo has no field {key!r}")
        if key == "tolerances":
            info.tolerances = combine(info.tolerances, value)
        elif key == "impl_defined":
            wrong = [e.op for e in value if record_name(e.op) != name]
            if wrong:
                raise ValueError(f"impl-defined entries of {wrong} given to {name}")
            info.impl_defined = info.impl_defined + tuple(value)
        else:
            setattr(info, key, value)
    return info


def add_impl_defined(*entries: ImplDefined) -> None:
    """Puts each implementation-defined entry on the record of the op it names."""
    for entry in entries:
        record_facts(record_name(entry.op), impl_defined=(entry,))


def op(name: str, *, family: str, **fields):
    """Decorator form of ``register`` for an evaluate function: ``@op("stablehlo.x", family=...)``."""
    def decorate(evaluate: Evaluate) -> Evaluate:
        register(OpInfo(name=name, family=family, evaluate=evaluate, **fields))
        return evaluate
    return decorate


def lookup(name: str) -> OpInfo | None:
    _load_families()
    return OPS.get(name)


_imported: set[str] = set()
_importing = threading.RLock()  # processes of a grid evaluate in threads (oracle/grid.py)


def import_submodules(package: str, path) -> None:
    """Imports every module of the package ``package`` (its ``__path__``: ``path``) once: each
    registers what it defines on import (the op records here, their samplers in generators/ops)."""
    if package in _imported:
        return
    with _importing:
        if package not in _imported:
            for module in pkgutil.iter_modules(path):
                importlib.import_module(f"{package}.{module.name}")
            _imported.add(package)


def _load_families():
    """Import every family module once (each registers its ops on import)."""
    from . import ops  # (the family modules import this one)
    import_submodules(ops.__name__, ops.__path__)


def all_ops() -> dict[str, OpInfo]:
    _load_families()
    return OPS
