"""The oracle's evaluator (spec "Execution"): runs a module's function on numpy values.

Values are numpy arrays for tensors (dtype = the element type's numpy/ml_dtypes dtype,
runtime shape), ``TOKEN_VALUE`` for tokens and Python tuples for tuples.  Each op is
evaluated by its registry entry (``oracle/registry.py``); this module only walks the
program, binds values, checks types at function boundaries and after every op (so an
oracle bug or a runtime shape mismatch is reported at the op that caused it), and turns
every failure into an ``OracleError`` naming the op and its location.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from . import ir
from .errors import OracleError, UndefinedBehavior, Unsupported
from .numerics import recording_unrepresentable
from .registry import lookup
from .types import TensorType, TokenType, TupleType


class Token:
    """The value of type !stablehlo.token (opaque; only orders side effects)."""

    def __repr__(self):
        return "token"


TOKEN_VALUE = Token()


@dataclass
class Context:
    """State shared by one evaluation: the module (for func.call) and side-effect channels."""
    module: ir.Module
    infeed: list = field(default_factory=list)    # values supplied by the caller, consumed in order
    outfeed: list = field(default_factory=list)   # values captured from outfeed ops
    # send/recv: channel_id -> queue of payloads (lists of values); send appends, recv pops the
    # oldest.  The caller may pre-fill host-to-device channels and read device-to-host ones back.
    channels: dict = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)  # room for later families (process grid, channels, ...)
    # When a dict: result Value -> bool mask of the elements whose value the spec leaves
    # implementation-defined (see oracle/numerics.py, "unrepresentable results").
    impl_defined: dict | None = None
    depth: int = 0
    # Set while a region runs batched (run_region_batched): the shape every scalar value carries.
    batch_shape: tuple | None = None
    # The decision-flushed reading of a backend that flushes subnormals (judge/verdict.py): every
    # comparison -- compare (so sort comparators and while conditions), top_k, clamp's bounds --
    # reads a subnormal operand as zero of its sign; the values it moves or returns stay exact.
    flushed_decisions: bool = False

    def call(self, name: str, args: Sequence) -> list:
        """Evaluate function @name on ``args`` (func.call)."""
        try:
            fn = self.module.function(name)
        except KeyError:
            raise OracleError(f"call to undefined function @{name}", op="func.call") from None
        if self.depth > 200:
            raise OracleError(f"call depth exceeds 200 (recursion through @{name}?)", op="func.call")
        self.depth += 1
        try:
            check_arguments(fn.arguments, args, what=f"@{name}")
            return run_ops(fn.ops, dict(zip(fn.arguments, args)), self)
        finally:
            self.depth -= 1

    def run_region(self, region: ir.Region, args: Sequence, env: dict | None = None) -> list:
        """Evaluate a region (a block) on ``args``; ``env`` gives captured outer values."""
        scope = dict(env) if env else {}
        scope.update(zip(region.arguments, args))
        return run_ops(region.ops, scope, self)

    def run_region_batched(self, region: ir.Region, args: Sequence, batch_shape, env: dict | None = None) -> list:
        """Evaluate a region of scalar element-wise ops (``batchable(region)``) on many
        elements at once: every rank-0 value is carried as an array of shape ``batch_shape``
        (args and captured scalars are broadcast to it), so reductions, map, sort and
        scatter apply their body once per step on whole arrays instead of once per element.
        Results are arrays of shape ``batch_shape``."""
        saved, self.batch_shape = self.batch_shape, tuple(batch_shape)
        try:
            return self.run_region(region, [_batched(p.type, a, self.batch_shape)
                                            for p, a in zip(region.arguments, args)], env)
        finally:
            self.batch_shape = saved


_TERMINATORS = frozenset({"func.return", "stablehlo.return", "sdy.return"})  # sdy: oracle/ops/shardy.py


def run_ops(ops: Sequence[ir.Op], env: dict, ctx: Context) -> list:
    """Evaluate ops in order; the terminator's operands are the result."""
    for op in ops:
        try:
            args = [env[v] for v in op.operands]
        except KeyError as e:
            raise OracleError(f"operand {e.args[0]!r} is not defined", op=op.name, location=op.location) from None
        if ctx.batch_shape is not None:  # batched region: captured scalars broadcast too
            args = [_batched(v.type, a, ctx.batch_shape) for v, a in zip(op.operands, args)]
        if op.name in _TERMINATORS:
            return args
        info = lookup(op.name)
        if info is None:
            raise Unsupported("the oracle does not implement this op yet", op=op.name, location=op.location)
        try:
            if ctx.impl_defined is None:
                results = info.evaluate(op, args, ctx, env)
            else:
                with recording_unrepresentable() as noted:
                    results = info.evaluate(op, args, ctx, env)
                _keep_impl_defined(ctx, op, results, noted)
        except OracleError as e:
            if not e.location and op.location:  # add where it happened
                raise type(e)(str(e), op=op.name, location=op.location) from None
            raise
        except (ArithmeticError, ValueError, TypeError, IndexError, KeyError) as e:
            raise OracleError(f"internal error while evaluating: {type(e).__name__}: {e}",
                              op=op.name, location=op.location) from e
        if len(results) != len(op.results):
            raise OracleError(f"oracle produced {len(results)} results, op declares {len(op.results)}",
                              op=op.name, location=op.location)
        for value, result in zip(results, op.results):
            if ctx.batch_shape is not None:
                value = _batched(result.type, value, ctx.batch_shape)
                check_value(TensorType(ctx.batch_shape, result.type.element_type), value, op=op)
            else:
                check_value(result.type, value, op=op)
            env[result] = value
    raise OracleError("function or region has no terminator")


