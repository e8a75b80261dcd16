"""IREE compiles programs with dynamic ops in batches (adapters/iree.py ``batchable``):
adapters.batch keeps them out of shared modules for other compilers, but IREE compiles most
of them (a cold default run compiled 303 alone, 0.32 s CPU each).  Skipped when IREE is not
installed; ~5 s."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

HAS_IREE = importlib.util.find_spec("iree") is not None and importlib.util.find_spec("iree.runtime") is not None

DYNAMIC_IOTA = """func.func @main(%s: tensor<1xi64>) -> tensor<4xi32> {
  %0 = stablehlo.dynamic_iota %s, dim = 0 : (tensor<1xi64>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
"""
NEGATE = """func.func @main(%a: tensor<2xi32>) -> tensor<2xi32> {
  %0 = stablehlo.negate %a : tensor<2xi32>
  return %0 : tensor<2xi32>
}
"""


@pytest.mark.skipif(not HAS_IREE, reason="IREE is not installed (pip install -e '.[iree]')")
def test_a_dynamic_op_shares_a_module(tmp_path, monkeypatch):
    from adapters import get_backend

    monkeypatch.setenv("SHLO_CONFORM_CACHE", str(tmp_path / "cache"))  # (read by each new worker)
    with get_backend("iree-llvm-cpu") as backend:
        assert backend.batchable(DYNAMIC_IOTA)
        batched = backend.run_batch([DYNAMIC_IOTA, NEGATE], [[np.array([4], np.int64)], [np.array([5, -7], np.int32)]])
        assert [r.status for r in batched] == ["ok", "ok"], batched
        assert batched[0].outputs[0].tolist() == [0, 1, 2, 3] and batched[1].outputs[0].tolist() == [-5, 7]
        assert backend.batch_stats["batches"] == 1 and backend.batch_stats["single_runs"] == 0, backend.batch_stats
