"""Error bounds of the order-dependent accumulations (oracle/accumulation.py), registered as
``extra["error_bound"]`` on reduce, reduce_window, scatter, select_and_scatter and the
collectives.

(a) Legitimate schedules must pass: simulated backends written here, independently of the
    oracle - sequential in the element type, reversed, a random permutation, pairwise
    halves, accumulated in f32 / f64 and rounded once - including 10**5 terms with heavy
    cancellation in f32, and the exact sum (math.fsum) itself.
(b) Wrong answers must fail: one term dropped or counted twice, in bf16, f16 and f32, for
    sizes where the spec's bound can see one term at all (see ``test_bf16_limit``).
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

import oracle
from oracle.accumulation import accumulation_bound
from oracle.types import element_type
from suites.test_oracle_reductions import reduce_program, reduce_window_program

DTYPES = {"bf16": ml_dtypes.bfloat16, "f16": np.float16, "f32": np.float32}


def bound_and_expected(text: str, inputs):
    module = oracle.parse_module(text)
    op_ = next(o for o in module.main.ops if o.name.startswith("stablehlo."))
    expected = oracle.evaluate(module, inputs)
    bounds = oracle.lookup(op_.name).extra["error_bound"](op_, inputs, [r.type for r in op_.results])
    return expected[0], bounds[0]


def within(expected, actual, bound) -> np.ndarray:
    """The comparator's rule, written out: equal, or |actual - expected| <= bound (finite)."""
    e, a = np.asarray(expected, np.float64), np.asarray(actual, np.float64)
    with np.errstate(invalid="ignore"):
        return (e == a) | (np.isnan(e) & np.isnan(a)) | (np.abs(a - e) <= bound)


def mixed(rng, shape, t: str, low: float = -8, high: float = 0) -> np.ndarray:
    """Mixed signs, magnitudes spread over 2**low .. 2**high."""
    return (rng.choice([-1.0, 1.0], shape) * np.exp2(rng.uniform(low, high, shape))).astype(DTYPES[t])


# ------------------------------------------------------------ simulated backends

def sequential(x: np.ndarray, order=None) -> np.ndarray:
    """Left fold over axis 0, each addition rounded to x's type."""
    acc = np.zeros(x.shape[1:], x.dtype)
    for k in (range(x.shape[0]) if order is None else order):
        acc = (acc + x[k]).astype(x.dtype)
    return acc


def halves(x: np.ndarray) -> np.ndarray:
    """Pairwise by recursive halving (another tree than the oracle's adjacent pairs)."""
    if x.shape[0] == 1:
        return x[0]
    mid = x.shape[0] // 2
    return (halves(x[:mid]) + halves(x[mid:])).astype(x.dtype)


def wide(x: np.ndarray, acc) -> np.ndarray:
    """Accumulated in ``acc`` (sequentially), rounded once (XLA CPU does this for bf16)."""
    return sequential(x.astype(acc)).astype(x.dtype)


def legitimate(x: np.ndarray, rng) -> dict:
    n = x.shape[0]
    return {"sequential": sequential(x), "reversed": sequential(x, range(n - 1, -1, -1)),
            "permuted": sequential(x, rng.permutation(n)), "halves": halves(x),
            "f32 then rounded": wide(x, np.float32), "f64 then rounded": wide(x, np.float64),
            "exact then rounded": np.array([math.fsum(c) for c in x.astype(np.float64).T]).astype(x.dtype)}


def wrong(x: np.ndarray, legit: np.ndarray) -> dict:
    """A correct result with the largest term of each column dropped / counted twice."""
    biggest = np.abs(x.astype(np.float64)).argmax(axis=0)
    term = x.astype(np.float64)[biggest, np.arange(x.shape[1])]
    return {"dropped": (legit.astype(np.float64) - term).astype(x.dtype),
            "twice": (legit.astype(np.float64) + term).astype(x.dtype)}


# ------------------------------------------------------------------ reduce, add

#: (type, terms) where one term of the largest magnitude must be seen: the bound is
#: ~(n-1) u sum|x|, so the term must exceed that (u = 2**-8, 2**-11, 2**-24).
CAUGHT = [("bf16", 16), ("f16", 16), ("f16", 64), ("f32", 16), ("f32", 256), ("f32", 4096)]


