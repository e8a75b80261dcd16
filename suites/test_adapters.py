"""Backend adapters: dtype round trips, hand-computed answers, crash / timeout / rejection.

Fast (well under a minute): one worker per backend for the whole module.
"""

from __future__ import annotations


import ml_dtypes
import numpy as np
import pytest

from adapters import BACKEND_NAMES, get_backend
from adapters.base import Backend, RunResult, decode_payload, encode_message
from oracle.types import ELEMENT_TYPES

# ------------------------------------------------------------------ fixtures

_backends: dict[str, Backend] = {}


def backend(name: str) -> Backend:
    if name not in _backends:
        _backends[name] = get_backend(name)
    return _backends[name]


@pytest.fixture(scope="module", autouse=True)
def _close_backends():
    yield
    for b in _backends.values():
        b.close()
    _backends.clear()



def assert_same(actual: np.ndarray, expected: np.ndarray):
    """Same dtype, shape and bits (NaNs included)."""
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    assert actual.tobytes() == expected.tobytes(), f"\nactual   {actual!r}\nexpected {expected!r}"


# ------------------------------------------------------- hand-computed cases
# program: s = a + b; p = s * b; return s, p

def add_mul_program(type_name: str, n: int = 4) -> str:
    t = f"tensor<{n}x{type_name}>"
    return (f"func.func public @main(%a: {t}, %b: {t}) -> ({t}, {t}) {{\n"
            f"  %s = stablehlo.add %a, %b : {t}\n"
            f"  %p = stablehlo.multiply %s, %b : {t}\n"
            f"  return %s, %p : {t}, {t}\n}}\n")


T, F = True, False
C = complex
# type: (a, b, a + b, (a + b) * b), worked out by hand (wrap-around for integers).
CASES = {
    "f32": ([1.5, -2.0, 0.25, 3.0], [2.0, 0.5, -4.0, -1.0], [3.5, -1.5, -3.75, 2.0], [7.0, -0.75, 15.0, -2.0]),
    "i32": ([2147483647, -5, 7, 0], [1, 3, -2, 9], [-2147483648, -2, 5, 9], [-2147483648, -6, -10, 81]),
    "ui8": ([200, 3, 255, 0], [100, 4, 2, 7], [44, 7, 1, 7], [48, 28, 2, 49]),
    # 256 + 1 = 257 is a tie between bf16 256 and 258: round to even -> 256
    "bf16": ([1.5, -2.0, 0.25, 256.0], [2.0, 0.5, -4.0, 1.0], [3.5, -1.5, -3.75, 256.0], [7.0, -0.75, 15.0, 256.0]),
    "i4": ([7, -8, 3, -2], [1, -1, 2, -3], [-8, 7, 5, -5], [-8, -7, -6, -1]),
    "i1": ([T, F, T, F], [T, T, F, F], [T, T, T, F], [T, T, F, F]),  # add = or, multiply = and
    "complex<f32>": ([C(1, 2), C(0, -1), C(3, 0), C(0.5, 0.5)], [C(1, 0), C(0, 2), C(-1, 1), C(2, 0)],
                     [C(2, 2), C(0, 1), C(2, 1), C(2.5, 0.5)], [C(2, 2), C(-2, 0), C(-3, 1), C(5, 1)]),
    # 1e200 * 1e100 overflows f32 but not f64: catches silent narrowing to 32 bits
    "f64": ([1e200, 0.5, -3.0, 2.0], [1e100, 0.25, 1.0, -0.5], [1e200, 0.75, -2.0, 1.5], [1e300, 0.1875, -2.0, -0.75]),
    # extras
    "f16": ([1.5, -2.0, 0.25, 3.0], [2.0, 0.5, -4.0, -1.0], [3.5, -1.5, -3.75, 2.0], [7.0, -0.75, 15.0, -2.0]),
    "i2": ([1, -2, 1, 0], [1, -1, -2, 1], [-2, 1, -1, 1], [-2, -1, -2, 1]),
    "ui4": ([15, 3, 8, 0], [1, 4, 2, 7], [0, 7, 10, 7], [0, 12, 4, 1]),
    "i64": ([2**63 - 1, -5, 7, 0], [1, 3, -2, 9], [-2**63, -2, 5, 9], [-2**63, -6, -10, 81]),
    "ui64": ([2**64 - 1, 3, 2**63, 0], [1, 4, 2, 7], [0, 7, 2**63 + 2, 7], [0, 28, 4, 49]),
    "f8E4M3FN": ([1.5, -2.0, 0.25, 3.0], [2.0, 0.5, -4.0, -1.0], [3.5, -1.5, -3.75, 2.0], [7.0, -0.75, 15.0, -2.0]),
    "f8E5M2": ([1.5, -2.0, 0.25, 3.0], [2.0, 0.5, -2.0, 1.0], [3.5, -1.5, -1.75, 4.0], [7.0, -0.75, 3.5, 4.0]),
    "f4E2M1FN": ([1.0, 0.5, -1.0, 2.0], [1.0, 1.0, -1.0, 1.0], [2.0, 1.5, -2.0, 3.0], [2.0, 1.5, 2.0, 3.0]),
    "complex<f64>": ([C(1, 2), C(0, -1), C(3, 0), C(0.5, 0.5)], [C(1, 0), C(0, 2), C(-1, 1), C(2, 0)],
                     [C(2, 2), C(0, 1), C(2, 1), C(2.5, 0.5)], [C(2, 2), C(-2, 0), C(-3, 1), C(5, 1)]),
}
REQUIRED = ["f32", "i32", "ui8", "bf16", "i4", "i1", "complex<f32>", "f64"]


