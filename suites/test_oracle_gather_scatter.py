"""Oracle tests for gather, dynamic_gather and scatter, and for their entries in
oracle/impl_defined.py.

Expected values come from the spec's Examples and from hand computation (the official
interpreter tests run in suites/test_interpret_corpus.py).
"""

from __future__ import annotations

import time

import numpy as np
import pytest

import oracle
from generators.regions import reducer_bodies
from oracle.errors import OracleError, UndefinedBehavior
from oracle.impl_defined import impl_defined_mask
from oracle.types import tensor
from suites.test_oracle_indexing import drawn_cases
from suites.test_oracle_structural import check_drawn_signatures, run1

# The spec's gather / scatter example operand: 2x3x4x2, values 1..48.
SPEC_OPERAND = np.arange(1, 49, dtype=np.int64).reshape(2, 3, 4, 2)
SPEC_INDICES = np.array([[[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 9]]],
                         [[[0, 0], [2, 1], [2, 2]], [[1, 2], [0, 1], [1, 0]]]], np.int64)


def gather_text(operand, indices, result, dims: str, slice_sizes, sorted_=False):
    sizes = f"array<i64: {', '.join(map(str, slice_sizes))}>" if slice_sizes else "array<i64>"
    return f"""func.func @main(%arg0: {operand}, %arg1: {indices}) -> {result} {{
  %0 = "stablehlo.gather"(%arg0, %arg1) {{dimension_numbers = #stablehlo.gather<{dims}>,
    slice_sizes = {sizes}, indices_are_sorted = {str(sorted_).lower()}}}
    : ({operand}, {indices}) -> {result}
  func.return %0 : {result}
}}"""


def scatter_text(types, index_type, update_types, dims: str, body: str, region_type: str, unique=False, results=None):
    n = len(types)
    results = results or types
    args = [f"%arg{i}: {t}" for i, t in enumerate(types + [index_type] + update_types)]
    operands = ", ".join(f"%arg{i}" for i in range(2 * n + 1))
    block = ", ".join(f"%a{i}: {region_type}" for i in range(2 * n))
    ret = ", ".join(results)
    return f"""func.func @main({", ".join(args)}) -> ({ret}) {{
  %0:{n} = "stablehlo.scatter"({operands}) ({{
  ^bb0({block}):
{body}
  }}) {{scatter_dimension_numbers = #stablehlo.scatter<{dims}>, indices_are_sorted = false,
      unique_indices = {str(unique).lower()}}} : ({", ".join(types + [index_type] + update_types)}) -> ({ret})
  func.return {", ".join(f"%0#{i}" for i in range(n))} : {ret}
}}"""


ADD_I64 = """    %s = stablehlo.add %a0, %a1 : tensor<i64>
    stablehlo.return %s : tensor<i64>"""


def scatter_1d(body, operand, indices, updates, window=True, region_type="tensor<i64>"):
    """tensor<N> scatter of rows of ``updates`` at start indices ``indices`` (index_vector_dim 1)."""
    t = lambda a: f"tensor<{'x'.join(map(str, a.shape))}xi64>"  # noqa: E731
    dims = ("update_window_dims = [1], " if window else "inserted_window_dims = [0], ") + \
        "scatter_dims_to_operand_dims = [0], index_vector_dim = 1"
    text = scatter_text([t(operand)], f"tensor<{indices.shape[0]}x1xi64>", [t(updates)], dims, body, region_type)
    return run1(text, operand, indices, updates)[0]


# ====================================================================== spec examples

def test_spec_gather():
    text = gather_text("tensor<2x3x4x2xi64>", "tensor<2x2x3x2xi64>", "tensor<2x2x3x2x2xi64>",
                       "offset_dims = [3, 4], collapsed_slice_dims = [1], operand_batching_dims = [0], "
                       "start_indices_batching_dims = [1], start_index_map = [2, 1], index_vector_dim = 3",
                       (1, 1, 2, 2))
    (out,) = run1(text, SPEC_OPERAND, SPEC_INDICES)
    assert out.tolist() == [
        [[[[1, 2], [3, 4]], [[3, 4], [5, 6]], [[13, 14], [15, 16]]],
         [[[33, 34], [35, 36]], [[35, 36], [37, 38]], [[41, 42], [43, 44]]]],
        [[[[1, 2], [3, 4]], [[13, 14], [15, 16]], [[21, 22], [23, 24]]],
         [[[43, 44], [45, 46]], [[33, 34], [35, 36]], [[27, 28], [29, 30]]]]]


