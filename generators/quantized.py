"""Strategies for quantized element types (spec "Types": QuantizedTensorElementType, C1-C13).

``quantized_element_types(key, shape=...)`` draws a valid type: any integer storage type
(or the one ``key`` names: "q.i8", "q.ui4", a storage type name, or a QuantizedElementType
whose storage and expressed types are kept), expressed type f16/bf16/f32, scales positive and
finite -- ordinary ones, powers of two, and extreme ones (tiny, huge, subnormal in the
expressed type) --, zero points anywhere in [storage_min, storage_max] including the bounds,
sometimes a narrowed storage range, and, when ``shape`` has a dimension to quantize along and
``per_axis`` allows it, per-axis quantization.  ``storage_values`` draws storage integers
that reach the clamp bounds and the rounding ties of a requantization on purpose.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from oracle.quantization import VERIFIABLE_STORAGE_TYPES
from oracle.registry import all_ops
from oracle.types import ELEMENT_TYPES, QuantizedElementType, as_element_type

from .modules import build_module
from .ops import samplers_of

EXPRESSED = ("f16", "bf16", "f32")
#: The storage types a program can carry (oracle.quantization says why; its formulas handle every
#: integer storage type, suites/test_quantization.py).
STORAGE_TYPES = VERIFIABLE_STORAGE_TYPES
#: Keys naming "a quantized type with this storage type" (an op x storage type grid).
QUANTIZED_KEYS = tuple(f"q.{t.name}" for t in STORAGE_TYPES)


def _storage_of(key):
    if key is None:
        return None
    if isinstance(key, QuantizedElementType):
        return key.storage_type
    name = str(key)
    return as_element_type(name[2:] if name.startswith("q.") else name)


def _scales(expressed):
    ex = ELEMENT_TYPES[expressed] if isinstance(expressed, str) else expressed
    fi = ex.finfo
    tiny, big = float(fi.smallest_subnormal), float(fi.max)
    return st.one_of(
        st.sampled_from([1.0, 0.5, 0.25, 0.1, 2.0, 3.0, 0.0078125]),
        st.floats(1e-3, 1e3, allow_nan=False, allow_infinity=False),
        st.sampled_from([tiny, float(fi.tiny), big / 4, 2.0 ** -20]),  # extreme scales
    ).map(lambda s: float(np.asarray(s, np.float64).astype(ex.dtype).astype(np.float64))).filter(
        lambda s: 0 < s < float("inf"))


@st.composite
def quantized_element_types(draw, key=None, *, shape=(), expressed=None, per_axis: bool = True):
    storage = _storage_of(key) or draw(st.sampled_from(STORAGE_TYPES))
    if expressed is None:
        expressed = key.expressed_type if isinstance(key, QuantizedElementType) else \
            ELEMENT_TYPES[draw(st.sampled_from(EXPRESSED))]
    lo, hi = storage.min_value, storage.max_value
    if draw(st.integers(0, 4)) == 0:  # narrowed storage range (C3)
        a = draw(st.integers(lo, hi - 1))
        b = draw(st.integers(a + 1, hi))
        smin, smax = (a, b) if (a, b) != (lo, hi) else (None, None)
    else:
        smin = smax = None
    qmin, qmax = (lo if smin is None else smin), (hi if smax is None else smax)
    zero_point = st.one_of(st.sampled_from([qmin, qmax, max(qmin, min(qmax, 0))]), st.integers(qmin, qmax))
    qdim = None
    if per_axis and len(shape) and draw(st.integers(0, 3)) == 0:
        qdim = draw(st.integers(0, len(shape) - 1))
    n = 1 if qdim is None else shape[qdim]
    if n == 0:
        qdim, n = None, 1  # an empty dimension has no scales to give (C13); per-tensor then
    scales = tuple(draw(st.lists(_scales(expressed), min_size=n, max_size=n)))
    zps = tuple(draw(st.lists(zero_point, min_size=n, max_size=n)))
    qt = QuantizedElementType(storage, expressed, scales, zps, smin, smax, qdim)
    qt.verify()
    return qt


def storage_values(qt: QuantizedElementType, shape, draw) -> np.ndarray:
    """Storage integers of ``shape`` in [storage_min, storage_max]: the bounds, the zero
    point and its neighbours, and anything in between."""
    zp = [int(z) for z in qt.zero_points]
    edges = sorted({qt.min, qt.max, *zp, *(max(qt.min, z - 1) for z in zp), *(min(qt.max, z + 1) for z in zp)})
    n = int(np.prod(shape, dtype=np.int64))
    vals = draw(st.lists(st.one_of(st.sampled_from(edges), st.integers(qt.min, qt.max)), min_size=n, max_size=n))
    wide = np.uint64 if qt.storage_type.is_unsigned else np.int64
    return np.array(vals, dtype=wide).astype(qt.storage_type.dtype).reshape(shape)


# ------------------------------------------------------------ quantized forms of ops

#: The expressed type a quantized form of an op is drawn from (its float signature).
FORM_EXPRESSED = "f32"


def is_quantized_key(name) -> bool:
    return isinstance(name, str) and name.startswith("q.")


def __getattr__(name):
    """``NOT_RETYPED``: ops that take quantized tensors but whose quantized forms are not drawn
    by retyping a float signature (records with ``retype_quantized=False``): literals (a
    constant's value), triangular_solve (its quantized operands need per-op scales) and
    bitcast_convert (its shapes follow the element types' bit widths); process grids are left
    out by family.  A view over the op records (mnemonics)."""
    if name == "NOT_RETYPED":
        return frozenset(info.mnemonic for info in all_ops().values() if not info.retype_quantized)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def quantized_form_supported(info) -> bool:
    """Ops whose spec takes quantized tensors (oracle.quantization's hooks) and whose quantized
    form is drawn by ``quantized_signature``."""
    from oracle.quantization import quantized_semantics
    return (quantized_semantics(info) is not None and samplers_of(info).draw_signature is not None
            and info.retype_quantized and info.family != "collectives")


def quantized_signature(draw, info, key: str, draw_signature=None) -> tuple:
    """The op's signature drawn for f32, with every f32 tensor type replaced by ONE quantized
    type of the key's storage type (per-tensor, expressed f32): the baseline types of the
    operands and results then agree, as the ops' quantized constraints want.  Signatures the
    StableHLO verifier still refuses (some ops constrain quantized types further) are rejected
    (``hypothesis.assume``), so every drawn program verifies.  Returns (quantized signature,
    float signature).  ``draw_signature``: an attribute class's (default: the op's); where it
    gives None (the class does not apply), so does this."""
    from hypothesis import assume

    from oracle import ir as oir
    from oracle.errors import MlirError
    from oracle.mlir_text import parse_module, print_module
    from oracle.registry import Signature

    sig = (draw_signature or samplers_of(info).draw_signature)(draw, ELEMENT_TYPES[FORM_EXPRESSED])
    if sig is None:
        return None
    assume(sig.grid == (1, 1))
    assume(not any(isinstance(a, oir.DenseElements) and a.type.element_type.name == FORM_EXPRESSED
                   for a in sig.attributes.values()))
    qt = draw(quantized_element_types(key, expressed=ELEMENT_TYPES[FORM_EXPRESSED], per_axis=False))

    def retype(t):
        from oracle.types import TensorType
        if isinstance(t, TensorType) and getattr(t.element_type, "name", None) == FORM_EXPRESSED:
            return TensorType(t.shape, qt)
        return t
    regions = tuple(_retyped_region(r() if callable(r) else r, retype) for r in sig.regions)
    quantized = Signature(tuple(map(retype, sig.operand_types)), sig.attributes,
                          tuple(map(retype, sig.result_types)), regions, sig.grid)
    assume(quantized != sig)
    try:
        parse_module(print_module(build_module(info.name, quantized)))
    except MlirError:
        assume(False)
    return quantized, sig


def _retyped_region(region, retype):
    """A body with every f32 scalar retyped (its ops then run on quantized scalars, each by its
    own quantized rule); bodies with f32 literals are left alone (the verifier then refuses)."""
    from oracle import ir as oir
    values: dict = {}

    def value(v):
        if v not in values:
            values[v] = oir.Value(retype(v.type), v.name)
        return values[v]
    args = tuple(value(a) for a in region.arguments)
    ops = tuple(oir.Op(op.name, tuple(value(v) for v in op.operands), tuple(value(v) for v in op.results),
                       op.attributes, tuple(_retyped_region(r, retype) for r in op.regions), op.location)
                for op in region.ops)
    return oir.Region(args, ops)


def quantized_inputs(draw, info, quantized, float_sig, draw_inputs=None) -> list:
    """The op's inputs (its own draw_inputs on the float signature: indices, shapes, ...) with
    storage values for every operand whose type became quantized.  ``draw_inputs``: an
    attribute class's, whose values matter (ties, ...): its float values are quantized."""
    from generators.tensors import input_sets
    from oracle.quantization import quantize
    if draw_inputs is not None:
        inputs = list(draw_inputs(draw, float_sig))
        return [quantize(x, q) if q != f else x for x, q, f in zip(inputs, quantized.operand_types,
                                                                    float_sig.operand_types)]
    inputs = list(samplers_of(info).draw_inputs(draw, float_sig)) if samplers_of(info).draw_inputs is not None else None
    storage = draw(input_sets(quantized))
    if inputs is None:
        return storage
    return [s if q != f else x for x, s, q, f in zip(inputs, storage, quantized.operand_types, float_sig.operand_types)]
