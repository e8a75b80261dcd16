"""How constant, iota, reshape, transpose, broadcast_in_dim, slice and concatenate are drawn (the
oracle's evaluation: oracle/ops/structural.py), and the helpers the data-movement families share.

Data movement only shows a wrong index where the elements it moves differ, so the attribute
classes' inputs are pairwise different values (``distinct_inputs``) and their sides differ
(``distinct_sides``).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from hypothesis import strategies as st

from oracle import ir
from oracle.registry import Signature
from oracle.types import ELEMENT_TYPES, ElementType, TensorType, as_element_type

from . import AttributeClass, samplers
from .elements import drawn_elements, integers

__all__ = ["values_of", "distinct_inputs", "distinct_operands", "distinct_sides", "equal_sides", "cycle", "data_class",
           "factorization", "broadcast_shapes"]


def values_of(et: ElementType, shape, draw):
    """A drawn array of ``shape`` whose elements are arbitrary bit patterns of ``et``
    (NaN payloads, infinities and subnormals included)."""
    n = math.prod(shape)
    if et.is_bool:
        return np.array(drawn_elements(draw, n, st.booleans(), lambda rng, k: rng.random(k) < 0.5),
                        dtype=bool).reshape(shape)
    if et.is_complex:
        comp = et.component
        re, im = values_of(comp, shape, draw), values_of(comp, shape, draw)
        out = np.empty(shape, dtype=et.dtype)
        out.real, out.imag = re, im
        return out
    patterns = drawn_elements(draw, n, st.integers(0, (1 << et.bits) - 1), integers(0, (1 << et.bits) - 1))
    return np.array(patterns, dtype=np.uint64).astype(et.storage_dtype).reshape(shape).view(et.dtype)


# ------------------------------------------------- attribute classes: shared helpers
# An attribute class (AttributeClass) pins the structure of a signature; the
# helpers below draw the rest.  Data movement only shows a wrong index where the elements it
# moves differ, so the classes' inputs are pairwise different values (``distinct_inputs``).

@functools.lru_cache(maxsize=None)
def _value_pool(name: str) -> np.ndarray | None:
    """Every value of a type of at most 16 bits, each once: finite, no NaN (any NaN matches any
    NaN in the judge), one zero; None for the wider types (their values are drawn)."""
    et = ELEMENT_TYPES[name]
    if et.is_bool:
        return np.array([False, True])
    if et.is_integer:
        return np.arange(int(et.min_value), int(et.max_value) + 1).astype(et.dtype) if et.bits <= 16 else None
    if et.bits > 16:
        return None
    pool = np.arange(1 << et.bits, dtype=np.uint64).astype(et.storage_dtype).view(et.dtype)
    with np.errstate(invalid="ignore"):
        wide = pool.astype(np.float64)
    return pool[np.isfinite(wide) & ~((wide == 0) & np.signbit(wide))]


def _distinct(rng: np.random.Generator, et: ElementType, n: int, avoid=None) -> np.ndarray:
    """``n`` values of ``et``, pairwise different as far as the type has values (else each value
    about equally often), shuffled, none equal to ``avoid``."""
    if et.is_complex:
        out = np.empty(n, dtype=et.dtype)  # distinct real parts make distinct values
        out.real = _distinct(rng, et.component, n, None if avoid is None else np.real(avoid))
        out.imag = _distinct(rng, et.component, n)
        return out
    pool = _value_pool(et.name)
    if pool is None:  # 32 / 64 bits: random bit patterns, different in all likelihood
        bits = rng.integers(0, 1 << et.bits, n, dtype=np.uint64, endpoint=False)
        if et.is_float:  # an all-ones exponent (inf, NaN) loses its top bit: finite
            top = np.uint64(1 << (et.bits - 2))
            values = bits.astype(et.storage_dtype).view(et.dtype)
            bits = np.where(np.isfinite(values), bits, bits & ~top)
        values = bits.astype(et.storage_dtype).view(et.dtype)
        if avoid is not None:  # flip the lowest bit of an equal one (still finite)
            values = np.where(values == avoid, (bits ^ np.uint64(1)).astype(et.storage_dtype).view(et.dtype), values)
        return values
    if avoid is not None and len(pool) > 1:
        with np.errstate(invalid="ignore"):
            pool = pool[~(pool == np.asarray(avoid, dtype=et.dtype))]
    if len(pool) >= n:
        return rng.choice(pool, n, replace=False)
    index = np.concatenate([np.tile(np.arange(len(pool)), n // len(pool)),
                            rng.choice(len(pool), n % len(pool), replace=False)])
    return pool[rng.permutation(index)]


def distinct_inputs(draw, types, avoid=None) -> list[np.ndarray]:
    """One array per TensorType of ``types`` (all of one element type), their elements pairwise
    different across all of them as far as the type has values, none equal to ``avoid``."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    types = list(types)
    flat = _distinct(rng, types[0].element_type, sum(math.prod(t.shape) for t in types), avoid) if types else []
    out, at = [], 0
    for t in types:
        n = math.prod(t.shape)
        out.append(np.array(flat[at:at + n], dtype=t.element_type.dtype).reshape(t.shape))
        at += n
    return out


