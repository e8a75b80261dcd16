"""``shlo-conform check``: any StableHLO program -- a user's exported model, a shape-polymorphic
export, a corpus file without goldens -- run differentially on a backend.

A program whose ``@main`` takes arguments gets ``examples`` input sets (or the user's): mild
values first, then the element types' special values, then edge-reaching values
(``INPUT_KINDS``); an argument that feeds an op with a positive domain (log, sqrt, ...) gets
values in that domain.  Dynamic dimensions are refined by StableHLO's own shape refinement
(``oracle.refine``) to the sizes ``dims`` names, or to small sizes drawn per input set (each
set its own sizes, so a polymorphic program is checked at several sizes); the refined static
program is what the backend compiles and the oracle evaluates.

Every input set is judged as a fuzz program is (``conformance.fuzz.check_program``: the one
judge, replay judging, so a mismatch names the first op that deviates; a crash is named after
the op it starts at), which is also what ``shlo-conform repro`` runs on a reproducer: the
verdict of a check and of its replay are the same function's.  Known deviations apply as in
``run`` (the failing op, its element type and the conditions the judge found).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import time
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

import oracle
from judge.results import CaseResult
from judge.explain import explain_failure
from judge.status import Status
from judge.verdict import replay_command
from oracle import ir
from oracle.custom_calls import target_domain
from oracle.errors import MlirError
from oracle.evaluator import TOKEN_VALUE
from oracle.refine import ANY_SIZE, RefinementError, polymorphism, refine
from oracle.rewrite import inline_calls
from oracle.types import TensorType, TokenType
from reports.results import input_preview
from reports.reproducer import write_reproducer
from reports.testdata import write_testdata_reproducer

from . import fuzz
from .corpus import ops_and_dtypes

#: Input sets per program by default: one of each kind of INPUT_KINDS.
DEFAULT_EXAMPLES = 3
#: What input set k holds: INPUT_KINDS[k % 3] (sets past the third draw new values of the same kinds).
INPUT_KINDS = ("mild", "special values", "edge-reaching")
#: The sizes a dimension variable is drawn from (JAX asserts >= 1); each input set takes the next
#: size of a per-variable shuffle, so the sets of a program see different sizes.
DRAWN_SIZES = tuple(range(1, 9))
#: Ops whose result holds its operand's values (moved, repeated, retyped): an argument reaching a
#: positive-domain op through them feeds that op.
VALUE_PRESERVING = frozenset({"stablehlo.convert", "stablehlo.reshape", "stablehlo.broadcast_in_dim",
                              "stablehlo.transpose", "stablehlo.slice", "stablehlo.reverse",
                              "stablehlo.concatenate", "stablehlo.copy"})


@dataclass
class Prepared:
    """One input set of one program, refined and ready to run."""
    id: str
    module: ir.Module
    inputs: list
    file: str = ""
    sizes: dict = field(default_factory=dict)  # dimension variable -> size ({} for a static program)
    values: str = ""                           # which of INPUT_KINDS, or "given"


class ProgramError(ValueError):
    """A program that cannot be checked as given (unreadable, refinement refused, inputs that do
    not fit): one line naming the file and what is wrong."""


# --------------------------------------------------------------------------- the API

def check_program(text: str, backend, *, name: str, examples: int = DEFAULT_EXAMPLES,
                  dims: dict[str, int] | None = None, seed: int = 0, inputs: list | None = None,
                  timeout: float = 60.0, out_dir: str | None = None, filename: str = "") -> list[CaseResult]:
    """One program checked on ``backend`` (an adapters Backend): one CaseResult per input set
    (ids ``"{name}#{k}"``, with the sizes of a polymorphic program), or ONE ``error`` CaseResult
    when the program cannot be read, refined or fed ``inputs`` (never raises for a bad program).
    ``dims``: {dimension variable: size}, the key ``"*"`` for every variable not named; ``inputs``:
    one input set in @main's argument order (dimension arguments may be left out)."""
    prepared = prepare(text, name=name, examples=examples, dims=dims, seed=seed, inputs=inputs, filename=filename)
    if isinstance(prepared, CaseResult):
        return [prepared]
    return [check_prepared(p, backend, timeout=timeout, out_dir=out_dir) for p in prepared]


