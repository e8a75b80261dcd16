"""How pad, dynamic_pad, reverse, dynamic_slice and dynamic_update_slice are drawn (the oracle's
evaluation: oracle/ops/indexing.py), and the index drawing that gather and scatter share.

Index values are mostly in the interesting range, with negative ones, ones past the end and the
index type's extremes on purpose; the attribute classes pin the values around each op's clamp.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from oracle import ir
from oracle.registry import Signature
from oracle.types import ELEMENT_TYPES, TensorType, as_element_type

from . import samplers
from .elements import drawn_elements, integers, pick, sampled_from
from .structural import data_class, distinct_inputs, distinct_sides, equal_sides

__all__ = ["index_types", "draw_index_values", "draw_data"]

_INT64_MAX = np.iinfo(np.int64).max


# ------------------------------------------------------------------ shared helpers

_INDEX_TYPES = ("i32", "i64", "i8", "i16", "ui8", "ui32", "ui64", "i4", "ui16")


def index_types(draw, names=_INDEX_TYPES):
    """An integer element type for indices: mostly the common ones, sometimes narrow/unsigned."""
    return ELEMENT_TYPES[draw(st.sampled_from(names))]


def draw_index_values(draw, et, shape, low: int, high: int) -> np.ndarray:
    """Index values of type ``et``: mostly in [low, high] (the interesting range), plus
    negative ones, ones past the end and the type's extremes, on purpose."""
    lo_t, hi_t = int(et.min_value), int(et.max_value)
    n = int(np.prod(shape, dtype=np.int64))
    ranges = ((low, max(low, high)), (low, max(low, high)), (low - 3, low - 1), (high + 1, high + 3))
    extremes = (lo_t, hi_t, -1, 0)
    choices = st.one_of(*(st.integers(a, b) for a, b in ranges), st.sampled_from(extremes))
    values = drawn_elements(draw, n, choices, lambda rng, k: pick(rng, k, *(integers(a, b) for a, b in ranges),
                                                                  sampled_from(extremes)))
    values = [min(max(v, lo_t), hi_t) for v in values]
    return np.array(values, dtype=object).astype(np.int64 if et.is_signed or hi_t < 2**63 else np.uint64) \
        .astype(et.dtype).reshape(shape)


def draw_data(draw, t: TensorType, salt: int = 0) -> np.ndarray:
    tensors = draw.tensors
    return draw(tensors(t.element_type, t.shape, salt=salt))


def _scalar_type(et) -> TensorType:
    return TensorType((), et)


# ------------------------------------------------------------------------------ pad

def _draw_paddings(draw, shape):
    """(low, high, interior) for ``shape``, negative edges included, result sizes >= 0."""
    low, high, interior = [], [], []
    for n in shape:
        i = draw(st.integers(0, 2))
        size = n + max(n - 1, 0) * i
        lo = draw(st.integers(-size, 3))
        hi = draw(st.integers(max(-(size + lo), -3), 3))
        low.append(lo)
        high.append(hi)
        interior.append(i)
    result = tuple(n + lo + max(n - 1, 0) * i + hi for n, lo, hi, i in zip(shape, low, high, interior))
    return tuple(low), tuple(high), tuple(interior), result


def _pad_signature(et, shape, low, high, interior) -> Signature:
    shape, low, high, interior = (tuple(int(v) for v in a) for a in (shape, low, high, interior))
    result = tuple(n + lo + max(n - 1, 0) * i + hi for n, lo, hi, i in zip(shape, low, high, interior))  # (C4)
    attrs = {"edge_padding_low": ir.DenseArray("i64", low), "edge_padding_high": ir.DenseArray("i64", high),
             "interior_padding": ir.DenseArray("i64", interior)}
    return Signature((TensorType(shape, et), _scalar_type(et)), attrs, (TensorType(result, et),))


def _draw_pad(draw, element_type):
    shapes = draw.shapes
    et = as_element_type(element_type)
    shape = draw(shapes(max_rank=3, max_side=4))
    low, high, interior, _ = _draw_paddings(draw, shape)
    return _pad_signature(et, shape, low, high, interior)


def _pad_inputs(draw, sig):
    """A padding value that is not zero (a backend that pads with zeros shows) and that no
    operand element equals (the padding shows where it lands), operand elements that all differ
    (a misplaced element shows)."""
    operand_t, value_t = sig.operand_types[:2]
    (value,) = distinct_inputs(draw, [value_t], avoid=np.zeros((), value_t.element_type.dtype)[()])
    return distinct_inputs(draw, [operand_t], avoid=value[()]) + [value]


