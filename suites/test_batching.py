"""Batched runs (adapters/batch.py, WorkerBackend.run_batch, conformance/batching.py) give
every case exactly what it gets alone; a batch that crashes or is rejected is isolated so
the crash or rejection lands on the one case that causes it.  Fast: a few seconds."""

from __future__ import annotations

import os

import numpy as np
import pytest

from judge.explain import deviation_for_case

from adapters import get_backend
from adapters.base import Rejected
from adapters.worker_client import WorkerBackend


# ------------------------------------------------------------------ a fake engine with batches
# Programs are plain words: "inc" adds 1 to its input, "CRASH" aborts the worker process
# (as XLA does on some programs), "REJECT" is refused at compile time; a batch with any of
# them crashes or is refused as a whole, as one compiled module would be.

class FakeEngine:
    per_case_compile = False

    def info(self) -> str:
        return "fake engine with batches"

    def prepare(self, program: str):
        if "CRASH" in program:
            os.abort()
        if "REJECT" in program:
            raise Rejected(f"refused {program}")
        return program

    def execute(self, program, inputs):
        return [inputs[0] + 1]

    def prepare_batch(self, programs):
        return [self.prepare(p) for p in programs]

    def execute_batch(self, batch, input_sets):
        return [("ok", "", self.execute(p, inputs)) for p, inputs in zip(batch, input_sets)]


class FakeBatchingBackend(WorkerBackend):
    name = "fake-batching"
    worker_name = "suites.test_batching:FakeEngine"
    batch_size = 4

    def batchable(self, program: str) -> bool:
        return True


def test_a_crashing_or_rejected_case_is_isolated_and_attributed():
    programs = ["inc", "inc", "CRASH", "inc", "inc", "REJECT", "inc", "inc", "inc", "inc", "inc"]
    inputs = [[np.array([10 * k], dtype=np.int32)] for k in range(len(programs))]
    with FakeBatchingBackend() as backend:
        results = backend.run_batch(programs, inputs, timeout=60)
        stats = dict(backend.batch_stats)
    assert [r.status for r in results] == ["ok", "ok", "crash", "ok", "ok", "rejected"] + ["ok"] * 5
    assert "SIGABRT" in results[2].message
    assert results[5].message == "refused REJECT"
    for k, r in enumerate(results):  # each case's outputs are its own
        if r.ok:
            assert r.outputs[0].tolist() == [10 * k + 1]
    assert stats["failed_batches"] >= 2  # the batch with the crash and the one with the rejection
    # crash: its batch runs case by case; rejection: halves ([inc, REJECT] -> alone, [inc, inc]
    # shared); the last batch (three "inc") shares one module
    assert stats["batched_cases"] == 5


def test_a_backend_without_batches_runs_case_by_case():
    from adapters.oracle_backend import OracleBackend

    text = "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = stablehlo.negate %a : tensor<2xf32>\n" \
           "  return %0 : tensor<2xf32>\n}\n"
    runs = OracleBackend().run_batch([text, text], [[np.array([1, 2], np.float32)], [np.array([3, 4], np.float32)]])
    assert [r.outputs[0].tolist() for r in runs] == [[-1, -2], [-3, -4]]


# ------------------------------------------------------------------ XLA: batched == alone

# A scatter with no indices that XLA compiles alone but whose HLO verifier refuses it once
# inlined from a call (the compiler's message names its line: the case is run alone).
_SCATTER = """func.func @main(%arg0: tensor<i16>, %arg1: tensor<0x3x2xi64>, %arg2: tensor<3x2xi16>) -> tensor<i16> {
  %0 = "stablehlo.scatter"(%arg0, %arg1, %arg2) ({
  ^bb0(%arg3: tensor<i16>, %arg4: tensor<i16>):
    %1 = "stablehlo.multiply"(%arg3, %arg4) : (tensor<i16>, tensor<i16>) -> tensor<i16>
    "stablehlo.return"(%1) : (tensor<i16>) -> ()
  }) {indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<index_vector_dim = 0>,
      unique_indices = false} : (tensor<i16>, tensor<0x3x2xi64>, tensor<3x2xi16>) -> tensor<i16>
  return %0 : tensor<i16>
}
"""


