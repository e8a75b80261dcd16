"""IREE's refusal batches (adapters/iree.py): programs of element types IREE refuses share a
module, and every error of the compiler goes to the program whose lines it names, so each
program gets the compiler's own refusal -- the errors it gets alone -- from a few compiles.
The IREE tests are skipped when IREE is not installed; about 10 s at 2 cores."""

from __future__ import annotations

import importlib.util
import re

import numpy as np
import pytest

from adapters.iree import diagnostics_by_program

HAS_IREE = importlib.util.find_spec("iree") is not None and importlib.util.find_spec("iree.runtime") is not None

#: A module of three programs starting at lines 2, 7 and 12 (adapters.batch.combine_mains).
MODULE_DIAGNOSTICS = """IREE compile: <stdin>:3:8: error: 'hal.element_type' op unsupported element type
  %0 = "stablehlo.abs"(%arg0)
       ^
<stdin>:3:8: note: see current operation
<stdin>:9:1: warning: epsilon is not exact
<unknown>:0: error: 'arith.convertf' op cast incompatible
<stdin>:14:8: error: unable to pack to bytes
<stdin>:14:8: note: here"""


def test_diagnostics_go_to_the_program_whose_lines_they_name():
    found = diagnostics_by_program(MODULE_DIAGNOSTICS, [2, 7, 12])
    assert sorted(found) == [0, 2]  # program 1 has a warning only; the <unknown> error is nobody's
    assert found[0] == ("IREE compile: <stdin>:3:8: error: 'hal.element_type' op unsupported element type\n"
                        "  %0 = \"stablehlo.abs\"(%arg0)\n       ^\n<stdin>:3:8: note: see current operation")
    assert found[2] == "IREE compile: <stdin>:14:8: error: unable to pack to bytes\n<stdin>:14:8: note: here"


def test_an_error_naming_two_programs_is_nobodys():
    text = "IREE compile: <stdin>:3:1: error: 'x' op refers to <stdin>:8:1"
    assert diagnostics_by_program(text, [2, 7]) == {}


def unary(op: str, t: str) -> str:
    return f"func.func @main(%a: {t}) -> {t} {{\n  %0 = stablehlo.{op} %a : {t}\n  return %0 : {t}\n}}\n"


def errors(message: str) -> list[str]:
    """The compiler's errors in a message, without their locations (a module's lines differ
    from one program's)."""
    return re.findall(r"error: (.*)", message)


#: Sorting i4 along dimension -1: IREE refuses the dimension (whole bytes: 3 x 4 x 4 bits).
SORT_LAST_I4 = """func.func @main(%a: tensor<3x4xi4>) -> tensor<3x4xi4> {
  %0 = "stablehlo.sort"(%a) ({
  ^bb0(%x: tensor<i4>, %y: tensor<i4>):
    %c = stablehlo.compare LT, %x, %y : (tensor<i4>, tensor<i4>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) {dimension = -1 : i64, is_stable = true} : (tensor<3x4xi4>) -> tensor<3x4xi4>
  return %0 : tensor<3x4xi4>
}
"""


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SHLO_CONFORM_CACHE", str(tmp_path / "cache"))  # (read by each new worker)