def distinct_operands(draw, sig: Signature) -> list[np.ndarray]:
    """Inputs of an attribute class of a data-movement op: every operand element different."""
    return distinct_inputs(draw, sig.operand_types)


def distinct_sides(draw, rank: int, lo: int = 2, hi: int = 7, limit: int = 300) -> tuple[int, ...]:
    """``rank`` sizes in [lo, hi], pairwise different while the range allows (a dimension put in
    the wrong place then changes the shape), at most ``limit`` elements in all."""
    order = draw(st.permutations(range(lo, hi + 1)))
    sides = [order[i % len(order)] for i in range(rank)]
    while math.prod(sides) > limit:
        i = sides.index(max(sides))
        sides[i] -= 1
    return tuple(sides)


def equal_sides(draw, rank: int, lo: int = 2, hi: int = 5, limit: int = 300) -> tuple[int, ...]:
    """``rank`` equal sizes in [lo, hi] (a square, a cube), at most ``limit`` elements: the
    coinciding-sizes counterpart of ``distinct_sides``.  A backend that reads an attribute wrongly
    fails loudly (a shape error) where sizes differ, and silently -- wrong values in the right
    shape -- only where they coincide."""
    n = draw(st.integers(lo, hi))
    while n > lo and n ** rank > limit:
        n -= 1
    return (n,) * rank


def cycle(draw, items) -> dict:
    """A random cyclic permutation of ``items`` (one cycle through all of them) as a mapping."""
    order = draw(st.permutations(list(items)))
    return {order[i]: order[(i + 1) % len(order)] for i in range(len(order))}


def _elements_only(draw_signature):
    """An attribute class's draw_signature for plain element types (no quantized form)."""
    def draw_in_class(draw, element_type):
        et = as_element_type(element_type)
        return None if et.is_quantized else draw_signature(draw, et)
    return draw_in_class


def data_class(name: str, why: str, draw_signature, draw_inputs=distinct_operands) -> AttributeClass:
    """An attribute class of a data-movement op, its operands drawn by ``distinct_operands``."""
    return AttributeClass(name, _elements_only(draw_signature), draw_inputs, why)


# ------------------------------------------------------------------------- constant

def _draw_constant(draw, element_type):
    shapes = draw.shapes
    et = as_element_type(element_type)
    shape = draw(shapes(max_rank=3, max_side=4))
    t = TensorType(shape, et)
    return Signature((), {"value": ir.DenseElements(values_of(et, shape, draw), t)}, (t,))


# ----------------------------------------------------------------------------- iota

def _iota_signature(et, shape, dim) -> Signature:
    return Signature((), {"iota_dimension": ir.IntegerAttr(dim, "i64")}, (TensorType(tuple(shape), et),))


