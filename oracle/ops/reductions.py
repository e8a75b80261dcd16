"""Reductions and map (spec "reduce", "reduce_window", "select_and_scatter", "map").

Bodies are regions.  They run batched (``Context.run_region_batched``): one body call
combines whole arrays of accumulators and values, so the cost is a number of numpy passes,
never a Python loop over result elements.  A body that is not made of scalar element-wise
ops runs once per element instead (correct, slow, rare).

Schedules.  The spec lets an implementation pick any binary tree whose in-order traversal
is the reduced values in ascending index order, "interspersed with an implementation-defined
amount of init_values at implementation-defined positions".  The oracle computes
``body(init, tree(values))`` where ``tree`` pairs adjacent values level by level (log-depth,
so a reduction over n values is ceil(log2 n) + 1 batched body calls).  Which result elements
the choice of schedule can change is decided per case (``_schedule_dependent``), and those
elements are recorded in ``ctx.impl_defined`` (entries "reduce" / "reduce_window" /
"select_and_scatter" in oracle/impl_defined.py):

  * a body that is a known commutative monoid op per result (``add``, ``multiply``, ``xor``,
    ``maximum``, ``minimum``, ``and``, ``or``) with an identity init value gives the same
    value for every schedule, except that float add/multiply round differently - judged by
    the per-element bound for every order (``extra["error_bound"]``, oracle/accumulation.py:
    add, multiply, maximum, minimum; the init is one more term) - and may overflow or
    underflow in one schedule but not another: those elements are masked (and get a NaN
    bound; the masks are redundant wherever the bound is applied);
  * any other body or init (subtract, first/second, argmax over floats, max with an init
    that is not the lowest value, ...) is evaluated under five more schedules (no init,
    init last, init twice, a tree paired at odd offsets, a left fold from the init: the
    loop most backends run) and the elements whose value differs are masked.  This finds
    the dependence the inputs actually exhibit; it cannot prove independence for schedules
    it did not try.  Float add/multiply bodies with identity inits are evaluated under the
    offset tree and the left fold too, and the elements whose class (finite / zero / inf /
    NaN) differs are masked (a product with a zero that overflows in one order only).

"An implementation-defined amount of init_values" includes none for a non-empty reduction
(XLA drops the init of a rank-0 reduce_window: max(init, x) comes out as x); an empty
reduction has to produce init_values.
"""

from __future__ import annotations

import math

import numpy as np

from ..allowances import ImplDefined, order_dependent
from ..impl_defined_masks import recorded_by_oracle, select_and_scatter_empty_window
from .. import ir
from ..accumulation import accumulation_bound, scattered_bound
from ..element_conversion import convert_array
from ..errors import OracleError
from ..evaluator import Context, batchable
from ..registry import add_impl_defined, op, record_facts
from ..quantization import on_storage
from ..types import ALL_ELEMENT_TYPES, ElementType, TensorType, as_element_type, is_extension_dtype
from ._checks import shape_error

__all__ = ["run_body", "reduce_arrays", "schedule_free", "values_differ", "monoid_ops", "monoid_identity",
           "is_identity", "stack_bounds", "num_windows"]

_ALL_NAMES = tuple(t.name for t in ALL_ELEMENT_TYPES)


# ----------------------------------------------------------------------- bodies

def run_body(ctx, region: ir.Region, args, shape, env) -> list:
    """The body applied element-wise to ``args`` (arrays broadcastable to ``shape``)."""
    shape = tuple(shape)
    if batchable(region):
        return ctx.run_region_batched(region, args, shape, env)
    # Fallback: the body contains ops that are not element-wise, so run it per element.
    out_types = [v.type for v in region.ops[-1].operands]
    outs = [np.empty(shape, dtype=t.dtype) for t in out_types]
    args = [np.broadcast_to(a, shape) for a in args]
    for index in np.ndindex(*shape):
        results = ctx.run_region(region, [np.array(a[index]) for a in args], env)
        for o, r in zip(outs, results):
            o[index] = r
    return outs


def _region_types(region: ir.Region, op_, n_args: int, what: str, constraint: str) -> list[ElementType]:
    if len(region.arguments) != n_args:
        raise OracleError(f"{what} takes {len(region.arguments)} arguments, expected {n_args}",
                          op=op_.name, constraint=constraint)
    for a in region.arguments:
        if not isinstance(a.type, TensorType) or a.type.rank != 0:
            raise OracleError(f"{what} argument type {a.type} is not a 0-dimensional tensor",
                              op=op_.name, constraint=constraint)
    return [a.type.element_type for a in region.arguments]


