"""How gather, dynamic_gather and scatter are drawn (the oracle's evaluation: oracle/ops/gather_scatter.py).

Random signatures are valid by construction: dimension numbers drawn role by role (offset /
collapsed / batching dims for gather, window / inserted / batching for scatter), start indices
mostly in range with negative and past-the-end ones on purpose.  The attribute classes pin the
structures the spec distinguishes and draw the rest.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from hypothesis import strategies as st

from oracle import ir
from oracle.ops.gather_scatter import GATHER_FIELDS, SCATTER_FIELDS
from oracle.registry import Signature
from oracle.types import ELEMENT_TYPES, TensorType, as_element_type

from ..regions import BODY_OPS, reducer_body
from . import AttributeClass, samplers
from .indexing import draw_data, draw_index_values, index_types


class _Sides:
    """Dimension sizes for one signature: all >= 1, except that about one signature in eight
    may have zero sizes anywhere (empty tensors on purpose, but not in most cases)."""

    def __init__(self, draw):
        self.draw, self.low = draw, 0 if draw(st.integers(0, 7)) == 0 else 1

    def __call__(self, high: int = 5) -> int:
        return self.draw(st.integers(min(self.low, high), high))


def _count(draw, n: int) -> int:
    """How many of ``n`` candidates to use: mostly at least one."""
    return draw(st.integers(min(1, n), n)) if draw(st.integers(0, 3)) else 0


def _index_layout(shape, batch, n: int, ivd: int, implicit: bool, batching_dims) -> tuple:
    """(index shape, indices batching dims, batch dim sizes) of start / scatter indices whose batch
    dims are ``batch`` in order (("batching", operand dim) sized like the operand's, or ("free",
    size)) and whose index vector (``n`` long) sits at ``ivd`` (implicit: a trailing 1, not shown)."""
    dims = [shape[v] if kind == "batching" else v for kind, v in batch]
    index_shape = tuple(dims) if implicit else tuple(dims[:ivd] + [n] + dims[ivd:])
    positions = {v: (i if implicit or i < ivd else i + 1) for i, (kind, v) in enumerate(batch) if kind == "batching"}
    return index_shape, tuple(positions[d] for d in batching_dims), dims


def _combine(batch_sizes, window_sizes, window_dims) -> tuple:
    """gather (C22) / scatter (C4) combine: window sizes at ``window_dims``, batch sizes elsewhere."""
    b, w = iter(batch_sizes), iter(window_sizes)
    return tuple(next(w) if d in window_dims else next(b) for d in range(len(batch_sizes) + len(window_sizes)))


def _draw_gather_common(draw, et, *, batching: bool):
    """(operand_t, indices_t, dimension numbers dict, slice_sizes, result shape), valid by construction."""
    rank = draw(st.integers(0, 3))
    roles = [draw(st.sampled_from(("offset", "offset", "collapsed", "batching" if batching else "collapsed")))
             for _ in range(rank)]
    if roles.count("batching") > 2:
        roles = ["offset" if r == "batching" else r for r in roles]
    side = _Sides(draw)
    shape = tuple(draw(st.integers(1, 5)) if r == "collapsed" else side() for r in roles)
    collapsed = tuple(d for d, r in enumerate(roles) if r == "collapsed")
    obd = tuple(d for d, r in enumerate(roles) if r == "batching")
    candidates = [d for d, r in enumerate(roles) if r != "batching"]
    start_map = tuple(draw(st.permutations(candidates))[:_count(draw, len(candidates))])
    slice_sizes = tuple(1 if r == "collapsed" else draw(st.integers(0, min(1, shape[d]))) if r == "batching"
                        else side(shape[d]) for d, r in enumerate(roles))
    # start_indices: batching dims (sized like the operand's) and free batch dims, in random order,
    # then the index vector dim inserted (or implicit at the end when it has size 1)
    batch = [("batching", d) for d in obd] + [("free", side(4)) for _ in range(draw(st.integers(0, 2)))]
    batch = list(draw(st.permutations(batch)))
    implicit = len(start_map) == 1 and draw(st.booleans())
    ivd = len(batch) if implicit else draw(st.integers(0, len(batch)))
    index_shape, sibd, dims = _index_layout(shape, batch, len(start_map), ivd, implicit, obd)
    window = [slice_sizes[d] for d, r in enumerate(roles) if r == "offset"]
    result_rank = len(batch) + len(window)
    offset = tuple(sorted(draw(st.permutations(range(result_rank)))[:len(window)]))
    dn = {"offset_dims": offset, "collapsed_slice_dims": collapsed, "operand_batching_dims": obd,
          "start_indices_batching_dims": sibd, "start_index_map": start_map, "index_vector_dim": ivd}
    it = index_types(draw)
    return TensorType(shape, et), TensorType(index_shape, it), dn, slice_sizes, _combine(dims, window, offset)


def _gather_struct(dn: dict, fields) -> ir.StructAttr:
    return ir.StructAttr("stablehlo.gather", tuple((f, dn[f]) for f in fields if dn.get(f)) +
                         (("index_vector_dim", dn["index_vector_dim"]),))


def _gather_signature(operand_t, indices_t, dn: dict, slice_sizes, *, sorted_: bool, size_t=None) -> Signature:
    """gather's Signature; dynamic_gather's with ``size_t`` (the type of its slice_sizes operand)."""
    attrs = {"dimension_numbers": _gather_struct(dn, GATHER_FIELDS)}
    if size_t is None:
        attrs["slice_sizes"] = ir.DenseArray("i64", tuple(slice_sizes))
    attrs["indices_are_sorted"] = ir.BoolAttr(sorted_)
    ivd = dn["index_vector_dim"]
    batch = [n for d, n in enumerate(indices_t.shape) if d != ivd]
    window = [n for d, n in enumerate(slice_sizes)
              if d not in dn["collapsed_slice_dims"] and d not in dn["operand_batching_dims"]]
    result = TensorType(_combine(batch, window, dn["offset_dims"]), operand_t.element_type)
    return Signature((operand_t, indices_t) + ((size_t,) if size_t is not None else ()), attrs, (result,))


def _draw_gather(draw, element_type):
    et = as_element_type(element_type)
    operand_t, indices_t, dn, slice_sizes, _ = _draw_gather_common(draw, et, batching=True)
    return _gather_signature(operand_t, indices_t, dn, slice_sizes, sorted_=draw(st.integers(0, 4)) == 0)


def _draw_start_indices(draw, operand_t, indices_t, start_map, slice_sizes, ivd, sort: bool) -> np.ndarray:
    """Start index vectors mostly inside [0, dim - slice_size] (negative and past-the-end ones on
    purpose); with ``sort``, each component sorted along the batch (so sorted in every order)."""
    implicit = ivd >= indices_t.rank
    batch_shape = indices_t.shape if implicit else indices_t.shape[:ivd] + indices_t.shape[ivd + 1:]
    it = indices_t.element_type
    columns = []
    for d_operand in start_map:
        col = draw_index_values(draw, it, batch_shape, 0, operand_t.shape[d_operand] - slice_sizes[d_operand])
        if sort and draw(st.integers(0, 3)):
            col = np.sort(col.reshape(-1)).reshape(batch_shape)
        columns.append(col)
    stacked = np.stack(columns, axis=-1) if columns else np.zeros(batch_shape + (0,), it.dtype)
    return _place_index_vectors(stacked, indices_t, ivd)


def _place_index_vectors(vectors: np.ndarray, indices_t, ivd: int) -> np.ndarray:
    """(*batch_shape, n) index vectors as the indices operand: the vector dim moved to ``ivd``
    (or dropped where it is implicit)."""
    if ivd >= indices_t.rank:
        return vectors[..., 0].copy() if vectors.shape[-1] else np.zeros(indices_t.shape, vectors.dtype)
    return np.ascontiguousarray(np.moveaxis(vectors, -1, ivd))


def _draw_gather_inputs(draw, sig):
    operand_t, indices_t = sig.operand_types[:2]
    dn = sig.attributes["dimension_numbers"].value
    slice_sizes = sig.attributes["slice_sizes"].value if "slice_sizes" in sig.attributes else None
    if slice_sizes is None:  # dynamic_gather: sizes from the result type (offset dims) and 1 elsewhere
        slice_sizes = _dynamic_slice_sizes(sig)
    sort = bool(sig.attributes["indices_are_sorted"].value)
    indices = _draw_start_indices(draw, operand_t, indices_t, tuple(dn.get("start_index_map", ())), slice_sizes,
                                  int(dn["index_vector_dim"]), sort)
    inputs = [draw_data(draw, operand_t), indices]
    if len(sig.operand_types) == 3:
        inputs.append(np.array(slice_sizes, dtype=np.int64).astype(sig.operand_types[2].element_type.dtype))
    return inputs


def _dynamic_slice_sizes(sig) -> tuple:
    operand_t = sig.operand_types[0]
    dn = sig.attributes["dimension_numbers"].value
    collapsed = tuple(dn.get("collapsed_slice_dims", ()))
    offset = tuple(dn.get("offset_dims", ()))
    window = iter(sig.result_types[0].shape[d] for d in offset)
    return tuple(1 if d in collapsed else next(window) for d in range(operand_t.rank))


def _draw_dynamic_gather(draw, element_type):
    et = as_element_type(element_type)
    operand_t, indices_t, dn, slice_sizes, _ = _draw_gather_common(draw, et, batching=False)
    size_t = TensorType((operand_t.rank,), ELEMENT_TYPES[draw(st.sampled_from(("i64", "i32")))])
    return _gather_signature(operand_t, indices_t, dn, slice_sizes, sorted_=draw(st.integers(0, 4)) == 0,
                             size_t=size_t)


def _draw_scatter(draw, element_type):
    reducer_bodies = draw.reducer_bodies
    et = as_element_type(element_type)
    rank = draw(st.integers(0, 3))
    roles = [draw(st.sampled_from(("window", "window", "inserted", "batching"))) for _ in range(rank)]
    if roles.count("batching") > 2:
        roles = ["window" if r == "batching" else r for r in roles]
    side = _Sides(draw)
    shape = tuple(side() for _ in roles)
    inserted = tuple(d for d, r in enumerate(roles) if r == "inserted")
    ibd = tuple(d for d, r in enumerate(roles) if r == "batching")
    candidates = [d for d, r in enumerate(roles) if r != "batching"]
    to_operand = tuple(draw(st.permutations(candidates))[:_count(draw, len(candidates))])
    window_sizes = [side(shape[d]) for d, r in enumerate(roles) if r == "window"]
    batch = [("batching", d) for d in ibd] + [("free", side(4)) for _ in range(draw(st.integers(0, 2)))]
    batch = list(draw(st.permutations(batch)))
    implicit = len(to_operand) == 1 and draw(st.booleans())
    ivd = len(batch) if implicit else draw(st.integers(0, len(batch)))
    index_shape, sibd, dims = _index_layout(shape, batch, len(to_operand), ivd, implicit, ibd)
    update_rank = len(batch) + len(window_sizes)
    window_dims = tuple(sorted(draw(st.permutations(range(update_rank)))[:len(window_sizes)]))
    types = [et]
    if draw(st.integers(0, 3)) == 0:  # variadic: a second input, e.g. (value, index) for argmax
        types.append(ELEMENT_TYPES["i32"] if not et.is_complex and draw(st.booleans()) else et)
    body = draw(reducer_bodies(types))
    dn = {"update_window_dims": window_dims, "inserted_window_dims": inserted, "input_batching_dims": ibd,
          "scatter_indices_batching_dims": sibd, "scatter_dims_to_operand_dims": to_operand, "index_vector_dim": ivd}
    sorted_, unique = draw(st.integers(0, 4)) == 0, draw(st.integers(0, 4)) == 0
    it = index_types(draw)
    return _scatter_signature(types, shape, dn, TensorType(index_shape, it), _combine(dims, window_sizes, window_dims),
                              body.region, sorted_=sorted_, unique=unique)


def _scatter_signature(types, shape, dn: dict, indices_t, update_shape, region, *, sorted_: bool,
                       unique: bool) -> Signature:
    """scatter's Signature: inputs and updates of ``types``, dimension numbers ``dn``."""
    struct = ir.StructAttr("stablehlo.scatter", tuple((f, tuple(dn[f])) for f in SCATTER_FIELDS if dn.get(f)) +
                           (("index_vector_dim", dn["index_vector_dim"]),))
    attrs = {"scatter_dimension_numbers": struct, "indices_are_sorted": ir.BoolAttr(sorted_),
             "unique_indices": ir.BoolAttr(unique)}
    operands = tuple(TensorType(tuple(shape), t) for t in types) + (indices_t,) + \
        tuple(TensorType(tuple(update_shape), t) for t in types)
    return Signature(operands, attrs, tuple(TensorType(tuple(shape), t) for t in types), regions=(region,))


