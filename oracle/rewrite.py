"""Program rewrites that bring inner ops to the top of @main, computing the same values.

The judge (judge/verdict.py) judges each top-level op of a program by its own rule on the
backend's own operands.  An op that holds other ops -- a call, ``if``, ``case``, ``while`` --
would be judged as ONE op whose rule is exact, although the ops inside may round (exp,
dot_general, LAPACK calls...).  ``expand`` rewrites @main so that those inner ops stand at
the top:

* ``func.call``: always inlined (the callee's ops, its arguments replaced by the operands);
* ``if`` / ``case`` given a decision (the index of the branch taken): the branch's ops are
  inlined, its ``stablehlo.return`` operands replace the op's results;
* ``while`` given a decision (a trip count N): unrolled -- cond, body, cond, ..., body,
  cond: N bodies and the N + 1 conditions, whose i1 results stay in the program (the judge
  reads them back to check that the backend's own conditions stop its loop after exactly N).

Given decisions that agree with what the backend's conditions say (the judge checks that on
each replay), the rewritten program computes what the original computes: the spec defines
``if`` as the taken branch's values, ``case`` likewise (case: index out of range -> last
branch), and ``while`` as cond/body applied in turn until cond is false.

Ops are named by their *path* (a tuple): ``(k,)`` for the k-th op of @main, then for an op
inside an expanded op the expanded op's path plus ``("branch", b)`` (if/case),
``("cond", i)`` / ``("body", i)`` (iteration i of a while) or nothing (a call), plus the
op's position in that region or function.  Paths stay the same from one rewrite to the next, so decisions can
be given for ops inside other expanded ops (nested regions).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from .errors import OracleError
from .evaluator import Context
from .ir import Function, Module, Op, Region, Value

__all__ = ["IF", "CASE", "WHILE", "EXPANDABLE", "Expansion", "TooLarge", "expand", "inline_calls",
           "branch_taken", "trip_count", "oracle_trip_count"]

IF, CASE, WHILE = "stablehlo.if", "stablehlo.case", "stablehlo.while"
EXPANDABLE = frozenset({IF, CASE, WHILE})
#: the most top-level ops a rewritten @main may have (each becomes an output of the replay)
MAX_OPS = 6000
_MAX_DEPTH = 64


class TooLarge(Exception):
    """The rewritten program would have more than ``max_ops`` top-level ops."""


@dataclass(frozen=True)
class Expansion:
    module: Module
    paths: Mapping[Op, tuple]                   # each op of the new @main -> its path
    #: each expanded if/case/while -> (the op, the values of the new @main that decide it):
    #: if/case: (pred,) / (index,); while: its N + 1 condition results, in order
    selectors: Mapping[tuple, tuple[Op, tuple[Value, ...]]]


def expand(module: Module, decisions: Mapping[tuple, int] = {}, max_ops: int | None = None) -> Expansion:
    """``module`` with every call of @main inlined and each if/case/while named in ``decisions``
    (path -> branch index, or trip count for a while) expanded (module docstring).
    Raises TooLarge beyond ``max_ops`` (default MAX_OPS) top-level ops."""
    main = module.main
    max_ops = MAX_OPS if max_ops is None else max_ops
    if not decisions and not any(op.name == "func.call" for op in main.ops):
        return Expansion(module, {op: (k,) for k, op in enumerate(main.ops[:-1])}, {})
    emitter = _Emitter(module, decisions, max_ops)
    returned = emitter.emit(main.ops, (), 0)
    new_main = Function(main.name, main.arguments, main.result_types,
                        tuple(emitter.ops) + (Op("func.return", tuple(returned), ()),),
                        main.visibility, main.location, main.arg_attrs, main.res_attrs)
    functions = tuple(new_main if f is main else f for f in module.functions)
    return Expansion(Module(functions, module.attributes, module.declarations), emitter.paths, emitter.selectors)


def inline_calls(module: Module) -> Module:
    """``module`` with every ``func.call`` of @main replaced by the callee's ops (recursively),
    so each op of the computation stands at the top of @main (JAX wraps linalg code and more in
    private functions).  Returns ``module`` itself when @main calls nothing."""
    return expand(module).module


def branch_taken(op: Op, selector) -> int:
    """The index of the region ``op`` (if/case) runs for this pred/index value."""
    value = np.asarray(selector).reshape(-1)[0]
    if op.name == IF:  # if: result = pred ? true_branch() : false_branch()
        return 0 if bool(value) else 1
    # case: selected_branch = branches[index] if 0 <= index < size(branches) else branches[-1]
    index, count = int(value), len(op.regions)
    return index if 0 <= index < count else count - 1


def trip_count(conditions: Sequence) -> int | None:
    """How many bodies a while runs given its conditions' values in order (the first false one),
    None if every one given is true (the loop runs on)."""
    for k, c in enumerate(conditions):
        if not bool(np.asarray(c).reshape(-1)[0]):
            return k
    return None


def oracle_trip_count(op: Op, operands: Sequence, module: Module, env: Mapping, limit: int) -> int | None:
    """How many bodies the while ``op`` runs on ``operands`` by the oracle (None past ``limit``
    or when the oracle cannot run it): a first guess of what the backend's loop does."""
    cond, body = op.regions
    context, state = Context(module), list(operands)
    try:
        for k in range(limit + 1):
            if not bool(np.asarray(context.run_region(cond, state, env)[0]).reshape(-1)[0]):
                return k
            state = context.run_region(body, state, env)
    except OracleError:
        return None
    return None


