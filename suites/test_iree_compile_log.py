"""The IREE compile log (``SHLO_IREE_COMPILE_LOG``, adapters/iree.py): one line per compile
and per request, to account for a run's CPU.  Skipped when IREE is not installed; ~5 s."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest

HAS_IREE = importlib.util.find_spec("iree") is not None and importlib.util.find_spec("iree.runtime") is not None


def unary(op: str, t: str) -> str:
    return f"func.func @main(%a: {t}) -> {t} {{\n  %0 = stablehlo.{op} %a : {t}\n  return %0 : {t}\n}}\n"


#: A program IREE's compiler refuses (no lowering for an unknown custom call target).
CUSTOM_CALL = """func.func @main(%a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.custom_call @no_such_target(%a) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
"""


@pytest.mark.skipif(not HAS_IREE, reason="IREE is not installed (pip install -e '.[iree]')")
def test_each_compile_is_one_line_with_its_outcome(tmp_path, monkeypatch):
    from adapters import get_backend

    log = tmp_path / "compiles.jsonl"
    monkeypatch.setenv("SHLO_CONFORM_CACHE", str(tmp_path / "cache"))  # (read by each new worker)
    monkeypatch.setenv("SHLO_IREE_COMPILE_LOG", str(log))
    negate = unary("negate", "tensor<2xf32>")
    with get_backend("iree-llvm-cpu") as backend:
        assert backend.run(negate, [np.array([1, -2], np.float32)]).outputs[0].tolist() == [-1, 2]
        f6 = backend.run(unary("abs", "tensor<2xf6E2M3FN>"), [np.zeros(2, np.uint8)])
        assert f6.status == "rejected" and "no HAL element type" in f6.message  # (no compile: it cannot cross)
        assert backend.run(CUSTOM_CALL, [np.zeros(3, np.float32)]).status == "rejected"  # (by the compiler)
        backend.restart()  # a fresh worker finds the module in the disk cache
        assert backend.run(negate, [np.array([3, 0], np.float32)]).outputs[0].tolist() == [-3, 0]
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(line["via"], line["outcome"]) for line in lines] == [
        ("alone", "request"), ("alone", "compiled"), ("alone", "request"), ("alone", "request"),
        ("alone", "refused"), ("alone", "request"), ("alone", "cached")]
    assert lines[1]["programs"] == 1 and lines[1]["cpu"] > 0 and lines[1]["sha"] == lines[0]["members"][0]
    assert "failed to legalize operation 'stablehlo.custom_call'" in lines[4]["error"], lines[4]
