"""Many one-op programs compiled as ONE module (runs inside a worker; jaxlib imported lazily).

A compile costs a fixed overhead (XLA CPU: pass pipeline and LLVM JIT session; IREE: an
``iree-compile`` process and its pipeline; inductor: dynamo, AOT autograd and a C++ compile)
that dwarfs the work for one small op, so a conformance run compiles its cases in batches.
For the compilers that take MLIR text, each program's functions are renamed apart
(``@c3_main``, ``@c3_body`` ...) and made private, and either a new ``@main`` takes every
program's arguments in order, calls each program's @main and returns every result in order
(XLA CPU: one entry computation per executable), or each ``@c<k>_main`` stays public and is
called on its own (IREE: one function per program, so a program that fails at run time
fails alone).  The calls share no value, so the compiler compiles independent computations
side by side (measured on 2 cores, jax 0.10: one @main with independent outputs compiles a
32-case batch in about half the time of 32 compiles; IREE 3.13: a third of the CPU time).

Isolation stays exact because the caller (adapters/worker.py) only ever keeps a batch's
results when the whole batch compiled and ran; otherwise every case runs on its own.  A
program the compiler's message names (by line or by symbol) is left out of the module and
run alone, where the compiler has its say about it.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from .base import Rejected, find_main, mlir_context, parse_mlir


# ------------------------------------------------------------------ which programs may share a module

#: Words in a program's text that keep it out of a batch: a process grid, side effects (a
#: custom call that has them) or tokens (their order and pairing would be shared), rng (one
#: state shared), collectives.  A custom call without side effects (JAX's LAPACK calls, a
#: Sharding annotation) shares a module as any op does: one a compiler refuses is named by
#: its line and left out, as any refused op is (``compile_batch``).
UNBATCHABLE_WORDS = ("mhlo.num_", "token", "has_side_effect = true", "stablehlo.rng", "infeed", "outfeed", "stablehlo.send",
                     "stablehlo.recv", "partition_id", "replica_id", "stablehlo.all_", "collective",
                     "reduce_scatter")
#: Module attributes that say what a shared module says anyway: one process (JAX exports carry
#: them).  Any other module attribute keeps a program out of a batch (``combine_mains``).
ONE_PROCESS = re.compile(r"mhlo\.num_(?:partitions|replicas) = 1 : i32")
#: Dynamic shapes and the dynamic ops compilers cannot translate alone either (dynamic_slice and
#: dynamic_update_slice have static shapes and batch well): they would only fail their batch.
DYNAMIC = re.compile(r"[<x]\?|dynamic_(?!slice|update_slice)")


#: The ops and the tensor types a program's text names, and what of a type ``likeness`` forgets:
#: its shape, a quantized type's scale and zero point, which of the f8 types it is.
_OP_NAME = re.compile(r"\b(?:stablehlo|chlo)\.\w+")
_TENSOR_TYPE = re.compile(r"tensor<[^<>]*(?:<[^<>]*(?:<[^<>]*>[^<>]*)*>[^<>]*)*>")
_FORGOTTEN = re.compile(r"(?<=[<x])(?:\d+|\?)x|(?<=[<x]f8)E\w+|(?:(?<=:f\d\d)|(?<=:bf16))(?::\d+)?, [^>]*")


def likeness(program: str) -> frozenset:
    """What a program is made of, by its text: its ops and its tensors' element types, the
    shapes, quantization parameters and f8 variants left out (tensor<3x4xf8E5M2> and
    tensor<f8E4M3FN> alike).  A compiler that refused one program refuses most programs alike
    (IREE: batch_norm_grad on every type, complex cbrt, ceil on f8 types, ...), so they are kept
    out of batches together (``compile_batch``, WorkerBackend.run_batch)."""
    return frozenset(_OP_NAME.findall(program)) | frozenset(
        _FORGOTTEN.sub("", t) for t in _TENSOR_TYPE.findall(program))


def may_share_a_module(program: str) -> bool:
    """Whether a program can be compiled in one module with others (by its text, before any
    parsing): none of ``UNBATCHABLE_WORDS``, no dynamic shape.  Backends add their own
    exclusions (element types they refuse, programs their compiler is known to abort on)."""
    program = ONE_PROCESS.sub("", program)
    return not (any(word in program for word in UNBATCHABLE_WORDS) or DYNAMIC.search(program))


# ------------------------------------------------------------------ one module of many programs

def entry_name(k: int) -> str:
    """The name program #k's @main has in a combined module."""
    return f"c{k}_main"