@pytest.mark.skipif(not HAS_IREE, reason="IREE is not installed (pip install -e '.[iree]')")
def test_types_that_cannot_cross_the_boundary_are_refused_without_a_compile(fresh_cache, tmp_path, monkeypatch):
    import json

    from adapters import get_backend

    log = tmp_path / "compiles.jsonl"
    monkeypatch.setenv("SHLO_IREE_COMPILE_LOG", str(log))
    # IREE's runtime has no HAL element type for these four: refused in a batch and alone alike,
    # and only the f32 programs reach the compiler (one batch)
    programs = [unary("abs", "tensor<4xf8E4M3>"), unary("negate", "tensor<2xf6E3M2FN>"),
                unary("abs", "tensor<3xf8E3M4>"), unary("negate", "tensor<f8E4M3B11FNUZ>"),
                unary("negate", "tensor<3xf32>"), unary("negate", "tensor<3xf32>")]
    input_sets = [[np.zeros(4, np.uint8)], [np.zeros(2, np.uint8)], [np.zeros(3, np.uint8)], [np.zeros((), np.uint8)],
                  [np.array([1, -2, 0.5], np.float32)], [np.array([3, 0, -1], np.float32)]]
    with get_backend("iree-llvm-cpu") as backend:
        batched = backend.run_batch(programs, input_sets)
        assert [r.status for r in batched] == ["rejected"] * 4 + ["ok", "ok"], batched
        assert batched[5].outputs[0].tolist() == [-3.0, 0.0, 1.0]  # hand-computed
        for program, inputs, b in zip(programs[:4], input_sets, batched):
            alone = backend.run(program, inputs)
            assert alone.status == "rejected" and alone.message == b.message, (b, alone)
            assert "cannot cross the function boundary (no HAL element type)" in b.message
    compiles = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(c["via"], c["outcome"]) for c in compiles if c["outcome"] != "request"] == [("batch", "compiled")]


@pytest.mark.skipif(not HAS_IREE, reason="IREE is not installed (pip install -e '.[iree]')")
def test_often_refused_sub_byte_programs_share_a_module_the_refused_ones_named(fresh_cache):
    """(and a sub-byte tensor that is not a whole number of bytes is refused before it)"""
    import ml_dtypes

    from adapters import get_backend

    # the sort along dimension -1 (spec sort (C4) allows it) fails the compiler's own verifier (a
    # compiler error); the others compile together; 3 x i4 is not a whole number of bytes: refused
    # before any compile
    programs = [unary("negate", "tensor<2xi4>"), SORT_LAST_I4, unary("not", "tensor<4xui2>"),
                unary("negate", "tensor<3xi4>")]
    input_sets = [[np.array([1, -3], ml_dtypes.int4)], [np.zeros((3, 4), ml_dtypes.int4)],
                  [np.array([0, 1, 2, 3], ml_dtypes.uint2)], [np.array([1, 2, 3], ml_dtypes.int4)]]
    with get_backend("iree-llvm-cpu") as backend:
        batched = backend.run_batch(programs, input_sets)
        assert [r.status for r in batched] == ["ok", "compiler-error", "ok", "rejected"], batched
        assert "'iree_linalg_ext.sort' op dimension" in batched[1].message
        assert "cannot cross the function boundary (not a whole number of bytes)" in batched[3].message
        assert batched[0].outputs[0].astype(int).tolist() == [-1, 3]  # hand-computed
        assert batched[2].outputs[0].astype(int).tolist() == [3, 2, 1, 0]
        assert backend.batch_stats["single_runs"] == 0 and backend.batch_stats["batches"] == 1, backend.batch_stats
        alone = backend.run(programs[1], input_sets[1])
        assert alone.status == "compiler-error" and errors(batched[1].message) == errors(alone.message), (batched[1], alone)


def test_what_cannot_cross_the_boundary():
    """The adapter's boundary rule against the compiler's refusals, probed by hand on IREE 3.13
    (tensor<i4>, 3 x i4, 1 x ui2, 5 x 3 x i2 and 3 x quantized i4 refused by
    'stream.tensor.sizeof'; 2 x i4 and 4 x ui2 compiled)."""
    from adapters.iree import boundary_problem

    for refused in ("tensor<i4>", "tensor<3xi4>", "tensor<1xui2>", "tensor<5x3xi2>",
                    "tensor<3x!quant.uniform<i4:f32, 5.000000e-01>>"):
        assert "not a whole number of bytes" in boundary_problem([refused], []), refused
    for crossing in ("tensor<2xi4>", "tensor<4xui2>", "tensor<3xi1>", "tensor<0xi4>", "tensor<3xf32>",
                     "tensor<?x3xi4>"):  # (a dynamic size is known at run time only: the compiler decides)
        assert boundary_problem([], [crossing]) is None, crossing
    assert "no HAL element type" in boundary_problem(["tensor<2xf32>"], ["tensor<2xf8E4M3>"])