def is_promotable(src: ElementType, dst: ElementType) -> bool:
    """The spec's is_promotable(x, y): the same kind (boolean / integer / float / complex, or
    quantized with the same expressed type) and y at least as wide (for quantized types: the
    storage type).  Identical types are promotable (the spec's Python leaves bool -> bool to
    its final ``return false``; every op that uses it means the identity to pass)."""
    if src == dst:
        return True
    if getattr(src, "is_quantized", False) or getattr(dst, "is_quantized", False):
        return (getattr(src, "is_quantized", False) and getattr(dst, "is_quantized", False)
                and src.expressed_type == dst.expressed_type and src.storage_type.bits <= dst.storage_type.bits)
    if src.is_bool or dst.is_bool:
        return False
    if src.is_complex and dst.is_complex:
        return src.component.bits <= dst.component.bits
    if (src.is_integer and dst.is_integer) or (src.is_float and dst.is_float):
        return src.bits <= dst.bits
    return False


def _check_body(op_, region, input_types, constraint) -> list[ElementType]:
    """(C6)/(C13)/(C10): body has type (E0..EN-1, E0..EN-1) -> (E0..EN-1), is_promotable(input_i, Ei)."""
    n = len(input_types)
    body = _region_types(region, op_, 2 * n, "body", constraint)
    ret = region.ops[-1].operands if region.ops else ()
    if body[:n] != body[n:] or len(ret) != n or any(
            not isinstance(v.type, TensorType) or v.type.rank != 0 or v.type.element_type != e
            for v, e in zip(ret, body[:n])):
        raise OracleError(f"body must have type (E0..E{n - 1}, E0..E{n - 1}) -> (E0..E{n - 1}), got "
                          f"({', '.join(map(str, body))}) -> ({', '.join(str(v.type) for v in ret)})",
                          op=op_.name, constraint=constraint)
    for i, (src, dst) in enumerate(zip(input_types, body[:n])):
        if not is_promotable(src, dst):
            raise OracleError(f"input #{i} element type {src} is not promotable to body type {dst}",
                              op=op_.name, constraint=constraint)
    return body[:n]


def _converted(arrays, types, to_types):
    """to_destination_type: convert to the body's types where they differ."""
    return [a if s == d else convert_array(a, s, d) for a, s, d in zip(arrays, types, to_types)]


# ------------------------------------------------------------------ schedules

_MONOID = frozenset({"stablehlo.add", "stablehlo.multiply", "stablehlo.xor", "stablehlo.maximum",
                     "stablehlo.minimum", "stablehlo.and", "stablehlo.or"})
_ROUNDING = frozenset({"stablehlo.add", "stablehlo.multiply"})  # float: order changes only rounding


def monoid_ops(region: ir.Region, n: int) -> list[str] | None:
    """The op of each result if result i = op(acc_i, x_i) (either operand order) with a
    commutative monoid op, else None."""
    if len(region.arguments) != 2 * n or not region.ops or len(region.ops[-1].operands) != n:
        return None
    producers = {r: o for o in region.ops for r in o.results}
    names = []
    for i, v in enumerate(region.ops[-1].operands):
        o = producers.get(v)
        pair = {region.arguments[i], region.arguments[n + i]}
        if o is None or o.name not in _MONOID or len(o.operands) != 2 or set(o.operands) != pair:
            return None
        names.append(o.name)
    return names


def monoid_identity(name: str, et: ElementType) -> np.ndarray:
    """The identity element of a monoid op for ``et`` (an init value every schedule agrees on)."""
    def extreme(low: bool):
        if et.is_bool:
            return not low
        if et.is_integer:
            return int(et.min_value) if low else int(et.max_value)
        if et.has_infinity:
            return -np.inf if low else np.inf
        return et.finfo.min if low else et.finfo.max
    value = {"stablehlo.multiply": 1, "stablehlo.maximum": extreme(True), "stablehlo.minimum": extreme(False),
             "stablehlo.and": extreme(False) if not et.is_signed else -1}.get(name, 0)
    return np.array(value).astype(et.dtype)


def is_identity(name: str, init: np.ndarray, et: ElementType) -> bool:
    """init is the identity of the op (float add: either zero; NaN never)."""
    wide = np.complex128 if et.is_complex else np.float64 if et.is_float else object
    with np.errstate(invalid="ignore"):
        return bool(np.asarray(init).astype(wide) == monoid_identity(name, et).astype(wide))


def schedule_free(region: ir.Region, inits, types) -> tuple[bool, bool]:
    """(every schedule gives the same result, only up to float rounding).  The first is True
    for monoid bodies whose init values are identities."""
    names = monoid_ops(region, len(types))
    if any(et.is_quantized for et in types):  # each quantized step rounds: never a monoid
        return False, False
    if names is None or not all(is_identity(nm, i, et) for nm, i, et in zip(names, inits, types)):
        return False, False
    rounding = any(nm in _ROUNDING and (et.is_float or et.is_complex) for nm, et in zip(names, types))
    return True, rounding


