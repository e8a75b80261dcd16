"""Control flow and structure (spec "while", "case", "if", "composite",
"optimization_barrier", "tuple", "get_tuple_element"; func.call is in calls.py).

Regions are evaluated with ``ctx.run_region`` in the scope of the op (they may use
values defined outside them).  Values that cross a region boundary are checked against
the types the spec ties them to (while (C1)/(C2), case (C3), if (C2)), so a region that
returns the wrong thing is reported at the op that ran it.
"""

from __future__ import annotations

import numpy as np

from ..errors import OracleError
from ..evaluator import check_value
from ..registry import op
from ..types import ALL_ELEMENT_TYPES, BOOL, ELEMENT_TYPES, TensorType, TupleType

_ALL_NAMES = tuple(t.name for t in ALL_ELEMENT_TYPES)
_I32 = ELEMENT_TYPES["i32"]

#: while: iterations after which the oracle gives up (the spec: "The behavior of an infinite
#: loop is TBD (#383)").  ``ctx.extra["while_iteration_limit"]`` overrides it.
WHILE_ITERATION_LIMIT = 1_000_000


def _region_results(op_, what: str, results: list, types, constraint: str) -> list:
    """Check a region's results against the types the op's constraint requires."""
    if len(results) != len(types):
        raise OracleError(f"{what} returns {len(results)} values, expected {len(types)}",
                          op=op_.name, location=op_.location, constraint=constraint)
    for i, (t, v) in enumerate(zip(types, results)):
        check_value(t, v, what=f"{op_.name}: ({constraint}) {what} result #{i}")
    return results


def _scalar_of(op_, value, et, name: str) -> np.generic:
    t = op_.operands[0].type
    if not (isinstance(t, TensorType) and t.rank == 0 and t.element_type == et):
        raise OracleError(f"{name} must be a 0-dimensional tensor of type {et}, got {t}", op=op_.name,
                          constraint="I1")
    return value[()]


# ---------------------------------------------------------------------------- while

@op("stablehlo.while", family="control_flow", element_types=_ALL_NAMES,
    notes="element_types: of the loop-carried tensors besides the si32 counter; a loop still running after "
          "WHILE_ITERATION_LIMIT iterations is reported (infinite loops are TBD, #383)")
def while_(op_, args, ctx, env):
    if len(op_.regions) != 2:
        raise OracleError(f"expected 2 regions (cond, body), got {len(op_.regions)}", op=op_.name)
    cond, body = op_.regions
    types = [v.type for v in op_.operands]
    for name, region, c in (("cond", cond, "C1"), ("body", body, "C2")):
        arg_types = [a.type for a in region.arguments]
        if arg_types != types:  # while (C1), (C2): (T0, ..., TN-1) -> ...
            raise OracleError(f"{name} takes ({', '.join(map(str, arg_types))}), operands are "
                              f"({', '.join(map(str, types))})", op=op_.name, constraint=c)
    limit = int(ctx.extra.get("while_iteration_limit", WHILE_ITERATION_LIMIT))
    pred_type = TensorType((), BOOL)
    # internal_state = operand; while cond(*internal_state): internal_state = body(*internal_state)
    state = list(args)
    for _ in range(limit + 1):
        (pred,) = _region_results(op_, "cond", ctx.run_region(cond, state, env), [pred_type], "C1")
        if not pred[()]:
            return state
        state = _region_results(op_, "body", ctx.run_region(body, state, env), types, "C2")
    raise OracleError(f"the loop is still running after {limit} iterations (the behavior of an infinite loop "
                      f"is TBD in the spec, #383; raise ctx.extra['while_iteration_limit'] for longer loops)",
                      op=op_.name)


# ----------------------------------------------------------------------- case / if

def _check_branches(op_, branches, constraint: str) -> list:
    for k, branch in enumerate(branches):
        if branch.arguments:  # case (C2) / if (C1): input_types(branches...) = []
            raise OracleError(f"branch #{k} takes {len(branch.arguments)} arguments, branches take none",
                              op=op_.name, constraint=constraint)
    return [r.type for r in op_.results]


@op("stablehlo.case", family="control_flow", element_types=_ALL_NAMES,
    notes="element_types: of the branches' results (the index is si32); index out of range -> last branch")
def case(op_, args, ctx, env):
    branches = op_.regions
    if not branches:  # case (C1)
        raise OracleError("case needs at least one branch", op=op_.name, constraint="C1")
    result_types = _check_branches(op_, branches, "C2")
    index = int(_scalar_of(op_, args[0], _I32, "index"))
    # selected_branch = branches[index] if 0 <= index < size(branches) else branches[-1]
    selected = branches[index] if 0 <= index < len(branches) else branches[-1]
    k = index if 0 <= index < len(branches) else len(branches) - 1
    return _region_results(op_, f"branch #{k}", ctx.run_region(selected, [], env), result_types, "C3")


