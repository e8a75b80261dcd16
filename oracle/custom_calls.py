"""The registry of custom_call targets the oracle knows (spec "custom_call": the op calls
an *implementation-defined* target, so the oracle can only evaluate targets given here).

A target is a Python function ``target(op, args, ctx) -> list of result values``; ``op``
gives the attributes (``backend_config``, ``called_computations``, ...) and ``ctx.call``
runs a called computation.  Register one with::

    @custom_call_target("my.target")
    def my_target(op, args, ctx): ...

A program calling a target not registered here fails with ``Unsupported`` naming it.

Comparison: a target whose result is not unique (an eigenvector's sign, a pivot row at a tie)
registers a judge with ``@custom_call_compare(name)``: ``judge(expected, actual, inputs, op)
-> PropertyVerdict``, the signature of rng's ``OpInfo.extra["compare"]``.  ``compare_custom_call``
(the custom_call record's hook) dispatches on the target; targets without a judge return their
results exactly (identity annotations), so they are compared bit for bit (NaN matches NaN).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .errors import OracleError, Unsupported
from .verdicts import PropertyVerdict

CustomCallTarget = Callable[..., list]

TARGETS: dict[str, CustomCallTarget] = {}
#: target name -> the input domain drawn for its operands ("finite": never inf / NaN, for a
#: target that may not return on them); targets not listed take any value.
TARGET_DOMAINS: dict[str, str] = {}
#: target name -> judge(expected, actual, inputs, op) -> PropertyVerdict
JUDGES: dict[str, Callable[..., "PropertyVerdict"]] = {}


def custom_call_target(name: str, domain: str = ""):
    """Decorator: register ``fn`` as the oracle's implementation of custom_call target ``name``
    (``domain``: what inputs drawn for it respect, TARGET_DOMAINS)."""
    def decorate(fn: CustomCallTarget) -> CustomCallTarget:
        if name in TARGETS:
            raise ValueError(f"custom_call target {name!r} registered twice")
        TARGETS[name] = fn
        if domain:
            TARGET_DOMAINS[name] = domain
        return fn
    return decorate


def target_domain(op) -> str:
    """The input domain of a custom_call op's target ("" for any value, or another op)."""
    return TARGET_DOMAINS.get(op.attr("call_target_name", ""), "") if op.name == "stablehlo.custom_call" else ""


def custom_call_compare(name: str):
    """Decorator: ``fn`` judges a backend's results of target ``name`` (see the module docstring)."""
    def decorate(fn):
        if name in JUDGES:
            raise ValueError(f"custom_call target {name!r} judged twice")
        JUDGES[name] = fn
        return fn
    return decorate


def lookup_target(name: str) -> CustomCallTarget | None:
    return TARGETS.get(name)


def compare_custom_call(expected, actual, inputs, op) -> PropertyVerdict:
    """stablehlo.custom_call's ``extra["compare"]``: the target's judge, else exact equality."""
    judge = JUDGES.get(op.attr("call_target_name"))
    if judge is not None:
        try:
            return judge(expected, actual, inputs, op)
        except Exception as e:  # a judge's own bug is reported on the case, never a crashed run
            return PropertyVerdict("error", f"the judge of {op.attr('call_target_name')!r} failed: "
                                            f"{type(e).__name__}: {e}")
    n = sum(np.size(x) for x in actual)
    if len(expected) != len(actual):
        return PropertyVerdict("mismatch", f"{len(actual)} results, expected {len(expected)}", mismatch_count=1)
    for i, (e, a) in enumerate(zip(expected, actual)):
        e, a = np.asarray(e), np.asarray(a)
        if e.shape != a.shape or e.dtype != a.dtype:
            return PropertyVerdict("mismatch", f"result #{i} is {a.dtype}{list(a.shape)}, expected "
                                   f"{e.dtype}{list(e.shape)}", mismatch_count=1, compared_count=n)
        same = e.tobytes() == a.tobytes()
        if not same and e.dtype.kind in "fc":
            same = bool(np.all((e == a) & (np.signbit(np.real(e)) == np.signbit(np.real(a)))
                               | (np.isnan(e) & np.isnan(a))))
        if not same:
            return PropertyVerdict("mismatch", f"result #{i} differs from the target's exact result",
                                   mismatch_count=1, compared_count=n)
    return PropertyVerdict("pass", compared_count=n, max_ulp=0.0)


# ---------------------------------------------------------------------------- targets

def _identity(op, args, ctx):
    """Results are the inputs, unchanged (types must agree)."""
    if [v.type for v in op.operands] != [r.type for r in op.results] and op.attr("call_target_name") in _MANUAL:
        raise Unsupported(f"changes what the program computes: {op.attr('call_target_name')} with "
                          f"mhlo.sharding = {op.attr('mhlo.sharding', '?')!r} cuts a value into per-device "
                          "shards (a manual / shard_map region); the oracle evaluates the single-device "
                          "program", op=op.name, location=op.location)
    if [v.type for v in op.operands] != [r.type for r in op.results]:
        raise OracleError(f"target {op.attr('call_target_name')!r} returns its inputs: operand types "
                          f"({', '.join(str(v.type) for v in op.operands)}) != result types "
                          f"({', '.join(str(r.type) for r in op.results)})", op=op.name)
    return list(args)


_MANUAL = ("SPMDFullToShardShape", "SPMDShardToFullShape")

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

