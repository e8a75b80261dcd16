"""``shlo-conform exhaustive``: element-wise ops over EVERY value of the small float types.

Every unary element-wise op runs once over every bit pattern of f16, bf16 and each f8 / f6 /
f4 type (one tensor of 2^bits elements); every binary element-wise op over every pair of
values of each float type of 8 bits or fewer (one tensor of 2^(2 bits) elements).  In the
spirit of XLA's exhaustive tests, failures are grouped into contiguous ranges of inputs.

Judging is the suite's one judge (``judge.verdict.op_comparison``): the op's tolerance row, its
error bound and the implementation-defined masks of oracle/impl_defined.py, exactly as for a
one-op case; its comparison says which elements fail, and those are grouped into ranges.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field

import numpy as np

import oracle
from generators.programs import ELEMENTWISE_FAMILIES, special_value_cases
from generators.ops import samplers_of
from adapters.base import RunStatus
from judge.results import CaseResult
from judge.explain import explain_case
from judge.status import Status
from judge.verdict import Traits, op_comparison
from oracle.errors import OracleError, Unsupported
from oracle.types import element_type

from .run import wanted_ops
from generators.cases import collect_examples

#: Float types every unary op is run on exhaustively (those the op takes).
UNARY_TYPES = ("f16", "bf16", "f8E3M4", "f8E4M3", "f8E4M3FN", "f8E4M3FNUZ", "f8E4M3B11FNUZ", "f8E5M2",
               "f8E5M2FNUZ", "f8E8M0FNU", "f6E2M3FN", "f6E3M2FN", "f4E2M1FN")
#: Binary ops: every pair of values of float types this narrow.
BINARY_MAX_BITS = 8


@dataclass
class Finding:
    """A contiguous range of failing inputs (indices into the exhaustive tensor)."""
    first: int
    last: int
    count: int
    example: dict = field(default_factory=dict)  # inputs, expected, actual of the first failing element


@dataclass
class Sweep:
    op: str
    dtype: str
    values: int = 0
    status: Status = Status.PASS   # a case status, or SKIPPED
    message: str = ""
    mismatches: int = 0
    oracle_seconds: float = 0.0
    backend_seconds: float = 0.0
    element_types: list = field(default_factory=list)
    known_deviation: str = ""  # the reason of the judge/deviations/ entry that explains the findings
    findings: list = field(default_factory=list)


def every_value(et) -> np.ndarray:
    """Every bit pattern of ``et`` (2^bits elements) as values of the type."""
    et = element_type(str(et))
    bits = np.arange(1 << et.bits, dtype=np.uint64).astype(et.storage_dtype)
    return bits.view(et.dtype)


def every_value_cross(element_types) -> list | None:
    """Unary: every value; binary: every pair (only for types of BINARY_MAX_BITS bits or fewer)."""
    if len(element_types) == 1:
        return [every_value(element_types[0])]
    if len(element_types) == 2 and all(element_type(str(t)).bits <= BINARY_MAX_BITS for t in element_types):
        a, b = (every_value(t) for t in element_types)
        i, j = np.meshgrid(np.arange(a.size), np.arange(b.size), indexing="ij")
        return [a[i.ravel()], b[j.ravel()]]
    return None


def plan_exhaustive(ops=None, dtypes=None) -> list[tuple]:
    """(OpInfo, type name) for every element-wise op x small float type it takes."""
    wanted = wanted_ops(ops)
    registry = oracle.all_ops()
    pairs = []
    for name in sorted(registry):
        info = registry[name]
        if info.family not in ELEMENTWISE_FAMILIES or samplers_of(info).draw_signature is None or name == "stablehlo.convert":
            continue
        if wanted is not None and name not in wanted:
            continue
        for t in UNARY_TYPES:
            if t in info.element_types and (dtypes is None or t in dtypes):
                pairs.append((info, t))
    return pairs


def _case(info, type_name: str, seed: int):
    drawn = [c for c in collect_examples(special_value_cases(info, element_type(type_name), values=every_value_cross),
                                 4, seed) if c is not None]
    return drawn[0] if drawn else None


def _runs(indices: np.ndarray) -> list[tuple[int, int]]:
    if indices.size == 0:
        return []
    breaks = np.nonzero(np.diff(indices) != 1)[0]
    starts = np.concatenate([[0], breaks + 1])
    ends = np.concatenate([breaks, [indices.size - 1]])
    return [(int(indices[s]), int(indices[e])) for s, e in zip(starts, ends)]


def _bits_text(x) -> str:
    x = np.asarray(x)
    return f"{x[()]!s} (0x{int(x.reshape(1).view(f'u{x.dtype.itemsize}')[0]):0{2 * x.dtype.itemsize}x})"


def sweep(info, type_name: str, backend, *, seed: int = 0, timeout: float = 300.0) -> Sweep:
    """One op over every value (pair) of one type on ``backend``, judged against the oracle."""
    result = Sweep(info.mnemonic, type_name)
    case = _case(info, type_name, seed)
    if case is None:
        result.status, result.message = Status.SKIPPED, "no element-wise signature of this type"
        return result
    op = case.module.main.ops[0]
    result.values = int(case.inputs[0].size)
    result.element_types = list(case.element_types)
    started = time.perf_counter()
    context = oracle.Context(case.module, impl_defined={})
    try:
        expected = oracle.evaluate(case.module, case.inputs, context=context)
    except Unsupported as e:
        result.status, result.message = Status.UNSUPPORTED, str(e)
        return result
    except OracleError as e:
        result.status, result.message = Status.ERROR, f"oracle: {e}"
        return result
    result.oracle_seconds = round(time.perf_counter() - started, 3)
    started = time.perf_counter()
    run = backend.run(case.program, case.inputs, timeout=timeout)
    result.backend_seconds = round(time.perf_counter() - started, 3)
    if run.status != RunStatus.OK:
        result.status, result.message = Status(run.status), run.message
        return result
    recorded = context.impl_defined.get(op.results[0])
    # The judge every path uses: the op's tolerance row, masks, bound, and the flushed reading
    # for a backend that flushes subnormals.
    whole = op_comparison(op, case.inputs, run.outputs, module=case.module, traits=Traits.of(backend),
                          expected=expected, masks=[recorded])
    if whole.status != Status.MISMATCH:
        result.status = whole.status
        return result
    failing = whole.per_output[0].failing if whole.per_output else whole.failing
    if failing is None:  # shapes or dtypes differ
        result.status, result.message, result.mismatches = Status.MISMATCH, whole.message, result.values
        return result
    expected_out, actual = np.asarray(expected[0]), np.asarray(run.outputs[0])
    bad = np.flatnonzero(np.asarray(failing).ravel())
    result.status, result.mismatches = Status.MISMATCH, int(bad.size)
    for first, last in _runs(bad):
        example = {f"input{k}": _bits_text(x[first]) for k, x in enumerate(case.inputs)}
        example.update(expected=_bits_text(expected_out[first]), actual=_bits_text(actual[first]))
        if len(case.inputs) == 1:
            example["range"] = f"{_bits_text(case.inputs[0][first])} .. {_bits_text(case.inputs[0][last])}"
        result.findings.append(Finding(first, last, int(((bad >= first) & (bad <= last)).sum()), example))
    return result


def run_exhaustive(backend, pairs, *, seed: int = 0, out_dir: str | None = None, stream=None,
                   timeout: float = 300.0) -> list[Sweep]:
    import sys
    stream = stream or sys.stdout
    sweeps = []
    for info, type_name in pairs:
        try:
            s = sweep(info, type_name, backend, seed=seed, timeout=timeout)
        except Exception as e:  # a harness bug is a result too
            s = Sweep(info.mnemonic, type_name, status=Status.ERROR, message=f"harness: {type(e).__name__}: {e}")
        if s.status == Status.SKIPPED:  # e.g. a binary op on a 16-bit type: 2^32 pairs are not swept
            continue
        if s.status not in (Status.PASS, Status.IMPLEMENTATION_DEFINED):
            known = explain_case(backend.name, CaseResult(id=f"{s.op}-{s.dtype}", ops=[f"stablehlo.{s.op}"],
                                                          dtypes=s.element_types or [s.dtype], status=s.status))
            s.known_deviation = known.get("reason", "")
        sweeps.append(s)
        ranges = len(s.findings)
        print(f"{s.op:24s} {s.dtype:14s} {s.values:7d} values  {s.status:12s} "
              f"{s.mismatches:6d} wrong in {ranges:4d} ranges  oracle {s.oracle_seconds:.2f}s "
              f"backend {s.backend_seconds:.2f}s" + (f"  {s.message[:80]}" if s.message else "")
              + ("  [known deviation]" if s.known_deviation else ""), file=stream, flush=True)
        for f in s.findings[:3]:
            print(f"    [{f.first}..{f.last}] {f.count} wrong, e.g. {f.example}", file=stream)
    if out_dir:
        os.makedirs(out_dir, exist_ok=True)
        with open(os.path.join(out_dir, "exhaustive.json"), "w") as fh:
            json.dump({"backend": backend.name, "sweeps": [asdict(s) for s in sweeps]}, fh, indent=1)
    return sweeps
