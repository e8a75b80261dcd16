"""The fuzz campaign's stages, each alone: drawing (fuzz_drawing), running
(fuzz_running), shrinking (fuzz_shrinking) and storing (fuzz_storing); checking and crash sites
have their own tests (test_fuzz.py, test_fuzz_crash_sites.py)."""

from __future__ import annotations

import json
import os
import threading
import time

import numpy as np
import pytest

import oracle
from adapters.base import RunResult
from adapters.oracle_backend import OracleBackend
from conformance.fuzz import BATCH_PROGRAMS, Campaign
from conformance.fuzz_checking import Verdict
from conformance.fuzz_drawing import aimed_ops, rounds_done, touches
from conformance.fuzz_running import CONFIRM_RUNS, again_on_fresh_workers, compile_and_execute
from conformance.fuzz_shrinking import MIN_SHRINK_SECONDS, shrink_allowance, shrink_program
from conformance.fuzz_storing import FindingsFolder

NEGATE = """func.func @main(%a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.abs %a : tensor<3xf32>
  %1 = stablehlo.negate %0 : tensor<3xf32>
  %2 = stablehlo.add %1, %a : tensor<3xf32>
  return %2 : tensor<3xf32>
}"""
X = [np.array([1.0, -2.0, 3.0], np.float32)]


# ------------------------------------------------------------------------- drawing

def test_aimed_ops_keep_the_wanted_types_not_the_refused_ones():
    ops = [oracle.lookup("stablehlo.add"), oracle.lookup("stablehlo.negate")]
    aimed = aimed_ops(ops, dtypes=["f32", "i8", "f16"], refused={"stablehlo.add": {"f16"}})
    assert [(i.name, set(i.element_types)) for i in aimed] == [
        ("stablehlo.add", {"f32", "i8"}), ("stablehlo.negate", {"f32", "i8", "f16"})]
    module = oracle.parse_module(NEGATE)
    assert touches(module, {"stablehlo.negate": {"f32"}}) and not touches(module, {"stablehlo.negate": {"f16"}})


def test_a_resumed_campaign_goes_on_from_the_rounds_done(tmp_path):
    assert rounds_done(str(tmp_path), 3, (0, 1)) == 0  # no summary.json
    (tmp_path / "summary.json").write_text(json.dumps({"seed": 3, "shard": [0, 1], "rounds": 7}))
    assert rounds_done(str(tmp_path), 3, (0, 1)) == 7
    assert rounds_done(str(tmp_path), 4, (0, 1)) == 0 and rounds_done(str(tmp_path), 3, (1, 2)) == 0


# ------------------------------------------------------------------------- running

def test_compile_is_the_first_input_sets_time_beyond_the_others():
    runs = [RunResult("ok", [], "", 2.5), RunResult("ok", [], "", 0.5), RunResult("ok", [], "", 0.5)]
    assert compile_and_execute(runs, 3.6) == (2.0, pytest.approx(1.6))
    assert compile_and_execute([RunResult("ok", [], "", 1.0)], 1.2) == (1.0, pytest.approx(0.2))


class NegateWrongInTheFirstProcess(OracleBackend):
    """negate is off by one until the worker restarts: a failure that does not recur."""
    name = "negate-wrong-first"
    restartable = True

    def __init__(self):
        super().__init__()
        self.restarts = 0

    def restart(self):
        self.restarts += 1

    def run_many(self, program, input_sets, timeout=60):
        runs = super().run_many(program, input_sets, timeout)
        if self.restarts == 0 and "stablehlo.negate" in program:
            return [RunResult("ok", [o + 1 for o in r.outputs], "", r.seconds) for r in runs]
        return runs


def test_a_failure_is_re_run_on_fresh_workers():
    module = oracle.parse_module("""func.func @main(%a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = stablehlo.negate %a : tensor<3xf32>
  return %0 : tensor<3xf32>
}""")
    backend = NegateWrongInTheFirstProcess()
    assert again_on_fresh_workers(backend, module, X, "negate-wrong-first|negate|f32|mismatch",
                                  timeout=10) == ["pass"] and backend.restarts == 1

    class AlwaysWrong(NegateWrongInTheFirstProcess):
        def restart(self):
            pass
    again = again_on_fresh_workers(AlwaysWrong(), module, X, "negate-wrong-first|negate|f32|mismatch", timeout=10)
    assert again == ["negate-wrong-first|negate|f32|mismatch"] * CONFIRM_RUNS