_NEGATE = """func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.negate %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""


def _sample_cases():
    import oracle
    from conformance.run import drawn_cases

    cases = []
    for op, et in [("add", "f32"), ("divide", "i8"), ("exponential", "bf16"), ("dot_general", "f16"),
                   ("convert", "f8E4M3FN"), ("select", "ui4"), ("reduce", "i32"), ("add", "q.i8"),
                   ("sort", "q.i4"), ("sine", "f6E2M3FN"), ("all_gather", "f32")]:
        drawn, error = drawn_cases(oracle.lookup(f"stablehlo.{op}"), et, 2, 0, {})
        assert error is None, error.message
        cases += drawn
    return cases


@pytest.fixture(scope="module")
def xla():
    backend = get_backend("xla")
    ok, why = backend.available()
    if not ok:
        pytest.skip(f"xla unavailable: {why}")
    yield backend
    backend.close()


def test_batched_and_alone_give_the_same_verdicts(xla, tmp_path):
    from conformance.run import check_case

    cases = [c for c in _sample_cases() if c.grid == (1, 1)]
    programs, input_sets = [c.program for c in cases], [c.inputs for c in cases]
    programs.append(_SCATTER)
    input_sets.append([np.array(3, np.int16), np.zeros((0, 3, 2), np.int64), np.ones((3, 2), np.int16)])
    for k in range(3):  # one program, three input sets: compiled once, run three times
        programs.append(_NEGATE)
        input_sets.append([np.array([k, -2 * k], np.float32)])
    batched = xla.run_batch(programs, input_sets)
    assert xla.batch_stats["batched_cases"] >= len(cases) // 2  # most of them did share a module
    alone = [xla.run(p, s) for p, s in zip(programs, input_sets)]
    for program, b, a in zip(programs, batched, alone):
        assert b.status == a.status, program
        if a.status == "rejected" and "f6E" in program:
            continue  # XLA names a different fusion in its f6 message from one compile to the next
        assert b.message == a.message, program
        if a.ok:
            assert [x.dtype for x in b.outputs] == [x.dtype for x in a.outputs]
            assert [x.tobytes() for x in b.outputs] == [x.tobytes() for x in a.outputs]
    assert [b.outputs[0].tolist() for b in batched[-3:]] == [[0, 0], [-1, 2], [-2, 4]]
    for case, b in zip(cases, batched):  # and the judge sees the same
        assert check_case(case, xla, run=b).status == check_case(case, xla).status, case.id


#: A JAX export's shape: a named module with one-process attributes, and a custom call without
#: side effects (as JAX's LAPACK calls are).
_EXPORTED = """module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%a: tensor<3xf32>) -> tensor<3xf32> {
    %0 = stablehlo.custom_call @Sharding(%a) {mhlo.sharding = "{replicated}"} : (tensor<3xf32>) -> tensor<3xf32>
    %1 = stablehlo.exponential %0 : tensor<3xf32>
    return %1 : tensor<3xf32>
  }
}
"""


def test_exported_programs_and_pure_custom_calls_share_a_module(xla):
    from adapters.batch import may_share_a_module

    programs = [_EXPORTED, _EXPORTED.replace("exponential", "negate"), _NEGATE.replace("2x", "3x")]
    assert all(may_share_a_module(p) for p in programs)
    assert not may_share_a_module(_EXPORTED.replace("{mhlo.sharding", "{has_side_effect = true, mhlo.sharding"))
    assert not may_share_a_module(_EXPORTED.replace("num_replicas = 1", "num_replicas = 2"))
    inputs = [[np.array([0.0, 1.0, -2.0], np.float32)] for _ in programs]
    before = dict(xla.batch_stats)
    batched = xla.run_batch(programs, inputs)
    assert xla.batch_stats["batched_cases"] - before.get("batched_cases", 0) == 3  # one module, none alone
    assert xla.batch_stats["single_runs"] == before.get("single_runs", 0)
    for program, inputs_, b in zip(programs, inputs, batched):
        a = xla.run(program, inputs_)
        assert b.ok and a.ok and b.outputs[0].tobytes() == a.outputs[0].tobytes(), program


def test_run_differential_batched_keeps_every_case_in_order(xla, tmp_path):
    import oracle
    from conformance.run import run_differential

    pairs = [(oracle.lookup("stablehlo.add"), "f32"), (oracle.lookup("stablehlo.all_gather"), "i8"),
             (oracle.lookup("stablehlo.abs"), "i16")]
    seen = []
    results = run_differential(xla, pairs, max_examples=2, seed=0, out_dir=str(tmp_path), progress=False,
                               jobs=2, on_result=seen.append)
    assert [r.id for r in results] == [r.id for r in seen]
    assert [r.ops[0] for r in results] == sorted((r.ops[0] for r in results),
                                                 key=["stablehlo.add", "stablehlo.all_gather",
                                                      "stablehlo.abs"].index)
    # (a listed deviation, e.g. XLA's SIGFPE on a 1 x 1 all_gather with a channel, is fine here)
    assert len(results) >= 4 and all(r.status in ("pass", "implementation-defined")
                                     or deviation_for_case("xla", r) for r in results), \
        [(r.id, r.status, r.message) for r in results]


def test_compiler_messages_name_the_program_by_line_or_symbol():
    from adapters.batch import programs_named

    first_lines = [2, 20, 50]  # the programs' functions start on these lines of the module
    assert programs_named("UNKNOWN: -:55:3: error: Last dimension of input shape=32", first_lines) == {2}
    assert programs_named('%m = s16[] multiply(...), metadata={source_file="-" source_line=21}', first_lines) == {1}
    assert programs_named('error: loc("-":3:10): failed to legalize', first_lines) == {0}
    assert programs_named("failed to legalize operation 'arith.addf'", first_lines) == set()
    # IREE: every diagnostic of the failing pass, and a linker error naming a dispatch of @c1_main
    assert programs_named("<stdin>:3:10: error: 'stream.tensor.sizeof' op failed\n"
                          "<stdin>:52:3: error: 'hal.element_type' op unsupported element type", first_lines) == {0, 2}
    assert programs_named("iree-lld: error: undefined symbol: cos\n>>> referenced by -:2\n>>> "
                          "/build/main_dispatch_0-98fcdc.o:(c1_main_dispatch_0_elementwise_441_complex_f64_)",
                          first_lines) == {1}
