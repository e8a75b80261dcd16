"""The element-wise transcendentals give one answer on every machine: the exact value rounded once.

* the bits of each element are the same in a 1-element and in a 4,096-element array (numpy's
  SIMD kernels change with the array's length and the CPU: its cbrt(27) is 3 + 1 ULP in one
  dispatch and 3 in another);
* the IEEE 754-2019 9.2.1 special values and hand-checked values are exact;
* random values equal a reference written without the oracle's code: mpmath at 300 bits,
  rounded to the nearest value of the type by exact rational arithmetic;
* the same bits come out of a process whose numpy runs without AVX-512 (NPY_DISABLE_CPU_FEATURES).
"""

from __future__ import annotations

import hashlib
import math
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest

from oracle import evaluate, parse_module
from oracle.types import element_type

UNARY = ("exponential", "exponential_minus_one", "log", "log_plus_one", "logistic", "sine", "cosine", "tan",
         "tanh", "cbrt", "rsqrt")
BINARY = ("atan2", "power")
SIZE = 4096


def run(name: str, type_name: str, *arrays) -> np.ndarray:
    t = f"tensor<{arrays[0].size}x{type_name}>"
    args = ", ".join(f"%a{i}: {t}" for i in range(len(arrays)))
    uses = ", ".join(f"%a{i}" for i in range(len(arrays)))
    text = (f"func.func @main({args}) -> {t} {{\n"
            f'  %r = "stablehlo.{name}"({uses}) : ({", ".join([t] * len(arrays))}) -> {t}\n'
            f"  func.return %r : {t}\n}}")
    return evaluate(parse_module(text), [np.asarray(a).reshape(-1) for a in arrays])[0]


def bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    if a.dtype.kind == "c":
        return np.stack([bits(a.real), bits(a.imag)])
    return a.view(np.dtype(f"u{a.dtype.itemsize}"))


SPECIALS = [0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan, 0.5, 2.0, 27.0, -8.0, 1e-5, 1e22, 3.0e38, 1e-40]


def operands(type_name: str, arity: int, seed: int) -> list:
    """SIZE values of the type: the special values, then random magnitudes over the whole range."""
    et = element_type(type_name)
    rng = np.random.default_rng(seed)

    def real(n):
        # exact powers of two times [1, 2): no numpy transcendental, whose bits vary by machine
        span = 40 if et.bits > 16 or et.is_complex else 12
        magnitudes = np.ldexp(rng.uniform(1, 2, n), rng.integers(-span, span, n))
        return np.concatenate([SPECIALS, rng.choice([-1, 1], n) * magnitudes])[:n]

    if et.is_complex:
        arrays = [np.empty(SIZE, et.dtype) for _ in range(arity)]
        for z in arrays:  # component-wise: inf * 1j would make NaN real parts
            z.real, z.imag = real(SIZE), rng.permutation(real(SIZE))
        return arrays
    with np.errstate(over="ignore"):
        return [rng.permutation(real(SIZE)).astype(et.dtype) if k else real(SIZE).astype(et.dtype)
                for k in range(arity)]


CASES = [(name, t) for name in UNARY + BINARY for t in ("bf16", "f32", "f64", "complex<f32>")]


