"""``shlo-conform check``: a user's programs (static and shape-polymorphic JAX exports, the
suite's jax programs with their goldens removed) run differentially, every output judged.

Values are hand-computed (refined programs evaluated), faults come from adapters/faults.py, and
the JAX programs are the committed exports (suites/data/jax_programs/, whose testdata goldens are
removed here: @under_test becomes a plain public @main taking its inputs as arguments, exactly what
``jax.jit(f).lower(...).as_text()`` gave; suites/data/jax_polymorphic/, written without goldens by
examples/jax_programs/export_polymorphic.py)."""

from __future__ import annotations

import json
import os
import pathlib
import shlex

import numpy as np
import pytest

import oracle
from conformance.check import (DEFAULT_EXAMPLES, INPUT_KINDS, check_program, draw_inputs, positive_arguments)
from conformance.cli import main
from oracle.refine import ANY_SIZE, RefinementError, dimension_value, polymorphism, refine
from judge.status import CASE_STATUSES

DATA = pathlib.Path(__file__).parent / "data"
POLYMORPHIC = sorted((DATA / "jax_polymorphic").glob("*.mlir"))
JAX_PROGRAMS = sorted((DATA / "jax_programs").glob("*.mlir"))
#: Programs whose one mild check takes over 20 s on xla (the judge replays their while loops).
SLOW_ON_XLA = {"random_gamma_f32", "eigh_tridiagonal_f64"}
FAILING = ("mismatch", "crash", "timeout", "error")


def text_of(name: str) -> str:
    return (DATA / "jax_polymorphic" / f"{name}.mlir").read_text()


def without_goldens(testdata_text: str) -> str:
    """A testdata file of suites/data/jax_programs/ as the user's program: @main calling @inputs /
    @expected and checking is dropped, @under_test (the lowered program) is the public @main."""
    from jaxlib.mlir import ir

    from oracle.mlir_text import mlir_context

    with mlir_context():
        module = ir.Module.parse(testdata_text)
        for op in list(module.body.operations):
            name = ir.StringAttr(op.attributes["sym_name"]).value
            if name in ("main", "inputs", "expected"):
                op.erase()
            elif name == "under_test":
                op.attributes["sym_name"] = ir.StringAttr.get("main")
                op.attributes["sym_visibility"] = ir.StringAttr.get("public")
        return str(module)


@pytest.fixture(scope="module")
def backends():
    """Backends by name, one worker each for the whole module (closed at its end)."""
    from adapters import get_backend

    made = {}

    def get(name):
        if name not in made:
            backend = get_backend(name)
            ok, why = backend.available()
            if not ok:
                backend.close()
                pytest.skip(f"{name} is not usable here: {why}")
            made[name] = backend
        return made[name]
    yield get
    for backend in made.values():
        backend.close()


# ----------------------------------------------------------------- refinement (oracle/refine.py)

def test_jax_specification_is_read_and_refined_at_two_sizes():
    """iota_scale: x * arange(b); at b = 3 and b = 5 the refined program is static (dynamic_iota
    became iota) and computes the hand-computed values."""
    text = text_of("iota_scale")
    poly = polymorphism(text)
    assert poly.variables == ("b",) and poly.dimension_args == 0 and poly.shapes == (("b",),)
    for b in (3, 5):
        refined = refine(text, poly.static_shapes({"b": b}))
        assert "dynamic_iota" not in refined and f"tensor<{b}xf32>" in refined
        module = oracle.parse_module(refined)
        x = np.full(b, 2.0, np.float32)
        assert oracle.evaluate(module, [x])[0].tolist() == [2.0 * k for k in range(b)]


def test_dimension_expressions_of_the_specification():
    """pair_sum: x of (b, 2) and y of (2*b,): the second argument's size is an expression."""
    text = text_of("pair_sum")
    poly = polymorphism(text)
    assert poly.shapes == (("b", 2), ("2*b",))
    shapes = poly.static_shapes({"b": 3})
    assert shapes == [(3, 2), (6,)]
    module = oracle.parse_module(refine(text, shapes))
    x, y = np.arange(6, dtype=np.float32).reshape(3, 2), np.full(6, 10, np.float32)
    assert oracle.evaluate(module, [x, y])[0].tolist() == [10, 11, 12, 13, 14, 15]
    assert dimension_value("floordiv(b, 2) + mod(b, 3)", {"b": 7}) == 4
    assert dimension_value("max(b + -1, 4)", {"b": 2}) == 4
    assert dimension_value("non_negative(b - 5)", {"b": 2}) == 0


