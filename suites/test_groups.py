"""Findings grouped by root cause (judge/grouping.py) and shown by run / certify / corpus reports.

A fault backend that breaks one op on many element types is ONE problem in the closing summary,
results.json, the HTML page and JUnit; two faults of one op that fail it differently are two.
Every relation is checked on hand-made values, through the judge's own evidence (judge/compare.py
-> reports/results.py comparison_details), and crash / error messages that differ only in
numbers, types and folders form one group.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import ml_dtypes
import numpy as np
import pytest

from adapters import get_backend
from conformance.cli import main as cli
from judge import grouping
from judge.compare import compare_outputs
from judge.results import CaseResult, load_run, read_results
from reports.html import render_report
from reports.results import comparison_details, write_results
from reports.summary import closing_summary

SIGN_EXTEND = "dot-general-sign-extend-unsigned"
UNSIGNED = "ui2,ui4,ui8,ui16,ui32"


# ------------------------------------------------------------------ the fault it is tested on

def test_the_sign_extension_fault_gives_the_hand_computed_wrong_answer():
    """ui2 [3, 1] . [3, 2] into i8: 3*3 + 1*2 = 11; read as i2 (-1, 1) . (-1, -2) = 1 - 2 = -1.
    A result no wider than the operands is left alone."""
    def program(result):
        return ("module {\n  func.func @main(%a: tensor<2xui2>, %b: tensor<2xui2>) -> tensor<" + result + "> {\n"
                '    %0 = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<'
                "lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>} : "
                f"(tensor<2xui2>, tensor<2xui2>) -> tensor<{result}>\n"
                f'    "func.return"(%0) : (tensor<{result}>) -> ()\n  }}\n}}')
    a, b = np.array([3, 1], ml_dtypes.uint2), np.array([3, 2], ml_dtypes.uint2)
    for backend, result, want in (("oracle", "i8", 11), (f"fault:{SIGN_EXTEND}", "i8", -1),
                                  (f"fault:{SIGN_EXTEND}", "ui2", 3)):  # 11 mod 4, untouched
        r = get_backend(backend).run(program(result), [a, b])
        assert r.ok, r.message
        assert int(r.outputs[0]) == want, (backend, result)


# ------------------------------------------------------------- one op, many types: one problem

@pytest.fixture(scope="module")
def sign_extended_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("sign-extend")
    junit = out / "junit.xml"
    code = cli(["run", "--backend", f"fault:{SIGN_EXTEND}", "--ops", "dot_general", "--dtypes", UNSIGNED,
                "--jobs", "1", "--out", str(out), "--junit", str(junit), "--quiet"])  # the default seed
    return out, code, junit


def test_one_faulty_op_over_every_type_pair_is_one_problem(sign_extended_run, capsys):
    out, code, _ = sign_extended_run
    doc = read_results(str(out / "results.json"))
    failing = [c["id"] for c in doc["cases"] if c["status"] == "mismatch"]
    widened = {tuple(c["dtypes"]) for c in doc["cases"] if len(c["dtypes"]) == 2
               and int(c["dtypes"][1].lstrip("ui")) > int(c["dtypes"][0].lstrip("ui"))}
    caught = {tuple(c["dtypes"]) for c in doc["cases"] if c["status"] == "mismatch"}
    # every unsigned operand x wider result pair: its operands span the whole range (dot_general's draw)
    assert code == 1 and len(widened) == 30 and widened <= caught
    (group,) = doc["groups"]
    assert group["new"] and group["status"] == "mismatch" and group["op"] == "dot_general"
    assert group["relation"] == "sign-extended unsigned" and "deviation" not in group
    assert sorted(group["members"]) == sorted(failing) and group["cases"] == len(failing)
    operand_types = {t.split(",")[0] for t in group["element_types"]}
    assert operand_types >= {"ui2", "ui4", "ui8", "ui16"}, operand_types
    assert group["reproducer"].startswith(str(out)) and "expected" in group["example"]


def test_the_closing_summary_counts_problems_first(sign_extended_run):
    out, _, _ = sign_extended_run
    run = load_run(str(out))
    n = sum(c.status == "mismatch" for c in run.cases)
    text = closing_summary("t", run.backend, run.cases, results_path=str(out / "results.json"))
    assert f"New problems: 1 in {n} case(s)" in text
    assert "1. dot_general mismatch: sign-extended unsigned" in text and "types:  ui2," in text
    assert "reproducer: " in text and f"exit code 1: 1 new problem(s) in {n} case(s)" in text
    assert text.index("New problems") < text.index("1. dot_general")


def test_junit_names_the_problem_of_each_failing_case(sign_extended_run):
    out, _, junit = sign_extended_run
    root = ET.parse(junit).getroot()
    failures = root.findall(".//failure")
    assert failures and all(f.get("message").startswith("[problem 1 of 1: dot_general mismatch: sign-extended "
                                                        "unsigned,") for f in failures)
    (prop,) = root.findall(".//properties/property")
    assert prop.get("name") == "problem 1" and len(prop.get("value").split(": ")[-1].split()) == len(failures)


def test_the_html_page_has_one_row_per_problem_linked_to_its_cases(sign_extended_run):
    out, _, _ = sign_extended_run
    run = load_run(str(out))
    page = render_report([run])
    assert page.count("<tr class=group ") == 1
    n = sum(c.status == "mismatch" for c in run.cases)
    assert f'data-key="mismatch dot_general: sign-extended unsigned" data-members="{n}"' in page
    assert "same root cause as" in page  # each member's drill-down names its problem


def test_the_problems_table_follows_the_filters_in_a_browser(sign_extended_run, tmp_path):
    from suites.test_report_html import CHROMIUM, open_page
    if CHROMIUM is None:
        pytest.skip("chromium is not installed")
    out, _, _ = sign_extended_run
    page = tmp_path / "report.html"
    page.write_text(render_report([load_run(str(out))]))
    for query, hidden in (("", 0), ("?status=pass", 1)):
        state, dom = open_page(f"file://{page}{query}", tmp_path)
        assert state["broken-links"] == "0"  # every member links to a drill-down that exists
        assert dom.count('<tr class="group hidden"') == hidden, query


def test_two_ways_of_failing_one_op_are_two_problems(tmp_path):
    """Two faults of maximum (NaN dropped on float types, unsigned compared as signed) run on the
    same types: their cases together form two groups, each over its own types."""
    cases = []
    for fault in ("maximum-nan", "maximum-unsigned-as-signed"):
        out = tmp_path / fault
        cli(["run", "--backend", f"fault:{fault}", "--ops", "maximum", "--dtypes", "f32,bf16,ui32",
             "--jobs", "1", "--out", str(out), "--quiet"])
        cases += load_run(str(out)).cases
    groups = grouping.group_cases("fault", cases)
    assert sorted((g.op, g.relation) for g in groups) == [("maximum", "number where NaN"), ("maximum", "wrong value")]
    by_relation = {g.relation: g for g in groups}
    assert set(by_relation["number where NaN"].element_types) == {"f32", "bf16"}
    assert set(by_relation["wrong value"].element_types) == {"ui32"}


def test_corpus_cases_group_under_the_op_of_their_file(tmp_path, capsys):
    """``corpus``'s closing summary groups too: the interpreter's multiply tests (each program starts
    with constants) on a fault that loses the sign of zero are one multiply problem."""
    from conformance.corpus import default_corpus_dir
    corpus = default_corpus_dir()
    if corpus is None:
        pytest.skip("the interpret corpus (../shared/corpora/stablehlo-interpret or $SHLO_CORPUS) is not available")
    code = cli(["corpus", f"{corpus}/multiply.mlir", "--backend", "fault:multiply-zero-sign", "--out", str(tmp_path),
                "--quiet"])
    out = capsys.readouterr().out
    failing = [c for c in load_run(str(tmp_path)).cases if c.status == "mismatch"]
    assert code == 1 and len(failing) >= 2
    assert f"New problems: 1 in {len(failing)} case(s)" in out and "1. multiply mismatch: signed zero" in out
    assert f"reproducer: {corpus}/multiply.mlir" in out


# -------------------------------------------------------------- relations, on hand-made values

def _mismatch(expected, actual, dtype: str, dtypes=None, case_id="c") -> CaseResult:
    """A failing case with the judge's evidence of expected vs actual (dtype: the result type)."""
    from oracle.types import element_type
    et = element_type(dtype)
    verdict = compare_outputs([np.asarray(expected, dtype=et.dtype)], [np.asarray(actual, dtype=et.dtype)], [et])
    assert verdict.status == "mismatch"
    case = CaseResult(case_id, ["stablehlo.op"], dtypes or [dtype], "mismatch", message=verdict.message)
    for key, value in comparison_details(verdict, [dtype]).items():
        setattr(case, key, value)
    return case