def _draw_iota(draw, element_type):
    shapes = draw.shapes
    et = as_element_type(element_type)
    shape = draw(shapes(min_rank=1, max_rank=3, max_side=6))
    dim = draw(st.integers(0, len(shape) - 1))
    return _iota_signature(et, shape, dim)


def _iota_along(which: int):
    """Rank 3, sides 2..6 all different (the generator's bound: counts the narrow types hold),
    counting along dimension ``which``."""
    def draw_signature(draw, et):
        return _iota_signature(et, distinct_sides(draw, 3, 2, 6), which)
    return draw_signature


def _iota_rank1(draw, et):
    return _iota_signature(et, (draw(st.integers(2, 6)),), 0)


def _iota_size0(draw, et):
    shape = list(distinct_sides(draw, draw(st.integers(2, 3)), 2, 6))
    shape[draw(st.integers(0, len(shape) - 1))] = 0
    return _iota_signature(et, shape, draw(st.integers(0, len(shape) - 1)))


_IOTA_SPACE = (
    AttributeClass("dim-first", _elements_only(_iota_along(0)), None,
                   "iota (C1) at its low edge: iota_dimension = 0 of a rank-3 result (outermost, slowest index)"),
    AttributeClass("dim-middle", _elements_only(_iota_along(1)), None,
                   "iota: iota_dimension = 1 of a rank-3 result (neither the outermost nor the innermost)"),
    AttributeClass("dim-last", _elements_only(_iota_along(2)), None,
                   "iota (C1) at its high edge: iota_dimension = rank - 1 (the innermost, vectorized index)"),
    AttributeClass("rank1", _elements_only(_iota_rank1), None, "iota: a rank-1 result (output[i] = i)"),
    AttributeClass("size0", _elements_only(_iota_size0), None, "iota: a result with a size-0 dimension (no elements)"),
)


# -------------------------------------------------------------------------- reshape

def factorization(draw, n: int) -> tuple[int, ...]:
    """A random shape with ``n`` elements (any rank 0..4 when n == 1; with a 0 when n == 0)."""
    rank = draw(st.integers(0 if n == 1 else 1, 4))
    if n == 0:
        dims = [draw(st.integers(0, 4)) for _ in range(rank)]
        dims[draw(st.integers(0, rank - 1))] = 0
        return tuple(dims)
    dims = [1] * rank
    m, p = n, 2
    while m > 1:  # spread the prime factors over the dimensions
        while m % p == 0:
            dims[draw(st.integers(0, rank - 1))] *= p
            m //= p
        p += 1
    return tuple(dims)


def _draw_reshape(draw, element_type):
    shapes = draw.shapes
    et = as_element_type(element_type)
    shape = draw(shapes(max_rank=4))
    return Signature((TensorType(shape, et),), {}, (TensorType(factorization(draw, math.prod(shape)), et),))


def _reshape_signature(et, operand, result) -> Signature:
    return Signature((TensorType(tuple(operand), et),), {}, (TensorType(tuple(result), et),))


def _reshape_insert_ones(draw, et):
    a, b = distinct_sides(draw, 2, 2, 9)
    return _reshape_signature(et, (a, b), draw(st.sampled_from(((a, 1, b, 1), (1, a, b), (a, 1, 1, b)))))


def _reshape_remove_ones(draw, et):
    a, b = distinct_sides(draw, 2, 2, 9)
    return _reshape_signature(et, draw(st.sampled_from(((1, a, 1, b), (a, b, 1), (1, 1, a, b)))), (a, b))


def _reshape_scalar_to(draw, et):
    return _reshape_signature(et, (), (1,) * draw(st.integers(1, 3)))


def _reshape_to_scalar(draw, et):
    return _reshape_signature(et, (1,) * draw(st.integers(1, 3)), ())


