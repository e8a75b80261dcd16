"""Semantics and accuracy, judged apart (judge/accuracy.py, judge/compare.py rule 7).

A value the spec leaves to the implementation's precision ("At the moment, StableHLO does not
provide guarantees about numerical accuracy") that is outside the accuracy profile makes a case
``inaccurate``, never ``mismatch``; everything the spec determines (NaN, infinities, signed and
special zeros, exact ops, exact conversions, a program's own ``result_accuracy`` TOLERANCE)
stays a semantic ``mismatch``.  Hand-made values, the profiles, an inexact convert (TBD in the
spec), result_accuracy on a fault backend, and the CLI's --accuracy.
"""

from __future__ import annotations

import json

import ml_dtypes
import numpy as np
import pytest

import oracle
from adapters import get_backend
from conformance.cli import main as cli
from judge.accuracy import BUILT_IN, is_accuracy_question, profile_named, requirement
from judge.compare import compare
from judge.tolerance import tolerance_for
from judge.verdict import Traits, judge_program
from oracle.errors import BadInputFile
from oracle.result_accuracy import ResultAccuracy, attribute, result_accuracy

SINE = tolerance_for("sine", "f32")  # 2 ULP: an accuracy row


def _ulps_away(x: float, n: int) -> np.float32:
    """The f32 value ``n`` representable steps above the positive ``x``."""
    return np.asarray(np.asarray(x, np.float32).view(np.int32) + np.int32(n), np.int32).view(np.float32)[()]


EXPECTED = np.array([0.5, -0.25, 0.0, -0.0, 3.0], np.float32)


def _compared(index: int, value, accuracy=True):
    actual = EXPECTED.copy()
    actual[index] = value
    return compare(EXPECTED, actual, "f32", SINE, accuracy=accuracy, profile="default")


# ------------------------------------------------------------------ the split, element by element

def test_a_finite_value_beyond_the_allowance_is_inaccurate_with_its_error():
    c = _compared(0, _ulps_away(0.5, 700))
    assert c.status == "inaccurate" and c.inaccurate_count == 1 and c.mismatch_count == 0
    assert c.max_ulp == 700 and "max 700 ULP" in c.message and "profile `default`" in c.message
    assert c.max_rel == pytest.approx(700 * 2 ** -24 / 0.5, rel=1e-3)


@pytest.mark.parametrize("index,value,why", [
    (0, np.nan, "NaN where a finite value is expected"),
    (1, -np.inf, "an infinity where a finite value is expected"),
    (2, np.float32(1e-3), "a nonzero where the expected value is a zero (IEEE's f(+-0) = +-0)"),
    (3, np.float32(0.0), "a zero of the wrong sign"),
])
def test_what_the_spec_determines_stays_a_mismatch(index, value, why):
    assert _compared(index, value).status == "mismatch", why


def test_a_zero_where_a_tiny_value_is_expected_is_an_accuracy_question():
    """erf(tiny) = 0, sin near its zeros: the value is finite and its error 100 %, no special value."""
    expected = np.array([1.79e-37], np.float32)
    c = compare(expected, np.zeros(1, np.float32), "f32", SINE, accuracy=True)
    assert c.status == "inaccurate"


def test_without_an_accuracy_question_every_failure_is_semantic():
    assert _compared(0, _ulps_away(0.5, 700), accuracy=None).status == "mismatch"


def test_a_mismatch_beside_an_inaccurate_element_wins_and_counts_both():
    actual = EXPECTED.copy()
    actual[0], actual[1] = _ulps_away(0.5, 50), np.nan
    c = compare(EXPECTED, actual, "f32", SINE, accuracy=True)
    assert c.status == "mismatch" and c.mismatch_count == 1 and c.inaccurate_count == 1


def test_accuracy_questions_are_the_non_exact_rows_but_not_the_order_bounds():
    assert is_accuracy_question("sine", "f32") and is_accuracy_question("chlo.erfc", "f64")
    assert is_accuracy_question("multiply", "complex<f32>")  # the complex formula is left open
    assert not is_accuracy_question("add", "f32")        # IEEE addition: correctly rounded
    assert not is_accuracy_question("sqrt", "f32")       # IEEE squareRoot
    assert not is_accuracy_question("reduce", "f32")     # an order's bound, which every order meets
    assert not is_accuracy_question("sine", "i32")


# -------------------------------------------------------------------------------- profiles

def test_the_built_in_profiles():
    assert set(BUILT_IN) == {"default", "correctly-rounded", "opencl-full", "xla-exhaustive"}
    default = profile_named("default")
    assert default.tolerance_for("sine", "f32") == SINE
    opencl = profile_named("opencl-full")
    assert opencl.tolerance_for("sine", "f32").ulp == 4 and opencl.tolerance_for("tan", "f32").ulp == 5
    assert opencl.tolerance_for("atan2", "f32").ulp == 6 and opencl.tolerance_for("power", "f32").ulp == 16
    assert opencl.tolerance_for("exponential", "f64").ulp == 3
    assert opencl.tolerance_for("sine", "bf16") == tolerance_for("sine", "bf16")  # OpenCL names no bf16
    assert profile_named("correctly-rounded").tolerance_for("sine", "f32").is_exact
    xla = profile_named("xla-exhaustive").tolerance_for("exponential", "f32")
    assert xla.ulp is None and xla.rel == tolerance_for("exponential", "f32").rel  # no 2-ULP alternative


