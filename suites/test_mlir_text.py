"""MLIR text <-> IR: reading any syntax through jaxlib, exact literals, printing that the
official verifier accepts, and diagnostics (line:col) for bad input."""

import ml_dtypes
import numpy as np
import pytest

from oracle import MlirError, parse_module, print_module
from oracle.literals import format_dense, parse_dense
from oracle.types import ALL_ELEMENT_TYPES, parse_type

PROGRAM = """
func.func private @twice(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %x, %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func @main(%a: tensor<2xf32>, %i: tensor<2xi32>) -> (tensor<2xf32>, tensor<f32>, tensor<2xi32>) {
  %c = stablehlo.constant dense<[1.5, -0.0]> : tensor<2xf32>
  %t = func.call @twice(%a) : (tensor<2xf32>) -> tensor<2xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%t init: %z) applies stablehlo.add across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
  %s:2 = "stablehlo.sort"(%t, %i) ({
    ^bb0(%p: tensor<f32>, %q: tensor<f32>, %u: tensor<i32>, %v: tensor<i32>):
      %cmp = stablehlo.compare LT, %p, %q, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %cmp : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<2xf32>, tensor<2xi32>) -> (tensor<2xf32>, tensor<2xi32>)
  return %s#0, %r, %s#1 : tensor<2xf32>, tensor<f32>, tensor<2xi32>
}
"""


def test_reads_pretty_syntax_into_the_ir():
    m = parse_module(PROGRAM)
    assert [f.name for f in m.functions] == ["twice", "main"]
    assert m.function("twice").visibility == "private"
    ops = [op.name for op in m.main.ops]
    assert ops == ["stablehlo.constant", "func.call", "stablehlo.constant", "stablehlo.reduce", "stablehlo.sort",
                   "func.return"]
    sort = m.main.ops[4]
    assert sort.attr("dimension") == 0 and sort.attr("is_stable") is True
    cmp = sort.regions[0].ops[0]
    assert (cmp.attr("comparison_direction"), cmp.attr("compare_type")) == ("LT", "TOTALORDER")
    assert len(sort.regions[0].arguments) == 4
    reduce = m.main.ops[3]
    assert reduce.attr("dimensions") == (0,)
    const = m.main.ops[0].attr("value")
    assert const.tolist() == [1.5, 0.0] and np.signbit(const[1])
    assert m.main.ops[1].attr("callee") == "twice"
    assert m.main.ops[0].location == "-:7:8"
    ret = m.main.ops[-1]
    assert ret.operands == (sort.results[0], reduce.results[0], sort.results[1])


def test_printed_text_is_accepted_by_mlir_and_round_trips():
    m = parse_module(PROGRAM)
    text = print_module(m)
    again = print_module(parse_module(text))
    assert again == text


def test_malformed_text_gives_mlir_diagnostic_with_line_and_column():
    bad = "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = stablehlo.add %a, %a : tensor<3xf32>\n  return %0 : tensor<2xf32>\n}"
    with pytest.raises(MlirError) as info:
        parse_module(bad, filename="prog.mlir")
    assert info.value.diagnostics[0][0].startswith("prog.mlir:2:")
    assert "prog.mlir:2:" in str(info.value)


def test_garbage_is_an_error_not_a_traceback():
    with pytest.raises(MlirError):
        parse_module("this is not mlir")


@pytest.mark.parametrize("et", ALL_ELEMENT_TYPES, ids=lambda t: t.name)
def test_hex_literals_are_exact_for_every_type(et):
    """format_dense -> MLIR -> generic text -> parse_dense gives back the same bits."""
    rng = np.random.default_rng(0)
    if et.is_complex:
        values = (rng.standard_normal(6) + 1j * rng.standard_normal(6)).astype(et.dtype)
    elif et.is_bool:
        values = rng.integers(0, 2, 6).astype(bool)
    else:
        bits = rng.integers(0, 1 << min(et.bits, 62), 6, dtype=np.uint64)
        values = bits.astype(et.storage_dtype)
        if et.bits < 8:
            values = values & np.uint8((1 << et.bits) - 1)
        values = values.view(et.dtype)
    tensor = parse_type(f"tensor<2x3x{et.name}>")
    text = f"func.func @main() -> {tensor} {{\n  %0 = stablehlo.constant {format_dense(values.reshape(2, 3), et)} : {tensor}\n  return %0 : {tensor}\n}}"
    got = parse_module(text).main.ops[0].attr("value")
    assert got.dtype == et.dtype and got.shape == (2, 3)
    view = et.storage_dtype if not (et.is_complex or et.is_bool) else et.dtype
    assert np.array_equal(got.reshape(-1).view(view), values.view(view))


def test_decimal_literals_read_exactly():
    t = parse_type("tensor<4xbf16>")
    got = parse_dense("[1.0, -0.0, 0x7FC0, 3.390625]", t)
    assert got.view(np.uint16).tolist() == [0x3F80, 0x8000, 0x7FC0, 0x4059]
    assert parse_dense("[true, false]", parse_type("tensor<2xi1>")).tolist() == [True, False]
    assert parse_dense("[(1.0, 2.0)]", parse_type("tensor<1xcomplex<f64>>")).tolist() == [1 + 2j]
    assert parse_dense("-8", parse_type("tensor<2xi4>")).tolist() == [-8, -8]
    assert parse_dense("[18446744073709551615]", parse_type("tensor<1xui64>")).tolist() == [2**64 - 1]
    assert parse_dense("", parse_type("tensor<0xf32>")).shape == (0,)
    assert parse_dense('"0x0000803F"', parse_type("tensor<3xf32>")).tolist() == [1.0, 1.0, 1.0]  # hex splat
    assert parse_dense("[0x7FC00001]", parse_type("tensor<1xf32>")).view(np.uint32)[0] == 0x7FC00001
    assert parse_dense("[1.5]", parse_type("tensor<1xf8E4M3FN>")).dtype == np.dtype(ml_dtypes.float8_e4m3fn)
