"""A program the compiler refused alone is remembered by its likeness (adapters/refusal_profile.py):
programs alike are compiled alone from then on -- in this run, in later runs on this machine,
and from the profile shipped with the suite -- and get the very verdict they get alone."""

from __future__ import annotations

import numpy as np

import adapters.refusal_profile as refusal_profile
from adapters.batch import likeness
from suites.test_batching import FakeBatchingBackend

# FakeEngine (suites/test_batching.py) refuses any program holding "REJECT" and adds 1 otherwise;
# the op and type words give the programs a likeness (adapters.batch.likeness: shapes forgotten).
REFUSED = "REJECT stablehlo.sort tensor<3xf32>"
ALIKE = "REJECT stablehlo.sort tensor<7x2xf32>"


def _run(programs):
    inputs = [[np.array([k], np.int32)] for k in range(len(programs))]
    with FakeBatchingBackend() as backend:
        results = backend.run_batch(programs, inputs, timeout=60)
        return results, dict(backend.batch_stats)


def test_a_refusal_is_remembered_by_later_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("SHLO_CONFORM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(refusal_profile, "SHIPPED_DIR", str(tmp_path / "none shipped"))
    first, stats = _run(["inc", REFUSED, "inc", "inc"])
    assert [r.status for r in first] == ["ok", "rejected", "ok", "ok"]
    assert stats["failed_batches"] >= 1  # learnt the hard way: a batch compile failed
    again, stats = _run(["inc", ALIKE, "inc", "inc"])  # a new backend: a later run
    assert [r.status for r in again] == ["ok", "rejected", "ok", "ok"]
    assert again[1].message == f"refused {ALIKE}"  # its own verdict, from the compiler
    assert stats == {"batches": 1, "batched_cases": 3, "failed_batches": 0, "single_runs": 1}, stats


def test_the_shipped_profile_plans_a_first_run(tmp_path, monkeypatch):
    monkeypatch.setenv("SHLO_CONFORM_CACHE", str(tmp_path / "cache"))
    shipped = tmp_path / "shipped"
    shipped.mkdir()
    (shipped / "fake-batching.txt").write_text("# a comment\n" + "\t".join(sorted(likeness(REFUSED))) + "\n")
    monkeypatch.setattr(refusal_profile, "SHIPPED_DIR", str(shipped))
    results, stats = _run(["inc", ALIKE, "inc", "inc"])
    assert [r.status for r in results] == ["ok", "rejected", "ok", "ok"]
    assert stats == {"batches": 1, "batched_cases": 3, "failed_batches": 0, "single_runs": 1}, stats


def test_a_profile_only_plans_it_never_decides(tmp_path, monkeypatch):
    """A likeness in the profile that the compiler now accepts (a newer compiler) only costs a
    compile alone: the program runs and passes."""
    monkeypatch.setenv("SHLO_CONFORM_CACHE", "off")
    shipped = tmp_path / "shipped"
    shipped.mkdir()
    (shipped / "fake-batching.txt").write_text("\t".join(sorted(likeness("inc stablehlo.add tensor<f32>"))) + "\n")
    monkeypatch.setattr(refusal_profile, "SHIPPED_DIR", str(shipped))
    results, stats = _run(["inc stablehlo.add tensor<4xf32>", "inc", "inc"])
    assert [r.status for r in results] == ["ok", "ok", "ok"]
    assert results[0].outputs[0].tolist() == [1]
    assert stats["single_runs"] == 1 and stats["batched_cases"] == 2