def _draw_scatter_inputs(draw, sig):
    n = (len(sig.operand_types) - 1) // 2
    operand_t, indices_t = sig.operand_types[0], sig.operand_types[n]
    dn = sig.attributes["scatter_dimension_numbers"].value
    to_operand = tuple(dn.get("scatter_dims_to_operand_dims", ()))
    window = tuple(dn.get("update_window_dims", ()))
    inserted, ibd = tuple(dn.get("inserted_window_dims", ())), tuple(dn.get("input_batching_dims", ()))
    window_operand_dims = [d for d in range(operand_t.rank) if d not in inserted and d not in ibd]
    sizes = {d: sig.operand_types[n + 1].shape[w] for d, w in zip(window_operand_dims, window)}
    slice_sizes = tuple(sizes.get(d, 1) for d in range(operand_t.rank))
    sort = bool(sig.attributes["indices_are_sorted"].value)
    indices = _draw_start_indices(draw, operand_t, indices_t, to_operand, slice_sizes,
                                  int(dn["index_vector_dim"]), sort)
    data = [draw_data(draw, t, k) for k, t in enumerate(sig.operand_types[:n])]
    updates = [draw_data(draw, t, n + 1 + k) for k, t in enumerate(sig.operand_types[n + 1:])]
    return data + [indices] + updates