# ------------------------------------------------------------------------- shrinking

def test_shrinking_keeps_its_share_of_the_budget():
    now = time.perf_counter()
    assert shrink_allowance(0.2, now, now + 100, spent=5) == pytest.approx(15, abs=0.1)
    assert shrink_allowance(0.2, now, now + 100, spent=25) == 0
    assert shrink_allowance(0.2, now - 1000, now + 1.0, spent=0) == pytest.approx(0.5, abs=0.1)  # never past the end
    assert shrink_allowance(0.2, now, None, spent=0) == pytest.approx(MIN_SHRINK_SECONDS, abs=0.1)


def test_shrink_program_removes_what_the_failure_does_not_need():
    module = oracle.parse_module(NEGATE)

    def still_fails(m, inputs):  # "the failure": a negate is left
        return any(op.name == "stablehlo.negate" for op in m.main.ops)
    shrunk, inputs = shrink_program(module, X, still_fails)
    assert [op.name for op in shrunk.main.ops] == ["stablehlo.negate", "func.return"]
    assert len(inputs) == 1  # (the abs bypassed, or replaced by its value)


# ------------------------------------------------------------------------- storing

def test_findings_are_written_listed_and_read_back(tmp_path):
    module = oracle.parse_module(NEGATE)
    folder = FindingsFolder(str(tmp_path))
    backend = OracleBackend()
    verdict = Verdict("crash", "worker died", "stablehlo.negate", "f32", inputs=X)
    finding = folder.write(backend, "oracle|at x.cc:1|*|crash", module, verdict, drawn="d", shrunk=False)
    assert os.path.isfile(os.path.join(finding.reproducer, "program.mlir")) and finding.ops == 3
    assert folder.seen_with("oracle|at x.cc:1|*|crash", Verdict("crash", "", "stablehlo.add", "bf16"))
    assert not folder.seen_with("oracle|at x.cc:1|*|crash", Verdict("crash", "", "stablehlo.add", "bf16"))
    again = FindingsFolder(str(tmp_path)).findings["oracle|at x.cc:1|*|crash"]
    assert again.seen_with == [["negate", "f32"], ["add", "bf16"]] and not again.new and again.drawn == "d"
    folder.remove(finding)
    assert FindingsFolder(str(tmp_path)).findings == {}
    flaky = folder.write_flaky(backend, "oracle|negate|f32|mismatch", module, verdict)
    assert os.path.isfile(os.path.join(flaky, "inputs.npz")) and "flaky" in flaky


# ------------------------------------------------------------------------- pipelining

class OneCallAtATime(OracleBackend):
    """The oracle as a backend that notes which thread called it and whether a call came while
    another was in flight (a real backend's worker serves one request at a time); negate is off
    by one, so some programs fail and are replayed, confirmed and shrunk."""
    name = "one-call-at-a-time"

    def __init__(self):
        super().__init__()
        self.busy_in, self.overlapped, self.threads = None, 0, []

    def _call(self, method, *args, **kwargs):
        me = threading.current_thread()
        if self.busy_in is me:  # (run_many runs each set through run)
            return method(*args, **kwargs)
        self.overlapped += self.busy_in is not None
        self.busy_in = me
        self.threads.append(me is threading.main_thread())
        try:
            time.sleep(0.002)  # (long enough for an overlapping call to show)
            return method(*args, **kwargs)
        finally:
            self.busy_in = None

    def run(self, program, inputs, timeout=60):
        run = self._call(super().run, program, inputs, timeout)
        return _negate_off(program, run)

    def run_many(self, program, input_sets, timeout=60):
        return [_negate_off(program, r) for r in self._call(super().run_many, program, input_sets, timeout)]


def _negate_off(program, run):
    if "stablehlo.negate" not in program or run.status != "ok":
        return run
    return RunResult("ok", [o + 1 if o.dtype.kind == "f" else o for o in run.outputs], "", run.seconds)


