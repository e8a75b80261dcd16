"""The judge's deviation questions (judge/known_deviations.py): which entry explains a failure,
a stored finding, a refusal -- asked by fuzz, check, triage and the drawing of programs, answered
only here.  Each test uses a table of its own, so it can fail on the matching rule alone."""

import pytest

import oracle
from judge import known_deviations
from judge.explain import explain_failure, explain_seen, refuses
from judge.known_deviations import Deviation
from judge.status import Status

# is_finite's result is i1: a table names it by its operand type; convert f32 -> f16 then add
PROGRAM = """
func.func @main(%a: tensor<4xf32>) -> (tensor<4xi1>, tensor<4xf16>) {
  %0 = stablehlo.is_finite %a : (tensor<4xf32>) -> tensor<4xi1>
  %1 = stablehlo.convert %a : (tensor<4xf32>) -> tensor<4xf16>
  %2 = stablehlo.add %1, %1 : tensor<4xf16>
  return %0, %2 : tensor<4xi1>, tensor<4xf16>
}
"""


@pytest.fixture
def table(monkeypatch):
    entries = [Deviation("fake", "is_finite", "f32", ("mismatch",), "is_finite by operand type"),
               Deviation("fake", "convert", "f16,f32,i1", ("crash",), "convert crash, all the program's types"),
               Deviation("fake", "add", "f16", ("mismatch",), "add needs a condition", when="subnormal_operand"),
               Deviation("fake", "sqrt", "bf16", ("rejected",), "sqrt bf16 refused"),
               Deviation("other", "add", "*", ("mismatch",), "another backend's entry")]
    monkeypatch.setattr(known_deviations, "KNOWN_DEVIATIONS", entries)
    return entries


def test_a_mismatch_is_explained_under_its_op_or_its_operand_types(table):
    module = oracle.parse_module(PROGRAM)
    blame = explain_failure("fake", Status.MISMATCH, "stablehlo.is_finite", "i1", (), module)
    assert blame.deviation is table[0] and blame.ops == ("stablehlo.is_finite",) and blame.dtypes == ("f32",)
    # without the program, only the result type can be asked about
    assert explain_failure("fake", Status.MISMATCH, "stablehlo.is_finite", "i1").deviation is None
    # a mismatch is never explained by another op of the program
    assert explain_failure("fake", Status.MISMATCH, "stablehlo.convert", "f16", (), module).deviation is None


def test_a_condition_explains_only_when_the_judge_found_it(table):
    module = oracle.parse_module(PROGRAM)
    assert explain_failure("fake", Status.MISMATCH, "stablehlo.add", "f16", (), module).deviation is None
    blame = explain_failure("fake", Status.MISMATCH, "stablehlo.add", "f16", ("subnormal_operand",), module)
    assert blame.deviation is table[2] and blame.dtypes == ("f16",)
    assert explain_failure("other", Status.MISMATCH, "stablehlo.add", "f16", (), module).deviation is table[4]


def test_a_crash_is_explained_by_any_op_with_all_the_programs_types(table):
    module = oracle.parse_module(PROGRAM)
    blame = explain_failure("fake", Status.CRASH, "stablehlo.add", "f16", (), module)
    assert blame.deviation is table[1]
    assert blame.ops == ("stablehlo.add", "stablehlo.convert", "stablehlo.is_finite")
    assert blame.dtypes == ("f16", "f32", "i1")
    assert explain_failure("fake", Status.TIMEOUT, "stablehlo.add", "f16", (), module).deviation is None


def test_a_stored_finding_and_a_refusal(table):
    assert explain_seen("fake", Status.MISMATCH, [["add", "f32"], ["is_finite", "f32"]]) is table[0]
    assert explain_seen("fake", Status.MISMATCH, [["add", "f16"]]) is None  # its condition cannot be checked
    assert refuses("fake", "sqrt", "bf16") and not refuses("fake", "sqrt", "f32")
    assert refuses("fake", "convert", "f16,f32,i1") and not refuses("other", "add", "f32")


def test_the_judge_records_the_entry_on_its_verdict(table):
    """judge_program, told the backend's name (Traits.backend), records the entry explaining its
    mismatch on the Verdict itself (as results.json stores it); callers never ask again."""
    import numpy as np

    from judge.verdict import Traits, judge_program
    module = oracle.parse_module(PROGRAM)
    x = np.array([1.0, np.inf, 2.0, np.nan], np.float32)
    right = np.array([2, np.inf, 4, np.nan], np.float16)
    wrong_finite = [np.array([True, True, True, False]), right]  # inf called finite: is_finite is wrong
    verdict = judge_program(module, [x], wrong_finite, traits=Traits(backend="fake"))
    assert verdict.status == Status.MISMATCH and verdict.op == "stablehlo.is_finite"
    assert verdict.deviation["reason"] == "is_finite by operand type" and verdict.deviation["dtypes"] == "f32"
    assert judge_program(module, [x], wrong_finite, traits=Traits(backend="other")).deviation == {}
    assert judge_program(module, [x], wrong_finite).deviation == {}  # no backend named: nothing looked up
    good = [np.array([True, False, True, False]), right]
    assert judge_program(module, [x], good, traits=Traits(backend="fake")).status == Status.PASS


def test_the_judges_verdict_carries_each_outputs_implementation_defined_elements():
    """convert f32 -> i32 of NaN is implementation-defined (spec convert: TBD, #180): the verdict's
    masks say which output elements, so a caller stores them without asking the oracle again."""
    import numpy as np

    import oracle
    from judge.verdict import judge_program

    module = oracle.parse_module("""func.func @main(%x: tensor<3xf32>) -> (tensor<3xi32>, tensor<3xf32>) {
      %0 = stablehlo.convert %x : (tensor<3xf32>) -> tensor<3xi32>
      return %0, %x : tensor<3xi32>, tensor<3xf32>
    }""")
    x = np.array([1.0, np.nan, -2.0], np.float32)
    verdict = judge_program(module, [x], [np.array([1, 7, -2], np.int32), x])
    assert verdict.status == "implementation-defined"
    assert verdict.masks[0].tolist() == [False, True, False] and verdict.masks[1] is None