# ------------------------------------------------------------------ attribute classes
# The shapes, attributes and index values whose semantics the spec distinguishes
# (AttributeClass): each class pins its structure and draws the rest (sizes, which
# dims, the index type).  Operand data are pairwise-different values where the type has enough
# of them, so a read from (or a write to) the wrong element shows; index values are built row
# by row where the class is about them (one component out of range, the others in range).

@functools.lru_cache(maxsize=None)
def _value_pool(name: str, moderate: bool) -> np.ndarray:
    """Distinct values of element type ``name``: normal or zero for floats (no flushing
    question); ``moderate``: magnitudes in [1/16, 16] or 0, so sums of a few stay exact-ish
    and far from overflow."""
    et = ELEMENT_TYPES[name]
    if et.is_bool:
        return np.array([False, True])
    if et.is_integer:
        reach = 100 if moderate else 300
        return np.arange(max(int(et.min_value), -reach), min(int(et.max_value), reach) + 1).astype(et.dtype)
    if et.bits > 16:
        reach = 64 if moderate else 1200
        return (np.arange(-reach, reach + 1) / 4).astype(et.dtype)
    values = np.arange(1 << et.bits, dtype=et.storage_dtype).view(et.dtype)
    with np.errstate(invalid="ignore"):
        wide = values.astype(np.float64)
    magnitude = np.abs(np.where(np.isfinite(wide), wide, np.inf))
    keep = np.isfinite(wide) & ((magnitude >= float(et.finfo.smallest_normal)) | (wide == 0))
    if moderate:
        keep &= (magnitude <= 16) & ((magnitude >= 1 / 16) | (wide == 0))
    return values[keep]


