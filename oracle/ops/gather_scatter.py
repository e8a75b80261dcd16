"""Gather and scatter (spec "gather", "dynamic_gather", "scatter").

Both are computed on whole arrays through *linear* operand indices: every result (gather) or
update (scatter) element gets ``sum(index[d] * stride[d])``, built by broadcasting a part that
depends only on the batch / scatter index (start index + batching index) against a part that
depends only on the window offset.  No per-element Python loop:

* gather: start indices are clamped as the spec says, so every read is in bounds (except a
  collapsed dimension with slice size 0, where the clamp cannot help: UndefinedBehavior).
* scatter: ``schedule`` is the row-major order of ``index_space(updates[0])`` (the spec leaves it
  implementation-defined; oracle/impl_defined.py masks the elements where the order matters).
  Updates whose ``result_index`` is out of bounds are skipped element by element.  The updates
  are applied in *collision rounds*: round k applies, to every result element, its k-th update
  (in schedule order), all at once with the update_computation run batched
  (``Context.run_region_batched``); the number of rounds is the largest number of updates that
  hit one result element, not the number of updates.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..allowances import ImplDefined, order_dependent
from ..impl_defined_masks import attribute, no_elements, result_shape, type_of, whole_result
from .. import ir
from ..accumulation import scattered_bound
from ..element_conversion import convert_array
from ..errors import OracleError, UndefinedBehavior
from ..evaluator import batchable
from ..registry import AttributeClass, Signature, add_impl_defined, op, record_facts
from ..quantization import on_storage
from ..types import ALL_ELEMENT_TYPES, ELEMENT_TYPES, TensorType, as_element_type
from ._checks import shape_error
from .indexing import draw_data, draw_index_values, index_types, index_values
from .reductions import is_promotable, monoid_ops
from .structural import ints

_ALL_NAMES = tuple(t.name for t in ALL_ELEMENT_TYPES)
# Keeps start + offset arithmetic far from int64 overflow; any such index is out of bounds anyway.
_FAR = 1 << 40


# ------------------------------------------------------------------ dimension numbers

GATHER_FIELDS = ("offset_dims", "collapsed_slice_dims", "operand_batching_dims", "start_indices_batching_dims",
                  "start_index_map")
SCATTER_FIELDS = ("update_window_dims", "inserted_window_dims", "input_batching_dims",
                   "scatter_indices_batching_dims", "scatter_dims_to_operand_dims")


def _dimension_numbers(op_, name: str, fields) -> dict:
    """The #stablehlo.gather / #stablehlo.scatter struct as plain tuples (absent lists = [])."""
    raw = op_.attr(name, None)
    if not isinstance(raw, dict):
        raise OracleError(f"missing or unreadable attribute {name}", op=op_.name)
    out = {f: tuple(int(v) for v in raw.get(f, ())) for f in fields}
    out["index_vector_dim"] = int(raw.get("index_vector_dim", 0))
    return out


def _fail(op_, constraint: str, message: str):
    raise OracleError(message, op=op_.name, constraint=constraint)


def _is_sorted(dims) -> bool:
    return all(a <= b for a, b in zip(dims, dims[1:]))


def _is_unique(dims) -> bool:
    return len(set(dims)) == len(dims)


def _in_range(dims, n: int) -> bool:
    return all(0 <= d < n for d in dims)


def _check_indices_batching_dims(op_, operand_dims, indices_dims, ivd: int, operand_shape, indices_shape,
                                 names: tuple[str, str, str, str], constraints: tuple[str, ...]) -> None:
    """The constraints gather and scatter share on the indices' batching dims: unique, in range,
    not index_vector_dim, one per operand batching dim, of equal sizes.  ``names``: the two
    attributes then the two operands, as the op calls them; ``constraints``: their five C-numbers."""
    operand_attr, indices_attr, operand, indices = names
    c_unique, c_range, c_ivd, c_count, c_size = constraints
    if not _is_unique(indices_dims):
        _fail(op_, c_unique, f"{indices_attr} {list(indices_dims)} not unique")
    if not _in_range(indices_dims, len(indices_shape)):
        _fail(op_, c_range, f"{indices_attr} {list(indices_dims)} not in [0, {len(indices_shape)})")
    if ivd in indices_dims:
        _fail(op_, c_ivd, f"index_vector_dim {ivd} is one of {indices_attr} {list(indices_dims)}")
    if len(operand_dims) != len(indices_dims):
        _fail(op_, c_count, f"size({operand_attr}) {len(operand_dims)} != size({indices_attr}) {len(indices_dims)}")
    for a, b in zip(operand_dims, indices_dims):
        if operand_shape[a] != indices_shape[b]:
            raise shape_error(op_, f"dim({operand}, {a}) = {operand_shape[a]} != dim({indices}, {b}) = "
                                   f"{indices_shape[b]}", c_size)


class _Sides:
    """Dimension sizes for one signature: all >= 1, except that about one signature in eight
    may have zero sizes anywhere (empty tensors on purpose, but not in most cases)."""

    def __init__(self, draw):
        from hypothesis import strategies as st
        self.draw, self.low = draw, 0 if draw(st.integers(0, 7)) == 0 else 1

    def __call__(self, high: int = 5) -> int:
        from hypothesis import strategies as st
        return self.draw(st.integers(min(self.low, high), high))


def _count(draw, n: int) -> int:
    """How many of ``n`` candidates to use: mostly at least one."""
    from hypothesis import strategies as st
    return draw(st.integers(min(1, n), n)) if draw(st.integers(0, 3)) else 0


