"""TensorFlow (``tensorflow``: StableHLO through XlaCallModule): several results of different
element types come back with their own types and bits (TF does not check ``Tout``), an element
type TF refuses at @main's boundary is ``rejected`` in TF's words, subnormals flush as declared,
a batch answers as its programs alone, shape-polymorphic exports get a verdict each, and the
judge catches what TF's int4 boundary does to the values.

Skipped when tensorflow is not installed (``pip install -e '.[tensorflow]'``).  The test process
never imports tensorflow: the worker does (10-20 s, once for the module's backend).
"""

from __future__ import annotations

import importlib.util
import json
import pathlib

import ml_dtypes
import numpy as np
import pytest

from adapters.tensorflow_backend import NO_TF_DTYPE, _shape, tensorflow_message

needs_tensorflow = pytest.mark.skipif(importlib.util.find_spec("tensorflow") is None,
                                      reason="tensorflow is not installed (pip install -e '.[tensorflow]')")

DATA = pathlib.Path(__file__).parent / "data"


#: An XLA flag TensorFlow's XLA does not know: in the worker's XLA_FLAGS it would kill the process
#: at the first compile ("Unknown flag in XLA_FLAGS"), as jaxlib-only flags do.
FOREIGN_XLA_FLAG = "--xla_flag_tensorflow_does_not_know=1"


@pytest.fixture(scope="module")
def tf_backend():
    """The module's backend, its worker started under a caller's XLA_FLAGS that TF's XLA would
    die of: every test below also shows the adapter keeps them from the worker."""
    import os

    from adapters import get_backend

    backend = get_backend("tensorflow")
    old = os.environ.get("XLA_FLAGS")
    os.environ["XLA_FLAGS"] = FOREIGN_XLA_FLAG
    try:
        ok, why = backend.available()  # (the worker takes the environment when it starts)
    finally:
        if old is None:
            os.environ.pop("XLA_FLAGS")
        else:
            os.environ["XLA_FLAGS"] = old
    if not ok:
        backend.close()
        pytest.skip(f"tensorflow is not usable here: {why}")
    yield backend
    backend.close()


def assert_same(actual: np.ndarray, expected: np.ndarray) -> None:
    assert actual.dtype == expected.dtype and actual.shape == expected.shape, (actual, expected)
    assert actual.tobytes() == expected.tobytes(), (actual, expected)


# ------------------------------------------------------------------ without tensorflow

def test_result_shapes_for_sout():
    assert _shape("tensor<3x?x5xf32>") == [3, None, 5]
    assert _shape("tensor<f64>") == []
    assert _shape("tensor<2x!quant.uniform<i8:f32, 0.5:3>>") == [2]


def test_tensorflow_message_drops_the_node_names():
    class InvalidArgumentError(Exception):
        message = ("{{function_node __wrapped__XlaCallModule_Tin_1_Tout_1_device_/job:localhost/replica:0/task:0/"
                   "device:CPU:0}} Cannot deserialize computation: custom op 'stablehlo.foo' is unknown\n\n"
                   "\t [[{{node XlaCallModule}}]] [Op:XlaCallModule] name: ")

    assert tensorflow_message(InvalidArgumentError()) == (
        "InvalidArgumentError: Cannot deserialize computation: custom op 'stablehlo.foo' is unknown")


# ------------------------------------------------------------------ on tensorflow

MIXED = """func.func public @main(%a: tensor<3xf32>, %b: tensor<2xui64>, %c: tensor<2xi8>) -> (tensor<3xi1>, tensor<2xui64>, tensor<3xf64>, tensor<3xbf16>, tensor<2xi8>, tensor<3xf16>, tensor<2xcomplex<f32>>) {
  %0 = stablehlo.compare LT, %a, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  %1 = stablehlo.add %b, %b : tensor<2xui64>
  %2 = stablehlo.convert %a : (tensor<3xf32>) -> tensor<3xf64>
  %3 = stablehlo.convert %a : (tensor<3xf32>) -> tensor<3xbf16>
  %4 = stablehlo.negate %c : tensor<2xi8>
  %5 = stablehlo.convert %a : (tensor<3xf32>) -> tensor<3xf16>
  %6 = stablehlo.convert %b : (tensor<2xui64>) -> tensor<2xcomplex<f32>>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<3xi1>, tensor<2xui64>, tensor<3xf64>, tensor<3xbf16>, tensor<2xi8>, tensor<3xf16>, tensor<2xcomplex<f32>>
}"""