def _distinct_values(draw, et, shape, *, moderate: bool = False) -> np.ndarray:
    """An array of ``et`` whose values differ pairwise as far as the type has enough values
    (``_value_pool``), in a drawn order."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = math.prod(shape)
    if et.is_complex:
        pool = _value_pool(et.component.name, moderate).astype(np.float64)
        re, im = (np.resize(rng.permutation(pool), n) for _ in range(2))
        return (re + 1j * im).astype(et.dtype).reshape(shape)
    return np.resize(rng.permutation(_value_pool(et.name, moderate)), n).reshape(shape)


def _index_array(values, it) -> np.ndarray:
    """Python ints as an index array of element type ``it`` (clipped to its range)."""
    lo, hi = int(it.min_value), int(it.max_value)
    clipped = np.array([[min(max(int(v), lo), hi) for v in row] for row in values], dtype=object)
    return clipped.astype(np.uint64 if it.is_unsigned else np.int64).astype(it.dtype)


def _sizes(draw, k: int, low: int = 2, high: int = 5) -> list[int]:
    """``k`` pairwise-different sizes in [low, high], in a drawn order (a swapped dimension shows)."""
    return list(draw(st.permutations(sorted(draw(st.sets(st.integers(low, high), min_size=k, max_size=k))))))


def _index_type(draw, names):
    return ELEMENT_TYPES[draw(st.sampled_from(names))]


_SIGNED_INDEX = ("i8", "i16", "i32", "i64")
_UNSIGNED_INDEX = ("ui8", "ui16", "ui32", "ui64")
_ANY_INDEX = _SIGNED_INDEX + _UNSIGNED_INDEX


def _special_starts(kind: str, upper: int, it) -> list[int]:
    """Start index values of one component, ``upper`` = the largest one that needs no clamp
    (gather: dim - slice_size) or whose window is in bounds (scatter: dim - window_size)."""
    lo, hi = int(it.min_value), int(it.max_value)
    return {"below": [-1, -upper - 1, -upper - 5, lo],
            "past": [upper + 1, upper + 3, 2 * upper + 7, hi],
            "edge": [upper, upper + 1, 0],
            "out": [-1, upper + 2, lo, hi, -upper - 1],
            "unsigned": [hi, 1 << (it.bits - 1), upper + 1, upper]}[kind]


def _start_rows(kind: str | None):
    """rows(draw, it, uppers, count) -> ``count`` index vectors: with a ``kind``, rows come in
    cycles of n + 1 (n = vector size): row k < n of a cycle puts the kind's next value in
    component k and in-range values in the others, row n is in range; without one, every
    component in range.  The in-range parts are pairwise different as far as there are enough
    (a scatter whose in-bounds updates hit different elements is determined for any body)."""
    def rows(draw, it, uppers, count):
        n = len(uppers)
        order = sorted(range(count), key=lambda r: kind is not None and r % (n + 1) < n)  # in-range rows first
        out = [None] * count
        for r, row in zip(order, _unique_rows(draw, it, uppers, count)):
            out[r] = row
        if kind is not None and uppers:
            for r, row in enumerate(out):
                k = r % (n + 1)
                if k < n:
                    values = _special_starts(kind, uppers[k], it)
                    row[k] = values[(r // (n + 1)) % len(values)]
        return out
    return rows


def _rows_as_indices(values, indices_t, ivd: int) -> np.ndarray:
    """Index vectors (one list per batch element, row-major) as the indices operand."""
    implicit = ivd >= indices_t.rank
    batch_shape = indices_t.shape if implicit else indices_t.shape[:ivd] + indices_t.shape[ivd + 1:]
    n = 1 if implicit else indices_t.shape[ivd]
    vectors = _index_array(values, indices_t.element_type).reshape(tuple(batch_shape) + (n,))
    return _place_index_vectors(vectors, indices_t, ivd)


# --- gather

def _gather_class(name: str, why: str, structure, rows=None, *, batching: bool = False) -> tuple:
    """The class for gather and for dynamic_gather (None there when it needs batching dims).
    ``structure(draw)`` -> (operand shape, dimension numbers, slice sizes, index shape, index
    type names); ``rows``: how the start index vectors are drawn (None: the op's own mixture,
    mostly in range, some past the ends)."""
    def draw_signature(dynamic):
        def draw_sig(draw, et):
            shape, dn, slice_sizes, index_shape, index_names = structure(draw)
            dn = {f: tuple(dn.get(f, ())) for f in GATHER_FIELDS} | {"index_vector_dim": dn["index_vector_dim"]}
            indices_t = TensorType(tuple(index_shape), _index_type(draw, index_names))
            size_t = TensorType((len(shape),), ELEMENT_TYPES[draw(st.sampled_from(("i64", "i32")))]) \
                if dynamic else None
            return _gather_signature(TensorType(tuple(shape), et), indices_t, dn, slice_sizes, sorted_=False,
                                     size_t=size_t)
        return draw_sig

    def draw_inputs(draw, sig):
        operand_t, indices_t = sig.operand_types[:2]
        dn = sig.attributes["dimension_numbers"].value
        slice_sizes = sig.attributes["slice_sizes"].value if "slice_sizes" in sig.attributes \
            else _dynamic_slice_sizes(sig)
        start_map, ivd = tuple(dn.get("start_index_map", ())), int(dn["index_vector_dim"])
        if rows is None:
            indices = _draw_start_indices(draw, operand_t, indices_t, start_map, slice_sizes, ivd, False)
        else:
            uppers = [operand_t.shape[d] - slice_sizes[d] for d in start_map]
            count = math.prod(n for d, n in enumerate(indices_t.shape) if d != ivd)
            indices = _rows_as_indices(rows(draw, indices_t.element_type, uppers, count), indices_t, ivd)
        inputs = [_distinct_values(draw, operand_t.element_type, operand_t.shape), indices]
        if len(sig.operand_types) == 3:
            inputs.append(np.array(slice_sizes, dtype=np.int64).astype(sig.operand_types[2].element_type.dtype))
        return inputs

    gather_class = AttributeClass(name, draw_signature(False), draw_inputs, why)
    dynamic_class = None if batching else AttributeClass(name, draw_signature(True), draw_inputs, why)
    return gather_class, dynamic_class


def _clamp_structure(index_names):
    """Rank 3: a collapsed dim and an offset dim with a partial slice (both indexed, in a drawn
    start_index_map order), an offset dim not indexed; 12 start vectors, index_vector_dim last."""
    def structure(draw):
        shape = _sizes(draw, 3, 3, 5)
        collapsed, sliced, free = draw(st.permutations(range(3)))
        slice_sizes = [1, 1, 1]
        slice_sizes[sliced] = draw(st.integers(2, shape[sliced] - 1))
        slice_sizes[free] = draw(st.integers(1, shape[free]))
        dn = {"offset_dims": (1, 2), "collapsed_slice_dims": (collapsed,),
              "start_index_map": tuple(draw(st.permutations((collapsed, sliced)))), "index_vector_dim": 1}
        return shape, dn, slice_sizes, (12, 2), index_names
    return structure


def _interleaved_structure(draw):
    """Rank 3: a collapsed dim and two offset dims (one indexed), two batch dims; the offset dims
    sit between / before the batch dims of the result, not after them."""
    shape = _sizes(draw, 3, 3, 5)
    collapsed, indexed, free = draw(st.permutations(range(3)))
    slice_sizes = [1, 1, 1]
    slice_sizes[indexed] = draw(st.integers(1, shape[indexed] - 1))
    slice_sizes[free] = draw(st.integers(1, shape[free] - 1))
    offset = draw(st.sampled_from(((0, 1), (0, 2), (0, 3), (1, 2), (1, 3))))
    dn = {"offset_dims": offset, "collapsed_slice_dims": (collapsed,),
          "start_index_map": tuple(draw(st.permutations((collapsed, indexed)))), "index_vector_dim": 2}
    return shape, dn, slice_sizes, tuple(_sizes(draw, 2, 2, 3)) + (2,), _ANY_INDEX


def _permuted_map_structure(draw):
    """Rank 3, every dim indexed, start_index_map not sorted; one or two dims collapsed."""
    shape = _sizes(draw, 3, 3, 5)
    start_map = draw(st.permutations(range(3)).filter(lambda p: list(p) != sorted(p)))
    collapsed = tuple(sorted(draw(st.permutations(range(3)))[:draw(st.integers(1, 2))]))
    slice_sizes = [1 if d in collapsed else draw(st.integers(1, shape[d] - 1)) for d in range(3)]
    dn = {"offset_dims": tuple(range(1, 1 + 3 - len(collapsed))), "collapsed_slice_dims": collapsed,
          "start_index_map": tuple(start_map), "index_vector_dim": 1}
    return shape, dn, slice_sizes, (draw(st.integers(4, 6)), 3), _ANY_INDEX


def _batching_structure(draw):
    """Rank 3 with one or two operand_batching_dims, the rest collapsed / offset and indexed; the
    indices' batching dims and a free batch dim in a drawn order, index_vector_dim among them."""
    shape = _sizes(draw, 3, 2, 4)
    roles = list(draw(st.permutations(draw(st.sampled_from((("batching", "collapsed", "offset"),
                                                            ("batching", "batching", "offset")))))))
    obd = tuple(d for d, r in enumerate(roles) if r == "batching")
    start_map = tuple(draw(st.permutations([d for d, r in enumerate(roles) if r != "batching"])))
    slice_sizes = [draw(st.integers(1, shape[d] - 1)) if r == "offset" else 1 for d, r in enumerate(roles)]
    batch = list(draw(st.permutations([("batching", d) for d in obd] + [("free", draw(st.integers(2, 3)))])))
    ivd = draw(st.integers(0, len(batch)))
    index_shape, sibd, _ = _index_layout(shape, batch, len(start_map), ivd, False, obd)
    window = [d for d, r in enumerate(roles) if r == "offset"]
    offset = tuple(sorted(draw(st.permutations(range(len(batch) + len(window))))[:len(window)]))
    dn = {"offset_dims": offset, "collapsed_slice_dims": tuple(d for d, r in enumerate(roles) if r == "collapsed"),
          "operand_batching_dims": obd, "start_indices_batching_dims": sibd, "start_index_map": start_map,
          "index_vector_dim": ivd}
    return shape, dn, slice_sizes, index_shape, _ANY_INDEX


