"""StableHLO types (spec section "Types"): element types, quantized element types,
tensor / token / tuple types, their numpy dtypes, and their MLIR spellings.

Every type prints with ``str()`` to the spelling MLIR's StableHLO dialect accepts and
``parse_type`` reads it back.  Signed integers print as MLIR's signless ``iN`` (that is
what StableHLO uses for ``siN``); ``siN`` is accepted on input too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Union

import ml_dtypes
import numpy as np


class TypeSyntaxError(ValueError):
    """A type spelling that is not valid StableHLO."""


class TypeConstraintError(ValueError):
    """A well-formed type that violates one of the spec's constraints (names it)."""


# --------------------------------------------------------------------------- elements

@dataclass(frozen=True)
class ElementType:
    """A TensorElementType: i1, siN/uiN, one of the float types, or complex."""

    name: str  # MLIR spelling: "i1", "i8", "ui8", "f8E4M3FN", "complex<f32>", ...
    kind: str  # "bool" | "sint" | "uint" | "float" | "complex"
    bits: int
    dtype: np.dtype = field(compare=False, repr=False)

    def __str__(self) -> str:
        return self.name

    # The spec's is_* predicates (section "Notation").
    @property
    def is_bool(self) -> bool:
        return self.kind == "bool"

    @property
    def is_integer(self) -> bool:
        return self.kind in ("sint", "uint")

    @property
    def is_signed(self) -> bool:
        return self.kind == "sint"

    @property
    def is_unsigned(self) -> bool:
        return self.kind == "uint"

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def is_complex(self) -> bool:
        return self.kind == "complex"

    @property
    def is_quantized(self) -> bool:
        return False

    @cached_property
    def finfo(self):
        """ml_dtypes/numpy finfo for float types (component type for complex)."""
        if self.is_float:
            return ml_dtypes.finfo(self.dtype)
        if self.is_complex:
            return ml_dtypes.finfo(self.component.dtype)
        raise TypeError(f"{self} is not a floating-point type")

    @property
    def component(self) -> "ElementType":
        """complex_element_type for complex types."""
        if not self.is_complex:
            raise TypeError(f"{self} is not a complex type")
        return ELEMENT_TYPES[self.name[len("complex<"):-1]]

    @property
    def min_value(self):
        """The spec's min_value(): the smallest finite value."""
        if self.is_bool:
            return False
        if self.is_integer:
            return -(1 << (self.bits - 1)) if self.is_signed else 0
        return self.dtype.type(self.finfo.min)

    @property
    def max_value(self):
        if self.is_bool:
            return True
        if self.is_integer:
            return (1 << (self.bits - 1)) - 1 if self.is_signed else (1 << self.bits) - 1
        return self.dtype.type(self.finfo.max)

    # Properties of the float formats that the numerics need (see oracle/numerics.py).
    @property
    def has_infinity(self) -> bool:
        return self.is_float and bool(np.isinf(np.array(np.inf, dtype=np.float64).astype(self.dtype)))

    @property
    def has_nan(self) -> bool:
        return self.is_float and self.name not in ("f4E2M1FN", "f6E2M3FN", "f6E3M2FN")

    @property
    def has_negative_zero(self) -> bool:
        """FNUZ formats and E8M0 have a single, unsigned zero (or none)."""
        return self.is_float and not (self.name.endswith("FNUZ") or self.name == "f8E8M0FNU")

    @property
    def storage_dtype(self) -> np.dtype:
        """Unsigned integer dtype of the same byte size, for bit-level views."""
        return np.dtype(f"u{self.dtype.itemsize}")


def _element(name, kind, bits, dtype):
    return ElementType(name, kind, bits, np.dtype(dtype))


