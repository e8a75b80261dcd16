"""IREE backends (iree-llvm-cpu, iree-vmvx): hand-computed answers for every element type that
crosses the boundary, rejections with the compiler's diagnostic, sub-byte packing, subnormal
flushing as declared, and a small differential sample against the oracle.

Skipped when IREE is not installed (``pip install -e '.[iree]'``).  About 40 s at 2 cores
(each distinct program costs one compile, 0.25-0.6 s).
"""

from __future__ import annotations

import json
import os

import ml_dtypes
import numpy as np
import pytest

pytest.importorskip("iree.compiler")
pytest.importorskip("iree.runtime")

from adapters import get_backend  # noqa: E402
from adapters.iree import IreeBackend, pack_bits, unpack_bits  # noqa: E402
from conformance.run import plan, run_differential  # noqa: E402
from oracle.types import ELEMENT_TYPES  # noqa: E402
from judge.explain import deviation_for_case  # noqa: E402
from judge.known_deviations import known_deviation  # noqa: E402
from judge.status import FAILING  # noqa: E402
from reports.results import summarize  # noqa: E402
from suites.test_adapters import add_mul_program, assert_same, case_arrays  # noqa: E402

NAMES = ("iree-llvm-cpu", "iree-vmvx")
_backends: dict = {}


@pytest.fixture(scope="module", autouse=True)
def _iree_cache(tmp_path_factory):
    """A private disk cache for the module (workers read the variable when they start)."""
    old = os.environ.get("SHLO_CONFORM_CACHE")
    os.environ["SHLO_CONFORM_CACHE"] = str(tmp_path_factory.mktemp("shlo-cache"))
    yield
    for b in _backends.values():
        b.close()
    _backends.clear()
    if old is None:
        os.environ.pop("SHLO_CONFORM_CACHE", None)
    else:
        os.environ["SHLO_CONFORM_CACHE"] = old


def backend(name):
    if name not in _backends:
        _backends[name] = get_backend(name)
        ok, why = _backends[name].available()
        assert ok, why
    return _backends[name]


def unary_program(op: str, type_name: str, n: int) -> str:
    t = f"tensor<{n}x{type_name}>"
    return f"func.func public @main(%a: {t}) -> {t} {{\n  %0 = stablehlo.{op} %a : {t}\n  return %0 : {t}\n}}\n"


# Element types each target refuses, at compile time or (no HAL element type: f4E2M1FN) before it
# (found by probing IREE 3.13; see adapters/iree.py).
REJECTED = {
    "iree-llvm-cpu": {"f4E2M1FN"},
    "iree-vmvx": {"f4E2M1FN"},
}
#: Element types whose programs vmvx's compiler fails to verify its own vm ops on (adapters/refusals.py):
#: no refusal, a listed deviation.
COMPILER_ERRORS = {"iree-llvm-cpu": set(), "iree-vmvx": {"f16", "bf16", "complex<f32>", "complex<f64>"}}


# ------------------------------------------------------------------ hand-computed answers

# the types the adapters must carry (test_adapters.REQUIRED) + the boundary cases of IREE
TYPES = ["f32", "i32", "ui8", "bf16", "i4", "i1", "complex<f32>", "f64", "ui64", "f8E4M3FN", "f4E2M1FN"]


@pytest.mark.parametrize("type_name", TYPES)
@pytest.mark.parametrize("name", NAMES)
def test_add_multiply(name, type_name):
    a, b, s, p = case_arrays(type_name)
    r = backend(name).run(add_mul_program(type_name), [a, b])
    if type_name in REJECTED[name]:
        assert r.status == "rejected" and r.message.startswith(("IREE compile:", "IREE adapter:")), r
        return
    if type_name in COMPILER_ERRORS[name]:
        assert r.status == "compiler-error" and known_deviation(name, "add", type_name, "compiler-error"), r
        return
    assert r.status == "ok", r
    if type_name == "i1":  # known deviation: IREE adds i1 as 1-bit integers (xor), the spec says "or"
        assert known_deviation(name, "add", "i1", "mismatch")
        assert_same(r.outputs[0], a ^ b)
        return
    assert_same(r.outputs[0], s)
    assert_same(r.outputs[1], p)