def test_leading_dimension_argument_is_bound():
    """An older export's form: @main(%b: tensor<i64>, %x: tensor<?x4xf32>) computes
    x * 0.25 + iota; with ? = 2 the dimension argument is the constant 2 and @main takes x alone."""
    text = text_of("legacy_dim_arg")
    poly = polymorphism(text)
    assert poly.variables == (ANY_SIZE,) and poly.dimension_args == 1
    sizes = {ANY_SIZE: 2}
    module = oracle.parse_module(refine(text, poly.static_shapes(sizes), poly.dimension_values(sizes)))
    assert [str(a.type) for a in module.main.arguments] == ["tensor<2x4xf32>"]
    out = oracle.evaluate(module, [np.full((2, 4), 4.0, np.float32)])[0]
    assert out.tolist() == [[1.0] * 4, [2.0] * 4]


def test_refinement_refuses_sizes_the_shape_assertions_refuse():
    text = text_of("iota_scale")
    with pytest.raises(RefinementError, match="Expected value >= 1 for dimension variable 'b'"):
        refine(text, polymorphism(text).static_shapes({"b": 0}))
    with pytest.raises(RefinementError, match="shape refinement failed"):
        refine(text_of("pair_sum"), [(3, 2), (5,)])  # 5 is not 2*b


# ----------------------------------------------------------------- inputs

def test_positive_domain_arguments_get_positive_special_values():
    text = """func.func @main(%x: tensor<64xf32>, %y: tensor<64xf32>) -> tensor<64xf32> {
  %0 = stablehlo.convert %x : tensor<64xf32>
  %1 = stablehlo.log %0 : tensor<64xf32>
  %2 = stablehlo.add %1, %y : tensor<64xf32>
  return %2 : tensor<64xf32>
}"""
    module = oracle.parse_module(text)
    assert positive_arguments(module) == {0}
    x, y = draw_inputs(module, "special values", seed=1)
    assert not (np.isnan(x).any() or np.signbit(x).any()) and np.isinf(x).any()
    assert np.isnan(y).any() and (y < 0).any()
    mild_x, _ = draw_inputs(module, "mild", seed=1)
    assert (mild_x > 0).all()
    assert INPUT_KINDS[:DEFAULT_EXAMPLES] == ("mild", "special values", "edge-reaching")


# ----------------------------------------------------------------- check_program

def test_faulty_backend_is_caught_on_the_op_it_breaks(backends, tmp_path):
    """A transpose fault (the inverse permutation) and a floor fault (truncation) inside refined
    polymorphic programs: the mismatch names the op, with a reproducer; the oracle itself passes."""
    for program, fault, op in (("rotate_axes", "transpose-inverse-permutation", "stablehlo.transpose"),
                               ("floor_scaled", "floor-truncates", "stablehlo.floor")):
        results = check_program(text_of(program), backends(f"fault:{fault}"), name=program, examples=1,
                                dims={"b": 3}, out_dir=str(tmp_path))
        assert [r.status for r in results] == ["mismatch"] and results[0].ops == [op], results[0].message
        assert os.path.exists(os.path.join(results[0].reproducer, "command.txt"))
        assert [r.status for r in check_program(text_of(program), backends("oracle"), name=program,
                                                examples=1, dims={"b": 3})] == ["pass"]


def test_a_failed_shape_assertion_is_one_error_case(backends):
    results = check_program(text_of("iota_scale"), backends("oracle"), name="iota_scale.mlir",
                            filename="iota_scale.mlir", dims={"b": 0})
    assert len(results) == 1 and results[0].status == "error"
    assert results[0].message.startswith("iota_scale.mlir: ") and "Expected value >= 1" in results[0].message
    assert "\n" not in results[0].message


def test_given_inputs_fix_the_sizes(backends):
    x, y = np.ones((3, 2), np.float32), np.arange(6, dtype=np.float32)
    (result,) = check_program(text_of("pair_sum"), backends("oracle"), name="pair_sum", inputs=[x, y])
    assert result.status == "pass" and result.extra["sizes"] == {"b": 3} and result.extra["values"] == "given"
    (bad,) = check_program(text_of("pair_sum"), backends("oracle"), name="pair_sum", inputs=[x])
    assert bad.status == "error" and "--inputs has 1" in bad.message


# ----------------------------------------------------------------- the command line