def _reshape_regroup(draw, et):
    """(a*b, c) -> (a, b*c) with a, b, c > 1: no result row lies within one operand row."""
    a, b, c = distinct_sides(draw, 3, 2, 6)
    return _reshape_signature(et, (a * b, c), (a, b * c))


def _reshape_size0(draw, et):
    a, b = distinct_sides(draw, 2, 2, 5)
    operand = draw(st.sampled_from(((0, a), (a, 0, b))))
    return _reshape_signature(et, operand, draw(st.sampled_from(((b, 0), (0, a, b)))))


_RESHAPE_SPACE = (
    data_class("insert-size1", "reshape (C2): size-1 dimensions inserted (a x b -> a x 1 x b x 1)",
               _reshape_insert_ones),
    data_class("remove-size1", "reshape (C2): size-1 dimensions removed (1 x a x 1 x b -> a x b)",
               _reshape_remove_ones),
    data_class("rank0-to-n", "reshape (C2): a rank-0 operand to 1 x ... x 1", _reshape_scalar_to),
    data_class("n-to-rank0", "reshape (C2): 1 x ... x 1 to a rank-0 result", _reshape_to_scalar),
    data_class("regroup", "reshape: (a*b) x c -> a x (b*c), row boundaries that do not line up "
               "(the lexicographic order, not a transpose)", _reshape_regroup),
    data_class("size0", "reshape (C2): zero elements, the zero in another dimension of the result",
               _reshape_size0),
)


# ------------------------------------------------------------------------ transpose

def _transpose_signature(et, shape, perm) -> Signature:
    shape, perm = tuple(shape), tuple(int(p) for p in perm)
    return Signature((TensorType(shape, et),), {"permutation": ir.DenseArray("i64", perm)},
                     (TensorType(tuple(shape[p] for p in perm), et),))


def _draw_transpose(draw, element_type):
    shapes = draw.shapes
    et = as_element_type(element_type)
    shape = draw(shapes(max_rank=4))
    return _transpose_signature(et, shape, draw(st.permutations(range(len(shape)))))


def _cyclic_transpose(rank: int, lo: int = 2, hi: int = 7):
    """A permutation that is one cycle through all ``rank`` dimensions (not its own inverse for
    rank >= 3) of a shape whose sides all differ."""
    def draw_signature(draw, et):
        shape = distinct_sides(draw, rank, lo, hi)
        step = cycle(draw, range(rank))
        return _transpose_signature(et, shape, [step[d] for d in range(rank)])
    return draw_signature


def _transpose_cube(draw, et):
    """A 3-cycle (or a swap of two of three dimensions) of a cube: every permutation gives the
    operand's own shape, so only the values tell a misread permutation."""
    shape = equal_sides(draw, 3, 2, 5)
    if draw(st.booleans()):
        step = cycle(draw, range(3))
    else:
        i, j = draw(st.permutations(range(3)))[:2]
        step = {i: j, j: i}
    return _transpose_signature(et, shape, [step.get(d, d) for d in range(3)])


def _transpose_square(draw, et):
    return _transpose_signature(et, equal_sides(draw, 2, 3, 12), (1, 0))


def _transpose_high_rank(draw, et):
    """Rank 5 or 6 (sides 1 to 4 in a drawn order): a cycle through 3 or more dimensions, the
    other two swapped or kept."""
    rank = draw(st.integers(5, 6))
    shape = draw(st.permutations((1, 2, 3, 2, 3, 4)[:rank]))
    order = draw(st.permutations(range(rank)))
    length = draw(st.integers(3, rank))
    step = cycle(draw, order[:length])
    rest = order[length:]
    if len(rest) == 2 and draw(st.booleans()):
        step.update({rest[0]: rest[1], rest[1]: rest[0]})
    return _transpose_signature(et, shape, [step.get(d, d) for d in range(rank)])


def _transpose_matrix(draw, et):
    a, b = distinct_sides(draw, 2, 5, 19)
    return _transpose_signature(et, (a, b), (1, 0))


