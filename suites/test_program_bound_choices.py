"""The program-level bound anchored on a backend's replay where the spec leaves a choice open
(the linear-algebra survey's rsf2csf f64, a first run compiled differently from its
replay): a precision_config the backend computes at HIGHEST, a LAPACK target's results judged by
a property (its eigenvalues in its own order), and an assignment scatter carrying its operands'
bounds.  Each checked against hand-computed values, and against a backend whose choice does not
hold (a bf16-rounded dot, eigenvalues that fail geev's property)."""

import numpy as np
import pytest

import oracle
from judge.program_bound import anchored_run, at_chosen_precision, oracle_run, program_bounds
from oracle import rewrite

SLACK = 1 + 2.0 ** -30  # judge/program_bound.py: every propagated bound is enlarged by it

DOT = """
func.func @main(%a: tensor<4xf64>, %b: tensor<4xf64>) -> tensor<f64> {
  %d = stablehlo.dot_general %a, %b, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4xf64>, tensor<4xf64>) -> tensor<f64>
  return %d : tensor<f64>
}
"""
DOT_INPUTS = [np.array([1.0, 2.0, 3.0, 4.0]), np.array([0.1, 0.2, 0.3, 0.4])]


def _dot_bound(chosen_result: float) -> float:
    module = oracle.parse_module(DOT)
    main = module.main
    chosen = dict(zip(main.arguments, DOT_INPUTS)) | {main.ops[0].results[0]: np.float64(chosen_result)}
    paths = {op: (k,) for k, op in enumerate(main.ops)}
    module, paths = at_chosen_precision(module, paths, chosen)
    values, anchored = anchored_run(module, DOT_INPUTS, chosen)
    bounds = program_bounds(module, values[1], values[2], paths, anchored)
    return float(bounds.of(module.main.ops[0].results[0]))


def test_a_default_precision_dot_the_backend_computes_at_highest_is_bounded_as_highest():
    exact = float(np.dot(DOT_INPUTS[0], DOT_INPUTS[1]))  # 3.0: the sum of |products|, S = 3
    # HIGHEST: gamma_3(2**-53) S plus the roundings: a few units of 2**-52 at 3, far below bf16's 2**-8 S
    assert _dot_bound(exact) < 16 * 2.0 ** -52 * 3
    # a result rounded as bf16 operands give (off by 2**-9 relative): DEFAULT stays, bf16's allowance
    assert _dot_bound(exact * (1 + 2.0 ** -9)) > 2.0 ** -8 * 3


SCATTER = """
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %s = stablehlo.sine %x : tensor<3xf32>
  %i = stablehlo.constant dense<[1]> : tensor<1xi32>
  %u = stablehlo.constant dense<5.0> : tensor<f32>
  %r = "stablehlo.scatter"(%s, %i, %u) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = UNIQUE}> ({
  ^bb0(%old: tensor<f32>, %new: tensor<f32>):
    stablehlo.return %new : tensor<f32>
  }) : (tensor<3xf32>, tensor<1xi32>, tensor<f32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}
"""


def _scatter_bounds(unique: str):
    module = oracle.parse_module(SCATTER.replace("UNIQUE", unique))
    inputs = [np.array([1.0, 2.0, 3.0], np.float32)]
    _, env, recorded = oracle_run(module, inputs)
    bounds = program_bounds(module, env, recorded)
    sine, scatter = module.main.ops[0].results[0], module.main.ops[3].results[0]
    return bounds, bounds.of(sine), scatter


def test_an_assignment_scatter_moves_the_bounds_with_the_data():
    bounds, of_sine, scatter = _scatter_bounds("true")
    assert np.all(of_sine > 0)
    # element 1 is the exact constant 5.0; elements 0 and 2 keep the sine's bound
    np.testing.assert_array_equal(bounds.of(scatter), [of_sine[0] * SLACK, 0.0, of_sine[2] * SLACK])


def test_an_assignment_scatter_whose_updates_may_collide_has_no_rule():
    bounds, _, scatter = _scatter_bounds("false")
    assert "unique_indices = false" in bounds.unknown[scatter]


GEEV = """
func.func @main(%x: tensor<2x2xf64>) -> tensor<2xcomplex<f64>> {
  %e = stablehlo.exponential %x : tensor<2x2xf64>
  %a = stablehlo.convert %e : (tensor<2x2xf64>) -> tensor<2x2xcomplex<f64>>
  %0:4 = stablehlo.custom_call @lapack_zgeev_ffi(%a) {backend_config = "", mhlo.backend_config = {compute_left = 78 : ui8, compute_right = 78 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}} : (tensor<2x2xcomplex<f64>>) -> (tensor<2xcomplex<f64>>, tensor<2x2xcomplex<f64>>, tensor<2x2xcomplex<f64>>, tensor<i32>)
  return %0#0 : tensor<2xcomplex<f64>>
}
"""
# exp of these: diag(1, 3), the off-diagonal exp(-inf) = 0
DISTINCT = np.array([[0.0, -np.inf], [-np.inf, np.log(3.0)]])
REPEATED = np.array([[0.0, -np.inf], [-np.inf, 0.0]])