# Ops that compute each result element from the same-index operand elements only, so a
# region made of them gives the same results batched (see Context.run_region_batched).
_BATCHABLE_FAMILIES = frozenset({"elementwise", "selection"})
_BATCHABLE_OPS = frozenset({"stablehlo.constant", "stablehlo.convert", "stablehlo.reduce_precision",
                            "stablehlo.bitcast_convert"})


def batchable(region: ir.Region) -> bool:
    """True if ``region`` can run batched: only element-wise ops (no nested regions) and
    every value a rank-0 tensor.  Other regions must run once per element."""
    def scalar(v):
        return isinstance(v.type, TensorType) and v.type.rank == 0
    if not all(scalar(a) for a in region.arguments):
        return False
    for op in region.ops:
        if op.name in _TERMINATORS:
            continue
        info = lookup(op.name)
        if (info is None or op.regions or not (info.family in _BATCHABLE_FAMILIES or op.name in _BATCHABLE_OPS)
                or not all(scalar(v) for v in op.operands + op.results)):
            return False
    return True


def _batched(value_type, value, batch_shape):
    """A rank-0 tensor value as an array of ``batch_shape`` (other values unchanged)."""
    if isinstance(value_type, TensorType) and value_type.rank == 0 and (
            not isinstance(value, np.ndarray) or value.shape != tuple(batch_shape)):
        return np.array(np.broadcast_to(value, batch_shape))
    return value


def _keep_impl_defined(ctx: Context, op: ir.Op, results: list, noted: list) -> None:
    if not noted or len(results) != 1 or not isinstance(results[0], np.ndarray):
        return
    mask = np.zeros(results[0].shape, dtype=bool)
    for m in noted:
        if np.shape(m) == mask.shape:
            mask |= m
    if mask.any():  # joined with what the op itself recorded (e.g. schedule-dependent elements)
        prev = ctx.impl_defined.get(op.results[0])
        # A region's value is computed anew by each call of its region, whose batch shape varies
        # (select_and_scatter's scatter steps, all_reduce's operands): an earlier call's mask
        # of another shape describes another value, so it is replaced, never joined.
        same_value = prev is not None and np.shape(prev) == mask.shape
        ctx.impl_defined[op.results[0]] = (prev | mask) if same_value else mask


def check_value(expected_type, value, *, op: ir.Op | None = None, what: str = "") -> None:
    """Check a runtime value against its static type (dynamic dims accept any size)."""
    where = dict(op=op.name, location=op.location) if op is not None else dict(op=what)
    if isinstance(expected_type, TensorType):
        if not isinstance(value, np.ndarray):
            raise OracleError(f"expected a tensor of type {expected_type}, got {type(value).__name__}", **where)
        if value.dtype != expected_type.dtype:
            raise OracleError(f"expected element type {expected_type.element_type} ({expected_type.dtype}), "
                              f"got dtype {value.dtype}", **where)
        if not expected_type.matches_shape(value.shape):
            # The spec ("Errors" / "Shape mismatches"): a runtime shape that disagrees with the type is undefined.
            raise UndefinedBehavior(f"runtime shape {value.shape} does not match type {expected_type}", **where)
    elif isinstance(expected_type, TokenType):
        if value is not TOKEN_VALUE:
            raise OracleError(f"expected a token, got {type(value).__name__}", **where)
    elif isinstance(expected_type, TupleType):
        if not isinstance(value, tuple) or len(value) != len(expected_type.types):
            raise OracleError(f"expected a value of type {expected_type}", **where)
        for t, v in zip(expected_type.types, value):
            check_value(t, v, op=op, what=what)


def check_arguments(params: Sequence[ir.Value], args: Sequence, *, what: str) -> None:
    if len(args) != len(params):
        raise OracleError(f"{what} takes {len(params)} arguments, got {len(args)}")
    for i, (p, a) in enumerate(zip(params, args)):
        check_value(p.type, a, what=f"{what} argument #{i}")


def evaluate_with_effects(module: ir.Module, inputs: Sequence, *, function: str = "main", infeed: Sequence = (),
                          channels: dict | None = None) -> tuple[list, Context]:
    """Like ``evaluate``, also returning the Context: ``.outfeed`` (one list of values per
    outfeed op executed, in order), ``.channels`` (what send left unreceived), ``.infeed``
    (what was not consumed)."""
    ctx = Context(module, infeed=list(infeed), channels={k: list(v) for k, v in (channels or {}).items()})
    return evaluate(module, inputs, function=function, context=ctx), ctx


def evaluate(module: ir.Module, inputs: Sequence, *, function: str = "main",
             infeed: Sequence = (), context: Context | None = None) -> list:
    """Evaluate ``@function`` of ``module`` on ``inputs``; returns its results."""
    ctx = context or Context(module, infeed=list(infeed))
    inputs = [np.asarray(x) if not isinstance(x, (Token, tuple)) else x for x in inputs]
    outputs = ctx.call(function, inputs)
    fn = module.function(function)
    for i, (t, v) in enumerate(zip(fn.result_types, outputs)):
        check_value(t, v, what=f"@{function} result #{i}")
    return outputs
