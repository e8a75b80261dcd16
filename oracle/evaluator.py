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
    extra: dict[str, Any] = field(default_factory=dict)  # room for later families (process grid, channels, ...)
    # When a dict: result Value -> bool mask of the elements whose value the spec leaves
    # implementation-defined (see oracle/numerics.py, "unrepresentable results").
    impl_defined: dict | None = None
    depth: int = 0

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


_TERMINATORS = frozenset({"func.return", "stablehlo.return"})


def run_ops(ops: Sequence[ir.Op], env: dict, ctx: Context) -> list:
    """Evaluate ops in order; the terminator's operands are the result."""
    for op in ops:
        try:
            args = [env[v] for v in op.operands]
        except KeyError as e:
            raise OracleError(f"operand {e.args[0]!r} is not defined", op=op.name, location=op.location) from None
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
            check_value(result.type, value, op=op)
            env[result] = value
    raise OracleError("function or region has no terminator")


def _keep_impl_defined(ctx: Context, op: ir.Op, results: list, noted: list) -> None:
    if not noted or len(results) != 1 or not isinstance(results[0], np.ndarray):
        return
    mask = np.zeros(results[0].shape, dtype=bool)
    for m in noted:
        if np.shape(m) == mask.shape:
            mask |= m
    if mask.any():
        ctx.impl_defined[op.results[0]] = mask


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