def index_vectors(indices: np.ndarray, index_vector_dim: int) -> np.ndarray:
    """(*batch_shape, n) start index vectors: ':' inserted at index_vector_dim (spec)."""
    values = np.clip(index_values(indices), -_FAR, _FAR)
    if index_vector_dim < values.ndim:
        return np.moveaxis(values, index_vector_dim, -1)
    return values[..., None]


def _strides(shape) -> np.ndarray:
    """Row-major element strides of ``shape``."""
    out = np.ones(len(shape), dtype=np.int64)
    for d in range(len(shape) - 2, -1, -1):
        out[d] = out[d + 1] * shape[d + 1]
    return out


def _axis_iota(shape, axis: int) -> np.ndarray:
    """0..shape[axis]-1 along ``axis``, size 1 elsewhere (broadcasts against ``shape``)."""
    return np.arange(shape[axis], dtype=np.int64).reshape([-1 if d == axis else 1 for d in range(len(shape))])


def _place(array: np.ndarray, axes, rank: int) -> np.ndarray:
    """``array`` (its axes in order) reshaped to rank ``rank`` with its axes at ``axes`` and 1 elsewhere."""
    shape = [1] * rank
    for a, n in zip(axes, array.shape):
        shape[a] = n
    return array.reshape(shape)


def _batch_axis(d_start: int, index_vector_dim: int) -> int:
    """The batch axis of start index dimension ``d_start`` (the index vector dim removed)."""
    return d_start - (0 if d_start < index_vector_dim else 1)


# --------------------------------------------------------------------------- gather

# gather's constraint labels; dynamic_gather numbers the same checks differently (no batching dims).
_DYNAMIC_GATHER_LABELS = {"C6": "C6", "C7": "C6", "C8": "C7", "C9": "C8", "C18": "C9", "C19": "C10",
                          "C20": "C11", "C21": "C12", "C22": "C13", "C23": "C14"}


def _check_gather(op_, operand_t, indices_t, slice_sizes, dn, label) -> tuple:
    """gather (C1)-(C21), (C23); returns the result shape of (C22)."""
    rank, irank = operand_t.rank, indices_t.rank
    offset, collapsed, obd, sibd, start_map = (dn[f] for f in GATHER_FIELDS)
    ivd = dn["index_vector_dim"]
    c = label
    if not indices_t.element_type.is_integer:  # (I2)
        _fail(op_, c("C2"), f"start_indices must be of integer type, got {indices_t}")
    if rank != len(offset) + len(collapsed) + len(obd):
        _fail(op_, c("C1"), f"rank(operand) {rank} != size(offset_dims) {len(offset)} + size(collapsed_slice_dims) "
                            f"{len(collapsed)} + size(operand_batching_dims) {len(obd)}")
    if not 0 <= ivd <= irank:
        _fail(op_, c("C2"), f"index_vector_dim {ivd} not in [0, rank(start_indices) {irank}]")
    vector_size = indices_t.shape[ivd] if ivd < irank else 1
    if vector_size is not None and len(start_map) != vector_size:
        _fail(op_, c("C3"), f"size(start_index_map) {len(start_map)} != index vector size {vector_size}")
    if not (_is_unique(offset) and _is_sorted(offset)):
        _fail(op_, c("C4"), f"offset_dims {list(offset)} must be unique and sorted")
    result_rank = irank - (1 if ivd < irank else 0) + len(offset)
    if not _in_range(offset, result_rank):
        _fail(op_, c("C5"), f"offset_dims {list(offset)} not in [0, rank(result) {result_rank})")
    if not _is_unique(collapsed + obd):
        _fail(op_, c("C6"), f"collapsed_slice_dims {list(collapsed)} + operand_batching_dims {list(obd)} not unique")
    if not _is_sorted(collapsed):
        _fail(op_, c("C7"), f"collapsed_slice_dims {list(collapsed)} not sorted")
    if not _in_range(collapsed, rank):
        _fail(op_, c("C8"), f"collapsed_slice_dims {list(collapsed)} not in [0, {rank})")
    if len(slice_sizes) != rank:
        _fail(op_, c("C20"), f"size(slice_sizes) {len(slice_sizes)} != rank(operand) {rank}")
    if any(slice_sizes[d] > 1 for d in collapsed):
        _fail(op_, c("C9"), f"slice_sizes {list(slice_sizes)} > 1 at collapsed_slice_dims {list(collapsed)}")
    if not _is_sorted(obd):
        _fail(op_, "C10", f"operand_batching_dims {list(obd)} not sorted")
    if not _in_range(obd, rank):
        _fail(op_, "C11", f"operand_batching_dims {list(obd)} not in [0, {rank})")
    if any(slice_sizes[d] > 1 for d in obd):
        _fail(op_, "C12", f"slice_sizes {list(slice_sizes)} > 1 at operand_batching_dims {list(obd)}")
    _check_indices_batching_dims(
        op_, obd, sibd, ivd, operand_t.shape, indices_t.shape,
        ("operand_batching_dims", "start_indices_batching_dims", "operand", "start_indices"),
        ("C13", "C14", "C15", "C16", "C17"))
    if not _is_unique(start_map + obd):
        _fail(op_, c("C18"), f"start_index_map {list(start_map)} + operand_batching_dims {list(obd)} not unique")
    if not _in_range(start_map, rank):
        _fail(op_, c("C19"), f"start_index_map {list(start_map)} not in [0, {rank})")
    if any(not 0 <= s <= n for s, n in zip(slice_sizes, operand_t.shape)):
        raise shape_error(op_, f"slice_sizes {list(slice_sizes)} not within [0, shape(operand) "
                               f"{operand_t.shape}]", c("C21"))
    batch_sizes = [n for d, n in enumerate(indices_t.shape) if d != ivd]
    window = [slice_sizes[d] for d in range(rank) if d not in collapsed and d not in obd]
    shape, b, w = [], iter(batch_sizes), iter(window)
    for d in range(result_rank):  # (C22) combine(batch_dim_sizes, offset_dim_sizes)
        shape.append(next(w) if d in offset else next(b))
    return tuple(shape)