def case_arrays(type_name):
    dt = ELEMENT_TYPES[type_name].dtype

    def arr(values):
        if dt.kind in "iu":
            return np.array(values, dtype=object).astype(dt)  # exact for 64-bit extremes
        return np.array(values).astype(dt)

    return [arr(v) for v in CASES[type_name]]


WORKER_BACKENDS = ["xla", "xla-folded", "stablehlo-ref"]


@pytest.mark.parametrize("type_name", list(CASES))
@pytest.mark.parametrize("name", WORKER_BACKENDS + ["oracle"])
def test_add_multiply(name, type_name):
    a, b, s, p = case_arrays(type_name)
    r = backend(name).run(add_mul_program(type_name), [a, b], timeout=60)
    assert r.status == "ok", r
    assert len(r.outputs) == 2
    assert_same(r.outputs[0], s)
    assert_same(r.outputs[1], p)


def test_required_types_covered():
    assert set(REQUIRED) <= set(CASES)


def test_run_many_compiles_once_and_keeps_order():
    prog = add_mul_program("i32")
    sets = [[np.array([i, 1, 2, 3], np.int32), np.array([1, 1, 1, i], np.int32)] for i in range(5)]
    for name in WORKER_BACKENDS:
        rs = backend(name).run_many(prog, sets)
        assert [r.status for r in rs] == ["ok"] * 5, rs
        for i, r in enumerate(rs):
            assert_same(r.outputs[0], np.array([i + 1, 2, 3, 3 + i], np.int32))


def test_folded_agrees_with_compiled_on_a_module_with_helpers():
    prog = """
module @m attributes {mhlo.num_partitions = 1 : i32} {
  func.func private @helper(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
    %0 = stablehlo.multiply %x, %x : tensor<2x2xf32>
    return %0 : tensor<2x2xf32>
  }
  func.func public @main(%a: tensor<2x2xf32> {jax.arg_info = "a"}, %n: tensor<i32>) -> (tensor<2x2xf32>, tensor<i32>) {
    %0 = func.call @helper(%a) : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %1 = stablehlo.add %n, %n : tensor<i32>
    return %0, %1 : tensor<2x2xf32>, tensor<i32>
  }
}"""
    inputs = [np.array([[1, -2], [np.nan, 0.5]], np.float32), np.array(21, np.int32)]
    ra = backend("xla").run(prog, inputs)
    rb = backend("xla-folded").run(prog, inputs)
    assert ra.status == rb.status == "ok", (ra, rb)
    for x, y in zip(ra.outputs, rb.outputs):
        assert x.dtype == y.dtype and x.shape == y.shape
        np.testing.assert_array_equal(x, y)
    assert rb.outputs[1] == 42 and rb.outputs[1].shape == ()


def test_folded_is_a_second_implementation():
    """XLA's constant folder and its compiled code disagree on clz of negative i32."""
    prog = ("func.func public @main(%a: tensor<2xi32>) -> tensor<2xi32> {\n"
            "  %0 = stablehlo.count_leading_zeros %a : tensor<2xi32>\n"
            "  return %0 : tensor<2xi32>\n}")
    x = np.array([-1, 7], np.int32)
    compiled = backend("xla").run(prog, [x])
    folded = backend("xla-folded").run(prog, [x])
    ref = backend("stablehlo-ref").run(prog, [x])
    assert compiled.status == folded.status == ref.status == "ok"
    assert compiled.outputs[0].tolist() == [0, 29] == ref.outputs[0].tolist()
    assert folded.outputs[0][1] == 29  # (the folder's answer for -1 differs in jaxlib 0.10.2: -32)


