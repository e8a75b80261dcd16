"""Plans by signature: each (source, destination) pair an op's spec allows is
its own planned case -- dot_general's result types, uniform_quantize's storage-type pairs."""

from __future__ import annotations

import oracle
from generators.cases import draw_cases
from generators.programs import signature_keys
from oracle.types import ALL_ELEMENT_TYPES, element_type

FLOATS = {t.name for t in ALL_ELEMENT_TYPES if t.is_float}
STORAGES = {"i2", "i4", "i8", "i16", "i32"}  # signed, <= 32 bits: what MLIR's quant types hold


def _checked_op(case):
    return next(o for o in case.module.main.ops if o.name == case.op)


def test_dot_general_plans_every_result_type_of_the_operands_kind():
    info = oracle.lookup("stablehlo.dot_general")
    cases = draw_cases(info, element_type("bf16"), 1, seed=0)
    results = {str(_checked_op(c).results[0].type.element_type) for c in cases}
    assert results == FLOATS  # (C13) constrains only the operands: f4 ... f64 results
    ints = set(signature_keys(info, "i8"))
    assert "ui64" in ints and "i2" in ints and "i1" not in ints and not ints & FLOATS
    assert signature_keys(info, "i1") == ["i1"]
    assert signature_keys(info, "complex<f32>") == ["complex<f32>", "complex<f64>"]


def test_convolution_plans_no_result_types():
    # convolution (C27): element_type(lhs) = element_type(rhs) = element_type(result)
    assert signature_keys(oracle.lookup("stablehlo.convolution"), "f32") == []


def test_uniform_quantize_plans_every_storage_pair():
    info = oracle.lookup("stablehlo.uniform_quantize")
    cases = draw_cases(info, element_type("f16"), 1, seed=0)
    pairs = set()
    for c in cases:
        op = _checked_op(c)
        src, dst = op.operands[0].type.element_type, op.results[0].type.element_type
        assert dst.expressed_type.name == "f16"  # (C2)
        pairs.add((src.storage_type.name if getattr(src, "is_quantized", False) else src.name,
                   dst.storage_type.name))
    assert {(s, d) for s in STORAGES for d in STORAGES} <= pairs
    assert {("f16", d) for d in STORAGES} <= pairs