f32_tiny = np.finfo(np.float32).smallest_normal
RELATIONS = [  # (expected, actual, result type, the case's element types, relation)
    ([np.nan], [1.0], "f32", None, "number where NaN"),
    ([1.0], [np.nan], "f32", None, "NaN where number"),
    ([-0.0], [0.0], "f32", None, "signed zero"),
    ([1e-40], [0.0], "f32", None, "flushed subnormal"),                 # a subnormal flushed
    ([1.5 * f32_tiny], [0.0], "f32", None, "flushed subnormal"),        # smallest normal binade
    ([3 * f32_tiny], [0.0], "f32", None, "wrong value"),                # beyond it: not a flush
    ([np.inf], [3.4e38], "f32", None, "inf/overflow"),
    ([3.4e38], [np.inf], "f32", None, "inf/overflow"),
    ([2.5], [-2.5], "f32", None, "wrong sign"),
    ([1.0], [np.nextafter(np.float32(1), np.float32(2))], "f32", None, "off by k ULP"),
    ([1.0], [1.0 + 16 * 2.0 ** -23], "f32", None, "off by k ULP"),
    ([1.0], [1.0 + 17 * 2.0 ** -23], "f32", None, "wrong value"),
    ([1.0], [2.0], "f32", None, "wrong value"),
    ([9], [-3], "i8", ["ui2", "i8"], "sign-extended unsigned"),          # 9 - (-3) = 3 * 2**2
    ([200], [-56], "i32", ["ui8", "i32"], "sign-extended unsigned"),     # 200 read as i8
    ([11], [65535], "ui16", ["ui2", "ui16"], "sign-extended unsigned"),  # 11 - 65535 = -16381 * 2**2
    ([-1], [255], "i32", ["i8", "i32"], "zero-extended signed"),
    ([9], [-3], "i8", ["i8"], "wrong value"),                            # not wider: no extension
    ([5], [6], "i32", None, "off by k ULP"),
    ([5], [60], "i32", None, "wrong value"),
    ([True], [False], "i1", None, "wrong value"),
    ([1 - 2j], [1 + 2j], "complex<f32>", None, "wrong sign"),            # the conjugate
    ([complex(np.nan, 1)], [1 + 1j], "complex<f32>", None, "number where NaN"),
    ([complex(1, -0.0)], [1 + 0j], "complex<f32>", None, "signed zero"),
    ([2 + 1e-40j], [2 + 0j], "complex<f32>", None, "flushed subnormal"),
    ([2 + 1j], [3 + 1j], "complex<f32>", None, "wrong value"),
]


