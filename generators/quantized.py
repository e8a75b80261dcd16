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

from oracle.types import ELEMENT_TYPES, INTEGERS, QuantizedElementType, as_element_type

EXPRESSED = ("f16", "bf16", "f32")
#: MLIR's quant dialect refuses storage wider than 32 bits ("illegal storage type size: 64") and the
#: StableHLO op verifiers accept only signed storage ("per-tensor integer quantized" excludes uiN);
#: the oracle's formulas handle every integer storage type (suites/test_quantization.py).
STORAGE_TYPES = tuple(t for t in INTEGERS if t.bits <= 32 and t.is_signed)
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
