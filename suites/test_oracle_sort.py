"""The oracle's sort, checked against numpy's stable argsort (on keys computed
independently), the spec's example, and the implementation-defined cases: comparators that
are not strict weak orders and ties of unstable sorts."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oracle.ops import sorting
from suites.test_oracle_reductions import evaluate_with_masks
from suites.test_oracle_structural import check_drawn_signatures
from suites.test_oracle_structural import run1


def sort_program(shape, types, direction="LT", compare_type=None, dimension=0, stable=True):
    dims = "x".join(map(str, shape))
    ts = [f"tensor<{dims}x{t}>" for t in types]
    args = ", ".join(f"%x{i}: {t}" for i, t in enumerate(ts))
    bb = ", ".join(f"%l{i}: tensor<{t}>, %r{i}: tensor<{t}>" for i, t in enumerate(types))
    ct = f", {compare_type}" if compare_type else ""
    ops = ", ".join(f"%x{i}" for i in range(len(types)))
    rets = ", ".join(f"%s#{i}" for i in range(len(types)))
    return f"""func.func @main({args}) -> ({", ".join(ts)}) {{
  %s:{len(types)} = "stablehlo.sort"({ops}) ({{
  ^bb0({bb}):
    %p = stablehlo.compare {direction}, %l0, %r0{ct} : (tensor<{types[0]}>, tensor<{types[0]}>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  }}) {{dimension = {dimension} : i64, is_stable = {str(stable).lower()}}} : ({", ".join(ts)}) -> ({", ".join(ts)})
  func.return {rets} : {", ".join(ts)}
}}"""


def test_spec_example_descending_with_payload():
    text = sort_program((2, 3), ["i64", "i64"], "GT", dimension=0)
    a, b = run1(text, np.array([[1, 2, 3], [3, 2, 1]], np.int64), np.array([[3, 2, 1], [1, 2, 3]], np.int64))
    np.testing.assert_array_equal(a, [[3, 2, 3], [1, 2, 1]])
    np.testing.assert_array_equal(b, [[1, 2, 1], [3, 2, 3]])


@pytest.mark.parametrize("n", [7, 3000])  # the matrix path and the merge-sort path
@pytest.mark.parametrize("dimension", [-1, 0])
def test_stable_sort_matches_numpy(n, dimension):
    rng = np.random.default_rng(n)
    keys = rng.integers(-5, 5, (3, n)).astype(np.int32)
    payload = np.broadcast_to(np.arange(n, dtype=np.int32), (3, n)).copy()
    if dimension == 0:
        keys, payload = keys.T.copy(), payload.T.copy()
    text = sort_program(keys.shape, ["i32", "i32"], "LT", dimension=dimension)
    (k, p), masks = evaluate_with_masks(text, keys, payload)
    order = np.argsort(keys, axis=dimension, kind="stable")
    np.testing.assert_array_equal(k, np.take_along_axis(keys, order, dimension))
    np.testing.assert_array_equal(p, np.take_along_axis(payload, order, dimension))
    assert masks == [None, None]


def test_totalorder_places_nan_and_signed_zeros():
    x = np.array([np.nan, 1.0, -0.0, 0.0, -np.inf, -np.nan], np.float32)
    (r,), (mask,) = evaluate_with_masks(sort_program((6,), ["f32"], "LT", "TOTALORDER"), x)
    bits = r.view(np.uint32)
    assert np.isnan(r[0]) and np.signbit(r[0]) and r[1] == -np.inf
    assert bits[2] == 0x80000000 and bits[3] == 0 and r[4] == 1 and np.isnan(r[5]) and not np.signbit(r[5])
    assert mask is None


def test_float_compare_with_nan_is_not_a_strict_weak_order():
    x = np.array([[3, np.nan, 1], [3, 2, 1]], np.float32)
    (r,), (mask,) = evaluate_with_masks(sort_program((2, 3), ["f32"], "LT", "FLOAT", dimension=1), x)
    assert mask.tolist() == [[True] * 3, [False] * 3]
    np.testing.assert_array_equal(r[1], [1, 2, 3])


def test_le_comparator_masks_slices_with_equal_keys():
    x = np.array([[2, 1, 2], [3, 2, 1]], np.int32)
    (r,), (mask,) = evaluate_with_masks(sort_program((2, 3), ["i32"], "LE", dimension=1), x)
    assert mask.tolist() == [[True] * 3, [False] * 3]  # LE is a strict weak order only without ties
    np.testing.assert_array_equal(r[1], [1, 2, 3])


def test_unstable_ties_masked_only_where_values_differ():
    keys = np.array([2, 1, 2, 0], np.int32)
    payload = np.array([10, 11, 12, 13], np.int32)
    (k, p), (mk, mp) = evaluate_with_masks(sort_program((4,), ["i32", "i32"], "LT", stable=False), keys, payload)
    np.testing.assert_array_equal(k, [0, 1, 2, 2])
    assert mk is None  # the tied keys are equal: their order cannot be seen in the keys
    assert mp.tolist() == [False, False, True, True]


def test_float_keys_minus_zero_ties_unstable():
    keys = np.array([0.0, -0.0, 1.0], np.float32)
    (k,), (mask,) = evaluate_with_masks(sort_program((3,), ["f32"], "LT", "FLOAT", stable=False), keys)
    assert mask.tolist() == [True, True, False]  # -0 and +0 are equivalent under FLOAT LT


def test_merge_path_agrees_with_matrix_path(monkeypatch):
    rng = np.random.default_rng(1)
    keys = rng.integers(0, 20, (4, 50)).astype(np.int32)
    text = sort_program((4, 50), ["i32"], "GT", dimension=1)
    (expected,) = run1(text, keys)
    monkeypatch.setattr(sorting, "_MAX_MATRIX_SIDE", 1)
    (got,), (mask,) = evaluate_with_masks(text, keys)
    np.testing.assert_array_equal(got, expected)
    assert mask is None


@settings(max_examples=20, deadline=None, database=None)
@given(st.lists(st.integers(-3, 3), min_size=0, max_size=12), st.booleans())
def test_sorted_output_is_a_permutation_in_order(values, descending):
    x = np.array(values, np.int8).reshape(1, -1)
    text = sort_program(x.shape, ["i8"], "GT" if descending else "LT", dimension=1)
    (r,) = run1(text, x)
    np.testing.assert_array_equal(r[0], sorted(values, reverse=descending))


def test_drawn_signatures_verify_and_evaluate():
    check_drawn_signatures("stablehlo.sort", max_examples=30)
