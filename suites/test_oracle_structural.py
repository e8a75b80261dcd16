"""Oracle tests for constant, iota, reshape, transpose, broadcast_in_dim, slice, concatenate.

Expected values come from the spec's Examples and hand computation, never from the oracle
itself (the official interpreter tests run in suites/test_interpret_corpus.py).  This module also
holds the generic generator checks the other ``test_oracle_*`` modules import
(``check_drawn_signatures``): every drawn Signature must print to MLIR that the StableHLO
verifier accepts, and the oracle must evaluate it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import oracle
from oracle import ir
from oracle.errors import OracleError
from oracle.types import ALL_ELEMENT_TYPES, TensorType, TupleType, element_type
from generators.drawing import Draw
from generators.ops import samplers_of
from generators.ops.structural import factorization



# ======================================================= generator checks (shared)

def signature_module(name: str, sig) -> ir.Module:
    """A module whose @main takes the signature's operands and returns its results."""
    from generators.programs import build_module
    return build_module(name, sig)


def random_value(rng: np.random.Generator, t: TensorType) -> np.ndarray:
    """Arbitrary bit patterns of ``t`` (NaN, inf, subnormals, everything)."""
    et = t.element_type
    shape = t.shape
    if et.is_bool:
        return rng.integers(0, 2, shape).astype(bool)
    if et.is_complex:
        out = np.empty(shape, dtype=et.dtype)
        out.real = random_value(rng, TensorType(shape, et.component))
        out.imag = random_value(rng, TensorType(shape, et.component))
        return out
    bits = rng.integers(0, 1 << min(et.bits, 63), shape, dtype=np.uint64, endpoint=False)
    if et.bits == 64:
        bits = bits | (rng.integers(0, 2, shape, dtype=np.uint64) << np.uint64(63))
    return bits.astype(et.storage_dtype).view(et.dtype)


def random_input(rng: np.random.Generator, t):
    """random_value for any operand type: tensors (a size for ``?`` dims), tuples, tokens."""
    if isinstance(t, TupleType):
        return tuple(random_input(rng, u) for u in t.types)
    if not isinstance(t, TensorType):
        return oracle.TOKEN_VALUE
    shape = tuple(int(rng.integers(0, 4)) if d is None else d for d in t.shape)
    return random_value(rng, TensorType(shape, t.element_type))