def _inner_vector_structure(draw):
    """Rank 2, both dims indexed (one collapsed); the index vector at dim 0 or 1 of rank-3 indices."""
    shape = _sizes(draw, 2, 3, 6)
    collapsed = draw(st.integers(0, 1))
    slice_sizes = [1, 1]
    slice_sizes[1 - collapsed] = draw(st.integers(1, shape[1 - collapsed] - 1))
    ivd = draw(st.integers(0, 1))
    batch = _sizes(draw, 2, 2, 4)
    dn = {"offset_dims": (2,), "collapsed_slice_dims": (collapsed,),
          "start_index_map": tuple(draw(st.permutations((0, 1)))), "index_vector_dim": ivd}
    return shape, dn, slice_sizes, tuple(batch[:ivd] + [2] + batch[ivd:]), _ANY_INDEX


def _unsigned_structure(draw):
    """Rank 2, one indexed dim (collapsed or a partial offset slice), rank-2 unsigned indices with
    an implicit index vector (index_vector_dim = rank(start_indices))."""
    shape = _sizes(draw, 2, 3, 6)
    indexed = draw(st.integers(0, 1))
    collapsed = draw(st.booleans())
    slice_sizes = [draw(st.integers(1, n - 1)) for n in shape]
    if collapsed:
        slice_sizes[indexed] = 1
    dn = {"offset_dims": (2,) if collapsed else (2, 3), "collapsed_slice_dims": (indexed,) if collapsed else (),
          "start_index_map": (indexed,), "index_vector_dim": 2}
    return shape, dn, slice_sizes, tuple(_sizes(draw, 2, 2, 4)), _UNSIGNED_INDEX


def _full_slice_structure(draw):
    """Rank 2 or 3: an indexed offset dim whose slice is the whole dim (every start clamps to 0),
    an indexed collapsed dim, maybe a free offset dim with a full slice too."""
    rank = draw(st.integers(2, 3))
    shape = _sizes(draw, rank, 2, 5)
    dims = draw(st.permutations(range(rank)))
    full, collapsed = dims[0], dims[1]
    slice_sizes = [1 if d == collapsed else shape[d] for d in range(rank)]
    dn = {"offset_dims": tuple(range(1, rank)), "collapsed_slice_dims": (collapsed,),
          "start_index_map": tuple(draw(st.permutations((full, collapsed)))), "index_vector_dim": 1}
    return shape, dn, slice_sizes, (9, 2), _ANY_INDEX


