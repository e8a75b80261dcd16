"""Shrinking a failing fuzz program (conformance/fuzz.py): greedy deletions checked on the backend.

``shrink_program`` drops outputs, bypasses ops (a consumer of the culprit gives way to its
operand) and replaces ops by @main arguments carrying the values the oracle computed for them,
while ``still_fails``; a campaign gives it SHRINK_SHARE of its budget (``shrink_allowance``).
Hypothesis only draws: its shrinker compiled a program per try for up to 20 s per finding.
"""

from __future__ import annotations

import time

from oracle import ir
from oracle.errors import OracleError
from oracle.evaluator import Context, run_ops

#: The share of a campaign's wall time shrinking may take (``--minutes``: of the budget).
SHRINK_SHARE = 0.2
#: Without a time budget: shrinking may take SHRINK_SHARE of the time so far, or at least this.
MIN_SHRINK_SECONDS = 10.0


def shrink_allowance(share: float, started: float, deadline: float | None, spent: float) -> float:
    """Seconds shrinking may still take, ``spent`` already: ``share`` of the budget (of the time
    so far, at least MIN_SHRINK_SECONDS, without one), never past the budget's end."""
    now = time.perf_counter()
    if deadline is not None:
        return max(0.0, min(share * (deadline - started) - spent, deadline - now - 0.5))
    return max(0.0, max(share * (now - started), MIN_SHRINK_SECONDS) - spent)


def without_op(module: ir.Module, index: int, inputs: list) -> tuple[ir.Module, list] | None:
    """The program with op #index replaced by new @main arguments holding its results' values."""
    main = module.main
    op = main.ops[index]
    if op.name == "func.return" or not op.results:
        return None
    try:  # the values the removed op had in the original program
        env = dict(zip(main.arguments, inputs))
        values = run_ops(main.ops[:index + 1] + (ir.Op("func.return", op.results, ()),), env, Context(module))
    except OracleError:
        return None
    return pruned(main.arguments + op.results, list(inputs) + values, main.ops[:index] + main.ops[index + 1:],
                   main.ops[-1].operands)


def pruned(args, inputs: list, ops, outputs) -> tuple[ir.Module, list]:
    """@main over ``ops`` returning ``outputs``, without the ops and arguments nothing uses."""
    body = tuple(o for o in ops if o.name != "func.return")
    while True:
        used = {v for o in body for v in o.operands} | set(outputs)
        live = tuple(o for o in body if not o.results or any(r in used for r in o.results))
        if len(live) == len(body):
            break
        body = live
    used = {v for o in body for v in o.operands} | set(outputs)
    keep = [i for i, a in enumerate(args) if a in used]
    fn = ir.Function("main", tuple(args[i] for i in keep), tuple(v.type for v in outputs),
                     body + (ir.Op("func.return", tuple(outputs), ()),))
    return ir.Module((fn,)), [inputs[i] for i in keep]


def without_output(module: ir.Module, k: int, inputs: list) -> tuple[ir.Module, list] | None:
    main = module.main
    outputs = main.ops[-1].operands
    if len(outputs) <= 1:
        return None
    return pruned(main.arguments, list(inputs), main.ops, outputs[:k] + outputs[k + 1:])


def bypasses(module: ir.Module, index: int, inputs: list):
    """The program with op #index's (single) result replaced by each of its operands of the same type."""
    main = module.main
    op = main.ops[index]
    if len(op.results) != 1 or op.name == "func.return":
        return
    for operand in dict.fromkeys(v for v in op.operands if v.type == op.results[0].type):
        swap = {op.results[0]: operand}
        ops = [ir.Op(o.name, tuple(swap.get(v, v) for v in o.operands), o.results, o.attributes, o.regions,
                     o.location) for o in main.ops if o is not op]
        yield pruned(main.arguments, list(inputs), ops, tuple(swap.get(v, v) for v in main.ops[-1].operands))


def reductions(module: ir.Module, index: int, inputs: list):
    yield from bypasses(module, index, inputs)
    yield without_op(module, index, inputs)


def shrink_program(module: ir.Module, inputs: list, still_fails, max_steps: int = 200,
                   deadline: float | None = None) -> tuple[ir.Module, list]:
    """Greedy, while ``still_fails(module, inputs)``: drop outputs, bypass ops (a consumer of
    the culprit gives way to its operand), replace ops by inputs carrying their values.
    Stops at ``deadline`` (time.perf_counter()) with the smallest failing program so far."""
    def candidates(module, inputs):
        for k in range(len(module.main.ops[-1].operands)):
            yield without_output(module, k, inputs)
        for index in range(len(module.main.ops) - 2, -1, -1):
            yield from reductions(module, index, inputs)

    steps = 0
    while steps < max_steps:
        for candidate in candidates(module, inputs):
            if deadline is not None and time.perf_counter() >= deadline:
                return module, inputs
            steps += 1
            if candidate and still_fails(*candidate):
                module, inputs = candidate
                break
        else:
            break  # no candidate fails any more: minimal
    return module, inputs
