"""A backend that declares it flushes subnormals decides on flushed values too: its comparisons
(compare, sort comparators, top_k, while conditions, clamp bounds) read a subnormal operand as
zero, while the values it moves stay exact.  The judge accepts that reading -- the oracle
evaluated with ``Context.flushed_decisions`` -- as an alternative and says so in the verdict;
a backend that breaks the sort is still caught.  The programs are suites/data/flushed_decisions/."""

from __future__ import annotations

import glob
import os

import numpy as np
import pytest

import oracle
from adapters.faults import FaultyBackend
from judge.verdict import FLUSHED_DECISIONS, FLUSHED_VALUES, Traits, judge_program
from oracle.evaluator import Context

DATA = os.path.join(os.path.dirname(__file__), "data", "flushed_decisions")
PROGRAMS = sorted(glob.glob(os.path.join(DATA, "*.mlir")))
#: f32 data with subnormals of both signs beside zeros of both signs and a tie of 1.0:
#: 1e-45, -0, 2.9e-39, 1, +0, -1.47e-39, 1, 5.9e-39
DATA_BITS = (0x00000001, 0x80000000, 0x00200000, 0x3F800000, 0x00000000, 0x80100000, 0x3F800000, 0x00400000)
KEYS = np.array(DATA_BITS, np.uint32).view(np.float32)
FLUSHING = Traits(flushes_subnormals=True, backend="a flushing backend")


def _module(name: str):
    with open(os.path.join(DATA, f"{name}.mlir"), encoding="utf-8") as f:
        return oracle.parse_module(f.read())


def _flushed_decisions_run(module, inputs) -> list:
    """What a backend whose comparisons read subnormals as zero returns (the oracle in that mode)."""
    return oracle.evaluate(module, inputs, context=Context(module, flushed_decisions=True))


def test_the_program_set_holds_each_kind_of_decision():
    assert [os.path.basename(p) for p in PROGRAMS] == [
        "argsort_f32.mlir", "clamp_f32.mlir", "select_f32.mlir", "sort_f32.mlir", "top_k_f32.mlir",
        "while_f32.mlir"]


def test_decisions_on_flushed_values_by_hand():
    # select(x > 0, x, -7): 1e-45 > 0 is true exactly, false once read as zero
    exact = oracle.evaluate(_module("select_f32"), [KEYS])[0]
    flushed = _flushed_decisions_run(_module("select_f32"), [KEYS])[0]
    assert exact[0] == KEYS[0] and flushed[0] == -7.0
    assert exact[2] == KEYS[2] and flushed[2] == -7.0 and flushed[3] == exact[3] == 1.0
    # the loop runs while the first element (1e-45) is positive: 3 iterations exactly, none flushed
    assert int(oracle.evaluate(_module("while_f32"), [KEYS])[0]) == 3
    assert int(_flushed_decisions_run(_module("while_f32"), [KEYS])[0]) == 0
    # top 4: 1 (3), 1 (6), 5.9e-39 (7), 2.9e-39 (2) exactly; flushed, the positive subnormals read
    # as +0, which TOTALORDER puts before -0, and equal keys keep the lower index: 1 (3), 1 (6),
    # then 1e-45 (0) and 2.9e-39 (2), kept exact
    values, indices = _flushed_decisions_run(_module("top_k_f32"), [KEYS])
    assert list(indices) == [3, 6, 0, 2] and values[2] == KEYS[0]
    assert list(oracle.evaluate(_module("top_k_f32"), [KEYS])[1]) == [3, 6, 7, 2]
    # JAX's argsort: every subnormal becomes the +0 key, so the tie keeps the input order
    order, _ = _flushed_decisions_run(_module("argsort_f32"), [KEYS])
    assert list(order) == [0, 1, 2, 4, 5, 7, 3, 6]
    assert list(oracle.evaluate(_module("argsort_f32"), [KEYS])[0]) == [5, 1, 4, 0, 2, 7, 3, 6]


@pytest.mark.parametrize("path", PROGRAMS, ids=os.path.basename)
def test_a_backend_deciding_on_flushed_values_passes_only_where_it_declares_flushing(path):
    module = oracle.parse_module(open(path, encoding="utf-8").read())
    actual = _flushed_decisions_run(module, [KEYS])
    changed = any(not np.array_equal(a, e, equal_nan=True) or a.tobytes() != np.asarray(e).tobytes()
                  for a, e in zip(actual, oracle.evaluate(module, [KEYS])))
    def rerun(text):  # the replay (every top-level value returned), on the same backend
        return _flushed_decisions_run(oracle.parse_module(text), [KEYS])
    declared = judge_program(module, [KEYS], actual, traits=FLUSHING, rerun=rerun)
    assert declared.status in ("pass", "implementation-defined"), declared.message
    if changed:  # the reading is named, and a backend that declares nothing is caught
        # (an op whose decisions read its own operands -- select's compare, the while -- passes on the
        # flushed operands already; a sort, top_k or clamp moves exact values: the decision-flushed reading)
        named = FLUSHED_DECISIONS if os.path.basename(path).startswith(("argsort", "sort", "top_k")) \
            else (FLUSHED_VALUES, FLUSHED_DECISIONS)
        assert any(note.endswith(named) for note in declared.notes)
        assert declared.message and declared.message in "\n".join(declared.notes)
        assert judge_program(module, [KEYS], actual, rerun=rerun).status == "mismatch"


def test_a_sort_broken_on_a_flushing_backend_is_still_caught():
    backend = FaultyBackend("sort-unstable")
    backend.flushes_subnormals = True  # the judge's alternative readings must not hide the fault
    for name in ("argsort_f32", "sort_f32"):
        module = _module(name)
        run = backend.run(oracle.print_module(module), [KEYS])
        verdict = judge_program(module, [KEYS], run.outputs, traits=Traits.of(backend))
        assert verdict.status == "mismatch" and verdict.op == "stablehlo.sort", (name, verdict.message)


def test_the_program_set_passes_on_xla_with_the_verdict_naming_the_flushing():
    pytest.importorskip("jax")
    from adapters.registry import get_backend

    backend = get_backend("xla")
    try:
        verdicts = {}
        for path in PROGRAMS:
            text = open(path, encoding="utf-8").read()
            run = backend.run(text, [KEYS])
            assert run.ok, run.message

            def rerun(program):
                again = backend.run(program, [KEYS])
                return again.outputs if again.ok else None
            verdicts[os.path.basename(path)] = judge_program(oracle.parse_module(text), [KEYS], run.outputs,
                                                             traits=Traits.of(backend), rerun=rerun)
    finally:
        backend.close()
    assert all(v.status in ("pass", "implementation-defined") for v in verdicts.values()), \
        {k: v.message for k, v in verdicts.items()}
    # XLA CPU reads the subnormal key as zero in the argsort comparator's EQ (the -0 -> +0 step)
    assert FLUSHED_DECISIONS in verdicts["argsort_f32.mlir"].message