@pytest.mark.parametrize("name", NAMES)
def test_f64_is_not_demoted(name):
    # 1 + 2^-40 is exact in f64 and 1 in f32: catches --iree-input-demote-f64-to-f32 left on
    x = np.array([1.0, 1e300], np.float64)
    y = np.array([2.0 ** -40, 1e-300], np.float64)
    r = backend(name).run(add_mul_program("f64", 2), [x, y])
    assert r.status == "ok", r
    assert_same(r.outputs[0], np.array([1.0 + 2.0 ** -40, 1e300]))
    assert_same(r.outputs[1], np.array([(1.0 + 2.0 ** -40) * 2.0 ** -40, 1.0]))


@pytest.mark.parametrize("name", NAMES)
def test_sub_byte_and_empty_and_scalar(name):
    prog = """func.func public @main(%a: tensor<2x4xi4>, %b: tensor<0x3xf32>, %c: tensor<ui2>) -> (tensor<2x4xi4>, tensor<0x3xf32>, tensor<ui2>) {
  %0 = stablehlo.negate %a : tensor<2x4xi4>
  %1 = stablehlo.negate %b : tensor<0x3xf32>
  %2 = stablehlo.not %c : tensor<ui2>
  return %0, %1, %2 : tensor<2x4xi4>, tensor<0x3xf32>, tensor<ui2>
}"""
    a = np.array([[1, -2, 3, 7], [-8, 0, -1, 5]], ml_dtypes.int4)
    # rank-0 ui2 is 2 bits, not a whole byte: refused at the boundary (IREE's compiler refuses it too)
    r = backend(name).run(prog, [a, np.zeros((0, 3), np.float32), np.array(1, ml_dtypes.uint2)])
    assert r.status == "rejected" and "not a whole number of bytes" in r.message, r
    prog = prog.replace("tensor<ui2>", "tensor<4xui2>")
    r = backend(name).run(prog, [a, np.zeros((0, 3), np.float32), np.array([0, 1, 2, 3], ml_dtypes.uint2)])
    assert r.status == "ok", r
    assert_same(r.outputs[0], np.array([[-1, 2, -3, -7], [-8, 0, 1, -5]], ml_dtypes.int4))  # -(-8) wraps
    assert_same(r.outputs[1], np.zeros((0, 3), np.float32))
    assert_same(r.outputs[2], np.array([3, 2, 1, 0], ml_dtypes.uint2))


