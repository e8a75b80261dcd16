"""``shlo-conform certify`` (conformance/certify.py) on a small slice, and the known-deviation
data files (judge/deviations/*.toml) it judges with.

The full certification is a CLI run (``shlo-conform certify --backend xla``); here: two ops,
two element types, two examples - enough to check that two runs give the same report, that
the summary states what conforms / deviates / is rejected, and that the page renders.
"""

from __future__ import annotations

import json
import os

import pytest

from conformance.cli import main as cli
from conformance.corpus import default_corpus_dir
from conformance.spec_examples import spec_path
from judge import known_deviations as kd
from judge.results import CaseResult

# ------------------------------------------------------------------ the data files


def test_every_deviation_has_a_reason_and_a_file_per_backend():
    files = {d.source for d in kd.KNOWN_DEVIATIONS if d.source}
    assert {"xla.toml", "stablehlo-ref.toml"} <= files
    for d in kd.KNOWN_DEVIATIONS:
        assert len(d.reason) > 30 and d.statuses, d
    assert kd.known_deviation("xla-folded", "stablehlo.add", "f6E2M3FN", "crash") is not None
    assert kd.known_deviation("xla", "popcnt", "i8", "mismatch") is None
    assert kd.known_deviation("stablehlo-ref", "floor", "f8E3M4", "mismatch") is not None  # an ops x dtypes list


def test_bad_deviation_files_are_refused(tmp_path):
    (tmp_path / "x.toml").write_text('[[deviation]]\nbackends = ["xla"]\nop = "add"\ndtypes = "*"\n'
                                     'statuses = ["mismatch"]\n')
    with pytest.raises(kd.DeviationFileError, match="needs its reason"):
        kd.load_deviations(str(tmp_path))
    (tmp_path / "x.toml").write_text('[[deviation]]\nbackends = ["xla"]\nop = "add"\ndtypes = "*"\nstatus = "x"\n'
                                     'reason = "because"\nfixed = true\n')
    with pytest.raises(kd.DeviationFileError, match="unknown field"):
        kd.load_deviations(str(tmp_path))


def test_stale_entries():
    def case(dtypes, status):
        return CaseResult(id="bitcast-" + "-".join(dtypes), ops=["stablehlo.bitcast_convert"], dtypes=dtypes,
                          status=status)
    entry = kd.known_deviation("xla", "bitcast_convert", "i8,i1", "mismatch")  # a whole-op entry (no condition)
    assert entry is not None
    assert entry in kd.stale_deviations("xla", [case(["i8", "i1"], "pass")])          # exercised, no failure: stale
    assert entry not in kd.stale_deviations("xla", [case(["i8", "i1"], "mismatch")])  # still fails
    assert entry not in kd.stale_deviations("xla", [case(["i8", "i32"], "pass")])     # not exercised: not stale


# ----------------------------------------------------------------------- certify

ARGS = ["--backend", "xla", "--ops", "popcnt,negate", "--dtypes", "i4,i8", "--max-examples", "2", "--quiet"]


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    from adapters import get_backend
    ok, why = get_backend("xla").available()
    if not ok:
        pytest.skip(f"xla not usable: {why}")
    outs = [str(tmp_path_factory.mktemp(f"certify{k}")) for k in range(2)]
    codes = [cli(["certify", *ARGS, "--out", out]) for out in outs]
    return outs, codes


def _read(out, name):
    with open(os.path.join(out, name)) as f:
        return f.read()


def _comparable(results_json: str) -> list:
    cases = json.loads(results_json)["cases"]
    return [dict(c, seconds=0, reproducer=os.path.basename(c.get("reproducer", ""))) for c in cases]


def test_certify_is_reproducible(two_runs):
    (a, b), codes = two_runs
    assert codes[0] == codes[1]
    for name in ("summary.json", "summary.txt", "report.html", "differential.json"):
        text_a, text_b = _read(a, name), _read(b, name)
        if name == "differential.json":  # identical but for the seconds taken and the folder of the reproducers
            text_a, text_b = _comparable(text_a), _comparable(text_b)
        assert text_a == text_b, name


def test_certify_summary_states_the_verdict(two_runs):
    (out, _), codes = two_runs
    summary = json.loads(_read(out, "summary.json"))
    diff = summary["differential"]
    assert summary["backend"] == "xla" and summary["max_examples"] == 2
    cells = set(diff["conforms"]) | set(diff["deviates_known"]) | set(diff["deviates"]) | set(diff["rejected"])
    assert cells == {"negate:i4", "negate:i8", "popcnt:i4", "popcnt:i8"}
    assert "negate:i8" in diff["conforms"] and "popcnt:i8" in diff["conforms"]
    assert not diff["deviates"], diff["deviates"]  # anything XLA gets wrong here is a known deviation
    text = _read(out, "summary.txt")
    assert "VERDICT:" in text and f"CONFORMS on {len(diff['conforms'])}" in text
    assert codes[0] == (1 if summary["verdict"] == "deviates" else 0)


@pytest.mark.skipif(spec_path() is None, reason="the StableHLO spec (../shared/spec/stablehlo-spec.txt "
                    "or $SHLO_SPEC) is not available: its examples cannot run")
def test_certify_runs_the_spec_examples_of_the_selected_ops(two_runs):
    (out, _), _ = two_runs
    assert json.loads(_read(out, "summary.json"))["spec-example"]["cases"].get("pass", 0) >= 2


@pytest.mark.skipif(default_corpus_dir() is None, reason="the interpret corpus (../shared/corpora/"
                    "stablehlo-interpret or $SHLO_CORPUS) is not available")
def test_certify_runs_the_interpreter_corpus_of_the_selected_ops(two_runs):
    (out, _), _ = two_runs
    assert sum(json.loads(_read(out, "summary.json"))["corpus"]["cases"].values()) >= 2


def test_certify_report_opens_in_chromium(two_runs, tmp_path):
    from suites.test_report_html import CHROMIUM, open_page
    if CHROMIUM is None:
        pytest.skip("chromium is not installed")
    (out, _), _ = two_runs
    summary = json.loads(_read(out, "summary.json"))
    state, dom = open_page(f"file://{os.path.join(out, 'report.html')}", tmp_path)
    assert state["broken-links"] == "0"
    cells = sum(len(part["conforms"]) + len(part["deviates_known"]) + len(part["deviates"]) + len(part["rejected"])
                + len(part["unsupported"]) for part in (summary[k] for k in ("differential", "spec-example", "corpus")))
    assert int(state["visible-cells"]) == cells
    total = sum(sum(summary[k]["cases"].values()) for k in ("differential", "spec-example", "corpus"))
    assert f'id="count-xla-total"><b>{total}</b>' in dom