def _transpose_size1_moved(draw, et):
    """A size-1 dimension that the (cyclic) permutation moves elsewhere."""
    rank = draw(st.integers(3, 4))
    shape = list(distinct_sides(draw, rank, 2, 5))
    shape[draw(st.integers(0, rank - 1))] = 1
    step = cycle(draw, range(rank))
    return _transpose_signature(et, shape, [step[d] for d in range(rank)])


def _transpose_size0(draw, et):
    shape = list(distinct_sides(draw, 3, 2, 5))
    shape[draw(st.integers(0, 2))] = 0
    step = cycle(draw, range(3))
    return _transpose_signature(et, shape, [step[d] for d in range(3)])


def _transpose_rank(rank: int):
    def draw_signature(draw, et):
        return _transpose_signature(et, distinct_sides(draw, rank, 2, 9), range(rank))
    return draw_signature


_TRANSPOSE_SPACE = (
    data_class("cycle-rank3", "transpose (C2): a 3-cycle, not its own inverse (the inverse permutation "
               "gives another result)", _cyclic_transpose(3)),
    data_class("cycle-rank4", "transpose (C2): a 4-cycle of a rank-4 operand", _cyclic_transpose(4, 2, 5)),
    data_class("rank5-6", "transpose (C2): rank 5 or 6 with a permutation that is not an involution",
               _transpose_high_rank),
    data_class("matrix", "transpose: the rank-2 swap of a non-square matrix (the tiled 2-D kernel)",
               _transpose_matrix),
    data_class("cube", "transpose (C2) on coinciding sizes: a 3-cycle or a swap of a cube, where the "
               "inverse (or any other) permutation gives the same shape and only the values differ",
               _transpose_cube),
    data_class("square", "transpose on a square matrix: a transpose skipped (or applied twice) keeps the "
               "shape", _transpose_square),
    data_class("size1-moved", "transpose (C3): a size-1 dimension moved by the permutation (a backend "
               "may drop it and reshape)", _transpose_size1_moved),
    data_class("size0", "transpose (C3): a size-0 dimension moved by a 3-cycle", _transpose_size0),
    data_class("rank0", "transpose (C2): rank 0, the empty permutation", _transpose_rank(0)),
    data_class("rank1", "transpose (C2): rank 1, permutation [0]", _transpose_rank(1)),
)


# ----------------------------------------------------------------- broadcast_in_dim

def broadcast_shapes(draw) -> tuple:
    """(operand shape, broadcast_dimensions, result shape) valid for broadcast_in_dim."""
    broadcastable_to, shapes = draw.broadcastable_to, draw.shapes
    result = draw(shapes(max_rank=4))
    operand, dims = draw(broadcastable_to(result))
    order = draw(st.permutations(range(len(dims))))  # broadcast_dimensions need not be sorted
    return tuple(operand[i] for i in order), tuple(dims[i] for i in order), result


def _broadcast_signature(et, operand, dims, result) -> Signature:
    return Signature((TensorType(tuple(operand), et),),
                     {"broadcast_dimensions": ir.DenseArray("i64", tuple(int(d) for d in dims))},
                     (TensorType(tuple(result), et),))


def _draw_broadcast_in_dim(draw, element_type):
    et = as_element_type(element_type)
    return _broadcast_signature(et, *broadcast_shapes(draw))


def _broadcast_decreasing(draw, et):
    """Operand dimensions mapped to result dimensions in decreasing order (a transposing broadcast)."""
    result = distinct_sides(draw, 3, 2, 6)
    rank = draw(st.integers(2, 3))
    dims = sorted(draw(st.permutations(range(3)))[:rank], reverse=True)
    return _broadcast_signature(et, [result[d] for d in dims], dims, result)