def _gather(op_, operand, indices, slice_sizes, dn, label=lambda c: c) -> np.ndarray:
    operand_t, indices_t, out_t = op_.operands[0].type, op_.operands[1].type, op_.results[0].type
    if out_t.element_type != operand_t.element_type:  # (C23)
        _fail(op_, label("C23"), f"element types differ: {operand_t} -> {out_t}")
    runtime_operand_t = TensorType(operand.shape, operand_t.element_type)
    runtime_indices_t = TensorType(indices.shape, indices_t.element_type)
    shape = _check_gather(op_, runtime_operand_t, runtime_indices_t, slice_sizes, dn, label)
    if not out_t.matches_shape(shape):
        raise shape_error(op_, f"shape(result) {shape} (by C22) does not match the result type {out_t}", label("C22"))
    offset, collapsed, obd, sibd, start_map = (dn[f] for f in GATHER_FIELDS)
    ivd = dn["index_vector_dim"]
    strides = _strides(operand.shape)
    vectors = index_vectors(indices, ivd)
    batch_shape = vectors.shape[:-1]

    # batch part: full_start_index (clamped) + full_batching_index, as linear offsets
    base = np.zeros(batch_shape, dtype=np.int64)
    for d_start, d_operand in enumerate(start_map):
        upper = operand.shape[d_operand] - slice_sizes[d_operand]
        start = np.clip(vectors[..., d_start], 0, upper)
        if slice_sizes[d_operand] == 0 and d_operand in collapsed and math.prod(shape) and np.any(start >= upper):
            # a collapsed slice of size 0 reads past the end: spec "Errors": implementation-defined
            raise UndefinedBehavior(f"collapsed dimension {d_operand} has slice size 0: the clamped start index "
                                    f"{upper} reads out of bounds", op=op_.name)
        base += start * strides[d_operand]
    for d_operand, d_start in zip(obd, sibd):
        base += _axis_iota(batch_shape, _batch_axis(d_start, ivd)) * strides[d_operand]
    if math.prod(shape) and any(operand.shape[d] == 0 for d in collapsed if d not in start_map):
        raise UndefinedBehavior("a collapsed dimension of size 0 is read", op=op_.name)

    # window part: full_offset_index
    window_dims = [d for d in range(operand.ndim) if d not in collapsed and d not in obd]
    window_shape = tuple(slice_sizes[d] for d in window_dims)
    offsets = np.zeros(window_shape, dtype=np.int64)
    for k, d in enumerate(window_dims):
        offsets = offsets + _axis_iota(window_shape, k) * strides[d]

    result_rank = len(shape)
    batch_dims = [d for d in range(result_rank) if d not in offset]
    linear = _place(base, batch_dims, result_rank) + _place(offsets, offset, result_rank)
    return np.take(operand.reshape(-1), linear.reshape(-1)).reshape(shape) if linear.size else \
        np.zeros(shape, dtype=operand.dtype)


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
    from hypothesis import strategies as st
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
    from hypothesis import strategies as st
    et = as_element_type(element_type)
    operand_t, indices_t, dn, slice_sizes, _ = _draw_gather_common(draw, et, batching=True)
    return _gather_signature(operand_t, indices_t, dn, slice_sizes, sorted_=draw(st.integers(0, 4)) == 0)


def _draw_start_indices(draw, operand_t, indices_t, start_map, slice_sizes, ivd, sort: bool) -> np.ndarray:
    """Start index vectors mostly inside [0, dim - slice_size] (negative and past-the-end ones on
    purpose); with ``sort``, each component sorted along the batch (so sorted in every order)."""
    from hypothesis import strategies as st
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


@op("stablehlo.gather", family="gather_scatter", element_types=_ALL_NAMES, draw_signature=_draw_gather,
    draw_inputs=_draw_gather_inputs,
    notes="indices_are_sorted = true with unsorted indices: undefined (impl_defined masks the result)")
@on_storage
def gather(op_, args, ctx, env):
    operand, indices = args
    dn = _dimension_numbers(op_, "dimension_numbers", GATHER_FIELDS)
    return [_gather(op_, operand, indices, ints(op_, "slice_sizes"), dn)]


# ------------------------------------------------------------------- dynamic_gather

def _dynamic_slice_sizes(sig) -> tuple:
    operand_t = sig.operand_types[0]
    dn = sig.attributes["dimension_numbers"].value
    collapsed = tuple(dn.get("collapsed_slice_dims", ()))
    offset = tuple(dn.get("offset_dims", ()))
    window = iter(sig.result_types[0].shape[d] for d in offset)
    return tuple(1 if d in collapsed else next(window) for d in range(operand_t.rank))