def _value_class(x: np.ndarray) -> np.ndarray:
    """0 finite non-zero, 1 zero, 2 +inf, 3 -inf, 4 NaN (per component for complex)."""
    wide = np.asarray(x).astype(np.complex128 if np.iscomplexobj(x) else np.float64)
    parts = (wide.real, wide.imag) if np.iscomplexobj(wide) else (wide,)
    out = np.zeros(wide.shape, dtype=np.int64)
    for k, p in enumerate(parts):
        c = np.select([np.isnan(p), p == np.inf, p == -np.inf, p == 0], [4, 2, 3, 1], 0)
        out = out * 5 + c if k else c
    return out


def _bits(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, order="C")
    return x.view(np.dtype(f"u{x.dtype.itemsize}")) if x.dtype.itemsize in (1, 2, 4, 8) else x


def values_differ(a: np.ndarray, b: np.ndarray, *, rounding_only: bool = False) -> np.ndarray:
    """Elements where two schedules' results differ: by class (finite / zero / inf / NaN)
    when differences by rounding are allowed, else by bits (any NaN equals any NaN)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype == bool or a.dtype.kind in "iu":
        return a != b
    if rounding_only:
        return _value_class(a) != _value_class(b)
    wide_a = a.astype(np.complex128 if np.iscomplexobj(a) else np.float64)
    wide_b = b.astype(np.complex128 if np.iscomplexobj(b) else np.float64)
    nan = np.isnan(wide_a) & np.isnan(wide_b)
    return (_bits(a) != _bits(b)) & ~nan


def _tree(ctx, region, stacks, env, offset: bool = False):
    """Reduce axis 0 of each array in ``stacks`` with a log-depth tree of adjacent pairs
    (in-order traversal = ascending index).  ``offset``: leave the first value out of each
    level's pairing (a differently shaped tree).  Returns arrays without axis 0."""
    while stacks[0].shape[0] > 1:
        k = stacks[0].shape[0]
        start = 1 if offset and k > 2 else 0
        m = (k - start) // 2
        left = [s[start:start + 2 * m:2] for s in stacks]
        right = [s[start + 1:start + 2 * m:2] for s in stacks]
        paired = run_body(ctx, region, left + right, left[0].shape, env)
        stacks = [np.concatenate([s[:start], p, s[start + 2 * m:]]) if (start or k % 2) else p
                  for s, p in zip(stacks, paired)]
    return [s.reshape(s.shape[1:]) for s in stacks]  # not s[0]: a 1-d s would give a numpy scalar


#: Most values per result a left fold is tried on (one batched body call per value).
_FOLD_LIMIT = 1024


def _left_fold(ctx, region, stacks, init_b, env, batch_shape):
    """body(...body(body(init, x0), x1)..., xk-1): the sequential schedule most backends use
    (a loop over the values); None past _FOLD_LIMIT values."""
    if stacks[0].shape[0] > _FOLD_LIMIT:
        return None
    acc = list(init_b)
    for i in range(stacks[0].shape[0]):
        acc = run_body(ctx, region, acc + [s[i] for s in stacks], batch_shape, env)
    return acc


def reduce_arrays(ctx, region, stacks, inits, types, env, batch_shape) -> tuple[list, list | None]:
    """reduce() of the spec over axis 0 of ``stacks`` (already in the body's types), with
    ``inits`` (0-d arrays).  Returns (results, per-result masks of schedule-dependent
    elements or None)."""
    n = len(stacks)
    init_b = [np.broadcast_to(i, batch_shape) for i in inits]
    if stacks[0].shape[0] == 0:
        return [np.array(i) for i in init_b], None
    tree = _tree(ctx, region, stacks, env)
    results = run_body(ctx, region, init_b + tree, batch_shape, env)
    free, rounding = schedule_free(region, inits, types)
    if free and not rounding:
        return results, None
    offset = run_body(ctx, region, init_b + _tree(ctx, region, stacks, env, offset=True), batch_shape, env)
    fold = _left_fold(ctx, region, stacks, init_b, env, batch_shape)
    if free:  # float add/multiply: other schedules; only over/underflow differences are masked
        alternatives = [offset] + ([fold] if fold is not None else [])
    else:
        twice = run_body(ctx, region, init_b + results, batch_shape, env)
        alternatives = [tree, run_body(ctx, region, tree + init_b, batch_shape, env), twice, offset]
        alternatives += [fold] if fold is not None else []
    masks = [np.zeros(batch_shape, dtype=bool) for _ in range(n)]
    for alt in alternatives:
        for i in range(n):
            masks[i] |= values_differ(results[i], alt[i], rounding_only=free)
    return results, masks


def stack_bounds(region: ir.Region, stacks, inits, types) -> list:
    """For each result: the per-element bound (oracle/accumulation.py) of the body folded
    over axis 0 of its stack, the init value counted as one more term; None where the body
    is not a known accumulation (the schedule masks then decide which elements are open)."""
    names = monoid_ops(region, len(types))
    if names is None or any(getattr(et, "is_quantized", False) for et in types):
        return [None] * len(types)
    out = []
    for name, stack, init, et in zip(names, stacks, inits, types):
        init = np.asarray(init)
        terms = np.concatenate([np.broadcast_to(init, (1,) + stack.shape[1:]), stack])
        extra = None if is_identity(name, init, et) else init
        out.append(accumulation_bound(name, terms, et, extra_init=extra))
    return out


