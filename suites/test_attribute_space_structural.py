"""The attribute spaces (``samplers_of(op).attribute_space``) of the data-movement ops: transpose,
reverse, slice, concatenate, broadcast_in_dim, pad, iota, dynamic_slice, dynamic_update_slice
and reshape.

Two kinds of checks:

* the oracle on one hand-computed case of the classes that matter most (expected arrays
  written from the spec's formulas, never computed by the oracle);
* every class draws, for an element type of each family (i1, signed, unsigned, float,
  complex) where the op takes it, a program the StableHLO verifier accepts and the oracle
  evaluates, and the drawn case has the property that names the class (a 3-cycle is not an
  involution, a start index past the limit is past it, ...).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import oracle
from generators.cases import random_example
from generators.ops import samplers_of
from generators.programs import attribute_class_cases
from oracle.types import QuantizedElementType, element_type
from suites.test_oracle_structural import op_fn, run1

OPS = ("transpose", "reverse", "slice", "concatenate", "broadcast_in_dim", "pad", "dynamic_pad", "iota",
       "dynamic_slice", "dynamic_update_slice", "reshape")
#: One element type per family: i1, signed, unsigned, float, complex.
FAMILIES = ("i1", "i8", "ui16", "f32", "complex<f32>")


def tensor(shape, et="i32") -> str:
    return f"tensor<{'x'.join(map(str, shape))}x{et}>" if shape else f"tensor<{et}>"


def one_op(name: str, operand_types: list, result_type: str, attrs: str = "") -> str:
    """A @main that applies stablehlo.<name> to its arguments."""
    args = ", ".join(f"%arg{i}" for i in range(len(operand_types)))
    attrs = f" {{{attrs}}}" if attrs else ""
    return op_fn(f'"stablehlo.{name}"({args}){attrs} : ({", ".join(operand_types)}) -> {result_type}', operand_types,
                 result_type)


def i64s(values) -> str:
    return f"array<i64: {', '.join(map(str, values))}>" if len(values) else "array<i64>"


# ================================================================== hand-computed cases

def test_transpose_3_cycle():
    # x[i, j, k] = 6i + 3j + k; permutation [1, 2, 0]: result_index[d] = operand_index[permutation[d]],
    # so result[a, b, c] = x[c, a, b] = 6c + 3a + b, shape (2, 3, 2)
    x = np.arange(12, dtype=np.int32).reshape(2, 2, 3)
    (out,) = run1(one_op("transpose", [tensor((2, 2, 3))], tensor((2, 3, 2)), f"permutation = {i64s([1, 2, 0])}"), x)
    assert out.tolist() == [[[0, 6], [1, 7], [2, 8]], [[3, 9], [4, 10], [5, 11]]]


def test_transpose_size1_moved_and_rank0():
    # x shape (1, 2, 3), x[0, j, k] = 3j + k; permutation [2, 0, 1]: result[a, b, c] = x[b, c, a]
    x = np.arange(6, dtype=np.int8).reshape(1, 2, 3)
    (out,) = run1(one_op("transpose", [tensor((1, 2, 3), "i8")], tensor((3, 1, 2), "i8"),
                         f"permutation = {i64s([2, 0, 1])}"), x)
    assert out.tolist() == [[[0, 3]], [[1, 4]], [[2, 5]]]
    (out,) = run1(one_op("transpose", [tensor((), "f32")], tensor((), "f32"), "permutation = array<i64>"),
                  np.float32(1.5))
    assert out.shape == () and float(out) == 1.5


def test_transpose_rank6_4_cycle():
    # a 4-cycle on dimensions 1..4 of a 1x2x1x3x1x2 operand: permutation [0, 2, 3, 4, 1, 5]
    x = np.arange(12, dtype=np.int32).reshape(1, 2, 1, 3, 1, 2)
    (out,) = run1(one_op("transpose", [tensor((1, 2, 1, 3, 1, 2))], tensor((1, 1, 3, 1, 2, 2)),
                         f"permutation = {i64s([0, 2, 3, 4, 1, 5])}"), x)
    # result[0, 0, c, 0, b, f] = x[0, b, 0, c, 0, f] = 6b + 2c + f
    assert out.reshape(3, 2, 2).tolist() == [[[0, 1], [6, 7]], [[2, 3], [8, 9]], [[4, 5], [10, 11]]]


def test_reverse_all_middle_size1_and_none():
    x = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    (out,) = run1(one_op("reverse", [tensor((2, 3))], tensor((2, 3)), f"dimensions = {i64s([1, 0])}"), x)
    assert out.tolist() == [[6, 5, 4], [3, 2, 1]]
    y = np.arange(8, dtype=np.int32).reshape(1, 2, 2, 2)  # the two middle dimensions, listed 2, 1
    (out,) = run1(one_op("reverse", [tensor((1, 2, 2, 2))], tensor((1, 2, 2, 2)), f"dimensions = {i64s([2, 1])}"), y)
    assert out.tolist() == [[[[6, 7], [4, 5]], [[2, 3], [0, 1]]]]
    z = np.array([[1, 2, 3]], np.int32)  # a size-1 dimension reversed with another one
    (out,) = run1(one_op("reverse", [tensor((1, 3))], tensor((1, 3)), f"dimensions = {i64s([0, 1])}"), z)
    assert out.tolist() == [[3, 2, 1]]
    (out,) = run1(one_op("reverse", [tensor((2, 3))], tensor((2, 3)), "dimensions = array<i64>"), x)
    assert out.tolist() == [[1, 2, 3], [4, 5, 6]]
    (out,) = run1(one_op("reverse", [tensor((0, 3))], tensor((0, 3)), f"dimensions = {i64s([0, 1])}"),
                  np.zeros((0, 3), np.int32))
    assert out.shape == (0, 3)


def _slice(shape, starts, limits, strides, out):
    return one_op("slice", [tensor(shape)], tensor(out), f"start_indices = {i64s(starts)}, "
                  f"limit_indices = {i64s(limits)}, strides = {i64s(strides)}")


def test_slice_strided_empty_end_and_rank0():
    x = np.arange(20, dtype=np.int32).reshape(4, 5)  # x[i, j] = 5i + j
    # rows 1, 3 (stride 2, ceil(3 / 2) = 2); columns 1 only (stride 7 > 5, ceil(4 / 7) = 1)
    (out,) = run1(_slice((4, 5), (1, 1), (4, 5), (2, 7), (2, 1)), x)
    assert out.tolist() == [[6], [16]]
    (out,) = run1(_slice((4, 5), (0, 0), (4, 5), (3, 2), (2, 3)), x)  # rows 0, 3; columns 0, 2, 4
    assert out.tolist() == [[0, 2, 4], [15, 17, 19]]
    (out,) = run1(_slice((4, 5), (1, 2), (1, 4), (1, 1), (0, 2)), x)  # start = limit
    assert out.shape == (0, 2)
    (out,) = run1(_slice((4, 5), (4, 0), (4, 5), (1, 1), (0, 5)), x)  # start = limit = dim
    assert out.shape == (0, 5)
    (out,) = run1(_slice((), (), (), (), ()), np.int32(7))
    assert out.shape == () and int(out) == 7


def test_concatenate_zero_size_operands_and_last_dimension():
    shapes = [(0, 2), (1, 2), (0, 2), (2, 2), (0, 2)]
    values = [np.zeros((0, 2), np.int32), np.array([[1, 2]], np.int32), np.zeros((0, 2), np.int32),
              np.array([[3, 4], [5, 6]], np.int32), np.zeros((0, 2), np.int32)]
    (out,) = run1(one_op("concatenate", [tensor(s) for s in shapes], tensor((3, 2)), "dimension = 0 : i64"),
                  *values)
    assert out.tolist() == [[1, 2], [3, 4], [5, 6]]
    a, b = np.array([[[1], [2]]], np.int32), np.array([[[3, 4], [5, 6]]], np.int32)
    (out,) = run1(one_op("concatenate", [tensor((1, 2, 1)), tensor((1, 2, 2))], tensor((1, 2, 3)),
                         "dimension = 2 : i64"), a, b)
    assert out.tolist() == [[[1, 3, 4], [2, 5, 6]]]
    # the middle dimension, four inputs of sizes 1, 3, 0, 2
    parts = [np.full((2, n, 1), k, np.int32) + np.arange(n, dtype=np.int32).reshape(1, n, 1) * 10
             for k, n in enumerate((1, 3, 0, 2))]
    (out,) = run1(one_op("concatenate", [tensor(p.shape) for p in parts], tensor((2, 6, 1)), "dimension = 1 : i64"),
                  *parts)
    assert out[:, :, 0].tolist() == [[0, 1, 11, 21, 3, 13]] * 2
    (out,) = run1(one_op("concatenate", [tensor((2,))], tensor((2,)), "dimension = 0 : i64"),
                  np.array([8, 9], np.int32))
    assert out.tolist() == [8, 9]


def _broadcast(shape, dims, out):
    return one_op("broadcast_in_dim", [tensor(shape)], tensor(out), f"broadcast_dimensions = {i64s(dims)}")


def test_broadcast_in_dim_decreasing_size0_and_identity():
    x = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    # dims [2, 0]: operand dim 0 -> result dim 2, operand dim 1 -> result dim 0: result[i, j, k] = x[k, i]
    (out,) = run1(_broadcast((2, 3), (2, 0), (3, 2, 2)), x)
    assert out.tolist() == [[[1, 4], [1, 4]], [[2, 5], [2, 5]], [[3, 6], [3, 6]]]
    (out,) = run1(_broadcast((1, 2), (1, 2), (0, 3, 2)), np.array([[7, 8]], np.int32))  # size 1 -> 3, new size 0
    assert out.shape == (0, 3, 2)
    (out,) = run1(_broadcast((1, 2), (0, 1), (0, 2)), np.array([[7, 8]], np.int32))  # size 1 -> 0
    assert out.shape == (0, 2)
    (out,) = run1(_broadcast((2, 3), (0, 1), (2, 3)), x)
    assert out.tolist() == [[1, 2, 3], [4, 5, 6]]
    (out,) = run1(_broadcast((2,), (0,), (2, 2, 2)), np.array([1, 2], np.int32))  # new inner dimensions
    assert out.tolist() == [[[1, 1], [1, 1]], [[2, 2], [2, 2]]]


def _pad(shape, low, high, interior, out, et="i32"):
    return one_op("pad", [tensor(shape, et), tensor((), et)], tensor(out, et),
                  f"edge_padding_low = {i64s(low)}, edge_padding_high = {i64s(high)}, "
                  f"interior_padding = {i64s(interior)}")


def test_dynamic_pad_interior_and_cropping():
    vec = tensor((1,))
    text = one_op("dynamic_pad", [tensor((3,)), tensor(()), vec, vec, vec], tensor((5,)))
    # [1, 2, 3] interior 1 -> [1 9 2 9 3]; low -1 removes 1, high 1 adds one 9
    (out,) = run1(text, np.array([1, 2, 3], np.int32), np.int32(9), *[np.array([v], np.int32) for v in (-1, 1, 1)])
    assert out.tolist() == [9, 2, 9, 3, 9]


def test_pad_cropping_interior_and_empty():
    x = np.arange(12, dtype=np.int32).reshape(3, 4)  # x[i, j] = 4i + j
    (out,) = run1(_pad((3, 4), (-1, -1), (-1, 0), (0, 0), (1, 3)), x, np.int32(9))  # row 1, columns 1..3
    assert out.tolist() == [[5, 6, 7]]
    # [1, 2, 3] interior 2 -> [1 9 9 2 9 9 3]; low -2 and high -1 remove [1 9] and [3]
    (out,) = run1(_pad((3,), (-2,), (-1,), (2,), (4,)), np.array([1, 2, 3], np.int32), np.int32(9))
    assert out.tolist() == [9, 2, 9, 9]
    # low -1 / high 1 on rows, low 1 / high -2 on columns
    (out,) = run1(_pad((2, 3), (-1, 1), (1, -2), (0, 0), (2, 2)), np.array([[1, 2, 3], [4, 5, 6]], np.int32),
                  np.int32(9))
    assert out.tolist() == [[9, 4], [9, 9]]
    # cropped to size 0: [1 9 2 9 3] (interior 1) less 2 low and 3 high elements
    (out,) = run1(_pad((3, 2), (-2, 0), (-3, 1), (1, 0), (0, 3)), np.ones((3, 2), np.int32), np.int32(9))
    assert out.shape == (0, 3)
    # a size-0 operand dimension: max(0 - 1, 0) * interior = 0, result 1 + 2 = 3, all padding
    (out,) = run1(_pad((0, 2), (1, 0), (2, 1), (2, 0), (3, 3), "f32"), np.zeros((0, 2), np.float32),
                  np.float32(-2.5))
    assert out.tolist() == [[-2.5] * 3] * 3


@pytest.mark.parametrize("dim, expected", [
    (0, [[[0, 0], [0, 0], [0, 0]], [[1, 1], [1, 1], [1, 1]]]),
    (1, [[[0, 0], [1, 1], [2, 2]], [[0, 0], [1, 1], [2, 2]]]),
    (2, [[[0, 1], [0, 1], [0, 1]], [[0, 1], [0, 1], [0, 1]]]),
])
def test_iota_each_dimension_of_rank3(dim, expected):
    (out,) = run1(op_fn(f'"stablehlo.iota"() {{iota_dimension = {dim} : i64}} : () -> tensor<2x3x2xi32>', [],
                        "tensor<2x3x2xi32>"))
    assert out.tolist() == expected


def test_iota_size0():
    (out,) = run1(op_fn('"stablehlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<3x0xf32>', [],
                        "tensor<3x0xf32>"))
    assert out.shape == (3, 0)


def _dynamic_slice(sizes, index_type):
    return one_op("dynamic_slice", [tensor((4, 5)), tensor((), index_type), tensor((), index_type)],
                  tensor(sizes), f"slice_sizes = {i64s(sizes)}")


@pytest.mark.parametrize("index_type, starts, sizes, expected", [
    # x[i, j] = 5i + j; adjusted_start_indices = clamp(0, start_indices, (4, 5) - slice_sizes)
    ("i32", (-3, -1), (2, 3), [[0, 1, 2], [5, 6, 7]]),                 # below 0: (0, 0)
    ("i64", (9, 100), (2, 3), [[12, 13, 14], [17, 18, 19]]),           # past the limit: (2, 2)
    ("i16", (2, 2), (2, 3), [[12, 13, 14], [17, 18, 19]]),             # exactly at the edge
    ("i8", (1, 7), (2, 3), [[7, 8, 9], [12, 13, 14]]),                 # one dimension out of range
    ("i8", (1, -1), (2, 3), [[5, 6, 7], [10, 11, 12]]),
    ("i32", (3, 1), (4, 2), [[1, 2], [6, 7], [11, 12], [16, 17]]),    # size = dim: start 3 clamps to 0
    ("ui8", (200, 255), (2, 3), [[12, 13, 14], [17, 18, 19]]),         # top bit set: large, not negative
    ("ui32", (2 ** 31, 1), (2, 3), [[11, 12, 13], [16, 17, 18]]),
    ("ui64", (2 ** 64 - 1, 2 ** 63), (2, 3), [[12, 13, 14], [17, 18, 19]]),
    ("i4", (-8, 7), (2, 3), [[2, 3, 4], [7, 8, 9]]),                   # narrow signed extremes
])
def test_dynamic_slice_start_classes(index_type, starts, sizes, expected):
    x = np.arange(20, dtype=np.int32).reshape(4, 5)
    dtype = element_type(index_type).dtype
    (out,) = run1(_dynamic_slice(sizes, index_type), x, *[np.array(s).astype(dtype) for s in starts])
    assert out.tolist() == expected


@pytest.mark.parametrize("index_type, starts, expected", [
    ("i64", (-5, -1), [[1, 2, 0, 0], [3, 4, 0, 0], [0, 0, 0, 0]]),
    ("i32", (5, 9), [[0, 0, 0, 0], [0, 0, 1, 2], [0, 0, 3, 4]]),
    ("i8", (1, -3), [[0, 0, 0, 0], [1, 2, 0, 0], [3, 4, 0, 0]]),
    ("ui16", (65535, 1), [[0, 0, 0, 0], [0, 1, 2, 0], [0, 3, 4, 0]]),
])
def test_dynamic_update_slice_start_classes(index_type, starts, expected):
    x = np.zeros((3, 4), np.int32)
    update = np.array([[1, 2], [3, 4]], np.int32)
    it = tensor((), index_type)
    text = one_op("dynamic_update_slice", [tensor((3, 4)), tensor((2, 2)), it, it], tensor((3, 4)))
    dtype = element_type(index_type).dtype
    (out,) = run1(text, x, update, *[np.array(s).astype(dtype) for s in starts])
    assert out.tolist() == expected


def test_dynamic_update_slice_size_equals_dim():
    it = tensor((), "i32")
    text = one_op("dynamic_update_slice", [tensor((2, 3)), tensor((2, 1)), it, it], tensor((2, 3)))
    (out,) = run1(text, np.zeros((2, 3), np.int32), np.array([[7], [8]], np.int32), np.int32(1), np.int32(9))
    assert out.tolist() == [[0, 0, 7], [0, 0, 8]]  # row start 1 clamps to 0 (dim 2 - size 2), column 9 to 2


def test_reshape_regroup_and_size1():
    x = np.arange(12, dtype=np.int32).reshape(6, 2)
    (out,) = run1(one_op("reshape", [tensor((6, 2))], tensor((3, 4))), x)
    assert out.tolist() == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]
    (out,) = run1(one_op("reshape", [tensor((2, 3))], tensor((2, 1, 3, 1))), np.arange(6, dtype=np.int32).reshape(2, 3))
    assert out.reshape(2, 3).tolist() == [[0, 1, 2], [3, 4, 5]] and out.shape == (2, 1, 3, 1)
    (out,) = run1(one_op("reshape", [tensor(())], tensor((1, 1))), np.int32(5))
    assert out.tolist() == [[5]]
    (out,) = run1(one_op("reshape", [tensor((1, 1, 1))], tensor(())), np.full((1, 1, 1), 6, np.int32))
    assert out.shape == () and int(out) == 6


# ======================================================== every class draws, in its class

def attr(case, name) -> tuple:
    """An attribute of the drawn signature as a tuple of ints (a 1-tuple for a single one)."""
    value = case.signature.attributes[name].value
    return tuple(value) if isinstance(value, tuple) else (value,)


def operand(case, i=0) -> tuple:
    return case.signature.operand_types[i].shape


def result(case) -> tuple:
    return case.signature.result_types[0].shape


def values(case, i) -> list[int]:
    return [int(v) for v in np.asarray(case.inputs[i]).astype(object).reshape(-1)]


def not_involution(perm) -> bool:
    return any(perm[perm[d]] != d for d in range(len(perm)))


def transposes(rank_ok):
    return lambda c: rank_ok(len(operand(c))) and not_involution(attr(c, "permutation"))


def size1_moved(c) -> bool:
    return any(operand(c)[p] == 1 and p != d for d, p in enumerate(attr(c, "permutation")))


def edges(c) -> list[tuple[int, int, int]]:
    """(low, high, interior) per dimension of a pad (from its attributes) or a dynamic_pad (inputs)."""
    if c.op == "stablehlo.pad":
        return list(zip(attr(c, "edge_padding_low"), attr(c, "edge_padding_high"), attr(c, "interior_padding")))
    return list(zip(values(c, 2), values(c, 3), values(c, 4)))


def slice_windows(c) -> list[tuple[int, int, int, int]]:
    """(start, limit, stride, dim) per dimension."""
    return list(zip(attr(c, "start_indices"), attr(c, "limit_indices"), attr(c, "strides"), operand(c)))


def concatenated(c) -> list[int]:
    """The inputs' sizes along the dimension."""
    return [t.shape[attr(c, "dimension")[0]] for t in c.signature.operand_types]


