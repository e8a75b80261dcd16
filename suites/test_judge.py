"""judge/verdict.py: one judge for whole programs (replay judging).

Programs on which the old rule (one tolerance from the first output's type, taint) false-alarmed
pass on a correct backend with legitimate rounding differences, and one injected wrong op is
caught and named.  The backend is suites/data/faulty_runner.py (the oracle op by op)."""

from __future__ import annotations

import importlib.util
import os
import sys

import numpy as np
import pytest

import oracle
from judge.accuracy import is_accuracy_question
from judge.tolerance import tolerance_for
from judge.verdict import first_replay, judge_program

_RUNNER = os.path.join(os.path.dirname(__file__), "data", "faulty_runner.py")
_spec = importlib.util.spec_from_file_location("faulty_runner", _RUNNER)
faulty_runner = importlib.util.module_from_spec(_spec)
sys.modules["faulty_runner"] = faulty_runner  # dataclasses look their module up
_spec.loader.exec_module(faulty_runner)
FaultyOracle = faulty_runner.FaultyOracle

# an exact integer first output beside a transcendental
INT_BESIDE_LOG = """
func.func @main(%a: tensor<4xi32>, %x: tensor<4xf32>) -> (tensor<4xi32>, tensor<4xf32>) {
  %0 = stablehlo.add %a, %a : tensor<4xi32>
  %1 = stablehlo.log %x : tensor<4xf32>
  %2 = stablehlo.multiply %1, %1 : tensor<4xf32>
  return %0, %2 : tensor<4xi32>, tensor<4xf32>
}"""
# dot after other ops (an exponential feeds a dot_general)
DOT_AFTER_EXP = """
func.func @main(%x: tensor<3x4xf32>, %y: tensor<4x2xf32>) -> tensor<3x2xf32> {
  %0 = stablehlo.exponential %x : tensor<3x4xf32>
  %1 = stablehlo.dot_general %0, %y, contracting_dims = [1] x [0] : (tensor<3x4xf32>, tensor<4x2xf32>) -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}"""
