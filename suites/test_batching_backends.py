"""Batched compiles on IREE (both targets) and torch-inductor (adapters/batch.py): a batch holding a
case the backend refuses or crashes on names that case -- its own status and message, as alone --
and gives every other case what it gets alone; a batched run gives every case the status an
unbatched run gives it.  Skipped per backend when it is not installed.  About 30 s at 2 cores
(the torch-inductor ones, whose worker warms inductor up for ~25 s, are behind -m slow)."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from adapters import get_backend
from adapters.batch import LeftOut, compile_batch, first_occurrences, in_rounds, may_share_a_module
from adapters.base import Rejected

IREE = ("iree-llvm-cpu", "iree-vmvx")
HAS_IREE = importlib.util.find_spec("iree") is not None and importlib.util.find_spec("iree.runtime") is not None
HAS_TORCH = importlib.util.find_spec("torch") is not None


def unary(op: str, t: str) -> str:
    return f"func.func @main(%a: {t}) -> {t} {{\n  %0 = stablehlo.{op} %a : {t}\n  return %0 : {t}\n}}\n"


def binary(op: str, t: str) -> str:
    return (f"func.func @main(%a: {t}, %b: {t}) -> {t} {{\n  %0 = stablehlo.{op} %a, %b : {t}\n"
            f"  return %0 : {t}\n}}\n")


#: Sorting along dimension -1 (spec sort (C4): -rank <= dimension < rank): IREE refuses it at
#: compile time ("'iree_linalg_ext.sort' op dimension must be within (0, 2]"), torch has no lowering.
SORT_LAST = """func.func @main(%a: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = "stablehlo.sort"(%a) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %c = stablehlo.compare LT, %x, %y : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  }) {dimension = -1 : i64, is_stable = true} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
"""

#: One update scattered at a run-time index: at -1 both IREE targets die of SIGSEGV (spec
#: scatter: an update out of bounds is skipped); at 2 it lands.
SCATTER = """func.func @main(%a: tensor<4xf32>, %i: tensor<1xi32>, %u: tensor<f32>) -> tensor<4xf32> {
  %0 = "stablehlo.scatter"(%a, %i, %u) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    stablehlo.return %y : tensor<f32>
  }) {indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0],
      scatter_dims_to_operand_dims = [0], index_vector_dim = 0>, unique_indices = false}
      : (tensor<4xf32>, tensor<1xi32>, tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""

F32 = np.array([1.5, -2.0, 3.25], np.float32)
ADD, NEGATE = binary("add", "tensor<3xf32>"), unary("negate", "tensor<3xf32>")
QUANTIZED = unary("negate", "tensor<3x!quant.uniform<i8:f32, 0.5>>")  # crosses as its i8 storage


def scatter_inputs(index: int) -> list[np.ndarray]:
    return [np.zeros(4, np.float32), np.array([index], np.int32), np.array(7, np.float32)]


def assert_like_alone(backend, programs, input_sets, batched) -> None:
    """Each batched result is what ``backend.run`` gives the case alone (status, message, bits)."""
    for program, inputs, b in zip(programs, input_sets, batched):
        a = backend.run(program, inputs)
        assert b.status == a.status, (program, b, a)
        if a.status != "crash":  # (a crash message names the worker's pid)
            assert b.message == a.message, program
        if a.ok:
            assert [x.tobytes() for x in b.outputs] == [x.tobytes() for x in a.outputs], program


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    """An empty disk cache and no shipped refusal profile: batches are planned from scratch."""
    import adapters.refusal_profile

    monkeypatch.setenv("SHLO_CONFORM_CACHE", str(tmp_path / "cache"))  # (read by each new worker)
    monkeypatch.setattr(adapters.refusal_profile, "SHIPPED_DIR", str(tmp_path / "no profiles shipped"))


# ------------------------------------------------------------------ IREE

@pytest.mark.skipif(not HAS_IREE, reason="IREE is not installed (pip install -e '.[iree]')")
@pytest.mark.parametrize("name", IREE)
def test_iree_batch_names_its_failing_case_and_shares_one_module(name, fresh_cache):
    programs = [ADD, SORT_LAST, NEGATE, ADD, QUANTIZED]
    input_sets = [[F32, F32], [np.zeros((3, 4), np.float32)], [F32], [F32, -F32], [np.array([1, -2, 3], np.int8)]]
    with get_backend(name) as backend:
        batched = backend.run_batch(programs, input_sets)
        stats = dict(backend.batch_stats)
        # IREE's own iree_linalg_ext.sort fails to verify on the valid dimension -1 (sort C4): a compiler error
        assert [r.status for r in batched] == ["ok", "compiler-error", "ok", "ok", "ok"], batched
        assert "'iree_linalg_ext.sort' op dimension" in batched[1].message
        assert batched[4].outputs[0].tolist() == [-1, 2, -3]  # the negated storage (zero point 0)
        assert batched[0].outputs[0].tolist() == [3.0, -4.0, 6.5]  # hand-computed
        assert batched[2].outputs[0].tolist() == [-1.5, 2.0, -3.25]
        assert batched[3].outputs[0].tolist() == [0.0, 0.0, 0.0]  # the same program, its second input set
        # the compiler named the sort's line: left out and run alone, the rest (the quantized
        # program too) in one module
        assert stats == {"batches": 1, "batched_cases": 4, "failed_batches": 0, "single_runs": 1}, stats
        assert_like_alone(backend, programs, input_sets, batched)
        # a sort alike (same op and types) now runs alone from the start, without a batch compile
        again = backend.run_batch([ADD, SORT_LAST.replace("LT", "GT")], input_sets[:2])
        assert [r.status for r in again] == ["ok", "compiler-error"]
        assert backend.batch_stats["batches"] == 1 and backend.batch_stats["single_runs"] == 3


@pytest.mark.skipif(not HAS_IREE, reason="IREE is not installed (pip install -e '.[iree]')")
@pytest.mark.parametrize("name", IREE)
def test_iree_batch_names_its_crashing_case(name, fresh_cache):
    programs = [ADD, SCATTER, NEGATE, SCATTER]
    input_sets = [[F32, F32], scatter_inputs(-1), [F32], scatter_inputs(2)]
    with get_backend(name) as backend:
        batched = backend.run_batch(programs, input_sets)
        assert [r.status for r in batched] == ["ok", "crash", "ok", "ok"], batched
        assert "SIGSEGV" in batched[1].message
        assert batched[3].outputs[0].tolist() == [0.0, 0.0, 7.0, 0.0]
        assert backend.batch_stats["failed_batches"] == 1  # the batch died; its cases ran alone
        assert_like_alone(backend, programs, input_sets, batched)


@pytest.mark.skipif(not HAS_IREE, reason="IREE is not installed (pip install -e '.[iree]')")
def test_iree_keeps_what_it_refuses_at_once_or_often_out_of_batches():
    from adapters.iree import UNSUPPORTED_TYPES, IreeBackend, _element, _hal_element_type
    from oracle.types import ALL_ELEMENT_TYPES

    for et in ALL_ELEMENT_TYPES:  # the text test agrees with the adapter's boundary check
        crosses = _hal_element_type(_element(f"tensor<2x{et.name}>")) is not None
        assert crosses != bool(UNSUPPORTED_TYPES.search(f"tensor<2x{et.name}>")), et.name
    llvm, vmvx = IreeBackend("iree-llvm-cpu"), IreeBackend("iree-vmvx")
    try:
        for program in (unary("negate", "tensor<3xi4>"), unary("negate", "tensor<f8E4M3>"),
                        unary("negate", "tensor<f8E4M3B11FNUZ>")):
            assert not llvm.batchable(program) and not vmvx.batchable(program), program
        for program in (unary("negate", "tensor<3xf16>"), unary("negate", "tensor<3xcomplex<f32>>")):
            assert llvm.batchable(program) and not vmvx.batchable(program), program
        for program in (unary("negate", "tensor<3xf8E4M3FN>"), unary("negate", "tensor<3x!quant.uniform<i8:f32, 0.5>>")):
            assert llvm.batchable(program) and vmvx.batchable(program), program
    finally:
        llvm.close()
        vmvx.close()


# ------------------------------------------------------------------ torch-inductor

if HAS_TORCH:
    from adapters.torch_backend import TorchBackend

    class InductorBatchingEverything(TorchBackend):
        """torch-inductor batching even the programs it keeps alone (INDUCTOR_ALONE): a refusal
        by inductor's compiler and a SIGFPE then happen inside a batch."""

        def batchable(self, program: str) -> bool:
            return may_share_a_module(program)


SELECT_UI16 = """func.func @main(%p: tensor<3xi1>, %a: tensor<3xui16>, %b: tensor<3xui16>) -> tensor<3xui16> {
  %0 = stablehlo.select %p, %a, %b : tensor<3xi1>, tensor<3xui16>
  return %0 : tensor<3xui16>
}
"""


@pytest.mark.slow
@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed (pip install -e '.[torch]')")
def test_inductor_batch_names_its_refused_and_crashing_cases(fresh_cache):
    i32 = np.array([7, -9, 4], np.int32)
    programs = [ADD, SORT_LAST, SELECT_UI16, NEGATE, binary("divide", "tensor<3xi32>"), ADD]
    input_sets = [[F32, F32], [np.zeros((3, 4), np.float32)],
                  [np.array([True, False, True]), np.arange(3, dtype=np.uint16), np.full(3, 9, np.uint16)],
                  [F32], [i32, np.array([2, 0, 3], np.int32)], [F32, -F32]]
    with InductorBatchingEverything("torch-inductor") as backend:
        assert backend.batch_size > 1
        batched = backend.run_batch(programs, input_sets)
        statuses = [r.status for r in batched]
        assert statuses[:2] == ["ok", "rejected"] and statuses[3:] == ["ok", "crash", "ok"], batched
        assert "stablehlo.sort has no torch lowering" in batched[1].message
        assert "SIGFPE" in batched[4].message  # a trap on the spec's error x / 0: implementation-defined when judged
        assert batched[0].outputs[0].tolist() == [3.0, -4.0, 6.5] and batched[5].outputs[0].tolist() == [0, 0, 0]
        assert_like_alone(backend, programs, input_sets, batched)


@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is not installed (pip install -e '.[torch]')")
def test_inductor_keeps_integer_division_and_what_it_often_refuses_alone():
    inductor = get_backend("torch-inductor")
    try:
        assert not get_backend("torch-eager").batch_size  # eager compiles nothing
        assert inductor.batchable(binary("divide", "tensor<3xf32>"))
        for program in (binary("divide", "tensor<3xi32>"), binary("remainder", "tensor<2x3xui8>"), SELECT_UI16,
                        unary("negate", "tensor<3xf8E5M2>")):
            assert not inductor.batchable(program), program
    finally:
        inductor.close()


# ------------------------------------------------------------------ a batched run == an unbatched one

def _statuses(name: str, pairs, *, batch: bool, out_dir) -> dict[str, str]:
    from conformance.run import run_differential

    with get_backend(name) as backend:
        results = run_differential(backend, pairs, max_examples=1, seed=0, out_dir=str(out_dir), progress=False,
                                   batch=batch, jobs=2)
    return {r.id: r.status for r in results}


def _same_statuses(name, ops, dtypes, tmp_path) -> None:
    from conformance.run import plan

    pairs = plan(ops, dtypes)
    batched = _statuses(name, pairs, batch=True, out_dir=tmp_path / "batched")
    alone = _statuses(name, pairs, batch=False, out_dir=tmp_path / "alone")
    assert batched.keys() == alone.keys()
    assert {k: (batched[k], alone[k]) for k in batched if batched[k] != alone[k]} == {}
    assert len(set(batched.values())) > 1 or len(batched) > 10, batched  # not a trivial sample


@pytest.mark.skipif(not HAS_IREE, reason="IREE is not installed (pip install -e '.[iree]')")
@pytest.mark.parametrize("name", IREE)
def test_iree_batched_run_gives_the_statuses_of_an_unbatched_one(name, tmp_path, fresh_cache):
    _same_statuses(name, ["add", "sort"], ["f32", "f16"], tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("name", IREE + ("torch-inductor",))
def test_batched_run_gives_the_statuses_of_an_unbatched_one_wider(name, tmp_path, fresh_cache):
    if not (HAS_TORCH if name.startswith("torch") else HAS_IREE):
        pytest.skip(f"{name} is not installed")
    _same_statuses(name, ["add", "select", "reduce", "convert", "dot_general", "gather", "divide", "exponential"],
                   ["f32", "i8", "bf16", "ui16", "i1", "complex<f32>", "f8E4M3FN", "i32", "q.i8"], tmp_path)


# ------------------------------------------------------------------ the shared machinery (adapters/batch.py)

def test_compile_batch_leaves_out_what_the_compiler_names():
    texts = {0: ADD, 1: NEGATE, 2: SORT_LAST, 3: "func.func @main( not a program"}
    seen = []

    def compile_module(text):  # refuses any module holding the sort, naming its line as IREE does
        seen.append(text)
        if "stablehlo.sort" in text:
            line = text.splitlines().index(next(ln for ln in text.splitlines() if "stablehlo.sort" in ln)) + 1
            raise Rejected(f"<stdin>:{line}:8: error: 'iree_linalg_ext.sort' op dimension must be within (0, 2]")
        return "compiled"

    batch = compile_batch(texts, compile_module, one_main=False)
    assert batch.compiled == "compiled" and len(seen) == 2
    assert batch.left_out == {2: LeftOut("alone"), 3: LeftOut("alone")}  # named; does not parse
    assert {k: name for k, (name, _) in batch.entries.items()} == {0: "c0_main", 1: "c1_main"}
    assert batch.entries[0][1] == (["tensor<3xf32>", "tensor<3xf32>"], ["tensor<3xf32>"])
    assert 'sym_name = "c1_main", sym_visibility = "public"' in seen[-1] and "@main" not in seen[-1]
    # a compiler that stops at its first error: the programs alike the one it names go with it
    alike = {0: ADD, 1: SORT_LAST, 2: SORT_LAST.replace("LT", "GT"), 3: NEGATE}
    seen.clear()
    batch = compile_batch(alike, compile_module, one_main=False)
    assert len(seen) == 2 and set(batch.left_out) == {1, 2} and set(batch.entries) == {0, 3}
    with pytest.raises(Rejected):  # a message that names no program fails the batch
        compile_batch({0: ADD}, lambda text: (_ for _ in ()).throw(Rejected("failed to legalize 'arith.addf'")))


def test_in_rounds_runs_a_repeated_program_once_per_input_set():
    same_as = first_occurrences(["p", "q", "p", "r", "p"])
    assert same_as == [0, 1, 0, 3, 0]
    calls = []

    def run_once(chosen):
        calls.append(chosen)
        return [("ok", "", [k]) for k in chosen]

    answers = in_rounds(same_as, [0, 1], run_once)  # program 3 ("r") was left out
    assert calls == [[0, 1], [2, 1], [4, 1]]  # "q" repeats its first input set, unread
    assert answers == [("ok", "", [0]), ("ok", "", [1]), ("ok", "", [2]), None, ("ok", "", [4])]


def test_likeness_forgets_shapes_quantization_parameters_and_the_f8_variant():
    from adapters.batch import likeness

    assert likeness(unary("ceil", "tensor<3x4xf8E5M2>")) == likeness(unary("ceil", "tensor<f8E4M3FN>"))
    assert likeness(unary("negate", "tensor<3x!quant.uniform<i8:f32, 0.5:-3>>")) == \
        likeness(unary("negate", "tensor<!quant.uniform<i8:f32, 2.0>>"))
    different = [unary("ceil", "tensor<3xf32>"), unary("ceil", "tensor<3xf64>"), unary("floor", "tensor<3xf32>"),
                 unary("ceil", "tensor<3xbf16>"), unary("negate", "tensor<3x!quant.uniform<i16:f32, 0.5>>")]
    assert len({likeness(p) for p in different}) == len(different)