def record_masks(ctx, op_, masks, results=None) -> None:
    """Add schedule-dependent elements to the case's implementation-defined masks, and with
    ``results`` the complex elements an exception reached: "Exceptions for nonstandard
    operations (e.g. complex arithmetic ...) are implementation-defined" (Floating-point
    exceptions), so a complex accumulation with a non-finite component (a non-finite term, an
    overflow, inf * 0) may hold any value (C99 Annex G's infinities, or the NaNs of the
    textbook formulas)."""
    if ctx.impl_defined is None:
        return
    masks = list(masks) if masks is not None else [None] * len(op_.results)
    for k, x in enumerate(results or ()):
        if isinstance(x, np.ndarray) and x.dtype.kind == "c":
            reached = ~(np.isfinite(x.real) & np.isfinite(x.imag))
            masks[k] = reached if masks[k] is None else (masks[k] | reached)
    for r, m in zip(op_.results, masks):
        if m is not None and m.any():
            prev = ctx.impl_defined.get(r)
            ctx.impl_defined[r] = m if prev is None else (prev | m)


def _ints(op_, name, default=None) -> tuple[int, ...] | None:
    value = op_.attr(name, None)
    if value is None:
        return default
    return tuple(int(v) for v in np.asarray(value).ravel())


def _inputs_and_inits(op_, args, constraint_count, constraint_types):
    n = len(args) // 2
    if len(args) % 2 or n == 0 or len(op_.results) != n:  # (C3) / (C1): 0 < N inputs = inits = results
        raise OracleError(f"needs 0 < size(inputs) = size(init_values) = size(results), got {len(args)} operands "
                          f"and {len(op_.results)} results", op=op_.name, constraint=constraint_count)
    inputs, inits = list(args[:n]), list(args[n:])
    in_types = [v.type.element_type for v in op_.operands[:n]]
    for i, (v, w) in enumerate(zip(op_.operands[:n], op_.operands[n:])):
        if v.type.element_type != w.type.element_type:
            raise OracleError(f"element_type(inputs[{i}]) {v.type.element_type} != element_type(init_values[{i}]) "
                              f"{w.type.element_type}", op=op_.name, constraint=constraint_types)
        if np.ndim(inits[i]) != 0:
            raise OracleError(f"init_values[{i}] is not 0-dimensional", op=op_.name, constraint=constraint_types)
    for i, x in enumerate(inputs):  # same(shape(inputs...))
        if x.shape != inputs[0].shape:
            raise shape_error(op_, f"shape(inputs[{i}]) {x.shape} != shape(inputs[0]) {inputs[0].shape}",
                              "C1" if op_.mnemonic == "reduce" else "C2")
    return inputs, inits, in_types


def _check_results(op_, types, shape, constraint_shape, constraint_type):
    for i, (r, et) in enumerate(zip(op_.results, types)):
        if r.type.element_type != et:
            raise OracleError(f"element_type(results[{i}]) {r.type.element_type} != body type {et}",
                              op=op_.name, constraint=constraint_type)
        if not r.type.matches_shape(shape):
            raise shape_error(op_, f"results[{i}] type {r.type} does not match shape {shape}", constraint_shape)


# ------------------------------------------------------------------------- reduce

def _reduce_stacks(op_, args):
    """reduce's operands as stacks (k reduced values, *result shape) in the body's types,
    the init values, the body's types and the result shape."""
    inputs, inits, in_types = _inputs_and_inits(op_, args, "C3", "C2")
    rank = inputs[0].ndim
    dims = _ints(op_, "dimensions")
    if any(not 0 <= d < rank for d in dims):  # reduce (C4)
        raise OracleError(f"dimensions {list(dims)} not in [0, {rank})", op=op_.name, constraint="C4")
    if len(set(dims)) != len(dims):  # (C5)
        raise OracleError(f"dimensions {list(dims)} are not unique", op=op_.name, constraint="C5")
    types = _check_body(op_, op_.regions[0], in_types, "C6")
    kept = [d for d in range(rank) if d not in dims]
    batch = tuple(inputs[0].shape[d] for d in kept)
    _check_results(op_, types, batch, "C7", "C8")
    k = math.prod(inputs[0].shape[d] for d in dims)
    # input_slices keep the operand's dimension order (whatever the order of `dimensions`):
    # reduced dimensions first, flattened in ascending lexicographic order of the slice index
    stacks = [np.transpose(x, sorted(dims) + kept).reshape((k,) + batch) for x in inputs]
    return _converted(stacks, in_types, types), _converted(inits, in_types, types), types, batch


