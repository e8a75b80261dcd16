"""Complex special values: the generator's (re, im) grid, the oracle on it against
values computed by hand from C99 Annex G and the functions' definitions (not from the oracle,
numpy or XLA), and which elements the records declare implementation-defined (branch-cut sides,
poles, non-finite components) -- and which they do not."""

import math

import numpy as np
import pytest

import oracle
from generators.cases import draw_cases
from generators.tensors import special_value_cross, special_values
from judge.verdict import Traits, judge_op
from oracle import evaluate, parse_module
from oracle.impl_defined import impl_defined_mask
from oracle.types import TensorType, element_type

C64, C128 = element_type("complex<f32>"), element_type("complex<f64>")
PI = math.pi


def _pairs(values):
    return {(float(np.float64(v.real)), float(np.float64(v.imag)), math.copysign(1, v.real), math.copysign(1, v.imag))
            for v in values.astype(np.complex128) if v == v}


def test_unary_grid_is_every_pair_of_special_components():
    v = special_values(C64)
    assert v.size == 21 * 21
    pairs = _pairs(v)
    tiny, big = float(np.finfo(np.float32).smallest_subnormal), float(np.finfo(np.float32).max)
    for re, im in [(-1.0, -0.0), (-1.0, 0.0), (-0.0, 0.0), (0.0, -0.0), (tiny, -big), (-big, -tiny), (1.0, 1.0)]:
        assert (re, im, math.copysign(1, re), math.copysign(1, im)) in pairs, (re, im)
    z = v.astype(np.complex128)
    assert (np.isinf(z.real) & np.isnan(z.imag)).any() and (np.isnan(z.real) & np.isinf(z.imag)).any()


def test_binary_grid_is_the_reduced_set_pairwise():
    a, b = special_value_cross([C128, C128])
    assert a.size == b.size == 121 * 121  # 11 components -> 121 values, every pair
    assert (a == complex(-1, 0)).any() and (b == complex(0, math.inf)).any()
    assert not (np.abs(a.real) == np.finfo(np.float64).smallest_subnormal).any()  # not in the reduced set
    # a complex operand next to a real one keeps the full grid (subnormal components included)
    c, _ = special_value_cross([C128, element_type("f64")])
    assert (np.abs(c.real) == np.finfo(np.float64).smallest_subnormal).any()


@pytest.mark.parametrize("op", ["sqrt", "log_plus_one", "atan2", "chlo.acos"])
def test_first_case_of_a_complex_op_is_the_grid(op):
    info = oracle.lookup(op if op.startswith("chlo.") else f"stablehlo.{op}")
    first = draw_cases(info, C64, 1, seed=0)[0]
    assert first.inputs[0].size == (441 if len(first.inputs) == 1 else 121 * 121)


def _run(op: str, dtype, values) -> np.ndarray:
    t = f"tensor<{len(values)}x{dtype}>"
    text = (f'func.func @main(%a: {t}) -> {t} {{\n  %r = "{op}"(%a) : ({t}) -> {t}\n'
            f'  "func.return"(%r) : ({t}) -> ()\n}}\n')
    x = np.array(values, dtype=np.complex128).astype(element_type(dtype).dtype)
    return np.asarray(evaluate(parse_module(text), [x])[0]).astype(np.complex128)


def _same(got, want, zero_signs=True):
    """Equal components, zero signs included (unless ``zero_signs`` is False), NaN matching NaN."""
    for g, w in zip(got, want):
        for a, b in ((g.real, w.real), (g.imag, w.imag)):
            if math.isnan(b):
                assert math.isnan(a), (got, want)
            else:
                assert a == pytest.approx(b, rel=1e-6, abs=0), (got, want)
                assert not zero_signs or math.copysign(1, a) == math.copysign(1, b), (got, want)


