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

import math

import numpy as np

from ..allowances import ImplDefined, order_dependent
from ..impl_defined_masks import attribute, no_elements, result_shape, type_of, whole_result
from ..accumulation import scattered_bound
from ..element_conversion import convert_array
from ..errors import OracleError, UndefinedBehavior
from ..evaluator import batchable
from ..registry import add_impl_defined, op, record_facts
from ..quantization import on_storage
from ..types import ALL_ELEMENT_TYPES, TensorType
from ._checks import shape_error
from .indexing import index_values
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


@op("stablehlo.gather", family="gather_scatter", element_types=_ALL_NAMES,
    notes="indices_are_sorted = true with unsorted indices: undefined (impl_defined masks the result)")
@on_storage
def gather(op_, args, ctx, env):
    operand, indices = args
    dn = _dimension_numbers(op_, "dimension_numbers", GATHER_FIELDS)
    return [_gather(op_, operand, indices, ints(op_, "slice_sizes"), dn)]


# ------------------------------------------------------------------- dynamic_gather


@op("stablehlo.dynamic_gather", family="gather_scatter", element_types=_ALL_NAMES)
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


@op("stablehlo.scatter", family="gather_scatter", element_types=_ALL_NAMES,
    extra={"error_bound": scatter_error_bound},
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
