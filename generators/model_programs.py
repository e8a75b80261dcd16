"""Programs shaped like real models, drawn as ``RandomProgram``s so a fuzz
campaign runs them unchanged.

Two modes beside random DAGs (generators/random_programs.py):

* ``"mutation"``: a real program -- a JAX export under suites/data/jax_programs, or any
  folder of ``.mlir`` -- read once (``load_seeds``: the program under test of a testdata file,
  calls inlined, a shape-polymorphic one refined to static shapes), then mutated while staying
  well-typed (generators/model_mutations.py);
* ``"template"``: a fusion-prone pattern drawn as a whole (generators/model_templates.py).

``mixed_programs`` draws one of the three modes per program; ``program_mode`` names the mode
of any drawn program ("random" for a plain random DAG) and ``ModelProgram.origin`` /
``mutations`` say which seed or template and which mutations made it.
"""

from __future__ import annotations

import functools
import glob
import os
from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st

from oracle import ir
from oracle.errors import MlirError, OracleError
from oracle.evaluator import evaluate
from oracle.mlir_text import parse_module
from oracle.refine import RefinementError, polymorphism, refine
from oracle.registry import all_ops
from oracle.rewrite import inline_calls
from oracle.types import TensorType

from .drawing import as_draw
from .model_mutations import MUTATIONS, mutate
from .model_templates import FLOAT_TYPES, TEMPLATES, template_text
from .random_programs import RandomProgram, mild_inputs, random_programs

MODES = ("random", "mutation", "template")
#: The seeds a campaign mutates when the user names none (JAX exports of real model code).
DEFAULT_SEEDS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                             "suites", "data", "jax_programs")
#: Ops that make a seed unusable: random by design or side effects whose queues nobody fills.
_UNUSABLE = frozenset({"stablehlo.rng", "stablehlo.rng_bit_generator", "stablehlo.infeed", "stablehlo.outfeed",
                       "stablehlo.send", "stablehlo.recv"})
#: The most ops (nested ones included) a seed may have: each mutant costs the oracle and the
#: compiler about what the seed does, and a campaign wants many programs.
MAX_SEED_OPS = 400
#: The size every dimension variable of a shape-polymorphic seed gets (a prime: remainder loops).
POLYMORPHIC_SIZE = 7
#: Files larger than this are not even read (MLIR text of ~400 ops; reading one costs seconds).
MAX_SEED_BYTES = 40_000


@dataclass(eq=False)
class ModelProgram(RandomProgram):
    mode: str = "template"            # "mutation" or "template"
    origin: str = ""                  # the seed file's name or the template's
    mutations: tuple[str, ...] = ()   # the mutations applied, in order (mode "mutation")


def program_mode(program) -> str:
    """The mode a drawn program came from: "random", "mutation" or "template"."""
    return getattr(program, "mode", "random")


@dataclass(frozen=True, eq=False)
class Seed:
    name: str
    module: ir.Module             # @main is the program under test, calls inlined
    inputs: tuple | None = None   # the values the export came with (its @inputs), if any


# ----------------------------------------------------------------------------- seeds

def seed_files(paths) -> list[str]:
    """The ``.mlir`` files of ``paths`` (files, or folders read in name order)."""
    out = []
    for p in paths:
        out += sorted(glob.glob(os.path.join(p, "*.mlir"))) if os.path.isdir(p) else [p]
    return out


def _program_under_test(module: ir.Module) -> tuple[ir.Module, tuple | None]:
    """A testdata file's @under_test as @main (with its @inputs' values); any other module as is."""
    names = {f.name for f in module.functions}
    if "under_test" not in names:
        return module, None
    inputs = tuple(evaluate(module, [], function="inputs")) if "inputs" in names else None
    fn = module.function("under_test")
    main = ir.Function("main", fn.arguments, fn.result_types, fn.ops)
    rest = tuple(f for f in module.functions if f.name not in ("main", "inputs", "expected", "under_test"))
    return ir.Module((main,) + rest, module.attributes, module.declarations), inputs


def _called(module: ir.Module) -> set[str]:
    return {op.attr("callee") for op in module.walk_ops() if op.name == "func.call"}