_ELEMENTS = [
    _element("i1", "bool", 1, np.bool_),
    _element("i2", "sint", 2, ml_dtypes.int2),
    _element("i4", "sint", 4, ml_dtypes.int4),
    _element("i8", "sint", 8, np.int8),
    _element("i16", "sint", 16, np.int16),
    _element("i32", "sint", 32, np.int32),
    _element("i64", "sint", 64, np.int64),
    _element("ui2", "uint", 2, ml_dtypes.uint2),
    _element("ui4", "uint", 4, ml_dtypes.uint4),
    _element("ui8", "uint", 8, np.uint8),
    _element("ui16", "uint", 16, np.uint16),
    _element("ui32", "uint", 32, np.uint32),
    _element("ui64", "uint", 64, np.uint64),
    _element("f4E2M1FN", "float", 4, ml_dtypes.float4_e2m1fn),
    _element("f6E2M3FN", "float", 6, ml_dtypes.float6_e2m3fn),
    _element("f6E3M2FN", "float", 6, ml_dtypes.float6_e3m2fn),
    _element("f8E3M4", "float", 8, ml_dtypes.float8_e3m4),
    _element("f8E4M3", "float", 8, ml_dtypes.float8_e4m3),
    _element("f8E4M3FN", "float", 8, ml_dtypes.float8_e4m3fn),
    _element("f8E4M3FNUZ", "float", 8, ml_dtypes.float8_e4m3fnuz),
    _element("f8E4M3B11FNUZ", "float", 8, ml_dtypes.float8_e4m3b11fnuz),
    _element("f8E5M2", "float", 8, ml_dtypes.float8_e5m2),
    _element("f8E5M2FNUZ", "float", 8, ml_dtypes.float8_e5m2fnuz),
    _element("f8E8M0FNU", "float", 8, ml_dtypes.float8_e8m0fnu),
    _element("bf16", "float", 16, ml_dtypes.bfloat16),
    _element("f16", "float", 16, np.float16),
    _element("f32", "float", 32, np.float32),
    _element("f64", "float", 64, np.float64),
    _element("complex<f32>", "complex", 64, np.complex64),
    _element("complex<f64>", "complex", 128, np.complex128),
]

#: Every TensorElementType of the spec, by MLIR spelling, in the spec's order.
ELEMENT_TYPES: dict[str, ElementType] = {t.name: t for t in _ELEMENTS}

# Spellings accepted on input in addition to the canonical ones.
_ALIASES = {f"si{b}": f"i{b}" for b in (2, 4, 8, 16, 32, 64)}

BOOL = ELEMENT_TYPES["i1"]
SIGNED_INTEGERS = [t for t in _ELEMENTS if t.kind == "sint"]
UNSIGNED_INTEGERS = [t for t in _ELEMENTS if t.kind == "uint"]
INTEGERS = SIGNED_INTEGERS + UNSIGNED_INTEGERS
FLOATS = [t for t in _ELEMENTS if t.kind == "float"]
COMPLEXES = [t for t in _ELEMENTS if t.kind == "complex"]
ALL_ELEMENT_TYPES = list(_ELEMENTS)

_DTYPE_TO_ELEMENT = {t.dtype: t for t in _ELEMENTS}
#: The scalar types ml_dtypes adds to numpy (int4, bfloat16, the f8/f6/f4 formats, ...).
_EXTENSION_SCALARS = frozenset(t.dtype.type for t in _ELEMENTS if t.dtype.type.__module__.split(".")[0] == "ml_dtypes")


def is_extension_dtype(dtype) -> bool:
    """Whether ``dtype`` is one of ml_dtypes' types, which numpy's own machinery (stride tricks,
    the buffer protocol) does not know.  Decided by the scalar type the dtype describes, never by
    the dtype object: an array that arrived pickled from another process has a copy of its dtype
    (``isbuiltin`` 0 even for complex128)."""
    return np.dtype(dtype).type in _EXTENSION_SCALARS


def element_type(name: str) -> ElementType:
    if name.startswith("!quant."):  # a quantized element type's spelling (results, reports)
        return parse_element_type(name)
    name = _ALIASES.get(name, name)
    try:
        return ELEMENT_TYPES[name]
    except KeyError:
        raise TypeSyntaxError(f"unknown element type {name!r}") from None


def as_element_type(t) -> ElementType | QuantizedElementType:
    """An element type given as itself, by name ("f32", "si8") or by numpy dtype."""
    if isinstance(t, (ElementType, QuantizedElementType)):
        return t
    if isinstance(t, str):
        return element_type(t)
    return element_type_of_dtype(t)


def element_type_of_dtype(dtype) -> ElementType:
    try:
        return _DTYPE_TO_ELEMENT[np.dtype(dtype)]
    except KeyError:
        raise TypeError(f"no StableHLO element type for numpy dtype {dtype}") from None


# ------------------------------------------------------------------------- quantized

def _format_float(value: float) -> str:
    text = repr(float(value))
    return text if ("e" in text or "." in text or "n" in text) else text + ".0"