def check_texts(programs: list, backend, *, examples: int = DEFAULT_EXAMPLES, dims: dict | None = None,
                seed: int = 0, inputs: list | None = None, timeout: float = 60.0, out_dir: str | None = None,
                jobs: int = 1, on_result: Callable[[CaseResult], None] | None = None) -> list[CaseResult]:
    """Several programs checked on ``backend``: each item (name, file, text), or a CaseResult
    already (a file that could not be read: ``unreadable``).  ``jobs`` input sets run at once
    where the backend takes concurrent callers (its worker processes); the results come in
    program order, ``on_result`` called in that order as they end."""
    parallel = jobs > 1 and backend.takes_concurrent_callers
    if parallel:
        backend.set_jobs(jobs)
    executor = ThreadPoolExecutor(jobs, thread_name_prefix="shlo-check") if parallel else None
    results: list[CaseResult] = []
    pending: deque = deque()  # (future or finished (result, verdict), its Prepared), in program order

    def harvest(keep: int) -> None:
        while len(pending) > keep:
            head, p = pending.popleft()
            result, verdict = head.result() if isinstance(head, Future) else head
            if p is not None:
                result = with_reproducer(result, p, verdict, backend.name, out_dir)
            results.append(result)
            if on_result:
                on_result(result)
    try:
        for item in programs:
            # (inputs are drawn in this thread, while the workers run the programs before)
            prepared = item if isinstance(item, CaseResult) else prepare(
                item[2], name=item[0], filename=item[1], examples=examples, dims=dims, seed=seed, inputs=inputs)
            for p in [prepared] if isinstance(prepared, CaseResult) else prepared:
                if isinstance(p, CaseResult):
                    pending.append(((p, None), None))
                elif executor is None:
                    pending.append((judge_prepared(p, backend, timeout=timeout), p))
                else:
                    pending.append((executor.submit(judge_prepared, p, backend, timeout=timeout), p))
                harvest(2 * jobs if executor is not None else 0)
        harvest(0)
    finally:
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)
    return results


def unreadable(name: str, filename: str, why: str) -> CaseResult:
    """The one ``error`` case of a program that could not be read."""
    return CaseResult(id=name, ops=[], dtypes=[], status=Status.ERROR, file=filename, message=why, kind="check")


# --------------------------------------------------------------------------- preparing

def prepare(text: str | None, *, name: str, examples: int = DEFAULT_EXAMPLES, dims: dict | None = None,
            seed: int = 0, inputs: list | None = None, filename: str = "") -> list[Prepared] | CaseResult:
    """The input sets of one program, each with its refined static program; or the one ``error``
    CaseResult saying why the program cannot be checked."""
    where = filename or name
    try:
        if text is None or not text.strip():
            raise ProgramError(f"{where}: empty file (expected a StableHLO program)")
        poly = polymorphism(text, filename=where)
        if inputs is not None:
            return [_given(text, poly, inputs, name=name, filename=filename)]
        out, refined = [], {}  # (each static program is read once: {sizes: its IR})
        for k in range(examples):
            sizes, module = _refined(text, poly, dims, seed, name, k, where, refined)
            out.append(Prepared(_case_id(name, k, sizes), module, [], filename, sizes, INPUT_KINDS[k % 3]))
            if not module.main.arguments and poly is None:
                break  # a program without arguments has one input set
        for k, p in enumerate(out):
            p.inputs = draw_inputs(p.module, p.values, _seed(seed, name, "inputs", k))
        return out
    except (MlirError, RefinementError, ProgramError) as e:
        return unreadable(name, filename, _one_line(str(e), where))
    except Exception as e:  # noqa: BLE001 - the IR reader or a drawing does not know a construct: data
        return unreadable(name, filename, _one_line(f"{type(e).__name__}: {e}", where))


def _parsed(text: str, where: str) -> ir.Module:
    """The oracle's IR of a (static) program as backends get it: calls inlined (what the judge
    attributes ops in; the torch lowering has no func.call) and without the module's name
    (``oracle.print_module`` prints ``module @name`` as ``module attributes {sym_name = ...}``,
    which IREE's parser refuses; every JAX export is named)."""
    module = inline_calls(oracle.parse_module(text, filename=where))
    if "sym_name" not in module.attributes:
        return module
    return dataclasses.replace(module, attributes={k: v for k, v in module.attributes.items() if k != "sym_name"})


