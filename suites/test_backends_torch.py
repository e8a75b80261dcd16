"""PyTorch backends (torch-eager, torch-inductor): the IR -> torch lowering checked against
hand-computed answers (spec semantics: gather, pad, shifts, rounding, bitcasts, reductions),
rejections with their reason (no lowering, no torch dtype, a dtype torch's eager kernels
lack), the bit views of bf16 / f8, and a small differential sample against the oracle.

Skipped when torch is not installed (``pip install -e '.[torch]'``).  The lowering tests run
the engine in-process (eager, no worker); inductor compiles a handful of programs (~1 s each
after a one-time warm-up that inductor caches on disk).
"""

from __future__ import annotations

import json

import ml_dtypes
import numpy as np
import pytest

pytest.importorskip("torch")

from adapters import get_backend  # noqa: E402
from adapters.base import Rejected  # noqa: E402
from adapters.torch_backend import TorchEngine  # noqa: E402
from conformance.run import plan, run_differential  # noqa: E402
from judge.explain import deviation_for_case  # noqa: E402
from judge.known_deviations import known_deviation  # noqa: E402
from judge.status import FAILING  # noqa: E402
from reports.results import summarize  # noqa: E402
from suites.test_adapters import add_mul_program, assert_same, case_arrays  # noqa: E402

NAMES = ("torch-eager", "torch-inductor")
_backends: dict = {}
_eager = TorchEngine("eager")


@pytest.fixture(scope="module", autouse=True)
def _close_backends():
    yield
    for b in _backends.values():
        b.close()
    _backends.clear()


def backend(name):
    if name not in _backends:
        _backends[name] = get_backend(name)
        ok, why = _backends[name].available()
        assert ok, why
    return _backends[name]


def run_eager(program: str, *inputs):
    """The lowering on torch eager, in this process (Rejected propagates)."""
    return _eager.execute(_eager.prepare(program), list(inputs))


def one_op(body: str, args: list[str], results: list[str]) -> str:
    params = ", ".join(f"%a{i}: {t}" for i, t in enumerate(args))
    return (f"func.func public @main({params}) -> ({', '.join(results)}) {{\n{body}\n"
            f"  return %r : {', '.join(results)}\n}}\n")


# ------------------------------------------------------------------ transfer and statuses

# eager torch has no arithmetic on ui16/ui32/ui64 or the float8 types; inductor generates its own code
EAGER_REFUSES = {"ui64", "f8E4M3FN", "f8E5M2"}
NO_TORCH_DTYPE = {"i4", "i2", "ui4", "f4E2M1FN"}


@pytest.mark.parametrize("type_name", ["f32", "i32", "ui8", "bf16", "i1", "complex<f32>", "f64", "i64", "ui64",
                                       "f8E4M3FN", "f8E5M2", "i4", "f4E2M1FN"])
def test_add_multiply_eager(type_name):
    a, b, s, p = case_arrays(type_name)
    try:
        outputs = run_eager(add_mul_program(type_name), a, b)
    except Rejected as e:
        if type_name in NO_TORCH_DTYPE:
            assert "has no torch dtype" in str(e)
        else:
            assert type_name in EAGER_REFUSES and "not implemented for" in str(e), e
        return
    assert type_name not in EAGER_REFUSES | NO_TORCH_DTYPE
    assert_same(outputs[0], s)
    assert_same(outputs[1], p)


@pytest.mark.parametrize("type_name", ["f32", "bf16", "i1", "ui64", "f8E4M3FN"])
@pytest.mark.parametrize("name", NAMES)
def test_add_multiply_in_a_worker(name, type_name):
    a, b, s, p = case_arrays(type_name)
    r = backend(name).run(add_mul_program(type_name), [a, b])
    if name == "torch-eager" and type_name in EAGER_REFUSES:
        assert r.status == "rejected" and "not implemented for" in r.message, r
        return
    assert r.status == "ok", r
    assert_same(r.outputs[0], s)
    assert_same(r.outputs[1], p)


def test_rank0_empty_and_bit_views():
    prog = one_op('  %r:3 = "stablehlo.optimization_barrier"(%a0, %a1, %a2) : '
                  '(tensor<bf16>, tensor<0x3xf8E4M3FNUZ>, tensor<2xf8E8M0FNU>) -> '
                  '(tensor<bf16>, tensor<0x3xf8E4M3FNUZ>, tensor<2xf8E8M0FNU>)',
                  ["tensor<bf16>", "tensor<0x3xf8E4M3FNUZ>", "tensor<2xf8E8M0FNU>"],
                  ["tensor<bf16>", "tensor<0x3xf8E4M3FNUZ>", "tensor<2xf8E8M0FNU>"])
    prog = prog.replace("return %r", "return %r#0, %r#1, %r#2")
    x = np.array(-0.0, ml_dtypes.bfloat16)
    e = np.zeros((0, 3), ml_dtypes.float8_e4m3fnuz)
    nan = np.array([0xFF, 0x7F], np.uint8).view(ml_dtypes.float8_e8m0fnu)  # NaN and 1.0
    outputs = run_eager(prog, x, e, nan)
    for got, want in zip(outputs, [x, e, nan]):
        assert_same(got, want)