def static_text(text: str, path: str) -> str:
    """A shape-polymorphic program refined to static shapes, every dimension variable at
    POLYMORPHIC_SIZE (StableHLO's own shape refinement, oracle/refine.py); others as they are."""
    poly = polymorphism(text, filename=path)
    if poly is None:
        return text
    if poly.dimension_args:
        raise ValueError("its @main takes dimension arguments (an older polymorphic export): refine it first "
                         "(shlo-conform check --dims)")
    sizes = dict.fromkeys(poly.variables, POLYMORPHIC_SIZE)
    try:
        return refine(text, poly.static_shapes(sizes), filename=path)
    except RefinementError as e:
        raise ValueError(str(e)) from None


def read_seed(path: str) -> Seed:
    """One seed program, or ValueError saying why it cannot be one."""
    try:
        if os.path.getsize(path) > MAX_SEED_BYTES:
            raise ValueError(f"{os.path.getsize(path)} bytes, more than MAX_SEED_BYTES = {MAX_SEED_BYTES} "
                             "(each mutant would be slow)")
        with open(path) as f:
            module = parse_module(static_text(f.read(), path), filename=path)
    except (OSError, MlirError) as e:
        raise ValueError(f"cannot read it: {str(e).splitlines()[0] if str(e) else type(e).__name__}") from None
    module, inputs = _program_under_test(module)
    module = inline_calls(module)
    called = _called(module)  # (calls inside loops stay calls: their callees stay too)
    module = ir.Module(tuple(f for f in module.functions if f.name == "main" or f.name in called),
                       module.attributes, module.declarations)
    size = sum(1 for _ in module.walk_ops())
    if size > MAX_SEED_OPS:
        raise ValueError(f"{size} ops, more than MAX_SEED_OPS = {MAX_SEED_OPS} (each mutant would be slow)")
    types = [a.type for a in module.main.arguments] + list(module.main.result_types)
    if any(not isinstance(t, TensorType) or not t.is_static for t in types):
        raise ValueError("dynamic shapes or non-tensor arguments: refine it to static shapes first "
                         "(oracle/refine.py, shlo-conform check --dims)")
    unusable = sorted({op.name for op in module.walk_ops()} & _UNUSABLE)
    if unusable:
        raise ValueError(f"it uses {', '.join(unusable)} (random by design or a side effect)")
    trial = list(inputs) if inputs is not None else mild_inputs(module, 0, positive_arguments(module))
    try:
        evaluate(module, trial)
    except OracleError as e:  # Unsupported and UndefinedBehavior included
        raise ValueError(f"the oracle cannot evaluate it: {str(e).splitlines()[0]}") from None
    return Seed(os.path.basename(path), module, inputs)


@functools.lru_cache(maxsize=8)
def load_seeds(paths: tuple[str, ...]) -> tuple[tuple[Seed, ...], tuple[tuple[str, str], ...]]:
    """(the usable seeds of ``paths``, (file, reason) for each file skipped)."""
    seeds, skipped = [], []
    for path in seed_files(paths):
        try:
            seeds.append(read_seed(path))
        except ValueError as e:
            skipped.append((path, str(e)))
    return tuple(seeds), tuple(skipped)


def positive_arguments(module: ir.Module) -> frozenset:
    """Indices of @main's arguments an op with a positive domain (log, sqrt, ...) reads directly."""
    positive = {name for name, info in all_ops().items() if info.domain == "positive"}
    read = {v for op in module.main.ops if op.name in positive for v in op.operands}
    return frozenset(i for i, a in enumerate(module.main.arguments) if a in read)


# -------------------------------------------------------------------------- programs

def _program(module: ir.Module, inputs: list, seed: int, fixed=frozenset(), **labels) -> ModelProgram:
    ops = tuple(op.name for op in module.main.ops if op.name != "func.return")
    types = [v.type for op in module.main.ops for v in op.results] + [a.type for a in module.main.arguments]
    element_types = tuple(dict.fromkeys(str(t.element_type) for t in types if isinstance(t, TensorType)))
    return ModelProgram(module, inputs, ops, element_types, positive_arguments(module), seed, frozenset(fixed),
                        **labels)