def test_cli_bad_files_are_error_cases_and_the_run_goes_on(tmp_path, capsys):
    folder = tmp_path / "programs"
    folder.mkdir()
    (folder / "empty.mlir").write_text("")
    (folder / "typo.mlir").write_text("func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
                                      "  %0 = stablehlo.add %a, %b : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n")
    (folder / "binary.mlir").write_bytes(b"\xff\xfe\x00")
    (folder / "iota_scale.mlir").write_text(text_of("iota_scale"))
    out = tmp_path / "out"
    code = main(["check", str(folder), "--backend", "oracle", "--out", str(out), "--quiet", "--jobs", "1"])
    captured = capsys.readouterr()
    assert code == 1 and "Traceback" not in captured.out + captured.err
    cases = {c["id"]: c for c in json.loads((out / "results.json").read_text())["cases"]}
    assert {i: c["status"] for i, c in cases.items() if "#" not in i} == {
        "binary.mlir": "error", "empty.mlir": "error", "typo.mlir": "error"}
    assert "typo.mlir:2:" in cases["typo.mlir"]["message"] and "undeclared" in cases["typo.mlir"]["message"]
    assert "not UTF-8" in cases["binary.mlir"]["message"] and "empty" in cases["empty.mlir"]["message"]
    sized = [c for i, c in cases.items() if i.startswith("iota_scale.mlir#")]
    assert len(sized) == DEFAULT_EXAMPLES and {c["status"] for c in sized} == {"pass"}
    assert main(["check", str(tmp_path / "missing.mlir"), "--backend", "oracle", "--out", str(out)]) == 2
    assert main(["check", str(folder), "--backend", "oracle", "--dims", "b=x", "--out", str(out)]) == 2
    assert "--dims" in capsys.readouterr().err


def test_cli_on_xla_then_repro_and_report(tmp_path, capsys):
    """The worked example's command on two programs (one shape-polymorphic), results.json, JUnit
    and HTML as `run` writes them; then a fault's reproducer replays through its command.txt."""
    out = tmp_path / "xla"
    code = main(["check", str(DATA / "jax_polymorphic" / "iota_scale.mlir"), str(DATA / "jax_polymorphic" / "flatten.mlir"),
                 "--backend", "xla", "--out", str(out), "--quiet", "--jobs", "1", "--junit", str(tmp_path / "j.xml")])
    text = capsys.readouterr().out
    if "not usable here" in text:
        pytest.skip("xla is not usable here")
    doc = json.loads((out / "results.json").read_text())
    assert code == 0 and len(doc["cases"]) == 2 * DEFAULT_EXAMPLES and doc["complete"]
    assert {c["status"] for c in doc["cases"]} == {"pass"} and "exit code 0" in text
    assert (tmp_path / "j.xml").exists()
    assert main(["report", str(out), "--html", str(tmp_path / "r.html")]) == 0

    faulty = tmp_path / "fault"
    code = main(["check", str(DATA / "jax_polymorphic" / "rotate_axes.mlir"), "--backend",
                 "fault:transpose-inverse-permutation", "--examples", "1", "--out", str(faulty), "--quiet"])
    (case,) = json.loads((faulty / "results.json").read_text())["cases"]
    assert code == 1 and case["status"] == "mismatch" and case["ops"] == ["stablehlo.transpose"]
    command = shlex.split(pathlib.Path(case["reproducer"], "command.txt").read_text())
    assert command[:2] == ["shlo-conform", "repro"]
    capsys.readouterr()
    assert main(command[1:]) == 1 and "still fails" in capsys.readouterr().out


# ----------------------------------------------------------------- the programs

@pytest.mark.parametrize("path", POLYMORPHIC, ids=lambda p: p.stem)
def test_polymorphic_programs_check_on_xla_at_two_sizes(path, backends):
    """Each shape-polymorphic export checks on xla at two drawn sizes: a verdict for each, no
    error, crash or timeout (the listed deviations are what XLA is known to do)."""
    results = check_program(path.read_text(), backends("xla"), name=path.name, examples=2, timeout=30)
    assert len(results) == 2
    assert {r.status for r in results} <= {"pass", "implementation-defined", "mismatch"}, [r.message for r in results]
    sizes = [r.extra.get("sizes") for r in results]
    if sizes[0]:
        assert sizes[0] != sizes[1]
    for r in results:
        assert r.status != "mismatch" or (len(r.ops) == 1 and r.ops[0] in r.message), r.message


def _program_params(slow_on=()):
    return [pytest.param(p, id=p.stem, marks=[pytest.mark.slow] if p.stem in slow_on else [])
            for p in JAX_PROGRAMS]


def _checked_without_goldens(path, backend, tmp_path):
    results = check_program(without_goldens(path.read_text()), backend, name=path.name, examples=1, timeout=60,
                            out_dir=str(tmp_path))
    assert len(results) == 1 and results[0].status in CASE_STATUSES
    (r,) = results
    assert r.status not in ("error", "crash"), r.message
    if r.status in FAILING:  # a finding names its op and replays from its reproducer
        assert len(r.ops) == 1 and os.path.exists(os.path.join(r.reproducer, "command.txt")), r.message
    return r


@pytest.mark.parametrize("path", _program_params(SLOW_ON_XLA))
def test_jax_programs_without_goldens_on_xla(path, backends, tmp_path):
    _checked_without_goldens(path, backends("xla"), tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["iree-llvm-cpu", "torch-eager"])
@pytest.mark.parametrize("path", _program_params())
def test_jax_programs_without_goldens_on_other_backends(path, backend, backends, tmp_path):
    r = _checked_without_goldens(path, backends(backend), tmp_path)
    assert r.status in CASE_STATUSES
