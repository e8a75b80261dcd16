"""The corpus readers (conformance/corpus/): both formats, every check form, check semantics.

The testdata files under suites/data/testdata/ were written by hand for this project (in
the layout of the StableHLO repo's testdata) with hand-computed expectations; one of them
has a deliberately wrong expectation and must be reported as a mismatch.
"""

from __future__ import annotations

import glob
import os
import re

import ml_dtypes
import numpy as np
import pytest

from adapters import Backend, get_backend
from conformance.corpus import Check, CorpusCase, load_cases, parse_check, run_case, split_cases
from judge.golden_checks import almost_eq_mask, eq_mask, evaluate_check, ulp_difference

DATA = os.path.join(os.path.dirname(__file__), "data", "testdata")
GOOD = sorted(f for f in glob.glob(os.path.join(DATA, "*.mlir")) if not os.path.basename(f).startswith("wrong_"))
WRONG = sorted(glob.glob(os.path.join(DATA, "wrong_*.mlir")))


def _oracle_run(case: CorpusCase):
    res = run_case(case, get_backend("oracle"))
    if res.status == "unsupported":
        pytest.skip(f"oracle: {res.message.splitlines()[0]}")
    return res


class FixedOutputs(Backend):
    """A stand-in backend returning given outputs (tests the checks without any evaluator)."""
    name = "fixed"

    def __init__(self, outputs, status="ok", message=""):
        self.outputs, self.status, self.message = outputs, status, message

    def available(self):
        return True, "fixed outputs"

    def run(self, program, inputs, timeout=60):
        from adapters.base import RunResult
        return RunResult(self.status, self.outputs if self.status == "ok" else None, self.message)


# --------------------------------------------------------------------- testdata format

@pytest.mark.parametrize("path", GOOD, ids=[os.path.basename(p) for p in GOOD])
def test_own_testdata_files_pass_on_oracle(path):
    (case,) = load_cases(path)
    assert case.format == "testdata" and not case.error, case.error
    assert case.checks and all(c.expected is not None for c in case.checks)
    res = _oracle_run(case)
    assert res.status == "pass", res.message


@pytest.mark.parametrize("path", WRONG, ids=[os.path.basename(p) for p in WRONG])
def test_wrong_expectation_is_a_mismatch(path):
    (case,) = load_cases(path)
    res = _oracle_run(case)
    assert res.status == "mismatch"
    assert "at [1]: actual -2 expected 2" in res.message
    assert "wrong golden" in res.message and res.extra["wrong_golden"] == 1  # the oracle disagrees with the file


def test_testdata_rewrite_returns_actual_expected_pairs():
    (case,) = load_cases(os.path.join(DATA, "multiply_f16_check_eq.mlir"))
    # @check.eq returned tensor<i1>; now @main returns (actual, expected) and the check is almost_eq 1e-4.
    assert "check.eq" not in case.program_text
    assert re.search(r"func\.func public @main\(\) -> \(tensor<4xf16>, tensor<4xf16>\)", case.program_text)
    (chk,) = case.checks
    assert (chk.kind, chk.actual, chk.expected, chk.tolerance) == ("almost_eq", 0, 1, 1e-4)
    assert case.ops == ["stablehlo.constant", "stablehlo.multiply"] and case.dtypes == ["f16"]
    (close_case,) = load_cases(os.path.join(DATA, "add_f32_expect_close.mlir"))
    assert close_case.checks[0].kind == "close" and close_case.checks[0].max_ulp == 3
    # Checks run on whatever the backend returns.
    good = np.array([3.75, 0.0, 0.75, np.inf], np.float32)
    assert run_case(close_case, FixedOutputs([good, good.copy()])).status == "pass"
    off = good.copy()
    off[0] = np.nextafter(np.nextafter(np.nextafter(np.nextafter(off[0], 9), 9), 9), 9)  # 4 ULP
    res = run_case(close_case, FixedOutputs([off, good]))
    assert res.status == "mismatch" and "4 ULP" in res.message and "0x40700004" in res.message


def test_backend_statuses_are_carried_over():
    (case,) = load_cases(os.path.join(DATA, "compare_i32_expect_eq.mlir"))
    for status in ("rejected", "crash", "timeout", "error", "unsupported"):
        res = run_case(case, FixedOutputs(None, status=status, message="boom"))
        assert res.status == status and res.message == "boom"


