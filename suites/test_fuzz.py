"""Random multi-op programs and fuzz campaigns (generators/random_programs.py, conformance/fuzz.py).

The default run checks the generator on hundreds of programs (every one must pass the
StableHLO verifier and evaluate on the oracle) and runs short campaigns against the oracle
and against a deliberately broken backend, whose bug must be found, shrunk to one op and
written as a reproducer.  ``pytest -m fuzz`` (or the nightly profile) runs the long versions.
"""

from __future__ import annotations

import dataclasses
import json
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import seed as hypothesis_seed

import oracle
from oracle.errors import Unsupported
from adapters.oracle_backend import OracleBackend
from conformance.cli import main as cli
from conformance.fuzz import ROUND_PROGRAMS, Campaign, parse_shard, shrink_program
from conformance.fuzz_shrinking import without_op
from generators.ops import SAMPLERS, samplers_of
from generators.random_programs import generatable_ops, random_programs


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    """Each test its own findings store (a campaign never shrinks a signature the store has)."""
    monkeypatch.setenv("SHLO_CONFORM_CACHE", str(tmp_path / "cache"))


def _draw_programs(n: int, seed: int = 0, **kwargs) -> list:
    drawn = []

    @hypothesis_seed(seed)
    @settings(max_examples=n, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(random_programs(**kwargs))
    def collect(program):
        drawn.append(program)
    collect()
    return drawn


def _check_programs(programs) -> set:
    covered, declined = set(), 0
    for p in programs:
        text = oracle.print_module(p.module)
        parsed = oracle.parse_module(text)  # MlirError: a generator bug
        try:
            outputs = oracle.evaluate(parsed, p.inputs)  # OracleError: a generator bug
        except Unsupported:  # values the oracle declines (polygamma of an order > 1000 at x <= 0): a
            declined += 1    # campaign's `unsupported` verdict; rare, or the generator's domain is wrong
            continue
        assert len(outputs) == len(parsed.main.result_types)
        covered.update(p.ops)
    assert declined <= len(programs) // 50, f"{declined} of {len(programs)} programs declined by the oracle"
    return covered


def test_random_programs_verify_evaluate_and_cover_the_ops():
    wanted = {info.name for info in generatable_ops()}
    programs = _draw_programs(4 * len(wanted))  # the pool grows with the ops: about 4 programs per op
    covered = _check_programs(programs)
    assert len(wanted - covered) <= len(wanted) // 10, f"never drawn: {sorted(wanted - covered)}"
    assert any(len(p.ops) >= 6 for p in programs)
    assert any(len(p.module.main.result_types) >= 2 for p in programs)  # several outputs
    # shared sub-expressions: a value used by more than one op
    assert any(max(np.unique([id(v) for op in p.module.main.ops for v in op.operands], return_counts=True)[1],
                   default=0) >= 2 for p in programs)
    assert any(op.regions for p in programs for op in p.module.main.ops)  # nested regions come along
    assert any("!quant." in t for p in programs for t in p.element_types)  # quantized programs too


def test_an_op_without_index_operands_draws_no_values_of_its_own(monkeypatch):
    """Only index-like operands (indices, shapes, start positions) take an op's own drawn values:
    drawing them for chlo.acos's float operand, element by element, was thrown away."""
    def thrown_away(draw, signature):
        raise AssertionError("chlo.acos's own inputs drawn for a random program")
    monkeypatch.setitem(SAMPLERS, "chlo.acos", dataclasses.replace(samplers_of("chlo.acos"), draw_inputs=thrown_away))
    programs = _draw_programs(10, ops=[oracle.lookup("chlo.acos")], max_ops=3)
    assert programs and all("chlo.acos" in p.ops for p in programs)
    # an op whose operands are index-like still gets its own values (dynamic_slice's start indices)
    dynamic_slice = oracle.lookup("stablehlo.dynamic_slice")
    drawn = [p for p in _draw_programs(10, ops=[dynamic_slice], max_ops=2) if p.fixed_args]
    assert drawn, "no start index drawn by dynamic_slice itself"


def test_polygamma_of_an_order_near_the_largest_double_is_evaluated():
    """A random program's edge input (found by test_random_programs_verify_evaluate_and_cover_the_ops):
    math.lgamma(n + 1) overflowed, an internal error; psi^(n)(x) = (-1)^(n+1) n! sum (x + k)^-(n+1)
    underflows to a signed zero there (the k = 0 term: log n! - (n + 1) log x ~ -0.98 n)."""
    big = np.finfo(np.float64).max
    module = oracle.parse_module(f"""func.func @main(%n: tensor<2xf64>, %x: tensor<2xf64>) -> tensor<2xf64> {{
  %0 = chlo.polygamma %n, %x : tensor<2xf64>, tensor<2xf64> -> tensor<2xf64>
  return %0 : tensor<2xf64>
}}""")
    (out,) = oracle.evaluate(module, [np.array([big, 2001.0]), np.array([big, 1e6])])
    assert out[0] == 0 and np.signbit(out[0])  # n even: (-1)^(n+1) < 0
    assert out[1] == 0 and not np.signbit(out[1])  # n = 2001 odd, x^-(n+1) far below the smallest double


@pytest.mark.parametrize("info", generatable_ops(), ids=lambda i: i.mnemonic)
def test_every_op_is_reachable(info):
    programs = _draw_programs(2, ops=[info], max_ops=3)
    assert all(info.name in p.ops for p in programs)
    _check_programs(programs)


@pytest.mark.fuzz
def test_thousands_of_random_programs_verify():
    _check_programs(_draw_programs(3000, seed=7, max_ops=12))


class NegateIsAbs(OracleBackend):
    """A broken backend: the oracle, except that negate computes abs."""
    name = "negate-is-abs"

    def run_many(self, program, input_sets, timeout=60):
        return super().run_many(program.replace('"stablehlo.negate"', '"stablehlo.abs"'), input_sets, timeout)


def _arith_ops():
    return [oracle.lookup(f"stablehlo.{n}") for n in ("negate", "add", "multiply", "maximum", "subtract")]


def test_campaign_finds_shrinks_writes_and_resumes(tmp_path):
    out = str(tmp_path)
    campaign = Campaign(NegateIsAbs(), out, seed=3, progress=False, ops=_arith_ops(), max_ops=6)
    summary = campaign.run(max_programs=60)
    negate = [f for f in summary["findings"] if "|negate|" in f["signature"]]
    assert negate, summary["findings"]
    for finding in summary["findings"]:  # every finding shrinks to the culprit (and a convert that types it)
        module = oracle.parse_module(open(os.path.join(finding["reproducer"], "program.mlir")).read())
        ops = [op.name for op in module.main.ops[:-1]]
        assert "stablehlo.negate" in ops and set(ops) <= {"stablehlo.negate", "stablehlo.convert"}, ops
        if "|negate|" in finding["signature"]:
            assert ops == ["stablehlo.negate"]
    for key in ("backend", "seconds", "programs", "input_sets", "programs_per_s", "finite_output_fraction",
                "ops_covered", "findings"):
        assert key in summary
    on_disk = json.load(open(os.path.join(out, "summary.json")))
    assert on_disk["findings"] == summary["findings"] and summary["programs"] == 60
    # a second run over the same folder starts from the findings on disk and never rewrites them
    stamps = {f["reproducer"]: os.path.getmtime(os.path.join(f["reproducer"], "program.mlir"))
              for f in summary["findings"]}
    again = Campaign(NegateIsAbs(), out, seed=3, progress=False, ops=_arith_ops(), max_ops=6)
    assert set(again.findings) == {f["signature"] for f in summary["findings"]}
    second = again.run(max_programs=30)
    assert {f["signature"] for f in summary["findings"]} <= {f["signature"] for f in second["findings"]}
    assert stamps == {r: os.path.getmtime(os.path.join(r, "program.mlir")) for r in stamps}
    # it continued the campaign (new rounds, new programs) rather than redrawing the first run's programs
    assert second["resumed_at_round"] == summary["rounds"] > 0


def test_a_resumed_campaign_draws_new_programs_and_a_stopped_one_keeps_its_summary(tmp_path, monkeypatch):
    """summary.json is refreshed while the campaign runs and written when it is stopped; a second
    run over the same folder continues after the rounds done instead of redrawing them."""
    import conformance.fuzz as fuzz
    monkeypatch.setattr(fuzz, "SUMMARY_REFRESH_SECONDS", 0.0)

    class StopsAfter(OracleBackend):  # Ctrl-C arriving while the 4th program runs
        runs = 0

        def run_many(self, *a, **k):
            StopsAfter.runs += 1
            if StopsAfter.runs == 4:
                raise KeyboardInterrupt
            return super().run_many(*a, **k)

    first = Campaign(StopsAfter(), str(tmp_path), seed=5, progress=False, max_ops=3, input_sets=1)
    first.recorded = []
    with pytest.raises(KeyboardInterrupt):
        first.run(max_programs=120)  # rounds of ROUND_PROGRAMS: the interruption comes in round 0
    on_disk = json.load(open(tmp_path / "summary.json"))
    assert on_disk["programs"] == 3 and on_disk["rounds"] == 0

    done = Campaign(OracleBackend(), str(tmp_path), seed=5, progress=False, max_ops=3, input_sets=1)
    assert done.run(max_programs=ROUND_PROGRAMS)["rounds"] == 1  # resumed at round 0 (it never finished)
    again = Campaign(OracleBackend(), str(tmp_path), seed=5, progress=False, max_ops=3, input_sets=1)
    again.recorded = []
    summary = again.run(max_programs=3)
    assert summary["resumed_at_round"] == 1 and summary["rounds"] == 2
    # new programs (only Hypothesis's simplest drawing, a one-op program, may come in any round)
    assert len({p for p, _ in first.recorded} & {p for p, _ in again.recorded}) <= 1


def test_campaign_against_the_oracle_finds_nothing(tmp_path):
    summary = Campaign(OracleBackend(), str(tmp_path), seed=1, progress=False).run(max_programs=25)
    assert summary["findings"] == [] and summary["programs"] == 25 and summary["input_sets"] == 75
    assert 0.5 < summary["finite_output_fraction"] <= 1.0  # mild inputs keep outputs meaningful


def test_shrink_replaces_ops_by_inputs_with_their_values():
    module = oracle.parse_module("""
    func.func @main(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
      %0 = stablehlo.add %a, %b : tensor<3xf32>
      %1 = stablehlo.negate %0 : tensor<3xf32>
      %2 = stablehlo.multiply %1, %b : tensor<3xf32>
      return %2 : tensor<3xf32>
    }""")
    inputs = [np.array([1, 2, 3], np.float32), np.array([4, 5, 6], np.float32)]
    broken = NegateIsAbs()

    def fails(m, ins):
        actual = broken.run(oracle.print_module(m), ins)
        return not np.array_equal(actual.outputs[0], oracle.evaluate(m, ins)[0])
    assert fails(module, inputs)
    small, small_inputs = shrink_program(module, inputs, fails)
    assert [op.name for op in small.main.ops] == ["stablehlo.negate", "func.return"]
    assert len(small_inputs) == 1 and fails(small, small_inputs)
    # replacing an op by an input: the input carries the value the op had
    without_add, new_inputs = without_op(module, 0, inputs)
    assert [op.name for op in without_add.main.ops] == ["stablehlo.negate", "stablehlo.multiply", "func.return"]
    np.testing.assert_array_equal(new_inputs[-1], [5, 7, 9])


def test_grid_programs_mix_collectives_with_ordinary_ops():
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as hypothesis_seed

    from generators.random_programs import grid_programs
    from oracle.grid import evaluate_parallel
    drawn = []

    @hypothesis_seed(5)
    @settings(max_examples=40, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(grid_programs())
    def collect(program):
        drawn.append(program)
    collect()
    mixed = 0
    for p in drawn:
        parsed = oracle.parse_module(oracle.print_module(p.module))  # the verifier accepts it
        outputs = evaluate_parallel(parsed, p.inputs, num_replicas=p.grid[0], num_partitions=p.grid[1])
        assert set(outputs) == {(r, q) for r in range(p.grid[0]) for q in range(p.grid[1])}
        families = {oracle.lookup(name).family for name in p.ops}
        mixed += "collectives" in families and len(families) > 1
    assert mixed >= 5 and any(p.grid[0] * p.grid[1] >= 4 for p in drawn)


def test_grid_campaign_runs_on_xla_devices(tmp_path):
    from adapters import get_backend
    xla = get_backend("xla")
    try:
        summary = Campaign(xla, str(tmp_path), seed=2, progress=False, grid=True).run(max_programs=6)
    finally:
        xla.close()
    assert summary["programs"] == 6 and summary["input_sets"] == 6


def test_parse_shard_and_cli(tmp_path):
    assert parse_shard("2/4") == (2, 4)
    with pytest.raises(ValueError):
        parse_shard("4/4")
    out = str(tmp_path / "fz")
    assert cli(["fuzz", "--backend", "oracle", "--programs", "8", "--out", out, "--quiet"]) == 0
    assert json.load(open(os.path.join(out, "summary.json")))["programs"] == 8
    assert cli(["fuzz", "--backend", "oracle", "--out", out]) == 2  # no budget: usage error
