"""Oracle tests for pad, dynamic_pad, reverse, dynamic_slice and dynamic_update_slice.

Expected values come from the spec's Examples and from hand computation (the official
interpreter tests run in suites/test_interpret_corpus.py).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import oracle
from generators.programs import build_module
from oracle.errors import OracleError
from oracle.types import element_type
from suites.test_oracle_structural import check_drawn_signatures, op_fn, run1
from generators.drawing import Draw
from generators.ops import samplers_of


def f32_bits(bits):
    return np.array(bits, np.uint32).view(np.float32)


# ====================================================================== spec examples

def test_spec_pad():
    x = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    (out,) = run1(op_fn('"stablehlo.pad"(%arg0, %arg1) {edge_padding_low = array<i64: 0, 1>, '
                        'edge_padding_high = array<i64: 2, 1>, interior_padding = array<i64: 1, 2>} : '
                        '(tensor<2x3xi32>, tensor<i32>) -> tensor<5x9xi32>', ["tensor<2x3xi32>", "tensor<i32>"],
                        "tensor<5x9xi32>"), x, np.int32(0))
    assert out.tolist() == [[0, 1, 0, 0, 2, 0, 0, 3, 0], [0] * 9, [0, 4, 0, 0, 5, 0, 0, 6, 0], [0] * 9, [0] * 9]


def test_spec_dynamic_pad():
    x = np.array([[1, 2, 3], [4, 5, 6]], np.int64)
    text = op_fn('"stablehlo.dynamic_pad"(%arg0, %arg1, %arg2, %arg3, %arg4) : (tensor<2x3xi64>, tensor<i64>, '
                 'tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<5x9xi64>',
                 ["tensor<2x3xi64>", "tensor<i64>", "tensor<2xi64>", "tensor<2xi64>", "tensor<2xi64>"],
                 "tensor<5x9xi64>")
    (out,) = run1(text, x, np.int64(0), np.array([0, 1]), np.array([2, 1]), np.array([1, 2]))
    assert out.tolist() == [[0, 1, 0, 0, 2, 0, 0, 3, 0], [0] * 9, [0, 4, 0, 0, 5, 0, 0, 6, 0], [0] * 9, [0] * 9]


def test_spec_reverse():
    x = np.array([[1, 2], [3, 4], [5, 6]], np.int32)
    (out,) = run1(op_fn('"stablehlo.reverse"(%arg0) {dimensions = array<i64: 1>} : (tensor<3x2xi32>) -> '
                        'tensor<3x2xi32>', ["tensor<3x2xi32>"], "tensor<3x2xi32>"), x)
    assert out.tolist() == [[2, 1], [4, 3], [6, 5]]


def _dynamic_slice_text(shape, sizes, index_type="i64", et="i32"):
    t = f"tensor<{'x'.join(map(str, shape))}x{et}>" if shape else f"tensor<{et}>"
    r = f"tensor<{'x'.join(map(str, sizes))}x{et}>" if sizes else f"tensor<{et}>"
    idx = [f"tensor<{index_type}>"] * len(shape)
    args = ", ".join(f"%arg{i + 1}" for i in range(len(shape)))
    return op_fn(f'"stablehlo.dynamic_slice"(%arg0{", " if args else ""}{args}) '
                 f'{{slice_sizes = array<i64{": " if sizes else ""}{", ".join(map(str, sizes))}>}} : '
                 f'({", ".join([t] + idx)}) -> {r}', [t] + idx, r)


def test_spec_dynamic_slice():
    x = np.array([[0, 0, 1, 1], [0, 0, 1, 1], [0, 0, 0, 0], [0, 0, 0, 0]], np.int32)
    (out,) = run1(_dynamic_slice_text((4, 4), (2, 2)), x, np.int64(-1), np.int64(3))
    assert out.tolist() == [[1, 1], [1, 1]]


def _dus_text(shape, update, index_type="i64", et="i32"):
    def t(s):
        return f"tensor<{'x'.join(map(str, s))}x{et}>" if s else f"tensor<{et}>"
    idx = [f"tensor<{index_type}>"] * len(shape)
    args = "".join(f", %arg{i + 2}" for i in range(len(shape)))
    return op_fn(f'"stablehlo.dynamic_update_slice"(%arg0, %arg1{args}) : ({", ".join([t(shape), t(update)] + idx)})'
                 f' -> {t(shape)}', [t(shape), t(update)] + idx, t(shape))


def test_spec_dynamic_update_slice():
    x = np.array([[1, 1, 0, 0], [1, 1, 0, 0], [1, 1, 1, 1], [1, 1, 1, 1]], np.int32)
    (out,) = run1(_dus_text((4, 4), (2, 2)), x, np.ones((2, 2), np.int32), np.int64(-1), np.int64(3))
    assert out.tolist() == [[1] * 4] * 4


# ================================================================ hand-computed edges

def _pad_text(n, low, high, interior, out, et="i32"):
    return op_fn(f'"stablehlo.pad"(%arg0, %arg1) {{edge_padding_low = array<i64: {low}>, edge_padding_high = '
                 f'array<i64: {high}>, interior_padding = array<i64: {interior}>}} : (tensor<{n}x{et}>, tensor<{et}>)'
                 f' -> tensor<{out}x{et}>', [f"tensor<{n}x{et}>", f"tensor<{et}>"], f"tensor<{out}x{et}>")


@pytest.mark.parametrize("n, low, high, interior, expected", [
    # negative edge padding removes elements of the interior-padded operand [1 0 2 0 3 0 4 0 5]
    (5, -2, -1, 1, [2, 9, 3, 9, 4, 9]),
    (5, -3, 0, 1, [9, 3, 9, 4, 9, 5]),
    (2, -5, 7, 0, [9, 9, 9, 9]),          # everything removed, then padded again
    (3, 1, -4, 0, []),                     # an empty result
    (0, 1, 1, 2, [9, 9]),                  # empty operand: no interior padding (max(n - 1, 0))
    (1, 0, 0, 3, [1]),
])
def test_pad_negative_and_interior(n, low, high, interior, expected):
    x = np.arange(1, n + 1, dtype=np.int32)
    (out,) = run1(_pad_text(n, low, high, interior, len(expected)), x, np.int32(9))
    assert out.tolist() == expected


def test_pad_keeps_bits_rank0_and_i4():
    x = f32_bits([0x7FC00001, 0x80000000])  # a NaN payload and -0
    (out,) = run1(_pad_text(2, 1, 0, 1, 4, "f32"), x, f32_bits(0xFF800001).reshape(()))
    assert out.view(np.uint32).tolist() == [0xFF800001, 0x7FC00001, 0xFF800001, 0x80000000]
    (out,) = run1(op_fn('"stablehlo.pad"(%arg0, %arg1) {edge_padding_low = array<i64>, edge_padding_high = '
                        'array<i64>, interior_padding = array<i64>} : (tensor<i4>, tensor<i4>) -> tensor<i4>',
                        ["tensor<i4>", "tensor<i4>"], "tensor<i4>"),
                  np.array(-8, element_type("i4").dtype), np.array(3, element_type("i4").dtype))
    assert int(out) == -8


def test_dynamic_pad_runtime_constraints():
    text = op_fn('"stablehlo.dynamic_pad"(%arg0, %arg1, %arg2, %arg3, %arg4) : (tensor<3xi32>, tensor<i32>, '
                 'tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<?xi32>',
                 ["tensor<3xi32>", "tensor<i32>", "tensor<1xi32>", "tensor<1xi32>", "tensor<1xi32>"], "tensor<?xi32>")
    x = np.array([1, 2, 3], np.int32)
    (out,) = run1(text, x, np.int32(0), np.array([-1], np.int32), np.array([2], np.int32), np.array([1], np.int32))
    assert out.tolist() == [0, 2, 0, 3, 0, 0]  # [1 0 2 0 3] less one low element, two more high
    with pytest.raises(OracleError, match=r"\(C3\)"):
        run1(text, x, np.int32(0), np.array([0], np.int32), np.array([0], np.int32), np.array([-1], np.int32))
    with pytest.raises(OracleError, match=r"\(C4\)"):
        run1(text, x, np.int32(0), np.array([-9], np.int32), np.array([0], np.int32), np.array([0], np.int32))


def test_reverse_several_dims_empty_and_rank0():
    x = np.arange(24, dtype=np.int16).reshape(2, 3, 4)
    (out,) = run1(op_fn('"stablehlo.reverse"(%arg0) {dimensions = array<i64: 2, 0>} : (tensor<2x3x4xi16>) -> '
                        'tensor<2x3x4xi16>', ["tensor<2x3x4xi16>"], "tensor<2x3x4xi16>"), x)
    assert out[0, 1, 0] == x[1, 1, 3] and out[1, 2, 3] == x[0, 2, 0] and out.flags.c_contiguous
    (out,) = run1(op_fn('"stablehlo.reverse"(%arg0) {dimensions = array<i64: 0>} : (tensor<0x2xf32>) -> '
                        'tensor<0x2xf32>', ["tensor<0x2xf32>"], "tensor<0x2xf32>"), np.zeros((0, 2), np.float32))
    assert out.shape == (0, 2)
    (out,) = run1(op_fn('"stablehlo.reverse"(%arg0) {dimensions = array<i64>} : (tensor<f32>) -> tensor<f32>',
                        ["tensor<f32>"], "tensor<f32>"), np.float32(2.5))
    assert float(out) == 2.5


@pytest.mark.parametrize("index_type, starts, expected_origin", [
    ("i64", (-100, 100), (0, 2)),                   # clamped to [0, shape - slice_sizes]
    ("i8", (-128, 127), (0, 2)),
    ("ui64", (2 ** 64 - 1, 1), (2, 1)),             # the largest ui64 is not read as -1
    ("i4", (-8, 7), (0, 2)),
    ("ui8", (1, 2), (1, 2)),
])
def test_dynamic_slice_clamps_start_indices(index_type, starts, expected_origin):
    x = np.arange(20, dtype=np.int32).reshape(4, 5)
    dtype = element_type(index_type).dtype
    (out,) = run1(_dynamic_slice_text((4, 5), (2, 3), index_type), x, *[np.array(s).astype(dtype) for s in starts])
    r, c = expected_origin
    np.testing.assert_array_equal(out, x[r:r + 2, c:c + 3])


def test_dynamic_slice_empty_and_rank0():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    (out,) = run1(_dynamic_slice_text((2, 3), (0, 3), et="f32"), x, np.int64(5), np.int64(-5))
    assert out.shape == (0, 3)
    (out,) = run1(_dynamic_slice_text((), (), et="f32"), np.float32(4))
    assert float(out) == 4


def test_dynamic_update_slice_clamps_and_keeps_operand():
    x = np.zeros((3, 4), np.int32)
    update = np.array([[1, 2], [3, 4]], np.int32)
    (out,) = run1(_dus_text((3, 4), (2, 2), "ui32"), x, update, np.uint32(7), np.uint32(2 ** 32 - 1))
    assert out.tolist() == [[0, 0, 0, 0], [0, 0, 1, 2], [0, 0, 3, 4]]
    assert not x.any()  # the operand is not modified
    (out,) = run1(_dus_text((3, 4), (0, 2)), x, np.zeros((0, 2), np.int32), np.int64(1), np.int64(1))
    assert not out.any()
    (out,) = run1(_dus_text((), ()), np.int32(1), np.int32(5))
    assert int(out) == 5


# ======================================================================== generators

@pytest.mark.parametrize("name", ["pad", "reverse", "dynamic_slice", "dynamic_update_slice"])
def test_drawn_signatures_verify_and_evaluate(name):
    check_drawn_signatures(f"stablehlo.{name}", max_examples=25)


def drawn_cases(name: str, max_examples: int, check=None):
    """Draw signatures and inputs (the op's draw_inputs); MLIR must verify every program and the
    oracle evaluate it; ``check(sig, inputs, outputs)`` collects what the cases reach."""
    info = oracle.lookup(f"stablehlo.{name}")
    hooks = samplers_of(info)
    types = [element_type(n) for n in info.element_types]

    @settings(max_examples=max_examples, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def run(data):
        sig = hooks.draw_signature(Draw(data.draw), data.draw(st.sampled_from(types)))
        parsed = oracle.parse_module(oracle.print_module(build_module(info.name, sig)))
        inputs = hooks.draw_inputs(Draw(data.draw), sig) if hooks.draw_inputs else None
        if inputs is not None:
            outputs = oracle.evaluate(parsed, inputs)
            if check:
                check(sig, inputs, outputs)
        elif check:
            check(sig, None, None)
    run()


def test_dynamic_pad_generator():
    drawn_cases("dynamic_pad", 25)


def test_generators_reach_the_edges():
    seen = set()

    def pads(sig, inputs, outputs):
        low, high = sig.attributes["edge_padding_low"].value, sig.attributes["edge_padding_high"].value
        seen.update({"negative" for v in low + high if v < 0})
        seen.update({"interior" for v in sig.attributes["interior_padding"].value if v > 0})
        seen.update({"empty" for t in sig.operand_types[:1] if 0 in t.shape})
        seen.update({"rank0" for t in sig.operand_types[:1] if t.rank == 0})
    drawn_cases("pad", 60, pads)
    assert seen >= {"negative", "interior", "empty", "rank0"}, seen

    clamped = set()

    def starts(sig, inputs, outputs):
        for s, n, k in zip(inputs[1:], sig.operand_types[0].shape, sig.result_types[0].shape):
            v = int(s)
            clamped.add("negative" if v < 0 else "past the end" if v > n - k else "inside")
    drawn_cases("dynamic_slice", 60, starts)
    assert clamped == {"negative", "past the end", "inside"}, clamped