@pytest.mark.parametrize("expected, actual, dtype, dtypes, relation", RELATIONS,
                         ids=[f"{r[4]}-{r[2]}-{k}" for k, r in enumerate(RELATIONS)])
def test_each_relation_from_the_judges_evidence(expected, actual, dtype, dtypes, relation):
    case = _mismatch(expected, actual, dtype, dtypes)
    assert grouping.case_relation(case) == relation
    # the same from the judge's message alone (a corpus case, an older results file)
    assert grouping.case_relation(CaseResult("m", case.ops, case.dtypes, "mismatch", message=case.message)) == relation


def test_a_case_takes_the_relation_most_of_its_elements_have():
    case = _mismatch([-0.0, -0.0, -0.0, 1.0, 2.0], [0.0, 0.0, 0.0, 5.0, 7.0], "f32")
    assert grouping.case_relation(case) == "signed zero"
    tie = _mismatch([-0.0, 1.0], [0.0, 5.0], "f32")
    assert grouping.case_relation(tie) == "signed zero"  # a tie: the first in the table


def test_a_groups_example_shows_an_element_of_its_relation():
    case = _mismatch([-0.0, 1e-40, 1.5 * f32_tiny], [0.0, 0.0, 0.0], "f32", case_id="flush")
    (group,) = grouping.group_cases("b", [case])
    assert group.relation == "flushed subnormal" and group.example == "expected 1e-40, actual 0.0 (flush)"


