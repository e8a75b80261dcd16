"""The region menus of generators/regions.py: every body is valid StableHLO (the verifier accepts
it as a function body) and computes what its name and flags say (hand-checked on scalars)."""

from __future__ import annotations

import numpy as np
import pytest

import oracle
from generators import regions
from oracle import ir
from oracle.types import ALL_ELEMENT_TYPES, element_type
from oracle.mlir_text import parse_module, print_module


def _menu(strategy) -> list:
    """Every element of a sampled_from menu (the strategies are sampled_from lists)."""
    return list(strategy.wrapped_strategy.elements if hasattr(strategy, "wrapped_strategy") else strategy.elements)


def _as_module(body: regions.Body) -> ir.Module:
    region = body.region
    ret = region.ops[-1]
    fn = ir.Function("main", region.arguments, tuple(v.type for v in ret.operands),
                     region.ops[:-1] + (ir.Op("func.return", ret.operands, ()),))
    return ir.Module((fn,))


def _run(body, *scalars):
    args = [np.asarray(s, dtype=v.type.dtype) for s, v in zip(scalars, body.region.arguments)]
    return [v.item() for v in oracle.evaluate(_as_module(body), args)]


def _by_name(strategy, name):
    return next(b for b in _menu(strategy) if b.name == name)


_TYPES = [t for t in ALL_ELEMENT_TYPES]


@pytest.mark.parametrize("et", _TYPES, ids=str)
def test_every_body_passes_the_verifier(et):
    menus = [regions.reducer_bodies([et]), regions.reducer_bodies([et, et]), regions.comparators([et]),
             regions.comparators([et, element_type("i32")]), regions.map_bodies([et, et])]
    if not et.is_complex:
        menus.append(regions.select_bodies(et))
    if not et.is_complex and not et.is_bool:
        menus.append(regions.reducer_bodies([et, element_type("i32")]))
    for menu in menus:
        for body in _menu(menu):
            module = _as_module(body)
            assert print_module(parse_module(print_module(module))), body.name


def test_reducers_compute_what_they_say():
    f32 = element_type("f32")
    menu = regions.reducer_bodies([f32])
    assert _run(_by_name(menu, "subtract"), 5.0, 3.0) == [2.0]
    assert _run(_by_name(menu, "first"), 5.0, 3.0) == [5.0]
    assert _run(_by_name(menu, "second"), 5.0, 3.0) == [3.0]
    assert not _by_name(menu, "subtract").associative
    assert {b.name for b in _menu(regions.reducer_bodies([f32], associative_only=True))} >= {"add", "maximum"}
    assert "subtract" not in {b.name for b in _menu(regions.reducer_bodies([f32], associative_only=True))}
    assert "and" not in {b.name for b in _menu(menu)}  # and/or/xor: booleans and integers only


def test_argmax_keeps_the_larger_value_and_the_smaller_index_on_ties():
    argmax = _by_name(regions.reducer_bodies([element_type("i32"), element_type("i64")]), "argmax")
    assert _run(argmax, 7, 4, 9, 1) == [9, 1]
    assert _run(argmax, 9, 4, 9, 1) == [9, 1]
    assert _run(argmax, 9, 0, 9, 1) == [9, 0]
    assert argmax.associative and argmax.commutative
    assert not _by_name(regions.reducer_bodies([element_type("f32"), element_type("i32")]), "argmax").associative


def test_comparators():
    f32, i32 = element_type("f32"), element_type("i32")
    menu = regions.comparators([f32, i32])
    lex = _by_name(menu, "lexicographic")
    assert _run(lex, 1.0, 1.0, 2, 3) == [True]     # equal keys: the second key decides
    assert _run(lex, 1.0, 1.0, 3, 2) == [False]
    assert _run(lex, -0.0, 0.0, 9, 0) == [True]    # TOTALORDER: -0 < +0
    assert _run(lex, float("nan"), 1.0, 0, 0) == [False]  # +NaN sorts last in TOTALORDER
    assert _run(_by_name(menu, "lt"), float("nan"), 1.0, 0, 0) == [False]
    assert not _by_name(menu, "lt").strict_weak_order and _by_name(menu, "lt_totalorder").strict_weak_order
    assert not _by_name(menu, "le").strict_weak_order
    assert _run(_by_name(menu, "always_true"), 1.0, 2.0, 0, 0) == [True]
    # complex keys are ordered by their real part (compare takes only EQ/NE on complex)
    c = element_type("complex<f32>")
    assert _run(_by_name(regions.comparators([c]), "lt"), 1 + 5j, 2 - 5j) == [True]


def test_select_and_map_bodies():
    i8 = element_type("i8")
    assert _run(_by_name(regions.select_bodies(i8), "ge"), 3, 3) == [True]
    assert _run(_by_name(regions.select_bodies(i8), "gt"), 3, 3) == [False]
    assert _run(_by_name(regions.map_bodies([i8, i8]), "add"), 100, 100) == [-56]  # wraps
    assert _run(_by_name(regions.map_bodies([i8]), "negate"), -128) == [-128]
    assert "negate" not in {b.name for b in _menu(regions.map_bodies([element_type("i1")]))}