@dataclass(frozen=True)
class QuantizedElementType:
    """A QuantizedTensorElementType (``!quant.uniform<...>``)."""

    storage_type: ElementType
    expressed_type: ElementType
    scales: tuple[float, ...]
    zero_points: tuple[int, ...]
    storage_min: int | None = None  # None = min_value(storage_type)
    storage_max: int | None = None
    quantization_dimension: int | None = None

    kind = "quantized"

    @property
    def is_quantized(self) -> bool:
        return True

    is_bool = is_integer = is_float = is_complex = False

    @property
    def min(self) -> int:
        return self.storage_type.min_value if self.storage_min is None else self.storage_min

    @property
    def max(self) -> int:
        return self.storage_type.max_value if self.storage_max is None else self.storage_max

    @property
    def is_per_axis(self) -> bool:
        return self.quantization_dimension is not None

    @property
    def dtype(self) -> np.dtype:
        return self.storage_type.dtype

    @property
    def name(self) -> str:
        return str(self)

    def verify(self) -> None:
        """Check the spec's constraints C1..C11 on quantized element types."""
        st = self.storage_type
        def fail(c, msg):
            raise TypeConstraintError(f"quantized element type {self}: ({c}) {msg}")
        if not st.is_integer:  # QuantizationStorageType ::= IntegerType
            fail("C1", f"storage type {st} is not an integer type")
        if not (st.min_value <= self.min < self.max <= st.max_value):
            fail("C3", f"need {st.min_value} <= storage_min ({self.min}) < storage_max ({self.max}) <= {st.max_value}")
        if not self.expressed_type.is_float:
            fail("C4", f"expressed type {self.expressed_type} is not a floating-point type")
        for s in self.scales:
            if not s > 0:
                fail("C5", f"scale {s} is not > 0")
            if not np.isfinite(s):
                fail("C6", f"scale {s} is not finite")
        for z in self.zero_points:
            if not (self.min <= z <= self.max):
                fail("C7", f"zero point {z} outside [{self.min}, {self.max}]")
        if len(self.scales) != len(self.zero_points):
            fail("C9", "size(scales) != size(zero_points)")
        if self.quantization_dimension is None and len(self.scales) != 1:
            fail("C10", "per-tensor quantization needs exactly one scale")
        if self.quantization_dimension is not None and self.quantization_dimension < 0:
            fail("C11", "quantization_dimension < 0")

    def __str__(self) -> str:
        storage = self.storage_type.name
        if self.storage_min is not None or self.storage_max is not None:
            storage += f"<{self.min}:{self.max}>"
        expressed = self.expressed_type.name
        if self.quantization_dimension is not None:
            expressed += f":{self.quantization_dimension}"
        params = [f"{_format_float(s)}:{z}" for s, z in zip(self.scales, self.zero_points)]
        body = "{" + ",".join(params) + "}" if self.quantization_dimension is not None else params[0]
        return f"!quant.uniform<{storage}:{expressed}, {body}>"


# --------------------------------------------------------------------------- values

@dataclass(frozen=True)
class TensorType:
    """A TensorType or QuantizedTensorType; ``None`` in shape is a dynamic ``?`` dim."""

    shape: tuple[int | None, ...]
    element_type: Union[ElementType, QuantizedElementType]

    def __str__(self) -> str:
        dims = "".join(("?" if d is None else str(d)) + "x" for d in self.shape)
        return f"tensor<{dims}{self.element_type}>"

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def is_static(self) -> bool:
        return all(d is not None for d in self.shape)

    @property
    def num_elements(self) -> int:
        if not self.is_static:
            raise ValueError(f"{self} has dynamic dimensions")
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def dtype(self) -> np.dtype:
        return self.element_type.dtype

    def verify(self) -> None:
        et = self.element_type
        if isinstance(et, QuantizedElementType):
            et.verify()
            qd = et.quantization_dimension
            if qd is not None:
                if qd >= self.rank:  # quantized tensor (C12)
                    raise TypeConstraintError(f"{self}: (C12) quantization_dimension {qd} >= rank {self.rank}")
                dim = self.shape[qd]
                if dim is not None and dim != len(et.scales):  # (C13)
                    raise TypeConstraintError(f"{self}: (C13) dim {qd} is {dim} but there are {len(et.scales)} scales")

    def matches_shape(self, shape) -> bool:
        """True if a runtime shape is compatible with this (possibly dynamic) type."""
        return len(shape) == self.rank and all(d is None or d == s for d, s in zip(self.shape, shape))


@dataclass(frozen=True)
class TokenType:
    def __str__(self) -> str:
        return "!stablehlo.token"