def test_no_lowering_is_rejected_with_the_reason():
    prog = one_op("  %r = stablehlo.popcnt %a0 : tensor<3xi32>", ["tensor<3xi32>"], ["tensor<3xi32>"])
    with pytest.raises(Rejected, match="stablehlo.popcnt has no torch lowering"):
        run_eager(prog, np.arange(3, dtype=np.int32))
    r = backend("torch-eager").run(prog, [np.arange(3, dtype=np.int32)])
    assert r.status == "rejected" and "popcnt" in r.message, r


def test_integer_division_by_zero_is_an_error_and_a_known_deviation():
    prog = one_op("  %r = stablehlo.divide %a0, %a1 : tensor<2xi32>", ["tensor<2xi32>"] * 2, ["tensor<2xi32>"])
    r = backend("torch-eager").run(prog, [np.array([7, -7], np.int32), np.array([0, 2], np.int32)])
    assert r.status == "error" and "ZeroDivisionError" in r.message, r
    assert known_deviation("torch-eager", "divide", "i32", "error", ("integer_division_by_zero_or_overflow",))
    assert not known_deviation("torch-eager", "divide", "i32", "error")  # a divisor without 0: not this entry
    r = backend("torch-eager").run(prog, [np.array([7, -7], np.int32), np.array([2, 2], np.int32)])
    assert r.status == "ok" and r.outputs[0].tolist() == [3, -3], r  # truncation, like the spec


def test_unknown_torch_name():
    from adapters.torch_backend import TorchBackend
    with pytest.raises(ValueError, match="torch-eager"):
        TorchBackend("torch-cuda")


# ------------------------------------------------------------------ lowerings, by hand

def test_gather_spec_example():
    # spec gather example (operand 2x3x4x2, batching dims, start_index_map [1, 0]) worked by hand on a smaller case:
    # operand[i, j] = 10 * i + j; indices [[1, 0], [2, 9]] -> rows 1.., clamped to 2 when out of bounds
    operand = (10 * np.arange(3)[:, None] + np.arange(4)[None, :]).astype(np.float32)
    indices = np.array([[1, 0], [2, 9]], np.int32)
    prog = one_op('  %r = "stablehlo.gather"(%a0, %a1) {dimension_numbers = #stablehlo.gather<offset_dims = [1], '
                  'collapsed_slice_dims = [0], start_index_map = [0, 1], index_vector_dim = 1>, '
                  'slice_sizes = array<i64: 1, 2>} : (tensor<3x4xf32>, tensor<2x2xi32>) -> tensor<2x2xf32>',
                  ["tensor<3x4xf32>", "tensor<2x2xi32>"], ["tensor<2x2xf32>"])
    (out,) = run_eager(prog, operand, indices)
    # (1, 0) -> [10, 11]; (2, 9) clamps the column start to 4 - 2 = 2 -> [22, 23]
    assert out.tolist() == [[10, 11], [22, 23]]


def test_pad_negative_and_interior():
    prog = one_op('  %r = "stablehlo.pad"(%a0, %a1) {edge_padding_low = array<i64: 1, -1>, '
                  'edge_padding_high = array<i64: -1, 2>, interior_padding = array<i64: 1, 0>} : '
                  '(tensor<2x3xi32>, tensor<i32>) -> tensor<3x4xi32>',
                  ["tensor<2x3xi32>", "tensor<i32>"], ["tensor<3x4xi32>"])
    (out,) = run_eager(prog, np.array([[1, 2, 3], [4, 5, 6]], np.int32), np.array(0, np.int32))
    # rows: pad, 1 2 3, pad, 4 5 6 -> low 1 / high -1 drops the last; columns: drop 1, add 2
    assert out.tolist() == [[0, 0, 0, 0], [2, 3, 0, 0], [0, 0, 0, 0]]


def test_shifts_and_rounding():
    prog = one_op("  %r = stablehlo.shift_right_logical %a0, %a1 : tensor<3xi8>", ["tensor<3xi8>"] * 2,
                  ["tensor<3xi8>"])
    (out,) = run_eager(prog, np.array([-128, -1, 64], np.int8), np.array([1, 4, 2], np.int8))
    assert out.tolist() == [64, 15, 16]  # logical: zeros shifted in even for negative numbers
    prog = one_op("  %r = stablehlo.round_nearest_afz %a0 : tensor<6xf32>", ["tensor<6xf32>"], ["tensor<6xf32>"])
    x = np.array([0.5, -0.5, 2.5, 0.49999997, -1.5, -0.0], np.float32)
    (out,) = run_eager(prog, x)
    assert_same(out, np.array([1.0, -1.0, 3.0, 0.0, -2.0, -0.0], np.float32))