# C99 Annex G (G.6): csqrt(conj(z)) = conj(csqrt(z)), csqrt(-x + 0i) = +0 + i sqrt(x) (G.6.4.2);
# clog(-0 + 0i) = -inf + i pi, clog(+0 + 0i) = -inf + 0i, clog(-x +- 0i) = log x +- i pi (G.6.3.2).
ANNEX_G = [
    ("stablehlo.sqrt", [complex(-1, -0.0), complex(-1, 0.0), complex(-4, -0.0), complex(-0.0, 0.0), complex(4, -0.0)],
     [complex(0, -1), complex(0, 1), complex(0, -2), complex(0, 0), complex(2, -0.0)]),
    ("stablehlo.log", [complex(-1, -0.0), complex(-1, 0.0), complex(-0.0, 0.0), complex(0.0, -0.0), complex(-math.e, 0.0)],
     [complex(0, -PI), complex(0, PI), complex(-math.inf, PI), complex(-math.inf, -0.0), complex(1, PI)]),
    # log1p(z) = log(1 + z) with 1 + z formed component-wise: the sign of a zero imaginary part stays
    ("stablehlo.log_plus_one", [complex(-2, -0.0), complex(-2, 0.0), complex(-1 - math.e, -0.0), complex(-1, 0.0)],
     [complex(0, -PI), complex(0, PI), complex(1, -PI), complex(-math.inf, 0.0)]),
    # rsqrt = 1 / sqrt: 1 / (-2i) = 0.5i (the real zero's sign depends on the division's formula)
    ("stablehlo.rsqrt", [complex(-4, -0.0), complex(-4, 0.0)], [complex(0, 0.5), complex(0, -0.5)]),
    # cacos(conj z) = conj(cacos z); cacos(x + 0i) for x > 1 is +0 - i acosh(x) (G.6.1.1)
    ("chlo.acos", [complex(2, -0.0), complex(2, 0.0)], [complex(0, math.acosh(2)), complex(0, -math.acosh(2))]),
]


@pytest.mark.parametrize("op, operands, expected", ANNEX_G, ids=[row[0] for row in ANNEX_G])
@pytest.mark.parametrize("dtype", ["complex<f32>", "complex<f64>"])
def test_oracle_follows_annex_g_on_the_cuts(op, operands, expected, dtype):
    _same(_run(op, dtype, operands), expected, zero_signs=op != "stablehlo.rsqrt")


def test_inverse_functions_keep_tiny_imaginary_parts():
    """Off the cut by 1e-300: acosh(x - i e) = e / sqrt(1 - x^2) - i acos(x), atan(x - i e) =
    atan(x) - i e / (1 + x^2), acos(x - i e) = acos(x) + i e / sqrt(1 - x^2) (first-order series,
    exact to far below f64's precision at e = 1e-300).  mpmath at a fixed 160 bits returned
    +1.047i for the first (the wrong side) and lost the others' imaginary parts."""
    x, e = 0.5, 1e-300
    got = _run("chlo.acosh", "complex<f64>", [complex(x, -e)])[0]
    assert got.real == pytest.approx(e / math.sqrt(1 - x * x), rel=1e-12) and got.imag == pytest.approx(-math.acos(x))
    got = _run("chlo.atan", "complex<f64>", [complex(x, -e)])[0]
    assert got.imag == pytest.approx(-e / (1 + x * x), rel=1e-12) and got.real == pytest.approx(math.atan(x))
    got = _run("chlo.acos", "complex<f64>", [complex(x, -e)])[0]
    assert got.imag == pytest.approx(e / math.sqrt(1 - x * x), rel=1e-12)


def _mask(op, *operands):
    arrays = [np.array(o, np.complex128).astype(np.complex64) for o in operands]
    m = impl_defined_mask(op, arrays, {}, TensorType(arrays[0].shape, C64))
    return np.zeros(arrays[0].shape, bool) if m is None else m


