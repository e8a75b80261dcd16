"""The suite's own fault-injection check: ``shlo-conform run`` at its default budget reports
every fault-injection backend of adapters/faults.py (the oracle with one realistic bug each).

The CI part runs a sample of faults on one element type each (seconds); the full sweep, every
fault on every element type of its op at the default budget, is ``-m slow``.
"""

import pytest

import oracle
from adapters import get_backend
from adapters.faults import FAULTS
from conformance.run import plan, run_differential

DEFAULT_MAX_EXAMPLES = 5  # `shlo-conform run --max-examples` default
# one fault per kind of bug: NaN, sign of zero, rounding, signed/unsigned, indices, precision, layout
SAMPLE = {"maximum-nan": "f32", "sqrt-negative-zero": "f32", "round-even-half-away": "bf16",
          "compare-unsigned-as-signed": "ui32", "dynamic-slice-unclamped": "i32", "exp-low-precision": "f32",
          "transpose-inverse-permutation": "f32", "convert-i64-f32-double-rounding": "i64",
          "atan2-swapped-at-zeros": "f32", "sort-unstable": "i32",
          "complex-sqrt-imag-sign": "complex<f32>", "complex-log1p-naive": "complex<f64>"}


def _reported(name: str, dtypes=None, max_examples: int = DEFAULT_MAX_EXAMPLES) -> list:
    fault = FAULTS[name]
    backend = get_backend(f"fault:{name}")
    results = run_differential(backend, plan([fault.op], dtypes), max_examples=max_examples, seed=0,
                               progress=False)
    return [r for r in results if r.status == "mismatch"]


def test_every_fault_names_a_real_op_and_the_bug_it_models():
    assert len(FAULTS) >= 30
    for fault in FAULTS.values():
        assert oracle.lookup(f"stablehlo.{fault.op}") is not None, fault.name
        assert len(fault.models) > 20, fault.name


def test_unknown_fault_is_one_clear_error():
    with pytest.raises(ValueError, match="unknown fault 'no-such-bug'"):
        get_backend("fault:no-such-bug")


@pytest.mark.parametrize("name", sorted(SAMPLE))
def test_sample_fault_is_reported(name):
    assert _reported(name, [SAMPLE[name]]), f"fault:{name} went unnoticed"


def test_oracle_itself_is_not_reported():
    """The faults' harness adds nothing: with no fault on its op, the faulty backend passes."""
    backend = get_backend("fault:maximum-nan")
    results = run_differential(backend, plan(["minimum", "sqrt"], ["f32"]), max_examples=2, seed=0, progress=False)
    assert results and all(r.status in ("pass", "implementation-defined") for r in results)


@pytest.mark.slow
def test_default_budget_reports_every_fault(capsys):
    missed = [name for name in sorted(FAULTS) if not _reported(name)]
    with capsys.disabled():
        print(f"\nfault injection: {len(FAULTS) - len(missed)}/{len(FAULTS)} faults reported at the default "
              f"budget ({DEFAULT_MAX_EXAMPLES} examples)" + (f"; missed: {', '.join(missed)}" if missed else ""))
    assert not missed
