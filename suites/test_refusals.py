"""A backend's ``rejected`` needs a refusal; its compiler failing on its own is ``compiler-error``,
a failure (adapters/refusals.py).  The messages are the default runs' own."""

from __future__ import annotations

import importlib.util

import pytest

from adapters.base import GridResult, RunResult, RunStatus
from adapters.refusals import is_compiler_error
from judge.known_deviations import known_deviation
from judge.status import FAILING, Status, case_status

#: Refusals, one per message group of the default runs (shortened where long).
REFUSALS = (
    "IREE adapter: argument #0 of type tensor<3xf4E2M1FN> cannot cross the function boundary (no HAL element type)",
    "IREE adapter: argument #0 of type tensor<5xi2> cannot cross the function boundary (not a whole number of bytes)",
    "backend iree-llvm-cpu cannot run a process grid (2 x 1)",
    "IREE runtime (UNIMPLEMENTED): Error invoking function: c/runtime/src/iree/hal/drivers/local_sync/sync_device.c:"
    "120: UNIMPLEMENTED; collectives not implemented",
    "IREE compile: iree-lld: error: undefined symbol: atan2",
    "IREE compile: <stdin>:3:10: error: failed to legalize operation 'stablehlo.cholesky' that was explicitly "
    "marked illegal: %0 = \"stablehlo.cholesky\"(%arg0) <{lower = true}> : (tensor<3x3xf32>) -> tensor<3x3xf32>",
    "IREE compile: <stdin>:2:8: error: failed to legalize operation 'math.absf' that was explicitly marked "
    "illegal: %5 = \"math.absf\"(%4) <{fastmath = #arith.fastmath<none>}> : (vector<4xf8E4M3FN>) -> vector<4xf8E4M3FN>",
    "IREE compile: <stdin>:3:12: warning: Could not convert batch_norm epsilon to target fp type: opStatus = 24",
    "JaxRuntimeError: INVALID_ARGUMENT: Invalid XLA PrimitiveType: 35 (F6E3M2FN)",
    "quant-to-math lowering failed: MLIR: loc(\"-\":3:12): failed to legalize operation 'stablehlo.sort' that was "
    "explicitly marked illegal",
    "torch eager: RuntimeError: \"lgamma_vml_cpu\" not implemented for 'Half'",
    "torch.compile (inductor) refused the program: Unsupported: Attempt to trace generator",
)
#: The compiler's own failures.
COMPILER_ERRORS = (
    "IREE compile: <stdin>:3:8: error: internal error: jit global source initialization order invalid: global "
    "\"__hoisted_tensor_2xf32_0\" has no value",
    "IREE compile: <stdin>:2:8: error: 'util.buffer.load' op result #0 must be index or integer or floating-point, "
    "but got 'complex<f32>'",
    "LLVM ERROR: Incompatible index and shape found while flattening index",
    "JaxRuntimeError: INTERNAL: Inputs must have the same shape",
    "JaxRuntimeError: INTERNAL: RET_CHECK failure (external/xla/xla/backends/cpu/codegen/fusion_compiler.cc:546) "
    "llvm_module != nullptr Failed to translate module to LLVM IR.",
    "python: /llvm/lib/IR/Type.cpp:12: Assertion `isa<FloatType>(this) && \"not a float\"' failed.",
    "torch.compile (inductor) refused the program: BackendCompilerFailed: backend='inductor' raised:\n"
    "LoweringException: AssertionError: index out of range",
)


@pytest.mark.parametrize("message", REFUSALS)
def test_a_refusal_stays_rejected(message):
    assert not is_compiler_error(message)
    assert RunResult(RunStatus.REJECTED, None, message).status == RunStatus.REJECTED


@pytest.mark.parametrize("message", COMPILER_ERRORS)
def test_a_compiler_failing_on_its_own_is_a_compiler_error(message):
    assert is_compiler_error(message)
    assert RunResult(RunStatus.REJECTED, None, message).status == RunStatus.COMPILER_ERROR
    assert GridResult(RunStatus.REJECTED, None, message).status == RunStatus.COMPILER_ERROR
    # a run that did run, or died, keeps its status whatever its message says
    assert RunResult(RunStatus.CRASH, None, message).status == RunStatus.CRASH


def test_compiler_error_is_a_failing_case_status_and_deviations_may_list_it():
    status = case_status("compiler-error")
    assert status == Status.COMPILER_ERROR == RunStatus.COMPILER_ERROR and status in FAILING
    assert "internal error" in status.meaning
    entry = known_deviation("iree-llvm-cpu", "chlo.acosh", "complex<f32>", "compiler-error")
    assert entry is not None and "jit global source initialization order invalid" in entry.reason
    assert known_deviation("iree-llvm-cpu", "chlo.acosh", "complex<f32>", "rejected") is None


ACOSH_OF_A_CONSTANT = """func.func @main() -> tensor<2xcomplex<f32>> {
  %c = stablehlo.constant dense<[(1.0,2.0),(0.5,-1.0)]> : tensor<2xcomplex<f32>>
  %r = chlo.acosh %c : tensor<2xcomplex<f32>> -> tensor<2xcomplex<f32>>
  return %r : tensor<2xcomplex<f32>>
}"""


@pytest.mark.skipif(importlib.util.find_spec("iree") is None, reason="IREE's compiler is not installed")
def test_iree_acosh_of_a_complex_constant_is_a_compiler_error_not_a_refusal():
    from adapters.registry import get_backend
    from conformance.run import check_case
    from generators.programs import Case

    backend = get_backend("iree-llvm-cpu")
    try:
        result = check_case(Case.written("acosh-constant", ACOSH_OF_A_CONSTANT, "chlo.acosh", ("complex<f32>",), []),
                            backend)
    finally:
        backend.close()
    assert result.status == "compiler-error", result.message
    assert "internal error: jit global source initialization order invalid" in result.message
    assert result.deviation  # a listed deviation of IREE, with its reason