@op("stablehlo.if", family="control_flow", element_types=_ALL_NAMES,
    notes="element_types: of the branches' results (pred is i1)")
def if_(op_, args, ctx, env):
    if len(op_.regions) != 2:
        raise OracleError(f"expected 2 regions (true_branch, false_branch), got {len(op_.regions)}", op=op_.name)
    result_types = _check_branches(op_, op_.regions, "C1")
    pred = bool(_scalar_of(op_, args[0], BOOL, "pred"))
    # result = pred ? true_branch() : false_branch()
    branch, what = (op_.regions[0], "true_branch") if pred else (op_.regions[1], "false_branch")
    return _region_results(op_, what, ctx.run_region(branch, [], env), result_types, "C2")


# ------------------------------------------------------------------------ composite

def _is_namespaced_op_name(name: str) -> bool:
    parts = name.split(".")
    return len(parts) >= 2 and all(parts)


@op("stablehlo.composite", family="control_flow",
    notes="evaluates its decomposition function (the spec: it can replace the op without changing semantics)")
def composite(op_, args, ctx, env):
    name = op_.attr("name")
    if not _is_namespaced_op_name(name):  # composite (C1)
        raise OracleError(f"name {name!r} is not a namespaced op name (dialect.op)", op=op_.name, constraint="C1")
    callee = op_.attr("decomposition")
    try:
        fn = ctx.module.function(callee)
    except KeyError:  # composite (C2): is_defined_in_parent_scope(decomposition)
        raise OracleError(f"decomposition @{callee} is not defined in the module", op=op_.name,
                          constraint="C2") from None
    operand_types = [v.type for v in op_.operands]
    if operand_types != [a.type for a in fn.arguments]:  # composite (C3)
        raise OracleError(f"types(inputs) ({', '.join(map(str, operand_types))}) != input_types(@{callee}) "
                          f"({', '.join(str(a.type) for a in fn.arguments)})", op=op_.name, constraint="C3")
    result_types = [r.type for r in op_.results]
    if result_types != list(fn.result_types):  # composite (C4)
        raise OracleError(f"types(results) ({', '.join(map(str, result_types))}) != output_types(@{callee}) "
                          f"({', '.join(map(str, fn.result_types))})", op=op_.name, constraint="C4")
    return ctx.call(callee, args)


# ------------------------------------------------------------- optimization_barrier

@op("stablehlo.optimization_barrier", family="control_flow", element_types=_ALL_NAMES)
def optimization_barrier(op_, args, ctx, env):
    operand_types = [v.type for v in op_.operands]
    result_types = [r.type for r in op_.results]
    if operand_types != result_types:  # optimization_barrier (C1)
        raise OracleError(f"type(operand...) ({', '.join(map(str, operand_types))}) != type(result...) "
                          f"({', '.join(map(str, result_types))})", op=op_.name, constraint="C1")
    return list(args)  # an identity: result = operand (values are never mutated in place)


# ------------------------------------------------------------ tuple / get_tuple_element

@op("stablehlo.tuple", family="control_flow", element_types=_ALL_NAMES,
    notes="not generated: a one-op program returns a tuple, which XLA refuses and stablehlo-ref aborts on")
def tuple_(op_, args, ctx, env):
    result_type = op_.results[0].type
    operand_types = tuple(v.type for v in op_.operands)
    if not isinstance(result_type, TupleType) or result_type.types != operand_types:  # tuple (C1)
        raise OracleError(f"result type {result_type} is not tuple<{', '.join(map(str, operand_types))}>",
                          op=op_.name, constraint="C1")
    return [tuple(args)]


@op("stablehlo.get_tuple_element", family="control_flow", element_types=_ALL_NAMES,
    notes="not generated: a one-op program would take a tuple argument, which no backend accepts")
def get_tuple_element(op_, args, ctx, env):
    operand_type = op_.operands[0].type
    if not isinstance(operand_type, TupleType):  # get_tuple_element (I1)
        raise OracleError(f"operand must be a tuple, got {operand_type}", op=op_.name, constraint="I1")
    index = int(op_.attr("index"))
    if not 0 <= index < len(operand_type.types):  # get_tuple_element (C1)
        raise OracleError(f"index {index} is not in [0, {len(operand_type.types)})", op=op_.name, constraint="C1")
    if op_.results[0].type != operand_type.types[index]:  # get_tuple_element (C2)
        raise OracleError(f"type(result) {op_.results[0].type} != tuple_element_types(operand)[{index}] "
                          f"{operand_type.types[index]}", op=op_.name, constraint="C2")
    return [args[0][index]]
