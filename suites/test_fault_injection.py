"""The suite's own fault-injection check: the fault backends of adapters/faults.py (the oracle
with one realistic bug each) are reported where users run:

* ``shlo-conform run --backend fault:NAME --ops OP`` at the CLI's default budget -- read from
  the CLI's own parser, never a copy -- on every element-type family of the op where the bug
  shows (a data-movement bug shows on every type: it moves bits, whatever they mean);
* ``shlo-conform certify --backend fault:NAME --ops OP`` at certify's defaults: never CONFORMS.

CI runs a sample of faults on several families each (about a minute); the full sweep, every
fault on every element type of its op, and certify on every fault, are ``-m slow``.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import strategies as st

import oracle
from adapters import get_backend
from adapters.faults import FAULTS
from conformance.cli import build_parser
from conformance.cli import main as cli
from conformance.run import check_case, plan, run_differential
from generators.cases import random_example, type_family
from generators.drawing import as_draw
from generators.modules import build_module
from generators.ops import samplers_of
from generators.programs import Case
from generators.quantized import QUANTIZED_KEYS


def default_budget(command: str) -> int:
    """``--max-examples`` as the CLI's parser gives it when the user does not say."""
    return build_parser().parse_args([command, "--backend", "oracle"]).max_examples


#: Families of ops that move data: their bugs show on every element type.
DATA_MOVEMENT_FAMILIES = frozenset({"structural", "indexing", "gather_scatter", "sorting"})
#: A type of each element-type family, where the op takes it.
FAMILY_TYPES = {"bool": "i1", "signed": "i8", "unsigned": "ui16", "float": "f32", "narrow float": "bf16",
                "complex": "complex<f64>"}

# One fault per kind of bug (NaN, sign of zero, rounding, signed/unsigned, precision, complex) on
# the type that shows it, and every data-movement fault on a sample of families.
SAMPLE = {"maximum-nan": ["f32"], "sqrt-negative-zero": ["f32"], "round-even-half-away": ["bf16"],
          "compare-unsigned-as-signed": ["ui32"], "exp-low-precision": ["f32"],
          "convert-i64-f32-double-rounding": ["i64"], "atan2-swapped-at-zeros": ["f32"],
          "complex-sqrt-imag-sign": ["complex<f32>"], "complex-log1p-naive": ["complex<f64>"],
          "convert-flushes-destination-subnormals": ["f32"], "convert-f8-double-rounding-via-f16": ["f32"]}

#: Faults on a conversion's destination edges, with a source type of every element-type family the
#: bug can show on: a flush needs a float result that can be subnormal (no integer converts to
#: one), rounding twice through f16 a source wider than f16.
DESTINATION_FAULTS = {"convert-flushes-destination-subnormals": ["f32", "f16", "f8E5M2", "complex<f64>"],
                      "convert-f8-double-rounding-via-f16": ["f32", "f64"]}


def _op_info(name: str):
    return oracle.lookup(f"stablehlo.{FAULTS[name].op}")


def data_movement_faults() -> list[str]:
    return sorted(n for n in FAULTS if _op_info(n).family in DATA_MOVEMENT_FAMILIES)


def _families(name: str) -> list[str]:
    takes = set(_op_info(name).element_types)
    return [t for t in FAMILY_TYPES.values() if t in takes]


def _mismatches(name: str, dtypes=None) -> list:
    """The mismatches ``shlo-conform run --backend fault:NAME --ops OP`` reports at the default budget."""
    backend = get_backend(f"fault:{name}")
    results = run_differential(backend, plan([FAULTS[name].op], dtypes), max_examples=default_budget("run"),
                               seed=0, progress=False)
    return [r for r in results if r.status == "mismatch"]


def _missed_types(name: str, dtypes) -> list[str]:
    caught = {r.dtypes[0] for r in _mismatches(name, dtypes)}
    return [t for t in dtypes if t not in caught]


def test_the_budget_is_the_clis():
    assert default_budget("run") >= 1 and default_budget("certify") >= default_budget("run")


def test_every_fault_names_a_real_op_and_the_bug_it_models():
    assert len(FAULTS) >= 30
    for fault in FAULTS.values():
        assert oracle.lookup(f"stablehlo.{fault.op}") is not None, fault.name
        assert len(fault.models) > 20, fault.name


def test_every_data_movement_op_with_an_attribute_space_has_a_fault():
    """The ops whose semantics have an attribute space in their records each get a
    fault that only that space reaches."""
    with_faults = {f.op for f in FAULTS.values()}
    for name in ("transpose", "reverse", "slice", "concatenate", "broadcast_in_dim", "pad", "dynamic_slice",
                 "dynamic_update_slice", "gather", "scatter", "sort", "reduce", "reduce_window", "iota"):
        assert name in with_faults, name


def test_unknown_fault_is_one_clear_error():
    with pytest.raises(ValueError, match="unknown fault 'no-such-bug'"):
        get_backend("fault:no-such-bug")


@pytest.mark.parametrize("name", sorted(SAMPLE))
def test_sample_fault_is_reported(name):
    assert not _missed_types(name, SAMPLE[name]), f"fault:{name} went unnoticed at the CLI default budget"