# cancellation after an inexact op: log(x) - log(x rounded), relative error unbounded
CANCELLATION = """
func.func @main(%x: tensor<4xf32>, %c: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.log %x : tensor<4xf32>
  %1 = stablehlo.subtract %0, %c : tensor<4xf32>
  return %1 : tensor<4xf32>
}"""
# cancellation after a reduction: sum(x) - c with c close to the sum
REDUCE_CANCEL = """
func.func @main(%x: tensor<4xf32>, %s: tensor<f32>) -> tensor<f32> {
  %init = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%x init: %init) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  %1 = stablehlo.subtract %0, %s : tensor<f32>
  return %1 : tensor<f32>
}"""
# repeated operands: masks are the op's, not the program's arguments
POWER_XX = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.power %x, %x : tensor<4xf32>
  %1 = stablehlo.add %0, %x : tensor<4xf32>
  return %1 : tensor<4xf32>
}"""


def _inputs(text):
    if "%a:" in text:
        return [np.arange(4, dtype=np.int32), np.array([1.1, 2.3, 3.7, 9.9], np.float32)]
    if "%y:" in text:
        return [np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4), np.linspace(0.5, 2, 8, dtype=np.float32).reshape(4, 2)]
    if "%s:" in text:
        x = np.array([1.1, 2.3, 3.7, 9.9], np.float32)
        return [x, np.float32(x.astype(np.float64).sum()).reshape(())]
    if "%c:" in text:
        x = np.array([1.1, 2.3, 3.7, 9.9], np.float32)
        return [x, np.log(x.astype(np.float64)).astype(np.float32)]
    return [np.array([0.5, 1.5, 2.5, 3.5], np.float32)]


def _judge(text, backend):
    module = oracle.parse_module(text)
    inputs = _inputs(text)
    actual = backend.run(text, inputs).outputs
    return judge_program(module, inputs, actual, rerun=lambda t: backend.run(t, inputs).outputs)


CASES = [(INT_BESIDE_LOG, "stablehlo.log", "stablehlo.multiply"),
         (DOT_AFTER_EXP, "stablehlo.exponential", "stablehlo.exponential"),
         (CANCELLATION, "stablehlo.log", "stablehlo.subtract"),
         (REDUCE_CANCEL, "stablehlo.reduce", "stablehlo.subtract"),
         (POWER_XX, "stablehlo.power", "stablehlo.add")]


@pytest.mark.parametrize("text,inexact,_", CASES)
def test_a_correct_backend_with_rounding_differences_passes(text, inexact, _):
    assert not tolerance_for(inexact.split(".")[1], "f32").is_exact  # the nudge: within the op's allowance
    verdict = judge_program(oracle.parse_module(text), _inputs(text),
                            FaultyOracle(nudge=[inexact]).run(text, _inputs(text)).outputs,
                            rerun=lambda t: FaultyOracle(nudge=[inexact]).run(t, _inputs(text)).outputs)
    assert verdict.status == "pass", verdict.message
    if text in (INT_BESIDE_LOG, CANCELLATION, REDUCE_CANCEL):  # beyond the last op's allowance: replayed
        assert verdict.replayed


@pytest.mark.parametrize("text,inexact,wrong", CASES)
def test_one_wrong_op_is_caught_and_named(text, inexact, wrong):
    """A wrong exact op is a mismatch; a wrong (finite) transcendental is an accuracy question the
    spec leaves open: inaccurate, named the same way (judge/accuracy.py)."""
    verdict = _judge(text, FaultyOracle(nudge=[inexact], wrong=wrong))
    assert verdict.status == ("inaccurate" if is_accuracy_question(wrong, "f32") else "mismatch")
    assert verdict.op == wrong, verdict.message
    assert wrong in verdict.message and "expected" in verdict.message and "0x" in verdict.message


def test_a_run_that_differs_from_its_replay_beyond_the_allowance_is_caught():
    """The replay is correct but the first run's output is not: judged against the replay."""
    text = INT_BESIDE_LOG
    module, inputs = oracle.parse_module(text), _inputs(text)
    good = FaultyOracle(nudge=["stablehlo.log"])
    first = good.run(text, inputs).outputs
    first[1] = first[1] + np.float32(1.0)
    verdict = judge_program(module, inputs, first, rerun=lambda t: good.run(t, inputs).outputs)
    assert verdict.status == "mismatch" and verdict.op == "stablehlo.multiply"


def test_fuzz_judge_uses_the_one_judge():
    from conformance.fuzz import check_program
    text = CANCELLATION
    module = oracle.parse_module(text)
    assert check_program(FaultyOracle(nudge=["stablehlo.log"]), module, _inputs(text)).status == "pass"
    wrong = check_program(FaultyOracle(nudge=["stablehlo.log"], wrong="stablehlo.log"), module, _inputs(text))
    # a wrong but finite log: accuracy, which the spec does not bound (judge/accuracy.py), named alike
    assert wrong.status == "inaccurate" and wrong.op == "stablehlo.log" and wrong.dtype == "f32"
    wrong = check_program(FaultyOracle(nudge=["stablehlo.log"], wrong="stablehlo.subtract"), module, _inputs(text))
    assert wrong.status == "mismatch" and wrong.op == "stablehlo.subtract" and wrong.dtype == "f32"


# ------------------------------------------------- reproducers replay with the same verdict

QUANTIZED = """
func.func @main(%x: tensor<4x!quant.uniform<i8:f32, 0.5:1>>, %y: tensor<4x!quant.uniform<i8:f32, 0.5:1>>) -> tensor<4x!quant.uniform<i8:f32, 0.5:1>> {
  %0 = stablehlo.add %x, %y : tensor<4x!quant.uniform<i8:f32, 0.5:1>>
  return %0 : tensor<4x!quant.uniform<i8:f32, 0.5:1>>
}"""
MULTI_OUTPUT = """
func.func @main(%a: tensor<4xi32>, %x: tensor<4xf32>) -> (tensor<4xi32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = stablehlo.add %a, %a : tensor<4xi32>
  %1 = stablehlo.log %x : tensor<4xf32>
  %2 = stablehlo.multiply %1, %1 : tensor<4xf32>
  return %0, %2, %1 : tensor<4xi32>, tensor<4xf32>, tensor<4xf32>
}"""