def _broadcast_coinciding(draw, et):
    """A cube result and an operand of the same sides mapped in decreasing or shuffled order:
    broadcast_dimensions read as sorted (the transpose dropped) still fits every shape."""
    result = equal_sides(draw, 3, 2, 5)
    rank = draw(st.integers(2, 3))
    dims = list(draw(st.permutations(range(3)))[:rank])
    if dims == sorted(dims):
        dims = dims[::-1]
    return _broadcast_signature(et, [result[d] for d in dims], dims, result)


def _broadcast_size1(draw, et):
    """Size-1 operand dimensions stretched to result dimensions of size > 1, the others kept."""
    rank = draw(st.integers(2, 3))
    result = distinct_sides(draw, rank + 1, 2, 6)
    dims = sorted(draw(st.permutations(range(rank + 1)))[:rank])
    ones = set(draw(st.permutations(range(rank)))[:draw(st.integers(1, rank - 1))])
    return _broadcast_signature(et, [1 if k in ones else result[d] for k, d in enumerate(dims)], dims, result)


def _broadcast_scalar(draw, et):
    return _broadcast_signature(et, (), (), distinct_sides(draw, draw(st.integers(1, 3)), 2, 6))


def _broadcast_identity(draw, et):
    result = distinct_sides(draw, draw(st.integers(1, 3)), 2, 6)
    return _broadcast_signature(et, result, range(len(result)), result)


def _broadcast_size0(draw, et):
    """Result dimensions of size 0: an operand dimension of size 1 (or 0) mapped to one, and a
    new dimension of size 0."""
    result = list(distinct_sides(draw, 3, 2, 6))
    kept, stretched, new = draw(st.permutations(range(3)))
    result[stretched] = result[new] = 0
    dims = sorted((kept, stretched))
    operand = [result[d] if d == kept else draw(st.sampled_from((0, 1))) for d in dims]
    return _broadcast_signature(et, operand, dims, result)


def _broadcast_interleaved(draw, et):
    """A rank-2 operand into rank 4 with a new dimension between its two (0, 2 or 1, 3)."""
    result = distinct_sides(draw, 4, 2, 5)
    dims = draw(st.sampled_from(((0, 2), (1, 3), (0, 3))))
    return _broadcast_signature(et, [result[d] for d in dims], dims, result)


_BROADCAST_SPACE = (
    data_class("decreasing-dims", "broadcast_in_dim (C4): broadcast_dimensions unique but decreasing "
               "(the operand's axes reversed into the result)", _broadcast_decreasing),
    data_class("coinciding-unsorted-dims", "broadcast_in_dim (C4) on coinciding sizes: unsorted "
               "broadcast_dimensions into a cube result, where reading them as sorted (dropping the "
               "transpose) gives the right shape and wrong values", _broadcast_coinciding),
    data_class("size1-expansion", "broadcast_in_dim (C5): dim(operand, d) = 1 < dim(result, "
               "broadcast_dimensions[d]): operand_index[d] = 0", _broadcast_size1),
    data_class("rank0-operand", "broadcast_in_dim (C2): a rank-0 operand, empty broadcast_dimensions",
               _broadcast_scalar),
    data_class("identity", "broadcast_in_dim: broadcast_dimensions = range(rank), same shape (a copy)",
               _broadcast_identity),
    data_class("size0-result", "broadcast_in_dim (C5): result dimensions of size 0, one from an operand "
               "dimension of size 1 or 0, one new", _broadcast_size0),
    data_class("interleaved-new-dims", "broadcast_in_dim (C3): new result dimensions between and "
               "around the operand's", _broadcast_interleaved),
)


# ---------------------------------------------------------------------------- slice

