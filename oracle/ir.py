"""A small immutable program IR: module -> functions -> ops (spec "Programs").

Generators build it, the oracle evaluates it, ``oracle.mlir_text`` reads and prints it.
Attribute values are typed wrappers that know their MLIR spelling (``str()``) and expose
a plain Python ``.value`` for the evaluator.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Mapping

import numpy as np

from .literals import format_dense
from .types import TensorType, ValueType


# ------------------------------------------------------------------------ attributes

class Attr:
    """Base of attribute values. ``value`` is the plain Python view used by the oracle."""

    value: Any


@dataclass(frozen=True)
class DenseElements(Attr):
    """``dense<...> : tensor<...>`` (TensorConstant)."""
    array: np.ndarray = field(compare=False)
    type: TensorType

    @property
    def value(self):
        return self.array

    def __str__(self):
        return f"{format_dense(self.array, self.type.element_type)} : {self.type}"


@dataclass(frozen=True)
class DenseArray(Attr):
    """``array<i64: 1, 2>`` (also i1/bool arrays)."""
    element: str
    value: tuple

    def __str__(self):
        if not self.value:
            return f"array<{self.element}>"
        items = ", ".join(("true" if v else "false") if self.element == "i1" else str(v) for v in self.value)
        return f"array<{self.element}: {items}>"


@dataclass(frozen=True)
class IntegerAttr(Attr):
    value: int
    type: str = "i64"

    def __str__(self):
        return f"{self.value} : {self.type}"


@dataclass(frozen=True)
class FloatAttr(Attr):
    value: float
    type: str = "f32"

    def __str__(self):
        text = repr(float(self.value))
        if "e" in text and "." not in text.split("e")[0]:  # MLIR reads 1.0e-05, not 1e-05
            mantissa, exponent = text.split("e")
            text = f"{mantissa}.0e{exponent}"
        return f"{text} : {self.type}"


@dataclass(frozen=True)
class BoolAttr(Attr):
    value: bool

    def __str__(self):
        return "true" if self.value else "false"


@dataclass(frozen=True)
class StringAttr(Attr):
    value: str

    def __str__(self):
        return json.dumps(self.value)


@dataclass(frozen=True)
class UnitAttr(Attr):
    value: bool = True

    def __str__(self):
        return "unit"


@dataclass(frozen=True)
class SymbolRef(Attr):
    value: str  # without '@'

    def __str__(self):
        return "@" + self.value


@dataclass(frozen=True)
class TypeAttr(Attr):
    value: Any  # a ValueType, or a FunctionType text

    def __str__(self):
        return str(self.value)


@dataclass(frozen=True)
class ArrayAttr(Attr):
    items: tuple[Attr, ...]

    @property
    def value(self):
        return tuple(i.value for i in self.items)

    def __str__(self):
        return "[" + ", ".join(map(str, self.items)) + "]"


@dataclass(frozen=True)
class DictAttr(Attr):
    items: tuple[tuple[str, Attr], ...]

    @property
    def value(self):
        return {k: v.value for k, v in self.items}

    def __str__(self):
        return "{" + ", ".join(named_attribute_text(k, v) for k, v in self.items) + "}"


@dataclass(frozen=True)
class EnumAttr(Attr):
    """``#stablehlo<comparison_direction LT>``."""
    kind: str
    value: str
    dialect: str = "stablehlo"

    def __str__(self):
        return f"#{self.dialect}<{self.kind} {self.value}>"


@dataclass(frozen=True)
class StructAttr(Attr):
    """``#stablehlo.gather<offset_dims = [1], index_vector_dim = 1>`` and friends."""
    name: str  # "stablehlo.gather"
    fields: tuple[tuple[str, Any], ...]  # values: int, bool, str, tuple of ints, or Attr

    @property
    def value(self):
        return {k: v for k, v in self.fields}

    def __str__(self):
        def fmt(v):
            if isinstance(v, bool):
                return "true" if v else "false"
            if isinstance(v, (tuple, list)):
                return "[" + ", ".join(map(fmt, v)) + "]"
            return str(v)
        return f"#{self.name}<" + ", ".join(f"{k} = {fmt(v)}" for k, v in self.fields) + ">"