def reduce_error_bound(op_, inputs, result_types) -> list:
    """Per-element bounds of reduce's results for every schedule (oracle/accumulation.py)."""
    stacks, inits, types, _ = _reduce_stacks(op_, [np.asarray(x) for x in inputs])
    return stack_bounds(op_.regions[0], stacks, inits, types)


@op("stablehlo.reduce", family="reductions", element_types=_ALL_NAMES, extra={"error_bound": reduce_error_bound},
    notes="schedule: body(init, adjacent-pair tree); add / multiply / max / min bodies compared "
          "within a per-element bound for every schedule (extra['error_bound']); other "
          "schedule-dependent elements are implementation-defined")
@on_storage
def reduce(op_, args, ctx, env):
    stacks, inits, types, batch = _reduce_stacks(op_, args)
    results, masks = reduce_arrays(ctx, op_.regions[0], stacks, inits, types, env, batch)
    record_masks(ctx, op_, masks, results)
    return [np.array(r, order="C") for r in results]


# ------------------------------------------------------------------ reduce_window

def _pad(x: np.ndarray, value, low, high, interior) -> np.ndarray:
    """The spec's pad: ``interior`` copies of ``value`` between elements, then ``low`` /
    ``high`` on each side (negative = cropped)."""
    dilated = [0 if n == 0 else (n - 1) * (i + 1) + 1 for n, i in zip(x.shape, interior)]
    full = [max(lo, 0) + d + max(hi, 0) for lo, d, hi in zip(low, dilated, high)]
    out = np.full(full, value, dtype=x.dtype)
    out[tuple(slice(max(lo, 0), max(lo, 0) + d, i + 1) for lo, d, i in zip(low, dilated, interior))] = x
    return out[tuple(slice(max(-lo, 0), f - max(-hi, 0)) for lo, hi, f in zip(low, high, full))]


def num_windows(padded: int, window: int, stride: int, dilation: int = 1) -> int:
    extent = (window - 1) * dilation + 1
    return 0 if padded == 0 or extent > padded else (padded - extent) // stride + 1


def _window_attrs(op_, rank, names_constraints):
    out = []
    for name, default, size_c, pos_c in names_constraints:
        values = _ints(op_, name, default)
        if values is None:
            raise OracleError(f"missing attribute {name}", op=op_.name, constraint=size_c)
        if len(values) != rank:
            raise OracleError(f"size({name}) {len(values)} != rank {rank}", op=op_.name, constraint=size_c)
        if pos_c and any(v <= 0 for v in values):
            raise OracleError(f"{name} {list(values)} must be > 0", op=op_.name, constraint=pos_c)
        out.append(values)
    return out


def _padding(op_, rank, constraint):
    padding = op_.attr("padding", None)
    padding = np.zeros((rank, 2), np.int64) if padding is None else np.asarray(padding, dtype=np.int64)
    if padding.shape != (rank, 2):
        raise OracleError(f"shape(padding) {padding.shape} != [{rank}, 2]", op=op_.name, constraint=constraint)
    return [int(p) for p in padding[:, 0]], [int(p) for p in padding[:, 1]]


def _windows(padded: np.ndarray, window, strides, dilations, counts) -> np.ndarray:
    """All windows' elements: shape (prod(window),) + counts, axis 0 in ascending window index."""
    rank = padded.ndim
    if math.prod(counts) == 0:
        return np.empty((math.prod(window),) + tuple(counts), dtype=padded.dtype)
    extent = [(w - 1) * d + 1 for w, d in zip(window, dilations)]
    if is_extension_dtype(padded.dtype):  # ml_dtypes: numpy's stride tricks need a numpy dtype
        raw = padded.view(np.dtype(f"u{padded.dtype.itemsize}"))
        return _windows(raw, window, strides, dilations, counts).view(padded.dtype)
    view = np.lib.stride_tricks.sliding_window_view(padded, extent)
    view = view[tuple(slice(0, (c - 1) * s + 1, s) for c, s in zip(counts, strides))
                + tuple(slice(None, None, d) for d in dilations)]
    view = np.moveaxis(view, list(range(rank, 2 * rank)), list(range(rank)))
    return view.reshape((math.prod(window),) + tuple(counts))


