"""Implementation-defined behaviour of StableHLO: the rules, the view, the lookups.

The entries live on the op records (``OpInfo.impl_defined``, put there by each op's family
file in ``oracle/ops/``; their masks are in ``oracle/impl_defined_masks.py``, or in the op's
own family file where the mask needs the op's own code);
``IMPL_DEFINED_TABLE`` is generated from the records, in registry order. Each ``ImplDefined``
entry names an op, the condition under which (some of) its result is
implementation-defined, why, the spec text that says so, and a ``mask`` function that
finds the affected result elements from the op's inputs:

    mask(inputs: list[np.ndarray], attributes: dict, result_type: TensorType) -> bool array
    of the result's shape (True = implementation-defined), or ``mask=None`` = the whole
    result, always.

The comparator (judge/compare.py) does not compare masked elements and reports the case
as 'implementation-defined' when everything else matches. Elementwise ops see same-shape
operands here (broadcasting, where an op has it, is applied by the caller).

The table was built by going through every hit of 'implementation-defined' (and of
'undefined', 'unspecified' and 'TBD', which leave behaviour just as open) in the spec.
Hits that need no mask are listed in ``SPEC_NOTES`` with the reason. Two sections of the
spec drive most entries:

  * "Errors": "error conditions are still possible, e.g. through integer overflows,
    out-of-bounds accesses, etc. Unless explicitly called out, all these errors result in
    implementation-defined behavior" -> integer overflow, division by zero, shift counts
    outside [0, bitwidth).
  * "Floating-point exceptions": IEEE-754 operations "produce default results", so float
    overflow / division by zero / NaN inputs are well-defined and compared; but
    "Exceptions for nonstandard operations (e.g. complex arithmetic and certain
    transcendental functions) are implementation-defined". We read "nonstandard" as:
    not an IEEE-754 operation (section 5 or the recommended functions of section 9.2).
    exp, expm1, log, logp1, rSqrt, sin, cos, tan, tanh, atan2, pow and rootn (cbrt) are in
    9.2, so their special cases are defined; logistic is not, and neither is any complex
    operation beyond the componentwise add/subtract/negate. The masked elements are those
    where the operation's EXACT result raises an exception (invalid, division by zero,
    overflow, underflow): a non-finite component, a pole, a result that overflows or is
    tiny -- never where only an intermediate of one algorithm does (sqrt(re**2 + im**2)
    overflows where the modulus is representable: that modulus is compared); and on a
    branch cut, the side a zero component's sign picks (CUT_SIDE).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .allowances import ImplDefined, Mask, SpecNote
from .impl_defined_masks import ERRORS, result_element, result_shape, whole_result
from .registry import all_ops, record_name
from .types import TensorType

__all__ = ["ImplDefined", "SpecNote", "Mask", "IMPL_DEFINED_TABLE", "SPEC_NOTES", "impl_defined_mask",
           "op_masks", "entries_for", "impl_defined_table", "is_error", "errors_performed"]


SPEC_NOTES: tuple[SpecNote, ...] = (
    SpecNote('Types: f4E2M1FN, f6E2M3FN, f6E3M2FN, f8E8M0FNU (the OCP Microscaling formats) have no '
             'NaN / no infinity (f4, f6) or no zero, no negative values and no infinity (E8M0); the '
             'spec gives no result for an operation whose exact result is such a value',
             "implementation-defined per element; the oracle records those elements while it "
             "evaluates (oracle/numerics.py: note_unrepresentable) and the differential engine "
             "adds them to the op's mask, so they are reported as implementation-defined"),
    SpecNote('Tuple types: "T, tuple<T> and tuple<tuple<T>> may be materially different depending '
             'on a particular implementation"', "ABI only; values are compared element by element"),
    SpecNote('Complex constants: "The order in which these parts are then stored in memory is '
             'implementation-defined."', "memory layout is not observable in results"),
    SpecNote('Tensor constants: "The order in which these elements are then stored in memory is '
             'implementation-defined."', "memory layout is not observable in results"),
    SpecNote('String literals: "the interpretation of these bytes is implementation-defined"',
             "only custom_call/backend_config strings, covered by the custom_call entry"),
    SpecNote('all_reduce / reduce_scatter: "schedule is an implementation-defined binary tree"',
             "for exact bodies (integer add/min/max/and/or, float min/max) every order gives the "
             "same result; float add/multiply differ by rounding only, which judge/tolerance.py "
             "bounds (order_dependent rows on the records). reduce / reduce_window: see their entries (the oracle "
             "records schedule-dependent elements; 'an implementation-defined amount of "
             "init_values' is read as at least one)"),
    SpecNote('dot_general: "DotAlgorithms do not have a default value, as the default parameters '
             'are implementation defined"; precision_config "underspecified" (#755)',
             "an accuracy question, not a masked one: tolerance_for(..., precision='DEFAULT')"),
    SpecNote('outfeed: "Semantics of outfeed_config is implementation-defined."; send: '
             '"What this means is implementation-defined."', "no data results (token only)"),
    SpecNote('triangular_solve: "Output data is returned in the same triangle; the values in the '
             'other triangle are implementation-defined."',
             "copied from XLA's docs for the input a; the result has b's shape and no triangle, so "
             "nothing is masked"),
    SpecNote('rng: "If a >= b, the behavior is undefined." / "If b < 0, the behavior is undefined."',
             "rng results are implementation-defined as a whole already"),
    SpecNote('rng_bit_generator: size(initial_state) "implementation-defined if rng_algorithm = '
             'DEFAULT"', "a type constraint, checked by backends at compile time"),
    SpecNote('Execution order: "The execution order is implementation-defined as long as it is '
             'aligned with dataflow" (also across processes; infeed/outfeed "other end")',
             "pure programs cannot observe it; side-effecting ops are masked as wholes"),
    SpecNote('Errors: out-of-bounds accesses', "gather, dynamic_slice, dynamic_update_slice clamp "
             "start indices and scatter skips out-of-bounds updates by definition; no op has an "
             "unchecked out-of-bounds access"),
    SpecNote('Errors: integer overflow inside reductions (reduce, reduce_window, dot_general, '
             'convolution, all_reduce, iota of a too-narrow type)',
             "not masked (the body is a region); the oracle wraps modulo 2**n like every backend; "
             "generators keep integer reductions in range"),
    SpecNote('Floating-point exceptions: IEEE-754 operations "produce default results"',
             "so float overflow, division by zero, invalid operations and NaN inputs of the IEEE "
             "ops (including exp, log, sin, pow, atan2, cbrt: IEEE 754 section 9.2) are compared"),
    SpecNote('Floating-point exceptions in reductions of complex values',
             "reduce, reduce_window, select_and_scatter, all_reduce, reduce_scatter: the oracle "
             "records the complex result elements with a non-finite component (oracle/ops/"
             "reductions.py record_masks); dot_general, convolution, fft: their error bounds do not "
             "compare non-finite elements"),
    SpecNote('while: "The behavior of an infinite loop is TBD (#383)."', "a timeout, not a value"),
    SpecNote('count_leading_zeros, popcnt, not/and/or/xor', "defined for every input (clz(0) = "
             "bitwidth): no entry. Shifts are different: the spec gives no result for counts "
             "outside [0, bitwidth), hence the shift entries"),
    SpecNote('Dynamism: "shapes have to agree at runtime, otherwise the behavior is undefined"',
             "programs with mismatching runtime shapes are invalid test cases, never generated"),
    SpecNote('remainder for floats: "division(lhs, rhs) from IEEE-754 with rounding attribute '
             'roundTowardZero"', "defined (C fmod); compared exactly"),
)



# ------------------------------------------------------------------------------- lookup

def impl_defined_table() -> tuple[ImplDefined, ...]:
    """Every op record's implementation-defined entries, in registry order (the readable table)."""
    return tuple(entry for info in all_ops().values() for entry in info.impl_defined)