def _inputs_like(seed: Seed, module: ir.Module, random_seed: int) -> list:
    """Mild inputs for ``module``, except the seed's own values where an argument kept their
    shape (cast to its element type): linear algebra wants its well-conditioned inputs."""
    inputs = mild_inputs(module, random_seed, positive_arguments(module))
    if seed.inputs is None or len(seed.inputs) != len(module.main.arguments):
        return inputs
    for i, (given, a) in enumerate(zip(seed.inputs, module.main.arguments)):
        if np.shape(given) == a.type.shape and np.asarray(given).dtype.kind == np.dtype(a.type.dtype).kind:
            inputs[i] = np.asarray(given).astype(a.type.dtype)
    return inputs


@st.composite
def _mutated(draw, seeds: tuple, kinds: tuple, max_mutations: int):
    draw = as_draw(draw)
    seed = draw(st.sampled_from(seeds))
    for _ in range(4):  # (a seed that none of the kinds drawn applies to: other kinds)
        module, applied = mutate(draw, seed.module, draw(st.lists(st.sampled_from(kinds), min_size=1,
                                                                  max_size=max_mutations)))
        if applied:
            break
    random_seed = draw(st.integers(0, 2**32 - 1))
    return _program(module, _inputs_like(seed, module, random_seed), random_seed, mode="mutation",
                    origin=seed.name, mutations=applied)


def mutated_programs(seeds=(DEFAULT_SEEDS,), *, kinds=tuple(MUTATIONS), max_mutations: int = 3) -> st.SearchStrategy:
    """Mutants of the seed programs of ``seeds`` (files or folders of .mlir): 1..max_mutations
    mutations of ``kinds`` drawn, each kept where it applies and the verifier accepts it."""
    usable, skipped = load_seeds(tuple(seeds))
    if not usable:
        reasons = "; ".join(f"{os.path.basename(p)}: {r}" for p, r in skipped[:3])
        raise ValueError(f"no usable seed program in {', '.join(seeds)}" + (f" ({reasons})" if reasons else ""))
    return _mutated(usable, tuple(kinds), max_mutations)


@st.composite
def template_programs(draw, names=tuple(TEMPLATES), element_types=FLOAT_TYPES):
    """A fusion-prone template (``names``) drawn whole, in one of ``element_types``."""
    draw = as_draw(draw)
    name = draw(st.sampled_from(names))
    text, fixed = template_text(draw, name, draw(st.sampled_from(element_types)))
    module = parse_module(text, filename=f"<template {name}>")
    random_seed = draw(st.integers(0, 2**32 - 1))
    inputs = mild_inputs(module, random_seed, positive_arguments(module))
    for i, value in fixed.items():
        inputs[i] = value
    return _program(module, inputs, random_seed, fixed, mode="template", origin=name)


def mixed_programs(seeds=(DEFAULT_SEEDS,), *, max_ops: int = 8, ops=None, modes=MODES):
    """One program of a mode drawn per program (each of ``modes`` equally likely): a random
    DAG (``max_ops``, ``ops`` as random_programs takes them), a mutant or a template."""
    strategies = {"random": lambda: random_programs(max_ops=max_ops, ops=ops),
                  "mutation": lambda: mutated_programs(tuple(seeds)), "template": lambda: template_programs()}
    unknown = [m for m in modes if m not in strategies]
    if unknown:
        raise ValueError(f"unknown program mode {unknown[0]!r}: want one of {', '.join(MODES)}")
    return _one_mode(tuple((m, strategies[m]()) for m in modes))


@st.composite
def _one_mode(draw, strategies: tuple):
    _, strategy = draw(st.sampled_from(strategies))
    return draw(strategy)


#: What a campaign's ``--mode`` draws: "mixed" is a third of each mode.
CAMPAIGN_MODES = {"mixed": MODES, "random": ("random",), "mutation": ("mutation",), "template": ("template",)}


def campaign_programs(mode: str = "mixed", seeds=None, *, max_ops: int = 8, ops=None) -> st.SearchStrategy:
    """The programs a fuzz campaign of ``mode`` (CAMPAIGN_MODES) draws; "random" is
    random_programs itself (the same programs as before modes existed, seed for seed).
    ValueError names an unknown mode or seeds of which none is usable."""
    if mode not in CAMPAIGN_MODES:
        raise ValueError(f"--mode {mode}: want one of {', '.join(CAMPAIGN_MODES)}")
    if mode == "random":
        return random_programs(max_ops=max_ops, ops=ops)
    return mixed_programs(tuple(seeds or (DEFAULT_SEEDS,)), max_ops=max_ops, ops=ops, modes=CAMPAIGN_MODES[mode])