def _reduce_window_stacks(op_, args):
    """reduce_window's windows as stacks (window size, *result shape) in the body's types,
    the init values, the body's types and the result shape."""
    inputs, inits, in_types = _inputs_and_inits(op_, args, "C1", "C3")
    rank = inputs[0].ndim
    window, strides, base_dil, win_dil = _window_attrs(op_, rank, [
        ("window_dimensions", None, "C4", "C5"), ("window_strides", (1,) * rank, "C6", "C7"),
        ("base_dilations", (1,) * rank, "C8", "C9"), ("window_dilations", (1,) * rank, "C10", "C11")])
    low, high = _padding(op_, rank, "C12")
    types = _check_body(op_, op_.regions[0], in_types, "C13")
    # (C15) num_windows
    dilated = [0 if n == 0 else (n - 1) * b + 1 for n, b in zip(inputs[0].shape, base_dil)]
    padded_shape = [lo + d + hi for lo, d, hi in zip(low, dilated, high)]
    if any(p < 0 for p in padded_shape):
        raise OracleError(f"padding {list(zip(low, high))} makes the padded shape {padded_shape} negative",
                          op=op_.name, constraint="C15")
    counts = tuple(num_windows(p, w, s, d) for p, w, s, d in zip(padded_shape, window, strides, win_dil))
    _check_results(op_, types, counts, "C15", "C16")
    stacks = []
    for x, init in zip(inputs, inits):  # padded_inputs = pad(inputs, init_values, low, high, base_dilations - 1)
        padded = _pad(x, init, low, high, [b - 1 for b in base_dil])
        stacks.append(_windows(padded, window, strides, win_dil, counts))
    return _converted(stacks, in_types, types), _converted(inits, in_types, types), types, counts


def reduce_window_error_bound(op_, inputs, result_types) -> list:
    """Per-element bounds of reduce_window's results for every schedule (padding and
    base-dilation holes are init values, hence terms like the others)."""
    stacks, inits, types, _ = _reduce_window_stacks(op_, [np.asarray(x) for x in inputs])
    return stack_bounds(op_.regions[0], stacks, inits, types)


@op("stablehlo.reduce_window", family="reductions", element_types=_ALL_NAMES,
    extra={"error_bound": reduce_window_error_bound},
    notes="windows stacked and reduced like reduce (one batched body call per tree level); "
          "compared like reduce (extra['error_bound'])")
@on_storage
def reduce_window(op_, args, ctx, env):
    stacks, inits, types, counts = _reduce_window_stacks(op_, args)
    results, masks = reduce_arrays(ctx, op_.regions[0], stacks, inits, types, env, counts)
    record_masks(ctx, op_, masks, results)
    return [np.array(r, order="C") for r in results]


# ------------------------------------------------------------- select_and_scatter

def _select_fold(ctx, select, operand, window, strides, low, counts, env, reverse: bool):
    """reduce_window_without_init with body ``select(a, b) ? a : b`` over the operand
    elements of each window (padding holds no values): a left fold over the window's
    elements in ascending order, or (``reverse``) the right fold body(x0, body(x1, ...)).
    Returns (flat operand index of the selected element, whether the window had a value)."""
    chosen_val = np.zeros(counts, dtype=operand.dtype)
    chosen_idx = np.zeros(counts, dtype=np.int64)
    has = np.zeros(counts, dtype=bool)
    source_pos = np.indices(counts, sparse=True) if counts else ()
    offsets = list(np.ndindex(*window))
    for w in (reversed(offsets) if reverse else offsets):
        index = [p * s + o - lo for p, s, o, lo in zip(source_pos, strides, w, low)]
        valid = np.ones(counts, dtype=bool)
        for d, i in enumerate(index):
            valid = valid & (i >= 0) & (i < operand.shape[d])
        clipped = tuple(np.broadcast_to(np.clip(i, 0, max(n - 1, 0)), counts) for i, n in zip(index, operand.shape))
        candidate = operand[clipped] if operand.size else np.zeros(counts, operand.dtype)
        # left fold: keep the accumulator a when select(a, x); right fold: take x when select(x, a)
        pair = [candidate, chosen_val] if reverse else [chosen_val, candidate]
        (picked,) = run_body(ctx, select, pair, counts, env)
        take = valid & (~has | (picked if reverse else ~picked))
        chosen_val = np.where(take, candidate, chosen_val)
        flat = np.ravel_multi_index(clipped, operand.shape) if operand.size else np.zeros(counts, np.int64)
        chosen_idx = np.where(take, flat, chosen_idx)
        has |= valid
    return chosen_idx, has


def _scatter_reduce(ctx, scatter, init, targets, values, size, et, env, init_at: str = "first"):
    """result[t] = reduce(values scattered to t in ascending source order, init): a left fold
    with the init value first ("first"), last ("last") or left out ("none": an implementation-
    defined amount of init values may be none where t receives values; else it is init)."""
    result = np.full(size, init, dtype=et.dtype)
    order = np.argsort(targets, kind="stable")
    t, v = targets[order], values[order]
    starts = np.r_[0, np.flatnonzero(t[1:] != t[:-1]) + 1] if t.size else np.zeros(0, np.int64)
    rank_in_group = np.arange(t.size) - np.repeat(starts, np.diff(np.r_[starts, t.size]))
    first = rank_in_group == 0
    if init_at != "first":
        result[t[first]] = v[first]
    for r in range(0 if init_at == "first" else 1, int(rank_in_group.max(initial=-1)) + 1):
        sel = rank_in_group == r
        (result[t[sel]],) = run_body(ctx, scatter, [result[t[sel]], v[sel]], (int(sel.sum()),), env)
    if init_at == "last" and t.size:
        hit = t[first]
        (result[hit],) = run_body(ctx, scatter, [result[hit], np.broadcast_to(init, hit.shape)], hit.shape, env)
    return result


