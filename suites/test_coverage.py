"""Coverage you can read: each case draws its own program, every class of an op's
attribute space is drawn for every element type, and results / certify say what was covered."""

from __future__ import annotations

import oracle
from conformance.certify import summarize_run
from conformance.run import plan
from generators.cases import draw_cases
from generators.ops import samplers_of
from oracle.types import element_type
from reports.coverage import coverage_gaps, coverage_text, op_coverage
from judge.results import CaseResult, Run


def _signatures(op: str, et: str, max_examples: int = 2) -> set:
    return {c.program for c in draw_cases(oracle.lookup(op), element_type(et), max_examples, 0)}


def test_element_types_of_an_op_do_not_share_their_random_programs():
    """The issue's case: transpose on f32, i8, bf16, ui16 and f64 drew tensor<8x8> and tensor<12x6>,
    both with permutation [0, 1].  Now the random draws differ per element type (text without
    the element type, so only the shapes and attributes count)."""
    shapes_and_perms = []
    for et in ("f32", "i8", "bf16", "ui16", "f64"):
        cases = [c for c in draw_cases(oracle.lookup("stablehlo.transpose"), element_type(et), 2, 0)
                 if not c.attribute_class]
        shapes_and_perms.append(tuple(c.program.replace(et, "T") for c in cases[1:]))
    assert len(set(shapes_and_perms)) == len(shapes_and_perms)


def test_one_tiny_case_and_the_rest_random():
    cases = [c for c in draw_cases(oracle.lookup("stablehlo.transpose"), element_type("f32"), 4, 0)
             if not c.attribute_class]
    assert len({c.program for c in cases}) == 4  # not four copies of Hypothesis's simplest example


def test_draws_are_reproducible_and_depend_on_the_seed():
    info, et = oracle.lookup("stablehlo.slice"), element_type("i8")
    first = [c.id for c in draw_cases(info, et, 3, 0)]
    assert first == [c.id for c in draw_cases(info, et, 3, 0)]
    assert first != [c.id for c in draw_cases(info, et, 3, 1)]


def test_every_attribute_class_is_drawn_for_every_element_type_it_applies_to():
    """Each class of every op draws a case (or says it does not apply) on a type of each family;
    class names are unique per op and say why."""
    drawn_somewhere = 0
    for name, info in sorted(oracle.all_ops().items()):
        space = samplers_of(info).attribute_space
        if not space:
            continue
        names = [c.name for c in space]
        assert len(names) == len(set(names)), name
        assert all(c.why for c in space), name
        seen = set()
        for et in ("i1", "i8", "ui32", "f32", "bf16", "complex<f32>"):
            if et not in info.element_types:
                continue
            cases = draw_cases(info, element_type(et), 1, 0)
            seen |= {c.attribute_class for c in cases if c.attribute_class}
        assert seen == set(names), (name, set(names) - seen)
        drawn_somewhere += 1
    assert drawn_somewhere >= 15  # the ops the issue names have attribute spaces


def _case(op, et, status, cls="", sig="s1"):
    return CaseResult(id=f"{op}-{et}-{cls}-{status}-{sig}", ops=[f"stablehlo.{op}"], dtypes=[et], status=status,
                      signature=sig, attribute_class=cls, kind="differential")


def test_coverage_counts_programs_and_says_which_classes_were_not_exercised():
    classes = [c.name for c in samplers_of("stablehlo.transpose").attribute_space]
    assert len(classes) >= 2
    cases = [_case("transpose", "f32", "pass", classes[0], "a"), _case("transpose", "i8", "pass", "", "a"),
             _case("transpose", "f32", "rejected", classes[1], "b"), _case("transpose", "f32", "pass", "", "c")]
    cov = op_coverage(cases)["transpose"]
    assert cov["cases"] == 4 and cov["signatures"] == 3
    assert cov["classes_exercised"] == [classes[0]]
    assert "rejected 1x (on f32)" in cov["classes_not_exercised"][classes[1]]
    assert set(cov["classes_not_applicable"]) == set(classes[2:])
    assert "not exercised" in coverage_text(op_coverage(cases))


def test_certify_does_not_say_conforms_for_an_op_with_classes_not_exercised():
    """Every case passed, but one class was rejected: the op's cells are not certified."""
    classes = [c.name for c in samplers_of("stablehlo.reverse").attribute_space]
    passing = [_case("reverse", "f32", "pass", name, name) for name in classes[1:]]
    run = Run("x", "differential", {}, passing + [_case("reverse", "i8", "rejected", classes[0], "r"),
                                                  _case("reverse", "i8", "pass", classes[1], "q")])
    summary = summarize_run(run)
    assert not summary["conforms"]
    assert "reverse:f32" in summary["not_certified"] and classes[0] in summary["not_certified"]["reverse:f32"]
    all_exercised = Run("x", "differential", {}, passing + [_case("reverse", "f32", "pass", classes[0], "z")])
    assert summarize_run(all_exercised)["conforms"] == ["reverse:f32"]
    assert not coverage_gaps(op_coverage(all_exercised.cases))


def test_the_default_plan_draws_attribute_classes_on_data_movement_ops():
    ops = {info.mnemonic for info, _ in plan() if samplers_of(info).attribute_space}
    for name in ("transpose", "reverse", "slice", "concatenate", "broadcast_in_dim", "pad", "dynamic_slice",
                 "dynamic_update_slice", "gather", "scatter", "sort", "reduce", "reduce_window",
                 "select_and_scatter", "compare", "iota", "dot_general", "convolution", "select", "clamp"):
        assert name in ops, name
