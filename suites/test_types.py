"""Types: every element type maps to its dtype; every type prints and parses back; the
quantized-type constraints C1..C13 are enforced with their names."""

import ml_dtypes
import numpy as np
import pytest

from oracle.types import (ALL_ELEMENT_TYPES, TOKEN, QuantizedElementType, TensorType, TupleType, TypeConstraintError,
                          TypeSyntaxError, element_type, parse_type)

SPEC_ELEMENT_TYPES = ("i1 si2 si4 si8 si16 si32 si64 ui2 ui4 ui8 ui16 ui32 ui64 f4E2M1FN f6E2M3FN f6E3M2FN f8E3M4 "
                      "f8E4M3 f8E4M3FN f8E4M3FNUZ f8E4M3B11FNUZ f8E5M2 f8E5M2FNUZ f8E8M0FNU bf16 f16 f32 f64").split()


@pytest.mark.parametrize("name", SPEC_ELEMENT_TYPES + ["complex<f32>", "complex<f64>"])
def test_every_spec_element_type_exists(name):
    t = element_type(name)
    assert t.bits == {"i1": 1, "complex<f32>": 64, "complex<f64>": 128}.get(name, t.bits)
    assert parse_type(f"tensor<2x{name}>") == TensorType((2,), t)


def test_dtypes_match_the_formats():
    assert element_type("i4").dtype == np.dtype(ml_dtypes.int4)
    assert element_type("ui2").dtype == np.dtype(ml_dtypes.uint2)
    assert element_type("f8E4M3B11FNUZ").dtype == np.dtype(ml_dtypes.float8_e4m3b11fnuz)
    assert element_type("f8E8M0FNU").dtype == np.dtype(ml_dtypes.float8_e8m0fnu)
    assert element_type("i1").dtype == np.dtype(np.bool_)
    assert element_type("si32").name == "i32"  # MLIR spells signed integers signless
    assert (element_type("i4").min_value, element_type("i4").max_value) == (-8, 7)
    assert (element_type("ui2").min_value, element_type("ui2").max_value) == (0, 3)
    assert len(ALL_ELEMENT_TYPES) == 30


@pytest.mark.parametrize("text", [
    "tensor<f32>", "tensor<0x3xi8>", "tensor<?x2xf64>", "tensor<?x?xcomplex<f32>>", "!stablehlo.token",
    "tuple<tensor<i32>, !stablehlo.token, tuple<>>",
    "tensor<2x!quant.uniform<i8:f32, 5.000000e-01:-2>>",
    "tensor<3x2x!quant.uniform<i8<-127:127>:f32:0, {1.000000e-01:-1,2.000000e-01,3.000000e-01:3}>>",
])
def test_types_round_trip_through_mlir_spelling(text):
    t = parse_type(text)
    assert parse_type(str(t)) == t


def test_types_round_trip_through_mlir_itself():
    """MLIR (jaxlib) accepts every spelling we print: a function taking one of each."""
    from oracle import parse_module
    types = [f"tensor<2x{t.name}>" for t in ALL_ELEMENT_TYPES] + [
        "tensor<?x3xf32>", "!stablehlo.token", "tuple<tensor<i32>, tuple<>>",
        str(parse_type("tensor<2x!quant.uniform<i8<-127:127>:f32:0, {0.5:1,0.25:-1}>>"))]
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types))
    module = parse_module(f"func.func @main({args}) {{\n  return\n}}")
    assert [str(a.type) for a in module.main.arguments] == [str(parse_type(t)) for t in types]


def test_quantized_defaults_and_constraints():
    q = parse_type("tensor<!quant.uniform<i8:f32, 0.5:2>>").element_type
    assert (q.min, q.max, q.scales, q.zero_points) == (-128, 127, (0.5,), (2,))
    i8, f32 = element_type("i8"), element_type("f32")

    def check(constraint, **kw):
        fields = dict(storage_type=i8, expressed_type=f32, scales=(1.0,), zero_points=(0,))
        fields.update(kw)
        with pytest.raises(TypeConstraintError, match=rf"\({constraint}\)"):
            QuantizedElementType(**fields).verify()

    check("C1", storage_type=f32)
    check("C3", storage_min=5, storage_max=5)
    check("C3", storage_min=-129, storage_max=0)
    check("C4", expressed_type=i8)
    check("C5", scales=(0.0,))
    check("C6", scales=(float("inf"),))
    check("C7", zero_points=(200,))
    check("C9", scales=(1.0, 2.0), zero_points=(0,), quantization_dimension=0)
    check("C10", scales=(1.0, 2.0), zero_points=(0, 0))
    check("C11", quantization_dimension=-1)
    with pytest.raises(TypeConstraintError, match=r"\(C12\)"):
        parse_type("tensor<2x!quant.uniform<i8:f32:1, {0.5:1,0.5:1}>>").verify()
    with pytest.raises(TypeConstraintError, match=r"\(C13\)"):
        parse_type("tensor<3x!quant.uniform<i8:f32:0, {0.5:1,0.5:1}>>").verify()


@pytest.mark.parametrize("bad", ["tensor<2xf33>", "tensor<2x", "tensor<2xcomplex<i32>>", "tuple<tensor<i32>"])
def test_bad_type_spellings_are_clear_errors(bad):
    with pytest.raises(TypeSyntaxError):
        parse_type(bad)


def test_token_and_tuple():
    assert parse_type("!stablehlo.token") is TOKEN
    assert parse_type("tuple<>") == TupleType(())