def _refined(text, poly, dims, seed, name, k, where, known: dict) -> tuple[dict, ir.Module]:
    """(sizes, the oracle IR of the refined program) of input set ``k``: the sizes ``dims`` names,
    the others drawn; a drawn size the program's shape assertions refuse moves on to the next one.
    ``known``: the programs refined so far, by their sizes."""
    if poly is None:
        if () not in known:
            known[()] = _parsed(text, where)
        return {}, known[()]
    dims = dims or {}
    fixed = {v: dims.get(v, dims.get("*")) for v in poly.variables}
    tries = 1 if all(s is not None for s in fixed.values()) else len(DRAWN_SIZES)
    error = None
    for attempt in range(tries):
        sizes = {v: s if s is not None else _drawn_size(seed, name, v, k + attempt) for v, s in fixed.items()}
        key = tuple(sorted(sizes.items()))
        if key in known:
            return sizes, known[key]
        try:
            shapes = poly.static_shapes(sizes)
            if any(d < 0 for shape in shapes if shape for d in shape):
                raise RefinementError(f"{where}: a dimension is negative at {_sizes_text(sizes)}")
            refined = refine(text, shapes, poly.dimension_values(sizes), filename=where)
        except RefinementError as e:
            error = e
            continue
        known[key] = _parsed(refined, where)
        return sizes, known[key]
    raise RefinementError(f"{error} (sizes {_sizes_text(sizes)})")


def _given(text, poly, inputs, *, name, filename) -> Prepared:
    """The user's input set: the refined program's argument shapes are the arrays' shapes."""
    where = filename or name
    inputs = list(inputs)
    if poly is None:
        module = _parsed(text, where)
        sizes = {}
    else:
        if len(inputs) == poly.dimension_args + len(poly.shapes):  # the dimension arguments given too
            values, inputs = [int(np.asarray(x)) for x in inputs[:poly.dimension_args]], inputs[poly.dimension_args:]
        else:
            values = None
        shapes = [None if s is None else tuple(np.shape(x)) for s, x in zip(poly.shapes, inputs)]
        if len(inputs) != len(poly.shapes):
            raise ProgramError(f"{where}: @main takes {len(poly.shapes)} arguments "
                               f"(besides {poly.dimension_args} dimension argument(s)), --inputs has {len(inputs)}")
        sizes = _sizes_of(poly, shapes)
        refined = refine(text, shapes, values if values is not None else poly.dimension_values(sizes),
                         filename=where)
        module = _parsed(refined, where)
    arguments = module.main.arguments
    if len(inputs) != len(arguments):
        raise ProgramError(f"{where}: @main takes {len(arguments)} arguments, --inputs has {len(inputs)}")
    for k, (a, x) in enumerate(zip(arguments, inputs)):
        if isinstance(a.type, TensorType) and (np.asarray(x).dtype != a.type.dtype
                                               or tuple(np.shape(x)) != tuple(a.type.shape)):
            raise ProgramError(f"{where}: --inputs arg{k} is {np.asarray(x).dtype}{list(np.shape(x))}, "
                               f"@main's argument {k} is {a.type}")
    return Prepared(_case_id(name, 0, sizes), module, inputs, filename, sizes, "given")


def _sizes_of(poly, shapes) -> dict:
    """The dimension variables' sizes that the arrays' shapes show (a dim that is a variable alone)."""
    sizes = {}
    for spec, shape in zip(poly.shapes, shapes):
        for d, n in zip(spec or (), shape or ()):
            if isinstance(d, str) and (d == ANY_SIZE or d.isidentifier()):
                sizes.setdefault(d, n)
    return sizes


def _drawn_size(seed: int, name: str, variable: str, k: int) -> int:
    order = np.random.default_rng(_seed(seed, name, "size", variable)).permutation(DRAWN_SIZES)
    return int(order[k % len(order)])


def _seed(*key) -> int:
    return int.from_bytes(hashlib.sha256(repr(key).encode()).digest()[:4], "little")


def _case_id(name: str, k: int, sizes: dict) -> str:
    return f"{name}#{k}" + (f" {_sizes_text(sizes)}" if sizes else "")


def _sizes_text(sizes: dict) -> str:
    return ",".join(f"{v}={n}" for v, n in sizes.items())