@dataclass(frozen=True)
class TupleType:
    types: tuple["ValueType", ...]

    def __str__(self) -> str:
        return "tuple<" + ", ".join(map(str, self.types)) + ">"


ValueType = Union[TensorType, TokenType, TupleType]
TOKEN = TokenType()


def tensor(shape, element: str | ElementType | QuantizedElementType) -> TensorType:
    """Shorthand: ``tensor((2, 3), "f32")``."""
    if isinstance(element, str):
        element = element_type(element)
    return TensorType(tuple(shape), element)


# --------------------------------------------------------------------------- parsing

class _TypeParser:
    """Recursive-descent reader for the type grammar of the spec's "Types" section."""

    def __init__(self, text: str):
        self.text = text
        self.pos = 0

    def error(self, msg: str):
        raise TypeSyntaxError(f"{msg} at column {self.pos + 1} in type {self.text!r}")

    def skip_ws(self):
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def peek(self, literal: str) -> bool:
        self.skip_ws()
        return self.text.startswith(literal, self.pos)

    def accept(self, literal: str) -> bool:
        if self.peek(literal):
            self.pos += len(literal)
            return True
        return False

    def expect(self, literal: str):
        if not self.accept(literal):
            self.error(f"expected {literal!r}")

    def regex(self, pattern: str, what: str) -> str:
        self.skip_ws()
        m = re.compile(pattern).match(self.text, self.pos)
        if not m:
            self.error(f"expected {what}")
        self.pos = m.end()
        return m.group(0)

    def value_type(self):
        if self.accept("!stablehlo.token") or self.accept("token"):
            return TOKEN
        if self.accept("tuple"):
            self.expect("<")
            types = []
            if not self.accept(">"):
                types.append(self.value_type())
                while self.accept(","):
                    types.append(self.value_type())
                self.expect(">")
            return TupleType(tuple(types))
        if self.accept("tensor"):
            self.expect("<")
            shape = []
            while True:
                self.skip_ws()
                m = re.compile(r"(\d+|\?)x").match(self.text, self.pos)
                if not m:
                    break
                shape.append(None if m.group(1) == "?" else int(m.group(1)))
                self.pos = m.end()
            elem = self.element()
            if self.accept(","):  # tensor encodings (e.g. bounds) are not StableHLO types
                self.error("tensor encodings are not supported")
            self.expect(">")
            return TensorType(tuple(shape), elem)
        self.error("expected a value type")

    def element(self):
        if self.accept("!quant.uniform"):
            return self.quantized()
        if self.accept("complex"):
            self.expect("<")
            inner = self.regex(r"f32|f64", "f32 or f64")
            self.expect(">")
            return element_type(f"complex<{inner}>")
        name = self.regex(r"[a-zA-Z][a-zA-Z0-9]*", "an element type")
        return element_type(name)

    def integer(self) -> int:
        return int(self.regex(r"[-+]?\d+", "an integer"))

    def quantized(self) -> QuantizedElementType:
        self.expect("<")
        storage = self.element()
        smin = smax = None
        if self.accept("<"):
            smin = self.integer()
            self.expect(":")
            smax = self.integer()
            self.expect(">")
        self.expect(":")
        expressed = self.element()
        qdim = None
        if self.accept(":"):
            qdim = self.integer()
        self.expect(",")
        params = []
        if self.accept("{"):
            params.append(self.quant_param())
            while self.accept(","):
                params.append(self.quant_param())
            self.expect("}")
        else:
            params.append(self.quant_param())
        self.expect(">")
        return QuantizedElementType(storage, expressed, tuple(p[0] for p in params), tuple(p[1] for p in params),
                                    smin, smax, qdim)

    def quant_param(self):
        scale = float(self.regex(r"[-+]?(\d+\.?\d*([eE][-+]?\d+)?|inf|nan)", "a scale"))
        zp = self.integer() if self.accept(":") else 0
        return scale, zp

    def done(self):
        self.skip_ws()
        if self.pos != len(self.text):
            self.error("unexpected trailing text")


@lru_cache(maxsize=4096)
def parse_type(text: str):
    """Parse a value type (tensor / quantized tensor / token / tuple) from its MLIR spelling.
    Types are immutable, so one parse per spelling serves every use (a program spells the same
    few types hundreds of times; reading them was half of reading a program)."""
    p = _TypeParser(text)
    t = p.value_type()
    p.done()
    return t


def parse_element_type(text: str):
    p = _TypeParser(text)
    t = p.element()
    p.done()
    return t
