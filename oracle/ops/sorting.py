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
from .. import ir
from ..errors import OracleError
from ..registry import AttributeClass, Signature, add_impl_defined, op, record_facts
from ..quantization import on_storage
from ..types import ALL_ELEMENT_TYPES, BOOL, TensorType, as_element_type
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


def _draw_sort(draw, element_type):
    """1-3 inputs (the key of ``element_type``, then ``element_type`` or i32 payloads), any
    comparator of the menu (strict weak orders and not), dimension negative or not."""
    from hypothesis import strategies as st

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


@op("stablehlo.sort", family="sorting", element_types=_ALL_NAMES, draw_signature=_draw_sort,
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


# ------------------------------------------------------------------ attribute classes
# The shapes, attributes and key values whose semantics the spec distinguishes
# (registry.AttributeClass).  Keys come from a few values (many ties) and an i32 payload
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
    from hypothesis import strategies as st
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
        from hypothesis import strategies as st
        shape = draw(st.permutations(sorted(draw(st.sets(st.integers(2, 5), min_size=3, max_size=3)))))
        return tuple(shape), draw(st.sampled_from(dimensions)), payloads
    return structure


def _two_payloads(draw, et):
    """Rank 3 sorted along the middle dim, spelled -2 (adjusted_dimension), a key, an i32 payload
    and a payload of a third element type."""
    from hypothesis import strategies as st
    shape, dimension, _ = _rank3((-2,))(draw, et)
    other = draw(st.sampled_from([n for n in ("f32", "ui8", "i16", "f16", "i64") if n != et.name]))
    return shape, dimension, ("i32", other)


def _rank2(draw, et):
    from hypothesis import strategies as st
    shape = tuple(draw(st.permutations(sorted(draw(st.sets(st.integers(3, 8), min_size=2, max_size=2))))))
    return shape, draw(st.sampled_from((0, 1, -1))), ("i32",)


def _sized_dim(size: int):
    """Rank 2 or 3 (other sizes 2 to 5, pairwise different), the sort dim of size ``size``."""
    def structure(draw, et):
        from hypothesis import strategies as st
        rank = draw(st.integers(2, 3))
        shape = list(draw(st.permutations(sorted(draw(st.sets(st.integers(2, 5), min_size=rank, max_size=rank))))))
        dim = draw(st.integers(0, rank - 1))
        shape[dim] = size
        return tuple(shape), draw(st.sampled_from((dim, dim - rank))), ("i32",)
    return structure


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
)
record_facts("stablehlo.sort", attribute_space=_SORT_CLASSES)