# --------------------------------------------------------------------- interpret format

INTERPRET = """\
// RUN: stablehlo-translate --interpret -split-input-file %s

func.func @eq_const() {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %1 = stablehlo.add %0, %0 : tensor<2xi32>
  check.expect_eq_const %1, dense<[2, 4]> : tensor<2xi32>
  func.return
}

// -----

func.func @almost_const_multiline() {
  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf64>
  check.expect_almost_eq_const %0,
      dense<[1.05,
             2.0]> : tensor<2xf64> {tolerance = 0.1 : f64}
  func.return
}

// -----

func.func @two_operand_checks() {
  %a = stablehlo.constant dense<5.0> : tensor<f16>
  %b = stablehlo.constant dense<5.010> : tensor<f16>
  check.expect_eq %a, %a : tensor<f16>
  check.expect_almost_eq %a, %b, tolerance = 0.1 : tensor<f16>
  check.expect_close %a, %b, max_ulp_difference = 3 : tensor<f16>, tensor<f16>
  func.return
}

// // -----

func.func @helper(%x: tensor<i64>) -> tensor<i64> {
  func.return %x : tensor<i64>
}

func.func @main() {
  %0 = stablehlo.constant dense<7> : tensor<i64>
  %1 = func.call @helper(%0) : (tensor<i64>) -> tensor<i64>
  check.expect_eq_const %1, dense<7> : tensor<i64>
  func.return
}
"""


@pytest.fixture
def interpret_cases(tmp_path):
    p = tmp_path / "sample.mlir"
    p.write_text(INTERPRET)
    return load_cases(str(p))


def test_split_like_mlir():
    starts = [s for s, _ in split_cases(INTERPRET)]
    assert starts == [1, 11, 21, 32]  # "// // -----" splits too (MLIR splits on the substring)


def test_interpret_rewrite(interpret_cases):
    by = {c.name: c for c in interpret_cases}
    assert [c.id for c in interpret_cases] == ["sample.mlir:3:eq_const", "sample.mlir:12:almost_const_multiline",
                                              "sample.mlir:22:two_operand_checks", "sample.mlir:37:main"]
    for c in interpret_cases:
        assert not c.error, c.error
        assert "check." not in c.program_text
        # Line numbers are those of the file (the rewrite keeps every other line in place).
        assert c.program_text.split("\n")[c.line - 1].lstrip().startswith("func.func")
    eq = by["eq_const"]
    assert "func.func @main() -> (tensor<2xi32>)" in eq.program_text
    assert "func.return %1 : tensor<2xi32>" in eq.program_text
    (chk,) = eq.checks
    assert chk.kind == "eq" and chk.line == 6 and chk.expected_value.tolist() == [2, 4]
    assert eq.ops == ["stablehlo.add", "stablehlo.constant"] and eq.dtypes == ["i32"]
    (multi,) = by["almost_const_multiline"].checks
    assert multi.kind == "almost_eq" and multi.tolerance == 0.1 and multi.expected_value.tolist() == [1.05, 2.0]
    two = by["two_operand_checks"]
    assert [(c.kind, c.actual, c.expected) for c in two.checks] == [("eq", 0, 1), ("almost_eq", 2, 3),
                                                                     ("close", 4, 5)]
    assert two.checks[1].tolerance == 0.1 and two.checks[2].max_ulp == 3
    assert "func.return %a, %a, %a, %b, %a, %b : tensor<f16>" in two.program_text
    main = by["main"]  # several functions: @main is the entry, the helper is kept
    assert "func.func @helper" in main.program_text and main.ops == ["stablehlo.constant"]


def test_interpret_cases_run_on_oracle(interpret_cases):
    for c in interpret_cases:
        res = _oracle_run(c)
        assert res.status == "pass", (c.id, res.message)


def test_interpret_checks_detect_failures(interpret_cases):
    by = {c.name: c for c in interpret_cases}
    res = run_case(by["eq_const"], FixedOutputs([np.array([2, 5], np.int32)]))
    assert res.status == "mismatch" and "check.expect_eq_const at line 6" in res.message
    assert "at [1]: actual 5 expected 4" in res.message
    res = run_case(by["almost_const_multiline"], FixedOutputs([np.array([1.0, 2.2])]))
    assert res.status == "mismatch" and "tolerance 0.1" in res.message