def test_spec_dynamic_gather():
    operand = np.arange(1, 25, dtype=np.int64).reshape(3, 4, 2)
    indices = np.array([[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 2]]], np.int64)
    (out,) = run1("""func.func @main(%arg0: tensor<3x4x2xi64>, %arg1: tensor<2x3x2xi64>, %arg2: tensor<3xi64>)
    -> tensor<2x3x2x2xi64> {
  %0 = "stablehlo.dynamic_gather"(%arg0, %arg1, %arg2) {dimension_numbers = #stablehlo.gather<
    offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [1, 0], index_vector_dim = 2>,
    indices_are_sorted = false} : (tensor<3x4x2xi64>, tensor<2x3x2xi64>, tensor<3xi64>) -> tensor<2x3x2x2xi64>
  func.return %0 : tensor<2x3x2x2xi64>
}""", operand, indices, np.array([1, 2, 2], np.int64))
    assert out.tolist() == [[[[1, 2], [3, 4]], [[3, 4], [5, 6]], [[13, 14], [15, 16]]],
                            [[[9, 10], [11, 12]], [[11, 12], [13, 14]], [[17, 18], [19, 20]]]]


def test_spec_scatter():
    # The spec documents %update with one nesting level too few for its type 2x2x3x2x2; the
    # values are all 1 either way.
    t = ["tensor<2x3x4x2xi64>"]
    text = scatter_text(t, "tensor<2x2x3x2xi64>", ["tensor<2x2x3x2x2xi64>"],
                        "update_window_dims = [3, 4], inserted_window_dims = [1], input_batching_dims = [0], "
                        "scatter_indices_batching_dims = [1], scatter_dims_to_operand_dims = [2, 1], "
                        "index_vector_dim = 3", ADD_I64, "tensor<i64>")
    (out,) = run1(text, SPEC_OPERAND, SPEC_INDICES, np.ones((2, 2, 3, 2, 2), np.int64))
    assert out.tolist() == [
        [[[3, 4], [6, 7], [6, 7], [7, 8]], [[9, 10], [11, 12], [15, 16], [17, 18]],
         [[17, 18], [19, 20], [22, 23], [24, 25]]],
        [[[25, 26], [28, 29], [30, 31], [31, 32]], [[35, 36], [38, 39], [38, 39], [39, 40]],
         [[41, 42], [44, 45], [46, 47], [47, 48]]]]


# ============================================================== gather: hand-computed

ROWS = "offset_dims = [1], start_index_map = [0], index_vector_dim = 1"


@pytest.mark.parametrize("index_type, starts, origins", [
    ("i64", [-5, 8, 100, 3], [0, 7, 7, 3]),        # clamp(start, 0, dim - slice_size)
    ("ui64", [2 ** 64 - 1, 0], [7, 0]),            # the largest ui64 is not -1
    ("i4", [-8, 7], [0, 7]),
    ("ui8", [255, 2], [7, 2]),
])
def test_gather_clamps_start_indices(index_type, starts, origins):
    from oracle.types import element_type
    operand = np.arange(10, dtype=np.float32)
    indices = np.array(starts, dtype=object).astype(np.uint64 if index_type == "ui64" else np.int64) \
        .astype(element_type(index_type).dtype).reshape(-1, 1)
    text = gather_text("tensor<10xf32>", f"tensor<{len(starts)}x1x{index_type}>", f"tensor<{len(starts)}x3xf32>",
                       ROWS, (3,))
    (out,) = run1(text, operand, indices)
    assert out.tolist() == [[o, o + 1, o + 2] for o in origins]


def test_gather_collapsed_implicit_index_vector_and_offset_first():
    operand = np.arange(12, dtype=np.int32).reshape(3, 4)
    # index_vector_dim = rank(start_indices): each scalar is a row index; the offset dim comes first
    text = gather_text("tensor<3x4xi32>", "tensor<2xi32>", "tensor<2x2xi32>",
                       "offset_dims = [0], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1",
                       (1, 2))
    (out,) = run1(text, operand, np.array([2, 0], np.int32))
    assert out.tolist() == [[8, 0], [9, 1]]  # result[offset, batch] = operand[start[batch], offset]


