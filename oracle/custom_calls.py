"""The registry of custom_call targets the oracle knows (spec "custom_call": the op calls
an *implementation-defined* target, so the oracle can only evaluate targets given here).

A target is a Python function ``target(op, args, ctx) -> list of result values``; ``op``
gives the attributes (``backend_config``, ``called_computations``, ...) and ``ctx.call``
runs a called computation.  Register one with::

    @custom_call_target("my.target")
    def my_target(op, args, ctx): ...

A program calling a target not registered here fails with ``Unsupported`` naming it.
"""

from __future__ import annotations

from typing import Callable

from .errors import OracleError

CustomCallTarget = Callable[..., list]

TARGETS: dict[str, CustomCallTarget] = {}


def custom_call_target(name: str):
    """Decorator: register ``fn`` as the oracle's implementation of custom_call target ``name``."""
    def decorate(fn: CustomCallTarget) -> CustomCallTarget:
        if name in TARGETS:
            raise ValueError(f"custom_call target {name!r} registered twice")
        TARGETS[name] = fn
        return fn
    return decorate


def lookup_target(name: str) -> CustomCallTarget | None:
    return TARGETS.get(name)


# ---------------------------------------------------------------------------- targets

def _identity(op, args, ctx):
    """Results are the inputs, unchanged (types must agree)."""
    if [v.type for v in op.operands] != [r.type for r in op.results]:
        raise OracleError(f"target {op.attr('call_target_name')!r} returns its inputs: operand types "
                          f"({', '.join(str(v.type) for v in op.operands)}) != result types "
                          f"({', '.join(str(r.type) for r in op.results)})", op=op.name)
    return list(args)


# Sharding annotations that JAX and XLA's SPMD partitioner put around values: on one device
# they do not change the value (XLA's CPU compiler removes them).
for _name in ("Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape"):
    custom_call_target(_name)(_identity)


@custom_call_target("stablehlo_conformance.call")
def _call_first_computation(op, args, ctx):
    """Test target: calls called_computations[0] on the inputs (exercises called_computations)."""
    called = op.attr("called_computations", ())
    if not called:
        raise OracleError("target 'stablehlo_conformance.call' needs one called computation", op=op.name)
    return ctx.call(called[0], args)