@pytest.mark.parametrize("name, type_name", CASES)
def test_one_element_and_4096_elements_give_the_same_bits(name, type_name):
    arrays = operands(type_name, 2 if name in BINARY else 1, seed=len(name))
    whole = bits(run(name, type_name, *arrays))
    positions = list(range(len(SPECIALS))) + list(range(len(SPECIALS), SIZE, SIZE // 24))
    for i in positions:
        one = bits(run(name, type_name, *(a[i:i + 1] for a in arrays)))
        assert np.array_equal(one, whole[..., i:i + 1]), (
            f"{name} {type_name} at {[a[i] for a in arrays]}: {one.tolist()} alone, "
            f"{whole[..., i].tolist()} in a {SIZE}-element array")


# ------------------------------------------------------------- a reference without the oracle

def nearest(value, type_name: str) -> float:
    """The value of float type ``type_name`` nearest to ``value`` (an mpmath number, exact at its
    precision), ties to the even bit pattern: by rational arithmetic over the candidates."""
    dtype = element_type(type_name).dtype
    if isinstance(value, float):
        exact = Fraction(value)
    else:
        sign, man, exp, _ = value._mpf_
        exact = (-1) ** sign * Fraction(int(man)) * Fraction(2) ** int(exp)
    largest = np.finfo(dtype).max
    ulp = Fraction(float(largest)) - Fraction(float(np.nextafter(largest, dtype.type(0))))
    if abs(exact) >= Fraction(float(largest)) + ulp / 2:  # overflow threshold (ties go to inf too)
        return math.inf if exact > 0 else -math.inf
    guess = np.array(float(exact), np.float64).astype(dtype)
    candidates = [guess, np.nextafter(guess, dtype.type(np.inf)), np.nextafter(guess, dtype.type(-np.inf))]
    best = min(candidates, key=lambda c: (abs(Fraction(*float(c).as_integer_ratio()) - exact),
                                          int(np.array(c).view(np.dtype(f"u{dtype.itemsize}"))) & 1))
    return float(best)


REFERENCE = {
    "exponential": mpmath.exp, "exponential_minus_one": mpmath.expm1, "log": mpmath.log,
    "log_plus_one": mpmath.log1p, "logistic": lambda x: 1 / (1 + mpmath.exp(-x)), "sine": mpmath.sin,
    "cosine": mpmath.cos, "tan": mpmath.tan, "tanh": mpmath.tanh,
    "cbrt": lambda x: mpmath.sign(x) * mpmath.cbrt(abs(x)), "rsqrt": lambda x: 1 / mpmath.sqrt(x),
    "atan2": mpmath.atan2, "power": mpmath.power,
}


@pytest.mark.parametrize("name", UNARY + BINARY)
@pytest.mark.parametrize("type_name", ["f32", "f64"])
def test_random_values_are_correctly_rounded(name, type_name):
    rng = np.random.default_rng(7)
    dtype = element_type(type_name).dtype
    x = (np.ldexp(rng.uniform(1, 2, 40), rng.integers(-16, 16, 40)) * rng.choice([-1, 1], 40)).astype(dtype)
    if name in ("log", "log_plus_one", "rsqrt", "power"):
        x = np.abs(x)
    args = [x] + ([rng.uniform(-6, 6, 40).astype(dtype)] if name in BINARY else [])
    got = run(name, type_name, *args)
    with mpmath.workprec(300):
        for i in range(x.size):
            want = nearest(REFERENCE[name](*(mpmath.mpf(float(a[i])) for a in args)), type_name)
            assert float(got[i]) == want, f"{name}({[float(a[i]) for a in args]}) = {float(got[i])!r}, not {want!r}"


def _pi(multiple, type_name):
    with mpmath.workprec(300):
        return nearest(mpmath.mpf(multiple) * mpmath.pi, type_name)


# (op, operands, expected): IEEE 754-2019 9.2.1 special values and values checked by hand
SPECIAL_VALUES = [
    ("cbrt", [27.0], 3.0), ("cbrt", [-8.0], -2.0), ("cbrt", [-0.0], -0.0), ("cbrt", [-math.inf], -math.inf),
    ("exponential", [0.0], 1.0), ("exponential", [-math.inf], 0.0), ("exponential", [1000.0], math.inf),
    ("exponential_minus_one", [-0.0], -0.0), ("exponential_minus_one", [-math.inf], -1.0),
    ("log", [1.0], 0.0), ("log", [-0.0], -math.inf), ("log", [-1.0], math.nan), ("log", [math.inf], math.inf),
    ("log_plus_one", [-1.0], -math.inf), ("log_plus_one", [-0.0], -0.0), ("log_plus_one", [-2.0], math.nan),
    ("logistic", [0.0], 0.5), ("logistic", [math.inf], 1.0), ("logistic", [-math.inf], 0.0),
    ("sine", [-0.0], -0.0), ("sine", [math.inf], math.nan), ("cosine", [0.0], 1.0), ("cosine", [-math.inf], math.nan),
    ("tan", [-0.0], -0.0), ("tanh", [math.inf], 1.0), ("tanh", [-math.inf], -1.0), ("tanh", [-0.0], -0.0),
    ("rsqrt", [4.0], 0.5), ("rsqrt", [0.0], math.inf), ("rsqrt", [-0.0], -math.inf), ("rsqrt", [math.inf], 0.0),
    ("rsqrt", [-1.0], math.nan),
    ("atan2", [0.0, -0.0], "pi"), ("atan2", [-0.0, -0.0], "-pi"), ("atan2", [0.0, 0.0], 0.0),
    ("atan2", [-0.0, 0.0], -0.0), ("atan2", [1.0, math.inf], 0.0), ("atan2", [-1.0, -math.inf], "-pi"),
    ("atan2", [math.inf, -math.inf], "3pi/4"), ("atan2", [-math.inf, math.inf], "-pi/4"), ("atan2", [1.0, 0.0], "pi/2"),
    ("power", [math.nan, 0.0], 1.0), ("power", [1.0, math.nan], 1.0), ("power", [-1.0, math.inf], 1.0),
    ("power", [-0.0, -3.0], -math.inf), ("power", [0.0, -2.0], math.inf), ("power", [-0.0, 3.0], -0.0),
    ("power", [-0.0, 2.0], 0.0), ("power", [-math.inf, 3.0], -math.inf), ("power", [-math.inf, -3.0], -0.0),
    ("power", [-math.inf, 2.0], math.inf), ("power", [0.5, math.inf], 0.0), ("power", [2.0, -math.inf], 0.0),
    ("power", [-8.0, 1 / 3], math.nan), ("power", [-2.0, 3.0], -8.0), ("power", [2.0, 0.5], "sqrt2"),
]
_NAMED = {"pi": 1, "-pi": -1, "3pi/4": 0.75, "-pi/4": -0.25, "pi/2": 0.5}


@pytest.mark.parametrize("type_name", ["f32", "f64", "bf16"])
@pytest.mark.parametrize("name, args, expected", SPECIAL_VALUES)
def test_special_values(name, args, expected, type_name):
    dtype = element_type(type_name).dtype
    if expected == "sqrt2":
        with mpmath.workprec(300):
            expected = nearest(mpmath.sqrt(2), type_name)
    elif isinstance(expected, str):
        expected = _pi(_NAMED[expected], type_name)
    got = run(name, type_name, *(np.array([a]).astype(dtype) for a in args))
    got = float(got[0])
    if math.isnan(expected):
        assert math.isnan(got)
    else:
        assert got == expected and math.copysign(1, got) == math.copysign(1, expected), (name, args, got)


def test_known_hard_cases():
    """f64 values whose exact result lies close to a rounding boundary."""
    assert float(run("sine", "f64", np.array([1e22]))[0]) == -0.8522008497671888  # sin(10**22), Ng's example
    assert float(run("cbrt", "f64", np.array([27.0]))[0]) == 3.0
    with mpmath.workprec(300):
        want = nearest(mpmath.expm1(mpmath.mpf(1e-5)), "f64")
    assert float(run("exponential_minus_one", "f64", np.array([1e-5]))[0]) == want


def test_complex_results_are_correctly_rounded_off_the_axes():
    z = np.array([0.5 + 0.25j, -3 + 2j, 1e-3 - 7j], np.complex128)
    got = run("exponential", "complex<f64>", z)
    with mpmath.workprec(300):
        for value, result in zip(z, got):
            exact = mpmath.exp(mpmath.mpc(value))
            assert result.real == nearest(exact.real, "f64") and result.imag == nearest(exact.imag, "f64")


# ------------------------------------------------------- another numpy dispatch, same bits

def _digests() -> dict:
    out = {}
    for name in UNARY + BINARY:
        for type_name in ("f32", "f64"):
            arrays = operands(type_name, 2 if name in BINARY else 1, seed=3)
            out[f"{name}:{type_name}"] = hashlib.sha256(bits(run(name, type_name, *arrays)).tobytes()).hexdigest()
    return out


def _wide_simd_targets() -> list:
    """numpy's dispatch targets beyond AVX2 that this CPU has (X86_V4 and the AVX512_* groups)."""
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:
        return []
    return [t for t in __cpu_dispatch__ if ("AVX512" in t or t == "X86_V4") and __cpu_features__.get(t)]


@pytest.mark.slow
def test_same_bits_without_avx512():
    targets = _wide_simd_targets()
    if not targets:
        pytest.skip("this CPU has no AVX-512 dispatch targets in numpy: nothing to turn off")
    env = {**os.environ, "NPY_DISABLE_CPU_FEATURES": " ".join(targets)}
    code = ("import json, sys; sys.path.insert(0, sys.argv[1]); "
            "from suites.test_oracle_correct_rounding import _digests; print(json.dumps(_digests()))")
    root = str(Path(__file__).resolve().parents[1])
    other = subprocess.run([sys.executable, "-c", code, root], env=env, capture_output=True, text=True,
                           timeout=300, check=True)
    import json
    assert json.loads(other.stdout.strip().splitlines()[-1]) == _digests()


def test_results_a_format_cannot_hold_are_noted_at_the_results_elements():
    """pow(-6, 0.5) is invalid: f4E2M1FN has no NaN, so that element is implementation-defined (a
    -0 there is accepted), also when repeated operands are evaluated once; 2**2 = 4 is still checked."""
    from judge.verdict import judge_op
    module = parse_module("""func.func @main(%x: tensor<4xf4E2M1FN>, %y: tensor<4xf4E2M1FN>) -> tensor<4xf4E2M1FN> {
  %0 = "stablehlo.power"(%x, %y) : (tensor<4xf4E2M1FN>, tensor<4xf4E2M1FN>) -> tensor<4xf4E2M1FN>
  return %0 : tensor<4xf4E2M1FN>
}""")
    dtype = element_type("f4E2M1FN").dtype
    x, y = np.array([-6.0, 2.0, -6.0, 2.0]).astype(dtype), np.array([0.5, 2.0, 0.5, 2.0]).astype(dtype)
    actual = np.array([-0.0, 4.0, -0.0, 4.0]).astype(dtype)
    assert judge_op(module.main.ops[0], [x, y], [actual], module=module).status == "implementation-defined"
    wrong = np.array([-0.0, 1.0, -0.0, 4.0]).astype(dtype)  # beyond the 1-ULP narrow-float row: accuracy
    assert judge_op(module.main.ops[0], [x, y], [wrong], module=module).status == "inaccurate"
