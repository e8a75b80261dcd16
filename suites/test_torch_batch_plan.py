"""How torch-inductor's cases are planned into compiled graphs (WorkerBackend.run_batch with
TorchBackend's predicates): the common types share batches, the types inductor often refuses
(float8, ui16/32/64) share batches of their own, integer division and programs whose likeness
was refused alone are compiled alone.  No worker starts: the batches are recorded, not run, so
torch need not be installed."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import adapters.refusal_profile
from adapters.base import RunResult
from adapters.batch import likeness
from adapters.torch_backend import TorchBackend


def unary(op: str, t: str) -> str:
    return f"func.func @main(%a: {t}) -> {t} {{\n  %0 = stablehlo.{op} %a : {t}\n  return %0 : {t}\n}}\n"


def binary(op: str, t: str) -> str:
    return (f"func.func @main(%a: {t}, %b: {t}) -> {t} {{\n  %0 = stablehlo.{op} %a, %b : {t}\n"
            f"  return %0 : {t}\n}}\n")


class PlannedInductor(TorchBackend):
    """torch-inductor whose batches and single runs are recorded instead of run."""

    def __init__(self):
        super().__init__("torch-inductor")
        self.batches, self.singles, self.refused = [], [], set()

    def _run_isolating(self, indices, programs, input_sets, timeout, results):
        self.batches.append([programs[i] for i in indices])
        for i in indices:
            results[i] = RunResult("ok", [], "", 0.0)

    def run_many(self, program, input_sets, timeout=60):
        self.singles.append(program)
        return [RunResult("ok", [], "", 0.0) for _ in input_sets]

    def run(self, program, inputs, timeout=60):  # (a case of a failed batch, run alone)
        return RunResult("rejected" if program in self.refused else "ok", None, "", 0.0)


@pytest.fixture
def inductor(tmp_path, monkeypatch):
    monkeypatch.setenv("SHLO_CONFORM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(adapters.refusal_profile, "SHIPPED_DIR", str(tmp_path / "no profiles shipped"))
    backend = PlannedInductor()
    yield backend
    backend.close()


def test_often_refused_types_share_batches_of_their_own(inductor):
    common = [unary("exponential", f"tensor<{n}xf32>") for n in range(2, 5)]
    often_refused = [unary("negate", "tensor<3xf8E5M2>"), unary("negate", "tensor<3xui32>"),
                     binary("add", "tensor<2xui64>")]
    crashing = [binary("divide", "tensor<3xui32>"), binary("remainder", "tensor<3xi16>")]
    programs = [common[0], often_refused[0], crashing[0], common[1], often_refused[1], crashing[1],
                often_refused[2], common[2]]
    inductor.run_batch(programs, [[np.zeros(1)] for _ in programs])
    assert inductor.batches == [common, often_refused]
    assert inductor.singles == crashing


def test_a_likeness_refused_alone_leaves_both_kinds_of_batch(inductor):
    refused = [unary("negate", "tensor<3xf8E4M3FN>"), unary("exponential", "tensor<3xf32>")]
    inductor.refused.update(refused)
    for program in refused + [unary("sine", "tensor<2xf32>")]:  # cases of a failed batch, run alone
        inductor._isolated(program, [np.zeros(1)], 60)
    programs = [unary("negate", "tensor<2x2xf8E4M3FN>"), unary("negate", "tensor<2x2xf8E5M2>"),
                unary("negate", "tensor<3xui16>"), unary("exponential", "tensor<2x5xf32>"),
                unary("sine", "tensor<3xf32>")]
    inductor.singles.clear()
    inductor.run_batch(programs, [[np.zeros(1)] for _ in programs])
    # alike: the shape is forgotten; the f8 variant is not (f8E5M2 still shares a batch)
    assert inductor.singles == [programs[0], programs[3]]
    assert inductor.batches == [[programs[4]], [programs[1], programs[2]]]


def test_the_refusal_likeness_tells_float8_variants_apart(inductor):
    fn, fnuz = unary("log", "tensor<3xf8E4M3FN>"), unary("log", "tensor<2xf8E4M3FNUZ>")
    assert likeness(fn) == likeness(fnuz)
    assert inductor.refusal_likeness(fn) != inductor.refusal_likeness(fnuz)
    assert inductor.refusal_likeness(fn) == inductor.refusal_likeness(unary("log", "tensor<4x4xf8E4M3FN>"))


def test_eager_compiles_nothing_in_batches(tmp_path, monkeypatch):
    monkeypatch.setenv("SHLO_CONFORM_CACHE", str(tmp_path / "cache"))
    eager = TorchBackend("torch-eager")
    try:
        assert not eager.batch_size
    finally:
        eager.close()


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch is not installed (.[torch])")
def test_a_batch_of_often_refused_types_gives_each_case_its_answer_alone(tmp_path, monkeypatch):
    """log on 64 f8E4M3FN is refused (a C++ compile error in its vectorized kernel; on 3 elements
    it compiles), on f8E4M3FNUZ and ui32 negate compile: batched among their kind, each case
    gets the status and outputs it gets alone."""
    monkeypatch.setenv("SHLO_CONFORM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(adapters.refusal_profile, "SHIPPED_DIR", str(tmp_path / "no profiles shipped"))
    import ml_dtypes

    programs = [unary("log", "tensor<3xf8E4M3FNUZ>"), unary("log", "tensor<64xf8E4M3FN>"),
                unary("negate", "tensor<3xui32>")]
    input_sets = [[np.array([1, 2, 4], ml_dtypes.float8_e4m3fnuz)], [np.ones(64, ml_dtypes.float8_e4m3fn)],
                  [np.array([0, 1, 7], np.uint32)]]
    backend = TorchBackend("torch-inductor")
    try:
        assert all(backend.shares_among_its_kind(p) for p in programs)
        batched = backend.run_batch(programs, input_sets)
        alone = [backend.run(p, s) for p, s in zip(programs, input_sets)]
        assert [r.status for r in batched] == [r.status for r in alone] == ["ok", "rejected", "ok"], batched
        assert batched[1].message.split("\n")[0] == alone[1].message.split("\n")[0]
        assert batched[2].outputs[0].tolist() == [0, 2**32 - 1, 2**32 - 7]  # negate wraps (spec: 2's complement)
        assert batched[0].outputs[0].tolist() == alone[0].outputs[0].tolist()
        assert backend.refusal_likeness(programs[1]) in backend.refusals  # learned: alone from now on
    finally:
        backend.close()


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch is not installed (.[torch])")
def test_a_batch_is_traced_once_and_programs_that_fail_tracing_are_left_out(monkeypatch):
    """TorchEngine.prepare_batch traces the lowered programs as one graph; where that fails, each
    is traced alone and those that fail are rejected with what prepare() says of them (torch's
    refusal; a program that cannot be traced), the others still share the graph.  (Nothing compiles: inductor compiles on the
    first call.)"""
    from adapters.torch_backend import TorchEngine

    engine = TorchEngine("inductor")
    traced_alone = []
    monkeypatch.setattr(engine, "_traced", lambda prep, traced=engine._traced: traced_alone.append(prep) or traced(prep))
    programs = [unary("negate", "tensor<3xf32>"), unary("abs", "tensor<2xf32>"), unary("sine", "tensor<4xf32>")]
    function, preps, left_out, _ = engine.prepare_batch(programs)
    assert function is not None and sorted(preps) == [0, 1, 2] and not left_out and not traced_alone

    lowered = engine._lowered

    def failing(program):
        prep = lowered(program)
        if "abs" in program:
            prep.function = lambda *x: (_ for _ in ()).throw(RuntimeError('"abs" not implemented for \'Float\''))
        if "sine" in program:
            prep.function = lambda *x: (_ for _ in ()).throw(ValueError("a tracing bug"))
        return prep
    monkeypatch.setattr(engine, "_lowered", failing)
    function, preps, left_out, _ = engine.prepare_batch(programs)
    assert function is not None and sorted(preps) == [0] and len(traced_alone) == 3
    assert left_out[1].status == "rejected" and "not implemented for 'Float'" in left_out[1].message
    assert left_out[2].status == "rejected" and "could not be traced" in left_out[2].message