def test_pack_bits_layout():
    # IREE's layout: first element in the low bits of the byte
    assert pack_bits(np.array([1, -2], ml_dtypes.int4), 4).tolist() == [0xE1]
    assert pack_bits(np.array([1, 2, 3, 0], ml_dtypes.uint2), 2).tolist() == [0b00111001]
    for name in ("i2", "i4", "ui2", "ui4"):
        et = ELEMENT_TYPES[name]
        info = ml_dtypes.iinfo(et.dtype)
        x = np.arange(info.min, info.max + 1).repeat(8 // et.bits).astype(et.dtype).reshape(2, -1)
        assert_same(unpack_bits(pack_bits(x, et.bits), et, x.shape), x)


@pytest.mark.parametrize("name", NAMES)
def test_flushes_subnormals_as_declared(name):
    r = backend(name).run(add_mul_program("f32", 2), [np.array([1e-45, 1e-39], np.float32),
                                                      np.array([1e-45, 1e-39], np.float32)])
    assert r.status == "ok", r
    assert IreeBackend.flushes_subnormals is True
    assert_same(r.outputs[0], np.zeros(2, np.float32))


# ------------------------------------------------------------------ statuses

@pytest.mark.parametrize("name", NAMES)
def test_a_type_without_a_hal_element_type_is_refused_at_the_boundary_only(name):
    x = np.array([1, 2], ml_dtypes.float8_e4m3)
    r = backend(name).run(unary_program("negate", "f8E4M3", 2), [x])
    assert r.status == "rejected" and "cannot cross the function boundary (no HAL element type)" in r.message, r
    inside = """func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.convert %a : (tensor<2xf32>) -> tensor<2xf8E4M3>
  %1 = stablehlo.negate %0 : tensor<2xf8E4M3>
  %2 = stablehlo.convert %1 : (tensor<2xf8E4M3>) -> tensor<2xf32>
  return %2 : tensor<2xf32>
}"""
    r = backend(name).run(inside, [np.array([1, 2.5], np.float32)])  # f8E4M3 inside the program: compiled
    assert r.status == "ok" and r.outputs[0].tolist() == [-1.0, -2.5], r  # hand-computed (both exact in E4M3)


@pytest.mark.parametrize("name", NAMES)
def test_bad_inputs_are_errors_and_the_worker_survives(name):
    prog = unary_program("negate", "f32", 3)
    r = backend(name).run(prog, [np.ones(2, np.float32)])
    assert r.status == "error" and "shape" in r.message, r
    r = backend(name).run(prog, [np.array([1, -0.0, np.inf], np.float32)])
    assert r.status == "ok" and r.outputs[0].tolist() == [-1.0, 0.0, -np.inf], r
    assert np.signbit(r.outputs[0][1]) == False  # noqa: E712  (-(-0) = +0)


def test_compiled_modules_are_cached_on_disk():
    from adapters.iree import cache_path
    prog = unary_program("abs", "i32", 5)
    r = backend("iree-vmvx").run(prog, [np.array([-3, 0, 4, -2**31, 7], np.int32)])
    assert r.status == "ok" and r.outputs[0].tolist() == [3, 0, 4, -2**31, 7], r
    assert os.path.exists(cache_path(prog, "vmvx"))


def test_refusals_are_cached_on_disk(monkeypatch):
    """A refused program is refused from the disk cache the next time, with the compiler's own
    diagnostic, and the compiler is not run again."""
    from adapters.base import Rejected
    from adapters.iree import IreeEngine, cache_path
    engine = IreeEngine("vmvx")
    prog = ("func.func @main(%a: tensor<3xf32>) -> tensor<3xf32> {\n"  # (no lowering for an unknown target)
            "  %0 = stablehlo.custom_call @no_such_target(%a) : (tensor<3xf32>) -> tensor<3xf32>\n"
            "  return %0 : tensor<3xf32>\n}\n")
    with pytest.raises(Rejected) as first:
        engine.prepare(prog)
    assert "failed to legalize operation 'stablehlo.custom_call'" in str(first.value)
    assert os.path.exists(cache_path(prog, "vmvx").replace(".vmfb", ".refused"))

    def compiler_called(*args, **kwargs):
        raise AssertionError("compiled again")
    monkeypatch.setattr(engine.compiler, "compile_str", compiler_called)
    with pytest.raises(Rejected) as again:
        engine.prepare(prog)
    assert str(again.value) == str(first.value)
    ok = unary_program("floor", "f32", 13)  # a program not refused is still compiled (the stub proves it)
    with pytest.raises(AssertionError, match="compiled again"):
        engine.prepare(ok)


def test_unknown_iree_name():
    with pytest.raises(ValueError, match="iree-llvm-cpu"):
        get_backend("iree-cuda")


# ------------------------------------------------------------------ differential sample

SAMPLE_OPS = ["add", "compare", "convert", "select", "power", "sine"]
SAMPLE_TYPES = ["f32", "i8", "i1", "bf16"]


@pytest.mark.differential
@pytest.mark.parametrize("name", NAMES)
def test_differential_sample(name, tmp_path):
    """One case per pair of a small op x type sample; failures must be known deviations."""
    results = run_differential(backend(name), plan(SAMPLE_OPS, SAMPLE_TYPES), max_examples=1, seed=0, out_dir=str(tmp_path),
                               progress=False)
    statuses = summarize(results)
    bad = [r for r in results if r.status in FAILING and not deviation_for_case(name, r)]
    assert statuses.get("pass", 0) >= 5, statuses
    assert not bad, "\n\n".join(f"[{r.status}] {r.id}\n{r.message}\nreproducer: {r.reproducer}" for r in bad[:3])


def test_cli_run_writes_results(tmp_path):
    from conformance.cli import main
    out = tmp_path / "out"
    code = main(["run", "--backend", "iree-vmvx", "--ops", "add,negate", "--dtypes", "i32,f32",
                 "--max-examples", "1", "--out", str(out), "--quiet"])
    data = json.loads((out / "results.json").read_text())
    assert data["backend"] == "iree-vmvx" and len(data["cases"]) == 9  # 4 special-value cases (+1: f32 negate's
    # vector tail alone, generators/tensors.vector_tail_only) + 4 drawn
    assert code == 0 and set(data["summary"]) <= {"pass", "implementation-defined"}, data["summary"]
