"""Sorting (spec "sort").

The comparator is a region, so the oracle never calls it per pair of Python objects.  Per
1-d slice of n elements it evaluates the whole n x n matrix ``less[i, j] = comparator(x_i,
x_j)`` with one batched body call (chunks of slices bound the memory), then:

  * ``below[i] = #{j : less[j, i]}``; for a strict weak order equivalent elements share
    ``below`` and ``less[i, j] <=> below[i] < below[j]``, so a stable argsort of ``below``
    is exactly the stable sort the spec defines;
  * the comparator is a strict weak order on the slice iff that equivalence holds for
    every pair of distinct positions (a sort never compares an element with itself, so LE
    on distinct keys is fine).  When it does not (LE, always-true, FLOAT compare with NaN keys), "sorts in
    non-descending order" has no single answer: the whole slice is implementation-defined;
  * with ``is_stable = false`` the order among equivalent elements is left open: the
    positions of a tie whose members differ in some result are implementation-defined
    (per result: ties of identical values are harmless).

Both go to ``ctx.impl_defined`` (entries "sort" in oracle/impl_defined.py).  The matrix
costs O(n^2) per slice; slices longer than ``_MAX_MATRIX_SIDE`` are sorted by a batched
bottom-up merge sort instead (O(n log^2 n) comparator evaluations in log^2 n batched
calls), which checks the strict-weak-order property only on adjacent sorted elements.
"""

from __future__ import annotations

import numpy as np

from ..allowances import ImplDefined
from ..impl_defined_masks import recorded_by_oracle
from ..errors import OracleError
from ..registry import add_impl_defined, op
from ..quantization import on_storage
from ..types import ALL_ELEMENT_TYPES, BOOL, TensorType
from ._checks import shape_error
from .reductions import record_masks, run_body, values_differ

_ALL_NAMES = tuple(t.name for t in ALL_ELEMENT_TYPES)
_MAX_MATRIX_SIDE = 2048
_MATRIX_ELEMENTS = 1 << 22  # comparator evaluations per batched call


