"""Oracle tests for fft (FFT, IFFT, RFFT, IRFFT).

Expected values: the spec's example (suites/test_spec_examples.py), DFTs of small integer
signals worked out by hand (exact), the interpreter corpus (fft.mlir), and the error bound
checked against numpy's float32 FFT (a real backend-precision FFT) in both directions.
"""

from __future__ import annotations

import numpy as np
import pytest

import oracle
from oracle.impl_defined import impl_defined_mask
from oracle.ops.fft import fft_error_bound
from oracle.types import TensorType, element_type

from .test_oracle_structural import check_drawn_signatures, op_fn, run1


def fft_text(in_t, out_t, kind, lengths):
    return op_fn(f'"stablehlo.fft"(%arg0) {{fft_type = #stablehlo<fft_type {kind}>, fft_length = '
                 f'array<i64: {", ".join(map(str, lengths))}>}} : ({in_t}) -> {out_t}', [in_t], out_t)


def test_fft_and_ifft_by_hand():
    # DFT of [1, 2, 3, 4]: sum = 10; X1 = 1 - 2i - 3 + 4i = -2 + 2i; X2 = 1 - 2 + 3 - 4 = -2; X3 = -2 - 2i
    x = np.array([1, 2, 3, 4], np.complex64)
    (out,) = run1(fft_text("tensor<4xcomplex<f32>>", "tensor<4xcomplex<f32>>", "FFT", [4]), x)
    np.testing.assert_array_equal(out, [10, -2 + 2j, -2, -2 - 2j])
    (back,) = run1(fft_text("tensor<4xcomplex<f32>>", "tensor<4xcomplex<f32>>", "IFFT", [4]), out)
    np.testing.assert_array_equal(back, x)


def test_rfft_and_irfft_by_hand():
    x = np.array([1, 2, 3, 4], np.float32)
    (out,) = run1(fft_text("tensor<4xf32>", "tensor<3xcomplex<f32>>", "RFFT", [4]), x)
    np.testing.assert_array_equal(out, [10, -2 + 2j, -2])
    (back,) = run1(fft_text("tensor<3xcomplex<f32>>", "tensor<4xf32>", "IRFFT", [4]), out)
    np.testing.assert_array_equal(back, x)
    # odd length 3: x_j = (Y0 + 2 Re(Y1 w^j)) / 3 with Y = [6, -1.5], cos(2 pi / 3) = -1/2:
    # x = [(6 - 3) / 3, (6 + 1.5) / 3, (6 + 1.5) / 3] = [1, 2.5, 2.5]
    (out,) = run1(fft_text("tensor<2xcomplex<f64>>", "tensor<3xf64>", "IRFFT", [3]), np.array([6, -1.5 + 0j]))
    np.testing.assert_allclose(out, [1, 2.5, 2.5], rtol=0, atol=4e-16)


def test_multi_dim_by_hand():
    # 2-D DFT of [[1, 2], [3, 4]]: [[10, -2], [-4, 0]]; RFFT keeps 2 // 2 + 1 = 2 columns
    x = np.array([[1, 2], [3, 4]], np.float64)
    (out,) = run1(fft_text("tensor<2x2xf64>", "tensor<2x2xcomplex<f64>>", "RFFT", [2, 2]), x)
    np.testing.assert_array_equal(out, [[10, -2], [-4, 0]])
    # only the last L dims are transformed: a batch of two 1-D transforms
    (out,) = run1(fft_text("tensor<2x2xf64>", "tensor<2x2xcomplex<f64>>", "RFFT", [2]), x)
    np.testing.assert_array_equal(out, [[3, -1], [7, -1]])
    (back,) = run1(fft_text("tensor<2x2xcomplex<f64>>", "tensor<2x2xf64>", "IRFFT", [2, 2]),
                   np.array([[10, -2], [-4, 0]], np.complex128))
    np.testing.assert_array_equal(back, x)