def _select_and_scatter_setup(op_, args):
    """Checked attributes: (window, strides, low, counts, scatter body type et, operand type ot)."""
    operand, source, init = args
    ot, st_, it = (v.type.element_type for v in op_.operands)
    if st_ != ot:  # (C1)
        raise OracleError(f"element_type(source) {st_} != element_type(operand) {ot}", op=op_.name, constraint="C1")
    if it != ot:  # (C3)
        raise OracleError(f"element_type(init_value) {it} != element_type(operand) {ot}",
                          op=op_.name, constraint="C3")
    if np.ndim(init) != 0:
        raise OracleError("init_value is not 0-dimensional", op=op_.name, constraint="C3")
    rank = operand.ndim
    window, strides = _window_attrs(op_, rank, [("window_dimensions", (1,) * rank, "C4", "C5"),
                                                ("window_strides", (1,) * rank, "C6", "C7")])
    low, high = _padding(op_, rank, "C8")
    select, scatter = op_.regions
    sel_types = _region_types(select, op_, 2, "select", "C9")
    ret = select.ops[-1].operands if select.ops else ()
    if sel_types != [ot, ot] or len(ret) != 1 or ret[0].type != TensorType((), as_element_type("i1")):
        raise OracleError(f"select must have type (tensor<{ot}>, tensor<{ot}>) -> tensor<i1>",
                          op=op_.name, constraint="C9")
    (et,) = _check_body(op_, scatter, [ot], "C10")
    padded = [lo + n + hi for lo, n, hi in zip(low, operand.shape, high)]
    counts = tuple(num_windows(p, w, s) for p, w, s in zip(padded, window, strides))
    if source.shape != counts:  # (C2)
        raise shape_error(op_, f"shape(source) {source.shape} != num_windows {counts}", "C2")
    if op_.results[0].type.element_type != et:  # (C12)
        raise OracleError(f"element_type(result) {op_.results[0].type.element_type} != {et}",
                          op=op_.name, constraint="C12")
    if not op_.results[0].type.matches_shape(operand.shape):  # (C11)
        raise shape_error(op_, f"result type {op_.results[0].type} != shape(operand) {operand.shape}", "C11")
    return window, strides, low, counts, et, ot


def select_and_scatter_error_bound(op_, inputs, result_types) -> list:
    """Per-element bounds of select_and_scatter's result for every scatter schedule: each
    operand element's terms are the init value and the sources that selected it (elements
    whose selection itself depends on the order are masked by the evaluation)."""
    operand, source, init = (np.asarray(x) for x in inputs)
    window, strides, low, counts, et, ot = _select_and_scatter_setup(op_, [operand, source, init])
    names = monoid_ops(op_.regions[1], 1)
    if names is None:
        return [None]
    ctx = Context(module=None)  # the select region is element-wise: no calls
    selected, has = _select_fold(ctx, op_.regions[0], operand, window, strides, low, counts, {}, reverse=False)
    values = source[has]
    if et != ot:
        values, init = convert_array(values, ot, et), convert_array(init, ot, et)
    base = np.broadcast_to(init, (operand.size,))
    if not is_identity(names[0], init, et):
        return [None]
    bound = scattered_bound(names[0], base, selected[has], values, et)
    return [None if bound is None else bound.reshape(operand.shape)]


@op("stablehlo.select_and_scatter", family="reductions", element_types=_ALL_NAMES,
    extra={"error_bound": select_and_scatter_error_bound},
    notes="selection: left fold over each window's operand elements (padding holds no values); "
          "scatter add / max / min compared within a bound for every schedule (extra['error_bound'])")
@on_storage
def select_and_scatter(op_, args, ctx, env):
    operand, source, init = args
    window, strides, low, counts, et, ot = _select_and_scatter_setup(op_, args)
    select, scatter = op_.regions
    selected, has = _select_fold(ctx, select, operand, window, strides, low, counts, env, reverse=False)
    targets, values = selected[has], source[has]
    if et != ot:
        values, init = convert_array(values, ot, et), convert_array(init, ot, et)
    result = _scatter_reduce(ctx, scatter, init, targets, values, operand.size, et, env)

    # Schedule-dependent elements: another selection order (ties, NaN), another scatter schedule.
    mask = np.zeros(operand.size, dtype=bool)
    other, _ = _select_fold(ctx, select, operand, window, strides, low, counts, env, reverse=True)
    moved = has & (other != selected)
    mask[selected[moved]] = mask[other[moved]] = True
    free, rounding = schedule_free(scatter, [init], [et])
    if not (free and not rounding):
        alt = _scatter_reduce(ctx, scatter, init, targets, values, operand.size, et, env, init_at="last")
        mask |= values_differ(result, alt, rounding_only=free)
    if not free:  # an implementation-defined amount of init values: none, or twice (the interpreter)
        hit = np.zeros(operand.size, dtype=bool)
        hit[targets] = True
        none = _scatter_reduce(ctx, scatter, init, targets, values, operand.size, et, env, init_at="none")
        (twice,) = run_body(ctx, scatter, [np.broadcast_to(init, result.shape), result], result.shape, env)
        mask |= hit & (values_differ(result, none) | values_differ(result, twice))
    record_masks(ctx, op_, [mask.reshape(operand.shape)], [result.reshape(operand.shape)])
    return [result.reshape(operand.shape)]