def test_bake_inputs_generic_form_and_no_arguments():
    from adapters.xla import bake_inputs

    generic = ('"builtin.module"() ({\n'
               '  "func.func"() <{function_type = (tensor<3xi1>) -> tensor<3xi1>, sym_name = "main"}> ({\n'
               '  ^bb0(%arg0: tensor<3xi1>):\n'
               '    %0 = "stablehlo.not"(%arg0) : (tensor<3xi1>) -> tensor<3xi1>\n'
               '    "func.return"(%0) : (tensor<3xi1>) -> ()\n'
               '  }) : () -> ()\n'
               '}) : () -> ()\n')
    text = bake_inputs(generic, [np.array([True, False, True])])
    assert "__shlo_original_main" in text and 'sym_name = "main"' in text
    r = backend("xla-folded").run(generic, [np.array([True, False, True])])
    assert r.status == "ok", r
    assert_same(r.outputs[0], np.array([False, True, False]))
    noargs = ("func.func public @main() -> tensor<2xui4> {\n"
              "  %0 = stablehlo.constant dense<[15, 3]> : tensor<2xui4>\n  return %0 : tensor<2xui4>\n}")
    r = backend("xla-folded").run(noargs, [])
    assert r.status == "ok", r
    assert_same(r.outputs[0], np.array([15, 3], ml_dtypes.uint4))


# --------------------------------------------------------- stablehlo-ref details

def test_ref_complex_results_bit_exact():
    t = "tensor<4xcomplex<f32>>"
    prog = (f"func.func public @main(%a: {t}, %r: tensor<2xf64>) -> ({t}, tensor<2xf64>, {t}) {{\n"
            f"  %n = stablehlo.negate %a : {t}\n  return %a, %r, %n : {t}, tensor<2xf64>, {t}\n}}")
    nan_payload = np.array([0x7FC01234], np.uint32).view(np.float32)[0]
    a = np.empty(4, np.complex64)
    a.real = [nan_payload, -0.0, 1.0, np.inf]
    a.imag = [0.0, -0.0, -np.inf, 3.5]
    r = backend("stablehlo-ref").run(prog, [a, np.array([1.5, -2], np.float64)])
    assert r.status == "ok", r
    assert_same(r.outputs[0], a)
    assert_same(r.outputs[1], np.array([1.5, -2], np.float64))
    assert r.outputs[2].dtype == np.complex64
    assert np.array_equal(r.outputs[2][1:], -a[1:])


def test_ref_large_splat_scalar_and_empty_outputs():
    # 300 bf16 elements print as one hex blob; a splat prints as one value
    prog = ("func.func public @main(%a: tensor<300xbf16>, %s: tensor<ui64>, %e: tensor<0x3xi4>) -> "
            "(tensor<300xbf16>, tensor<2x3xf8E4M3FN>, tensor<ui64>, tensor<0x3xi4>, tensor<3xi4>) {\n"
            "  %c = stablehlo.constant dense<-1.5> : tensor<2x3xf8E4M3FN>\n"
            "  %d = stablehlo.constant dense<[-8, 7, -1]> : tensor<3xi4>\n"
            "  return %a, %c, %s, %e, %d : tensor<300xbf16>, tensor<2x3xf8E4M3FN>, tensor<ui64>, tensor<0x3xi4>, tensor<3xi4>\n}")
    a = np.arange(65536, 65536 + 300, dtype=np.uint32).astype(np.uint16).view(ml_dtypes.bfloat16)  # incl. NaNs
    s = np.array(2**64 - 2, np.uint64)
    e = np.zeros((0, 3), ml_dtypes.int4)
    r = backend("stablehlo-ref").run(prog, [a, s, e])
    assert r.status == "ok", r
    assert_same(r.outputs[0], a)
    assert_same(r.outputs[1], np.full((2, 3), -1.5, ml_dtypes.float8_e4m3fn))
    assert_same(r.outputs[2], s)
    assert_same(r.outputs[3], e)
    assert_same(r.outputs[4], np.array([-8, 7, -1], ml_dtypes.int4))