def _coinciding_structure(draw):
    """A cube operand of side 3, every dim indexed with start_index_map not sorted, one dim
    collapsed and equal slice sizes of 2 on the others, 3 start vectors of 3 components: operand,
    slice and index sizes coincide, so a start component applied to another dim, or offset dims
    taken in another order, keep every shape."""
    start_map = draw(st.permutations(range(3)).filter(lambda p: list(p) != sorted(p)))
    collapsed = draw(st.integers(0, 2))
    slice_sizes = [1 if d == collapsed else 2 for d in range(3)]
    dn = {"offset_dims": (1, 2), "collapsed_slice_dims": (collapsed,), "start_index_map": tuple(start_map),
          "index_vector_dim": 1}
    return (3, 3, 3), dn, slice_sizes, (3, 3), _ANY_INDEX


def _zero_slice_structure(draw):
    """Rank 2 or 3: an offset dim with slice size 0 (an empty result: (C21) allows 0), the
    others collapsed / partial."""
    rank = draw(st.integers(2, 3))
    shape = _sizes(draw, rank, 2, 5)
    dims = draw(st.permutations(range(rank)))
    zero, collapsed = dims[0], dims[1]
    slice_sizes = [0 if d == zero else 1 if d == collapsed else draw(st.integers(1, shape[d])) for d in range(rank)]
    dn = {"offset_dims": tuple(range(1, rank)), "collapsed_slice_dims": (collapsed,),
          "start_index_map": tuple(draw(st.permutations((zero, collapsed)))), "index_vector_dim": 1}
    return shape, dn, slice_sizes, (draw(st.integers(2, 4)), 2), _ANY_INDEX


_GATHER_CLASSES = [
    _gather_class("start-below-zero", "gather: full_start_index = clamp(start_index, 0, dim - slice_size): one "
                  "component of each start vector negative (-1 to the type's min), the others in range",
                  _clamp_structure(_SIGNED_INDEX), _start_rows("below")),
    _gather_class("start-past-limit", "gather: clamp(..., dim - slice_size) from above: one component past the "
                  "limit (limit + 1 to the type's max), the others in range",
                  _clamp_structure(_ANY_INDEX), _start_rows("past")),
    _gather_class("start-at-edge", "gather: clamp at its edges: one component exactly dim - slice_size (no "
                  "clamp), one past it (the first clamped value) or 0, the others in range",
                  _clamp_structure(_ANY_INDEX), _start_rows("edge")),
    _gather_class("offset-dims-interleaved", "gather (C4), (C22): collapsed_slice_dims dropped from the slice, "
                  "offset_dims not after the batch dims (combine interleaves them)", _interleaved_structure),
    _gather_class("start-map-permuted", "gather (C18), (C19): start_index_map not sorted: start vector component "
                  "k indexes operand dim start_index_map[k]", _permuted_map_structure),
    _gather_class("batching-dims", "gather (C10)-(C17): operand_batching_dims / start_indices_batching_dims "
                  "(full_batching_index), index_vector_dim between the batch dims",
                  _batching_structure, batching=True),
    _gather_class("index-vector-dim-inner", "gather (C2), (C3): index_vector_dim 0 or 1 of rank-3 start_indices, "
                  "not the last dim", _inner_vector_structure),
    _gather_class("unsigned-implicit-vector", "gather (I2), (C2): unsigned start indices with the top bit set "
                  "(clamped to dim - slice_size, not read as negative), index_vector_dim = rank(start_indices)",
                  _unsigned_structure, _start_rows("unsigned")),
    _gather_class("slice-size-full", "gather (C21): slice_sizes = shape(operand) at an indexed dim: every start "
                  "clamps to 0", _full_slice_structure, _start_rows("past")),
    _gather_class("coinciding-sizes", "gather (C18), (C22) on coinciding sizes: a cube operand, equal slice "
                  "sizes and as many start vectors as components, start_index_map unsorted: a component applied "
                  "to the wrong operand dim, or offset dims permuted, keeps the shape and moves the values",
                  _coinciding_structure, _start_rows(None)),
    _gather_class("slice-size-zero", "gather (C21): a slice size of 0 at an offset dim: an empty result",
                  _zero_slice_structure),
]


# --- scatter

def _duplicate_rows(draw, it, uppers, count):
    """In-range index vectors, rows 1 and 3 equal to row 0: one window updated three times."""
    out = _start_rows(None)(draw, it, uppers, count)
    for r in (1, 3):
        if r < count:
            out[r] = list(out[0])
    return out


def _unique_rows(draw, it, uppers, count):
    """``count`` in-range index vectors, pairwise different as far as there are that many
    (then repeating in the same order)."""
    sides = [max(u, 0) + 1 for u in uppers]
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    picks = np.resize(rng.permutation(math.prod(sides)), count)
    return [[int(i) for i in np.unravel_index(p, sides)] for p in picks]