def test_gather_rank0_operand_and_empty_index_vector():
    text = gather_text("tensor<f32>", "tensor<3x0xi32>", "tensor<3xf32>", "index_vector_dim = 1", ())
    (out,) = run1(text, np.float32(-0.0), np.zeros((3, 0), np.int32))
    assert out.view(np.uint32).tolist() == [0x80000000] * 3


def test_gather_batching_dims():
    operand = np.arange(1, 7, dtype=np.int32).reshape(2, 3)
    dims = ("collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], "
            "start_index_map = [1], index_vector_dim = 1")
    (out,) = run1(gather_text("tensor<2x3xi32>", "tensor<2x1xi32>", "tensor<2xi32>", dims, (1, 1)),
                  operand, np.array([[2], [-4]], np.int32))
    assert out.tolist() == [3, 4]  # operand[0, 2], operand[1, clamp(-4) = 0]
    # slice size 0 at the batching dim: (C12) allows it and the read is still operand[b, index]
    (out,) = run1(gather_text("tensor<2x3xi32>", "tensor<2x1xi32>", "tensor<2xi32>", dims, (0, 1)),
                  operand, np.array([[2], [1]], np.int32))
    assert out.tolist() == [3, 5]


def test_gather_empty_results_and_errors():
    text = gather_text("tensor<4x3xf32>", "tensor<0x1xi32>", "tensor<0x3xf32>",
                       "offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1",
                       (1, 3))
    (out,) = run1(text, np.ones((4, 3), np.float32), np.zeros((0, 1), np.int32))
    assert out.shape == (0, 3)
    # a collapsed slice of size 0 clamps the start to dim: the read is out of bounds
    text = gather_text("tensor<4xf32>", "tensor<1x1xi32>", "tensor<1xf32>",
                       "collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1", (0,))
    with pytest.raises(UndefinedBehavior, match="out of bounds"):
        run1(text, np.ones(4, np.float32), np.array([[9]], np.int32))


def test_dynamic_gather_slice_sizes_must_match_the_result():
    text = """func.func @main(%arg0: tensor<5xi32>, %arg1: tensor<1x1xi32>, %arg2: tensor<1xi32>) -> tensor<1x2xi32> {
  %0 = "stablehlo.dynamic_gather"(%arg0, %arg1, %arg2) {dimension_numbers = #stablehlo.gather<offset_dims = [1],
    start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false}
    : (tensor<5xi32>, tensor<1x1xi32>, tensor<1xi32>) -> tensor<1x2xi32>
  func.return %0 : tensor<1x2xi32>
}"""
    operand = np.arange(5, dtype=np.int32)
    (out,) = run1(text, operand, np.array([[4]], np.int32), np.array([2], np.int32))
    assert out.tolist() == [[3, 4]]
    with pytest.raises(OracleError, match=r"\(C13\)"):
        run1(text, operand, np.array([[4]], np.int32), np.array([3], np.int32))


# ============================================================= scatter: hand-computed

def test_scatter_skips_out_of_bounds_elements_one_by_one():
    # window [1, 2, 3] at 3: elements 3 and 4 are in bounds, 5 is not (XLA skips the whole window)
    out = scatter_1d(ADD_I64, np.zeros(5, np.int64), np.array([[3], [-1], [9]]),
                     np.array([[1, 2, 3], [10, 20, 30], [7, 7, 7]]))
    assert out.tolist() == [20, 30, 0, 1, 2]


def test_scatter_collisions_apply_every_update_in_order():
    second = """    stablehlo.return %a1 : tensor<i64>"""
    subtract = """    %s = stablehlo.subtract %a0, %a1 : tensor<i64>
    stablehlo.return %s : tensor<i64>"""
    indices, updates = np.array([[1], [1], [3], [1]]), np.array([5, 6, 7, 8])
    args = (np.full(4, 100, np.int64), indices, updates)
    assert scatter_1d(ADD_I64, *args, window=False).tolist() == [100, 119, 100, 107]
    assert scatter_1d(subtract, *args, window=False).tolist() == [100, 81, 100, 93]
    assert scatter_1d(second, *args, window=False).tolist() == [100, 8, 100, 7]  # schedule: row-major