def test_bitcast_convert_splits_and_joins_little_endian():
    split = one_op("  %r = stablehlo.bitcast_convert %a0 : (tensor<2xi32>) -> tensor<2x4xui8>", ["tensor<2xi32>"],
                   ["tensor<2x4xui8>"])
    (out,) = run_eager(split, np.array([0x01020304, -1], np.int32))
    assert out.tolist() == [[4, 3, 2, 1], [255] * 4]
    join = one_op("  %r = stablehlo.bitcast_convert %a0 : (tensor<2xui8>) -> tensor<bf16>", ["tensor<2xui8>"],
                  ["tensor<bf16>"])
    (out,) = run_eager(join, np.array([0x80, 0x3F], np.uint8))
    assert_same(out, np.array(1.0, ml_dtypes.bfloat16))


def test_reduce_adds_the_init_value_and_handles_empty_dims():
    prog = """func.func public @main(%a0: tensor<2x0xf32>, %a1: tensor<2x3xi8>, %a2: tensor<i8>) -> (tensor<2xf32>, tensor<2xi8>) {
  %i = stablehlo.constant dense<-1.0> : tensor<f32>
  %0 = stablehlo.reduce(%a0 init: %i) applies stablehlo.maximum across dimensions = [1] : (tensor<2x0xf32>, tensor<f32>) -> tensor<2xf32>
  %1 = stablehlo.reduce(%a1 init: %a2) applies stablehlo.add across dimensions = [1] : (tensor<2x3xi8>, tensor<i8>) -> tensor<2xi8>
  return %0, %1 : tensor<2xf32>, tensor<2xi8>
}"""
    out = run_eager(prog, np.zeros((2, 0), np.float32), np.array([[100, 27, 1], [-1, -2, -3]], np.int8),
                    np.array(1, np.int8))
    assert out[0].tolist() == [-1.0, -1.0]  # nothing to reduce: the init value
    assert out[1].tolist() == [-127, -5]  # 100 + 27 + 1 + 1 = 129 wraps to -127 in i8 (no widening)


def test_dot_general_batch_and_contract():
    prog = one_op('  %r = "stablehlo.dot_general"(%a0, %a1) {dot_dimension_numbers = #stablehlo.dot<'
                  'lhs_batching_dimensions = [0], rhs_batching_dimensions = [1], lhs_contracting_dimensions = [1], '
                  'rhs_contracting_dimensions = [0]>} : (tensor<2x3xi32>, tensor<3x2xi32>) -> tensor<2xi32>',
                  ["tensor<2x3xi32>", "tensor<3x2xi32>"], ["tensor<2xi32>"])
    a = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    b = np.array([[1, 10], [2, 20], [3, 30]], np.int32)
    (out,) = run_eager(prog, a, b)
    assert out.tolist() == [1 + 4 + 9, 40 + 100 + 180]


# ------------------------------------------------------------------ differential sample

SAMPLE = {"torch-eager": (["add", "compare", "convert", "select", "broadcast_in_dim", "gather", "reduce", "pad",
                           "dot_general", "sine"], ["f32", "i8", "i1", "bf16"]),
          "torch-inductor": (["add", "select", "gather", "reduce"], ["f32", "i8"])}


@pytest.mark.differential
@pytest.mark.parametrize("name", NAMES)
def test_differential_sample(name, tmp_path):
    """One case per pair of a small op x type sample; failures must be known deviations."""
    ops, types = SAMPLE[name]
    results = run_differential(backend(name), plan(ops, types), max_examples=1, seed=0, out_dir=str(tmp_path),
                               progress=False)
    statuses = summarize(results)
    bad = [r for r in results if r.status in FAILING and not deviation_for_case(name, r)]
    assert statuses.get("pass", 0) >= len(ops), statuses
    assert not bad, "\n\n".join(f"[{r.status}] {r.id}\n{r.message}\nreproducer: {r.reproducer}" for r in bad[:3])


def test_cli_run_writes_results(tmp_path):
    from conformance.cli import main
    out = tmp_path / "out"
    code = main(["run", "--backend", "torch-eager", "--ops", "add,popcnt", "--dtypes", "i32,f32",
                 "--max-examples", "1", "--out", str(out), "--quiet"])
    data = json.loads((out / "results.json").read_text())
    # per op x element type pair: the special-value case first, then one drawn case
    assert data["backend"] == "torch-eager" and len(data["cases"]) == 2 * 3
    assert code == 0 and data["summary"].get("rejected") == 2, data["summary"]  # popcnt i32: both cases