def _scatter_class(name: str, why: str, structure, rows, body: str, *, variadic: bool = False) -> AttributeClass:
    """``structure(draw)`` -> (input shape, dimension numbers, window sizes (of the input dims
    that are neither inserted nor batching, in order), update_window_dims, index shape, index
    type names); ``rows``: how the index vectors are drawn; ``body``: the update_computation
    (generators.regions' reducer menu: "add", "second" = overwrite, ...); ``variadic``: a second
    input of another element type.  unique_indices and indices_are_sorted are false."""
    def draw_signature(draw, et):
        shape, dn, window_sizes, window_dims, index_shape, index_names = structure(draw)
        dn = {f: tuple(dn.get(f, ())) for f in SCATTER_FIELDS} | {"index_vector_dim": dn["index_vector_dim"]}
        types = [et] + ([ELEMENT_TYPES["f16" if et.name == "i32" else "i32"]] if variadic else [])
        chosen = reducer_body(body, types)
        if chosen is None:  # the types do not take this body (xor on floats, max on complex)
            return None
        region = chosen.region
        ivd = dn["index_vector_dim"]
        update_shape = _combine([n for d, n in enumerate(index_shape) if d != ivd], window_sizes, window_dims)
        indices_t = TensorType(tuple(index_shape), _index_type(draw, index_names))
        return _scatter_signature(types, shape, dn, indices_t, update_shape, region, sorted_=False, unique=False)

    def draw_inputs(draw, sig):
        n = (len(sig.operand_types) - 1) // 2
        operand_t, indices_t = sig.operand_types[0], sig.operand_types[n]
        dn = sig.attributes["scatter_dimension_numbers"].value
        ivd = int(dn["index_vector_dim"])
        window = tuple(dn.get("update_window_dims", ()))
        skipped = set(dn.get("inserted_window_dims", ())) | set(dn.get("input_batching_dims", ()))
        sizes = dict(zip([d for d in range(operand_t.rank) if d not in skipped],
                         (sig.operand_types[n + 1].shape[w] for w in window)))
        uppers = [operand_t.shape[d] - sizes.get(d, 1) for d in dn.get("scatter_dims_to_operand_dims", ())]
        count = math.prod(s for d, s in enumerate(indices_t.shape) if d != ivd)
        indices = _rows_as_indices(rows(draw, indices_t.element_type, uppers, count), indices_t, ivd)
        data = [_distinct_values(draw, t.element_type, t.shape, moderate=True) for t in sig.operand_types[:n]]
        updates = [_distinct_values(draw, t.element_type, t.shape, moderate=True) for t in sig.operand_types[n + 1:]]
        return data + [indices] + updates

    return AttributeClass(name, draw_signature, draw_inputs, why)


def _row_window_structure(rows: int | None = None):
    """Rank 2: dim 0 inserted, dim 1 a window of 2 to dim - 1 elements, both indexed (in a drawn
    order); 4 to 6 index vectors (``rows`` if given), index_vector_dim last."""
    def structure(draw):
        shape = _sizes(draw, 2, 3, 6)
        w = draw(st.integers(2, shape[1] - 1))
        dn = {"update_window_dims": (1,), "inserted_window_dims": (0,),
              "scatter_dims_to_operand_dims": tuple(draw(st.permutations((0, 1)))), "index_vector_dim": 1}
        return shape, dn, [w], (1,), (rows or draw(st.integers(4, 6)), 2), _ANY_INDEX
    return structure


def _inserted_pair_structure(index_names, rows: int | None = None):
    """Rank 3: two inserted dims, both indexed (in a drawn order), and a window dim nobody
    indexes (window size drawn, up to the whole dim); index_vector_dim last."""
    def structure(draw):
        shape = _sizes(draw, 3, 3, 5)
        window_dim = draw(st.integers(0, 2))
        inserted = tuple(d for d in range(3) if d != window_dim)
        dn = {"update_window_dims": (1,), "inserted_window_dims": inserted,
              "scatter_dims_to_operand_dims": tuple(draw(st.permutations(inserted))), "index_vector_dim": 1}
        return shape, dn, [draw(st.integers(1, shape[window_dim]))], (1,), \
            (rows or draw(st.integers(4, 6)), 2), index_names
    return structure


def _coinciding_scatter_structure(draw):
    """A cube input of side 3: two inserted dims indexed in a drawn order, the window dim whole
    (size 3), 3 index vectors: input, window and index sizes coincide."""
    window_dim = draw(st.integers(0, 2))
    inserted = tuple(d for d in range(3) if d != window_dim)
    dn = {"update_window_dims": (1,), "inserted_window_dims": inserted,
          "scatter_dims_to_operand_dims": tuple(draw(st.permutations(inserted))), "index_vector_dim": 1}
    return (3, 3, 3), dn, [3], (1,), (3, 2), _ANY_INDEX


def _partly_out_structure(draw):
    """Rank 2: dim 0 a batching dim (each index row updates its own operand row), dim 1 a window
    of 2 to dim - 1 elements indexed by a one-element index vector."""
    a, b = _sizes(draw, 2, 3, 6)
    w = draw(st.integers(2, b - 1))
    k = draw(st.integers(2, 3))
    dn = {"update_window_dims": (2,), "input_batching_dims": (0,), "scatter_indices_batching_dims": (0,),
          "scatter_dims_to_operand_dims": (1,), "index_vector_dim": 2}
    return (a, b), dn, [w], (2,), (a, k, 1), _SIGNED_INDEX


def _scatter_batching_structure(draw):
    """Rank 3 with one or two input_batching_dims, the rest inserted / window and indexed; the
    indices' batching dims and a free batch dim in a drawn order, index_vector_dim among them,
    update_window_dims at drawn positions."""
    shape = _sizes(draw, 3, 2, 4)
    roles = list(draw(st.permutations(draw(st.sampled_from((("batching", "inserted", "window"),
                                                            ("batching", "batching", "window")))))))
    ibd = tuple(d for d, r in enumerate(roles) if r == "batching")
    to_operand = tuple(draw(st.permutations([d for d, r in enumerate(roles) if r != "batching"])))
    window_sizes = [draw(st.integers(1, shape[d] - 1)) for d, r in enumerate(roles) if r == "window"]
    batch = list(draw(st.permutations([("batching", d) for d in ibd] + [("free", draw(st.integers(2, 3)))])))
    ivd = draw(st.integers(0, len(batch)))
    index_shape, sibd, _ = _index_layout(shape, batch, len(to_operand), ivd, False, ibd)
    window_dims = tuple(sorted(draw(st.permutations(range(len(batch) + len(window_sizes))))[:len(window_sizes)]))
    dn = {"update_window_dims": window_dims, "inserted_window_dims": tuple(d for d, r in enumerate(roles)
                                                                          if r == "inserted"),
          "input_batching_dims": ibd, "scatter_indices_batching_dims": sibd, "scatter_dims_to_operand_dims": to_operand,
          "index_vector_dim": ivd}
    return shape, dn, window_sizes, window_dims, index_shape, _ANY_INDEX