def _repro(tmp_path, capsys, text, inputs, backend_args):
    from conformance.cli import main
    from reports.reproducer import write_reproducer
    command = f"cmd:{sys.executable} {_RUNNER} {backend_args} {{program}} {{inputs}} {{outputs}}"
    folder = write_reproducer(str(tmp_path), case_id="case", backend=command, status="mismatch", program=text,
                              inputs=inputs)
    with open(os.path.join(folder, "command.txt")) as f:
        assert f.read().startswith("shlo-conform repro ")
    code = main(["repro", folder, "--backend", command])
    return code, capsys.readouterr().out


@pytest.mark.parametrize("text,inputs,fault,op", [
    (MULTI_OUTPUT, _inputs(INT_BESIDE_LOG), "stablehlo.multiply", "stablehlo.multiply"),
    (POWER_XX, _inputs(POWER_XX), "stablehlo.add", "stablehlo.add"),
    (QUANTIZED, [np.array([1, 2, 3, 4], np.int8), np.array([5, 6, 7, -8], np.int8)], "stablehlo.add",
     "stablehlo.add"),
])
def test_repro_replays_the_verdict(tmp_path, capsys, text, inputs, fault, op):
    nudge = "--nudge stablehlo.log,stablehlo.power "
    code, out = _repro(tmp_path, capsys, text, inputs, nudge)
    assert code == 0 and "no longer fails" in out, out  # rounding differences alone: no finding
    code, out = _repro(tmp_path / "wrong", capsys, text, inputs, nudge + f"--wrong {fault}")
    assert code == 1 and "still fails" in out and f"mismatch ({op}" in out, out