def test_empty_tensors():
    (out,) = run1(fft_text("tensor<3x0xf32>", "tensor<3x0xcomplex<f32>>", "RFFT", [3, 0]), np.zeros((3, 0), np.float32))
    assert out.shape == (3, 0)
    (out,) = run1(fft_text("tensor<0x4xcomplex<f64>>", "tensor<0x4xcomplex<f64>>", "FFT", [4]),
                  np.zeros((0, 4), np.complex128))
    assert out.shape == (0, 4)
    (out,) = run1(fft_text("tensor<0xcomplex<f32>>", "tensor<0xf32>", "IRFFT", [0]), np.zeros((0,), np.complex64))
    assert out.shape == (0,)


def test_constraint_errors():
    with pytest.raises(oracle.MlirError):  # the verifier already rejects C1
        oracle.parse_module(fft_text("tensor<4xcomplex<f32>>", "tensor<4xcomplex<f32>>", "FFT", [4, 1]))
    from oracle import ir
    from oracle.registry import Signature

    from .test_oracle_structural import signature_module
    f32, c64 = element_type("f32"), element_type("complex<f32>")
    sig = Signature((TensorType((5,), f32),), {"fft_type": ir.EnumAttr("fft_type", "RFFT"),
                                               "fft_length": ir.DenseArray("i64", (4,))},
                    (TensorType((3,), c64),))
    with pytest.raises(oracle.OracleError, match=r"\(C4\)"):
        oracle.evaluate(signature_module("stablehlo.fft", sig), [np.zeros(5, np.float32)])


def test_impl_defined_masks():
    c64 = element_type("complex<f32>")
    attrs = {"fft_type": "FFT", "fft_length": (2,)}
    x = np.array([[1, np.nan], [1, 2]], np.complex64)
    mask = impl_defined_mask("fft", [x], attrs, TensorType((2, 2), c64))
    np.testing.assert_array_equal(mask, [[True, True], [False, False]])  # only the block with the NaN
    # IRFFT: a complex DC element is no rfft of a real signal
    half = np.array([[1 + 1j, 2, 3], [1, 2 + 5j, 3]], np.complex64)
    mask = impl_defined_mask("fft", [half], {"fft_type": "IRFFT", "fft_length": (4,)},
                             TensorType((2, 4), element_type("f32")))
    np.testing.assert_array_equal(mask, [[True] * 4, [False] * 4])


@pytest.mark.parametrize("kind,lengths", [("FFT", (16,)), ("IFFT", (8, 6)), ("RFFT", (12,)), ("FFT", (4, 3, 5))])
def test_error_bound_holds_for_numpy_f32_and_fails_for_a_wrong_result(kind, lengths):
    rng = np.random.default_rng(3)
    shape = (3,) + lengths
    x = (rng.standard_normal(shape) + (1j * rng.standard_normal(shape) if kind != "RFFT" else 0))
    x = x.astype(np.complex64 if kind != "RFFT" else np.float32)
    in_t = f"tensor<{'x'.join(map(str, shape))}x{'complex<f32>' if kind != 'RFFT' else 'f32'}>"
    out_shape = shape[:-1] + ((shape[-1] // 2 + 1,) if kind == "RFFT" else (shape[-1],))
    out_t = f"tensor<{'x'.join(map(str, out_shape))}xcomplex<f32>>"
    module = oracle.parse_module(fft_text(in_t, out_t, kind, lengths))
    op_ = module.main.ops[0]
    (expected,) = oracle.evaluate(module, [x])
    (bound,) = fft_error_bound(op_, [x], [op_.results[0].type])
    axes = tuple(range(-len(lengths), 0))
    f32 = {"FFT": np.fft.fftn, "IFFT": np.fft.ifftn, "RFFT": np.fft.rfftn}[kind](x, axes=axes)
    assert f32.dtype == np.complex64  # numpy >= 2 transforms in single precision
    error = np.abs(f32.astype(np.complex128) - expected)
    assert (error <= bound).all(), (error / bound).max()
    assert (np.abs((expected + 3 * bound).astype(np.complex128) - expected) > bound).all()


def test_drawn_signatures_verify():
    check_drawn_signatures("stablehlo.fft", max_examples=30)