def test_programs_run_beside_the_drawing_one_backend_call_at_a_time(tmp_path, monkeypatch):
    monkeypatch.setenv("SHLO_CONFORM_CACHE", str(tmp_path / "cache"))  # (its own findings store)
    ops = [oracle.lookup(f"stablehlo.{name}") for name in ("negate", "add", "abs", "multiply")]
    backend = OneCallAtATime()
    campaign = Campaign(backend, str(tmp_path), seed=3, ops=ops, max_ops=3, progress=False)
    summary = campaign.run(max_programs=15)
    assert summary["programs"] == 15  # the program in flight at the end is judged, and no more are drawn
    assert backend.overlapped == 0  # never two calls at once: the next program starts once the last is judged
    # first runs and the replays they call for in the thread, confirming and shrinking in the campaign's
    assert not all(backend.threads) and any(backend.threads)
    assert any("negate" in f["signature"] for f in summary["findings"])  # judged as before: the fault is found
    assert summary["backend_in_background_seconds"] > 0 and "backend_wait" in summary["time_split"]


class CompilesInBatches(OneCallAtATime):
    """OneCallAtATime that, like xla's workers, takes many programs in one call (``run_batch``)."""
    name = "compiles-in-batches"
    batch_size = 32

    def __init__(self):
        super().__init__()
        self.batches = []  # the distinct programs of each run_batch call
        self.texts = []  # the programs of each run_batch call

    def run_batch(self, programs, input_sets, timeout=60):
        self.batches.append(len(set(programs)))
        self.texts.append(set(programs))
        return self._call(lambda: [_negate_off(p, OracleBackend.run(self, p, s, timeout))
                                   for p, s in zip(programs, input_sets)])


def test_programs_go_to_a_batching_backend_together_and_keep_their_verdicts(tmp_path, monkeypatch):
    monkeypatch.setenv("SHLO_CONFORM_CACHE", str(tmp_path / "cache"))
    ops = [oracle.lookup(f"stablehlo.{name}") for name in ("negate", "add", "abs", "multiply")]
    batching, one_at_a_time = CompilesInBatches(), OneCallAtATime()
    campaigns = [Campaign(backend, str(tmp_path / backend.name), seed=3, ops=ops, max_ops=3, progress=False,
                          include_known=True) for backend in (batching, one_at_a_time)]
    campaigns[0].recorded = []  # (the programs it runs first)
    summaries = [c.run(max_programs=2 * BATCH_PROGRAMS + 3) for c in campaigns]
    assert [s["programs"] for s in summaries] == [2 * BATCH_PROGRAMS + 3] * 2
    # (programs the oracle cannot evaluate are not sent: a batch holds up to BATCH_PROGRAMS)
    assert batching.batches[:2] and all(1 < n <= BATCH_PROGRAMS for n in batching.batches[:2])
    assert batching.overlapped == 0
    found = [sorted(f["signature"].split("|", 1)[1] for f in s["findings"]) for s in summaries]
    assert found[0] == found[1] and any("negate" in f for f in found[0])  # the same verdicts
    # the replays a batch's judging asks for first ran together, as batches of their own
    first_runs = {text for text, _ in campaigns[0].recorded}
    assert any(len(texts) > 1 and not texts & first_runs for texts in batching.texts)


class OverlappingBatches(CompilesInBatches):
    """CompilesInBatches that takes calls from several threads at once (``set_jobs``, as a
    worker backend does): the campaign keeps batches in flight while it draws."""
    name = "overlapping-batches"
    takes_concurrent_callers = True

    def set_jobs(self, jobs: int) -> None:
        self.jobs = jobs


