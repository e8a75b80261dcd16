"""How sort is drawn (the oracle's evaluation: oracle/ops/sorting.py).

Keys come from a few values (many ties) and an i32 payload numbers the elements in input order,
so the payload shows the order a sort chose; the comparators are generators.regions' menu.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from oracle import ir
from oracle.registry import Signature
from oracle.types import TensorType, as_element_type

from . import AttributeClass, samplers
from .linalg import planted_values


def _draw_sort(draw, element_type):
    """1-3 inputs (the key of ``element_type``, then ``element_type`` or i32 payloads), any
    comparator of the menu (strict weak orders and not), dimension negative or not."""
    comparators = draw.comparators
    shapes = draw.shapes
    et = as_element_type(element_type)
    types = [et] + [draw(st.sampled_from([et, as_element_type("i32")])) for _ in range(draw(st.integers(0, 2)))]
    body = draw(comparators(types))
    shape = draw(shapes(min_rank=1, max_rank=3, max_side=6))
    rank = len(shape)
    dimension = draw(st.integers(-rank, rank - 1))
    stable = draw(st.booleans()) if draw(st.integers(0, 3)) else None
    return _sort_signature(types, shape, dimension, stable, body.region)


def _sort_signature(types, shape, dimension: int, stable: bool | None, region) -> Signature:
    """sort's Signature: inputs (and results) of ``types`` and ``shape``; ``stable`` None: no
    is_stable attribute (false)."""
    attrs = {"dimension": ir.IntegerAttr(dimension, "i64")}
    if stable is not None:
        attrs["is_stable"] = ir.BoolAttr(stable)
    ts = tuple(TensorType(tuple(shape), t) for t in types)
    return Signature(ts, attrs, ts, (region,))


# ------------------------------------------------------------------ attribute classes
# The shapes, attributes and key values whose semantics the spec distinguishes
# (AttributeClass).  Keys come from a few values (many ties) and an i32 payload
# numbers the elements in input order, so the payload shows the order a sort chose.

def _key_values(et) -> np.ndarray:
    """Three distinct, ascending keys of ``et`` (two for i1); complex keys ascending in their real
    parts (the comparators menu orders complex keys by the real part)."""
    if et.is_bool:
        return np.array([False, True])
    if et.is_integer:
        return np.array([-1, 0, 1] if et.is_signed else [0, 1, 2]).astype(et.dtype)
    if et.is_complex:
        return np.array([-1.5 + 0.5j, 0.5 - 1j, 2 + 0.25j]).astype(et.dtype)
    return np.array([-1.5, 0.5, 2.0] if et.has_negative_zero else [0.5, 1.0, 2.0]).astype(et.dtype)


def _signed_zero_keys(et) -> np.ndarray | None:
    """-0, +0 and 1 (real parts of complex keys), which compare(LT, FLOAT) calls equal twice."""
    if et.is_complex:
        return np.array([complex(-0.0, 1.0), complex(0.0, 1.0), complex(1.0, 1.0)]).astype(et.dtype)
    if et.is_float and et.has_negative_zero:
        return np.array([-0.0, 0.0, 1.0]).astype(et.dtype)
    return None


def _total_order_keys(et) -> np.ndarray | None:
    """+-NaN, +-inf, +-1, +-0 as the type has them: IEEE totalOrder (-NaN < -inf < -1 < -0 < +0 <
    1 < inf < NaN) orders them all; None for the formats IEEE does not cover (no -0: FNUZ, E8M0)."""
    if not (et.is_float and et.has_negative_zero):
        return None
    magnitudes = [0.0, 1.0] + ([np.inf] if et.has_infinity else []) + ([np.nan] if et.has_nan else [])
    with np.errstate(invalid="ignore"):
        positive = np.array(magnitudes).astype(et.dtype)
    return np.concatenate([positive, -positive])


def _picked(draw, values: np.ndarray, shape) -> np.ndarray:
    """An array of ``shape`` whose elements are drawn from ``values`` (each one used where the
    size allows), in a drawn order."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = int(np.prod(shape, dtype=np.int64))
    index = rng.permutation(np.resize(np.arange(len(values)), n)) if n else np.zeros(0, np.int64)
    return values[index].reshape(shape)


def _numbered(t, shape) -> np.ndarray:
    """Elements numbered 0, 1, 2, ... in row-major input order (mod 256), as type ``t``."""
    n = int(np.prod(shape, dtype=np.int64))
    return (np.arange(n) % (2 if t.is_bool else 256)).astype(t.dtype).reshape(shape)


def _sort_class(name: str, why: str, structure, keys, comparator: str = "lt", *, stable: bool = True,
                payload_of_key: bool = False) -> AttributeClass:
    """``structure(draw, et)`` -> (shape, dimension, payload element types); ``keys(et)`` -> the
    key values to draw from (None: the class does not apply to this type); ``comparator``: its
    name in generators.regions' comparator menu; payloads number the elements in input order
    (``payload_of_key``: the key's rank instead, so equal keys are equal in every operand)."""
    def draw_signature(draw, et):
        if keys(et) is None:
            return None
        shape, dimension, payload_names = structure(draw, et)
        types = [et] + [as_element_type(p) for p in payload_names]
        region = draw(draw.comparators(types).filter(lambda b: b.name == comparator)).region
        return _sort_signature(types, shape, dimension, stable, region)

    def draw_inputs(draw, sig):
        key_t = sig.operand_types[0]
        values = keys(key_t.element_type)
        key = _picked(draw, values, key_t.shape)
        if payload_of_key:
            rank = np.argmax(key.reshape(-1)[:, None] == values[None, :], axis=1).reshape(key_t.shape)
            return [key] + [(rank * 3 + 1).astype(t.element_type.dtype) for t in sig.operand_types[1:]]
        return [key] + [_numbered(t.element_type, t.shape) for t in sig.operand_types[1:]]

    return AttributeClass(name, draw_signature, draw_inputs, why)