def __getattr__(name):  # IMPL_DEFINED_TABLE: a view, generated once the family files have registered
    if name == "IMPL_DEFINED_TABLE":
        return impl_defined_table()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def entries_for(op: str) -> list[ImplDefined]:
    """The op's entries: ``op`` is a full name ("stablehlo.divide") or a table key ("divide").
    An op that is another after broadcasting (chlo.broadcast_divide) has that op's entries, their
    masks reading the operands broadcast to the result shape."""
    info = all_ops().get(record_name(op))
    if info is None:
        return []
    if info.broadcast_of:
        return [replace(entry, mask=entry.mask and _after_broadcasting(entry.mask))
                for entry in entries_for(info.broadcast_of)]
    return list(info.impl_defined)


def _after_broadcasting(mask: Mask) -> Mask:
    from .ops.chlo import broadcast_to_result

    def broadcast_mask(inputs, attributes, result_type):
        dims = attributes.get("broadcast_dimensions")
        dims = None if dims is None else tuple(int(d) for d in np.asarray(getattr(dims, "value", dims)).ravel())
        shape = result_shape(result_type, inputs)
        return mask([np.ascontiguousarray(broadcast_to_result(np.asarray(x), shape, dims)) for x in inputs],
                    attributes, result_type)
    return broadcast_mask