def start_class(cls):
    """The start-index classes of dynamic_slice / dynamic_update_slice, read from the drawn values."""
    def check(c):
        first = 1 if c.op == "stablehlo.dynamic_slice" else 2
        sizes = result(c) if first == 1 else operand(c, 1)
        it = c.signature.operand_types[first].element_type
        starts = [values(c, k)[0] for k in range(first, len(c.inputs))]
        limits = [n - s for n, s in zip(operand(c), sizes)]
        if cls == "start-below-zero":
            return it.is_signed and all(v < 0 for v in starts)
        if cls == "start-past-limit":
            return all(v > m for v, m in zip(starts, limits))
        if cls == "start-at-edge":
            return starts == limits and all(m > 0 for m in limits)
        if cls == "one-dim-out-of-range":
            out = [not 0 <= v <= m for v, m in zip(starts, limits)]
            return sum(out) == 1 and all(o or 0 < v < m for o, v, m in zip(out, starts, limits))
        if cls == "size-equals-dim":
            return any(m == 0 and v != 0 for v, m in zip(starts, limits))
        if cls == "unsigned-top-bit":
            return it.is_unsigned and all(v >= 1 << (it.bits - 1) for v in starts)
        if cls == "narrow-signed-extremes":
            return it.name in ("i4", "i8", "i16") and all(v in (it.min_value, it.max_value) for v in starts)
        raise AssertionError(f"no check for class {cls}")
    return check