def test_scatter_region_that_cannot_run_batched():
    # broadcast_in_dim / reshape are not element-wise: the body runs once per update, same result
    body = """    %b = "stablehlo.broadcast_in_dim"(%a1) {broadcast_dimensions = array<i64>}
      : (tensor<i64>) -> tensor<1xi64>
    %r = "stablehlo.reshape"(%b) : (tensor<1xi64>) -> tensor<i64>
    %s = stablehlo.add %a0, %r : tensor<i64>
    stablehlo.return %s : tensor<i64>"""
    out = scatter_1d(body, np.zeros(4, np.int64), np.array([[1], [1], [2]]), np.array([5, 6, 7]), window=False)
    assert out.tolist() == [0, 11, 7, 0]


def test_variadic_scatter_argmax():
    # (value, index) pairs: keep the larger value, the smaller index on ties
    body = """    %gt = stablehlo.compare GT, %a0, %a2 : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %eq = stablehlo.compare EQ, %a0, %a2 : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %lt = stablehlo.compare LT, %a1, %a3 : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %tie = stablehlo.and %eq, %lt : tensor<i1>
    %keep = stablehlo.or %gt, %tie : tensor<i1>
    %v = stablehlo.select %keep, %a0, %a2 : tensor<i1>, tensor<f32>
    %i = stablehlo.select %keep, %a1, %a3 : tensor<i1>, tensor<i32>
    stablehlo.return %v, %i : tensor<f32>, tensor<i32>"""
    text = f"""func.func @main(%arg0: tensor<2xf32>, %arg1: tensor<2xi32>, %arg2: tensor<4x1xi32>, %arg3: tensor<4xf32>,
                   %arg4: tensor<4xi32>) -> (tensor<2xf32>, tensor<2xi32>) {{
  %0:2 = "stablehlo.scatter"(%arg0, %arg1, %arg2, %arg3, %arg4) ({{
  ^bb0(%a0: tensor<f32>, %a1: tensor<i32>, %a2: tensor<f32>, %a3: tensor<i32>):
{body}
  }}) {{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0],
      scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, indices_are_sorted = false, unique_indices = false}}
      : (tensor<2xf32>, tensor<2xi32>, tensor<4x1xi32>, tensor<4xf32>, tensor<4xi32>) -> (tensor<2xf32>, tensor<2xi32>)
  func.return %0#0, %0#1 : tensor<2xf32>, tensor<2xi32>
}}"""
    values, index = run1(text, np.float32([-np.inf, 0]), np.int32([-1, -1]), np.int32([[0], [0], [1], [0]]),
                         np.float32([3, 5, 1, 5]), np.int32([10, 12, 13, 11]))
    assert values.tolist() == [5, 1] and index.tolist() == [11, 13]


def test_scatter_promotes_to_the_computation_type():
    body = """    %s = stablehlo.add %a0, %a1 : tensor<i32>
    stablehlo.return %s : tensor<i32>"""
    text = scatter_text(["tensor<2xi8>"], "tensor<1x1xi32>", ["tensor<1xi8>"],
                        "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1",
                        body, "tensor<i32>", results=["tensor<2xi32>"])
    try:
        module = oracle.parse_module(text)
    except ValueError as e:  # MLIR's verifier may not implement is_promotable
        pytest.skip(f"MLIR rejects the promoting scatter: {e}")
    (out,) = oracle.evaluate(module, [np.int8([127, -128]), np.int32([[0]]), np.int8([1])])
    assert out.dtype == np.int32 and out.tolist() == [128, -128]


def test_scatter_batching_dims_and_empty_updates():
    dims = ("inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], "
            "scatter_dims_to_operand_dims = [1], index_vector_dim = 1")
    text = scatter_text(["tensor<2x3xi64>"], "tensor<2x1xi64>", ["tensor<2xi64>"], dims, ADD_I64, "tensor<i64>")
    (out,) = run1(text, np.zeros((2, 3), np.int64), np.array([[2], [0]]), np.array([5, 7]))
    assert out.tolist() == [[0, 0, 5], [7, 0, 0]]
    text = scatter_text(["tensor<3xi64>"], "tensor<0x1xi64>", ["tensor<0xi64>"],
                        "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1",
                        ADD_I64, "tensor<i64>")
    (out,) = run1(text, np.arange(3), np.zeros((0, 1), np.int64), np.zeros(0, np.int64))
    assert out.tolist() == [0, 1, 2]