def _less_matrix(ctx, comparator, slices, env) -> np.ndarray:
    """less[s, i, j] = comparator(slices...[s, i], slices...[s, j]) for (S, n) slices."""
    count, n = slices[0].shape
    out = np.empty((count, n, n), dtype=bool)
    step = max(1, _MATRIX_ELEMENTS // max(n * n, 1))
    for a in range(0, count, step):
        chunk = [x[a:a + step] for x in slices]
        args = [v for x in chunk for v in (x[:, :, None], x[:, None, :])]  # lhs_0, rhs_0, lhs_1, rhs_1, ...
        (out[a:a + step],) = run_body(ctx, comparator, args, (len(chunk[0]), n, n), env)
    return out


def _matrix_sort(ctx, comparator, slices, env):
    """(permutation (S, n), class key of each sorted element, slices that are not strict weak orders)."""
    less = _less_matrix(ctx, comparator, slices, env)
    # An element is never compared with itself: the diagonal does not matter (LE on distinct keys sorts fine).
    less[:, np.arange(less.shape[1]), np.arange(less.shape[1])] = False
    below = less.sum(axis=1)  # below[s, i] = #{j : less[s, j, i]}
    order = np.argsort(below, axis=-1, kind="stable")
    weak = (less == (below[:, :, None] < below[:, None, :])).all(axis=(1, 2))
    return order, np.take_along_axis(below, order, axis=-1), ~weak


def _merge_sort(ctx, comparator, slices, env):
    """Batched bottom-up merge sort of every slice at once (stable for strict weak orders)."""
    count, n = slices[0].shape
    order = np.broadcast_to(np.arange(n), (count, n)).copy()
    rows = np.arange(count)[:, None]
    pos = np.arange(n)[None, :]

    def less(i, j):  # comparator(x[order[i]], x[order[j]]) for index arrays of shape (S, n)
        a, b = np.take_along_axis(order, i, -1), np.take_along_axis(order, j, -1)
        args = [v for x in slices for v in (x[rows, a], x[rows, b])]
        return run_body(ctx, comparator, args, (count, n), env)[0]

    width = 1
    while width < n:
        start = pos // (2 * width) * (2 * width)
        in_a = pos - start < width
        other = np.where(in_a, start + width, start)  # the run to search in
        other_len = np.where(in_a, np.clip(n - start - width, 0, width), width)
        lo, hi = np.zeros_like(pos + rows), np.broadcast_to(other_len, (count, n)).copy()
        while (lo < hi).any():
            active = lo < hi
            mid = (lo + hi) // 2
            probe = np.minimum(other + mid, n - 1)
            me = np.broadcast_to(pos, (count, n))
            # A element a: count B elements b with less(b, a); B element b: count A elements with !less(b, a)
            go_right = np.where(in_a, less(probe, me), ~less(me, probe))
            lo, hi = np.where(active & go_right, mid + 1, lo), np.where(active & ~go_right, mid, hi)
        new_pos = start + (pos - np.where(in_a, start, start + width)) + lo
        merged = np.empty_like(order)
        np.put_along_axis(merged, new_pos, order, -1)
        order, width = merged, 2 * width
    # strict-weak-order checks on what can be checked cheaply: no later element less than an earlier one
    idx = np.broadcast_to(pos, (count, n))
    bad = np.zeros(count, dtype=bool)
    if n > 1:
        nxt = np.minimum(idx + 1, n - 1)
        after_less = less(nxt, idx)[:, :-1]
        before_less = less(idx, nxt)[:, :-1]
        bad |= after_less.any(axis=-1)
        classes = np.concatenate([np.zeros((count, 1), np.int64), np.cumsum(before_less, axis=-1)], axis=-1)
    else:
        classes = np.zeros((count, n), np.int64)
    return order, classes, bad


@op("stablehlo.sort", family="sorting", element_types=_ALL_NAMES,
    notes="stable sort by the comparator matrix; non-strict-weak comparators and unstable ties masked")
@on_storage
def sort(op_, args, ctx, env):
    if not args:  # sort (C1)
        raise OracleError("needs at least one input", op=op_.name, constraint="C1")
    types = [v.type.element_type for v in op_.operands]
    if len(op_.results) != len(args) or any(r.type.element_type != t for r, t in zip(op_.results, types)):  # (C2)
        raise OracleError("type(inputs...) != type(results...)", op=op_.name, constraint="C2")
    shape = args[0].shape
    for i, x in enumerate(args):  # (C3)
        if x.shape != shape:
            raise shape_error(op_, f"shape(inputs[{i}]) {x.shape} != shape(inputs[0]) {shape}", "C3")
    for r in op_.results:
        if not r.type.matches_shape(shape):
            raise shape_error(op_, f"result type {r.type} does not match shape {shape}", "C3")
    rank = len(shape)
    dimension = int(op_.attr("dimension", -1))
    if not -rank <= dimension < rank:  # (C4)
        raise OracleError(f"dimension {dimension} not in [-{rank}, {rank})", op=op_.name, constraint="C4")
    dim = dimension if dimension >= 0 else rank + dimension  # adjusted_dimension
    comparator = op_.regions[0]
    arg_types = [a.type for a in comparator.arguments]
    ret = comparator.ops[-1].operands if comparator.ops else ()
    if arg_types != [TensorType((), t) for t in types for _ in (0, 1)] or len(ret) != 1 or \
            ret[0].type != TensorType((), BOOL):  # (C5)
        raise OracleError("comparator must have type (tensor<E0>, tensor<E0>, ..., tensor<EN-1>, tensor<EN-1>) "
                          "-> tensor<i1>", op=op_.name, constraint="C5")
    stable = bool(op_.attr("is_stable", False))
    n = shape[dim]
    if args[0].size == 0 or n <= 1:
        return [np.array(x, order="C") for x in args]
    moved = [np.moveaxis(x, dim, -1) for x in args]
    outer = moved[0].shape[:-1]
    slices = [m.reshape(-1, n) for m in moved]

    sorter = _matrix_sort if n <= _MAX_MATRIX_SIDE else _merge_sort
    order, classes, not_weak = sorter(ctx, comparator, slices, env)
    results = [np.take_along_axis(s, order, axis=-1) for s in slices]

    # implementation-defined positions (see the module docstring)
    masks = []
    tie = classes[:, 1:] == classes[:, :-1]
    run = np.concatenate([np.zeros((len(order), 1), np.int64), np.cumsum(~tie, axis=-1)], axis=-1)
    rows = np.arange(len(order))[:, None]
    for r in results:
        mask = np.broadcast_to(not_weak[:, None], order.shape).copy()
        if not stable:
            bad_pair = tie & values_differ(r[:, 1:], r[:, :-1])
            bad_run = np.zeros(order.shape, dtype=bool)  # indexed by (slice, run id)
            bad_run[np.broadcast_to(rows, bad_pair.shape)[bad_pair], run[:, 1:][bad_pair]] = True
            mask |= bad_run[rows, run]
        masks.append(np.moveaxis(mask.reshape(outer + (n,)), -1, dim))
    record_masks(ctx, op_, masks)
    return [np.array(np.moveaxis(r.reshape(outer + (n,)), -1, dim), order="C") for r in results]


# ---------------------------------------------- implementation-defined results, on the records
# The result elements the spec leaves to the implementation, with the masks that find them
# (oracle/impl_defined.py states the rules and generates IMPL_DEFINED_TABLE from the records).
add_impl_defined(
    ImplDefined("sort", "a slice on which the comparator is not a strict weak order (LE, always-true, "
                "FLOAT compare with NaN keys): the whole slice",
                "'sorts in non-descending order expecting that comparator returns true if the "
                "left-hand side argument is less than the right-hand' has no unique answer then",
                'sort: "expecting that comparator_together returns true if the left-hand side argument '
                'is less than the right-hand second argument"', recorded_by_oracle),
    ImplDefined("sort", "is_stable = false: positions of equivalent elements that differ in that result",
                "only stable sorts promise to keep the relative order of elements the comparator "
                "considers equal",
                'sort: "If is_stable is true, then the sorting is stable, that is, relative order of '
                'elements considered to be equal by the comparator is preserved."', recorded_by_oracle),
)