def _cropping(draw, size: int) -> tuple[int, int]:
    """(low, high), both negative, each removing at most half of ``size`` (>= 3) elements, at
    least one left."""
    half = max(1, (size - 1) // 2)
    return draw(st.integers(-half, -1)), draw(st.integers(-half, -1))


def _pad_negative(draw, et):
    shape = distinct_sides(draw, 2, 3, 7)
    edges = [_cropping(draw, n) for n in shape]
    return _pad_signature(et, shape, [e[0] for e in edges], [e[1] for e in edges], (0, 0))


def _pad_interior(draw, et):
    shape = distinct_sides(draw, 2, 2, 5)
    interior = [draw(st.integers(1, 3)) for _ in shape]
    return _pad_signature(et, shape, [draw(st.integers(0, 2)) for _ in shape],
                          [draw(st.integers(0, 2)) for _ in shape], interior)


def _pad_interior_cropped(draw, et):
    """Interior padding and negative edges on one dimension: the edges cut into the
    interior-padded operand (at an element or at padding)."""
    shape = distinct_sides(draw, 2, 3, 6)
    d = draw(st.integers(0, 1))
    interior, low, high = [0, 0], [0, 0], [0, 0]
    interior[d] = draw(st.integers(1, 2))
    low[d], high[d] = _cropping(draw, shape[d] + (shape[d] - 1) * interior[d])
    low[1 - d], high[1 - d] = draw(st.integers(0, 2)), draw(st.integers(0, 2))
    return _pad_signature(et, shape, low, high, interior)


def _pad_mixed_signs(draw, et):
    """low < 0 < high on one dimension, high < 0 < low on the other."""
    shape = distinct_sides(draw, 2, 3, 7)
    d = draw(st.integers(0, 1))
    low, high = [0, 0], [0, 0]
    low[d], high[d] = draw(st.integers(-(shape[d] - 1), -1)), draw(st.integers(1, 3))
    low[1 - d], high[1 - d] = draw(st.integers(1, 3)), draw(st.integers(-(shape[1 - d] - 1), -1))
    return _pad_signature(et, shape, low, high, (0, 0))


def _pad_crop_to_zero(draw, et):
    """low + high = -(size of the interior-padded dimension): a size-0 result dimension."""
    shape = distinct_sides(draw, 2, 2, 6)
    d = draw(st.integers(0, 1))
    interior, low, high = [0, 0], [1, 1], [1, 1]
    interior[d] = draw(st.integers(0, 1))
    size = shape[d] + (shape[d] - 1) * interior[d]
    low[d] = draw(st.integers(-size, 0))
    high[d] = -size - low[d]
    return _pad_signature(et, shape, low, high, interior)


def _pad_empty_operand(draw, et):
    """A size-0 operand dimension with interior and positive edge padding: max(n - 1, 0) in
    (C4) gives lo + hi, every element the padding value."""
    shape = list(distinct_sides(draw, 2, 2, 5))
    d = draw(st.integers(0, 1))
    shape[d] = 0
    interior = [draw(st.integers(1, 2)), draw(st.integers(0, 2))]
    return _pad_signature(et, shape, [draw(st.integers(1, 3)) for _ in shape], [draw(st.integers(0, 2)) for _ in shape],
                          interior)


def _pad_sub_byte(draw, et):
    """Types narrower than a byte only: odd sides, positive edges and interior padding on both
    dimensions, so result rows start and end inside a packed byte (the other classes spread
    over a family's widths leave 2- and 4-bit types cropped, empty or scalar cases)."""
    if et.bits >= 8:
        return None
    shape = draw(st.permutations((3, 5)))
    return _pad_signature(et, shape, [draw(st.integers(1, 3)) for _ in shape], [draw(st.integers(1, 3)) for _ in shape],
                          [draw(st.integers(1, 2)) for _ in shape])


def _pad_rank0(draw, et):
    return _pad_signature(et, (), (), (), ())


def _pad_class(name, why, draw_signature):
    return data_class(name, why, draw_signature, _pad_inputs)


_PAD_SPACE = (
    _pad_class("negative-edges", "pad: negative edge_padding_low and edge_padding_high on every dimension "
               "remove elements (cropping)", _pad_negative),
    _pad_class("interior", "pad (C3): interior_padding > 0 on every dimension, padding between elements",
               _pad_interior),
    _pad_class("interior-and-negative", "pad: 'Interior padding occurs before edge padding such that negative "
               "edge padding will remove elements from the interior-padded operand'", _pad_interior_cropped),
    _pad_class("mixed-signs", "pad: low < 0 < high on one dimension, high < 0 < low on the other",
               _pad_mixed_signs),
    _pad_class("crop-to-zero", "pad (C4): edge paddings that crop a whole dimension to size 0",
               _pad_crop_to_zero),
    _pad_class("empty-operand", "pad (C4): max(shape(operand) - 1, 0) * interior_padding of a size-0 "
               "dimension: the result is all padding_value", _pad_empty_operand),
    _pad_class("rank0", "pad (C2): a rank-0 operand, empty padding lists", _pad_rank0),
    _pad_class("sub-byte-packed", "pad (C3, C4) on a type narrower than a byte (i1, 2- and 4-bit integers and "
               "floats): positive edges and interior padding on odd sides, rows that start and end inside a "
               "packed byte", _pad_sub_byte),
)


def _draw_dynamic_pad(draw, element_type):
    shapes = draw.shapes
    et = as_element_type(element_type)
    shape = draw(shapes(max_rank=3, max_side=4))
    *_, result = _draw_paddings(draw, shape)
    it = index_types(draw, ("i32", "i64", "i8", "i16"))  # signed: edge paddings may be negative
    vec = TensorType((len(shape),), it)
    return Signature((TensorType(shape, et), _scalar_type(et), vec, vec, vec), {}, (TensorType(result, et),))


def _draw_dynamic_pad_inputs(draw, sig):
    """Paddings that give the signature's result shape: interior and low are drawn, high follows."""
    operand_t, value_t, vec_t = sig.operand_types[:3]
    low, high, interior = [], [], []
    for n, out in zip(operand_t.shape, sig.result_types[0].shape):
        i = draw(st.integers(0, 2))
        size = n + max(n - 1, 0) * i
        lo = draw(st.integers(-size, out))
        low.append(lo)
        interior.append(i)
        high.append(out - size - lo)
    it = vec_t.element_type
    return [draw_data(draw, operand_t), draw_data(draw, value_t, 1)] + \
        [np.array(v, dtype=np.int64).astype(it.dtype) for v in (low, high, interior)]


# dynamic_pad's paddings are operands: its classes draw a result shape, and their draw_inputs
# paddings of the class that give it (interior and low drawn, high what is left: C4).

def _dynamic_pad_signature(draw, et, shape, result) -> Signature:
    vec = TensorType((len(shape),), index_types(draw, ("i32", "i64", "i8", "i16")))  # signed: negative edges
    return Signature((TensorType(tuple(shape), et), _scalar_type(et), vec, vec, vec), {},
                     (TensorType(tuple(result), et),))


def _dynamic_pad_interior(draw, et):
    """Every dimension interior-padded (1 or 2) plus 0 to 2 edge elements."""
    shape = distinct_sides(draw, 2, 2, 5)
    return _dynamic_pad_signature(draw, et, shape, [n + (n - 1) * draw(st.integers(1, 2)) + draw(st.integers(0, 2))
                                              for n in shape])


def _dynamic_pad_cropped(draw, et):
    """Every dimension 2 or more elements shorter than the operand's."""
    shape = distinct_sides(draw, 2, 3, 7)
    return _dynamic_pad_signature(draw, et, shape, [n - draw(st.integers(2, n - 1)) for n in shape])


def _dynamic_pad_any(draw, et):
    shape = distinct_sides(draw, 2, 2, 5)
    return _dynamic_pad_signature(draw, et, shape, [draw(st.integers(1, 8)) for _ in shape])


def _dynamic_pad_values(rule):
    """draw_inputs of a dynamic_pad class: ``rule(draw, n, out) -> (low, high, interior)`` per
    dimension, with the operand and a non-zero padding value as pad's classes draw them."""
    def draw_inputs(draw, sig):
        operand_t, _, vec_t = sig.operand_types[:3]
        low, high, interior = zip(*(rule(draw, n, out) for n, out in zip(operand_t.shape, sig.result_types[0].shape)))
        return _pad_inputs(draw, sig) + [np.array(v, dtype=np.int64).astype(vec_t.element_type.dtype)
                                         for v in (low, high, interior)]
    return draw_inputs


def _interior_values(draw, n, out):
    i = draw(st.integers(1, (out - n) // (n - 1)))
    size = n + (n - 1) * i
    low = draw(st.integers(0, out - size))
    return low, out - size - low, i


def _cropping_values(draw, n, out):
    low = draw(st.integers(out - n + 1, -1))
    return low, out - n - low, 0


def _interior_cropped_values(draw, n, out):
    i = draw(st.integers(1, 2))
    size = n + (n - 1) * i
    low = draw(st.integers(-(size - 1), -1))
    return low, out - size - low, i


_DYNAMIC_PAD_SPACE = (
    data_class("interior", "dynamic_pad (I5): interior_padding > 0 on every dimension (the holes get "
               "padding_value)", _dynamic_pad_interior, _dynamic_pad_values(_interior_values)),
    data_class("negative-edges", "dynamic_pad (I3, I4): negative edge paddings on every dimension "
               "(cropping)", _dynamic_pad_cropped, _dynamic_pad_values(_cropping_values)),
    data_class("interior-and-negative", "dynamic_pad: interior padding and a negative low edge on every "
               "dimension (the high edge takes the rest, either sign)", _dynamic_pad_any,
               _dynamic_pad_values(_interior_cropped_values)),
)


# -------------------------------------------------------------------------- reverse

def _reverse_signature(et, shape, dims) -> Signature:
    t = TensorType(tuple(shape), et)
    return Signature((t,), {"dimensions": ir.DenseArray("i64", tuple(int(d) for d in dims))}, (t,))


def _draw_reverse(draw, element_type):
    shapes = draw.shapes
    et = as_element_type(element_type)
    shape = draw(shapes(max_rank=4))
    return _reverse_signature(et, shape, draw(st.permutations(range(len(shape))))[:draw(st.integers(0, len(shape)))])


def _reverse_all(draw, et):
    return _reverse_signature(et, distinct_sides(draw, 3, 2, 6), draw(st.permutations(range(3))))


def _reverse_middle(draw, et):
    """The two middle dimensions of rank 4 (listed in either order), not the outer ones."""
    return _reverse_signature(et, distinct_sides(draw, 4, 2, 5), draw(st.permutations((1, 2))))


def _reverse_last(draw, et):
    rank = draw(st.integers(2, 3))
    return _reverse_signature(et, distinct_sides(draw, rank, 2, 7), (rank - 1,))


def _reverse_with_side(side: int):
    """A dimension of size ``side`` reversed together with another one."""
    def draw_signature(draw, et):
        shape = list(distinct_sides(draw, 3, 2, 6))
        d, other = draw(st.permutations(range(3)))[:2]
        shape[d] = side
        return _reverse_signature(et, shape, draw(st.permutations((d, other))))
    return draw_signature


def _reverse_cube(draw, et):
    """One or two of the dimensions of a cube (never only the innermost)."""
    dims = draw(st.permutations(range(3)))[:draw(st.integers(1, 2))]
    if list(dims) == [2]:
        dims = [0]
    return _reverse_signature(et, equal_sides(draw, 3, 2, 5), dims)


def _reverse_none(draw, et):
    return _reverse_signature(et, distinct_sides(draw, draw(st.integers(1, 3)), 2, 6), ())


_REVERSE_SPACE = (
    data_class("all-dims", "reverse: every dimension of rank 3 in dimensions (in a drawn order)", _reverse_all),
    data_class("middle-subset", "reverse: the two middle dimensions of rank 4, the outer ones kept",
               _reverse_middle),
    data_class("last-dim", "reverse (C3) high edge: only the innermost dimension", _reverse_last),
    data_class("cube", "reverse on coinciding sizes: one or two dimensions of a cube, where a "
               "dimension numbered from the other end, or one stride used for every dimension, keeps the "
               "shape and moves the values", _reverse_cube),
    data_class("size1-dim", "reverse: a size-1 dimension reversed (dim - 0 - 1 = 0) with another one",
               _reverse_with_side(1)),
    data_class("size0-dim", "reverse: a size-0 dimension reversed with another one (no elements)",
               _reverse_with_side(0)),
    data_class("no-dims", "reverse (C2, C3): empty dimensions, the result is the operand", _reverse_none),
)


# ---------------------------------------------------- dynamic_slice / dynamic_update_slice

def _draw_starts(draw, sig, sizes, first: int):
    """Operand data first, then start indices around [0, dim - size] (and beyond)."""
    operand_t = sig.operand_types[0]
    it = sig.operand_types[first].element_type if len(sig.operand_types) > first else None
    data = [draw_data(draw, t, k) for k, t in enumerate(sig.operand_types[:first])]
    starts = [draw_index_values(draw, it, (), 0, n - s) for n, s in zip(operand_t.shape, sizes)]
    return data + starts


def _dynamic_slice_signature(et, shape, sizes, it) -> Signature:
    operands = (TensorType(tuple(shape), et),) + (_scalar_type(it),) * len(shape)
    return Signature(operands, {"slice_sizes": ir.DenseArray("i64", tuple(sizes))}, (TensorType(tuple(sizes), et),))


def _draw_dynamic_slice(draw, element_type):
    shapes = draw.shapes
    et = as_element_type(element_type)
    shape = draw(shapes(max_rank=3))
    sizes = tuple(draw(st.integers(0, n)) for n in shape)
    return _dynamic_slice_signature(et, shape, sizes, index_types(draw))


def _draw_dynamic_slice_inputs(draw, sig):
    return _draw_starts(draw, sig, sig.result_types[0].shape, 1)


def _dynamic_update_slice_signature(et, shape, update, it) -> Signature:
    t = TensorType(tuple(shape), et)
    return Signature((t, TensorType(tuple(update), et)) + (_scalar_type(it),) * len(shape), {}, (t,))


def _draw_dynamic_update_slice(draw, element_type):
    shapes = draw.shapes
    et = as_element_type(element_type)
    shape = draw(shapes(max_rank=3))
    update = tuple(draw(st.integers(0, n)) for n in shape)
    return _dynamic_update_slice_signature(et, shape, update, index_types(draw))


def _draw_dynamic_update_slice_inputs(draw, sig):
    return _draw_starts(draw, sig, sig.operand_types[1].shape, 2)


# Attribute classes of dynamic_slice / dynamic_update_slice: each pins the slice (update) sizes,
# the index type and the start index VALUES (its draw_inputs), around the clamp
# adjusted_start_indices = clamp(0, start_indices, shape(operand) - sizes).

_SIGNED_INDEX = ("i8", "i16", "i32", "i64")


_UNSIGNED_INDEX = ("ui8", "ui16", "ui32", "ui64")


def _index_scalar(it, value: int) -> np.ndarray:
    """A 0-d start index of type ``it`` holding ``value`` (which it can represent)."""
    return np.array(value, dtype=np.uint64 if value > _INT64_MAX else np.int64).astype(it.dtype)


def _some_sizes(draw, shape, room: int = 1):
    """Sizes in [1, n - room] per dimension (a clamp range [0, n - size] of at least room)."""
    return tuple(draw(st.integers(1, n - room)) for n in shape)


def _full_sizes(draw, shape):
    """Some dimensions (at least one) of size n, the others in [1, n - 1]."""
    full = set(draw(st.permutations(range(len(shape))))[:draw(st.integers(1, len(shape)))])
    return tuple(n if d in full else draw(st.integers(1, n - 1)) for d, n in enumerate(shape))


def _below(draw, it, n, size):
    return draw(st.one_of(st.integers(-(n + 2), -1), st.just(int(it.min_value))))


def _past(draw, it, n, size):
    return min(draw(st.one_of(st.integers(n - size + 1, n + 2), st.just(int(it.max_value)))), int(it.max_value))


def _edge(draw, it, n, size):
    return n - size


def _inside(draw, it, n, size):
    """Strictly inside the clamp range where it has room: 0 < start < n - size."""
    return draw(st.integers(min(1, n - size), max(n - size - 1, min(1, n - size))))


def _top_bit(draw, it, n, size):
    return draw(st.integers(1 << (it.bits - 1), (1 << it.bits) - 1))


def _type_extreme(draw, it, n, size):
    return draw(st.sampled_from((int(it.min_value), int(it.max_value))))


def _each(rule):
    """The same rule for every dimension."""
    def starts(draw, it, shape, sizes):
        return [rule(draw, it, n, s) for n, s in zip(shape, sizes)]
    return starts


def _one_out_of_range(draw, it, shape, sizes):
    """One dimension below 0 or past the limit, the others strictly inside their range."""
    out = draw(st.integers(0, len(shape) - 1))
    wrong = draw(st.sampled_from((_below, _past))) if it.is_signed else _past
    return [(wrong if d == out else _inside)(draw, it, n, s) for d, (n, s) in enumerate(zip(shape, sizes))]


def _full_dims(draw, it, shape, sizes):
    """A start other than 0 where the size is the whole dimension (it clamps to 0), inside elsewhere."""
    nonzero = st.one_of(st.integers(1, 3), st.just(int(it.max_value)))
    if it.is_signed:
        nonzero = st.one_of(nonzero, st.integers(-3, -1))
    return [draw(nonzero) if s == n else _inside(draw, it, n, s) for n, s in zip(shape, sizes)]


#: (name, why, index types, sizes(draw, shape), starts(draw, index type, shape, sizes))
_START_CLASSES = (
    ("start-below-zero", "start indices < 0 on every dimension clamp to 0", _SIGNED_INDEX, _some_sizes,
     _each(_below)),
    ("start-past-limit", "start indices > dim - size on every dimension (up to the index type's max) "
     "clamp to dim - size", _INDEX_TYPES, _some_sizes, _each(_past)),
    ("start-at-edge", "start indices = dim - size exactly: the clamp's upper edge, kept",
     _INDEX_TYPES, _some_sizes, _each(_edge)),
    ("one-dim-out-of-range", "clamping per dimension: one start out of range, the others strictly "
     "inside (0 < start < dim - size, kept)", _INDEX_TYPES, lambda draw, shape: _some_sizes(draw, shape, 2),
     _one_out_of_range),
    ("size-equals-dim", "a size equal to its dimension: shape(operand) - size = 0, so any start "
     "(1, max, -1) clamps to 0", _INDEX_TYPES, _full_sizes, _full_dims),
    ("unsigned-top-bit", "unsigned start indices (ui8 to ui64) with the top bit set: large, clamp "
     "to dim - size (read as signed they would be negative and clamp to 0)", _UNSIGNED_INDEX, _some_sizes,
     _each(_top_bit)),
    ("narrow-signed-extremes", "narrow signed start indices (i4, i8, i16) at their type's min and max",
     ("i4", "i8", "i16"), _some_sizes, _each(_type_extreme)),
)


def _start_space(signature, sizes_of, first: int) -> tuple:
    """The attribute classes of _START_CLASSES for one op: ``signature(et, shape, sizes, it)``
    builds its signature, ``sizes_of(sig)`` reads the sizes back, ``first`` is the operand
    number of the first start index."""
    def space_class(name, why, index_names, sizes_rule, starts_rule):
        def draw_signature(draw, et):
            shape = distinct_sides(draw, draw(st.integers(2, 3)), 3, 7)
            return signature(et, shape, sizes_rule(draw, shape), index_types(draw, index_names))

        def draw_inputs(draw, sig):
            shape, sizes = sig.operand_types[0].shape, sizes_of(sig)
            it = sig.operand_types[first].element_type
            starts = starts_rule(draw, it, shape, sizes)
            return distinct_inputs(draw, sig.operand_types[:first]) + [_index_scalar(it, v) for v in starts]
        return data_class(name, why, draw_signature, draw_inputs)
    return tuple(space_class(*c) for c in _START_CLASSES)


samplers("stablehlo.pad", draw_signature=_draw_pad, attribute_space=_PAD_SPACE)
samplers("stablehlo.dynamic_pad", draw_signature=_draw_dynamic_pad, draw_inputs=_draw_dynamic_pad_inputs,
         attribute_space=_DYNAMIC_PAD_SPACE)
samplers("stablehlo.reverse", draw_signature=_draw_reverse, attribute_space=_REVERSE_SPACE)
samplers("stablehlo.dynamic_slice", draw_signature=_draw_dynamic_slice, draw_inputs=_draw_dynamic_slice_inputs,
         attribute_space=_start_space(_dynamic_slice_signature, lambda sig: sig.result_types[0].shape, 1))
samplers("stablehlo.dynamic_update_slice", draw_signature=_draw_dynamic_update_slice,
         draw_inputs=_draw_dynamic_update_slice_inputs,
         attribute_space=_start_space(_dynamic_update_slice_signature, lambda sig: sig.operand_types[1].shape, 2))
