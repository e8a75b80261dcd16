"""iree-compile's crashes are crashes, not refusals (adapters/iree.py ``compiler_crashed``).

Seen in the default run: iree-compile caught a SIGSEGV in
DispatchCreation::getBitcastRequiredType (a select_and_scatter of f4E2M1FN in a batch),
printed LLVM's crash report and exited with a positive code, and the adapter called it
``rejected``: a compiler crash hidden as a refusal (135 such modules in one campaign's cache)."""

from __future__ import annotations

import pytest

pytest.importorskip("iree.compiler")

from adapters.iree import compiler_crashed  # noqa: E402

# (the head of the real report, shortened)
CRASH = """IREE compile: <stdin>:3:10: warning: reads uninitialized values from an operand produced by a tensor.empty op.
    %0 = "stablehlo.select_and_scatter"(%arg0, %arg1, %arg2) (
Please report issues to https://github.com/iree-org/iree/issues and include the crash backtrace.
Stack dump:
0.	Program arguments: iree-compile - --iree-input-type=stablehlo
 #4 0x00007f63fb7b3651 mlir::iree_compiler::DispatchCreation::getBitcastRequiredType(mlir::Builder&)
"""
REFUSAL = """IREE compile: <stdin>:2:8: error: failed to legalize operation 'stablehlo.select_and_scatter' that was
explicitly marked illegal"""


def test_a_crash_report_is_a_crash_whatever_the_exit_code():
    assert compiler_crashed(1, CRASH)
    assert compiler_crashed(None, CRASH)


def test_a_signal_is_a_crash_and_a_diagnostic_is_a_refusal():
    assert compiler_crashed(-11, REFUSAL)
    assert not compiler_crashed(1, REFUSAL)
    assert not compiler_crashed(1, REFUSAL + "\nnote: see the stack dump of the pass pipeline")