def _symbol_names(module) -> list[str]:
    from jaxlib.mlir import ir

    return [ir.StringAttr(op.operation.attributes["sym_name"]).value
            for op in module.body.operations if "sym_name" in op.operation.attributes]


def _shareable(attribute) -> bool:
    """A module attribute a shared module may drop: its name, or one process (``ONE_PROCESS``)."""
    return attribute.name == "sym_name" or bool(ONE_PROCESS.fullmatch(f"{attribute.name} = {attribute.attr}"))


def _keeps_own_module(module) -> bool:
    """Whether a parsed program carries module attributes a shared module could not keep."""
    attributes = module.operation.attributes
    return any(not _shareable(attributes[i]) for i in range(len(attributes)))


def combine_mains(programs: list[str], *, one_main: bool = True
                  ) -> tuple[str, list[tuple[list[str], list[str]]], list[int]]:
    """One module holding every program, its functions renamed apart (``@c<k>_...``).

    ``one_main``: a new public @main runs every program's @main (``@c<k>_main``, private) on
    its own arguments; else each ``@c<k>_main`` stays public (``entry_name(k)``) and there is
    no @main.  Returns the module text, each program's (argument types, result types) as MLIR
    type text, in order (the combined @main's arguments and results are these lists
    concatenated), and the line of the text where each program's functions start (to tell
    from a compiler message which program it is about: ``programs_named``).  Raises Rejected
    when a program does not parse or carries module attributes (a process grid, for example)
    that a shared module could not keep."""
    from jaxlib.mlir import ir

    functions, calls, arguments, results, signatures, first_lines = [], [], [], [], [], []
    line = 2  # "module {" is line 1
    with mlir_context(), ir.Location.unknown():
        for k, text in enumerate(programs):
            module = parse_mlir(text)
            if _keeps_own_module(module):
                raise Rejected(f"program #{k} has module attributes; it cannot share a module")
            for name in _symbol_names(module):
                ir.SymbolTable.replace_all_symbol_uses(name, f"c{k}_{name}", module.operation)
            main = find_main(module)
            function_type = ir.FunctionType(ir.TypeAttr(main.attributes["function_type"]).value)
            arg_types = [str(t) for t in function_type.inputs]
            result_types = [str(t) for t in function_type.results]
            first_lines.append(line)
            for op in module.body.operations:
                op = op.operation
                if "sym_name" in op.attributes:
                    name = f"c{k}_{ir.StringAttr(op.attributes['sym_name']).value}"
                    ir.SymbolTable.set_symbol_name(op, name)
                    public = not one_main and name == entry_name(k)
                    op.attributes["sym_visibility"] = ir.StringAttr.get("public" if public else "private")
                functions.append(op.get_asm(print_generic_op_form=True, assume_verified=True).rstrip("\n"))
                line += functions[-1].count("\n") + 1
            args = [f"%a{len(arguments) + i}" for i in range(len(arg_types))]
            arguments += arg_types
            call = (f"func.call @{entry_name(k)}({', '.join(args)}) : "
                    f"({', '.join(arg_types)}) -> ({', '.join(result_types)})")
            if result_types:
                calls.append(f"  %r{k}:{len(result_types)} = {call}")
                results += [(f"%r{k}#{i}", t) for i, t in enumerate(result_types)]
            else:
                calls.append(f"  {call}")
            signatures.append((arg_types, result_types))
    if not one_main:
        return "module {\n" + "\n".join(functions) + "\n}\n", signatures, first_lines
    params = ", ".join(f"%a{i}: {t}" for i, t in enumerate(arguments))
    returned = (f"  func.return {', '.join(v for v, _ in results)} : {', '.join(t for _, t in results)}"
                if results else "  func.return")
    main = (f"func.func public @main({params}) -> ({', '.join(t for _, t in results)}) {{\n"
            + "\n".join(calls + [returned]) + "\n}")
    return "module {\n" + "\n".join(functions + [main]) + "\n}\n", signatures, first_lines


#: How compiler messages name a line of the module text: HLO metadata, an MLIR location, a
#: plain "-:LINE:COLUMN:" or "<stdin>:LINE:COLUMN:" diagnostic.
_LINE = re.compile(r'source_line=(\d+)|loc\("-":(\d+):|(?<![\w.])-:(\d+):\d+|<stdin>:(\d+):\d+')
#: ... and a program's own symbols (a dispatch or kernel named after its function: c3_main_dispatch_0).
_SYMBOL = re.compile(r"(?<![\w.])c(\d+)_\w")