def _rank3(dimensions, payloads=("i32",)):
    """Rank 3, pairwise-different sizes, sorted along one of ``dimensions`` (spellings of one dim)."""
    def structure(draw, et):
        shape = draw(st.permutations(sorted(draw(st.sets(st.integers(2, 5), min_size=3, max_size=3)))))
        return tuple(shape), draw(st.sampled_from(dimensions)), payloads
    return structure


def _two_payloads(draw, et):
    """Rank 3 sorted along the middle dim, spelled -2 (adjusted_dimension), a key, an i32 payload
    and a payload of a third element type."""
    shape, dimension, _ = _rank3((-2,))(draw, et)
    other = draw(st.sampled_from([n for n in ("f32", "ui8", "i16", "f16", "i64") if n != et.name]))
    return shape, dimension, ("i32", other)


def _rank2(draw, et):
    shape = tuple(draw(st.permutations(sorted(draw(st.sets(st.integers(3, 8), min_size=2, max_size=2))))))
    return shape, draw(st.sampled_from((0, 1, -1))), ("i32",)


def _sized_dim(size: int):
    """Rank 2 or 3 (other sizes 2 to 5, pairwise different), the sort dim of size ``size``."""
    def structure(draw, et):
        rank = draw(st.integers(2, 3))
        shape = list(draw(st.permutations(sorted(draw(st.sets(st.integers(2, 5), min_size=rank, max_size=rank))))))
        dim = draw(st.integers(0, rank - 1))
        shape[dim] = size
        return tuple(shape), draw(st.sampled_from((dim, dim - rank))), ("i32",)
    return structure


def _large_sort_class() -> AttributeClass:
    """Rows of 512, where backends switch sorting algorithms (the oracle's merge sort of 2^17 keys
    takes seconds on 2^17 keys, so the rows are few): keys with NaN, +-inf
    and -0 planted, TOTALORDER for floats (a strict weak order with NaN), an i32 payload."""
    def draw_signature(draw, et):
        types = [et, as_element_type("i32")]
        name = "lt_totalorder" if et.is_float else "lt"
        region = draw(draw.comparators(types).filter(lambda b: b.name == name)).region
        return _sort_signature(types, LARGE_SORT_SHAPE, 1, True, region)

    def draw_inputs(draw, sig):
        key_t, payload_t = sig.operand_types
        return [planted_values(draw, key_t), _numbered(payload_t.element_type, payload_t.shape)]
    return AttributeClass("large", draw_signature, draw_inputs,
                          "sort of rows of 512 keys, where backends switch algorithms (vectorized, "
                          "parallel merges), NaN, +-inf and -0 planted at drawn positions")


LARGE_SORT_SHAPE = (4, 512)


_SORT_CLASSES = (
    _sort_class("ties-stable-last", "sort: is_stable = true keeps the input order of keys the comparator (LT) "
                "calls equal; keys from 2-3 values, sorted along the last dim of a rank-3 operand",
                _rank3((2,)), _key_values),
    _sort_class("ties-descending-first", "sort: a GT comparator sorts descending, stable ties keep input "
                "order; along dim 0 of a rank-3 operand", _rank3((0,)), _key_values, "gt"),
    _sort_class("two-payloads-middle", "sort (C1)-(C3), (C5): a key and payloads of two other element types "
                "permuted together; along the middle dim of a rank-3 operand, spelled -2 (adjusted_dimension)",
                _two_payloads, _key_values),
    _sort_class("signed-zero-ties", "sort with compare(LT, FLOAT): -0 and +0 compare equal (IEEE "
                "compareQuietLess), so a stable sort keeps them in input order", _rank2, _signed_zero_keys),
    _sort_class("nan-totalorder", "sort with compare(LT, TOTALORDER): a strict weak order even with NaN; -NaN < "
                "-inf < -1 < -0 < +0 < 1 < inf < NaN, ties (equal bits) stable", _rank2, _total_order_keys,
                "lt_totalorder"),
    _sort_class("sort-dim-size-0", "sort (C3), (C4): a sort dim of size 0 (empty operands, other dims not)",
                _sized_dim(0), _key_values),
    _sort_class("sort-dim-size-1", "sort: a sort dim of size 1 leaves every slice as it is", _sized_dim(1),
                _key_values),
    _sort_class("unstable-determined", "sort with is_stable = false: the order of equal keys is left open, but "
                "here equal keys are equal in every operand, so the results are still determined", _rank2,
                _key_values, stable=False, payload_of_key=True),
    _large_sort_class(),
)


samplers("stablehlo.sort", draw_signature=_draw_sort, attribute_space=_SORT_CLASSES)
