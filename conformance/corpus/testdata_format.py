"""The testdata format: the StableHLO repo's ``testdata`` files, where ``@main`` calls private
``@inputs``/``@expected`` and checks with ``stablehlo.custom_call @check.*``.  They are rewritten
on the parsed MLIR module (jaxlib's Python bindings): the check custom_calls are erased and
``@main`` returns ``(actual, expected)`` pairs.  Tolerances: ``check.eq`` on floats 1e-4,
``check.expect_almost_eq`` 1e-3, ``check.expect_close`` 0..3 ULP (judge/golden_checks.py).
"""

from __future__ import annotations

import os
import re

from judge.golden_checks import DEFAULT_ALMOST_EQ_TOLERANCE
from oracle.errors import MlirError
from oracle.mlir_text import context_lock, mlir_context, mlir_diagnostics
from oracle.types import parse_type

from .records import Check, CorpusCase, annotate


_TESTDATA_ALMOST_EQ_TOL = 1e-3
_TESTDATA_CLOSE_MAX_ULP = 3

_TESTDATA_KINDS = {
    "check.expect_eq": ("eq", None, None),
    "check.expect_close": ("close", None, _TESTDATA_CLOSE_MAX_ULP),
    "check.expect_almost_eq": ("almost_eq", _TESTDATA_ALMOST_EQ_TOL, None),
    "check.eq": ("eq_or_almost", DEFAULT_ALMOST_EQ_TOLERANCE, None),  # ints exact, floats almost_eq 1e-4
}


def load_testdata_case(text: str, rel: str, path: str, *, start: int = 1, alone: bool = True) -> CorpusCase:
    """A testdata file (or one ``// -----`` chunk of a file, from line ``start``; ``alone``: the
    file's only chunk) -> one case, rewritten on the MLIR module with jaxlib's bindings."""
    name = os.path.splitext(os.path.basename(rel))[0]
    if alone:
        case = CorpusCase(id=f"{rel}::{name}", file=path, name=name, format="testdata")
    else:
        main = re.search(r"^[ \t]*func\.func\s+(?:public\s+)?@main\b", text, re.M)
        line = start + (text[:main.start()].count("\n") if main else 0)
        case = CorpusCase(id=f"{rel}:{line}:{name}", file=path, name=name, line=line, format="testdata")
    try:
        program, checks = rewrite_testdata("\n" * (start - 1) + text, filename=rel)
    except _TestdataError as e:
        case.error = str(e)
        return case
    case.program_text, case.checks = program, checks
    annotate(case, rel)
    return case


class _TestdataError(Exception):
    pass


def rewrite_testdata(text: str, *, filename: str = "-") -> tuple[str, list[Check]]:
    """Drop the ``@check.*`` custom_calls of ``@main``; return (actual, expected) pairs instead."""
    from jaxlib.mlir import ir  # (jaxlib's bindings load on first use, as in oracle/mlir_text.py)
    from jaxlib.mlir.dialects import func as func_d

    ctx = mlir_context()
    with context_lock, ctx, ir.Location.unknown():
        try:
            module = ir.Module.parse(text)
        except ir.MLIRError as e:
            raise _TestdataError(str(MlirError(mlir_diagnostics(e, filename)))) from None
        main = None
        for op in module.body.operations:
            op = op.operation
            if op.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == "main":
                main = op
        if main is None:
            raise _TestdataError(f"{filename}: no func.func @main")
        block = main.regions[0].blocks[0]
        values, checks, to_erase, terminator = [], [], [], None
        for op in block.operations:
            op = op.operation
            if op.name in ("func.return", "return"):
                terminator = op
                continue
            if op.name != "stablehlo.custom_call":
                continue
            target = ir.StringAttr(op.attributes["call_target_name"]).value
            if not target.startswith("check."):
                continue
            if target not in _TESTDATA_KINDS:
                raise _TestdataError(f"{filename}: unknown check custom_call @{target}")
            if len(op.operands) != 2:
                raise _TestdataError(f"{filename}: @{target} takes 2 operands, got {len(op.operands)}")
            kind, tol, max_ulp = _TESTDATA_KINDS[target]
            ty = str(op.operands[0].type)
            if kind == "eq_or_almost":
                kind = "eq" if _is_integer_type(ty) else "almost_eq"
            line = _mlir_line(op.location)
            checks.append(Check(kind=kind, actual=len(values), expected=len(values) + 1,
                                tolerance=tol if kind == "almost_eq" else None,
                                max_ulp=max_ulp if kind == "close" else None, type=ty,
                                op=f"@{target}", line=line))
            values.extend([op.operands[0], op.operands[1]])
            to_erase.append(op)
        if not checks:
            raise _TestdataError(f"{filename}: @main has no @check.* custom_call")
        if terminator is None:
            raise _TestdataError(f"{filename}: @main has no terminator")
        with ir.InsertionPoint(terminator):
            func_d.ReturnOp(values)
        terminator.erase()
        for op in to_erase:
            for r in op.results:
                if list(r.uses):
                    raise _TestdataError(f"{filename}: the result of a check custom_call is used by another op")
            op.erase()
        main.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get([], [v.type for v in values]))
        if "res_attrs" in main.attributes:
            del main.attributes["res_attrs"]
        if not module.operation.verify():
            raise _TestdataError(f"{filename}: the rewritten module does not verify")
        return str(module), checks


def _is_integer_type(type_text: str) -> bool:
    try:
        et = parse_type(type_text).element_type
        return bool(et.is_integer or et.is_bool)
    except Exception:
        return False


def _mlir_line(location) -> int:
    m = re.search(r":(\d+):\d+", str(location))
    return int(m.group(1)) if m else 0