def test_parse_attr_text():
    from adapters.stablehlo_ref import parse_attr_text

    et = ELEMENT_TYPES
    assert_same(parse_attr_text("dense<[[1, -2], [3, 0]]> : tensor<2x2xi4>", et["i4"], (2, 2)),
                np.array([[1, -2], [3, 0]], ml_dtypes.int4))
    assert_same(parse_attr_text('dense<"0x0F0E"> : tensor<2xi4>', et["i4"], (2,)),
                np.array([-1, -2], ml_dtypes.int4))
    assert_same(parse_attr_text("dense<0xFF> : tensor<3xf8E8M0FNU>", et["f8E8M0FNU"], (3,)),
                np.array([0xFF] * 3, np.uint8).view(ml_dtypes.float8_e8m0fnu))
    assert_same(parse_attr_text("dense<[true, false]> : tensor<2xi1>", et["i1"], (2,)), np.array([True, False]))
    assert_same(parse_attr_text("dense<[1.953130e-03, -0.000000e+00]> : tensor<2xf8E4M3FN>", et["f8E4M3FN"], (2,)),
                np.array([2.0**-9, -0.0], ml_dtypes.float8_e4m3fn))


# ------------------------------------------------ crash, timeout, rejection

F6_CONSTANT = ("func.func public @main() -> tensor<4xf6E2M3FN> {\n"
               "  %0 = stablehlo.constant dense<[1.0, 2.0, 3.0, 0.5]> : tensor<4xf6E2M3FN>\n"
               "  return %0 : tensor<4xf6E2M3FN>\n}")


def _quick_check(name):
    a, b, s, p = case_arrays("f32")
    r = backend(name).run(add_mul_program("f32"), [a, b])
    assert r.status == "ok", r
    assert_same(r.outputs[1], p)


def test_xla_abort_is_a_crash_and_the_next_run_works():
    xla = backend("xla")
    _quick_check("xla")
    r = xla.run(F6_CONSTANT, [])
    assert r.status == "crash", r
    assert "SIGABRT" in r.message and "Check failed" in r.message, r.message
    _quick_check("xla")
    # a program that crashes while compiling crashes every set
    rs = xla.run_many(F6_CONSTANT, [[], [], []])
    assert [x.status for x in rs] == ["crash"] * 3
    _quick_check("xla")


def test_ref_crash_keeps_the_other_results():
    prog = ("func.func public @main(%a: tensor<2xi32>, %b: tensor<2xi32>) -> tensor<2xi32> {\n"
            "  %0 = stablehlo.divide %a, %b : tensor<2xi32>\n  return %0 : tensor<2xi32>\n}")
    sets = [[np.array([7, 9], np.int32), np.array([2, 3], np.int32)],
            [np.array([7, 9], np.int32), np.array([0, 3], np.int32)],  # SIGFPE in the interpreter
            [np.array([-7, 8], np.int32), np.array([2, -4], np.int32)]]
    rs = backend("stablehlo-ref").run_many(prog, sets)
    assert [r.status for r in rs] == ["ok", "crash", "ok"], rs
    assert "SIGFPE" in rs[1].message
    assert rs[0].outputs[0].tolist() == [3, 3]
    assert rs[2].outputs[0].tolist() == [-3, -2]


def test_ref_unsupported_op_is_a_crash():
    prog = ("func.func public @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
            "  %0 = stablehlo.custom_call @foo(%a) : (tensor<2xf32>) -> tensor<2xf32>\n"
            "  return %0 : tensor<2xf32>\n}")
    r = backend("stablehlo-ref").run(prog, [np.ones(2, np.float32)])
    assert r.status == "crash" and "Unsupported op" in r.message, r
    _quick_check("stablehlo-ref")


OUTFEED = ("func.func public @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
           "  %t = stablehlo.create_token : !stablehlo.token\n"
           '  %t2 = "stablehlo.outfeed"(%a, %t) {outfeed_config = ""} : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token\n'
           "  return %a : tensor<4xf32>\n}")

FOREVER = ("func.func public @main(%a: tensor<i32>) -> tensor<i32> {\n"
           "  %0 = stablehlo.while(%i = %a) : tensor<i32>\n"
           "  cond {\n"
           "    %t = stablehlo.compare NE, %i, %i : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
           "    %u = stablehlo.not %t : tensor<i1>\n"
           "    stablehlo.return %u : tensor<i1>\n"
           "  } do {\n"
           "    %one = stablehlo.constant dense<1> : tensor<i32>\n"
           "    %n = stablehlo.add %i, %one : tensor<i32>\n"
           "    stablehlo.return %n : tensor<i32>\n"
           "  }\n"
           "  return %0 : tensor<i32>\n}")