def _one_line(message: str, where: str) -> str:
    """The first line of an error, naming the file (MLIR's diagnostics say "-" for it)."""
    line = message.strip().splitlines()[0] if message.strip() else "unknown error"
    line = line.replace("-:", f"{where}:", 1) if line.startswith("-:") else line
    return line if line.startswith(where) else f"{where}: {line}"


# --------------------------------------------------------------------------- inputs

def positive_arguments(module: ir.Module) -> frozenset[int]:
    """The arguments of @main that feed an op whose record has a positive domain (log, sqrt,
    rsqrt, power, chlo.lgamma, ...), directly or through ops that keep their values
    (VALUE_PRESERVING); calls are inlined first."""
    return _feeding(module, lambda op: getattr(oracle.lookup(op.name), "domain", "") == "positive")


def finite_arguments(module: ir.Module) -> frozenset[int]:
    """The arguments of @main that feed a custom_call whose target takes finite inputs only
    (oracle.custom_calls TARGET_DOMAINS: LAPACK's SVD may never return on inf / NaN)."""
    oracle.lookup("stablehlo.custom_call")  # loads the op families, which register the targets (LAPACK's too)
    return _feeding(module, lambda op: target_domain(op) == "finite")


def _feeding(module: ir.Module, wanted) -> frozenset[int]:
    """The arguments of @main that reach an op ``wanted`` holds for, directly or through VALUE_PRESERVING ops."""
    main = inline_calls(module).main
    producer = {r: op for op in main.ops for r in op.results}
    index = {a: i for i, a in enumerate(main.arguments)}
    out = set()
    for op in main.ops:
        if not wanted(op):
            continue
        for v in op.operands:
            while v in producer and producer[v].name in VALUE_PRESERVING:
                v = producer[v].operands[0]
            if v in index:
                out.add(index[v])
    return frozenset(out)


def draw_inputs(module: ir.Module, kind: str, seed: int) -> list:
    """One input set of ``kind`` (INPUT_KINDS) for @main's arguments."""
    from generators.random_programs import mild_inputs

    positive, finite = positive_arguments(module), finite_arguments(module)
    if kind == "mild":  # (finite already)
        return mild_inputs(module, seed, positive)
    rng = np.random.default_rng(seed)
    out = []
    for i, a in enumerate(module.main.arguments):
        t = a.type
        if isinstance(t, TokenType):
            out.append(TOKEN_VALUE)
        elif not isinstance(t, TensorType):
            raise ProgramError(f"@main's argument {i} is {t}: only tensors and tokens are drawn")
        elif kind == "special values":
            out.append(_special_tensor(t, i in positive, rng, i in finite))
        else:
            out.append(_finite(_edge_tensor(t, i in positive, _seed(seed, i))) if i in finite else
                       _edge_tensor(t, i in positive, _seed(seed, i)))
    return out


def _finite_mask(x: np.ndarray) -> np.ndarray:
    """Where ``x`` is neither inf nor NaN (narrow floats included)."""
    if x.dtype.kind not in "fcV":
        return np.ones(x.shape, bool)
    with np.errstate(invalid="ignore"):
        return np.isfinite(x.astype(np.complex128 if x.dtype.kind == "c" else np.float64))


def _finite(x: np.ndarray) -> np.ndarray:
    """``x`` with its inf / NaN elements replaced by 0."""
    return np.where(_finite_mask(x), x, np.zeros((), x.dtype)).astype(x.dtype)


def _special_tensor(t: TensorType, positive: bool, rng, finite: bool = False) -> np.ndarray:
    """The element type's special values (generators.tensors.special_values) in a random order,
    repeated to fill the shape; only the non-negative ones for a positive-domain argument, only
    the finite ones for a finite-domain one."""
    from generators.tensors import special_values

    et = t.element_type
    if getattr(et, "is_quantized", False):  # storage integers, inside the storage range
        values = np.clip(special_values(et.storage_type).astype(np.int64), et.min, et.max).astype(
            et.storage_type.dtype)
    else:
        values = special_values(et)
        if positive and not et.is_bool:
            with np.errstate(invalid="ignore"):  # (NaN payloads of the narrow types)
                real = np.real(values).astype(np.float64) if et.is_complex else values.astype(np.float64)
            values = values[(real > 0) | ((real == 0) & ~np.signbit(real))]
        if finite:
            values = values[_finite_mask(values)]
    return np.resize(rng.permutation(values), t.shape).astype(values.dtype)