def _draw_dynamic_gather(draw, element_type):
    from hypothesis import strategies as st
    et = as_element_type(element_type)
    operand_t, indices_t, dn, slice_sizes, _ = _draw_gather_common(draw, et, batching=False)
    size_t = TensorType((operand_t.rank,), ELEMENT_TYPES[draw(st.sampled_from(("i64", "i32")))])
    return _gather_signature(operand_t, indices_t, dn, slice_sizes, sorted_=draw(st.integers(0, 4)) == 0,
                             size_t=size_t)


@op("stablehlo.dynamic_gather", family="gather_scatter", element_types=_ALL_NAMES,
    draw_signature=_draw_dynamic_gather, draw_inputs=_draw_gather_inputs)
@on_storage
def dynamic_gather(op_, args, ctx, env):
    operand, indices, sizes = args
    if not op_.operands[2].type.element_type.is_integer or np.ndim(sizes) != 1:  # (I3)
        raise OracleError(f"slice_sizes must be a 1-dimensional tensor of integer type, got {op_.operands[2].type}",
                          op=op_.name)
    dn = _dimension_numbers(op_, "dimension_numbers", GATHER_FIELDS)
    slice_sizes = tuple(int(v) for v in index_values(sizes))
    return [_gather(op_, operand, indices, slice_sizes, dn, lambda c: _DYNAMIC_GATHER_LABELS.get(c, c))]


# -------------------------------------------------------------------------- scatter

def _check_scatter(op_, inputs, indices, updates, dn, region) -> None:
    n = len(inputs)
    rank, irank = inputs[0].ndim, indices.ndim
    window, inserted, ibd, sibd, to_operand = (dn[f] for f in SCATTER_FIELDS)
    ivd = dn["index_vector_dim"]
    if not (n > 0 and len(updates) == n):
        _fail(op_, "C5", f"size(inputs) {n} and size(updates) {len(updates)} must be equal and > 0")
    if any(x.shape != inputs[0].shape for x in inputs):
        raise shape_error(op_, f"inputs have different shapes: {[x.shape for x in inputs]}", "C1")
    if rank != len(window) + len(inserted) + len(ibd):
        _fail(op_, "C2", f"rank(inputs[0]) {rank} != size(update_window_dims) {len(window)} + "
                         f"size(inserted_window_dims) {len(inserted)} + size(input_batching_dims) {len(ibd)}")
    if any(u.shape != updates[0].shape for u in updates):
        raise shape_error(op_, f"updates have different shapes: {[u.shape for u in updates]}", "C3")
    types_in = [v.type.element_type for v in op_.operands[:n]]
    types_up = [v.type.element_type for v in op_.operands[n + 1:]]
    if types_in != types_up:
        _fail(op_, "C6", f"element types of updates {list(map(str, types_up))} != inputs {list(map(str, types_in))}")
    if not op_.operands[n].type.element_type.is_integer:  # (I2)
        _fail(op_, "C22", f"scatter_indices must be of integer type, got {op_.operands[n].type}")
    if not (_is_unique(window) and _is_sorted(window)):
        _fail(op_, "C7", f"update_window_dims {list(window)} must be unique and sorted")
    if not _in_range(window, updates[0].ndim):
        _fail(op_, "C8", f"update_window_dims {list(window)} not in [0, rank(updates[0]) {updates[0].ndim})")
    if not _is_unique(inserted + ibd):
        _fail(op_, "C9", f"inserted_window_dims {list(inserted)} + input_batching_dims {list(ibd)} not unique")
    if not _is_sorted(inserted):
        _fail(op_, "C10", f"inserted_window_dims {list(inserted)} not sorted")
    if not _in_range(inserted, rank):
        _fail(op_, "C11", f"inserted_window_dims {list(inserted)} not in [0, {rank})")
    if not _is_sorted(ibd):
        _fail(op_, "C12", f"input_batching_dims {list(ibd)} not sorted")
    if not _in_range(ibd, rank):
        _fail(op_, "C13", f"input_batching_dims {list(ibd)} not in [0, {rank})")
    _check_indices_batching_dims(
        op_, ibd, sibd, ivd, inputs[0].shape, indices.shape,
        ("input_batching_dims", "scatter_indices_batching_dims", "inputs[0]", "scatter_indices"),
        ("C14", "C15", "C16", "C17", "C18"))
    if not 0 <= ivd <= irank:
        _fail(op_, "C22", f"index_vector_dim {ivd} not in [0, rank(scatter_indices) {irank}]")
    vector_size = indices.shape[ivd] if ivd < irank else 1
    if len(to_operand) != vector_size:
        _fail(op_, "C19", f"size(scatter_dims_to_operand_dims) {len(to_operand)} != index vector size {vector_size}")
    if not _is_unique(to_operand + ibd):
        _fail(op_, "C20", f"scatter_dims_to_operand_dims {list(to_operand)} + input_batching_dims {list(ibd)} "
                          f"not unique")
    if not _in_range(to_operand, rank):
        _fail(op_, "C21", f"scatter_dims_to_operand_dims {list(to_operand)} not in [0, {rank})")
    # (C4) shape(updates[0]) = combine(update_scatter_dim_sizes, update_window_dim_sizes)
    scatter_sizes = [s for d, s in enumerate(indices.shape) if d != ivd]
    window_operand_dims = [d for d in range(rank) if d not in inserted and d not in ibd]
    update_scatter_dims = [d for d in range(updates[0].ndim) if d not in window]
    if ([updates[0].shape[d] for d in update_scatter_dims] != scatter_sizes
            or any(updates[0].shape[w] > inputs[0].shape[d] for w, d in zip(window, window_operand_dims))):
        raise shape_error(op_, f"shape(updates[0]) {updates[0].shape} is not combine({scatter_sizes}, window sizes "
                               f"<= {[inputs[0].shape[d] for d in window_operand_dims]})", "C4")
    # (C23) update_computation: (tensor<E0>..., tensor<E0>...) -> (tensor<E0>...), is_promotable(inputs[i], Ei)
    arg_types = [a.type for a in region.arguments]
    result_types = [v.type for v in op_.results]
    if len(arg_types) != 2 * n or any(t.rank != 0 for t in arg_types) \
            or arg_types[:n] != arg_types[n:]:
        _fail(op_, "C23", f"update_computation takes ({', '.join(map(str, arg_types))}), expected 2 x {n} "
                          f"rank-0 tensors of the same types")
    for i, (src, t) in enumerate(zip(types_in, arg_types[:n])):
        e = t.element_type
        if not is_promotable(src, e):
            _fail(op_, "C23", f"element type of inputs[{i}] {src} is not promotable to {e}")
        if result_types[i].element_type != e:  # (C25)
            _fail(op_, "C25", f"element_type(results[{i}]) {result_types[i].element_type} != {e}")