# --------------------------------------------------------------------------- map

@op("stablehlo.map", family="reductions", element_types=_ALL_NAMES)
@on_storage
def map_(op_, args, ctx, env):
    if not args:  # map (C2)
        raise OracleError("needs at least one input", op=op_.name, constraint="C2")
    shape = args[0].shape
    for i, x in enumerate(args):  # (C1)
        if x.shape != shape:
            raise shape_error(op_, f"shape(inputs[{i}]) {x.shape} != shape(inputs[0]) {shape}", "C1")
    out_t = op_.results[0].type
    if not out_t.matches_shape(shape):  # (C1)
        raise shape_error(op_, f"result type {out_t} does not match shape {shape}", "C1")
    dims = _ints(op_, "dimensions", tuple(range(len(shape))))
    if list(dims) != list(range(len(shape))):  # (C3)
        raise OracleError(f"dimensions {list(dims)} != range({len(shape)})", op=op_.name, constraint="C3")
    region = op_.regions[0]
    types = _region_types(region, op_, len(args), "computation", "C4")
    ret = region.ops[-1].operands if region.ops else ()
    if types != [v.type.element_type for v in op_.operands] or len(ret) != 1 or \
            ret[0].type != TensorType((), out_t.element_type):  # (C4)
        raise OracleError(f"computation must have type ({', '.join(str(v.type.element_type) for v in op_.operands)})"
                          f" -> {out_t.element_type}", op=op_.name, constraint="C4")
    # result[result_index] = computation(inputs...[result_index])
    (result,) = run_body(ctx, region, list(args), shape, env)
    return [np.array(result, order="C")]


# ---------------------------------------------- implementation-defined results, on the records
# The result elements the spec leaves to the implementation, with the masks that find them
# (oracle/impl_defined.py states the rules and generates IMPL_DEFINED_TABLE from the records).
add_impl_defined(
    ImplDefined("select_and_scatter", "some window covers only padding",
                "which element such a window selects is unspecified: the whole result",
                'select_and_scatter: "It is currently unspecified what happens if the '
                'corresponding window doesn\'t have values (#731)."', select_and_scatter_empty_window),
    # --- schedules of region bodies (the oracle tells them apart: oracle/ops/reductions.py, sorting.py)
    *(ImplDefined(op, "result elements whose value depends on the schedule: a body that is not a "
                  "commutative monoid op with an identity init value (subtract, first/second, "
                  "argmax with NaN keys, non-identity init of add/multiply/xor), or float "
                  "add/multiply that overflows/underflows in one schedule only",
                  "the oracle evaluates the body under several spec-conforming schedules (init "
                  "first/last/twice, two tree shapes) and masks the elements that differ; float "
                  "rounding differences alone are the tolerance table's (order_dependent rows)",
                  f'{op}: "schedule is an implementation-defined full binary tree whose in-order '
                  'traversal consists of ... Interspersed with an implementation-defined amount of '
                  'init_values_converted at implementation-defined positions."', recorded_by_oracle)
      for op in ("reduce", "reduce_window")),
    ImplDefined("select_and_scatter", "result elements whose value depends on the schedule: the "
                "selection (ties of a non-strict select, NaN) or the scatter body's reduce",
                "the oracle selects by a left and by a right fold over each window and scatters with "
                "init first and last, and (a body that is not a monoid with an identity init) with no "
                "init and with init twice, as reduce's schedule allows; result elements that differ "
                "are masked",
                'select_and_scatter: "reduce_window_without_init works exactly like reduce_window, '
                'except that the schedule of the underlying reduce (see reduce) doesn\'t include init '
                'values" (its schedule is implementation-defined)', recorded_by_oracle),
)


# ------------------------------------------------------------ tolerance rows, on the records
# How far a backend's result may be from the oracle's (oracle/allowances.py builds the rows;
# judge/tolerance.py explains the lookup and generates TOLERANCE_TABLE from the records).
# The float result depends on an implementation-defined order, or is specified only up to the algorithm.
for _name in ("reduce", "reduce_window", "select_and_scatter"):
    record_facts(f"stablehlo.{_name}", tolerances=order_dependent("accumulation"))