# ================================================================ impl-defined masks

def _region(body_name, types):
    """A region from the generators' menu (generators/regions.py)."""
    from hypothesis import find
    return find(reducer_bodies(types), lambda b: b.name == body_name).region


SCATTER_1D = {"scatter_dimension_numbers": {"inserted_window_dims": (0,), "scatter_dims_to_operand_dims": (0,),
                                            "index_vector_dim": 1}}


def test_scatter_mask_depends_on_the_update_computation():
    from oracle.types import element_type
    operand, indices = np.zeros(4, np.int32), np.array([[1], [1], [3]], np.int32)
    updates = np.int32([1, 2, 3])
    i32, t = element_type("i32"), tensor((4,), "i32")

    def mask(attrs, x=operand, u=updates):
        return impl_defined_mask("scatter", [x, indices, u], attrs, t)
    assert mask(SCATTER_1D).tolist() == [False, True, False, False]  # no region given: every collision
    assert mask(dict(SCATTER_1D, update_computation=_region("add", [i32]))) is None
    assert mask(dict(SCATTER_1D, regions=(_region("maximum", [i32]),))) is None
    assert mask(dict(SCATTER_1D, update_computation=_region("first", [i32]))) is None
    for name in ("second", "subtract"):
        assert mask(dict(SCATTER_1D, update_computation=_region(name, [i32]))).tolist() == [False, True, False, False]
    assert mask(dict(SCATTER_1D, unique_indices=True)).all()  # undefined: the whole result
    f32 = element_type("f32")
    add = dict(SCATTER_1D, update_computation=_region("add", [f32]))
    small = np.float32([1.5, -2.25, 3])
    assert impl_defined_mask("scatter", [np.zeros(4, np.float32), indices, small], add, t) is None
    big = np.float32([3e38, 3e38, 1])     # overflows in one order only
    cancelling = np.float32([1e8, -1e8, 1])
    for u in (big, cancelling, np.float32([np.nan, 1, 1])):
        assert impl_defined_mask("scatter", [np.ones(4, np.float32), indices, u], add, t).tolist() == \
            [False, True, False, False]


def test_sorted_indices_masks():
    t = tensor((3,), "f32")
    gather_attrs = {"dimension_numbers": {"collapsed_slice_dims": (0,), "start_index_map": (0,),
                                          "index_vector_dim": 1}, "slice_sizes": (1,), "indices_are_sorted": True}
    operand = np.zeros(4, np.float32)
    assert impl_defined_mask("gather", [operand, np.int32([[0], [2], [9]])], gather_attrs, t) is None  # 9 -> 3
    assert impl_defined_mask("gather", [operand, np.int32([[2], [0], [3]])], gather_attrs, t).all()
    # element-wise reading: [0, 1] then [1, 0] is lexicographically sorted but not element-wise
    attrs2 = {"dimension_numbers": {"collapsed_slice_dims": (0, 1), "start_index_map": (0, 1),
                                    "index_vector_dim": 1}, "slice_sizes": (1, 1), "indices_are_sorted": True}
    grid = np.zeros((2, 2), np.float32)
    assert impl_defined_mask("gather", [grid, np.int32([[0, 1], [1, 0]])], attrs2, tensor((2,), "f32")).all()
    # a window dim before the batch dim repeats the batch sequence: sorted only if constant
    attrs3 = {"dimension_numbers": {"offset_dims": (0,), "start_index_map": (0,), "index_vector_dim": 1},
              "slice_sizes": (2,), "indices_are_sorted": True}
    assert impl_defined_mask("gather", [operand, np.int32([[0], [1]])], attrs3, tensor((2, 2), "f32")).all()
    assert impl_defined_mask("gather", [operand, np.int32([[1], [1]])], attrs3, tensor((2, 2), "f32")) is None
    dynamic = {"dimension_numbers": gather_attrs["dimension_numbers"], "indices_are_sorted": True}
    assert impl_defined_mask("dynamic_gather", [operand, np.int32([[2], [0], [3]]), np.int64([1])], dynamic, t).all()


# ======================================================================== generators