class _Emitter:
    def __init__(self, module: Module, decisions: Mapping[tuple, int], max_ops: int):
        self.module, self.decisions, self.max_ops = module, decisions, max_ops
        self.mapping: dict[Value, Value] = {}
        self.ops: list[Op] = []
        self.paths: dict[Op, tuple] = {}
        self.selectors: dict[tuple, tuple] = {}

    def value(self, v: Value) -> Value:
        return self.mapping.get(v, v)

    def clone_region(self, region: Region) -> Region:
        arguments = tuple(Value(a.type, a.name) for a in region.arguments)
        self.mapping.update(zip(region.arguments, arguments))
        return Region(arguments, tuple(self.clone_op(o) for o in region.ops))

    def clone_op(self, op: Op) -> Op:
        regions = tuple(self.clone_region(r) for r in op.regions)
        results = tuple(Value(r.type, r.name) for r in op.results)
        self.mapping.update(zip(op.results, results))
        return Op(op.name, tuple(self.value(v) for v in op.operands), results, op.attributes, regions, op.location)

    def emit(self, ops: Sequence[Op], prefix: tuple, depth: int) -> list[Value]:
        """``ops`` (a function's or region's, terminator last) emitted at the top of @main;
        returns the terminator's operands as values of the new @main."""
        if depth > _MAX_DEPTH:
            raise RecursionError(f"calls/regions nested deeper than {_MAX_DEPTH} (a recursive call?)")
        for k, op in enumerate(ops[:-1]):
            path = prefix + (k,)
            decision = self.decisions.get(path)
            if op.name == "func.call":
                callee = self.module.function(op.attr("callee"))
                self.mapping.update(zip(callee.arguments, [self.value(v) for v in op.operands]))
                self.mapping.update(zip(op.results, self.emit(callee.ops, path, depth + 1)))
            elif decision is not None and op.name in (IF, CASE):
                self.selectors[path] = (op, (self.value(op.operands[0]),))
                branch = op.regions[decision]
                self.mapping.update(zip(op.results, self.emit(branch.ops, path + ("branch", decision), depth + 1)))
            elif decision is not None and op.name == WHILE:
                self.mapping.update(zip(op.results, self.unroll(op, path, decision, depth)))
            else:
                new = self.clone_op(op)
                self.ops.append(new)
                self.paths[new] = path
                if len(self.ops) > self.max_ops:
                    raise TooLarge(f"the rewritten program has more than {self.max_ops} ops")
        return [self.value(v) for v in ops[-1].operands]

    def unroll(self, op: Op, path: tuple, trips: int, depth: int) -> list[Value]:
        """while: internal_state = operands; while cond(state): state = body(state) -- ``trips``
        bodies, every condition (the last one false if ``trips`` is right) kept."""
        cond, body = op.regions
        state = [self.value(v) for v in op.operands]
        conditions = []
        for i in range(trips + 1):
            self.mapping.update(zip(cond.arguments, state))
            conditions.extend(self.emit(cond.ops, path + ("cond", i), depth + 1))
            if i == trips:
                break
            self.mapping.update(zip(body.arguments, state))
            state = self.emit(body.ops, path + ("body", i), depth + 1)
        self.selectors[path] = (op, tuple(conditions))
        return state