def test_branch_cut_sides_are_implementation_defined_and_nothing_else():
    z = [complex(-1, -0.0), complex(-1, 0.0), complex(1, -0.0), complex(-1, -1), complex(-1, -1e-30)]
    assert _mask("stablehlo.sqrt", z).tolist() == [True, True, False, False, False]
    assert _mask("stablehlo.log_plus_one", [complex(-2, -0.0), complex(-0.5, -0.0), complex(-2, -1)]).tolist() == \
        [True, False, False]
    assert _mask("chlo.acosh", [complex(0.5, -0.0), complex(-3, 0.0), complex(2, -0.0), complex(0.5, 1)]).tolist() == \
        [True, True, False, False]  # acosh's cut is (-inf, 1) only
    assert _mask("chlo.asinh", [complex(0, 2), complex(-0.0, -2), complex(0, 0.5), complex(1e-3, 2)]).tolist() == \
        [True, True, False, False]
    # abs: an infinite component next to a NaN one, or an exact modulus that is tiny and inexact;
    # never because |z|**2 (one algorithm's intermediate) is out of range: 1e-20 is exact
    assert _mask("stablehlo.abs", [complex(math.inf, math.nan), complex(math.nan, 1), complex(math.inf, 1),
                                   complex(0, 1e-20), complex(0, 1e-10), complex(1e-40, 1e-40)]).tolist() == \
        [True, False, False, False, False, True]
    # log_plus_one: a result component that underflows, not a subnormal operand component as such
    tiny = float(np.finfo(np.float32).smallest_subnormal)
    assert _mask("stablehlo.log_plus_one", [complex(tiny, tiny), complex(tiny, 1.0), complex(0.5, 0.5)]).tolist() == \
        [True, False, False]


def _judge_sqrt(operand, actual, flushes):
    text = ('func.func @main(%a: tensor<1xcomplex<f32>>) -> tensor<1xcomplex<f32>> {\n'
            '  %r = "stablehlo.sqrt"(%a) : (tensor<1xcomplex<f32>>) -> tensor<1xcomplex<f32>>\n'
            '  "func.return"(%r) : (tensor<1xcomplex<f32>>) -> ()\n}\n')
    module = parse_module(text)
    op = module.main.ops[0]
    args = [np.array([operand], np.complex64)]
    return judge_op(op, args, [np.array([actual], np.complex64)], module=module,
                    traits=Traits(flushes_subnormals=flushes)).comparison.status


def test_a_flushing_backend_gets_the_cut_of_the_flushed_operand_and_only_it():
    tiny = float(np.finfo(np.float32).smallest_subnormal)
    # -1 - 1e-45i is below the cut: the root is -i; flushed it is -1 - 0i, on the cut (either side).
    # The other side of the cut is a finite value of a function the spec bounds nowhere: inaccurate.
    assert _judge_sqrt(complex(-1, -tiny), complex(0, 1), flushes=False) == "inaccurate"
    assert _judge_sqrt(complex(-1, -tiny), complex(0, 1), flushes=True) == "implementation-defined"
    assert _judge_sqrt(complex(-1, -1), complex(0.45508986, 1.09868411), flushes=True) == "inaccurate"


def test_deviation_conditions_fire_on_their_trigger_only():
    from judge.conditions import CONDITIONS
    from oracle import ir

    def compare_op(direction):
        t = TensorType((1,), C64)
        return ir.Op("stablehlo.compare", (ir.Value(t), ir.Value(t)), (ir.Value(TensorType((1,), element_type("i1"))),),
                     {"comparison_direction": ir.EnumAttr("comparison_direction", direction)})
    z = [np.array([complex(0, 1)], np.complex64)] * 2
    assert CONDITIONS["complex_order_comparison"](compare_op("GE"), z)
    assert not CONDITIONS["complex_order_comparison"](compare_op("EQ"), z)
    assert not CONDITIONS["complex_order_comparison"](compare_op("GE"), [np.array([1.0], np.float32)] * 2)
    tiny, large, zero = (CONDITIONS[k] for k in ("complex_tiny_component", "complex_large_component",
                                                  "complex_zero_component"))
    assert tiny(None, [np.array([complex(-2, -1.2e-38)], np.complex64)])
    assert not tiny(None, [np.array([complex(-2, -1e-30), complex(0, 1)], np.complex64)])
    assert large(None, [np.array([complex(0, 3e38)], np.complex64)]) and not large(None, [np.array([complex(1, 1)], np.complex64)])
    assert zero(None, [np.array([complex(0, 1.7)], np.complex64)]) and not zero(None, [np.array([complex(1, 1)], np.complex64)])