@needs_tensorflow
def test_results_of_different_element_types_come_back_with_their_types_and_bits(tf_backend):
    """Tout from @main's signature: each result in its own type, every bit as computed by hand
    (a Tout taken from the first result or the arguments would reinterpret the others' bits)."""
    a = np.array([1.5, -2.0, 0.1], np.float32)
    b = np.array([2**63 + 1, 5], np.uint64)
    c = np.array([-128, 7], np.int8)
    r = tf_backend.run(MIXED, [a, b, c])
    assert r.status == "ok", r
    expected = [np.array([False, False, False]), np.array([2, 10], np.uint64),  # (2**63 + 1) * 2 wraps to 2
                np.array([1.5, -2.0, np.float64(np.float32(0.1))]),
                np.array([1.5, -2.0, 0.10009765625], ml_dtypes.bfloat16),  # 0.1 to 8 bits of mantissa
                np.array([-128, -7], np.int8),  # -(-128) wraps
                np.array([1.5, -2.0, 0.0999755859375], np.float16),
                np.array([9223372036854775808, 5], np.complex64)]  # 2**63 + 1 rounds to 2**63 in f32
    for actual, want in zip(r.outputs, expected):
        assert_same(actual, want)


@needs_tensorflow
def test_an_element_type_without_a_tf_dtype_is_rejected_in_tensorflows_words(tf_backend):
    assert "f8E4M3" in NO_TF_DTYPE
    x = np.array([1, 2.5], ml_dtypes.float8_e4m3)
    boundary = "func.func public @main(%a: tensor<2xf8E4M3>) -> tensor<2xf8E4M3> {\n  return %a : tensor<2xf8E4M3>\n}"
    r = tf_backend.run(boundary, [x])
    assert r.status == "rejected" and "to a TensorFlow DType" in r.message, r
    inside = """func.func public @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.convert %a : (tensor<2xf32>) -> tensor<2xf8E4M3>
  %1 = stablehlo.negate %0 : tensor<2xf8E4M3>
  %2 = stablehlo.convert %1 : (tensor<2xf8E4M3>) -> tensor<2xf32>
  return %2 : tensor<2xf32>
}"""
    r = tf_backend.run(inside, [np.array([1, 2.5], np.float32)])  # f8E4M3 inside the program: compiled
    assert r.status == "ok" and r.outputs[0].tolist() == [-1.0, -2.5], r  # both exact in E4M3


@needs_tensorflow
def test_a_two_bit_integer_at_the_boundary_is_rejected_by_tensorflow(tf_backend):
    """TF has a DType for i2, but XlaCallModule has no kernel taking it: TensorFlow says so."""
    program = "func.func public @main(%a: tensor<2xi2>) -> tensor<2xi2> {\n  return %a : tensor<2xi2>\n}"
    r = tf_backend.run(program, [np.array([1, -2], ml_dtypes.int2)])
    assert r.status == "rejected" and "No registered 'XlaCallModule' OpKernel" in r.message, r


@needs_tensorflow
def test_flushes_subnormals_as_declared(tf_backend):
    from suites.test_adapters import add_mul_program

    r = tf_backend.run(add_mul_program("f32", 2), [np.array([1e-45, 1e-39], np.float32),
                                                  np.array([1e-45, 1e-39], np.float32)])
    assert r.status == "ok", r
    assert tf_backend.flushes_subnormals is True
    assert_same(r.outputs[0], np.zeros(2, np.float32))  # 2e-45 and 2e-39 are f32 subnormals