#: What a case of each class must be: (op, class) -> predicate(case).
PROPERTIES = {
    ("transpose", "cycle-rank3"): transposes(lambda r: r == 3),
    ("transpose", "cycle-rank4"): transposes(lambda r: r == 4),
    ("transpose", "rank5-6"): transposes(lambda r: r in (5, 6)),
    ("transpose", "matrix"): lambda c: len(set(operand(c))) == 2 and attr(c, "permutation") == (1, 0),
    ("transpose", "cube"): lambda c: len(set(operand(c))) == 1 and len(operand(c)) == 3
        and attr(c, "permutation") != (0, 1, 2),
    ("transpose", "square"): lambda c: len(set(operand(c))) == 1 and attr(c, "permutation") == (1, 0),
    ("transpose", "size1-moved"): size1_moved,
    ("transpose", "size0"): lambda c: 0 in operand(c) and not_involution(attr(c, "permutation")),
    ("transpose", "rank0"): lambda c: operand(c) == (),
    ("transpose", "rank1"): lambda c: len(operand(c)) == 1,
    ("reverse", "all-dims"): lambda c: sorted(attr(c, "dimensions")) == list(range(len(operand(c)))),
    ("reverse", "middle-subset"): lambda c: sorted(attr(c, "dimensions")) == [1, 2] and len(operand(c)) == 4,
    ("reverse", "last-dim"): lambda c: attr(c, "dimensions") == (len(operand(c)) - 1,),
    ("reverse", "size1-dim"): lambda c: any(operand(c)[d] == 1 for d in attr(c, "dimensions")),
    ("reverse", "size0-dim"): lambda c: any(operand(c)[d] == 0 for d in attr(c, "dimensions")),
    ("reverse", "cube"): lambda c: len(set(operand(c))) == 1 and len(operand(c)) == 3
        and attr(c, "dimensions") not in ((), (2,)),
    ("reverse", "no-dims"): lambda c: attr(c, "dimensions") == (),
    ("slice", "strided-all-dims"): lambda c: all(s > 1 for _, _, s, _ in slice_windows(c))
        and any(s > n for _, _, s, n in slice_windows(c)),
    ("slice", "interior-window"): lambda c: operand(c) != () and all(0 < a < b < n for a, b, _, n in slice_windows(c)),
    ("slice", "empty-result"): lambda c: any(a == b < n for a, b, _, n in slice_windows(c)),
    ("slice", "start-at-end"): lambda c: any(a == n for a, _, _, n in slice_windows(c)),
    ("slice", "rank0"): lambda c: operand(c) == (),
    ("concatenate", "one-operand"): lambda c: len(concatenated(c)) == 1,
    ("concatenate", "two-operands"): lambda c: len(set(concatenated(c))) == 2,
    ("concatenate", "many-operands"): lambda c: len(set(concatenated(c))) == len(concatenated(c)) >= 4,
    ("concatenate", "zero-size-operands"): lambda c: concatenated(c)[0] == concatenated(c)[-1] == 0 < max(
        concatenated(c)) and 0 in concatenated(c)[1:-1],
    ("concatenate", "equal-operands"): lambda c: len(concatenated(c)) >= 2
        and len({t.shape for t in c.signature.operand_types}) == 1,
    ("concatenate", "dim-first"): lambda c: attr(c, "dimension") == (0,) and len(result(c)) == 3,
    ("concatenate", "dim-middle"): lambda c: attr(c, "dimension") == (1,) and len(result(c)) == 3,
    ("concatenate", "dim-last"): lambda c: attr(c, "dimension") == (2,) and len(result(c)) == 3,
    ("broadcast_in_dim", "decreasing-dims"): lambda c: len(attr(c, "broadcast_dimensions")) >= 2
        and list(attr(c, "broadcast_dimensions")) == sorted(attr(c, "broadcast_dimensions"), reverse=True),
    ("broadcast_in_dim", "coinciding-unsorted-dims"): lambda c: len(set(result(c))) == 1
        and list(attr(c, "broadcast_dimensions")) != sorted(attr(c, "broadcast_dimensions")),
    ("broadcast_in_dim", "size1-expansion"): lambda c: any(
        n == 1 < result(c)[d] for n, d in zip(operand(c), attr(c, "broadcast_dimensions"))),
    ("broadcast_in_dim", "rank0-operand"): lambda c: operand(c) == () and result(c) != (),
    ("broadcast_in_dim", "identity"): lambda c: operand(c) == result(c)
        and attr(c, "broadcast_dimensions") == tuple(range(len(result(c)))),
    ("broadcast_in_dim", "size0-result"): lambda c: 0 in result(c),
    ("broadcast_in_dim", "interleaved-new-dims"): lambda c: len(result(c)) == 4
        and attr(c, "broadcast_dimensions") != (0, 1) and attr(c, "broadcast_dimensions") != (2, 3),
    ("pad", "negative-edges"): lambda c: operand(c) != () and all(lo < 0 and hi < 0 for lo, hi, _ in edges(c)),
    ("pad", "interior"): lambda c: 0 not in operand(c) != () and all(i > 0 for _, _, i in edges(c)),
    ("pad", "interior-and-negative"): lambda c: any(i > 0 and lo < 0 and hi < 0 for lo, hi, i in edges(c)),
    ("pad", "mixed-signs"): lambda c: {(lo < 0, hi < 0) for lo, hi, _ in edges(c)} == {(True, False), (False, True)},
    ("pad", "crop-to-zero"): lambda c: 0 in result(c) and 0 not in operand(c),
    ("pad", "empty-operand"): lambda c: 0 in operand(c) and 0 not in result(c),
    ("pad", "rank0"): lambda c: operand(c) == (),
    ("pad", "sub-byte-packed"): lambda c: c.signature.operand_types[0].element_type.bits < 8
        and all(lo > 0 and hi > 0 and i > 0 for lo, hi, i in edges(c)),
    ("dynamic_pad", "interior"): lambda c: all(i > 0 for _, _, i in edges(c)),
    ("dynamic_pad", "negative-edges"): lambda c: all(lo < 0 and hi < 0 for lo, hi, _ in edges(c)),
    ("dynamic_pad", "interior-and-negative"): lambda c: all(i > 0 and lo < 0 for lo, _, i in edges(c)),
    ("iota", "dim-first"): lambda c: attr(c, "iota_dimension") == (0,) and len(result(c)) == 3,
    ("iota", "dim-middle"): lambda c: attr(c, "iota_dimension") == (1,) and len(result(c)) == 3,
    ("iota", "dim-last"): lambda c: attr(c, "iota_dimension") == (2,) and len(result(c)) == 3,
    ("iota", "rank1"): lambda c: len(result(c)) == 1,
    ("iota", "size0"): lambda c: 0 in result(c),
    ("reshape", "insert-size1"): lambda c: result(c).count(1) > operand(c).count(1),
    ("reshape", "remove-size1"): lambda c: result(c).count(1) < operand(c).count(1),
    ("reshape", "rank0-to-n"): lambda c: operand(c) == () != result(c),
    ("reshape", "n-to-rank0"): lambda c: operand(c) != () == result(c),
    ("reshape", "regroup"): lambda c: operand(c)[0] % result(c)[0] == 0 and operand(c)[0] != result(c)[0],
    ("reshape", "size0"): lambda c: 0 in operand(c),
}