def scatter_targets(operand_shape, indices, updates_shape, dn) -> tuple[np.ndarray, np.ndarray]:
    """(positions, targets): the flat update positions whose result_index is in bounds, in
    schedule (row-major) order, and the flat result index each one updates."""
    window, inserted, ibd, sibd, to_operand = (dn[f] for f in SCATTER_FIELDS)
    ivd = dn["index_vector_dim"]
    rank, urank = len(operand_shape), len(updates_shape)
    update_scatter_dims = [d for d in range(urank) if d not in window]
    scatter_shape = tuple(updates_shape[d] for d in update_scatter_dims)
    window_shape = tuple(updates_shape[d] for d in window)
    vectors = index_vectors(indices, ivd)  # (*scatter_shape, n)
    full_start = {d_input: vectors[..., d_start] for d_start, d_input in enumerate(to_operand)}
    full_batching = {d_input: _axis_iota(scatter_shape, _batch_axis(d_start, ivd))
                     for d_input, d_start in zip(ibd, sibd)}
    window_operand_dims = [d for d in range(rank) if d not in inserted and d not in ibd]
    full_window = {d: _axis_iota(window_shape, k) for k, d in enumerate(window_operand_dims)}
    strides = _strides(operand_shape)
    linear = np.zeros(updates_shape, dtype=np.int64)
    in_bounds = np.ones(updates_shape, dtype=bool)
    for d in range(rank):  # result_index = full_start_index + full_batching_index + full_window_index
        index = np.zeros((1,) * urank, dtype=np.int64)
        if d in full_start or d in full_batching:
            part = full_start[d] if d in full_start else full_batching[d]
            index = index + _place(np.broadcast_to(part, scatter_shape), update_scatter_dims, urank)
        if d in full_window:
            index = index + _place(np.broadcast_to(full_window[d], window_shape), window, urank)
        in_bounds &= (index >= 0) & (index < operand_shape[d])
        linear += index * strides[d]
    positions = np.flatnonzero(in_bounds)
    return positions, linear.reshape(-1)[positions]


def collision_rounds(targets: np.ndarray, size: int) -> np.ndarray:
    """For each update (in schedule order): how many earlier updates hit the same target
    (``targets`` in [0, size))."""
    rounds = np.zeros(targets.size, dtype=np.int64)
    if targets.size == 0 or np.bincount(targets, minlength=size).max() <= 1:
        return rounds  # no collisions (the common case): one round
    order = np.argsort(targets, kind="stable")
    sorted_targets = targets[order]
    group_starts = np.flatnonzero(np.r_[True, sorted_targets[1:] != sorted_targets[:-1]])
    group_sizes = np.diff(np.r_[group_starts, targets.size])
    rounds[order] = np.arange(targets.size) - np.repeat(group_starts, group_sizes)
    return rounds


