"""The attribute spaces of gather, dynamic_gather, scatter and sort (``samplers_of(op).attribute_space``):

* every class draws a case for an element type of each family where it applies (i1, signed,
  unsigned, float, complex), the case is valid (MLIR verifies it, the oracle evaluates it), it
  is IN its class (the index values / keys the class is about are there) and its result is
  determined (no implementation-defined element where the class promises none);
* the oracle on one hand-computed case per class that matters most: expected arrays written
  from the spec text (clamped gather starts, skipped scatter updates, stable sorts).
"""

from __future__ import annotations

import time

import numpy as np
import pytest

import oracle
from generators.cases import draw_cases, random_example
from generators.ops import samplers_of
from generators.programs import attribute_class_cases
from oracle.impl_defined import op_masks
from oracle.ops.gather_scatter import SCATTER_FIELDS, index_vectors, scatter_targets
from oracle.types import element_type
from suites.test_oracle_gather_scatter import ADD_I64, gather_text, scatter_text
from suites.test_oracle_reductions import evaluate_with_masks
from suites.test_oracle_sort import sort_program
from suites.test_oracle_structural import run1

FAMILIES = ("i1", "i8", "ui32", "f32", "complex<f32>")  # bool, signed, unsigned, float, complex
# Where a class does not apply (its draw_signature returns None).
NOT_APPLICABLE = {("sort", "signed-zero-ties"): {"i1", "i8", "ui32"},
                  ("sort", "nan-totalorder"): {"i1", "i8", "ui32", "complex<f32>"},
                  # bitwise bodies take booleans and integers, maximum / minimum no complex
                  **{("scatter", f"body-{b}"): {"f32", "complex<f32>"} for b in ("and", "or", "xor")},
                  **{("scatter", f"body-{b}"): {"complex<f32>"} for b in ("maximum", "minimum")}}


def _class_cases(op: str, et: str) -> dict:
    info = oracle.lookup(f"stablehlo.{op}")
    return {c.attribute_class: c for c in draw_cases(info, element_type(et), 0, 0) if c.attribute_class}


def _the_op(module, name):
    return next(o for o in module.main.ops if o.name == f"stablehlo.{name}")


# ================================================================ classes: drawn and valid

def _uppers(op_, inputs):
    """gather: dim - slice_size per start index component."""
    dn = op_.attr("dimension_numbers")
    sizes = op_.attr("slice_sizes", None)
    sizes = list(sizes) if sizes is not None else np.asarray(inputs[2]).tolist()
    return np.array([inputs[0].shape[d] - sizes[d] for d in dn.get("start_index_map", ())])


def _gather_in_class(name, op_, inputs):
    vectors = index_vectors(inputs[1], int(op_.attr("dimension_numbers").get("index_vector_dim", 0)))
    upper = _uppers(op_, inputs)
    inside = (vectors >= 0) & (vectors <= upper)
    one_out = (~inside).sum(axis=-1) == 1  # per dimension: one component out, the others in range
    return {
        "start-below-zero": lambda: np.any(one_out & np.any(vectors < 0, axis=-1)),
        "start-past-limit": lambda: np.any(one_out & np.any(vectors > upper, axis=-1)),
        "start-at-edge": lambda: np.any(vectors == upper) and np.any(vectors == upper + 1),
        "unsigned-implicit-vector": lambda: op_.operands[1].type.element_type.is_unsigned
        and np.any(inputs[1].astype(np.uint64) >= np.uint64(2 ** (op_.operands[1].type.element_type.bits - 1))),
        "slice-size-full": lambda: np.any(upper == 0) and np.any(vectors[..., upper == 0] > 0),
        "slice-size-zero": lambda: 0 in list(op_.attr("slice_sizes", None) or np.asarray(inputs[2]).tolist()),
        "start-map-permuted": lambda: list(op_.attr("dimension_numbers")["start_index_map"])
        != sorted(op_.attr("dimension_numbers")["start_index_map"]),
        "batching-dims": lambda: bool(op_.attr("dimension_numbers").get("operand_batching_dims")),
        "index-vector-dim-inner": lambda: op_.attr("dimension_numbers").get("index_vector_dim", 0)
        < inputs[1].ndim - 1,
    }.get(name, lambda: True)()