@pytest.mark.parametrize("text, kind, fields", [
    ("check.expect_eq_const %x, dense<[1, 2]> : tensor<2xi32>", "eq", dict(dense="[1, 2]", type="tensor<2xi32>")),
    ("check.expect_almost_eq_const %r#1, dense<(1.0, 2.0)> : tensor<complex<f64>>", "almost_eq",
     dict(operands=["%r#1"], tolerance=1e-4, type="tensor<complex<f64>>")),
    ("check.expect_almost_eq_const %o, dense<5.1> : tensor<f64> {tolerance = 0.1 : f64}", "almost_eq",
     dict(tolerance=0.1)),
    ("check.expect_almost_eq_const %o, dense<5.1> : tensor<f64>, tolerance = 0.25", "almost_eq",
     dict(tolerance=0.25)),
    ("check.expect_eq %a, %b : tensor<3xi64>", "eq", dict(operands=["%a", "%b"], type="tensor<3xi64>")),
    ("check.expect_almost_eq %a, %b : tensor<f64>", "almost_eq", dict(tolerance=1e-4)),
    ("check.expect_almost_eq %a, %b, tolerance = 0.1 : tensor<f64>", "almost_eq", dict(tolerance=0.1)),
    ("check.expect_close %a, %b, max_ulp_difference = 3 : tensor<f16>, tensor<f16>", "close",
     dict(max_ulp=3, min_ulp=0, type="tensor<f16>")),
    ("check.expect_close %a, %b, max_ulp_difference = 5, min_ulp_difference = 1 : tensor<2xf32>, tensor<2xf32>",
     "close", dict(max_ulp=5, min_ulp=1)),
    ('check.expect_serialized_eq %p, probe_id = "probe0", iter = 1 : tensor<2xi32>', "serialized", {}),
])
def test_parse_check_forms(text, kind, fields):
    pc = parse_check(text)
    assert pc.kind == kind
    for k, v in fields.items():
        assert getattr(pc, k) == v, (k, getattr(pc, k))


def test_unsupported_and_tool_cases(tmp_path):
    par = tmp_path / "all_reduce.mlir"
    par.write_text('module @m {\n  func.func @f() -> tensor<i64> {\n    %0 = stablehlo.constant dense<1> : '
                   'tensor<i64>\n    return %0 : tensor<i64>\n  }\n  func.func @main() {\n    %r = '
                   '"interpreter.run_parallel"() {programs = [[@f]]} : () -> tensor<i64>\n'
                   '    check.expect_eq_const %r, dense<1> : tensor<i64>\n    func.return\n  }\n}\n')
    (case,) = load_cases(str(par))
    assert case.runnable  # interpreter.run_parallel runs on the oracle's process grid
    assert run_case(case, "oracle").status == "pass"
    tool = tmp_path / "printing.mlir"
    tool.write_text("func.func @p() {\n  func.return\n}\n")
    (case,) = load_cases(str(tool))
    assert case.skip_reason and run_case(case, "oracle").extra.get("skipped")


# ----------------------------------------------------------------------- malformed input

def test_malformed_interpret_case_is_an_error_with_location(tmp_path):
    p = tmp_path / "bad.mlir"
    p.write_text("// a type error on line 5, column 8\n\n// -----\n\nfunc.func @bad() {\n"
                 "  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>\n"
                 "  %1 = stablehlo.add %0, %0 : tensor<3xi32>\n"
                 "  check.expect_eq_const %1, dense<[2, 4, 6]> : tensor<3xi32>\n  func.return\n}\n")
    (case,) = load_cases(str(p))
    assert case.error and re.search(r"bad\.mlir:7:\d+: error: ", case.error), case.error
    res = run_case(case, "oracle")
    assert res.status == "error" and re.search(r"bad\.mlir:7:\d+", res.message)


def test_malformed_check_is_an_error(tmp_path):
    p = tmp_path / "badcheck.mlir"
    p.write_text("func.func @c() {\n  %0 = stablehlo.constant dense<1> : tensor<i32>\n"
                 "  check.expect_eq_const %0, dense<[1, 2]> : tensor<i32>\n  func.return\n}\n")
    (case,) = load_cases(str(p))
    assert case.error.startswith("badcheck.mlir:3:") and run_case(case, "oracle").status == "error"


