"""Quantized programs on IREE (adapters/iree.py): IREE lowers quantized types to their storage
integers, so quantized arguments and results cross the function boundary as those integers,
alone and in a batch.  Skipped when IREE is not installed; about 10 s at 2 cores."""

from __future__ import annotations

import importlib.util

import ml_dtypes
import numpy as np
import pytest

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("iree") is None or importlib.util.find_spec("iree.runtime") is None,
    reason="IREE is not installed (pip install -e '.[iree]')")

I8 = "tensor<3x!quant.uniform<i8:f32, 0.5>>"
NEGATE_I8 = f"func.func @main(%a: {I8}) -> {I8} {{\n  %0 = stablehlo.negate %a : {I8}\n  return %0 : {I8}\n}}\n"
I4 = "tensor<4x!quant.uniform<i4:f32, 0.5:-1>>"
ADD_I4 = (f"func.func @main(%a: {I4}, %b: {I4}) -> {I4} {{\n  %0 = stablehlo.add %a, %b : {I4}\n"
          f"  return %0 : {I4}\n}}\n")
ADD_F32 = ("func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {\n"
           "  %0 = stablehlo.add %a, %b : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n")


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SHLO_CONFORM_CACHE", str(tmp_path / "cache"))  # (read by each new worker)


@pytest.mark.parametrize("name", ["iree-llvm-cpu", "iree-vmvx"])
def test_quantized_values_cross_as_their_storage_integers(name, fresh_cache):
    from adapters import get_backend

    with get_backend(name) as backend:
        # storage [1, -2, 3] at scale 0.5 is [0.5, -1, 1.5]; negated, [-0.5, 1, -1.5]: storage [-1, 2, -3]
        r = backend.run(NEGATE_I8, [np.array([1, -2, 3], np.int8)])
        assert r.ok, r
        assert r.outputs[0].dtype == np.int8 and r.outputs[0].tolist() == [-1, 2, -3]
        # i4, zero point -1: (s + 1) / 2 is [1, -0.5, 2, 0.5] plus 1 is [2, 0.5, 3, 1.5]: storage 2v - 1
        a, b = np.array([1, -2, 3, 0], ml_dtypes.int4), np.array([1, 1, 1, 1], ml_dtypes.int4)
        batched = backend.run_batch([ADD_I4, ADD_F32, NEGATE_I8],
                                    [[a, b], [np.ones(2, np.float32)] * 2, [np.array([0, 127, -128], np.int8)]])
        assert [x.status for x in batched] == ["ok"] * 3, batched
        assert batched[0].outputs[0].astype(int).tolist() == [3, 0, 5, 2]
        assert batched[1].outputs[0].tolist() == [2.0, 2.0]
        # -(-128 * 0.5) = 64 is 128 in storage: clamped to the storage maximum 127 (spec uniform_quantize)
        assert batched[2].outputs[0].tolist() == [0, -127, 127]
