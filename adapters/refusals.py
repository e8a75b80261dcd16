"""Refusals are statements, compiler errors are bugs: what a backend's "did not take it" message says.

A backend that does not run a program says why.  A **refusal** is a statement about what the
backend takes: the compiler's "unsupported", "not implemented", "failed to legalize operation
'stablehlo.cholesky'", a linker without the libm symbol an f64 op needs (IREE's ``undefined
symbol: atan2``), a runtime's UNIMPLEMENTED, a type limit the adapter checks before compiling (an
element type that cannot cross @main's boundary).  It is ``rejected``: counted, never a failure.

An **internal error**, an assertion, ``LLVM ERROR``, or a verifier failure on IR the compiler built
itself, for a valid program, is not a statement about the program but a bug of the compiler (IREE
compiling ``chlo.acosh`` of a complex constant: "internal error: jit global source initialization
order invalid").  It is ``compiler-error``, a failure; a compiler whose process died is a
``crash`` (adapters/iree.py ``compiler_crashed``).

``RunResult`` reads every ``rejected`` message through ``is_compiler_error`` (adapters/base.py), so
each backend's refusals are classified in one place, whichever path refused the program.  The
markers are the ones the default runs' messages hold (docs/judging.md, "Statuses").
"""

from __future__ import annotations

import re

#: Markers of a compiler's own failure (matched anywhere in the message, case-sensitive as printed).
COMPILER_ERROR_MARKERS = re.compile("|".join((
    r"\binternal error\b",                 # MLIR / IREE: "error: internal error: ..."
    r"\bLLVM ERROR\b",                     # report_fatal_error
    r"\bAssertion `.*' failed",            # a C/C++ assert that printed but did not kill the process
    r"\bUNREACHABLE executed\b",           # llvm_unreachable
    r"\bINTERNAL: ",                       # XLA's status code for its own errors (absl::StatusCode::kInternal)
    r"\bRET_CHECK failure\b",              # XLA's internal checks
    r"\bInternalTorchDynamoError\b",       # dynamo failing on its own, not refusing to trace
    r"\bLoweringException\b",              # inductor failing to lower a graph it accepted
    r"\bCppCompileError\b",                # inductor's generated C++ does not compile
    r"\bfailed to verify\b.*\bafter\b",    # a pass left IR that does not verify
    # a verifier failure of an op of the compiler's own dialects (the program holds stablehlo, chlo,
    # func ops only): IR the compiler built itself does not verify (IREE vmvx: "'util.buffer.load'
    # op result #0 must be index or integer or floating-point, but got 'complex<f32>'")
    r"error: '(?!stablehlo\.|chlo\.|func\.|mhlo\.|sdy\.)\w+\.[\w.]+' op (?!.*explicitly marked illegal)",
)))


def is_compiler_error(message: str) -> bool:
    """Whether a backend's message about a program it did not run reports its compiler's own
    failure (``COMPILER_ERROR_MARKERS``) rather than a refusal."""
    return bool(COMPILER_ERROR_MARKERS.search(message or ""))
