"""The deterministic first case of every element-wise (op, element type): the special-value
cross product (generators.tensors.special_values, generators.programs.special_value_cases)."""

import numpy as np
import pytest

import oracle
from generators.cases import draw_cases
from generators.tensors import special_value_cross, special_values
from oracle.types import element_type


def _bits(a):
    return set(np.ascontiguousarray(a).view(f"u{a.dtype.itemsize}").tolist())


@pytest.mark.parametrize("name", ["f32", "bf16", "f16", "f8E4M3FN", "f8E5M2", "f64"])
def test_float_specials_hold_the_named_values(name):
    et = element_type(name)
    v = special_values(et)
    fi = et.finfo
    wanted = np.array([0.0, -0.0, np.inf, -np.inf, 1.0, -1.0, float(fi.max), -float(fi.max),
                       float(fi.smallest_normal), -float(fi.smallest_normal),
                       float(fi.smallest_subnormal), -float(fi.smallest_subnormal)], dtype=np.float64)
    if name == "f8E4M3FN":  # no infinities
        wanted = wanted[np.isfinite(wanted)]
    assert _bits(wanted.astype(et.dtype)) <= _bits(v)
    with np.errstate(invalid="ignore"):
        assert np.isnan(v.astype(np.float64)).sum() >= 2  # quiet and signalling NaN / payloads
    # just inside / outside the domain edge of log1p, acos, ...: the neighbours of -1
    minus_one_up = np.nextafter(np.float64(-1), 0).astype(et.dtype) if name == "f64" else None
    if minus_one_up is not None:
        assert minus_one_up in v


def test_integer_specials_hold_extremes_and_shift_counts():
    v = set(special_values("i32").tolist())
    assert {0, 1, -1, -2**31, 2**31 - 1, -2**31 + 1, 2**31 - 2, 31, 32, 33} <= v
    assert {0, 1, 255, 254, 7, 8, 9} <= set(special_values("ui8").tolist())


def test_binary_cross_holds_every_pair():
    et = element_type("f32")
    a, b = special_value_cross([et, et])
    n = special_values(et).size
    assert a.size == b.size == n * n
    pairs = set(zip(a.view(np.uint32).tolist(), b.view(np.uint32).tolist()))
    assert (0x80000000, 0x80000000) in pairs and (0x00000000, 0x80000000) in pairs  # atan2(+-0, -0)


@pytest.mark.parametrize("op, name, arity", [("sqrt", "f32", 1), ("atan2", "bf16", 2), ("sign", "f16", 1),
                                             ("shift_right_logical", "i8", 2), ("compare", "ui32", 2)])
def test_first_case_is_the_special_value_cross(op, name, arity):
    first = draw_cases(oracle.lookup(f"stablehlo.{op}"), element_type(name), 2, seed=0)[0]
    assert len(first.inputs) == arity
    expected = special_value_cross([element_type(name)] * arity)
    for got, want in zip(first.inputs, expected):
        assert got.shape == want.shape and _bits(got) == _bits(want)
    assert -0.0 in first.inputs[0].tolist() or not name.startswith("f")