def _some_window_partly_in(positions, update_shape) -> bool:
    """Some window (the last update dim) has elements in bounds and elements out of bounds."""
    w = update_shape[-1]
    inside = np.bincount(positions // w, minlength=int(np.prod(update_shape)) // w)
    return bool(np.any((inside > 0) & (inside < w)))


def _scatter_in_class(name, op_, inputs):
    n = (len(inputs) - 1) // 2
    raw = op_.attr("scatter_dimension_numbers")
    dn = {f: tuple(raw.get(f, ())) for f in SCATTER_FIELDS} | {"index_vector_dim": int(raw.get("index_vector_dim", 0))}
    positions, targets = scatter_targets(inputs[0].shape, inputs[n], inputs[n + 1].shape, dn)
    collided = np.bincount(targets, minlength=inputs[0].size).max(initial=0) >= 2
    return {
        "duplicate-indices-add": lambda: collided,
        "variadic-add": lambda: collided and n == 2 and inputs[0].dtype != inputs[1].dtype,
        "overwrite-unique": lambda: not collided,
        "index-at-edge": lambda: 0 < positions.size < inputs[n + 1].size,
        "index-out-of-range": lambda: 0 < positions.size < inputs[n + 1].size,
        "window-partly-out": lambda: _some_window_partly_in(positions, inputs[n + 1].shape),
        "batching-dims": lambda: bool(dn["input_batching_dims"]),
    }.get(name, lambda: True)()


def _sort_in_class(name, op_, inputs):
    dim = int(op_.attr("dimension")) % inputs[0].ndim
    keys = np.moveaxis(inputs[0], dim, -1)
    keys = keys.reshape(-1, keys.shape[-1]) if keys.size else keys.reshape(0, keys.shape[-1])
    ties = any(len(np.unique(row.view(f"u{row.dtype.itemsize}"))) < len(row) for row in keys)
    return {
        "ties-stable-last": lambda: ties and dim == inputs[0].ndim - 1 and inputs[0].ndim == 3,
        "ties-descending-first": lambda: ties and dim == 0 and inputs[0].ndim == 3,
        "two-payloads-middle": lambda: ties and dim == 1 and len({x.dtype for x in inputs}) == 3,
        "signed-zero-ties": lambda: np.any(np.signbit(np.real(inputs[0]).astype(np.float64))
                                           & (np.real(inputs[0]) == 0)),
        "nan-totalorder": lambda: np.any(np.isnan(inputs[0].astype(np.float64))),
        "sort-dim-size-0": lambda: inputs[0].shape[dim] == 0 and inputs[0].ndim >= 2,
        "sort-dim-size-1": lambda: inputs[0].shape[dim] == 1,
        "unstable-determined": lambda: ties and not op_.attr("is_stable", False),
        "large": lambda: inputs[0].shape[dim] >= 512 and op_.attr("is_stable", False),
    }[name]()


IN_CLASS = {"gather": _gather_in_class, "dynamic_gather": _gather_in_class, "scatter": _scatter_in_class,
            "sort": _sort_in_class}


@pytest.mark.parametrize("op", ["gather", "dynamic_gather", "scatter", "sort"])
@pytest.mark.parametrize("et", FAMILIES)
def test_every_class_draws_a_valid_case_in_its_class(op, et):
    info = oracle.lookup(f"stablehlo.{op}")
    names = [c.name for c in samplers_of(info).attribute_space]
    assert 3 <= len(names) <= 24 and len(set(names)) == len(names)
    cases = _class_cases(op, et)
    expected = {n for n in names if et not in NOT_APPLICABLE.get((op, n), ())}
    assert set(cases) == expected
    for name, case in cases.items():
        module = oracle.parse_module(case.program)  # the MLIR verifier accepts it
        op_ = _the_op(module, op)
        inputs = [np.asarray(x) for x in case.inputs]
        assert all(x.size <= 300 for x in inputs) or name == "large", (name, [x.shape for x in inputs])
        out, masks = evaluate_with_masks(case.program, *inputs)
        assert IN_CLASS[op](name, op_, inputs), (name, case.program, inputs)
        if op == "sort" and not (name == "large" and et == "complex<f32>"):  # (complex NaN keys: no order)
            # ties only where the order is determined: nothing is left open
            assert all(m is None or not np.any(m) for m in masks), (name, masks)
        if op == "scatter" and (et in ("i1", "i8", "ui32") or name in ("overwrite-unique", "index-out-of-range")):
            assert all(m is None for m in op_masks(op_, inputs, out)), (name, case.program)


@pytest.mark.timing
@pytest.mark.parametrize("op", ["gather", "scatter", "sort"])
def test_all_classes_of_an_op_draw_well_under_a_second_per_element_type(op):
    info = oracle.lookup(f"stablehlo.{op}")
    space = samplers_of(info).attribute_space
    for c in space:  # warm up: imports, value pools
        random_example(attribute_class_cases(info, element_type("bf16"), c), 0)
    started = time.perf_counter()
    for et in ("i8", "f32", "complex<f32>"):
        for seed, c in enumerate(space):
            random_example(attribute_class_cases(info, element_type(et), c), seed + 1)
    assert (time.perf_counter() - started) / 3 < 1.0, op


# ================================================================ gather: hand-computed

OPERAND_3X4 = np.arange(12, dtype=np.int32).reshape(3, 4)  # operand[i, j] = 4 i + j


def _gather_3x4(indices, index_type, dims, slice_sizes, result_shape):
    shape = "x".join(map(str, indices.shape))
    result = "x".join(map(str, result_shape))
    text = gather_text("tensor<3x4xi32>", f"tensor<{shape}x{index_type}>", f"tensor<{result}xi32>", dims, slice_sizes)
    return run1(text, OPERAND_3X4, indices)[0]


def test_gather_clamps_each_start_component_on_its_own():
    # start-below-zero / start-past-limit / start-at-edge: dim 0 collapsed (upper 2), dim 1 a
    # slice of 2 (upper 2); one component out of range per vector, the other kept as it is.
    indices = np.array([[-1, 1], [1, 5], [2, 2], [5, -3], [0, 3]], np.int64)
    out = _gather_3x4(indices, "i64", "offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0, 1], "
                      "index_vector_dim = 1", (1, 2), (5, 2))
    assert out.tolist() == [[1, 2],     # (clamp(-1) = 0, 1)
                            [6, 7],     # (1, clamp(5) = 2)
                            [10, 11],   # (2, 2): exactly at both edges, no clamp
                            [8, 9],     # (clamp(5) = 2, clamp(-3) = 0)
                            [2, 3]]     # (0, clamp(3) = 2): one past the edge


def test_gather_start_index_map_permuted():
    # start_index_map = [1, 0]: component 0 indexes operand dim 1, component 1 operand dim 0
    indices = np.array([[2, 1], [0, 2]], np.int32)
    out = _gather_3x4(indices, "i32", "offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [1, 0], "
                      "index_vector_dim = 1", (1, 2), (2, 2))
    assert out.tolist() == [[6, 7], [8, 9]]


def test_gather_unsigned_top_bit_clamps_up_with_an_implicit_index_vector():
    # ui8 255 and 128 are past the end (clamped to 2), not negative (which would give row 0)
    out = _gather_3x4(np.array([[255, 128], [1, 3]], np.uint8), "ui8",
                      "offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2",
                      (1, 4), (2, 2, 4))
    assert out.tolist() == [[[8, 9, 10, 11], [8, 9, 10, 11]], [[4, 5, 6, 7], [8, 9, 10, 11]]]


def test_gather_index_vector_dim_first():
    # index_vector_dim = 0: the vectors are the columns (0, 3), (2, 0), (1, 1)
    out = _gather_3x4(np.array([[0, 2, 1], [3, 0, 1]], np.int32), "i32",
                      "collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 0", (1, 1), (3,))
    assert out.tolist() == [3, 8, 5]


def test_gather_offset_dims_before_the_batch_dim():
    # offset_dims = [0]: result[offset, batch]; dim 0 collapsed
    out = _gather_3x4(np.array([[2, 1], [0, 0]], np.int32), "i32",
                      "offset_dims = [0], collapsed_slice_dims = [0], start_index_map = [0, 1], index_vector_dim = 1",
                      (1, 3), (3, 2))
    assert out.tolist() == [[9, 0], [10, 1], [11, 2]]


def test_gather_batching_dims_with_the_index_vector_first():
    # operand_batching_dims = [0] pairs with start_indices dim 1 (index_vector_dim 0 comes first)
    out = _gather_3x4(np.array([[3, 0, 9]], np.int32), "i32",
                      "collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [1], "
                      "start_index_map = [1], index_vector_dim = 0", (1, 1), (3,))
    assert out.tolist() == [3, 4, 11]  # operand[0, 3], operand[1, 0], operand[2, clamp(9) = 3]


def test_gather_full_and_zero_slices():
    # slice size = dim at an indexed dim: every start clamps to 0
    out = _gather_3x4(np.array([[1, 3], [2, -1]], np.int32), "i32",
                      "offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0, 1], index_vector_dim = 1",
                      (1, 4), (2, 4))
    assert out.tolist() == [[4, 5, 6, 7], [8, 9, 10, 11]]
    out = _gather_3x4(np.array([[1, 3], [2, -1]], np.int32), "i32",
                      "offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0, 1], index_vector_dim = 1",
                      (1, 0), (2, 0))
    assert out.shape == (2, 0)


# ================================================================ scatter: hand-computed

OVERWRITE_I64 = "    stablehlo.return %a1 : tensor<i64>"


def _scatter_3x4(body, indices, updates, dims, update_type):
    shape = "x".join(map(str, indices.shape))
    text = scatter_text(["tensor<3x4xi64>"], f"tensor<{shape}xi64>", [update_type], dims, body, "tensor<i64>")
    return run1(text, np.zeros((3, 4), np.int64), indices, updates)[0]


POINTS = "inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1"


def test_scatter_duplicate_indices_accumulate():
    out = _scatter_3x4(ADD_I64, np.array([[1, 2], [1, 2], [0, 0], [1, 2]]), np.array([1, 2, 4, 8]), POINTS,
                       "tensor<4xi64>")
    assert out.tolist() == [[4, 0, 0, 0], [0, 0, 11, 0], [0, 0, 0, 0]]


def test_scatter_skips_each_out_of_range_index_per_dimension():
    # one component out (-1, dim, past, the other in range): skipped; exactly dim - 1: updated
    indices = np.array([[-1, 0], [0, 4], [2, 3], [3, 0], [1, -1], [0, 9]])
    out = _scatter_3x4(OVERWRITE_I64, indices, np.array([1, 2, 3, 4, 5, 6]), POINTS, "tensor<6xi64>")
    assert out.tolist() == [[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 0, 3]]


def test_scatter_partly_out_window_updates_the_elements_inside():
    # windows of 3 along dim 1 of row 0 (dim 0 inserted): at 2 (one element out), at -1 (one out)
    dims = "update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0, 1], " \
           "index_vector_dim = 1"
    out = _scatter_3x4(ADD_I64, np.array([[0, 2], [2, -1]]), np.array([[1, 2, 3], [10, 20, 30]]), dims,
                       "tensor<2x3xi64>")
    assert out.tolist() == [[0, 0, 1, 2], [0, 0, 0, 0], [20, 30, 0, 0]]


def test_scatter_batching_dims_and_window_before_the_scatter_dim():
    # input_batching_dims = [0] with scatter_indices dim 0; update_window_dims = [0] (window of 2 first)
    dims = "update_window_dims = [0], input_batching_dims = [0], scatter_indices_batching_dims = [0], " \
           "scatter_dims_to_operand_dims = [1], index_vector_dim = 1"
    out = _scatter_3x4(ADD_I64, np.array([[2], [0], [1]]), np.array([[1, 2, 3], [10, 20, 30]]), dims,
                       "tensor<2x3xi64>")
    assert out.tolist() == [[0, 0, 1, 10], [2, 20, 0, 0], [0, 3, 30, 0]]


def test_scatter_index_vector_dim_first():
    dims = "inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 0"
    out = _scatter_3x4(OVERWRITE_I64, np.array([[3, 0], [2, 1]]), np.array([7, 9]), dims, "tensor<2xi64>")
    assert out.tolist() == [[0, 0, 0, 0], [9, 0, 0, 0], [0, 0, 0, 7]]  # vectors (3, 2) and (0, 1), map [1, 0]


def test_scatter_variadic_add():
    text = scatter_text(["tensor<3xi64>", "tensor<3xf32>"], "tensor<3x1xi64>", ["tensor<3xi64>", "tensor<3xf32>"],
                        "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1",
                        """    %s = stablehlo.add %a0, %a2 : tensor<i64>
    %t = stablehlo.add %a1, %a3 : tensor<f32>
    stablehlo.return %s, %t : tensor<i64>, tensor<f32>""", "tensor<i64>")
    text = text.replace("%a1: tensor<i64>, %a2: tensor<i64>, %a3: tensor<i64>",
                        "%a1: tensor<f32>, %a2: tensor<i64>, %a3: tensor<f32>")
    a, b = run1(text, np.zeros(3, np.int64), np.zeros(3, np.float32), np.array([[0], [2], [0]]),
                np.array([1, 2, 3]), np.array([0.5, 1.5, 2.5], np.float32))
    assert a.tolist() == [4, 0, 2] and b.tolist() == [3.0, 0.0, 1.5]


# =================================================================== sort: hand-computed

KEYS = np.array([2, 1, 2, 1, 1], np.int32)
ORDER = np.arange(5, dtype=np.int32)


def test_sort_stable_ties_both_directions():
    (k, p), masks = evaluate_with_masks(sort_program((5,), ["i32", "i32"], "LT"), KEYS, ORDER)
    assert k.tolist() == [1, 1, 1, 2, 2] and p.tolist() == [1, 3, 4, 0, 2] and masks == [None, None]
    (k, p), _ = evaluate_with_masks(sort_program((5,), ["i32", "i32"], "GT"), KEYS, ORDER)
    assert k.tolist() == [2, 2, 1, 1, 1] and p.tolist() == [0, 2, 1, 3, 4]


def test_sort_signed_zeros_are_ties_under_float_lt():
    keys = np.array([0.0, -0.0, 1.0, -0.0, 0.0], np.float32)
    (k, p), masks = evaluate_with_masks(sort_program((5,), ["f32", "i32"], "LT"), keys, ORDER)
    assert p.tolist() == [0, 1, 3, 4, 2]  # the four zeros in input order
    assert np.signbit(k).tolist() == [False, True, True, False, False]
    assert all(m is None or not m.any() for m in masks)


def test_sort_totalorder_places_nan_infinities_and_zeros():
    keys = np.array([np.nan, -0.0, -np.inf, 0.0, -np.nan, 1.0, -0.0], np.float32)
    order = np.arange(7, dtype=np.int32)
    (k, p), masks = evaluate_with_masks(sort_program((7,), ["f32", "i32"], "LT", "TOTALORDER"), keys, order)
    assert p.tolist() == [4, 2, 1, 6, 3, 5, 0]  # -NaN, -inf, -0 (twice, stable), +0, 1, NaN
    assert all(m is None or not m.any() for m in masks)


def test_sort_middle_dim_of_rank3_with_two_payloads():
    keys = np.array([[[3, 1], [1, 1], [2, 0]], [[0, 5], [0, 4], [0, 3]]], np.int8)
    order = np.arange(12, dtype=np.int32).reshape(2, 3, 2)
    values = (order.astype(np.float32) / 2)
    (k, p, v), _ = evaluate_with_masks(sort_program((2, 3, 2), ["i8", "i32", "f32"], "LT", dimension=-2),
                                       keys, order, values)
    assert k.tolist() == [[[1, 0], [2, 1], [3, 1]], [[0, 3], [0, 4], [0, 5]]]
    assert p.tolist() == [[[2, 5], [4, 1], [0, 3]], [[6, 11], [8, 9], [10, 7]]]
    assert (v * 2).tolist() == p.tolist()


def test_sort_dims_of_size_0_and_1():
    (k, p), _ = evaluate_with_masks(sort_program((0, 3), ["f32", "i32"], "LT"), np.zeros((0, 3), np.float32),
                                    np.zeros((0, 3), np.int32))
    assert k.shape == p.shape == (0, 3)
    keys = np.array([[[5], [1], [3]]], np.int32)
    (k,), _ = evaluate_with_masks(sort_program((1, 3, 1), ["i32"], "LT", dimension=2), keys)
    assert k.tolist() == keys.tolist()


def test_sort_unstable_with_ties_of_equal_operands_is_determined():
    (k, p), masks = evaluate_with_masks(sort_program((4,), ["i32", "i32"], "LT", stable=False),
                                        np.array([2, 1, 2, 1], np.int32), np.array([20, 10, 20, 10], np.int32))
    assert k.tolist() == [1, 1, 2, 2] and p.tolist() == [10, 10, 20, 20]
    assert all(m is None or not m.any() for m in masks)