@dataclass(frozen=True)
class OpaqueAttr(Attr):
    """Any attribute we keep verbatim (printed back as written)."""
    text: str

    @property
    def value(self):
        return self.text

    def __str__(self):
        return self.text


def named_attribute_text(name: str, attr: Attr) -> str:
    return name if isinstance(attr, UnitAttr) else f"{name} = {attr}"


# ------------------------------------------------------------------------- structure

def _pretty_as_repr(self, printer, cycle) -> None:
    """IPython's / Hypothesis's pretty-printing hook: the short repr.  Hypothesis puts the repr of
    a strategy's arguments in a note whenever a draw raises (a rejected draw included); printed
    field by field, the seed programs of a campaign took 3-15 s each time."""
    printer.text(repr(self))


@dataclass(frozen=True, eq=False)
class Value:
    """An SSA value: a function/block argument or an op result. Identity is by object."""
    type: ValueType
    name: str = ""  # the name it had in the source text, for messages

    def __repr__(self):
        return f"Value({self.name or id(self)}: {self.type})"


@dataclass(frozen=True, eq=False)
class Region:
    """A single-block region (StableHLO regions have one block): arguments, ops, terminator last."""
    arguments: tuple[Value, ...]
    ops: tuple["Op", ...]


@dataclass(frozen=True, eq=False)
class Op:
    name: str  # "stablehlo.add", "func.call", ...
    operands: tuple[Value, ...]
    results: tuple[Value, ...]
    attributes: Mapping[str, Attr] = field(default_factory=dict)
    regions: tuple[Region, ...] = ()
    location: str = ""  # "file:line:col" of the op in its source text, when known

    def __post_init__(self):
        object.__setattr__(self, "attributes", MappingProxyType(dict(self.attributes)))

    @property
    def mnemonic(self) -> str:
        return self.name.split(".", 1)[1] if "." in self.name else self.name

    def attr(self, name: str, default: Any = ...) -> Any:
        """The plain value of attribute ``name`` (``default`` if absent, error if no default)."""
        a = self.attributes.get(name)
        if a is None:
            if default is ...:
                raise KeyError(f"{self.name}: missing attribute {name!r}")
            return default
        return a.value

    def describe(self) -> str:
        return f"{self.name}" + (f" at {self.location}" if self.location else "")

    def __repr__(self):
        return f"Op({self.name}: {len(self.operands)} operands, {len(self.results)} results)"

    _repr_pretty_ = _pretty_as_repr


@dataclass(frozen=True, eq=False)
class Function:
    name: str
    arguments: tuple[Value, ...]
    result_types: tuple[ValueType, ...]
    ops: tuple[Op, ...]  # terminated by func.return
    visibility: str = "public"
    location: str = ""
    # Per-argument / per-result attribute dicts (DictAttr or None), e.g. JAX's mhlo.sharding,
    # jax.result_info, mhlo.layout_mode: no effect on the values, printed back for backends.
    arg_attrs: tuple = ()
    res_attrs: tuple = ()

    def __repr__(self):
        return f"Function(@{self.name}: {len(self.arguments)} arguments, {len(self.ops)} ops)"

    _repr_pretty_ = _pretty_as_repr


@dataclass(frozen=True, eq=False)
class Module:
    functions: tuple[Function, ...]
    attributes: Mapping[str, Attr] = field(default_factory=dict)  # e.g. mhlo.num_replicas
    # Module-level ops other than functions (e.g. ``sdy.mesh``, which sharding attributes name):
    # not evaluated, printed back so a backend gets the program whole.
    declarations: tuple[Op, ...] = ()

    def __repr__(self):
        return f"Module({', '.join('@' + f.name for f in self.functions)}: {sum(1 for _ in self.walk_ops())} ops)"

    _repr_pretty_ = _pretty_as_repr

    def function(self, name: str) -> Function:
        for f in self.functions:
            if f.name == name:
                return f
        raise KeyError(f"module has no function @{name}")

    @property
    def main(self) -> Function:
        return self.function("main")

    def walk_ops(self):
        """Every op of every function, nested regions included (pre-order)."""
        def walk(ops):
            for op in ops:
                yield op
                for r in op.regions:
                    yield from walk(r.ops)
        for f in self.functions:
            yield from walk(f.ops)
