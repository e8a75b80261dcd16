"""The records a corpus file becomes: its cases (:class:`CorpusCase`, a program whose public
``@main`` takes no arguments and returns the values to check) and their expectations
(:class:`Check`), both formats alike; ``annotate`` parses and verifies a case's program once."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from oracle.errors import MlirError
from oracle.mlir_text import parse_module
from oracle.types import TensorType


@dataclass
class Check:
    """One expectation on the outputs of the rewritten program."""
    kind: str                      # "eq" | "almost_eq" | "close"
    actual: int                    # index of the checked value among @main's results
    expected: int | None = None    # index of the expected value among the results (two-operand checks)
    expected_value: np.ndarray | None = field(default=None, repr=False)  # the constant of *_const checks
    tolerance: float | None = None  # almost_eq
    max_ulp: int | None = None     # close
    min_ulp: int = 0               # close
    type: str = ""                 # MLIR type of the checked value
    op: str = ""                   # the check as written: "check.expect_eq_const", "@check.expect_close", ...
    line: int = 0                  # line of the check in its file

    def describe(self) -> str:
        extra = ""
        if self.kind == "almost_eq":
            extra = f" (tolerance {self.tolerance:g})"
        elif self.kind == "close":
            extra = f" (ULP in [{self.min_ulp}, {self.max_ulp}])"
        where = f" at line {self.line}" if self.line else ""
        return f"{self.op or self.kind}{where}{extra}"


@dataclass
class CorpusCase:
    id: str                         # "add.mlir:23:add_op_test_si4" or "file::name"
    file: str                       # path of the source file
    name: str                       # entry function (or module) name
    line: int = 0                   # line of the entry function in the file
    format: str = "interpret"       # "interpret" | "testdata"
    program_text: str = ""          # the rewritten module (public @main(), returns the checked values)
    checks: list[Check] = field(default_factory=list)
    ops: list[str] = field(default_factory=list)     # op names used ("stablehlo.add", "chlo.mulhi", ...)
    dtypes: list[str] = field(default_factory=list)  # element types seen in the program
    skip_reason: str = ""           # not a StableHLO semantics test (tool tests)
    unsupported_reason: str = ""    # a form this project cannot run yet (probes, ...)
    error: str = ""                 # the case is malformed: MLIR's diagnostics
    #: the entry takes arguments and there are no goldens: ``program_text`` is the program as
    #: written (its entry renamed @main), checked on drawn inputs (``case_results``' ``check``)
    takes_arguments: bool = False
    #: ``program_text`` parsed once into the oracle's IR (for the oracle and the judge)
    module: Any = field(default=None, repr=False, compare=False)

    @property
    def runnable(self) -> bool:
        return not (self.skip_reason or self.unsupported_reason or self.error)




def annotate(case: CorpusCase, rel: str) -> None:
    """Parse + verify the rewritten program with MLIR, once: keep the IR (``case.module``) and
    fill ops/dtypes, or set ``error``."""
    try:
        module = parse_module(case.program_text, filename=rel,
                              allow_unregistered="interpreter.run_parallel" in case.program_text)
    except MlirError as e:
        case.error = str(e)
        return
    except Exception as e:  # the IR reader does not know a construct: report, never a traceback
        case.error = f"{type(e).__name__}: {e}"
        return
    case.module = module
    case.ops, case.dtypes = ops_and_dtypes(module)


def ops_and_dtypes(module) -> tuple[list[str], list[str]]:
    """Op names (dialect ops; not func.*) and element types used by an oracle IR module."""
    ops, dtypes = set(), set()

    def note(t):
        if isinstance(t, TensorType):
            dtypes.add(str(t.element_type))
        elif hasattr(t, "types"):
            for u in t.types:
                note(u)

    for op in module.walk_ops():
        if not op.name.startswith("func."):
            ops.add(op.name)
        for v in (*op.operands, *op.results):
            note(v.type)
    for fn in module.functions:
        for v in fn.arguments:
            note(v.type)
        for t in fn.result_types:
            note(t)
    return sorted(ops), sorted(dtypes)


# ------------------------------------------------------------------ testdata format