def _interleaved_windows_structure(draw):
    """Rank 3: one inserted dim and two window dims, the inserted dim and one window dim indexed
    with scatter_dims_to_operand_dims descending; the update's scatter dim between or after
    its window dims, not before them."""
    shape = _sizes(draw, 3, 3, 5)
    inserted, indexed, free = draw(st.permutations(range(3)))
    windows = sorted((indexed, free))
    window_sizes = [draw(st.integers(1, shape[d] - 1)) for d in windows]
    dn = {"update_window_dims": draw(st.sampled_from(((0, 2), (0, 1)))), "inserted_window_dims": (inserted,),
          "scatter_dims_to_operand_dims": tuple(sorted((inserted, indexed), reverse=True)), "index_vector_dim": 1}
    return shape, dn, window_sizes, dn["update_window_dims"], (draw(st.integers(3, 5)), 2), _ANY_INDEX


def _inner_vector_scatter_structure(draw):
    """Rank 2: dim 0 inserted, dim 1 a partial window, both indexed; rank-3 indices with the
    index vector at dim 0 or 1."""
    shape = _sizes(draw, 2, 3, 6)
    w = draw(st.integers(1, shape[1] - 1))
    ivd = draw(st.integers(0, 1))
    batch = _sizes(draw, 2, 2, 3)
    dn = {"update_window_dims": (2,), "inserted_window_dims": (0,),
          "scatter_dims_to_operand_dims": tuple(draw(st.permutations((0, 1)))), "index_vector_dim": ivd}
    return shape, dn, [w], (2,), tuple(batch[:ivd] + [2] + batch[ivd:]), _ANY_INDEX


def _partial_rows(draw, it, uppers, count):
    """One-element index vectors that start a window one element past dim - window (its last
    element out of bounds), at -1 (its first element out), and at the in-range edges."""
    return [[(uppers[0] + 1, -1, uppers[0], 0)[r % 4]] for r in range(count)]


_SCATTER_CLASSES = (
    _scatter_class("duplicate-indices-add", "scatter: the same window updated three times with add (unique_indices "
                   "= false): every update accumulates; the order (schedule) is implementation-defined, so "
                   "float sums are judged within their bound", _row_window_structure(), _duplicate_rows, "add"),
    _scatter_class("index-at-edge", "scatter: 'If result_index is in bounds' per element: one index component "
                   "exactly dim - 1 (last in bounds) or dim (first out: skipped) or 0, the others in range",
                   _inserted_pair_structure(_ANY_INDEX, rows=9), _start_rows("edge"), "add"),
    _scatter_class("index-out-of-range", "scatter: updates whose result_index is out of bounds are skipped: one "
                   "index component below 0 or past the end (to the index type's min / max), the others in range",
                   _inserted_pair_structure(_SIGNED_INDEX, rows=15), _start_rows("out"), "second"),
    _scatter_class("window-partly-out", "scatter: the in-bounds check is per update element, so a window that "
                   "starts at -1 or at dim - window + 1 updates the elements inside and skips the rest",
                   _partly_out_structure, _partial_rows, "add"),
    _scatter_class("batching-dims", "scatter (C12)-(C18): input_batching_dims / scatter_indices_batching_dims "
                   "(full_batching_index), index_vector_dim between the batch dims",
                   _scatter_batching_structure, _start_rows(None), "add"),
    _scatter_class("window-dims-interleaved", "scatter (C4), (C7), (C20): update_window_dims around the update "
                   "scatter dim, inserted_window_dims, scatter_dims_to_operand_dims descending",
                   _interleaved_windows_structure, _start_rows(None), "add"),
    _scatter_class("variadic-add", "scatter (C5), (C23): two inputs of different element types, updated "
                   "together (an add per input), one window updated three times",
                   _row_window_structure(), _duplicate_rows, "add", variadic=True),
    _scatter_class("overwrite-unique", "scatter: an update_computation that returns the update (overwrite) on "
                   "pairwise-different indices: every result element is determined",
                   _inserted_pair_structure(_ANY_INDEX), _unique_rows, "second"),
    _scatter_class("coinciding-sizes", "scatter (C20), (C22) on coinciding sizes: a cube input, a whole-dim "
                   "window and as many index vectors as the side: an index component applied to the other "
                   "inserted dim, or the window laid along another dim, keeps the shape",
                   _coinciding_scatter_structure, _unique_rows, "second"),
    *(_scatter_class(f"body-{name}", f"scatter with a {name} update_computation (one window updated three "
                     "times: the updates combine) on every element-type family that takes it, i1 and 2- / 4-bit "
                     "integers included", _row_window_structure(), _duplicate_rows, name)
      for name in BODY_OPS if name not in ("add", "second")),
    _scatter_class("index-vector-dim-inner", "scatter (C19), (C22): index_vector_dim 0 or 1 of rank-3 "
                   "scatter_indices, not the last dim", _inner_vector_scatter_structure, _start_rows(None), "add"),
)


samplers("stablehlo.gather", draw_signature=_draw_gather, draw_inputs=_draw_gather_inputs,
         attribute_space=tuple(c for c, _ in _GATHER_CLASSES))
samplers("stablehlo.dynamic_gather", draw_signature=_draw_dynamic_gather, draw_inputs=_draw_gather_inputs,
         attribute_space=tuple(d for _, d in _GATHER_CLASSES if d is not None))
samplers("stablehlo.scatter", draw_signature=_draw_scatter, draw_inputs=_draw_scatter_inputs,
         attribute_space=_SCATTER_CLASSES)