def test_malformed_testdata_is_an_error(tmp_path):
    p = tmp_path / "broken_testdata.mlir"
    p.write_text(open(os.path.join(DATA, "compare_i32_expect_eq.mlir")).read().replace("tensor<4xi1>}>", "tensor<5xi1>}>"))
    (case,) = load_cases(str(p))
    assert case.format == "testdata"
    assert re.search(r"broken_testdata\.mlir:\d+:\d+: error: ", case.error), case.error
    assert run_case(case, "oracle").status == "error"


# ------------------------------------------------------------------------ check semantics

def test_eq_semantics():
    # IEEE equality as the official interpreter (APFloat ==): -0 == +0; NaN matches NaN here.
    a = np.array([0.0, np.nan, 1.0, 2.0], np.float32)
    e = np.array([-0.0, np.nan, 1.0, 2.0000002], np.float32)
    assert eq_mask(a, e).tolist() == [True, True, True, False]
    assert eq_mask(np.array([1 + 2j]), np.array([1 - 2j])).tolist() == [False]
    assert eq_mask(np.array([-8, 7], ml_dtypes.int4), np.array([-8, 7], ml_dtypes.int4)).all()


def test_almost_eq_semantics():
    # As areApproximatelyEqual: same sign required, NaN only matches NaN, inf only itself.
    a = np.array([5.0, 5.0, 1e-5, -1e-5, np.nan, np.inf, 1.0, 0.0])
    e = np.array([5.0001, 5.0002, 0.0, 0.0, np.nan, np.inf, np.nan, -0.0])
    assert almost_eq_mask(a, e, 1e-4).tolist() == [True, False, True, False, True, True, False, True]
    c = almost_eq_mask(np.array([1 + 1j]), np.array([1.00005 + 1.2j]), 1e-4)
    assert c.tolist() == [False]  # per component: the imaginary parts are 0.2 apart


def test_ulp_semantics():
    f32 = np.float32
    one = f32(1.0)
    assert ulp_difference(np.array([one]), np.array([np.nextafter(one, f32(2))])).tolist() == [1]
    assert ulp_difference(np.array([0.0], f32), np.array([-0.0], f32)).tolist() == [0]
    # Across zero: 1 ULP above the smallest normal on each side, plus the collapsed subnormal range.
    tiny = np.finfo(f32).smallest_normal
    assert ulp_difference(np.array([tiny], f32), np.array([-tiny], f32)).tolist() == [2]
    # Subnormals round to the nearest of 0 / smallest normal (the official ULPDifference).
    sub = np.array([np.finfo(f32).smallest_subnormal], f32)
    assert ulp_difference(sub, np.array([0.0], f32)).tolist() == [0]
    # f16: the spacing in [4, 8) is 2**-8; 5.010 = 5 + 2.56 spacings rounds to 5.01171875: 3 ULP.
    assert ulp_difference(np.array([5.0], np.float16), np.array([5.010], np.float16)).tolist() == [3]
    assert ulp_difference(np.array([np.nan], f32), np.array([-np.nan], f32)).tolist() == [0]
    assert ulp_difference(np.array([1 + 1j], np.complex64),
                          np.array([1 + np.nextafter(f32(1), f32(2)) * 1j], np.complex64)).tolist() == [1]
    assert ulp_difference(np.array([1.0], ml_dtypes.bfloat16), np.array([1.0078125], ml_dtypes.bfloat16)).tolist() == [1]


def test_evaluate_check_reports_hex_bits():
    chk = Check(kind="eq", actual=0, expected_value=np.array([1.5, 2.0], np.float32), op="check.expect_eq_const",
                line=12)
    out = evaluate_check(chk, [np.array([1.5, 2.5], np.float32)])
    assert not out.ok
    assert "at [1]: actual 2.5 (0x40200000) expected 2.0 (0x40000000)" in out.message
    assert out.max_ulp == float(0x40200000 - 0x40000000)
    shape = evaluate_check(chk, [np.array([1.5], np.float32)])
    assert not shape.ok and "float32[1]" in shape.message


def test_check_without_type_does_not_swallow_the_function(tmp_path):
    p = tmp_path / "notype.mlir"
    p.write_text("func.func @c() {\n  %0 = stablehlo.constant dense<1> : tensor<i32>\n"
                 "  check.expect_eq %0, %0\n  func.return\n}\n")
    (case,) = load_cases(str(p))
    assert case.error.startswith("notype.mlir:3:") and "expected ': type'" in case.error