def test_same_relation_across_types_and_shapes_is_one_group_other_relations_and_ops_are_not():
    cases = [_mismatch([-0.0] * n, [0.0] * n, t, case_id=f"z-{t}-{n}") for t in ("f32", "bf16", "f64") for n in (1, 3)]
    cases.append(_mismatch([1.0], [np.nan], "f32", case_id="nan"))
    other_op = _mismatch([-0.0], [0.0], "f32", case_id="other")
    other_op.ops = ["stablehlo.negate"]
    groups = grouping.group_cases("fault:none", cases + [other_op, CaseResult("ok", ["stablehlo.op"], ["f32"], "pass")])
    assert [(g.op, g.relation, len(g.members)) for g in groups] == [
        ("op", "signed zero", 6), ("negate", "signed zero", 1), ("op", "NaN where number", 1)]
    assert groups[0].element_types == ["f32", "bf16", "f64"] and all(g.new for g in groups)


# --------------------------------------------------------------- crashes, errors, rejections

def _crash(site_line: str, case_id: str) -> CaseResult:
    return CaseResult(case_id, ["stablehlo.all_reduce"], ["f32"], "crash",
                      message="crashed while compiling: xla worker killed by SIGABRT (signal 6); stderr:\n"
                              + site_line + "\n*** Check failure stack trace: ***")


def test_crashes_group_by_their_site_with_numbers_normalized():
    a = _crash("F0000 00:00:1700000000.123 4242 hlo_sharding.cc:1436] Check failed: n == 8 (4 vs. 8)", "a")
    b = _crash("F0000 00:00:1711111111.999 77 hlo_sharding.cc:1436] Check failed: n == 2 (16 vs. 2)", "b")
    c = _crash("F0000 00:00:1700000000.123 4242 shape_util.cc:99] Check failed: rank == 3", "c")
    assert grouping.failure_headline(a) == grouping.failure_headline(b) == \
        "hlo_sharding.cc:1436 Check failed: n == N (N vs. N)"
    groups = grouping.group_cases("xla-nothing-listed", [a, b, c])
    assert [len(g.members) for g in groups] == [2, 1]
    no_site = [CaseResult(i, ["stablehlo.add"], [t], "crash",
                          message=f"crashed while running: iree worker killed by SIGSEGV (signal 11); stderr:\n"
                                  f"segfault in /build/{i}/kernel.so on tensor<{shape}x{t}>")
               for i, t, shape in (("d", "f32", "2x3"), ("e", "i8", "7"))]
    assert grouping.failure_headline(no_site[0]) == grouping.failure_headline(no_site[1]) == \
        "segfault in kernel.so on tensor<...>"


def test_errors_and_rejections_group_by_their_first_line_types_normalized():
    rejected = [CaseResult(f"r{k}", ["stablehlo.cbrt"], [t], "rejected",
                           message=f"'stablehlo.cbrt' op operand #{k} must be tensor of f32 values, got "
                                   f"tensor<{k + 2}x{t}>\nmore detail {k}")
                for k, t in enumerate(("f16", "f64", "bf16"))]
    error = CaseResult("e", ["stablehlo.cbrt"], ["f16"], "error", message="adapter: result #1 came back as uint8")
    groups = grouping.group_cases("b", rejected + [error])
    assert [(g.status, len(g.members), g.new) for g in groups] == [("error", 1, True), ("rejected", 3, False)]
    assert groups[1].relation == "'stablehlo.cbrt' op operand #N must be tensor of T values, got tensor<...>"
    assert grouping.normalized("float32 -> complex<f64> at 0x7f00ab, 1.5e-07 ms") == "T -> T at N, ... ms"
    # a compiler's warning before its error; a printed op with another operand count and types
    iree = [CaseResult(f"i{k}", ["stablehlo.convert"], ["ui2", t], "rejected",
                       message=f"IREE compile: <stdin>:3:{k}: warning: slow path\n<stdin>:3:{k}: error: failed to "
                               f"legalize operation 'vector.store' that was explicitly marked illegal: "
                               f'"vector.store"({operands}) : (vector<{shape}x{t}>, index) -> ()')
            for k, t, shape, operands in ((1, "f6E2M3FN", "4", "%22, %14, %0"), (2, "i2", "2x3", "%1, %2"))]
    assert grouping.failure_headline(iree[0]) == grouping.failure_headline(iree[1]) == (
        "<stdin>:N:N: error: failed to legalize operation 'vector.store' that was explicitly marked illegal:")