def _slice_signature(et, shape, starts, limits, strides) -> Signature:
    result = tuple(-(-(b - a) // s) for a, b, s in zip(starts, limits, strides))  # (C5) ceil
    attrs = {"start_indices": ir.DenseArray("i64", tuple(starts)), "limit_indices": ir.DenseArray("i64", tuple(limits)),
             "strides": ir.DenseArray("i64", tuple(strides))}
    return Signature((TensorType(tuple(shape), et),), attrs, (TensorType(result, et),))


def _draw_slice(draw, element_type):
    shapes = draw.shapes
    et = as_element_type(element_type)
    shape = draw(shapes(max_rank=4))
    starts, limits, strides = [], [], []
    for s in shape:
        start = draw(st.integers(0, s))
        starts.append(start)
        limits.append(draw(st.integers(start, s)))
        strides.append(draw(st.integers(1, max(1, s + 1))))
    return _slice_signature(et, shape, starts, limits, strides)


def _slice_window(draw, n: int) -> tuple[int, int]:
    """(start, limit) with 0 <= start < limit <= n."""
    start = draw(st.integers(0, n - 1))
    return start, draw(st.integers(start + 1, n))


def _slice_strided(draw, et):
    """Strides > 1 on every dimension: the first one (and all but one) with at least two result
    elements, one other with a stride past its dimension's size."""
    shape = distinct_sides(draw, draw(st.integers(2, 3)), 4, 9)
    past = draw(st.integers(1, len(shape) - 1))
    starts, limits, strides = [], [], []
    for d, n in enumerate(shape):
        if d == past:
            start, limit = _slice_window(draw, n)
            stride = n + draw(st.integers(1, 3))
        else:  # start + stride < limit: two elements or more (most of the dimension)
            stride = draw(st.integers(2, min(3, n - 1)))
            start = draw(st.integers(0, min(2, n - stride - 1)))
            limit = draw(st.integers(max(start + stride + 1, n - 2), n))
        starts.append(start)
        limits.append(limit)
        strides.append(stride)
    return _slice_signature(et, shape, starts, limits, strides)


def _slice_interior(draw, et):
    """0 < start < limit < dim on every dimension, stride 1 (an offset on both ends)."""
    shape = distinct_sides(draw, draw(st.integers(2, 3)), 3, 9)
    starts = [draw(st.integers(1, n - 2)) for n in shape]
    limits = [draw(st.integers(a + 1, n - 1)) for a, n in zip(starts, shape)]
    return _slice_signature(et, shape, starts, limits, (1,) * len(shape))


def _slice_empty_at(where: str):
    """One dimension with start = limit (inside the dimension, or at its end), the others sliced."""
    def draw_signature(draw, et):
        shape = distinct_sides(draw, draw(st.integers(2, 3)), 2, 7)
        windows = [_slice_window(draw, n) for n in shape]
        strides = [draw(st.integers(1, 2)) for _ in shape]
        d = draw(st.integers(0, len(shape) - 1))
        edge = shape[d] if where == "end" else draw(st.integers(0, shape[d] - 1))
        windows[d] = (edge, edge)
        return _slice_signature(et, shape, [w[0] for w in windows], [w[1] for w in windows], strides)
    return draw_signature


def _slice_rank0(draw, et):
    return _slice_signature(et, (), (), (), ())


_SLICE_SPACE = (
    data_class("strided-all-dims", "slice (C4, C5): strides > 1 on every dimension, one larger than its "
               "dimension (result ceil((limit - start) / stride))", _slice_strided),
    data_class("interior-window", "slice (C3): 0 < start_indices and limit_indices < shape(operand) on "
               "every dimension", _slice_interior),
    data_class("empty-result", "slice (C3) edge start = limit: a size-0 result dimension",
               _slice_empty_at("inside")),
    data_class("start-at-end", "slice (C3) edge start = limit = dim(operand)", _slice_empty_at("end")),
    data_class("rank0", "slice (C2): a rank-0 operand, empty index lists", _slice_rank0),
)


# ---------------------------------------------------------------------- concatenate

def _concatenate_signature(et, shape, dim, sizes) -> Signature:
    """Operands of ``shape`` except for ``sizes`` along ``dim``."""
    shape = tuple(shape)
    operands = tuple(TensorType(shape[:dim] + (n,) + shape[dim + 1:], et) for n in sizes)
    result = TensorType(shape[:dim] + (sum(sizes),) + shape[dim + 1:], et)
    return Signature(operands, {"dimension": ir.IntegerAttr(dim, "i64")}, (result,))


def _draw_concatenate(draw, element_type):
    shapes = draw.shapes
    et = as_element_type(element_type)
    shape = draw(shapes(min_rank=1, max_rank=3))
    dim = draw(st.integers(0, len(shape) - 1))
    return _concatenate_signature(et, shape, dim, draw(st.lists(st.integers(0, 5), min_size=1, max_size=4)))


def _concatenate_of(count, sizes=None, dim=None):
    """``count`` operands (an int, or (lo, hi)) of different sizes along a drawn dimension (or
    ``dim`` of a rank-3 shape); ``sizes(draw)`` fixes the sizes instead."""
    def draw_signature(draw, et):
        rank = 3 if dim is not None else draw(st.integers(1, 3))
        shape = distinct_sides(draw, rank, 2, 4)
        d = draw(st.integers(0, rank - 1)) if dim is None else dim
        if sizes is not None:
            along = sizes(draw)
        else:
            n = count if isinstance(count, int) else draw(st.integers(*count))
            along = draw(st.permutations(range(1, 7)))[:n]
        return _concatenate_signature(et, shape, d, along)
    return draw_signature


def _equal_sizes(draw):
    """2 to 4 operands of one shape: operands emitted in another order keep the result's shape."""
    return (draw(st.integers(1, 4)),) * draw(st.integers(2, 4))


def _sizes_with_zeros(draw):
    """Size-0 operands first, between and last among non-empty ones of different sizes."""
    a, b = draw(st.permutations(range(1, 6)))[:2]
    return draw(st.sampled_from(((0, a, 0, b, 0), (0, a, 0, 0, b, 0))))


_CONCATENATE_SPACE = (
    data_class("one-operand", "concatenate (C3) at its edge: a single input (a copy)", _concatenate_of(1)),
    data_class("two-operands", "concatenate: two inputs of different sizes along the dimension",
               _concatenate_of(2)),
    data_class("many-operands", "concatenate (C6): 4 to 6 inputs of different sizes, result offsets "
               "d0 + ... + dk-1", _concatenate_of((4, 6))),
    data_class("equal-operands", "concatenate on coinciding sizes: 2 to 4 inputs of one shape, where "
               "inputs emitted in another order (or one input repeated) keep the result's shape",
               _concatenate_of(0, sizes=_equal_sizes)),
    data_class("zero-size-operands", "concatenate (C6): size-0 inputs first, between and last among "
               "non-empty ones (they add no offset)", _concatenate_of(0, sizes=_sizes_with_zeros)),
    data_class("dim-first", "concatenate (C4) low edge: dimension = 0 of rank 3", _concatenate_of((2, 3), dim=0)),
    data_class("dim-middle", "concatenate: dimension = 1 of rank 3", _concatenate_of((2, 3), dim=1)),
    data_class("dim-last", "concatenate (C4) high edge: dimension = rank - 1 of rank 3 (the innermost)",
               _concatenate_of((2, 3), dim=2)),
)


samplers("stablehlo.constant", draw_signature=_draw_constant)
samplers("stablehlo.iota", draw_signature=_draw_iota, attribute_space=_IOTA_SPACE)
samplers("stablehlo.reshape", draw_signature=_draw_reshape, attribute_space=_RESHAPE_SPACE)
samplers("stablehlo.transpose", draw_signature=_draw_transpose, attribute_space=_TRANSPOSE_SPACE)
samplers("stablehlo.broadcast_in_dim", draw_signature=_draw_broadcast_in_dim, attribute_space=_BROADCAST_SPACE)
samplers("stablehlo.slice", draw_signature=_draw_slice, attribute_space=_SLICE_SPACE)
samplers("stablehlo.concatenate", draw_signature=_draw_concatenate, attribute_space=_CONCATENATE_SPACE)
