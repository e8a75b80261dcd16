"""Conditions of known deviations: the inputs or attributes of a case that trigger a deviation.

An entry of ``judge/deviations/*.toml`` with ``when = "NAME"`` explains a failure only when
the condition NAME holds for the op the failure is attributed to, evaluated on the operands
that op got (``condition(op, operands)``); any other failure of the same op and type is new.
Each condition is deliberately a little wider than the deviation itself (it may hold where the
backend happens to agree) but never fires on a case without the trigger.

A condition is a function of the family module it reads (judge/conditions/*.py), registered
under its own name by ``@condition``.  A few also read the op's place in its program
(``@program_condition``: called with the ops before it in its function as a third argument),
for deviations that need another op or a constant operand; they hold only where the caller
knows that context (a crash's culprit, conformance/fuzz_checking.py ``attribute_crash``; a
mismatch's culprit in a replayed program, judge/verdict.py).
"""

from __future__ import annotations

from typing import Callable, Sequence

from oracle import ir

#: Every condition by name, in the order the family modules register them.
CONDITIONS: dict[str, Callable[..., bool]] = {}
#: The conditions that also read the ops before the op in its function (a third argument).
PROGRAM_CONDITIONS: set[str] = set()


def condition(function: Callable[..., bool]) -> Callable[..., bool]:
    """Registers ``function(op, operands) -> bool`` as the condition of its name."""
    CONDITIONS[function.__name__] = function
    return function


def program_condition(function: Callable[..., bool]) -> Callable[..., bool]:
    """Registers ``function(op, operands, preceding) -> bool``: a condition that reads the ops before the op."""
    PROGRAM_CONDITIONS.add(function.__name__)
    return condition(function)


def triggered(op: ir.Op | None, operands: Sequence | None, preceding: Sequence[ir.Op] | None = None
              ) -> tuple[str, ...]:
    """The names of the conditions that hold for ``op`` on ``operands``; with ``preceding``
    (the ops before it in its function) the program conditions too."""
    if op is None or operands is None:
        return ()
    out = []
    for name, holds in CONDITIONS.items():
        if name in PROGRAM_CONDITIONS and preceding is None:
            continue
        try:
            args = (op, list(operands), list(preceding)) if name in PROGRAM_CONDITIONS else (op, list(operands))
            if holds(*args):
                out.append(name)
        except (IndexError, KeyError, TypeError, ValueError, AttributeError):
            continue  # not this op's shape of attributes
    return tuple(out)