def _profile_file(tmp_path, text: str) -> str:
    path = tmp_path / "loose.toml"
    path.write_text(text)
    return str(path)


LOOSE = '''name = "loose"
reason = "a kernel library's published 1024-ULP bound"
[[row]]
op = "*"
type = "float"
ulp = 1024
'''


def test_a_users_profile_file(tmp_path):
    profile = profile_named(_profile_file(tmp_path, LOOSE))
    assert profile.name == "loose" and profile.tolerance_for("sine", "f32").ulp == 1024
    actual = EXPECTED.copy()
    actual[0] = _ulps_away(0.5, 700)
    rule = requirement(oracle.parse_module(_one_op("sine")).main.ops[0], "f32", profile)
    assert rule.accuracy and compare(EXPECTED, actual, "f32", rule.tolerance, accuracy=True).status == "pass"


@pytest.mark.parametrize("text,what", [("[[row]]\nop = 'sine'\n", "needs op and type"),
                                       ("[[row]]\nop = 'sine'\ntype = 'f32'\nulp = -1\n", "non-negative"),
                                       ("name = ", "not TOML")])
def test_a_bad_profile_file_is_one_error_naming_it(tmp_path, text, what):
    path = _profile_file(tmp_path, text)
    with pytest.raises(BadInputFile, match=what) as e:
        profile_named(path)
    assert path in str(e.value) and "\n" not in str(e.value)