def test_grid_programs_are_judged_by_the_same_judge():
    from conformance.fuzz import check_program
    from oracle.grid import evaluate_parallel

    text = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.log %x : tensor<4xf32>
  %1 = "stablehlo.all_reduce"(%0) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}"""
    module = oracle.parse_module(text)
    inputs = {(0, 0): [np.array([1, 2, 3, 4], np.float32)], (1, 0): [np.array([5, 6, 7, 8], np.float32)]}

    from adapters.oracle_backend import OracleBackend

    class GridBackend(OracleBackend):
        name, flushes_subnormals = "grid", False

        def __init__(self, wrong):
            super().__init__()
            self.wrong = wrong

        def run_grid(self, program, inputs, num_replicas, num_partitions, timeout=60):
            outputs = evaluate_parallel(oracle.parse_module(program), inputs, num_replicas=num_replicas,
                                        num_partitions=num_partitions)
            if self.wrong:
                outputs[(1, 0)][0] = faulty_runner._wrong(outputs[(1, 0)][0])
            return faulty_runner.Run("ok", outputs)

    assert check_program(GridBackend(False), module, inputs).status == "pass"
    verdict = check_program(GridBackend(True), module, inputs)
    assert verdict.status == "mismatch" and verdict.op == "stablehlo.all_reduce"
    assert "process (1, 0)" in verdict.message


# --------------------------------------------- known deviations explain only what they explain

SCATTER = """
func.func @main(%a: tensor<5xi32>, %i: tensor<1x1xi32>, %u: tensor<1x3xi32>) -> tensor<5xi32> {
  %0 = "stablehlo.scatter"(%a, %i, %u) ({
    ^bb0(%x: tensor<i32>, %y: tensor<i32>):
      stablehlo.return %y : tensor<i32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [],
      scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<5xi32>, tensor<1x1xi32>, tensor<1x3xi32>) -> tensor<5xi32>
  return %0 : tensor<5xi32>
}"""


@pytest.mark.parametrize("start,known", [(3, True), (1, False)])
def test_a_listed_deviation_does_not_hide_another_mismatch_of_the_same_op(start, known):
    """xla.toml lists XLA's out-of-bounds scatter windows: a wrong scatter with in-bounds windows
    is a new finding, not that deviation."""
    from conformance.run import check_case
    from generators.programs import Case
    from judge.explain import deviation_for_case

    inputs = [np.zeros(5, np.int32), np.array([[start]], np.int32), np.array([[1, 2, 3]], np.int32)]
    case = Case.written("scatter-case", SCATTER, "stablehlo.scatter", ["i32"], inputs)
    result = check_case(case, FaultyOracle(wrong="stablehlo.scatter"))
    assert result.status == "mismatch"
    deviation = deviation_for_case("xla", result)
    assert (deviation is not None and "out of bounds" in deviation.reason) == known


def test_every_condition_named_in_the_deviation_files_exists():
    from judge.conditions import CONDITIONS
    from judge.known_deviations import KNOWN_DEVIATIONS
    named = {d.when for d in KNOWN_DEVIATIONS if d.when}
    assert named and named <= set(CONDITIONS)


# ------------------------------------------------------- corpus goldens judged by the oracle

def _corpus_case(tmp_path, golden: str):
    from conformance.corpus import load_cases
    path = tmp_path / "golden.mlir"
    path.write_text(f"""
func.func @log_golden() {{
  %x = stablehlo.constant dense<[3.0, 7.0]> : tensor<2xf32>
  %y = stablehlo.log %x : tensor<2xf32>
  check.expect_eq_const %y, dense<{golden}> : tensor<2xf32>
  func.return
}}
""")
    (case,) = load_cases(str(path))
    return case


def _f32_bits_after(x: float, ulps: int) -> str:
    v = np.float32(np.log(np.float64(x)))
    for _ in range(ulps):
        v = np.nextafter(v, np.float32(np.inf))
    return repr(float(v))


@pytest.mark.parametrize("ulps,status,note", [(0, "pass", None), (1, "pass", "golden inexact"),
                                              (5000, "mismatch", "wrong golden")])
def test_corpus_goldens_are_judged_by_the_oracle(tmp_path, ulps, status, note):
    """An inexact golden (1 ULP from the exact log, within log's allowance) passes with a note; a
    golden far outside it is reported as a wrong golden; the backend is the oracle."""
    from conformance.corpus import run_case
    case = _corpus_case(tmp_path, f"[{_f32_bits_after(3.0, ulps)}, {_f32_bits_after(7.0, 0)}]")
    result = run_case(case, "oracle")
    assert result.status == status, result.message
    assert note is None or note in result.message


def test_a_corpus_backend_is_judged_by_the_oracle_as_well_as_by_the_file(tmp_path):
    from conformance.corpus import run_case
    case = _corpus_case(tmp_path, f"[{_f32_bits_after(3.0, 0)}, {_f32_bits_after(7.0, 0)}]")
    # an exact golden: the file's own check stands (a 1-ULP answer fails expect_eq_const)
    assert run_case(case, FaultyOracle(nudge=["stablehlo.log"])).status == "mismatch"
    wrong = run_case(case, FaultyOracle(wrong="stablehlo.log"))  # finite and wrong: the spec bounds it nowhere
    assert wrong.status == "inaccurate" and "the oracle's judge" in wrong.message


@pytest.mark.parametrize("text,inexact", [(INT_BESIDE_LOG, "stablehlo.log"), (CANCELLATION, "stablehlo.log"),
                                          (REDUCE_CANCEL, "stablehlo.reduce")])
def test_an_output_level_rule_would_false_alarm_on_these_programs(text, inexact):
    """The legitimate rounding difference upstream shows at the outputs beyond the last op's (and
    the first output type's) tolerance: only judging op by op clears it."""
    from judge.compare import compare
    module, inputs = oracle.parse_module(text), _inputs(text)
    expected = oracle.evaluate(module, inputs)
    actual = FaultyOracle(nudge=[inexact]).run(text, inputs).outputs
    last = module.main.ops[-2]
    assert compare(expected[-1] if text != INT_BESIDE_LOG else expected[1],
                   actual[-1] if text != INT_BESIDE_LOG else actual[1], "f32",
                   tolerance_for(last.mnemonic, "f32")).status == "mismatch"


def test_a_grid_reproducer_replays_through_repro(tmp_path, capsys):
    """A grid program's reproducer (program marked with its grid, inputs in process order) runs
    through ``shlo-conform repro`` on a grid-capable backend and is judged per process."""
    from adapters import get_backend
    from adapters.base import grid_program
    from conformance.cli import main
    from reports.reproducer import write_reproducer

    backend = get_backend("xla")
    ok, why = backend.available()
    backend.close()
    if not ok:
        pytest.skip(f"xla not usable: {why}")
    text = grid_program(oracle.print_module(oracle.parse_module("""
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "stablehlo.all_reduce"(%x) ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
  }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}""")), 2, 1)
    folder = write_reproducer(str(tmp_path), case_id="grid", backend="xla", status="mismatch", program=text,
                              inputs=[np.arange(4, dtype=np.float32), np.ones(4, np.float32)])
    assert main(["repro", folder, "--backend", "xla"]) == 0
    assert "xla: pass" in capsys.readouterr().out


def test_deviation_conditions_on_hand_made_cases():
    from judge.conditions import triggered
    power = oracle.parse_module(POWER_XX).main.ops[0]
    assert "subnormal_operand" in triggered(power, [np.array([1e-40, 1.0, 2.0, 0.5], np.float32)] * 2)
    assert triggered(power, [np.array([1e-30, 1.0, 2.0, 0.5], np.float32)] * 2) == ()  # (operands of the op's shape)
    scatter = oracle.parse_module(SCATTER).main.ops[0]
    window = np.array([[1, 2, 3]], np.int32)
    assert triggered(scatter, [np.zeros(5, np.int32), np.array([[3]], np.int32), window]) == (
        "scatter_window_out_of_bounds",)
    assert triggered(scatter, [np.zeros(5, np.int32), np.array([[2]], np.int32), window]) == ()


def test_calls_are_inlined_before_judging():
    """JAX wraps code in private functions: the ops inside a call are judged by their own rules
    (log: a few ULP), not the call's result compared exactly."""
    from oracle.rewrite import inline_calls
    text = """
    func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
      %0 = stablehlo.log %x : tensor<4xf32>
      %1 = stablehlo.add %0, %x : tensor<4xf32>
      return %1 : tensor<4xf32>
    }
    func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
      %0 = func.call @f(%x) : (tensor<4xf32>) -> tensor<4xf32>
      %1 = func.call @f(%0) : (tensor<4xf32>) -> tensor<4xf32>
      return %1 : tensor<4xf32>
    }"""
    module = oracle.parse_module(text)
    inlined = inline_calls(module)
    assert [op.name for op in inlined.main.ops] == ["stablehlo.log", "stablehlo.add"] * 2 + ["func.return"]
    x = np.array([1.5, 2.0, 3.0, 10.0], np.float32)
    assert np.array_equal(oracle.evaluate(inlined, [x])[0], oracle.evaluate(module, [x])[0])
    inlined_text = oracle.print_module(inlined)

    def judged(backend):  # the backend computes inside the calls (here: the inlined program)
        return judge_program(module, [x], backend.run(inlined_text, [x]).outputs,
                             rerun=lambda t: backend.run(t, [x]).outputs)
    rounding = judged(FaultyOracle(nudge=["stablehlo.log"]))  # log 1 ULP off: within its allowance
    assert rounding.status == "pass", rounding.message
    wrong = judged(FaultyOracle(wrong="stablehlo.add"))
    assert wrong.status == "mismatch" and wrong.op == "stablehlo.add", wrong.message


@pytest.mark.parametrize("text,inexact,wrong", CASES)
def test_first_replay_is_the_program_the_judge_replays_first(text, inexact, wrong):
    """judge.verdict.first_replay (a campaign runs many of them as one batch): the very text the
    judge asks ``rerun`` for first, or None exactly when the judge replays nothing."""
    module, inputs = oracle.parse_module(text), _inputs(text)
    for backend in (FaultyOracle(nudge=[inexact]), FaultyOracle(nudge=[inexact], wrong=wrong), FaultyOracle()):
        actual = backend.run(text, inputs).outputs
        asked = []
        judge_program(module, inputs, actual, rerun=lambda t: asked.append(t) or backend.run(t, inputs).outputs)
        assert first_replay(module, inputs, actual) == (asked[0] if asked else None)
    assert asked == []  # the correct backend: bit-identical, no replay