def check_drawn_signatures(op_name: str, max_examples: int = 40) -> list:
    """Draw one-op programs for every element type of the op (regions included): MLIR must
    accept the printed program, the result types must survive the round trip, and the oracle
    must evaluate it on the op's own inputs (its draw_inputs, else random bit patterns).
    Returns the drawn signatures."""
    info = oracle.lookup(op_name)
    hooks = samplers_of(op_name)
    assert info is not None and hooks.draw_signature is not None
    types = [element_type(n) for n in info.element_types]
    drawn = []

    @settings(max_examples=max_examples, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def run(data):
        et = data.draw(st.sampled_from(types))
        sig = hooks.draw_signature(Draw(data.draw), et)
        text = oracle.print_module(signature_module(op_name, sig))
        parsed = oracle.parse_module(text)  # raises MlirError if the verifier rejects it
        op_ = next(o for o in parsed.main.ops if o.name == op_name)
        assert [v.type for v in op_.results] == list(sig.result_types), text
        if hooks.draw_inputs is not None:
            inputs = list(hooks.draw_inputs(Draw(data.draw), sig))
        else:
            rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
            inputs = [random_input(rng, t) for t in sig.operand_types]
        outputs = oracle.evaluate(parsed, inputs)
        assert len(outputs) == len(sig.result_types)
        drawn.append(sig)
    run()
    return drawn


# ============================================================== helpers for tests

def run1(text: str, *inputs):
    """Evaluate a one-function module given as MLIR text."""
    module = oracle.parse_module(text)
    return oracle.evaluate(module, list(inputs))


def op_fn(op_text: str, arg_types: list[str], result_type: str) -> str:
    args = ", ".join(f"%arg{i}: {t}" for i, t in enumerate(arg_types))
    return f"func.func @main({args}) -> {result_type} {{\n  %0 = {op_text}\n  func.return %0 : {result_type}\n}}"


# ============================================================== spec examples

def test_spec_constant():
    (out,) = run1("""func.func @main() -> tensor<2x2xf32> {
  %output = "stablehlo.constant"() {value = dense<[[0.0, 1.0], [2.0, 3.0]]> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
  func.return %output : tensor<2x2xf32>
}""")
    assert out.dtype == np.float32 and out.tolist() == [[0.0, 1.0], [2.0, 3.0]]


@pytest.mark.parametrize("dim, expected", [
    (0, [[0] * 5, [1] * 5, [2] * 5, [3] * 5]),
    (1, [[0, 1, 2, 3, 4]] * 4),
])
def test_spec_iota(dim, expected):
    (out,) = run1(op_fn(f'"stablehlo.iota"() {{iota_dimension = {dim} : i64}} : () -> tensor<4x5xi32>', [],
                        "tensor<4x5xi32>"))
    assert out.dtype == np.int32 and out.tolist() == expected


def test_spec_reshape():
    x = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    (out,) = run1(op_fn('"stablehlo.reshape"(%arg0) : (tensor<2x3xi32>) -> tensor<3x2xi32>', ["tensor<2x3xi32>"],
                        "tensor<3x2xi32>"), x)
    assert out.tolist() == [[1, 2], [3, 4], [5, 6]]


def test_spec_transpose():
    x = np.array([[[1, 2], [3, 4], [5, 6]], [[7, 8], [9, 10], [11, 12]]], np.int32)
    (out,) = run1(op_fn('"stablehlo.transpose"(%arg0) {permutation = array<i64: 2, 1, 0>} : '
                        '(tensor<2x3x2xi32>) -> tensor<2x3x2xi32>', ["tensor<2x3x2xi32>"], "tensor<2x3x2xi32>"), x)
    assert out.tolist() == [[[1, 7], [3, 9], [5, 11]], [[2, 8], [4, 10], [6, 12]]]


def test_spec_broadcast_in_dim():
    x = np.array([[1, 2, 3]], np.int32)
    (out,) = run1(op_fn('"stablehlo.broadcast_in_dim"(%arg0) {broadcast_dimensions = array<i64: 2, 1>} : '
                        '(tensor<1x3xi32>) -> tensor<2x3x2xi32>', ["tensor<1x3xi32>"], "tensor<2x3x2xi32>"), x)
    assert out.tolist() == [[[1, 1], [2, 2], [3, 3]], [[1, 1], [2, 2], [3, 3]]]


def test_spec_slice():
    x = np.array([[0, 0, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]], np.int64)
    (out,) = run1(op_fn('"stablehlo.slice"(%arg0) {start_indices = array<i64: 1, 2>, limit_indices = array<i64: 3, 4>, '
                        'strides = array<i64: 1, 1>} : (tensor<3x4xi64>) -> tensor<2x2xi64>', ["tensor<3x4xi64>"],
                        "tensor<2x2xi64>"), x)
    assert out.tolist() == [[1, 1], [1, 1]]


def test_spec_concatenate():
    a = np.array([[1, 2], [3, 4], [5, 6]], np.int64)
    b = np.array([[7, 8]], np.int64)
    (out,) = run1(op_fn('"stablehlo.concatenate"(%arg0, %arg1) {dimension = 0 : i64} : '
                        '(tensor<3x2xi64>, tensor<1x2xi64>) -> tensor<4x2xi64>',
                        ["tensor<3x2xi64>", "tensor<1x2xi64>"], "tensor<4x2xi64>"), a, b)
    assert out.tolist() == [[1, 2], [3, 4], [5, 6], [7, 8]]


# ============================================================== hand-computed edges

def test_iota_every_element_type():
    for et in ALL_ELEMENT_TYPES:
        if et.is_bool:
            continue
        t = f"tensor<2x3x3x{et}>"
        (out,) = run1(op_fn(f'"stablehlo.iota"() {{iota_dimension = 2 : i64}} : () -> {t}', [], t))
        assert out.dtype == et.dtype and out.shape == (2, 3, 3)
        # E8M0 has no zero: 0 is its smallest value 2**-127 (as MLIR reads 0.0); 2 wraps to -2 in i2
        expected = {"f8E8M0FNU": [2.0**-127, 1, 2], "i2": [0, 1, -2]}.get(et.name, [0, 1, 2])
        for i, v in enumerate(expected):
            assert float(np.real(out[1, 2, i].astype(np.complex128 if et.is_complex else np.float64))) == v, et


def test_iota_rounds_large_indices_once():
    # 2049 is not representable in f16 (11 bits): ties to even -> 2048; 2051 -> 2052.
    t = "tensor<2052xf16>"
    (out,) = run1(op_fn(f'"stablehlo.iota"() {{iota_dimension = 0 : i64}} : () -> {t}', [], t))
    assert float(out[2049]) == 2048.0 and float(out[2051]) == 2052.0 and float(out[2050]) == 2050.0


def test_iota_i1_is_rejected():
    info = oracle.lookup("stablehlo.iota")
    assert "i1" not in info.element_types


def test_constant_keeps_nan_payload_and_negative_zero():
    (out,) = run1("""func.func @main() -> tensor<3xf32> {
  %0 = stablehlo.constant dense<[0x7FC00001, 0x80000000, 0xFF800000]> : tensor<3xf32>
  func.return %0 : tensor<3xf32>
}""")
    assert out.view(np.uint32).tolist() == [0x7FC00001, 0x80000000, 0xFF800000]


def test_reshape_zero_size_and_scalar():
    x = np.zeros((0, 3), np.float32)
    (out,) = run1(op_fn('"stablehlo.reshape"(%arg0) : (tensor<0x3xf32>) -> tensor<3x0x1xf32>', ["tensor<0x3xf32>"],
                        "tensor<3x0x1xf32>"), x)
    assert out.shape == (3, 0, 1)
    (out,) = run1(op_fn('"stablehlo.reshape"(%arg0) : (tensor<1x1xi4>) -> tensor<i4>', ["tensor<1x1xi4>"],
                        "tensor<i4>"), np.array([[-3]], dtype=element_type("i4").dtype))
    assert out.shape == () and int(out) == -3


def test_transpose_sub_byte_and_complex():
    x = np.arange(6).reshape(2, 3).astype(element_type("ui4").dtype)
    (out,) = run1(op_fn('"stablehlo.transpose"(%arg0) {permutation = array<i64: 1, 0>} : '
                        '(tensor<2x3xui4>) -> tensor<3x2xui4>', ["tensor<2x3xui4>"], "tensor<3x2xui4>"), x)
    assert out.astype(int).tolist() == [[0, 3], [1, 4], [2, 5]]
    c = np.array([[1 + 2j, 3 - 4j]], np.complex64)
    (out,) = run1(op_fn('"stablehlo.transpose"(%arg0) {permutation = array<i64: 1, 0>} : '
                        '(tensor<1x2xcomplex<f32>>) -> tensor<2x1xcomplex<f32>>',
                        ["tensor<1x2xcomplex<f32>>"], "tensor<2x1xcomplex<f32>>"), c)
    assert out.tolist() == [[1 + 2j], [3 - 4j]]


def test_broadcast_in_dim_scalar_and_size_one():
    (out,) = run1(op_fn('"stablehlo.broadcast_in_dim"(%arg0) {broadcast_dimensions = array<i64>} : '
                        '(tensor<f32>) -> tensor<2x2xf32>', ["tensor<f32>"], "tensor<2x2xf32>"), np.float32(-0.0))
    assert out.shape == (2, 2) and np.signbit(out).all()
    x = np.array([[10], [20]], np.int8)  # dims (1, 0): operand dim 0 -> result dim 1
    (out,) = run1(op_fn('"stablehlo.broadcast_in_dim"(%arg0) {broadcast_dimensions = array<i64: 1, 0>} : '
                        '(tensor<2x1xi8>) -> tensor<3x2xi8>', ["tensor<2x1xi8>"], "tensor<3x2xi8>"), x)
    assert out.tolist() == [[10, 20]] * 3


def test_broadcast_in_dim_runtime_mismatch_is_reported():
    text = op_fn('"stablehlo.broadcast_in_dim"(%arg0) {broadcast_dimensions = array<i64: 0>} : '
                 '(tensor<?xf32>) -> tensor<3xf32>', ["tensor<?xf32>"], "tensor<3xf32>")
    with pytest.raises(OracleError, match=r"\(C5\)"):
        run1(text, np.zeros(2, np.float32))
    (out,) = run1(text, np.array([7.0], np.float32))
    assert out.tolist() == [7.0, 7.0, 7.0]


def test_slice_strides_and_empty():
    x = np.arange(10, dtype=np.int16)
    (out,) = run1(op_fn('"stablehlo.slice"(%arg0) {start_indices = array<i64: 1>, limit_indices = array<i64: 10>, '
                        'strides = array<i64: 4>} : (tensor<10xi16>) -> tensor<3xi16>', ["tensor<10xi16>"],
                        "tensor<3xi16>"), x)
    assert out.tolist() == [1, 5, 9]
    (out,) = run1(op_fn('"stablehlo.slice"(%arg0) {start_indices = array<i64: 10>, limit_indices = array<i64: 10>, '
                        'strides = array<i64: 3>} : (tensor<10xi16>) -> tensor<0xi16>', ["tensor<10xi16>"],
                        "tensor<0xi16>"), x)
    assert out.shape == (0,)


def test_slice_dynamic_operand_out_of_bounds():
    text = op_fn('"stablehlo.slice"(%arg0) {start_indices = array<i64: 0>, limit_indices = array<i64: 4>, '
                 'strides = array<i64: 1>} : (tensor<?xf32>) -> tensor<4xf32>', ["tensor<?xf32>"], "tensor<4xf32>")
    with pytest.raises(OracleError, match=r"\(C3\)"):
        run1(text, np.zeros(3, np.float32))


def test_concatenate_variadic_with_empty_inputs():
    a = np.array([[1, 2]], np.uint64)
    b = np.zeros((0, 2), np.uint64)
    c = np.array([[2**64 - 1, 0], [5, 6]], np.uint64)
    (out,) = run1(op_fn('"stablehlo.concatenate"(%arg0, %arg1, %arg2) {dimension = 0 : i64} : '
                        '(tensor<1x2xui64>, tensor<0x2xui64>, tensor<2x2xui64>) -> tensor<3x2xui64>',
                        ["tensor<1x2xui64>", "tensor<0x2xui64>", "tensor<2x2xui64>"], "tensor<3x2xui64>"), a, b, c)
    assert out.tolist() == [[1, 2], [2**64 - 1, 0], [5, 6]]
    (out,) = run1(op_fn('"stablehlo.concatenate"(%arg0, %arg0) {dimension = 1 : i64} : '
                        '(tensor<1x2xui64>, tensor<1x2xui64>) -> tensor<1x4xui64>',
                        ["tensor<1x2xui64>"], "tensor<1x4xui64>"), a)
    assert out.tolist() == [[1, 2, 1, 2]]


def test_quantized_storage_values_move_unchanged():
    q = "tensor<2x!quant.uniform<i8:f32, 1.0:0>>"
    text = op_fn(f'"stablehlo.reverse"(%arg0) {{dimensions = array<i64: 0>}} : ({q}) -> {q}', [q], q)
    assert run1(text, np.array([-128, 127], np.int8))[0].tolist() == [127, -128]


# ============================================================== generators

@pytest.mark.parametrize("name", ["constant", "iota", "reshape", "transpose", "broadcast_in_dim", "slice",
                                  "concatenate"])
def test_drawn_signatures_are_valid_mlir(name):
    check_drawn_signatures(f"stablehlo.{name}", max_examples=30)


def test_reshape_factorization_keeps_size():
    @settings(max_examples=60, deadline=None, database=None)
    @given(st.data(), st.sampled_from([0, 1, 2, 6, 12, 60, 97, 625]))
    def run(data, n):
        shape = data.draw(st.composite(lambda draw: factorization(draw, n))())
        assert math.prod(shape) == n and len(shape) <= 4
    run()