def impl_defined_mask(op: str, inputs, attributes: dict | None, result_type):
    """Which result elements of ``op`` are implementation-defined for these inputs.

    Returns a bool array of the result's shape, or None when no element is. For ops with
    several results pass a list of result types and get a list of masks back.
    """
    if isinstance(result_type, (list, tuple)):
        return [impl_defined_mask(op, inputs, attributes, t) for t in result_type]
    if getattr(result_element(result_type), "is_quantized", False):
        # Quantized results: the spec leaves the whole interpretation to the implementation
        # ("Execution semantics of quantized operation"); judge/tolerance.py states the
        # comparison rule (+-1 storage unit, 2 eps of the expressed type) instead of masks,
        # except for ops whose float results are only bounded (linear algebra, batch norm,
        # fft: their records say quantized="bounded-in-float"): their bound, scaled to storage
        # units, can span many storage steps.
        info = all_ops().get(record_name(op))
        if info is not None and info.quantized == "bounded-in-float":
            return whole_result(result_shape(result_type, inputs))
        return None
    inputs = [np.asarray(x) for x in inputs]
    attributes = dict(attributes or {})
    shape = None
    combined = None
    for entry in entries_for(op):
        if entry.mask is None:
            shape = shape or result_shape(result_type, inputs)
            mask = whole_result(shape)
        else:
            mask = np.asarray(entry.mask(inputs, attributes, result_type), dtype=bool)
        combined = mask if combined is None else (combined | mask)
    if combined is None or not combined.any():
        return None
    return np.array(combined)


def op_masks(op, operand_values, result_values) -> list:
    """``impl_defined_mask`` for every result of an IR op evaluated on ``operand_values``: the
    attributes and body regions (scatter's update computation, ...) are read from the op, and
    ``?`` dimensions take the runtime sizes of ``result_values``."""
    attributes = {k: op.attr(k) for k in op.attributes}
    if op.regions:
        attributes["regions"] = op.regions
    types = [TensorType(np.shape(x), r.type.element_type) if isinstance(r.type, TensorType) else r.type
             for r, x in zip(op.results, result_values)]
    return [impl_defined_mask(op.name, operand_values, attributes, t) for t in types]


# ------------------------------------------------------------------ errors a program performs

def is_error(entry: ImplDefined) -> bool:
    """Whether ``entry`` is one of the spec's errors (integer division by zero, INT_MIN / -1,
    integer overflow, shift counts outside [0, bitwidth)): "Unless explicitly called out, all
    these errors result in implementation-defined behavior" -- behaviour, not only a value, so a
    backend may trap on them."""
    return ERRORS in entry.spec_ref


def errors_performed(module, env: dict) -> list[str]:
    """The errors (``is_error``) the ops of @main perform on the way to its outputs, from the
    oracle's values of them (``env``: every top-level Value, as the oracle ran the program), one
    line each: "op #3 stablehlo.divide: integer divisor is 0 (2 elements)".  Ops whose results
    reach no output are left out (nothing the program returns depends on them); so are the ops
    inside regions (their values are not in ``env``)."""
    ops = [op for op in module.main.ops if op.name != "func.return"]
    live = set(module.main.ops[-1].operands) if module.main.ops else set()
    reaching = set()
    for k in range(len(ops) - 1, -1, -1):  # backwards: an op is live when a live value is one of its results
        if live.intersection(ops[k].results):
            reaching.add(k)
            live.update(ops[k].operands)
    found = []
    for k in sorted(reaching):
        op = ops[k]
        entries = [e for e in entries_for(op.name) if is_error(e) and e.mask is not None]
        operands = [env.get(v) for v in op.operands]
        if not entries or any(x is None for x in operands) or not op.results:
            continue
        attributes = {name: op.attr(name) for name in op.attributes}
        result_type = op.results[0].type
        if isinstance(result_type, TensorType) and op.results[0] in env:
            result_type = TensorType(np.shape(env[op.results[0]]), result_type.element_type)
        for entry in entries:
            try:
                count = int(np.count_nonzero(entry.mask([np.asarray(x) for x in operands], attributes, result_type)))
            except (IndexError, ValueError, TypeError, KeyError):
                continue
            if count:
                found.append(f"op #{k} {op.name}: {entry.condition} ({count} element{'s' if count > 1 else ''})")
    return found