#: How many leading operands are data (the rest: padding value, start indices); None: all.
DATA_OPERANDS = {"pad": 1, "dynamic_pad": 1, "dynamic_slice": 1, "dynamic_update_slice": 2}


#: Classes of types narrower than a byte only, and such types of each family.
NARROW_ONLY = {("pad", "sub-byte-packed")}
NARROW_TYPES = ("i1", "i2", "ui4", "f4E2M1FN", "f6E3M2FN")


def test_narrow_only_classes_apply_to_no_wider_type():
    for name, cls in NARROW_ONLY:
        info = oracle.lookup(f"stablehlo.{name}")
        attribute_class = next(c for c in samplers_of(info).attribute_space if c.name == cls)
        for wide in ("i8", "ui16", "f32", "bf16", "complex<f32>"):
            assert random_example(attribute_class_cases(info, element_type(wide), attribute_class), 0) is None


def _cases():
    for name in OPS:
        info = oracle.lookup(f"stablehlo.{name}")
        for cls in samplers_of(info).attribute_space:
            yield pytest.param(name, cls.name, id=f"{name}-{cls.name}")


def test_every_op_has_an_attribute_space():
    for name in OPS:
        info = oracle.lookup(f"stablehlo.{name}")
        names = [c.name for c in samplers_of(info).attribute_space]
        assert 3 <= len(names) <= 10 and len(set(names)) == len(names), (name, names)
        assert all(c.why for c in samplers_of(info).attribute_space), name
        for c in samplers_of(info).attribute_space:
            if (name, c.name) not in PROPERTIES:
                assert name.startswith("dynamic_"), f"{name} class {c.name} has no property check"