@pytest.mark.parametrize("in_flight", [1, 2, 3])
def test_batches_in_flight_keep_every_verdict_and_the_order_judged(tmp_path, monkeypatch, in_flight):
    import conformance.fuzz

    monkeypatch.setenv("SHLO_CONFORM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(conformance.fuzz, "BATCHES_IN_FLIGHT", in_flight)
    ops = [oracle.lookup(f"stablehlo.{name}") for name in ("negate", "add", "abs", "multiply")]
    backend = OverlappingBatches()
    campaign = Campaign(backend, str(tmp_path / "campaign"), seed=3, ops=ops, max_ops=3, progress=False,
                        include_known=True)
    judged, judge_batch = [], campaign._judge_batch
    monkeypatch.setattr(campaign, "_judge_batch", lambda pending: (judged.append(pending), judge_batch(pending)))
    campaign.recorded = []  # the programs in the order launched
    summary = campaign.run(max_programs=3 * BATCH_PROGRAMS + 3)
    assert campaign._overlapping and summary["programs"] == 3 * BATCH_PROGRAMS + 3
    assert len(judged) == len(set(map(id, judged))) >= 4  # every batch judged once, none lost
    assert [item.text for pending in judged for item in pending.ready if item.runs_anywhere] == [
        text for text, _ in campaign.recorded]  # in the order launched
    found = sorted(f["signature"].split("|", 1)[1] for f in summary["findings"])
    alone = Campaign(CompilesInBatches(), str(tmp_path / "alone"), seed=3, ops=ops, max_ops=3, progress=False,
                     include_known=True).run(max_programs=3 * BATCH_PROGRAMS + 3)
    assert found == sorted(f["signature"].split("|", 1)[1] for f in alone["findings"]) and found


class ReplayBatchesFail(CompilesInBatches):
    """CompilesInBatches whose batch call raises when it holds no program drawn: the replays
    run beforehand (first_replays_together) are lost, and judging runs each replay alone."""
    name = "replay-batches-fail"

    def __init__(self, drawn: set):
        super().__init__()
        self.drawn, self.failed = drawn, 0

    def run_batch(self, programs, input_sets, timeout=60):
        if not set(programs) & self.drawn:
            self.failed += 1
            raise RuntimeError("the backend's batch call failed")
        return super().run_batch(programs, input_sets, timeout)


def test_replays_run_beforehand_are_only_a_shortcut(tmp_path, monkeypatch):
    monkeypatch.setenv("SHLO_CONFORM_CACHE", str(tmp_path / "cache"))
    ops = [oracle.lookup(f"stablehlo.{name}") for name in ("negate", "add", "abs", "multiply")]
    first = Campaign(CompilesInBatches(), str(tmp_path / "a"), seed=3, ops=ops, max_ops=3, progress=False,
                     include_known=True)
    first.recorded = []
    expected = first.run(max_programs=BATCH_PROGRAMS + 3)
    backend = ReplayBatchesFail({text for text, _ in first.recorded})
    got = Campaign(backend, str(tmp_path / "b"), seed=3, ops=ops, max_ops=3, progress=False,
                   include_known=True).run(max_programs=BATCH_PROGRAMS + 3)
    assert backend.failed > 0
    found = [sorted(f["signature"].split("|", 1)[1] for f in s["findings"]) for s in (got, expected)]
    assert found[0] == found[1] and found[0]  # the same findings, by their own replays


def test_warnings_never_reach_the_terminal(tmp_path, capsys, monkeypatch):
    import conformance.fuzz_running as running

    def noisy(module, inputs):  # what numpy says of a NaN cast to an integer
        np.array([np.nan]).astype(np.int32)
        return evaluate(module, inputs)
    evaluate = running.oracle_outputs
    monkeypatch.setattr(running, "oracle_outputs", noisy)
    ops = [oracle.lookup("stablehlo.add")]
    summary = Campaign(OracleBackend(), str(tmp_path), seed=1, ops=ops, max_ops=2, progress=False).run(max_programs=3)
    captured = capsys.readouterr()
    assert "RuntimeWarning" not in captured.err + captured.out
    assert any("invalid value encountered in cast" in w for w in summary["warnings"])


def test_a_campaign_whose_rounds_keep_failing_stops_with_one_error_line(tmp_path, monkeypatch, capsys):
    """A generator bug ends its round, not the campaign -- but a campaign without a time budget
    whose every round fails would go on for ever: after FAILED_ROUNDS_IN_A_ROW it stops, says
    why on one line and exits 2 (summary.json keeps the reason and each round's error)."""
    from hypothesis import strategies as st

    import conformance.fuzz as fuzz
    from conformance.cli import main as cli
    from conformance.fuzz_drawing import FAILED_ROUNDS_IN_A_ROW

    monkeypatch.setenv("SHLO_CONFORM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(fuzz, "program_strategy", lambda **_: st.integers().map(lambda _: 1 / 0))
    out = tmp_path / "fz"
    assert cli(["fuzz", "--backend", "oracle", "--programs", "5", "--out", str(out), "--quiet"]) == 2
    assert capsys.readouterr().err.count(f"ERROR: the campaign stopped: {FAILED_ROUNDS_IN_A_ROW} rounds in a row") == 1
    summary = json.loads((out / "summary.json").read_text())
    assert len(summary["generator_errors"]) == FAILED_ROUNDS_IN_A_ROW and summary["programs"] == 0
    assert "ZeroDivisionError" in summary["stopped"] and (out / "generator-errors.txt").is_file()