def _edge_tensor(t: TensorType, positive: bool, seed: int) -> np.ndarray:
    """An edge-reaching tensor (generators.tensors.tensors: edge values, ordinary values, random
    bits); magnitudes for a positive-domain argument."""
    from generators.tensors import input_sets

    from generators.cases import random_example

    (x,) = random_example(input_sets([t]), seed)
    if positive and not getattr(t.element_type, "is_quantized", False) and x.dtype.kind != "c":
        x = np.abs(x).astype(x.dtype)
    return x


# --------------------------------------------------------------------------- judging

def check_prepared(p: Prepared, backend, *, timeout: float = 60.0, out_dir: str | None = None) -> CaseResult:
    """One input set on ``backend``, judged (``fuzz.check_program``); a failure writes a reproducer."""
    result, verdict = judge_prepared(p, backend, timeout=timeout)
    return with_reproducer(result, p, verdict, backend.name, out_dir)


def judge_prepared(p: Prepared, backend, *, timeout: float = 60.0) -> tuple[CaseResult, object]:
    """(the CaseResult, the judge's fuzz.Verdict) of one input set; touches no MLIR context, so
    input sets run on several threads while the calling thread reads and refines programs."""
    started = time.perf_counter()
    ops, dtypes = ops_and_dtypes(p.module)
    extra = {"values": p.values} | ({"sizes": dict(p.sizes)} if p.sizes else {})
    try:
        verdict = fuzz.check_program(backend, p.module, p.inputs, timeout=timeout)
    except Exception as e:  # noqa: BLE001 - a harness bug is this case's result, not the end of the run
        verdict = fuzz.Verdict(Status.ERROR, f"harness: {type(e).__name__}: {e}")
    status = Status.ERROR if verdict.status == Status.ERROR_ORACLE else verdict.status
    message = f"oracle: {verdict.message}" if verdict.status == Status.ERROR_ORACLE else verdict.message
    result = CaseResult(id=p.id, ops=ops, dtypes=dtypes, status=status, file=p.file, message=message,
                        extra=extra, kind="check", seconds=round(time.perf_counter() - started, 4))
    if status in fuzz.FINDING_STATUSES:
        _blame(result, backend.name, verdict, p.module)
        result.inputs = input_preview(p.inputs)
    return result, verdict


def with_reproducer(result: CaseResult, p: Prepared, verdict, backend_name: str, out_dir: str | None) -> CaseResult:
    """``result`` with the reproducer folder of a failure written under ``out_dir`` (and the
    testdata form, which goes through MLIR: called from the thread that reads programs)."""
    if not out_dir or result.status not in fuzz.FINDING_STATUSES:
        return result
    program = oracle.print_module(p.module)
    result.reproducer = write_reproducer(out_dir, case_id=p.id, backend=backend_name, status=result.status,
                                         program=program, inputs=p.inputs, expected=verdict.expected,
                                         actual=verdict.actual, message=result.message)
    if verdict.expected is not None:  # the finding in the StableHLO testdata format too
        write_testdata_reproducer(result.reproducer, program, p.inputs, verdict.expected, op=verdict.op)
    where = os.path.relpath(result.reproducer, out_dir)
    result.message = f"{result.message}\n{replay_command(where, backend_name)} (in the run's folder)"
    return result


def _blame(result: CaseResult, backend: str, verdict, module: ir.Module) -> None:
    """A failure's case names the op it is attributed to and that op's element type, or the ops
    and element types under which the judge found the entry that explains it (explain_failure:
    the op itself, else its operand types; a crash, timeout or error, every op with all the
    program's types)."""
    if not verdict.op:
        return
    result.ops, result.dtypes = [verdict.op], [verdict.dtype] if verdict.dtype else []
    if verdict.triggers:
        result.extra["triggers"] = list(verdict.triggers)
    blame = explain_failure(backend, verdict.status, verdict.op, verdict.dtype, verdict.triggers, module)
    if blame.deviation is not None:
        result.ops, result.dtypes = list(blame.ops), list(blame.dtypes)