@needs_tensorflow
def test_a_batch_answers_as_its_programs_alone(tf_backend):
    def unary(op):
        return (f"func.func public @main(%a: tensor<2xf32>) -> tensor<2xf32> {{\n"
                f"  %0 = stablehlo.{op} %a : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}}")

    programs = [unary("sine"), unary("no_such_op"), unary("exponential"), unary("sine")]
    inputs = [[np.array([1, 2], np.float32)], [np.array([1, 2], np.float32)], [np.array([0, 1], np.float32)],
              [np.array([0, -0.0], np.float32)]]
    batched = tf_backend.run_batch(programs, inputs)
    alone = [tf_backend.run(p, x) for p, x in zip(programs, inputs)]
    assert [r.status for r in batched] == ["ok", "rejected", "ok", "ok"]
    assert [r.message for r in batched] == [r.message for r in alone]
    for b, a in zip(batched, alone):
        for x, y in zip(b.outputs or [], a.outputs or []):
            assert_same(x, y)
    assert_same(batched[3].outputs[0], np.array([0, -0.0], np.float32))  # sine keeps the zeros' signs


@needs_tensorflow
def test_a_dynamic_main_is_refined_from_its_arguments(tf_backend):
    program = ("func.func public @main(%a: tensor<?x2xi32>) -> tensor<?x2xi32> {\n"
               "  %0 = stablehlo.add %a, %a : tensor<?x2xi32>\n  return %0 : tensor<?x2xi32>\n}")
    for rows in (1, 3):
        x = np.arange(2 * rows, dtype=np.int32).reshape(rows, 2)
        r = tf_backend.run(program, [x])
        assert r.status == "ok", r
        assert_same(r.outputs[0], 2 * x)


@needs_tensorflow
def test_int4_across_the_boundary_is_caught_and_listed(tf_backend):
    """TF hands XLA its one-int4-per-byte tensors, XLA reads them packed: negate of i4 comes
    back wrong, the judge says mismatch, and tensorflow.toml lists it (the deviation is real)."""
    import oracle
    from conformance.fuzz import check_program

    program = "func.func public @main(%a: tensor<4xi4>) -> tensor<4xi4> {\n  %0 = stablehlo.negate %a : tensor<4xi4>\n  return %0 : tensor<4xi4>\n}"
    x = np.array([1, -3, 7, 2], ml_dtypes.int4)
    r = tf_backend.run(program, [x])
    assert r.status == "ok" and r.outputs[0].tolist() != [-1, 3, -7, -2], r
    verdict = check_program(tf_backend, oracle.parse_module(program), [x])
    assert verdict.status == "mismatch" and verdict.deviation is not None, verdict


@needs_tensorflow
def test_check_gives_every_shape_polymorphic_export_a_verdict(tmp_path, capsys):
    from conformance.cli import main

    paths = sorted((DATA / "jax_polymorphic").glob("*.mlir"))
    main(["check", str(DATA / "jax_polymorphic"), "--backend", "tensorflow", "--examples", "1", "--quiet",
          "--out", str(tmp_path)])
    capsys.readouterr()
    cases = json.loads((tmp_path / "results.json").read_text())["cases"]
    assert len(cases) == len(paths)
    assert {c["status"] for c in cases} <= {"pass", "implementation-defined", "mismatch"}, [
        (c["name"], c["status"], c.get("message")) for c in cases]


def test_complex_nan_component_holds_exactly_on_a_nan_part():
    from judge.conditions import triggered
    from suites.test_condition_twins import first_op

    op = first_op("""func.func @main(%a: tensor<2xcomplex<f32>>) -> tensor<2xf32> {
  %0 = "stablehlo.abs"(%a) : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}""")
    assert "complex_nan_component" in triggered(op, [np.array([1 + 2j, complex(0, np.nan)], np.complex64)], [])
    assert "complex_nan_component" not in triggered(op, [np.array([1 + 2j, complex(0, np.inf)], np.complex64)], [])