@pytest.mark.parametrize("t, n", CAUGHT)
def test_reduce_add_passes_every_order_and_catches_a_wrong_term(t, n):
    rng = np.random.default_rng(n)
    x = mixed(rng, (n, 32), t)
    init = np.array(0, DTYPES[t])
    expected, bound = bound_and_expected(reduce_program((n, 32), t, [0]), [x, init])
    assert not np.isnan(bound).any()
    for name, result in legitimate(x, rng).items():
        assert within(expected, result, bound).all(), name
    for name, result in wrong(x, legitimate(x, rng)["sequential"]).items():
        assert not within(expected, result, bound).any(), name


@pytest.mark.parametrize("t", ["bf16", "f16", "f32"])
def test_reduce_window_cumulative_sum_passes_orders_and_catches_a_wrong_term(t):
    """A cumulative sum (window = the whole prefix, like the interpret corpus's cumsum)."""
    rng = np.random.default_rng(1)
    n = 16
    x = mixed(rng, (n,), t)
    x[n // 2] = DTYPES[t](4.0)  # one dominant term for the wrong results to drop
    attrs = f"window_dimensions = array<i64: {n}>, padding = dense<[[{n - 1}, 0]]> : tensor<1x2xi64>"
    expected, bound = bound_and_expected(reduce_window_program((n,), t, (n,), attrs), [x, np.array(0, DTYPES[t])])
    prefixes = [x[:k + 1, None] for k in range(n)]
    for how in ("sequential", "reversed", "halves", "f32 then rounded"):
        result = np.array([legitimate(p, np.random.default_rng(0))[how][0] for p in prefixes])
        assert within(expected, result, bound).all(), how
    seq = np.array([sequential(p)[0] for p in prefixes])
    dropped = seq.astype(np.float64)
    dropped[n // 2:] -= 4.0
    caught = ~within(expected, dropped.astype(DTYPES[t]), bound)
    assert caught[n // 2:].all() and not caught[:n // 2].any()


def test_reduce_window_with_padding_and_strides_counts_init_terms():
    """2-d windows with padding (init values) and strides: bounds per window."""
    rng = np.random.default_rng(2)
    x = mixed(rng, (9, 7), "f32")
    attrs = ("window_dimensions = array<i64: 3, 4>, window_strides = array<i64: 2, 1>, "
             "padding = dense<[[1, 1], [2, 0]]> : tensor<2x2xi64>")
    expected, bound = bound_and_expected(reduce_window_program((9, 7), "f32", (5, 6), attrs),
                                         [x, np.array(0, np.float32)])
    padded = np.pad(x.astype(np.float64), [(1, 1), (2, 0)])
    exact = np.array([[math.fsum(padded[2 * i:2 * i + 3, j:j + 4].ravel()) for j in range(6)] for i in range(5)])
    assert within(expected, exact, bound).all()
    assert (bound > 0).all() and (bound < 1e-5 * np.abs(padded).max() * 12).all()


def test_ten_to_the_five_terms_with_heavy_cancellation_in_f32_are_not_flagged():
    rng = np.random.default_rng(3)
    half = (rng.standard_normal((50_000, 4)) * np.exp2(rng.integers(-10, 10, (50_000, 4)))).astype(np.float32)
    noise = (rng.standard_normal((1000, 4)) * 1e-3).astype(np.float32)
    x = np.concatenate([half, -half, noise])[rng.permutation(101_000)]
    expected, bound = bound_and_expected(reduce_program(x.shape, "f32", [0]), [x, np.array(0, np.float32)])
    exact = np.array([math.fsum(c) for c in x.astype(np.float64).T])
    results = {"sequential": sequential(x), "exact": exact, "f64 then rounded": wide(x, np.float64),
               "halves": halves(x)}
    for name, result in results.items():
        assert within(expected, result, bound).all(), name
    # heavy cancellation: the result is tiny against sum|x|, a relative tolerance would be useless
    assert (np.abs(exact) < 1e-4 * np.abs(x).astype(np.float64).sum(0)).all()
    # the bound is ~ n u sum|x| (0.6% of sum|x| here): not vacuous, not a guess
    assert (bound < 0.01 * np.abs(x).astype(np.float64).sum(0)).all()


def test_bf16_limit_the_spec_allows_a_sequential_bf16_sum_to_stagnate():
    """Why bf16 cannot see one term among thousands: the spec computes the body in bf16 in
    any order, and the sequential sum of 4096 ones is 256 (256 + 1 rounds to 256).  The bound
    admits it - and a result above the exact sum by more than (n-1) u sum|x| is still caught."""
    x = np.ones((4096, 1), ml_dtypes.bfloat16)
    expected, bound = bound_and_expected(reduce_program((4096, 1), "bf16", [0]), [x, np.array(0, ml_dtypes.bfloat16)])
    assert float(sequential(x)[0]) == 256.0
    assert within(expected, sequential(x), bound).all()
    assert float(expected[0]) == 4096.0  # the oracle's log-depth tree is exact here
    assert not within(expected, np.array([4096.0 + 1.1 * 4095 / 256 * 4096]), bound).any()


# -------------------------------------------------------- other bodies and cases

def test_max_and_min_are_exact_in_every_order():
    rng = np.random.default_rng(4)
    x = mixed(rng, (64, 8), "bf16")
    for body, fn in (("stablehlo.maximum", np.max), ("stablehlo.minimum", np.min)):
        init = np.array(-np.inf if "max" in body else np.inf, ml_dtypes.bfloat16)
        expected, bound = bound_and_expected(reduce_program((64, 8), "bf16", [0], op=body), [x, init])
        assert (bound == 0).all()
        assert within(expected, fn(x, axis=0), bound).all()
        assert not within(expected, np.sort(x, axis=0)[-2 if "max" in body else 1], bound).any()


def test_product_bound_holds_and_sees_a_dropped_factor():
    rng = np.random.default_rng(5)
    x = (rng.choice([-1, 1], (32, 16)) * rng.uniform(1.25, 1.5, (32, 16)) ** rng.choice([-1, 1], (32, 16)))
    x = x.astype(np.float16)  # every factor 20% or more away from 1: dropping one is visible
    body = "stablehlo.multiply"
    expected, bound = bound_and_expected(reduce_program((32, 16), "f16", [0], op=body), [x, np.array(1, np.float16)])
    exact = np.prod(x.astype(np.float64), axis=0)
    seq = np.ones(16, np.float16)
    for k in rng.permutation(32):
        seq = (seq * x[k]).astype(np.float16)
    assert within(expected, exact, bound).all() and within(expected, seq, bound).all()
    assert not within(expected, exact / x[0].astype(np.float64), bound).any()


def test_product_that_may_underflow_or_overflow_in_some_order_is_not_compared():
    x = np.array([[1e30, 1e30], [1e30, 1e-30], [1e-30, 1], [1e-30, 1]], np.float32)  # 1e30 * 1e30 overflows
    _, bound = bound_and_expected(reduce_program((4, 2), "f32", [0], op="stablehlo.multiply"),
                                  [x, np.array(1, np.float32)])
    assert np.isnan(bound[0]) and bound[1] > 0  # column 1: 1e30 * 1e-30 in any order, no overflow
    y = np.array([[1e30, 1e-30], [1e30, 1e-30]], np.float32)  # two factors: one rounding, inf / 0 everywhere
    _, bound = bound_and_expected(reduce_program((2, 2), "f32", [0], op="stablehlo.multiply"),
                                  [y, np.array(1, np.float32)])
    assert bound.tolist() == [0.0, 0.0]


def test_sum_whose_partial_sums_may_overflow_is_not_compared_and_inf_is_exact():
    big = np.float32(3e38)
    x = np.array([[big, big, 0], [-big, 1, 0], [big, -big, np.inf]], np.float32)  # columns: 3 terms
    _, bound = bound_and_expected(reduce_program((3, 3), "f32", [0]), [x, np.array(0, np.float32)])
    # column 0 (+big, -big, +big): big + big overflows in some order -> not compared;
    # column 1 (big, 1, -big): no partial sum can overflow; column 2: inf in every order
    assert np.isnan(bound[0]) and 0 < bound[1] < 1e33 and bound[2] == 0


def test_complex_sum_bounds_each_part():
    rng = np.random.default_rng(6)
    x = (rng.standard_normal((100, 3)) + 1j * rng.standard_normal((100, 3)) * 1e3).astype(np.complex64)
    bound = accumulation_bound("stablehlo.add", x, element_type("complex<f32>"))
    exact = x.astype(np.complex128).sum(axis=0)
    seq = sequential(x)
    assert (np.abs(seq.real - exact.real) <= bound.real).all() and (np.abs(seq.imag - exact.imag) <= bound.imag).all()
    assert (bound.imag > 100 * bound.real).all()  # the parts are bounded separately


def test_non_identity_init_allows_one_more_or_one_less_init():
    x = np.full((8, 1), 0.25, np.float32)
    init = np.array(1.0, np.float32)
    expected, bound = bound_and_expected(reduce_program((8, 1), "f32", [0]), [x, init])
    for count in (0, 1, 2):
        assert within(expected, np.array([2.0 + count]), bound).all()
    assert not within(expected, np.array([5.5]), bound).any()


def test_integer_and_non_monoid_bodies_get_no_bound():
    x = np.arange(6, dtype=np.int32).reshape(3, 2)
    _, bound = bound_and_expected(reduce_program((3, 2), "i32", [0]), [x, np.array(0, np.int32)])
    assert bound is None
    xf = np.ones((3, 2), np.float32)
    _, bound = bound_and_expected(reduce_program((3, 2), "f32", [0], op="stablehlo.subtract"),
                                  [xf, np.array(0, np.float32)])
    assert bound is None


# ------------------------------------------------------------------------ scatter

def scatter_add_program(t: str, size: int, updates: int) -> str:
    from suites.test_oracle_gather_scatter import scatter_text
    body = f"""    %s = stablehlo.add %a0, %a1 : tensor<{t}>
    stablehlo.return %s : tensor<{t}>"""
    dims = "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1"
    return scatter_text([f"tensor<{size}x{t}>"], f"tensor<{updates}x1xi64>", [f"tensor<{updates}x{t}>"],
                        dims, body, f"tensor<{t}>")


@pytest.mark.parametrize("t", ["bf16", "f16", "f32"])
def test_scatter_add_with_colliding_indices(t):
    """Updates colliding on each element, applied in any order (sequential per target in
    the element type, wide then rounded): inside; one colliding update lost: caught."""
    rng = np.random.default_rng(7)
    size, k = 8, 12 * 8  # 12 updates per element on average, some elements none
    operand = mixed(rng, (size,), t)
    idx = rng.integers(0, size - 1, (k, 1))  # the last element: never hit (exact)
    upd = mixed(rng, (k,), t)
    upd[0] = DTYPES[t](8.0)  # one large update (the lost one, below)
    expected, bound = bound_and_expected(scatter_add_program(t, size, k), [operand, idx, upd])
    assert bound[-1] == 0
    exact = operand.astype(np.float64).copy()
    np.add.at(exact, idx[:, 0], upd.astype(np.float64))
    results = {"exact": exact}
    for name, order in (("forward", range(k)), ("reverse", range(k - 1, -1, -1)), ("random", rng.permutation(k))):
        r = operand.copy()
        for j in order:
            r[idx[j, 0]] = (r[idx[j, 0]] + upd[j]).astype(r.dtype)
        results[name] = r
    wide_ = operand.astype(np.float32)
    np.add.at(wide_, idx[:, 0], upd.astype(np.float32))
    results["f32 then rounded"] = wide_.astype(DTYPES[t])
    for name, r in results.items():
        assert within(expected, r, bound).all(), name
    lost = results["forward"].astype(np.float64)
    lost[idx[0, 0]] -= 8.0
    caught = ~within(expected, lost, bound)
    assert caught[idx[0, 0]] and caught.sum() == 1


# ------------------------------------------------------------- select_and_scatter

def test_select_and_scatter_add_overlapping_windows():
    """Overlapping windows (stride 1): an element selected by several windows sums their
    sources in any order; one source lost is caught (f16)."""
    from suites.test_oracle_reductions import SAS
    text = SAS.format(t="f16", s="10", w="8", dir="GE", wd="3", ws="1", pad="[[0, 0]]", r=1)
    x = np.array([0, 1, 9, 2, 3, 8, 1, 0, 7, 5], np.float16)  # 9 wins windows 0-2, 8 windows 3-5, ...
    src = np.array([1.5, -0.25, 2.0, 0.75, 1.25, -3.0, 0.5, 4.0], np.float16)
    expected, bound = bound_and_expected(text, [x, src, np.array(0, np.float16)])
    # window w covers x[w:w+3]; its maximum's index (first of ties)
    winners = [w + int(np.argmax(x[w:w + 3])) for w in range(8)]
    exact = np.zeros(10)
    for w, j in enumerate(winners):
        exact[j] += float(src[w])
    backward = np.zeros(10, np.float16)
    for w in reversed(range(8)):
        backward[winners[w]] = (backward[winners[w]] + src[w]).astype(np.float16)
    assert within(expected, exact, bound).all() and within(expected, backward, bound).all()
    assert (bound[[0, 1, 3, 4, 6, 7, 9]] == 0).all()  # never selected: the init, exactly
    lost = exact.copy()
    lost[2] -= 2.0  # window 2's source, selected x[2] = 9
    assert not within(expected, lost, bound)[2]


# ----------------------------------------------------------- all_reduce, reduce_scatter

GRID_TEXT = """
func.func @main(%x: tensor<8x{t}>) -> (tensor<8x{t}>, tensor<2x{t}>) {{
  %a = "stablehlo.all_reduce"(%x) ({{
    ^bb0(%p: tensor<{t}>, %q: tensor<{t}>):
      %0 = stablehlo.add %p, %q : tensor<{t}>
      stablehlo.return %0 : tensor<{t}>
  }}) {{replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}} : (tensor<8x{t}>) -> tensor<8x{t}>
  %s = "stablehlo.reduce_scatter"(%x) ({{
    ^bb0(%p: tensor<{t}>, %q: tensor<{t}>):
      %0 = stablehlo.add %p, %q : tensor<{t}>
      stablehlo.return %0 : tensor<{t}>
  }}) {{scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}}
    : (tensor<8x{t}>) -> tensor<2x{t}>
  return %a, %s : tensor<8x{t}>, tensor<2x{t}>
}}"""


@pytest.mark.parametrize("t", ["bf16", "f16", "f32"])
def test_all_reduce_and_reduce_scatter_bounds_on_a_grid(t):
    """Four processes' values summed in any tree (reversed fold, pairs, wide): inside the bound
    the grid evaluation records; one process's value lost: caught, on every process."""
    from oracle.grid import evaluate_parallel
    rng = np.random.default_rng(8)
    xs = {(r, 0): mixed(rng, (8,), t) for r in range(4)}
    xs[(2, 0)][5] = DTYPES[t](8.0)  # a large contribution, lost below
    module = oracle.parse_module(GRID_TEXT.format(t=t))
    bounds: dict = {}
    out = evaluate_parallel(module, {p: [x] for p, x in xs.items()}, num_replicas=4, num_partitions=1,
                            error_bounds=bounds)
    ops = [o for o in module.main.ops if o.name in ("stablehlo.all_reduce", "stablehlo.reduce_scatter")]
    stack = np.stack([xs[(r, 0)] for r in range(4)])
    legit = {"reversed": sequential(stack, [3, 2, 1, 0]), "pairs": halves(stack),
             "f64 then rounded": wide(stack, np.float64)}
    lost = legit["reversed"].astype(np.float64)
    lost[5] -= 8.0
    for r in range(4):
        all_b, scat_b = (bounds[(r, 0)][o.results[0]] for o in ops)
        (expected_all, expected_scat) = out[(r, 0)]
        assert scat_b.shape == (2,)
        for name, result in legit.items():
            assert within(expected_all, result, all_b).all(), name
            assert within(expected_scat, result[2 * r:2 * r + 2], scat_b).all(), name
        caught = ~within(expected_all, lost, all_b)
        assert caught[5] and caught.sum() == 1
        assert caught[2 * r:2 * r + 2].tolist() == (~within(expected_scat, lost[2 * r:2 * r + 2], scat_b)).tolist()


def test_a_sum_that_overflows_in_every_order_is_compared_exactly():
    """-max + -max is -inf in every order: compared (bound 0), not skipped."""
    x = np.array([[-3.4e38], [-3.4e38], [-1.0]], np.float32)
    expected, bound = bound_and_expected(reduce_program((3, 1), "f32", [0]), [x, np.array(0, np.float32)])
    assert expected[0] == -np.inf and bound[0] == 0
    x64 = np.array([[-1.7e308], [-1.7e308]], np.float64)  # f64: even the float64 sum overflows
    expected, bound = bound_and_expected(reduce_program((2, 1), "f64", [0]), [x64, np.array(0, np.float64)])
    assert expected[0] == -np.inf and bound[0] == 0
    # f64 terms near the largest finite value: no partial sum overflows, compared
    x64 = np.array([[-8.9e307], [8.9e307 + 2e300]], np.float64)
    expected, bound = bound_and_expected(reduce_program((2, 1), "f64", [0]), [x64, np.array(0, np.float64)])
    assert np.isfinite(bound[0]) and within(expected, np.array([2e300]), bound).all()


def test_a_body_in_a_wider_type_accumulates_there():
    """reduce (C6) lets the body's type be a promotion of the input's: bf16 values summed
    by an f32 body are judged with f32's roundoff, so one bf16 term among 1024 is seen."""
    n = 1024
    text = f"""func.func @main(%x: tensor<{n}xbf16>, %i: tensor<bf16>) -> tensor<f32> {{
  %r = "stablehlo.reduce"(%x, %i) ({{
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }}) {{dimensions = array<i64: 0>}} : (tensor<{n}xbf16>, tensor<bf16>) -> tensor<f32>
  func.return %r : tensor<f32>
}}"""
    rng = np.random.default_rng(9)
    x = mixed(rng, (n,), "bf16")
    expected, bound = bound_and_expected(text, [x, np.array(0, ml_dtypes.bfloat16)])
    exact = math.fsum(x.astype(np.float64))
    assert within(expected, np.float32(exact), bound)
    assert within(expected, sequential(x[:, None].astype(np.float32)), bound)
    largest = float(x[np.abs(x.astype(np.float64)).argmax()])
    assert not within(expected, np.float32(exact - largest), bound)
    assert bound < 1e-2 * abs(largest)  # a bf16 body would allow ~(n-1) 2**-8 sum|x| (> sum|x|)


def test_one_factor_times_the_identity_is_exact_even_when_subnormal():
    x = np.array([[1e-42, 3.0], [1.0, 1.0]], np.float32)  # column 0: a subnormal times 1 -> exact
    _, bound = bound_and_expected(reduce_program((2, 2), "f32", [0], op="stablehlo.multiply"),
                                  [x, np.array(1, np.float32)])
    assert bound.tolist() == [0.0, 0.0]


def test_a_zero_factor_is_not_zero_in_every_order_when_the_others_overflow_first():
    """multiply-reduce of 0, 448, 448 in f8E4M3FN: 448 * 448 overflows (NaN: E4M3FN has no inf)
    before the zero in one order, 0 * 448 * 448 = 0 in another: order-dependent (NaN bound);
    0, 2, 3 is 0 in every order."""
    import ml_dtypes

    from oracle.accumulation import accumulation_bound
    from oracle.types import element_type

    et = element_type("f8E4M3FN")
    overflowing = np.array([[0.0], [448.0], [448.0]]).astype(ml_dtypes.float8_e4m3fn)
    assert np.isnan(accumulation_bound("stablehlo.multiply", overflowing, et)).all()
    small = np.array([[0.0], [2.0], [3.0]]).astype(ml_dtypes.float8_e4m3fn)
    assert (accumulation_bound("stablehlo.multiply", small, et) == 0).all()
