"""The cheaper ways of drawing a run's cases draw the same cases as the costly ones did."""

from __future__ import annotations

import oracle
from conformance.run import collect_examples, first_case_of
from generators.programs import case_id, one_op_programs, special_value_cases
from generators.shapes import shapes
from oracle.types import element_type


def _ids(cases):
    return [case_id(c) for c in cases]


def test_first_special_value_case_is_the_one_four_examples_gave():
    convert, compare = oracle.all_ops()["stablehlo.convert"], oracle.all_ops()["stablehlo.compare"]
    for info, et, key in [(convert, "f32", "i8"), (convert, "bf16", "f8E4M3FN"), (compare, "i16", "LT")]:
        for seed in (0, 3):
            strategy = special_value_cases(info, element_type(et), key)
            first = first_case_of(strategy, 4, seed)
            four = [c for c in collect_examples(strategy, 4, seed) if c is not None][:1]
            assert first and _ids(first) == _ids(four), (info.name, et, key, seed)


def test_shape_strategies_draw_the_same_shapes_when_built_again():
    # generators/shapes.py caches the strategies it builds per bounds: drawing is unchanged
    for bounds in [(0, 4, 0, None), (1, 3, 0, 8), (2, 4, 1, 64)]:
        first = collect_examples(shapes(*bounds), 6, 1)
        collect_examples(shapes(0, 2, 0, 3), 4, 1)
        assert collect_examples(shapes(*bounds), 6, 1) == first


def test_drawn_cases_do_not_depend_on_strategies_built_before():
    add = oracle.all_ops()["stablehlo.add"]
    first = _ids(collect_examples(one_op_programs(add, element_type("f32")), 3, 5))
    collect_examples(one_op_programs(oracle.all_ops()["stablehlo.multiply"], element_type("i8")), 3, 5)
    assert _ids(collect_examples(one_op_programs(add, element_type("f32")), 3, 5)) == first
