"""Programs shaped like real models (generators/model_programs.py): every
template and every mutation kind gives programs the StableHLO verifier accepts and the oracle
evaluates, XLA compiles them, mutations do what they say (checked against numpy), and a faulty
backend is caught by template programs through the campaign's own check."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed

import oracle
from adapters import get_backend
from conformance.fuzz import check_program, known_reason
from generators.model_mutations import MUTATIONS, mutate_swap, verified
from generators.model_programs import (DEFAULT_SEEDS, MODES, POLYMORPHIC_SIZE, ModelProgram, load_seeds,
                                       mixed_programs, mutated_programs, program_mode, template_programs)
from generators.model_templates import TEMPLATES

#: Small real programs (JAX exports) that every mutation kind applies to somewhere.
SEEDS = tuple(os.path.join(DEFAULT_SEEDS, name) for name in (
    "softmax_f32.mlir", "layer_norm_bf16.mlir", "gelu_tanh_f32.mlir", "logsumexp_f64.mlir", "argsort_f32.mlir",
    "erfc_f64.mlir", "ragged_dot_f32.mlir", "tridiagonal_solve_f32.mlir"))


POLYMORPHIC = os.path.join(os.path.dirname(DEFAULT_SEEDS), "jax_polymorphic")


def draw_many(strategy, n: int, seed: int = 0) -> list:
    """``n`` programs of ``strategy``, the same ones on every run."""
    out = []

    @hypothesis_seed(seed)
    @settings(max_examples=n, deadline=None, database=None, suppress_health_check=list(HealthCheck),
              phases=[Phase.generate])
    @given(strategy)
    def collect(program):
        out.append(program)
    collect()
    return out


def evaluates(program) -> None:
    """The verifier reads the program back and the oracle evaluates it to its declared types."""
    assert verified(program.module) is not None, oracle.print_module(program.module)
    outputs = oracle.evaluate(program.module, program.inputs)
    assert len(outputs) == len(program.module.main.result_types)


@pytest.mark.parametrize("name", sorted(TEMPLATES))
def test_every_template_is_well_typed_and_evaluates(name):
    programs = draw_many(template_programs(names=(name,)), 6, seed=1)
    assert {p.origin for p in programs} == {name} and {p.mode for p in programs} == {"template"}
    for p in programs:
        evaluates(p)


@pytest.mark.parametrize("kind", sorted(MUTATIONS))
def test_every_mutation_kind_applies_and_evaluates(kind):
    programs = draw_many(mutated_programs(SEEDS, kinds=(kind,)), 20, seed=2)
    applied = [p for p in programs if p.mutations == (kind,)]
    assert len(applied) >= 2, f"{kind} applied to {len(applied)} of 20 drawn mutants"
    for p in applied:
        seed = next(s for s in load_seeds(SEEDS)[0] if s.name == p.origin)
        if kind not in ("attribute", "swap"):  # these keep the text's shape; others change it
            assert oracle.print_module(p.module) != oracle.print_module(seed.module)
        evaluates(p)


def test_shapes_include_one_zero_and_primes():
    dims = set()
    for p in draw_many(template_programs(), 60, seed=3) + draw_many(mutated_programs(SEEDS, kinds=("shape",)), 30):
        dims.update(d for a in p.module.main.arguments for d in a.type.shape)
    assert {0, 1} <= dims and dims & {7, 13, 17, 31}, sorted(dims)


def test_shape_mutation_changes_one_size_everywhere(tmp_path):
    text = """func.func @main(%x: tensor<4x8xf32>) -> tensor<8x4xf32> {
      %t = stablehlo.transpose %x, dims = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
      %c = stablehlo.constant dense<2.0> : tensor<8x4xf32>
      %y = stablehlo.multiply %t, %c : tensor<8x4xf32>
      return %y : tensor<8x4xf32>
    }"""
    path = str(tmp_path / "transpose_scale.mlir")
    with open(path, "w") as f:
        f.write(text)
    for p in draw_many(mutated_programs((path,), kinds=("shape",)), 10, seed=4):
        if p.mutations != ("shape",):
            continue
        (x,) = p.inputs
        (y,) = oracle.evaluate(p.module, p.inputs)
        np.testing.assert_array_equal(y, 2 * x.T)  # hand-computed: the program's meaning is kept
        assert p.module.main.result_types[0].shape == x.shape[::-1]
        assert x.shape != (4, 8)


def test_swap_makes_the_program_compute_the_other_op():
    module = oracle.parse_module("""func.func @main(%a: tensor<5xf32>, %b: tensor<5xf32>) -> tensor<5xf32> {
      %s = stablehlo.add %a, %b : tensor<5xf32>
      return %s : tensor<5xf32>
    }""")
    a, b = np.float32([1, -2, 3, 0.5, 4]), np.float32([2, 2, -1, 0.25, 8])
    expect = {"stablehlo.subtract": a - b, "stablehlo.multiply": a * b, "stablehlo.maximum": np.maximum(a, b),
              "stablehlo.minimum": np.minimum(a, b), "stablehlo.divide": a / b}
    seen = set()
    for choice in range(5):
        mutant = mutate_swap(lambda strategy: list(strategy.elements)[choice], module)
        (op,) = mutant.main.ops[:-1]
        seen.add(op.name)
        np.testing.assert_array_equal(oracle.evaluate(mutant, [a, b])[0], expect[op.name])
    assert seen == set(expect)


def test_unusable_seeds_are_skipped_with_a_reason(tmp_path):
    (tmp_path / "bad.mlir").write_text("func.func @main( {")
    (tmp_path / "rng.mlir").write_text(
        "func.func @main(%s: tensor<2xui64>) -> tensor<4xui32> {\n"
        "  %n, %r = stablehlo.rng_bit_generator %s, algorithm = DEFAULT : (tensor<2xui64>) -> "
        "(tensor<2xui64>, tensor<4xui32>)\n  return %r : tensor<4xui32>\n}\n")
    seeds, skipped = load_seeds((str(tmp_path), os.path.join(POLYMORPHIC, "legacy_dim_arg.mlir")))
    assert not seeds and [os.path.basename(p) for p, _ in skipped] == ["bad.mlir", "rng.mlir", "legacy_dim_arg.mlir"]
    assert "cannot read" in skipped[0][1] and "rng_bit_generator" in skipped[1][1]
    assert "dimension arguments" in skipped[2][1]
    with pytest.raises(ValueError, match="no usable seed program"):
        mutated_programs((str(tmp_path),))


def test_polymorphic_seeds_are_refined_to_a_prime_size(tmp_path):
    (tmp_path / "poly.mlir").write_text("func.func @main(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {\n"
                                        "  %y = stablehlo.add %x, %x : tensor<?x3xf32>\n"
                                        "  return %y : tensor<?x3xf32>\n}\n")
    (seed,), _ = load_seeds((str(tmp_path),))
    assert seed.module.main.arguments[0].type.shape == (POLYMORPHIC_SIZE, 3)
    usable, skipped = load_seeds((POLYMORPHIC,))
    assert len(usable) >= 15, skipped


def test_mixed_programs_draw_every_mode():
    programs = draw_many(mixed_programs(SEEDS), 30, seed=5)
    modes = {program_mode(p) for p in programs}
    assert modes == set(MODES)
    assert all(isinstance(p, ModelProgram) == (program_mode(p) != "random") for p in programs)


def test_xla_compiles_templates_and_mutants():
    xla = get_backend("xla")
    programs = [draw_many(template_programs(names=(name,), element_types=("f32",)), 1, seed=6)[0]
                for name in sorted(TEMPLATES)]
    programs += draw_many(mutated_programs(SEEDS), 3, seed=7)
    for p in programs:
        verdict = check_program(xla, p.module, p.inputs)
        if verdict.status == "mismatch" and known_reason("xla", verdict, p.module):
            continue  # a listed deviation (XLA contracts multiply + add into an fma, ...)
        assert verdict.status in ("pass", "implementation-defined"), (p.origin, p.mutations, verdict.message)


def test_fault_in_a_reduction_is_caught_by_templates():
    """reduce-drops-init starts every reduction from 0: a max over masked scores (attention),
    or a max or min over values of one sign, comes out 0 instead; the judge names the reduce."""
    fault = get_backend("fault:reduce-drops-init")
    caught = 0
    for p in draw_many(template_programs(names=("attention", "softmax", "reduce_broadcast")), 20, seed=8):
        verdict = check_program(fault, p.module, p.inputs)
        if verdict.status == "mismatch":
            assert verdict.op == "stablehlo.reduce", verdict.message
            caught += 1
    assert caught >= 2



@pytest.mark.parametrize("kind, program, meanings", [
    # feedback: the program applied to its own output; duplicate: the copy added to the original
    ("feedback", "%y = stablehlo.multiply %x, %x : tensor<6xf32>", [lambda x: (x * x) * (x * x)]),
    ("duplicate", "%y = stablehlo.negate %x : tensor<6xf32>", [lambda x: -x + -x]),
    # delete: either op bypassed
    ("delete", "%a = stablehlo.abs %x : tensor<6xf32>\n  %y = stablehlo.negate %a : tensor<6xf32>",
     [lambda x: np.abs(x), lambda x: -x]),
])
def test_mutations_keep_a_meaning_computed_by_hand(tmp_path, kind, program, meanings):
    path = tmp_path / "seed.mlir"
    path.write_text(f"func.func @main(%x: tensor<6xf32>) -> tensor<6xf32> {{\n  {program}\n"
                    f"  return %y : tensor<6xf32>\n}}\n")
    x = np.float32([-2, -0.5, 0, 1, 1.5, 3])
    seen = set()
    for p in draw_many(mutated_programs((str(path),), kinds=(kind,), max_mutations=1), 8, seed=9):
        assert p.mutations == (kind,)
        y = oracle.evaluate(p.module, [x])[0]
        matches = [k for k, meaning in enumerate(meanings) if np.array_equal(y, meaning(x))]
        assert matches, (kind, y)
        seen.update(matches)
    assert seen == set(range(len(meanings)))


def test_campaign_programs_random_mode_draws_what_random_programs_draws(tmp_path):
    from generators.model_programs import campaign_programs
    from generators.random_programs import random_programs
    texts = [[oracle.print_module(p.module) for p in draw_many(strategy, 4, seed=10)]
             for strategy in (campaign_programs("random", max_ops=4), random_programs(max_ops=4))]
    assert texts[0] == texts[1]
    with pytest.raises(ValueError, match="--mode fusion: want one of mixed, random, mutation, template"):
        campaign_programs("fusion")
    with pytest.raises(ValueError, match="no usable seed program"):
        campaign_programs("mixed", [str(tmp_path)])


def test_fuzz_mode_template_finds_a_reduction_fault_and_counts_it_per_mode(tmp_path, monkeypatch, capsys):
    """`fuzz --mode template` on a backend whose reduce drops its init value: the finding is
    counted under its mode in summary.json's per_mode; a bad mode or seed folder is exit 2."""
    import json

    from conformance.cli import main as cli
    monkeypatch.setenv("SHLO_CONFORM_CACHE", str(tmp_path / "cache"))  # a fresh findings store
    out = tmp_path / "campaign"
    assert cli(["fuzz", "--backend", "fault:reduce-drops-init", "--mode", "template", "--programs", "20",
                "--seed", "3", "--out", str(out), "--quiet"]) == 1  # (1: findings)
    summary = json.loads((out / "summary.json").read_text())
    assert set(summary["per_mode"]) == {"template"}
    assert summary["per_mode"]["template"]["programs"] == summary["programs"] == 20
    assert summary["per_mode"]["template"]["findings"] == summary["new_findings"] >= 1
    assert summary["per_mode"]["template"]["known_deviation_failures"] == sum(
        d["count"] for d in summary["known_deviation_failures"].values())
    assert any("reduce" in f["signature"] for f in summary["findings"])
    for bad, message in ((["--mode", "fusion"], "--mode fusion: want one of"),
                         (["--seeds", str(tmp_path / "missing")], "no usable seed program")):
        assert cli(["fuzz", "--backend", "oracle", "--programs", "1", "--out", str(tmp_path / "bad"), *bad]) == 2
        assert message in capsys.readouterr().err
