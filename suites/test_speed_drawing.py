"""The cheaper ways of drawing a run's cases draw the same cases as the costly ones did."""

from __future__ import annotations

import oracle
from generators.cases import collect_examples, first_case_of
from generators.ops import samplers_of
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


def test_large_hook_drawn_tensors_come_at_array_speed_with_every_kind_of_value():
    """An op record's hook draws a big tensor from one seeded numpy Generator (generators/ops/elements.py),
    keeping the kinds of values it draws one by one: shift amounts in range, equal to the width,
    past it and negative; chlo domain edges; index values past both ends."""
    import numpy as np
    from hypothesis import given, settings, strategies as st

    from generators.ops.elementwise import draw_shift_inputs
    from generators.ops.indexing import draw_index_values
    from oracle.registry import Signature
    from oracle.types import TensorType

    i8 = element_type("i8")
    seen = {}

    @settings(max_examples=5, database=None, deadline=None)
    @given(st.data())
    def draw_once(data):
        lhs, rhs = draw_shift_inputs(data.draw, Signature((TensorType((4000,), i8),) * 2, {}, ()))
        f32_tensor = Signature((TensorType((4000,), element_type("f32")),), {}, ())
        (acos,) = samplers_of("chlo.acos").draw_inputs(data.draw, f32_tensor)
        index = draw_index_values(data.draw, element_type("i32"), (4000,), 0, 9)
        amounts = rhs.astype(np.int64)
        seen.setdefault("kinds", []).append(((amounts >= 0) & (amounts < 8)).any() and (amounts == 8).any()
                                            and (amounts > 8).any() and (amounts < 0).any())
        seen.setdefault("edges", []).append(bool(np.isnan(acos).any()) and bool((np.abs(acos) > 1).any()))
        seen.setdefault("index", []).append(bool((index < 0).any()) and bool((index > 9).any()))
        assert lhs.shape == rhs.shape == acos.shape == index.shape == (4000,)

    draw_once()
    assert all(seen["kinds"]) and all(seen["edges"]) and all(seen["index"])
    # (drawn one by one, 12,000 Hypothesis draws overran Hypothesis's buffer: its health check failed the test)


def test_a_campaign_strategy_prints_in_milliseconds():
    """Hypothesis notes the repr of the strategy whenever a draw raises (a rejected draw too);
    field by field, the seed programs' IR made that 2 MB and 3-15 s each time (oracle/ir.py's
    short reprs and ``_repr_pretty_``)."""
    import warnings

    from conformance.fuzz_drawing import program_strategy

    strategy = program_strategy(grid=False, max_ops=8, ops=None, mode="mixed", seeds=None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (Hypothesis warns about a repr over 1 MB)
        text = repr(strategy)
    assert len(text) < 100_000  # (a repr of megabytes took seconds each time)
    assert "Module(@main:" in text