@pytest.mark.parametrize("name,prog,inputs", [
    ("xla", OUTFEED, [np.ones(4, np.float32)]),                  # XLA CPU blocks on outfeed
    ("stablehlo-ref", FOREVER, [np.array(0, np.int32)]),           # a loop that never ends
])
def test_hang_is_a_timeout_and_the_next_run_works(name, prog, inputs):
    _quick_check(name)
    r = backend(name).run(prog, inputs, timeout=1.5)
    assert r.status == "timeout", r
    _quick_check(name)


ILL_TYPED = ("func.func public @main(%a: tensor<4xf32>, %b: tensor<4xi32>) -> tensor<4xf32> {\n"
             "  %0 = stablehlo.add %a, %b : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>\n"
             "  return %0 : tensor<4xf32>\n}")


@pytest.mark.parametrize("name", WORKER_BACKENDS)
def test_ill_typed_program_is_rejected(name):
    inputs = [np.ones(4, np.float32), np.ones(4, np.int32)]
    r = backend(name).run(ILL_TYPED, inputs)
    assert r.status == "rejected", r
    assert r.message
    r = backend(name).run("this is not MLIR", [])
    assert r.status == "rejected", r
    _quick_check(name)


def test_xla_rejects_f6_arithmetic_and_says_so_statically():
    a = np.array([1, 2, 0.5, 0], ml_dtypes.float6_e2m3fn)
    r = backend("xla").run(add_mul_program("f6E2M3FN"), [a, a])
    assert r.status == "rejected", r
    ok, why = backend("xla").supports({"f32", "f6E2M3FN"})
    assert not ok and "f6E2M3FN" in why
    assert backend("xla").supports({"f32", "f8E4M3FN", "f4E2M1FN", "i4", "complex<f64>"}) == (True, "")


def test_wrong_input_dtype_is_an_error():
    for name in WORKER_BACKENDS:
        r = backend(name).run(add_mul_program("f32"), [np.ones(4, np.float64), np.ones(4, np.float32)])
        assert r.status == "error" and "dtype" in r.message, (name, r)
        r = backend(name).run(add_mul_program("f32"), [np.ones(4, np.float32)])
        assert r.status == "error", (name, r)


# ---------------------------------------------------------------- plumbing

def test_backend_names_and_unknown_name():
    assert {"oracle", "xla", "xla-folded", "xla-gpu", "stablehlo-ref", "iree-llvm-cpu", "iree-vmvx"} <= set(BACKEND_NAMES)
    with pytest.raises(ValueError, match="known backends: oracle, xla"):
        get_backend("tpu-magic")
    for name in BACKEND_NAMES:
        b = backend(name)
        assert isinstance(b, Backend) and b.name == name
    assert backend("xla").flushes_subnormals is True
    assert backend("stablehlo-ref").flushes_subnormals is False
    assert backend("oracle").flushes_subnormals is False


def test_xla_gpu_availability_is_graceful():
    gpu = backend("xla-gpu")
    ok, why = gpu.available()
    assert isinstance(ok, bool) and isinstance(why, str) and why
    a, b, s, p = case_arrays("f32")
    r = gpu.run(add_mul_program("f32"), [a, b])
    if ok:
        assert r.status == "ok", r
        assert_same(r.outputs[1], p)
    else:
        assert r.status == "error" and "unavailable" in r.message, r


@pytest.mark.parametrize("type_name", list(ELEMENT_TYPES))
def test_message_roundtrip(type_name):
    dt = ELEMENT_TYPES[type_name].dtype
    rng = np.random.default_rng(0)
    raw = rng.integers(0, 256, size=(3, 5, dt.itemsize), dtype=np.uint8)
    x = raw.view(dt).reshape(3, 5) if dt.kind != "b" else raw[..., 0] % 2 == 1
    arrays = [x, x[:0], np.asarray(x[1, 2])]
    data = encode_message({"op": "t", "k": [1, 2]}, arrays)
    header, back = decode_payload(data[8:])
    assert header == {"op": "t", "k": [1, 2]}
    for a, b in zip(arrays, back):
        assert_same(b, a)


def test_run_result_repr():
    r = RunResult("ok", [np.zeros((2, 3), np.float32)], "", 0.5)
    assert "float32[2, 3]" in repr(r) and r.ok
