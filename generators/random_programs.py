"""Random multi-op programs: well-typed DAGs drawn from every op the oracle can generate.

``random_programs()`` draws 1..``max_ops`` ops.  Each op comes from its own registry entry
(``draw_signature``), so every family is reachable -- nested regions (reduce / sort / while /
case bodies) come with the ops that own them -- and every op is valid on its own.  Types
flow: each operand is, by preference, a value an earlier op produced of exactly that type
(shared sub-expressions), else an earlier value converted or reshaped into it, else a fresh
``@main`` argument.  Connecting values of identical types keeps the program valid, which
``suites/test_fuzz.py`` checks against the StableHLO verifier on thousands of programs.
Every value no later op uses is a result of ``@main`` (several outputs).

Numerical hygiene: deep random programs drown in inf/NaN if fed edge values everywhere.
Inputs are "mild" by default (small integers, floats in [-4, 4]; (0, 4] for operands of
ops with a positive domain such as log, sqrt, rsqrt, power, chlo.lgamma), with a fraction of inputs drawn
from the edge-reaching tensors of generators/tensors.py so edges are still exercised.
``mild_inputs`` redraws from a seed, which the fuzzer uses for its oracle-guided retry.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from hypothesis import strategies as st

from oracle import ir
from oracle.registry import OpInfo, all_ops
from oracle.types import ELEMENT_TYPES, ElementType, TensorType

from .drawing import as_draw
from .modules import signature_attribute, signature_region
from .ops import samplers_of
from .dtypes import as_element_type
from .tensors import tensors

def __getattr__(name):
    """The op sets random programs respect, as views over the op records:

    * ``EXCLUDED``: ops left out of random programs (records with ``fuzz=False``): ops whose
      results are random or implementation-defined by design, side effects whose queues the
      caller must fill, and custom_call (targets are registered per test); process-grid ops
      are drawn only for grid programs (``generatable_ops``);
    * ``POSITIVE_DOMAIN``: ops whose operands are wanted positive (``domain="positive"``), for
      mild inputs."""
    if name == "EXCLUDED":
        return frozenset(op_name for op_name, info in all_ops().items() if not info.fuzz)
    if name == "POSITIVE_DOMAIN":
        return frozenset(op_name for op_name, info in all_ops().items() if info.domain == "positive")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: Element types a program prefers (a "theme" makes shared types, and so real DAGs, likely);
#: a "q." theme draws the quantized forms of the ops that take quantized tensors.
THEMES = ("f32", "f32", "f64", "i32", "bf16", "f16", "i8", "ui32", "i1", "complex<f32>", "q.i8", "q.i16")


@dataclass(eq=False)
class RandomProgram:
    module: ir.Module
    inputs: list
    ops: tuple[str, ...]            # op names in program order (the connecting convert/reshape included)
    element_types: tuple[str, ...]  # element types seen, in order of first appearance
    positive_args: frozenset = field(default_factory=frozenset)  # args feeding a positive-domain op
    seed: int = 0
    fixed_args: frozenset = field(default_factory=frozenset)  # args whose values an op drew (indices, shapes)
    grid: tuple = (1, 1)  # (num_replicas, num_partitions); inputs per process when not (1, 1)

    def with_fixed(self, inputs: list) -> list:
        """``inputs`` with the drawn values of the arguments ops drew themselves (indices, shapes)."""
        for i in self.fixed_args:
            inputs[i] = self.inputs[i]
        return inputs


def generatable_ops(*, collectives: bool = False) -> list[OpInfo]:
    """Ops random programs draw from; collectives only for programs on a process grid."""
    return [info for name, info in sorted(all_ops().items())
            if samplers_of(info).draw_signature is not None and info.element_types and info.fuzz
            and (collectives or info.family != "collectives")]


def _element_names(types) -> list[str]:
    out = []
    for t in types:
        if isinstance(t, TensorType):
            out.append(str(t.element_type))
    return out


class _Builder:
    def __init__(self):
        self.args: list[ir.Value] = []
        self.ops: list[ir.Op] = []
        self.values: list[ir.Value] = []   # every value so far (args and op results)
        self.used: set = set()
        self.positive: set = set()
        self.fixed: dict = {}  # argument index -> the value the consuming op drew for it

    def fresh(self, t) -> ir.Value:
        v = ir.Value(t, f"%arg{len(self.args)}")
        self.args.append(v)
        self.values.append(v)
        return v

    def emit(self, name: str, operands, result_types, attributes=None, regions=()) -> tuple:
        results = tuple(ir.Value(t, f"%{len(self.ops)}#{i}") for i, t in enumerate(result_types))
        self.ops.append(ir.Op(name, tuple(operands), results, attributes or {}, tuple(regions)))
        self.used.update(operands)
        self.values.extend(results)
        return results


def _static_tensor(t) -> bool:
    return isinstance(t, TensorType) and t.is_static and not getattr(t.element_type, "is_quantized", False)


def _is_index_like(t) -> bool:
    return isinstance(t, TensorType) and t.element_type.is_integer and not t.element_type.is_bool


def _connect(draw, b: _Builder, t) -> ir.Value:
    """An operand of type ``t``: an earlier value of that type, an earlier value converted or
    reshaped into it, or a fresh argument."""
    same = [v for v in b.values if v.type == t]
    if same and draw(st.integers(0, 9)) < 8:
        return draw(st.sampled_from(same))
    if _static_tensor(t) and draw(st.booleans()):
        same_shape = [v for v in b.values if _static_tensor(v.type) and v.type.shape == t.shape
                      and v.type.element_type != t.element_type]
        same_size = [v for v in b.values if _static_tensor(v.type) and v.type.element_type == t.element_type
                     and v.type.shape != t.shape and math.prod(v.type.shape) == math.prod(t.shape)]
        if same_shape and (not same_size or draw(st.booleans())):
            (v,) = b.emit("stablehlo.convert", [draw(st.sampled_from(same_shape))], [t])
            return v
        if same_size:
            (v,) = b.emit("stablehlo.reshape", [draw(st.sampled_from(same_size))], [t])
            return v
    return b.fresh(t)


@st.composite
def grid_programs(draw, *, max_ops: int = 6, max_processes: int = 8):
    """A ``RandomProgram`` on a random process grid: collectives mixed with ordinary ops (the
    collectives' groups drawn for that grid); ``inputs`` maps each process to its input set."""
    from .collectives import FIXED_GRID, grids

    grid = draw(grids(max_processes))
    collectives = [info for info in generatable_ops(collectives=True) if info.family == "collectives"]
    pool = collectives + draw(st.lists(st.sampled_from(generatable_ops()), min_size=1, max_size=6,
                                       unique_by=lambda info: info.name))
    token = FIXED_GRID.set(grid)
    try:
        program = draw(random_programs(max_ops=max_ops, ops=pool, edge_fraction=0.0))
    finally:
        FIXED_GRID.reset(token)
    processes = [(r, p) for r in range(grid[0]) for p in range(grid[1])]
    program.grid = grid
    program.inputs = {pid: program.with_fixed(mild_inputs(program.module, program.seed + 7919 * k,
                                                          program.positive_args))
                      for k, pid in enumerate(processes)}
    return program


@st.composite
def random_programs(draw, *, max_ops: int = 8, ops: list[OpInfo] | None = None, edge_fraction: float = 0.2):
    """A ``RandomProgram``: a module with one public @main, and one input set for it."""
    from .quantized import is_quantized_key, quantized_form_supported, quantized_signature

    draw = as_draw(draw)  # the op records' hooks reach the strategies through it
    pool = ops if ops is not None else generatable_ops()
    theme_name = draw(st.sampled_from(THEMES))
    quantized = is_quantized_key(theme_name)
    theme = as_element_type("f32" if quantized else theme_name)
    b = _Builder()
    n_ops = draw(st.integers(1, max_ops))
    for _ in range(n_ops):
        info = draw(st.sampled_from(pool))
        names = info.element_types or (theme.name,)
        et = theme if theme.name in names and draw(st.integers(0, 3)) else as_element_type(
            draw(st.sampled_from(names)))
        if quantized and quantized_form_supported(info) and draw(st.integers(0, 3)):
            sig, float_sig = quantized_signature(draw, info, theme_name)
        else:
            sig = float_sig = samplers_of(info).draw_signature(draw, et)
        # Integer operands of ops that draw their own inputs (indices, shapes, start positions)
        # get those values through fresh arguments: arbitrary values there are mostly undefined.
        # (An op without such operands draws none: its drawn values would be thrown away, and
        # drawing a tensor element by element was most of a program's drawing time.)
        own = samplers_of(info).draw_inputs(draw, float_sig) if samplers_of(info).draw_inputs is not None and any(
            _is_index_like(t) for t in sig.operand_types) else None
        operands = []
        for k, t in enumerate(sig.operand_types):
            if own is not None and _is_index_like(t) and isinstance(own, list):
                operands.append(b.fresh(t))
                b.fixed[len(b.args) - 1] = own[k]
            else:
                operands.append(_connect(draw, b, t))
        if info.domain == "positive":
            b.positive.update(v for v in operands if v in b.args)
        attrs = {k: signature_attribute(k, v) for k, v in sorted(sig.attributes.items())}
        b.emit(info.name, operands, sig.result_types, attrs, [signature_region(r) for r in sig.regions])
    if not b.ops:  # every draw was a grid op: one convert of a fresh input keeps the program non-empty
        t = TensorType((2,), theme)
        b.emit("stablehlo.convert", [b.fresh(t)], [t])
    sinks = [v for op in b.ops for v in op.results if v not in b.used]
    outputs = sinks or list(b.ops[-1].results)
    main = ir.Function("main", tuple(b.args), tuple(v.type for v in outputs),
                       tuple(b.ops) + (ir.Op("func.return", tuple(outputs), ()),))
    module = ir.Module((main,))
    seed = draw(st.integers(0, 2**32 - 1))
    positive = frozenset(i for i, a in enumerate(b.args) if a in b.positive)
    edges = [i for i in range(len(b.args)) if draw(st.floats(0, 1)) < edge_fraction]
    inputs = mild_inputs(module, seed, positive)
    for i in edges:  # a few inputs with edge values (NaN, inf, -0, extremes ...) on purpose
        t = b.args[i].type
        if _static_tensor(t) and i not in b.fixed:
            inputs[i] = draw(tensors(t.element_type, t.shape, salt=i))
    for i, value in b.fixed.items():
        inputs[i] = value
    seen = dict.fromkeys(_element_names([a.type for a in b.args] + [r.type for op in b.ops for r in op.results]))
    return RandomProgram(module, inputs, tuple(op.name for op in b.ops), tuple(seen), positive, seed,
                         frozenset(b.fixed))


def mild_inputs(module: ir.Module, seed: int, positive=frozenset(), scale: float = 4.0) -> list:
    """Inputs for @main with meaningful values: small integers; floats in [-scale, scale], (0, scale]
    for arguments in ``positive``; booleans at random."""
    from oracle.evaluator import TOKEN_VALUE
    from oracle.types import TokenType

    rng = np.random.default_rng(seed)
    out = []
    for i, a in enumerate(module.main.arguments):
        t = a.type
        if isinstance(t, TokenType):
            out.append(TOKEN_VALUE)
            continue
        if not isinstance(t, TensorType):
            raise ValueError(f"random programs take tensors and tokens, not {t}")
        shape = tuple(d if d is not None else 3 for d in t.shape)
        out.append(_mild(rng, t.element_type, shape, i in positive, scale))
    return out


def _mild(rng, et: ElementType, shape, positive: bool, scale: float) -> np.ndarray:
    if getattr(et, "is_quantized", False):  # storage integers, anywhere in [storage_min, storage_max]
        return rng.integers(et.min, et.max, shape, endpoint=True).astype(et.storage_type.dtype)
    if et.is_bool:
        return rng.integers(0, 2, shape).astype(bool)
    if et.is_integer:
        lo = 0 if (positive or et.is_unsigned) else -8
        return rng.integers(lo, 9, shape).astype(et.dtype)
    if et.is_complex:
        part = ELEMENT_TYPES[et.component.name]
        z = np.empty(shape, dtype=et.dtype)
        z.real, z.imag = _mild(rng, part, shape, positive, scale), _mild(rng, part, shape, False, scale)
        return z
    x = rng.uniform(0 if positive else -scale, scale, shape)
    x = np.where(rng.random(shape) < 0.3, np.round(x), x)  # some exact small integers
    if positive:
        x = np.where(x == 0, 0.5, x)
    from oracle.numerics import round_to
    return np.asarray(round_to(x, et), dtype=et.dtype) if et.name not in ("f64",) else x.astype(np.float64)
