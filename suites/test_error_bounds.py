"""The per-element error bounds of dot_general / convolution and the comparator using them.

(a) Legitimate implementations must pass: simulated backends that sum in f32 in different
    orders, or round the operands to bf16 as precision DEFAULT allows, on inputs with
    catastrophic cancellation (where relative tolerances are meaningless).
(b) Wrong answers must fail: a dropped term, a flipped sign, accumulation in a narrower
    type than the spec / precision_config allow.
The simulated backends are written here, independently of the oracle.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import oracle
from generators.ops.dot_general import cancelling_inputs
from oracle.roundoff import gamma
from oracle.types import element_type
from judge.compare import compare, compare_outputs
from judge.tolerance import tolerance_for

from .test_oracle_structural import op_fn

F32 = element_type("f32")


def dot_program(k: int, m: int = 4, n: int = 3, ty: str = "f32", precision: str | None = "HIGHEST") -> str:
    lt, rt, out = f"tensor<{m}x{k}x{ty}>", f"tensor<{k}x{n}x{ty}>", f"tensor<{m}x{n}x{ty}>"
    prec = "" if precision is None else (f", precision_config = [#stablehlo<precision {precision}>, "
                                         f"#stablehlo<precision {precision}>]")
    return op_fn('"stablehlo.dot_general"(%arg0, %arg1) {dot_dimension_numbers = #stablehlo.dot<'
                 f'lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>{prec}}} : ({lt}, {rt}) -> {out}',
                 [lt, rt], out)


def oracle_and_bound(text: str, inputs):
    module = oracle.parse_module(text)
    op_ = next(o for o in module.main.ops if o.name.startswith("stablehlo."))
    (expected,) = oracle.evaluate(module, inputs)
    (bound,) = oracle.lookup(op_.name).extra["error_bound"](op_, inputs, [r.type for r in op_.results])
    return expected, bound, op_


def judge(expected, actual, bound, op_name="dot_general"):
    et = element_type(str(expected.dtype) if expected.dtype != np.float32 else "f32")
    return compare(expected, actual, et, tolerance_for(op_name, et), error_bound=bound)


def simulated(lhs, rhs, order: str, acc=np.float32, operand_rounding=None, rng=None) -> np.ndarray:
    """A backend: products and sums rounded to ``acc`` after every step, in the given order."""
    if operand_rounding is not None:
        lhs, rhs = (x.astype(operand_rounding).astype(np.float32) for x in (lhs, rhs))
    k = lhs.shape[1]
    prods = (lhs[:, :, None].astype(acc) * rhs[None, :, :].astype(acc)).astype(acc)  # (m, k, n)
    if order == "forward":
        idx = range(k)
    elif order == "reverse":
        idx = range(k - 1, -1, -1)
    elif order == "random":
        idx = rng.permutation(k)
    else:  # pairwise
        terms = [prods[:, i, :] for i in range(k)]
        while len(terms) > 1:
            terms = [(terms[i] + terms[i + 1]).astype(acc) if i + 1 < len(terms) else terms[i]
                     for i in range(0, len(terms), 2)]
        return terms[0].astype(np.float32)
    s = np.zeros(prods[:, 0, :].shape, dtype=acc)
    for i in idx:
        s = (s + prods[:, i, :]).astype(acc)
    return s.astype(np.float32)


def cancelling(k: int, seed: int):
    """Products that cancel in pairs (magnitudes up to ~2**62), one term nudged by 2**-20:
    the exact sum is tiny next to sum |a*b|."""
    rng = np.random.default_rng(seed)
    lhs, rhs = cancelling_inputs(rng, F32, (4, k), (k, 3), 1, 0)
    lhs[:, 1::2] = lhs[:, 0::2]
    lhs[:, 0] = (lhs[:, 0].astype(np.float64) * (1 + 2.0 ** -20)).astype(np.float32)
    return lhs, rhs


# ------------------------------------------------------------------------ (a) passes

@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("order", ["forward", "reverse", "pairwise", "random"])
def test_f32_accumulation_in_any_order_passes_on_cancellation(order, seed):
    lhs, rhs = cancelling(64, seed)
    expected, bound, _ = oracle_and_bound(dot_program(64), [lhs, rhs])
    actual = simulated(lhs, rhs, order, rng=np.random.default_rng(seed))
    result = judge(expected, actual, bound)
    assert result.status == "pass", result.message


def test_the_cancellation_inputs_defeat_relative_tolerances():
    worst = 0.0
    for seed in range(6):
        lhs, rhs = cancelling(64, seed)
        expected, _, _ = oracle_and_bound(dot_program(64), [lhs, rhs])
        actual = simulated(lhs, rhs, "forward").astype(np.float64)
        rel = np.abs(actual - expected) / np.maximum(np.abs(expected.astype(np.float64)), 1e-300)
        worst = max(worst, float(rel.max()))
    assert worst > 1e-2, worst  # f32 summation is legitimately far off relative to the tiny exact result


def test_bf16_operand_rounding_passes_with_default_precision_only():
    rng = np.random.default_rng(7)
    lhs = rng.uniform(-2, 2, (4, 32)).astype(np.float32)
    rhs = rng.uniform(-2, 2, (32, 3)).astype(np.float32)
    actual = simulated(lhs, rhs, "forward", operand_rounding=ml_dtypes.bfloat16)
    expected, bound_default, _ = oracle_and_bound(dot_program(32, precision="DEFAULT"), [lhs, rhs])
    assert judge(expected, actual, bound_default).status == "pass"
    expected, bound_absent, _ = oracle_and_bound(dot_program(32, precision=None), [lhs, rhs])
    assert judge(expected, actual, bound_absent).status == "pass"  # no precision_config = DEFAULT
    expected, bound_highest, _ = oracle_and_bound(dot_program(32, precision="HIGHEST"), [lhs, rhs])
    assert judge(expected, actual, bound_highest).status == "mismatch"


def test_bound_is_gamma_n_times_sum_of_magnitudes_plus_rounding():
    lhs = np.array([[1e8, 1.0, -1e8]], dtype=np.float32)
    rhs = np.ones((3, 1), dtype=np.float32)
    text = op_fn('"stablehlo.dot_general"(%arg0, %arg1) {dot_dimension_numbers = #stablehlo.dot<'
                 'lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = '
                 '[#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<1x3xf32>, tensor<3x1xf32>) '
                 '-> tensor<1x1xf32>', ["tensor<1x3xf32>", "tensor<3x1xf32>"], "tensor<1x1xf32>")
    expected, bound, _ = oracle_and_bound(text, [lhs, rhs])
    u = 2.0 ** -24
    S = 2e8 + 1
    core = ((1 + u) * (1 + gamma(2, u)) - 1) * S  # one product rounding, two additions
    assert expected[0, 0] == 1.0
    assert core <= bound[0, 0] <= core * 1.01 + 1e-6  # + 0.5 ulp roundings of a result near 1
    # f32 left to right gives 0 (1e8 + 1 = 1e8 in f32): |0 - 1| = 1 <= bound ~ 24
    assert judge(expected, np.zeros((1, 1), np.float32), bound).status == "pass"


def test_nan_and_infinity_are_exact_and_order_dependent_overflow_is_not_compared():
    lhs = np.array([[np.inf, 1.0], [np.nan, 1.0], [3e38, 3e38]], dtype=np.float32)
    rhs = np.ones((2, 1), dtype=np.float32)
    text = op_fn('"stablehlo.dot_general"(%arg0, %arg1) {dot_dimension_numbers = #stablehlo.dot<'
                 'lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<3x2xf32>, '
                 'tensor<2x1xf32>) -> tensor<3x1xf32>', ["tensor<3x2xf32>", "tensor<2x1xf32>"], "tensor<3x1xf32>")
    expected, bound, _ = oracle_and_bound(text, [lhs, rhs])
    assert expected[0, 0] == np.inf and np.isnan(expected[1, 0]) and expected[2, 0] == np.inf
    # 3e38 + 3e38 overflows f32 whatever the order... but only the partial sums' magnitude
    # tells; the sum of magnitudes exceeds f32's max, so that element is not compared.
    assert np.isnan(bound[2, 0]) and np.isfinite(bound[:2]).all()
    good = np.array([[np.inf], [np.nan], [1.0]], dtype=np.float32)
    r = judge(expected, good, bound)
    assert r.status == "implementation-defined" and r.impl_defined_count == 1, r.message
    bad = np.array([[3.4e38], [0.0], [1.0]], dtype=np.float32)
    assert judge(expected, bad, bound).mismatch_count == 2


# ------------------------------------------------------------------------ (b) catches

def _one_term_dropped(lhs, rhs, which: int):
    l2 = lhs.copy()
    l2[:, which] = 0
    return simulated(l2, rhs, "forward")


@pytest.mark.parametrize("seed", range(4))
def test_a_dropped_term_is_caught(seed):
    lhs, rhs = cancelling(16, seed)
    expected, bound, _ = oracle_and_bound(dot_program(16), [lhs, rhs])
    # drop the smallest-magnitude term of row 0, column 0: still caught unless it is below the bound
    terms = np.abs(lhs[0].astype(np.float64) * rhs[:, 0])
    which = int(np.argmax(np.where(terms > bound[0, 0] * 2, -terms, -np.inf)))
    actual = _one_term_dropped(lhs, rhs, which)
    r = judge(expected, actual, bound)
    assert r.status == "mismatch" and (0, 0) in [row[0] for row in r.first_mismatches], r.message


def test_a_flipped_sign_is_caught():
    lhs, rhs = cancelling(16, 3)
    expected, bound, _ = oracle_and_bound(dot_program(16), [lhs, rhs])
    actual = simulated(lhs, rhs, "forward")
    actual[1, 2] = -actual[1, 2] if actual[1, 2] != 0 else 1.0
    r = judge(expected, actual, bound)
    assert r.status == "mismatch" and r.mismatch_count >= 1, r.message
    assert "bound" in r.message


def test_accumulating_in_a_narrower_type_than_allowed_is_caught():
    rng = np.random.default_rng(11)
    lhs = rng.uniform(0.5, 1.5, (4, 256)).astype(np.float32)  # no cancellation: error ~ n * u_f16
    rhs = rng.uniform(0.5, 1.5, (256, 3)).astype(np.float32)
    expected, bound, _ = oracle_and_bound(dot_program(256), [lhs, rhs])
    assert judge(expected, simulated(lhs, rhs, "forward"), bound).status == "pass"
    narrow = simulated(lhs, rhs, "forward", acc=np.float16)
    assert judge(expected, narrow, bound).status == "mismatch"


def test_compare_outputs_takes_per_output_bounds():
    e = np.array([1.0, 2.0], np.float32)
    a = np.array([1.0 + 1e-3, 2.0], np.float32)
    f32 = [F32]
    assert compare_outputs([e], [a], f32, error_bounds=[np.array([1e-2, 0.0])]).status == "pass"
    assert compare_outputs([e], [a], f32, error_bounds=[np.array([1e-4, 0.0])]).status == "mismatch"
    c = element_type("complex<f32>")
    ec = np.array([1 + 1j], np.complex64)
    ac = np.array([1 + 1.01j], np.complex64)
    assert compare(ec, ac, c, error_bound=np.array([1.0 + 0.1j])).status == "pass"
    assert compare(ec, ac, c, error_bound=np.array([1.0 + 0.001j])).status == "mismatch"


# ------------------------------------------------------------------------ a real backend

def test_xla_cpu_within_the_bound_on_cancellation():
    from adapters import get_backend
    backend = get_backend("xla")
    ok, why = backend.available()
    if not ok:
        pytest.skip(why)
    try:
        lhs, rhs = cancelling(64, 5)
        text = dot_program(64)
        expected, bound, _ = oracle_and_bound(text, [lhs, rhs])
        run = backend.run(oracle.print_module(oracle.parse_module(text)), [lhs, rhs])
        assert run.status == "ok", run.message
        r = judge(expected, run.outputs[0], bound)
        assert r.status == "pass", r.message
    finally:
        backend.close()


def test_complex_power_bound_grows_with_w_log_z_and_stays_tight_where_it_is_small():
    """z = e**i (log z = i, |z**w| = 1 for real w): the bound is u (80 + 4 |w|) |z**w| -- 480 u at w = 100, 82 u at w = 0.5
    (hand-computed from complex_power_error_bound's formula)."""
    from judge.verdict import judge_op
    module = oracle.parse_module("""
func.func @main(%a: tensor<1xcomplex<f32>>, %b: tensor<1xcomplex<f32>>) -> tensor<1xcomplex<f32>> {
  %0 = stablehlo.power %a, %b : tensor<1xcomplex<f32>>
  return %0 : tensor<1xcomplex<f32>>
}""")
    u = float(np.finfo(np.float32).eps)
    z = np.array([np.exp(1j)], np.complex64)

    def verdict(w, relative_error):
        exact = np.power(z.astype(np.complex128), np.complex128(w))
        actual = (exact * (1 + relative_error)).astype(np.complex64)
        return judge_op(module.main.ops[0], [z, np.array([w], np.complex64)], [actual], module=module).status

    assert verdict(100, 300 * u) == "pass"       # within 480 u: |w log z| = 100 costs that much
    assert verdict(0.5, 100 * u) == "inaccurate"  # beyond 82 u (a transcendental's value: accuracy)
    assert verdict(0.5, 40 * u) == "pass"