def _geev(x, chosen_eigenvalues=None):
    module = oracle.parse_module(GEEV)
    _, env, _ = oracle_run(module, [x])
    geev = module.main.ops[2]
    chosen = {r: env[r] for r in geev.results}
    if chosen_eigenvalues is not None:
        chosen[geev.results[0]] = np.array(chosen_eigenvalues, np.complex128)
    values, anchored = anchored_run(module, [x], chosen)
    bounds = program_bounds(module, values[1], values[2], anchored=anchored)
    return module, geev, values[1], anchored, bounds


def test_eigenvalues_in_the_backends_order_are_anchored_where_they_pass_geevs_property():
    _, geev, env, anchored, _ = _geev(DISTINCT, [3.0, 1.0])  # LAPACK's order is its own
    assert set(geev.results) <= anchored
    np.testing.assert_array_equal(env[geev.results[0]], [3.0, 1.0])
    _, geev, env, anchored, _ = _geev(DISTINCT, [3.0, 1.5])  # 1.5 is no eigenvalue: the oracle's stay
    assert not anchored
    np.testing.assert_allclose(sorted(env[geev.results[0]].real), [1.0, 3.0])


def test_anchored_eigenvalues_of_an_inexact_matrix_move_by_the_bauer_fike_radius():
    module, geev, _, _, bounds = _geev(DISTINCT)
    b = bounds.of(module.main.ops[1].results[0])  # the matrix's bound (exponential's ULP row)
    assert np.any(b > 0)
    # V = I (a diagonal matrix): kappa_2(V) = 1, the radius ||b||_F; discs of 1 and 3 disjoint
    np.testing.assert_allclose(bounds.of(geev.results[0]), np.full(2, np.linalg.norm(b) * SLACK), rtol=1e-12)
    assert np.isnan(bounds.of(geev.results[2])).all() and bounds.of(geev.results[3]) == 0


def test_anchored_eigenvalues_whose_discs_overlap_are_open():
    _, geev, _, _, bounds = _geev(REPEATED)  # 1 twice: which one moves where is not known
    assert np.isnan(bounds.of(geev.results[0])).all()


def test_an_expanded_program_keeps_its_paths_when_its_precision_is_made_highest():
    expansion = rewrite.expand(oracle.parse_module(DOT))
    main = expansion.module.main
    exact = float(np.dot(*DOT_INPUTS))
    chosen = dict(zip(main.arguments, DOT_INPUTS)) | {main.ops[0].results[0]: np.float64(exact)}
    module, paths = at_chosen_precision(expansion.module, expansion.paths, chosen)
    (dot,) = [op for op in module.main.ops if op.name == "stablehlo.dot_general"]
    assert dot.attr("precision_config") == ("HIGHEST", "HIGHEST")
    assert paths[dot] == expansion.paths[main.ops[0]]


@pytest.mark.parametrize("precision", ["HIGHEST, HIGHEST"])
def test_a_highest_dot_is_left_as_it_is(precision):
    module = oracle.parse_module(DOT.replace("DEFAULT, DEFAULT", precision))
    paths = {op: (k,) for k, op in enumerate(module.main.ops)}
    assert at_chosen_precision(module, paths, {})[0] is module


# d = 3.0 (DEFAULT precision: bf16 operands allowed, a bound of about 2**-8 * 3), then d - 2.99:
# cancellation leaves 0.01, below that bound -- useless, unless the replay shows full precision
CANCELLING = """
func.func @main(%a: tensor<4xf64>, %b: tensor<4xf64>) -> tensor<f64> {
  %d = stablehlo.dot_general %a, %b, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4xf64>, tensor<4xf64>) -> tensor<f64>
  %c = stablehlo.constant dense<2.99> : tensor<f64>
  %e = stablehlo.subtract %d, %c : tensor<f64>
  return %e : tensor<f64>
}
"""


@pytest.mark.parametrize("off,status", [(1, "pass"), (1e12, "mismatch")])
def test_a_first_run_after_a_default_dot_is_judged_at_the_precision_the_replay_shows(off, status):
    """The replay (a backend computing what the oracle does: full precision) is within every op's
    allowance; the first run differs from it by ``off`` ULPs of 0.01: one ULP passes on the bound
    at HIGHEST, 10**12 of them (about 2e-6) is a mismatch."""
    from judge.verdict import judge_program

    module = oracle.parse_module(CANCELLING)
    exact = oracle_run(module, DOT_INPUTS)[0][0]
    first = [np.float64(exact) + off * np.spacing(np.float64(exact))]
    verdict = judge_program(module, DOT_INPUTS, first,
                            rerun=lambda text: oracle_run(oracle.parse_module(text), DOT_INPUTS)[0])
    assert verdict.status == status, verdict.message
    if status == "pass":
        assert any("dot precision" in note for note in verdict.notes), verdict.notes