def programs_named(message: str, first_lines: list[int]) -> set[int]:
    """Which programs (indices) a compiler message about the combined module points at: by the
    lines it names, or by their renamed symbols (``@c<k>_...``)."""
    named = set()
    for found in _LINE.finditer(message):
        index = bisect.bisect_right(first_lines, int(next(g for g in found.groups() if g))) - 1
        if index >= 0:
            named.add(index)
    named.update(k for k in map(int, _SYMBOL.findall(message)) if k < len(first_lines))
    return named


# ------------------------------------------------------------------ compiling a batch

@dataclass
class LeftOut:
    """A program that does not take part in the shared module: ``"alone"`` (the caller runs it
    on its own: it does not parse, or the compiler named it) or ``"rejected"`` with the very
    message it gets alone."""
    status: str
    message: str = ""

    def answer(self) -> tuple[str, str, list]:
        return self.status, self.message, []


def first_occurrences(programs: list[str]) -> list[int]:
    """For each program, the index of its first occurrence: a program that comes back (another
    input set) is compiled once."""
    first: dict[str, int] = {}
    return [first.setdefault(p, k) for k, p in enumerate(programs)]


@dataclass
class CompiledBatch:
    """What ``compile_batch`` gives: the compiled module and, per program that is in it (its
    index in the batch), its entry point's name and (argument types, result types); the
    programs left out."""
    compiled: object
    entries: dict[int, tuple[str, tuple[list[str], list[str]]]]
    left_out: dict[int, LeftOut]


def compile_batch(texts: dict[int, str], compile_module, *, one_main: bool = True,
                  left_out: dict[int, LeftOut] | None = None, attempts: int = 5) -> CompiledBatch:
    """Compile the programs ``texts`` (index -> MLIR text) as one module (``combine_mains``)
    with ``compile_module(text)``, which raises Rejected with the compiler's message.  A
    program that does not parse alone or carries module attributes a shared module could not
    keep (``combine_mains``; a JAX export's name and one-process attributes it can) is left
    out ("alone"); the programs the compiler's message names (``programs_named``), and those made alike
    (``likeness``: a compiler stopping at its first error would name them one compile at a
    time), are left out and the rest compiled again, up to ``attempts`` compiles; then, or when
    the message names none, the Rejected goes to the caller (the batch fails as a whole and is
    split)."""
    left_out = dict(left_out or {})
    for k, text in texts.items():
        if k in left_out:
            continue
        try:
            if _keeps_own_module(parse_mlir(text)):
                left_out[k] = LeftOut("alone")
        except Rejected:
            left_out[k] = LeftOut("alone")
    for attempt in range(attempts):
        kept = [k for k in texts if k not in left_out]
        if not kept:
            return CompiledBatch(None, {}, left_out)
        text, types, first_lines = combine_mains([texts[k] for k in kept], one_main=one_main)
        try:
            compiled = compile_module(text)
        except Rejected as e:
            named = programs_named(str(e), first_lines)
            if not named or attempt + 1 == attempts:
                raise
            refused = {likeness(texts[kept[i]]) for i in named}
            left_out.update((k, LeftOut("alone")) for k in kept if likeness(texts[k]) in refused)
            continue
        return CompiledBatch(compiled, {k: (entry_name(i), types[i]) for i, k in enumerate(kept)}, left_out)
    raise AssertionError("unreachable")


def in_rounds(same_as: list[int], kept: list[int], run_once) -> list:
    """Answers of a batch whose programs ``kept`` (first occurrences, ``same_as`` as from
    ``first_occurrences``) share ONE executable that runs them all at once: a program that
    comes back with another input set runs again in the next round, the others repeating their
    first input set, unread.  ``run_once(chosen)`` takes one input-set index per kept program
    and returns one (status, message, outputs) per kept program.  Cases of programs not kept
    are None."""
    occurrences: dict[int, list[int]] = {k: [] for k in kept}
    for j, f in enumerate(same_as):
        if f in occurrences:
            occurrences[f].append(j)
    answers: list = [None] * len(same_as)
    rounds = max((len(js) for js in occurrences.values()), default=0)
    for r in range(rounds):
        chosen = [js[r] if r < len(js) else js[0] for js in occurrences.values()]
        for js, answer in zip(occurrences.values(), run_once(chosen)):
            if r < len(js):
                answers[js[r]] = answer
    return answers