@pytest.mark.parametrize("name, cls", list(_cases()))
def test_class_draws_in_class_for_each_family(name, cls):
    info = oracle.lookup(f"stablehlo.{name}")
    attribute_class = next(c for c in samplers_of(info).attribute_space if c.name == cls)
    check = PROPERTIES.get((name, cls)) or start_class(cls)
    narrow = (name, cls) in NARROW_ONLY
    families = list(NARROW_TYPES) if narrow else [f for f in FAMILIES if f in info.element_types]
    assert len(families) >= 4, families  # iota takes no i1
    for seed, family in enumerate(families):
        case = random_example(attribute_class_cases(info, element_type(family), attribute_class), seed)
        assert case is not None and case.attribute_class == cls, (name, cls, family)
        program = oracle.print_module(case.module)
        outputs = oracle.evaluate(oracle.parse_module(program), case.inputs)  # the verifier accepts it
        assert check(case), (family, program, [np.asarray(v).tolist() for v in case.inputs[1:]])
        for t in case.signature.operand_types:
            assert math.prod(t.shape) <= 300, program
        data = np.concatenate([np.asarray(v).reshape(-1) for v in case.inputs[:DATA_OPERANDS.get(name)]]
                              or [np.zeros(0)])
        if family != "i1":  # data-movement inputs tell positions apart (i8 has 256 values)
            et = element_type(family)  # narrow: every value once (one zero, no NaN), the padding value left out
            values = 2 ** et.bits - et.is_float - (name == "pad") if narrow else 256 if family == "i8" else data.size
            assert len(np.unique(data)) == min(data.size, values), program
        if name in ("pad", "dynamic_pad") and family != "i1":
            padding = case.inputs[1]
            assert padding != 0 and not (case.inputs[0] == padding).any(), program
        assert outputs is not None


def test_quantized_types_get_no_class_case():
    q = QuantizedElementType(element_type("i8"), element_type("f32"), (0.5,), (0,))
    for name in OPS:
        assert all(c.draw_signature(None, q) is None for c in samplers_of(f"stablehlo.{name}").attribute_space)