@pytest.mark.parametrize("name", data_movement_faults())
def test_data_movement_fault_is_reported_on_every_family(name):
    """A data-movement bug must be caught at the CLI default on a signed, an unsigned, a float
    and a complex type alike: before each case drew its own program, every type of an op shared
    Hypothesis's simplest signatures and a transpose fault passed on all of them."""
    families = [t for t in _families(name) if t in ("i8", "ui16", "f32", "complex<f64>")]
    missed = _missed_types(name, families)
    assert not missed, f"fault:{name} went unnoticed on {missed} at the CLI default budget"


def _dequantize_cases(draw, key):
    """A uniform_dequantize case of storage type ``key`` drawn by the op's own samplers."""
    info = oracle.lookup("stablehlo.uniform_dequantize")
    own, draw = samplers_of(info), as_draw(draw)
    sig = own.draw_signature(draw, key)
    return Case(module=build_module(info.name, sig), inputs=list(own.draw_inputs(draw, sig)), op=info.name,
                element_types=(key,), signature=sig)


@pytest.mark.parametrize("key", QUANTIZED_KEYS)
def test_dequantize_with_the_zero_points_sign_flipped_is_reported(key):
    """(x + zero_point) * scale instead of (x - zero_point) * scale, on every storage type: a few
    drawn cases each (the drawn zero points are mostly non-zero)."""
    backend = get_backend("fault:uniform-dequantize-zero-point-sign")
    statuses = {check_case(random_example(st.composite(_dequantize_cases)(key), seed), backend).status
                for seed in range(6)}
    assert "mismatch" in statuses, statuses


@pytest.mark.parametrize("name,pair", [("convert-flushes-destination-subnormals", "f32,f16"),
                                       ("convert-f8-double-rounding-via-f16", "f32,f8E4M3FN")])
def test_destination_fault_is_reported_on_the_pair_it_was_missed_on(name, pair):
    """The pairs only the destination's edges show these faults on: no f32 special value is an
    exact f16 subnormal, or sits within half an f16 spacing of an f8E4M3FN tie."""
    pairs = {",".join(r.dtypes) for r in _mismatches(name, [pair.split(",")[0]])}
    assert pair in pairs, sorted(pairs)


@pytest.mark.slow
@pytest.mark.parametrize("name,element_type", [(n, t) for n, ts in sorted(DESTINATION_FAULTS.items()) for t in ts])
def test_destination_fault_is_reported_on_every_family_it_shows_on(name, element_type):
    """A convert that flushes f16-subnormal results passes every case whose f32 values include no
    exact f16 subnormal: the destination's edges must be drawn on every family it shows on."""
    assert not _missed_types(name, [element_type]), f"fault:{name} went unnoticed on {element_type}"


def test_oracle_itself_is_not_reported():
    """The faults' harness adds nothing: with no fault on its op, the faulty backend passes."""
    backend = get_backend("fault:maximum-nan")
    results = run_differential(backend, plan(["minimum", "sqrt", "transpose"], ["f32", "i8"]),
                               max_examples=default_budget("run"), seed=0, progress=False)
    assert results and all(r.status in ("pass", "implementation-defined") for r in results)


def _certify_verdict(name: str, tmp_path) -> dict:
    out = tmp_path / name
    cli(["certify", "--backend", f"fault:{name}", "--ops", FAULTS[name].op, "--out", str(out), "--quiet"])
    return json.loads((out / "summary.json").read_text())


def test_certify_does_not_certify_the_transpose_fault(tmp_path, capsys):
    """The issue's case: a transpose applying the inverse permutation was certified CONFORMS."""
    summary = _certify_verdict("transpose-inverse-permutation", tmp_path)
    assert summary["verdict"] == "deviates"
    assert summary["differential"]["deviates"] and not summary["differential"]["conforms"]


@pytest.mark.slow
def test_default_budget_reports_every_fault_on_every_type(capsys):
    """`shlo-conform run --backend fault:NAME --ops OP` over every element type of the op reports
    every fault; a data-movement fault in every element-type family (the attribute classes are
    spread over a family's types, each class once per family: conformance/run.class_types)."""
    missed = {}
    for name in sorted(FAULTS):
        every = [et for _, et in plan([FAULTS[name].op])]
        caught_types = {r.dtypes[0] for r in _mismatches(name, every)}
        caught = {type_family(t) for t in every if t in caught_types}
        if _op_info(name).family in DATA_MOVEMENT_FAMILIES:
            gone = sorted({type_family(t) for t in every} - caught - {"quantized"})
        else:
            gone = [] if caught else ["every type"]
        if gone:
            missed[name] = gone
    with capsys.disabled():
        print(f"\nfault injection: {len(FAULTS) - len(missed)}/{len(FAULTS)} faults reported at the CLI default "
              f"budget ({default_budget('run')} examples)" + "".join(f"\n  missed {n}: {t}" for n, t in missed.items()))
    assert not missed


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(FAULTS))
def test_certify_never_certifies_a_fault(name, tmp_path):
    summary = _certify_verdict(name, tmp_path)
    assert summary["verdict"] == "deviates", summary["verdict"]