def _apply_region(ctx, region, env, args: list, count: int) -> list:
    """update_computation on ``count`` elements at once (batched when the region allows)."""
    if batchable(region):
        return [np.asarray(r) for r in ctx.run_region_batched(region, args, (count,), env)]
    # rare: a body with non-element-wise ops runs once per element
    outs = [ctx.run_region(region, [np.asarray(a[j]) for a in args], env) for j in range(count)]
    return [np.array([o[i] for o in outs]).reshape(count) for i in range(len(args) // 2)]


def _scatter(op_, args, ctx, env) -> list:
    n = (len(args) - 1) // 2
    inputs, indices, updates = args[:n], args[n], args[n + 1:]
    if len(op_.regions) != 1:
        raise OracleError("scatter needs one update_computation region", op=op_.name)
    region = op_.regions[0]
    dn = _dimension_numbers(op_, "scatter_dimension_numbers", SCATTER_FIELDS)
    _check_scatter(op_, inputs, indices, updates, dn, region)
    types_in = [v.type.element_type for v in op_.operands[:n]]
    types_out = [a.type.element_type for a in region.arguments[:n]]
    # results start as the inputs (in the computation's types); updates_converted likewise
    results = [np.array(convert_array(x, s, e) if s != e else x, order="C", copy=True)
               for x, s, e in zip(inputs, types_in, types_out)]
    converted = [np.ascontiguousarray(convert_array(u, s, e) if s != e else u).reshape(-1)
                 for u, s, e in zip(updates, types_in, types_out)]
    positions, targets = scatter_targets(inputs[0].shape, indices, updates[0].shape, dn)
    rounds = collision_rounds(targets, inputs[0].size)
    # round k's updates are one slice of by_round (schedule order within it)
    by_round = np.argsort(rounds, kind="stable") if rounds.any() else np.arange(rounds.size)
    bounds = np.r_[0, np.cumsum(np.bincount(rounds))] if rounds.size else np.zeros(1, np.int64)
    flat = [r.reshape(-1) for r in results]
    for k in range(len(bounds) - 1):
        chosen = by_round[bounds[k]:bounds[k + 1]]
        where, what = targets[chosen], positions[chosen]
        current = [f[where] for f in flat]
        new = _apply_region(ctx, region, env, current + [c[what] for c in converted], int(where.size))
        for f, v, e in zip(flat, new, types_out):
            f[where] = np.asarray(v, dtype=e.dtype)
    return results


def _draw_scatter(draw, element_type):
    from hypothesis import strategies as st

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


def scatter_error_bound(op_, inputs, result_types) -> list:
    """Per-element bounds of scatter's results for every schedule ("an implementation-defined
    permutation" of the update indices): each result element's terms are the input element
    and the updates that land on it (oracle/accumulation.py); None for bodies that are not
    add / maximum / minimum of result i with update i."""
    n = (len(inputs) - 1) // 2
    arrays = [np.asarray(x) for x in inputs]
    data, indices, updates = arrays[:n], arrays[n], arrays[n + 1:]
    region = op_.regions[0]
    dn = _dimension_numbers(op_, "scatter_dimension_numbers", SCATTER_FIELDS)
    _check_scatter(op_, data, indices, updates, dn, region)
    names = monoid_ops(region, n)
    if names is None:
        return [None] * n
    types_in = [v.type.element_type for v in op_.operands[:n]]
    types_out = [a.type.element_type for a in region.arguments[:n]]
    positions, targets = scatter_targets(data[0].shape, indices, updates[0].shape, dn)
    out = []
    for name, x, u, s, e in zip(names, data, updates, types_in, types_out):
        base = (convert_array(x, s, e) if s != e else x).reshape(-1)
        values = (convert_array(u, s, e) if s != e else u).reshape(-1)[positions]
        bound = scattered_bound(name, base, targets, values, e)
        out.append(None if bound is None else bound.reshape(x.shape))
    return out


@op("stablehlo.scatter", family="gather_scatter", element_types=_ALL_NAMES, draw_signature=_draw_scatter,
    draw_inputs=_draw_scatter_inputs, extra={"error_bound": scatter_error_bound},
    notes="schedule = row-major order of the update indices; out-of-bounds update elements are skipped "
          "one by one; add / max / min bodies compared within a bound for every schedule "
          "(extra['error_bound']); impl_defined masks elements whose result depends on the order otherwise")
@on_storage
def scatter(op_, args, ctx, env):
    return _scatter(op_, args, ctx, env)


# ---------------------------------------------------- the masks of the implementation-defined entries
# (ImplDefined.mask: inputs, attributes, result type -> a bool array of the result's shape;
# the helpers every mask shares are oracle/impl_defined_masks.py's)

def _non_decreasing_along(full_start: np.ndarray, axes, shape) -> bool:
    """full_start_index(i1) <= full_start_index(i2) for all i1 < i2 from the index space of
    ``shape`` (row-major), where full_start (*batch_shape, rank) varies along ``axes`` only.
    Read element-wise (the spec compares index tensors element-wise elsewhere, e.g. 0 <=
    slice_sizes <= shape(operand)), which implies lexicographic order too: the stricter, hence
    conservative, reading.  Literally "for all i1 < i2": a window axis that comes before a batch
    axis repeats the batch sequence, which then must be constant."""
    axes = list(axes)
    if full_start.size == 0 or not axes:
        return True
    last = max(axes)
    # window axes after the last batch axis (or of size 1) only repeat a value: leave them out
    kept = [a for a in range(last + 1) if a in axes or shape[a] > 1]
    placed = full_start.reshape([shape[a] if a in axes else 1 for a in kept] + [full_start.shape[-1]])
    rows = np.broadcast_to(placed, [shape[a] for a in kept] + [full_start.shape[-1]]).reshape(-1, full_start.shape[-1])
    return rows.shape[0] < 2 or bool(np.all(rows[1:] >= rows[:-1]))


def _mask_dimension_numbers(attributes, fields) -> dict:
    out = {f: tuple(int(v) for v in (attribute(attributes, f, ()) or ())) for f in fields}
    out["index_vector_dim"] = int(attribute(attributes, "index_vector_dim", 0))
    return out


def gather_unsorted_indices(inputs, attributes, result_type):
    """indices_are_sorted = true but the start indices are not sorted: undefined, so the
    whole result.  full_start_index is the clamped start in operand-dimension order."""
    shape = result_shape(result_type, inputs)
    if not attribute(attributes, "indices_are_sorted", False):
        return no_elements(shape)
    operand, start_indices = np.asarray(inputs[0]), np.asarray(inputs[1])
    dn = _mask_dimension_numbers(attributes, GATHER_FIELDS)
    slice_sizes = attribute(attributes, "slice_sizes", None)
    slice_sizes = [int(v) for v in (np.asarray(inputs[2]).astype(np.int64) if slice_sizes is None else slice_sizes)]
    vectors = index_vectors(start_indices, dn["index_vector_dim"])
    full = np.zeros(vectors.shape[:-1] + (operand.ndim,), dtype=np.int64)
    for d_start, d_operand in enumerate(dn["start_index_map"]):  # loop over index dimensions
        full[..., d_operand] = np.clip(vectors[..., d_start], 0, operand.shape[d_operand] - slice_sizes[d_operand])
    batch_axes = [d for d in range(len(shape)) if d not in dn["offset_dims"]]
    return no_elements(shape) if _non_decreasing_along(full, batch_axes, shape) else whole_result(shape)


def _scatter_order_independence(region, n: int) -> str | None:
    """How the result of several updates of one element depends on their order, read from
    update_computation's structure: 'exact' (every order gives the same bits: integer / bool
    add, multiply, and, or, xor, maximum, minimum; float maximum / minimum; a body returning
    the accumulator), 'sum' (float / complex add: the same up to rounding) or None (anything
    else: overwrite, subtract, float multiply, bodies not recognized)."""
    if region is None or len(region.arguments) != 2 * n or not region.ops:
        return None
    args = region.arguments
    produced = {r: o for o in region.ops for r in o.results}
    worst = "exact"
    for i, value in enumerate(region.ops[-1].operands):
        if value is args[i]:
            continue
        o = produced.get(value)
        name = o.name.split(".", 1)[1] if o is not None else ""
        if o is None or len(o.operands) != 2 or {id(v) for v in o.operands} != {id(args[i]), id(args[n + i])}:
            return None
        et = args[i].type.element_type
        if name in ("add", "multiply", "and", "or", "xor", "maximum", "minimum") and (et.is_integer or et.is_bool):
            continue
        if name in ("maximum", "minimum") and et.is_float:
            continue
        if name == "add" and (et.is_float or et.is_complex):
            worst = "sum"
            continue
        return None
    return worst


def _update_computation(attributes):
    region = (attributes or {}).get("update_computation")
    regions = (attributes or {}).get("regions")
    return region if region is not None else (regions[0] if regions else None)


def _sum_order_sensitive(values: list, targets, positions, hits, size) -> np.ndarray:
    """Targets of a float/complex add whose order-dependent rounding may exceed the
    order-dependent tolerance rows (oracle/allowances.order_dependent: 32 eps, relative or absolute): recursive
    summation of k terms errs by <= (k-1) u sum|x| (u = eps/2), so keep targets with
    (k-1) sum|x| <= 32 max(|sum x|, 1); also non-finite terms and sums near overflow."""
    sensitive = np.zeros(size, dtype=bool)
    for operand, updates in values:
        contribution = np.concatenate([operand.reshape(-1)[targets], updates.reshape(-1)[positions]])
        where = np.concatenate([targets, targets])
        with np.errstate(all="ignore"):
            wide = contribution.astype(np.complex128 if np.iscomplexobj(contribution) else np.float64)
            finite = np.isfinite(wide.real) & np.isfinite(wide.imag) if np.iscomplexobj(wide) else np.isfinite(wide)
            magnitude = np.abs(wide)
            total = np.abs(np.bincount(where, weights=wide.real, minlength=size)
                           + 1j * np.bincount(where, weights=np.imag(wide), minlength=size))
            spread = np.bincount(where, weights=magnitude, minlength=size)
        largest = float(type_of(operand).component.finfo.max if np.iscomplexobj(operand)
                        else type_of(operand).finfo.max)
        sensitive |= np.bincount(where, weights=~finite, minlength=size) > 0
        sensitive |= ~(spread < largest / 2) | ((hits - 1) * spread > 32 * np.maximum(total, 1.0))
    return sensitive


def scatter_collisions(inputs, attributes, result_type):
    """Result elements that receive two or more updates: the update order ('schedule') is 'an
    implementation-defined permutation', so they are masked unless update_computation gives
    the same result in every order (``_scatter_order_independence``; the region comes as
    attributes['update_computation'] or attributes['regions'][0]; without it: every
    collision).  unique_indices / indices_are_sorted = true when false: undefined, the whole
    result."""
    n = (len(inputs) - 1) // 2
    operand, scatter_indices, updates = np.asarray(inputs[0]), np.asarray(inputs[n]), np.asarray(inputs[n + 1])
    dn = _mask_dimension_numbers(attributes, SCATTER_FIELDS)
    positions, targets = scatter_targets(operand.shape, scatter_indices, updates.shape, dn)
    hits = np.bincount(targets, minlength=operand.size)
    collided = hits >= 2
    if attribute(attributes, "unique_indices", False) and collided.any():
        return whole_result(operand.shape)
    if attribute(attributes, "indices_are_sorted", False):
        vectors = index_vectors(scatter_indices, dn["index_vector_dim"])
        full = np.zeros(vectors.shape[:-1] + (operand.ndim,), dtype=np.int64)
        for d_start, d_input in enumerate(dn["scatter_dims_to_operand_dims"]):
            full[..., d_input] = vectors[..., d_start]
        scatter_axes = [d for d in range(updates.ndim) if d not in dn["update_window_dims"]]
        if not _non_decreasing_along(full, scatter_axes, updates.shape):
            return whole_result(operand.shape)
    kind = _scatter_order_independence(_update_computation(attributes), n)
    if kind == "exact" or not collided.any():
        return no_elements(operand.shape)
    if kind == "sum":
        pairs = [(np.asarray(inputs[i]), np.asarray(inputs[n + 1 + i])) for i in range(n)]
        collided &= _sum_order_sensitive(pairs, targets, positions, hits, operand.size)
    return collided.reshape(operand.shape)


# ---------------------------------------------- implementation-defined results, on the records
# The result elements the spec leaves to the implementation, with the masks that find them
# (oracle/impl_defined.py states the rules and generates IMPL_DEFINED_TABLE from the records).
add_impl_defined(
    # --- indexing
    ImplDefined("gather", "indices_are_sorted = true but the start indices are not sorted",
                "undefined behaviour: the whole result",
                'gather: "If indices_are_sorted is true then the implementation can assume that '
                'start_indices are sorted with respect to start_index_map, otherwise the behavior '
                'is undefined."', gather_unsorted_indices),
    ImplDefined("dynamic_gather", "indices_are_sorted = true but the start indices are not sorted",
                "undefined behaviour: the whole result",
                'dynamic_gather: "functionally identical to gather op" (see gather)', gather_unsorted_indices),
    ImplDefined("scatter", "result elements updated more than once, unless update_computation gives "
                "the same result in every order (integer add/multiply/and/or/xor/max/min, float "
                "max/min, keep-the-accumulator; float add where rounding stays within tolerance); "
                "the whole result if unique_indices or indices_are_sorted is violated",
                "the order of updates is implementation-defined, so other update_computations "
                "(overwrite, subtract, float multiply, overflowing sums) give order-dependent results",
                'scatter: "schedule is an implementation-defined permutation of '
                'index_space(updates[0])"; "If unique_indices is true but the indices being '
                'scattered to are not unique then the behavior is undefined."',
                scatter_collisions),
)


# ------------------------------------------------------------ tolerance rows, on the records
# How far a backend's result may be from the oracle's (oracle/allowances.py builds the rows;
# judge/tolerance.py explains the lookup and generates TOLERANCE_TABLE from the records).
# The float result depends on an implementation-defined order, or is specified only up to the algorithm.
record_facts("stablehlo.scatter", tolerances=order_dependent("accumulation"))


# ------------------------------------------------------------------ attribute classes
# The shapes, attributes and index values whose semantics the spec distinguishes
# (registry.AttributeClass): each class pins its structure and draws the rest (sizes, which
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
    from hypothesis import strategies as st
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
    from hypothesis import strategies as st
    return list(draw(st.permutations(sorted(draw(st.sets(st.integers(low, high), min_size=k, max_size=k))))))


def _index_type(draw, names):
    from hypothesis import strategies as st
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
            from hypothesis import strategies as st
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
        from hypothesis import strategies as st
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
    from hypothesis import strategies as st
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
    from hypothesis import strategies as st
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
    from hypothesis import strategies as st
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
    from hypothesis import strategies as st
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
    from hypothesis import strategies as st
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
    from hypothesis import strategies as st
    rank = draw(st.integers(2, 3))
    shape = _sizes(draw, rank, 2, 5)
    dims = draw(st.permutations(range(rank)))
    full, collapsed = dims[0], dims[1]
    slice_sizes = [1 if d == collapsed else shape[d] for d in range(rank)]
    dn = {"offset_dims": tuple(range(1, rank)), "collapsed_slice_dims": (collapsed,),
          "start_index_map": tuple(draw(st.permutations((full, collapsed)))), "index_vector_dim": 1}
    return shape, dn, slice_sizes, (9, 2), _ANY_INDEX


def _zero_slice_structure(draw):
    """Rank 2 or 3: an offset dim with slice size 0 (an empty result: (C21) allows 0), the
    others collapsed / partial."""
    from hypothesis import strategies as st
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
    _gather_class("slice-size-zero", "gather (C21): a slice size of 0 at an offset dim: an empty result",
                  _zero_slice_structure),
]
record_facts("stablehlo.gather", attribute_space=tuple(c for c, _ in _GATHER_CLASSES))
record_facts("stablehlo.dynamic_gather", attribute_space=tuple(d for _, d in _GATHER_CLASSES if d is not None))


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
    from hypothesis import strategies as st
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
        from hypothesis import strategies as st
        shape, dn, window_sizes, window_dims, index_shape, index_names = structure(draw)
        dn = {f: tuple(dn.get(f, ())) for f in SCATTER_FIELDS} | {"index_vector_dim": dn["index_vector_dim"]}
        types = [et] + ([ELEMENT_TYPES["f16" if et.name == "i32" else "i32"]] if variadic else [])
        region = draw(draw.reducer_bodies(types).filter(lambda b: b.name == body)).region
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
        from hypothesis import strategies as st
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
        from hypothesis import strategies as st
        shape = _sizes(draw, 3, 3, 5)
        window_dim = draw(st.integers(0, 2))
        inserted = tuple(d for d in range(3) if d != window_dim)
        dn = {"update_window_dims": (1,), "inserted_window_dims": inserted,
              "scatter_dims_to_operand_dims": tuple(draw(st.permutations(inserted))), "index_vector_dim": 1}
        return shape, dn, [draw(st.integers(1, shape[window_dim]))], (1,), \
            (rows or draw(st.integers(4, 6)), 2), index_names
    return structure


def _partly_out_structure(draw):
    """Rank 2: dim 0 a batching dim (each index row updates its own operand row), dim 1 a window
    of 2 to dim - 1 elements indexed by a one-element index vector."""
    from hypothesis import strategies as st
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
    from hypothesis import strategies as st
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
    from hypothesis import strategies as st
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
    from hypothesis import strategies as st
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
    _scatter_class("index-vector-dim-inner", "scatter (C19), (C22): index_vector_dim 0 or 1 of rank-3 "
                   "scatter_indices, not the last dim", _inner_vector_scatter_structure, _start_rows(None), "add"),
)
record_facts("stablehlo.scatter", attribute_space=_SCATTER_CLASSES)