def test_an_unknown_profile_is_a_usage_error(capsys):
    assert cli(["run", "--backend", "oracle", "--ops", "sine", "--accuracy", "nonesuch"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--accuracy nonesuch" in err[0]


# ------------------------------------------------------------------------- TBD conversions

CONVERT = """func.func @main(%arg0: tensor<4xf32>) -> tensor<4xbf16> {
  %0 = stablehlo.convert %arg0 : (tensor<4xf32>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}"""


def _bf16_truncated(x: np.ndarray) -> np.ndarray:
    return (x.view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32).astype(ml_dtypes.bfloat16)


def test_an_inexact_convert_that_truncates_is_inaccurate_not_a_mismatch():
    """convert: 'if the source value can be exactly represented in the destination type, the result
    value is that exact representation. Otherwise, the behavior is TBD (#180)'."""
    x = np.array([1.0, 1.0 + 2 ** -7 + 2 ** -9, -3.0, 1.0 - 2 ** -10], np.float32)
    verdict = judge_program(oracle.parse_module(CONVERT), [x], [_bf16_truncated(x)])
    assert verdict.status == "inaccurate", verdict.message
    assert verdict.op == "stablehlo.convert"


def test_an_exact_convert_gone_wrong_stays_a_mismatch():
    x = np.array([1.0, 2.0, -3.0, 0.5], np.float32)  # every one a bf16 value
    wrong = x.astype(ml_dtypes.bfloat16)
    wrong[1] = ml_dtypes.bfloat16(2.015625)
    assert judge_program(oracle.parse_module(CONVERT), [x], [wrong]).status == "mismatch"


def test_the_truncating_convert_fault_is_reported_inaccurate():
    backend = get_backend("fault:convert-bf16-truncates")
    x = np.array([1.0, 1.0 + 2 ** -7 + 2 ** -9, 3.3, -7.77], np.float32)
    run = backend.run(CONVERT, [x])
    assert judge_program(oracle.parse_module(CONVERT), [x], run.outputs).status == "inaccurate"


# ------------------------------------------------------------------------- result_accuracy

def _one_op(op: str, accuracy: ResultAccuracy | None = None) -> str:
    attr = "" if accuracy is None else f" {{result_accuracy = {accuracy.text()}}}"
    return (f"func.func @main(%arg0: tensor<8xf32>) -> tensor<8xf32> {{\n"
            f"  %0 = stablehlo.{op} %arg0{attr} : tensor<8xf32>\n"
            f"  return %0 : tensor<8xf32>\n}}")


X = np.linspace(-3, 3, 8, dtype=np.float32)


def test_result_accuracy_is_read_and_built():
    asked = ResultAccuracy(atol=1e-5, rtol=0.0, ulps=2, mode="TOLERANCE")
    op = oracle.parse_module(_one_op("exponential", asked)).main.ops[0]
    assert result_accuracy(op) == asked and attribute(asked).value["ulps"] == 2


def _verdict(backend_name: str, asked: ResultAccuracy | None):
    text = _one_op("exponential", asked)
    run = get_backend(backend_name).run(text, [X])
    return judge_program(oracle.parse_module(text), [X], run.outputs)


def test_a_program_asking_for_2_ulps_fails_a_backend_that_misses_them():
    """TOLERANCE is the program's own requirement: missing it is semantic, whatever the profile."""
    asked = ResultAccuracy(ulps=2, mode="TOLERANCE")
    assert _verdict("fault:exp-low-precision", None).status == "inaccurate"  # no request: the profile's
    assert _verdict("fault:exp-low-precision", asked).status == "mismatch"
    assert _verdict("oracle", asked).status == "pass"


def test_a_program_asking_for_what_the_backend_meets_passes():
    assert _verdict("fault:exp-low-precision", ResultAccuracy(ulps=1 << 14, mode="TOLERANCE")).status == "pass"
    assert _verdict("fault:exp-low-precision", ResultAccuracy(rtol=1e-3, mode="TOLERANCE")).status == "pass"


def test_result_accuracy_highest_is_faithful_rounding_judged_as_accuracy():
    assert _verdict("fault:exp-low-precision", ResultAccuracy(mode="HIGHEST")).status == "inaccurate"
    op = oracle.parse_module(_one_op("exponential", ResultAccuracy(mode="HIGHEST"))).main.ops[0]
    rule = requirement(op, "f32", profile_named("default"))
    assert rule.accuracy and rule.tolerance.ulp == 1


def test_the_profile_is_the_runs_and_recorded(tmp_path, capsys):
    """--accuracy on run: the profile goes in results.json; a fault off by ~2**10 ULP is inaccurate
    under `default` and passes under a 1024-ULP-and-more user profile."""
    out = tmp_path / "default"
    cli(["run", "--backend", "fault:exp-low-precision", "--ops", "exponential", "--dtypes", "f32", "--out",
         str(out), "--quiet"])
    doc = json.loads((out / "results.json").read_text())
    assert doc["accuracy"] == "default" and doc["summary"].get("inaccurate")
    assert "Accuracy (profile `default`)" in capsys.readouterr().out
    loose = _profile_file(tmp_path, LOOSE.replace("1024", "4096"))
    out = tmp_path / "loose"
    cli(["run", "--backend", "fault:exp-low-precision", "--ops", "exponential", "--dtypes", "f32", "--out", str(out),
         "--quiet", "--accuracy", loose])
    doc = json.loads((out / "results.json").read_text())
    # (its results just below the largest finite value overflow to inf: a mismatch under every profile)
    assert doc["accuracy"] == loose and not _inaccurate_by_the_profile(out)


def test_traits_take_the_profile_of_the_backend():
    backend = get_backend("oracle")
    backend.accuracy_profile = "opencl-full"
    assert Traits.of(backend).accuracy.name == "opencl-full"


# --------------------------------------------------------------- a real backend's accuracy

def _statuses(path) -> dict:
    return json.loads((path / "results.json").read_text())["summary"]


def _inaccurate_by_the_profile(out) -> list:
    """The inaccurate cases of a run but those asking result_accuracy HIGHEST (<= 1 ULP whatever
    the profile)."""
    cases = json.loads((out / "results.json").read_text())["cases"]
    return [c["id"] for c in cases if c["status"] == "inaccurate"
            and c.get("attribute_class") != "result-accuracy-highest"]


def test_iree_sine_cosine_tan_are_inaccurate_under_default_and_meet_a_loose_profile(tmp_path):
    """IREE llvm-cpu's f32 sin / cos / tan err by up to ~1700 ULP on ordinary arguments: accuracy,
    which the spec does not bound -- inaccurate under `default`, never mismatch nor a listed
    deviation; under a profile allowing 2**14 ULP they pass.  What stays listed is semantic
    (-inf / NaN for the largest finite arguments, sin(-0) = +0): --expect-known exits 0."""
    if not get_backend("iree-llvm-cpu").available()[0]:
        pytest.skip("iree-llvm-cpu is not installed")
    run = ["run", "--backend", "iree-llvm-cpu", "--ops", "sine,cosine,tan", "--dtypes", "f32", "--quiet",
           "--expect-known"]
    assert cli(run + ["--out", str(tmp_path / "default")]) == 0
    assert _statuses(tmp_path / "default").get("inaccurate")
    loose = _profile_file(tmp_path, LOOSE.replace("1024", str(2 ** 14)))
    assert cli(run + ["--out", str(tmp_path / "loose"), "--accuracy", loose]) == 0
    assert not _inaccurate_by_the_profile(tmp_path / "loose")


def test_the_certificate_states_semantics_and_accuracy_apart(tmp_path):
    out = tmp_path / "certify"
    cli(["certify", "--backend", "fault:exp-low-precision", "--ops", "exponential,sqrt", "--dtypes", "f32",
         "--no-corpus", "--no-spec", "--out", str(out), "--quiet", "--accuracy", "opencl-full"])
    summary = json.loads((out / "summary.json").read_text())
    assert summary["accuracy"]["profile"] == "opencl-full"
    assert summary["accuracy"]["ops"] == 1 and summary["accuracy"]["meets"] == 0  # sqrt: no accuracy question
    assert "stablehlo.exponential" in summary["accuracy"]["inaccurate"]
    assert "accuracy: meets `opencl-full` on 0 of 1 ops" in (out / "summary.txt").read_text()