def test_drawn_gather_signatures_verify_and_evaluate():
    check_drawn_signatures("stablehlo.gather", max_examples=25)  # random bits as indices: huge, negative


def test_drawn_scatters_verify_and_evaluate():
    drawn_cases("scatter", 30)  # with their update_computation regions


def test_generators_reach_the_edges():
    seen = set()

    def gathers(sig, inputs, outputs):
        dn = sig.attributes["dimension_numbers"].value
        operand_t, indices_t = sig.operand_types[:2]
        seen.update({"batching"} if dn.get("operand_batching_dims") else set())
        seen.update({"rank0"} if operand_t.rank == 0 else set())
        seen.update({"empty"} if 0 in sig.result_types[0].shape else set())
        seen.update({"implicit"} if dn["index_vector_dim"] == indices_t.rank else set())
        values = inputs[1].astype(np.int64)
        seen.update({"negative"} if (values < 0).any() else set())
        seen.update({"past the end"} if any((values >= n).any() for n in operand_t.shape) else set())
    drawn_cases("gather", 100, gathers)
    assert seen >= {"batching", "rank0", "empty", "implicit", "negative", "past the end"}, seen

    reached = set()

    def scatters(sig, inputs, outputs):
        from oracle.ops.gather_scatter import SCATTER_FIELDS, scatter_targets
        n = (len(sig.operand_types) - 1) // 2
        dn = {f: tuple(sig.attributes["scatter_dimension_numbers"].value.get(f, ())) for f in SCATTER_FIELDS}
        dn["index_vector_dim"] = sig.attributes["scatter_dimension_numbers"].value["index_vector_dim"]
        positions, targets = scatter_targets(inputs[0].shape, inputs[n], inputs[n + 1].shape, dn)
        reached.update({"variadic"} if n > 1 else set())
        reached.update({"batching"} if dn["input_batching_dims"] else set())
        reached.update({"some out of bounds"} if 0 < positions.size < inputs[n + 1].size else set())
        reached.update({"collisions"} if np.unique(targets).size < targets.size else set())
    drawn_cases("scatter", 60, scatters)
    assert reached >= {"variadic", "batching", "some out of bounds", "collisions"}, reached


def test_dynamic_gather_generator():
    drawn_cases("dynamic_gather", 25)


# ======================================================================== performance

def _timed(text, *inputs):
    module = oracle.parse_module(text)
    started = time.perf_counter()
    (out,) = oracle.evaluate(module, list(inputs))
    return out, time.perf_counter() - started


def _gather_and_scatter_1e5_rows() -> tuple[float, float]:
    """Seconds of a gather and a scatter of 1e5 rows, after checking their values."""
    rng = np.random.default_rng(0)
    operand = rng.integers(-8, 8, (1000, 64)).astype(np.float32)  # integer sums: exact in any order
    rows = rng.integers(0, 1000, 100_000).astype(np.int32).reshape(-1, 1)
    text = gather_text("tensor<1000x64xf32>", "tensor<100000x1xi32>", "tensor<100000x64xf32>",
                       "offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1",
                       (1, 64))
    out, gather_seconds = _timed(text, operand, rows)
    np.testing.assert_array_equal(out, operand[rows[:, 0]])
    body = """    %s = stablehlo.add %a0, %a1 : tensor<f32>
    stablehlo.return %s : tensor<f32>"""
    text = scatter_text(["tensor<1000x64xf32>"], "tensor<100000x1xi32>", ["tensor<100000x64xf32>"],
                        "update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], "
                        "index_vector_dim = 1", body, "tensor<f32>")
    updates = np.ones((100_000, 64), np.float32)
    out, scatter_seconds = _timed(text, operand, rows, updates)
    expected = operand + np.bincount(rows[:, 0], minlength=1000)[:, None].astype(np.float32)
    np.testing.assert_array_equal(out, expected)  # integer-valued sums: exact in any order
    return gather_seconds, scatter_seconds


def test_gather_and_scatter_of_1e5_rows_give_the_rows_and_their_sums():
    _gather_and_scatter_1e5_rows()


@pytest.mark.timing
def test_gather_and_scatter_of_1e5_rows_are_vectorized():
    gather_seconds, scatter_seconds = _gather_and_scatter_1e5_rows()
    assert gather_seconds < 5 and scatter_seconds < 20, (gather_seconds, scatter_seconds)
