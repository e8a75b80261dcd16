"""The HTML report (reports/html.py): its content from hand-made results, then the page in a
real headless Chromium (matrix present, counts right, filters and drill-down links work).

The browser tests need ``chromium`` (Debian package; .ci/run installs it when it can) and
are skipped cleanly without it.  The page's JS writes its state into ``<body data-*>``, which
``chromium --dump-dom`` returns after the scripts ran.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest

from judge.results import KNOWN, CaseResult, Run
from reports.html import render_report, write_report
from reports.results import write_results


def _case(id, op, dtype, status, **kw):
    return CaseResult(id=id, ops=[f"stablehlo.{op}"], dtypes=[dtype], status=status, kind="differential", **kw)


MISMATCH = _case("add-f32-1", "add", "f32", "mismatch", max_ulp=3.0,
                 message="output #0: 1 of 4 compared elements differ", ulp_histogram={"0": 3, "3-4": 1},
                 mismatches=[{"output": 0, "index": [2], "expected": "1.0", "actual": "1.0000004",
                              "expected_bits": "0x3f800000", "actual_bits": "0x3f800003", "ulp": 3.0}],
                 inputs=[{"dtype": "f32", "shape": [4], "values": [["0.5", "0x3f000000"]], "more": 3}],
                 reproducer="reproducers/xla-add-f32-1")


def xla_cases():
    """Hand-made: 4 cells.  add f32: 2 pass + 1 mismatch (unexplained) -> mismatch;
    add i8: 2 pass -> pass; negate f6E2M3FN: 1 crash explained by the known deviation of every f6 program
    -> known-deviation; sqrt f64: 1 rejected."""
    return [_case("add-f32-0", "add", "f32", "pass"), _case("add-f32-2", "add", "f32", "pass"), MISMATCH,
            _case("add-i8-0", "add", "i8", "pass"), _case("add-i8-1", "add", "i8", "pass"),
            _case("negate-f6E2M3FN-0", "negate", "f6E2M3FN", "crash", message="Unhandled primitive type"),
            _case("sqrt-f64-0", "sqrt", "f64", "rejected", message="refused")]


def ref_cases():
    """2 cells: add f32: 1 pass; convolution i32: 1 crash (a known stablehlo-ref deviation: LLVM ERROR)."""
    return [_case("add-f32-0", "add", "f32", "pass"),
            _case("convolution-i32-0", "convolution", "i32", "crash", message="LLVM ERROR: Incompatible index")]


def _runs():
    return [Run("xla", "differential", {"seed": 0}, xla_cases()), Run("stablehlo-ref", "differential", {}, ref_cases())]


# ------------------------------------------------------------------ without a browser

def test_cells_take_the_worst_verdict_and_known_deviations_are_visible():
    run = Run("xla", "differential", {}, xla_cases())
    verdicts = {k: c.verdict for k, c in run.cells.items()}
    assert verdicts == {("add", "f32"): "mismatch", ("add", "i8"): "pass", ("negate", "f6E2M3FN"): KNOWN,
                        ("sqrt", "f64"): "rejected"}
    assert run.verdict_counts == {"pass": 4, "mismatch": 1, KNOWN: 1, "rejected": 1}


def test_page_is_self_contained_and_links_resolve():
    page = render_report(_runs())
    assert "http://" not in page and "https://" not in page and "<link" not in page and "src=" not in page
    targets = set(re.findall(r'id="([^"]+)"', page))
    links = re.findall(r'href="#([^"]+)"', page)
    assert len(links) >= 6 and all(t in targets for t in links)
    # counts: per backend and verdict, from the hand-made cases
    assert re.search(r'id="count-xla-pass" data-count="4"', page)
    assert re.search(r'id="count-stablehlo-ref-known-deviation" data-count="1"', page)
    assert 'id="count-xla-total"><b>7</b>' in page
    # the drill-down of the mismatch shows values with hex bits and the reason of the known deviation
    assert "0x3f800003" in page and "1.0000004" in page
    assert "Unhandled primitive type F6E2M3FN" in page


# ------------------------------------------------------------------------ the browser

CHROMIUM = next((shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome") if shutil.which(n)), None)
needs_browser = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")


def chromium(args: list[str], tmp_path) -> str:
    """Run headless Chromium; returns stdout (the DOM for --dump-dom)."""
    profile = tmp_path / f"profile-{len(os.listdir(tmp_path))}"
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
           f"--user-data-dir={profile}", *args]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def body_state(dom: str) -> dict:
    body = re.search(r"<body([^>]*)>", dom).group(1)
    return dict(re.findall(r'data-([a-z-]+)="([^"]*)"', body))


def open_page(url: str, tmp_path) -> tuple[dict, str]:
    dom = chromium(["--dump-dom", url], tmp_path)
    state = body_state(dom)
    assert state["ready"] == "1", "the page's script did not run to the end"
    return state, dom


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("report")
    paths = []
    for name, cases in (("xla", xla_cases()), ("stablehlo-ref", ref_cases())):
        path = str(folder / name / "results.json")
        write_results(path, name, cases, kind="differential")
        paths.append(path)
    return write_report(paths, str(folder / "report.html"))


@needs_browser
def test_browser_renders_matrix_and_counts(report, tmp_path):
    state, dom = open_page(f"file://{report}", tmp_path)
    assert state["broken-links"] == "0"
    assert state["visible-backends"] == "2"
    assert state["visible-cells"] == "6"  # 4 xla cells + 2 stablehlo-ref cells
    assert len(re.findall(r'<table class="matrix" id="matrix-\d"', dom)) == 2
    assert re.search(r'id="count-xla-mismatch" data-count="1"', dom)
    assert ">2/3</a>" in dom  # add f32 on xla: 2 of 3 cases pass


@needs_browser
@pytest.mark.parametrize("query, cells, rows", [
    ("status=mismatch", 1, 1),               # add f32 on xla only
    (f"status={KNOWN}", 2, 2),               # negate f6E2M3FN on xla, convolution i32 on stablehlo-ref
    ("status=failing", 1, 1),                # unexplained findings only
    ("status=pass", 2, 2),                   # add i8 on xla, add f32 on stablehlo-ref
    ("backend=stablehlo-ref", 2, 2),
    ("backend=xla&status=rejected", 1, 1),
    ("family=no-such-family", 0, 0),
])
def test_browser_filters(report, tmp_path, query, cells, rows):
    state, _ = open_page(f"file://{report}?{query}", tmp_path)
    assert (int(state["visible-cells"]), int(state["visible-rows"])) == (cells, rows)


@needs_browser
def test_browser_drill_down_opens_the_cell_with_values_and_reproducer(report, tmp_path):
    html_text = open(report).read()
    cell = re.search(r'title="add f32: [^"]*mismatch 1[^"]*"><a href="#(c-\d+)"', html_text).group(1)
    state, dom = open_page(f"file://{report}#{cell}", tmp_path)
    assert state["opened"] == cell
    section = re.search(rf'<section class="drill open" id="{cell}".*?</section>', dom, re.S).group(0)
    assert "0x3f800003" in section and "add-f32-1" in section and "3-4 ULP" in section
    assert "shlo-conform repro reproducers/xla-add-f32-1 --backend xla" in section


@needs_browser
def test_browser_screenshot(report, tmp_path):
    png = tmp_path / "report.png"
    chromium(["--window-size=1200,900", f"--screenshot={png}", f"file://{report}"], tmp_path)
    assert png.exists() and png.stat().st_size > 10_000


# ------------------------------------------------------------- for a vendor

def test_quantized_columns_are_grouped_by_storage_type():
    """Random scales and zero points do not each get a column: one per storage type, after the others."""
    cases = [_case("q1", "add", "!quant.uniform<i8:f32, 0.37:-3>", "pass"),
             _case("q2", "add", "!quant.uniform<i8<-127:127>:f32, 12.5>", "pass"),
             _case("q3", "add", "!quant.uniform<i16:f32:0, {0.1:-30,0.5:-20}>", "pass"),
             _case("f", "add", "f32", "pass")]
    run = Run("xla", "differential", {}, cases)
    assert set(run.cells) == {("add", "q.i8"), ("add", "q.i16"), ("add", "f32")}
    assert len(run.cells[("add", "q.i8")].cases) == 2
    page = render_report([run])
    heads = re.findall(r"<th class=dt>([^<]*)</th>", page)
    assert heads == ["f32", "q.i8", "q.i16"]
    assert "!quant.uniform&lt;i8:f32, 0.37:-3&gt;" in page  # the drill-down keeps each case's full type


def test_the_page_explains_the_statuses_and_records_the_environment():
    env = {"backend": "xla", "backend_version": "jax 9.9", "packages": {"jaxlib": "9.9"}, "suite_commit": "abc123",
           "machine": {"cpu": "Some CPU", "os": "Linux", "cores": 2, "python": "3.11"}}
    page = render_report([Run("xla", "differential", {"environment": env}, xla_cases())])
    legend = re.search(r"<dl id=legend>(.*?)</dl>", page).group(1)
    for status in ("pass", "mismatch", "rejected", "unsupported", KNOWN):
        assert f'<span class="chip s-{status}">{status}</span></dt><dd>' in legend
    assert "judge/deviations/&lt;backend&gt;.toml" in legend
    table = re.search(r"<table id=environment>(.*?)</table>", page).group(1)
    for text in ("jax 9.9", "jaxlib 9.9", "abc123", "Some CPU", "2 cores"):
        assert text in table