def test_listed_deviations_form_their_own_groups_by_entry():
    """judge/deviations/xla.toml lists XLA's unsigned rng_bit_generator results (an error): two such
    cases are one listed-deviation group naming the entry; a new failure of the op is apart."""
    known = [CaseResult(f"rng-{t}", ["stablehlo.rng_bit_generator"], ["ui64", t], "error",
                        message=f"adapter: result #1 came back as u{t}")
             for t in ("i8", "i16")]
    new = CaseResult("rng-new", ["stablehlo.rng_bit_generator"], ["ui64", "f32"], "crash", message="boom")
    groups = grouping.group_cases("xla", known + [new])
    assert [(g.new, len(g.members)) for g in groups] == [(True, 1), (False, 2)]
    entry = groups[1].to_json()["deviation"]
    assert entry["entry"].startswith("xla.toml#") and len(entry["reason"]) > 30
    assert groups[1].key == f"error rng_bit_generator: listed deviation {entry['entry']}"


def test_results_json_carries_the_groups(tmp_path):
    cases = [_mismatch([9], [-3], "i8", ["ui2", "i8"], "a"), _mismatch([200], [-56], "i32", ["ui8", "i32"], "b"),
             CaseResult("ok", ["stablehlo.op"], ["f32"], "pass")]
    doc = write_results(str(tmp_path / "results.json"), "fault:x", cases)
    (group,) = json.loads((tmp_path / "results.json").read_text())["groups"]
    assert group == doc["groups"][0]
    assert {k: group[k] for k in ("key", "status", "op", "relation", "new", "members")} == {
        "key": "mismatch op: sign-extended unsigned", "status": "mismatch", "op": "op",
        "relation": "sign-extended unsigned", "new": True, "members": ["a", "b"]}
    assert group["element_types"] == ["ui2,i8", "ui8,i32"] and group["example"] == "expected 9, actual -3 (a)"


def test_results_json_records_the_entry_that_explains_each_failure(tmp_path, monkeypatch):
    """A failing case in results.json carries the deviation entry its run found (file, op, reason,
    condition); a reader uses that record and does not match the tables again, so an edited table
    cannot change what an old run said.  A failure no entry explains records {}."""
    import judge.known_deviations as known
    from judge.explain import deviation_for_case
    from judge.results import CaseResult, read_cases
    from reports.results import write_results

    f6_crash = CaseResult(id="c1", ops=["stablehlo.add"], dtypes=["f6E2M3FN"], status="crash", message="abort")
    wrong_add = CaseResult(id="c2", ops=["stablehlo.add"], dtypes=["f32"], status="mismatch", message="1 ULP")
    path = str(tmp_path / "results.json")
    write_results(path, "xla", [f6_crash, wrong_add, CaseResult(id="c3", ops=["stablehlo.add"], dtypes=["f32"],
                                                                  status="pass")])
    _, cases = read_cases(path)
    explained, unexplained, passed = cases
    assert explained.deviation["file"].endswith("xla.toml") and "f6E2M3FN" in explained.deviation["reason"]
    assert explained.deviation["condition"] == "" and explained.deviation["statuses"] == ["crash", "compiler-error"]
    assert unexplained.deviation == {} and passed.deviation is None
    monkeypatch.setattr(known, "KNOWN_DEVIATIONS", [])  # the tables change after the run...
    assert deviation_for_case("xla", explained).reason == explained.deviation["reason"]  # ...the record stands
    assert deviation_for_case("xla", unexplained) is None
