"""Mutations of real programs that keep them well-typed.

Each mutation takes a ``random.Random``-like ``draw`` (``draw(strategy)``) and a module whose
@main holds the program (calls inlined) and returns the mutated module, or ``None`` where it
does not apply.  A mutant is only as good as the StableHLO verifier says: ``verified`` prints
and re-parses it (MLIR's own type checks, every op's constraints), and a mutant it refuses is
dropped, never run.

* ``shape``: one dimension size of @main's arguments replaced by 0, 1, a prime or another
  size everywhere it appears (values, region arguments, splat constants): sizes that defeat
  vectorization, propagated through every op whose types are the same sizes;
* ``dtype``: one float element type replaced program-wide (f32 -> bf16 / f16 / f64, ...);
* ``attribute``: a comparison direction, or reduce dimensions / a transpose permutation /
  broadcast dimensions replaced by others that give the same result type;
* ``swap``: an element-wise op replaced by another of the same signature (add <-> subtract
  <-> multiply <-> maximum ...; exp <-> tanh <-> logistic ...);
* ``insert`` / ``delete``: an element-wise unary op (or a reverse) put on an edge; an op whose
  operand has its result's type bypassed;
* ``duplicate``: a run of ops computed a second time, its result combined with the first;
* ``feedback``: the program applied to one of its own outputs (an output feeds the
  argument of its type in a second copy of the program).
"""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import strategies as st

from oracle import ir
from oracle.errors import MlirError
from oracle.mlir_text import parse_module, print_module
from oracle.registry import all_ops
from oracle.types import ELEMENT_TYPES, TensorType

#: Sizes a shape mutation puts in: zero, one, primes (remainder loops), a power of two and its neighbour.
NEW_SIZES = (0, 1, 2, 3, 5, 7, 11, 13, 17, 31, 33, 64, 127)
#: The largest tensor a mutant may hold (the oracle evaluates it on the CPU, in numpy).
MAX_ELEMENTS = 1 << 18
FLOAT_TYPES = ("f32", "bf16", "f16", "f64")

#: Ops of one signature class, interchangeable in a program (the verifier checks the element type).
SWAP_GROUPS = (
    ("add", "subtract", "multiply", "maximum", "minimum", "divide"),
    ("and", "or", "xor"),
    ("exponential", "tanh", "logistic", "sine", "cosine", "negate", "abs", "floor", "ceil",
     "exponential_minus_one", "cbrt", "round_nearest_even", "sign"),
)
#: Element-wise unary ops ``insert`` puts on an edge (total functions: no domain to respect).
INSERTABLE = ("negate", "abs", "tanh", "logistic", "exponential", "sine", "floor", "sign", "not")
#: How ``duplicate`` joins the copy with the original, per element-type kind.
COMBINE = {"float": "add", "complex": "add", "integer": "add", "bool": "or"}
DIRECTIONS = ("EQ", "NE", "LT", "LE", "GT", "GE")


def _kind(et) -> str:
    if et.is_bool:
        return "bool"
    if et.is_complex:
        return "complex"
    return "float" if et.is_float else "integer"


def _accepts(op_name: str, t) -> bool:
    """The op's record lists ``t``'s element type among those it takes."""
    info = all_ops().get(op_name)
    return info is not None and isinstance(t, TensorType) and str(t.element_type) in (info.element_types or ())


# ------------------------------------------------------------------ verifying, cloning

def verified(module: ir.Module) -> ir.Module | None:
    """``module`` re-read through the StableHLO verifier (fresh IR), or None if it refuses it
    or a value is larger than MAX_ELEMENTS."""
    for op in module.walk_ops():
        for v in op.results:
            if isinstance(v.type, TensorType) and v.type.is_static and v.type.num_elements > MAX_ELEMENTS:
                return None
    try:
        return parse_module(print_module(module))
    except (MlirError, ValueError):
        return None


class _Cloner:
    """Copies ops with fresh values: ``retype`` maps each value's type, ``mapping`` redirects
    operands (value -> value), ``constant`` maps a constant's attribute to its new type."""

    def __init__(self, retype=lambda t: t, mapping=None, constant=None):
        self.retype, self.constant = retype, constant
        self.mapping: dict = dict(mapping or {})

    def value(self, v: ir.Value) -> ir.Value:
        return self.mapping.get(v, v)

    def fresh(self, v: ir.Value) -> ir.Value:
        new = ir.Value(self.retype(v.type), v.name)
        self.mapping[v] = new
        return new

    def op(self, op: ir.Op) -> ir.Op:
        operands = tuple(self.value(v) for v in op.operands)
        regions = tuple(ir.Region(tuple(self.fresh(a) for a in r.arguments), tuple(self.op(o) for o in r.ops))
                        for r in op.regions)
        results = tuple(self.fresh(r) for r in op.results)
        attributes = dict(op.attributes)
        if self.constant is not None and op.name == "stablehlo.constant":
            attributes["value"] = self.constant(attributes["value"], results[0].type)
        return ir.Op(op.name, operands, results, attributes, regions, op.location)

    def function(self, f: ir.Function) -> ir.Function:
        arguments = tuple(self.fresh(a) for a in f.arguments)
        ops = tuple(self.op(o) for o in f.ops)
        return ir.Function(f.name, arguments, tuple(self.retype(t) for t in f.result_types), ops, f.visibility,
                           f.location, f.arg_attrs, f.res_attrs)


def _with_main(module: ir.Module, main: ir.Function) -> ir.Module:
    return ir.Module(tuple(main if f.name == "main" else f for f in module.functions), module.attributes,
                     module.declarations)


def _with_main_ops(module: ir.Module, ops, arguments=None, outputs=None) -> ir.Module:
    """@main with these ops (``outputs``: the returned values, by default the old return's)."""
    main = module.main
    ret = main.ops[-1]
    outputs = tuple(ret.operands if outputs is None else outputs)
    arguments = main.arguments if arguments is None else tuple(arguments)
    new = ir.Function("main", arguments, tuple(v.type for v in outputs),
                      tuple(ops) + (ir.Op("func.return", outputs, ()),), main.visibility, main.location,
                      main.arg_attrs if len(arguments) == len(main.arguments) else (),
                      main.res_attrs if len(outputs) == len(ret.operands) else ())
    return _with_main(module, new)


def _retyped(module: ir.Module, retype, constant) -> ir.Module:
    """Every function cloned with ``retype`` applied to every value type."""
    functions = tuple(_Cloner(retype, constant=constant).function(f) for f in module.functions)
    return ir.Module(functions, module.attributes, module.declarations)


def _body(module: ir.Module) -> list[ir.Op]:
    return list(module.main.ops[:-1])


def _redirect(ops, old: ir.Value, new: ir.Value, after: int):
    """Ops with every use of ``old`` from op #``after`` on (regions included) reading ``new``."""
    cloner = _Cloner(mapping={old: new})
    return list(ops[:after]) + [cloner.op(o) for o in ops[after:]], cloner


# --------------------------------------------------------------------------- mutations

def _opaque(module: ir.Module) -> bool:
    """Some op's types are a contract the verifier cannot check (a custom_call's LAPACK target
    takes f64 matrices of the sizes its attributes name): its shapes and types stay."""
    return any(op.name == "stablehlo.custom_call" for op in module.walk_ops())


def mutate_shape(draw, module: ir.Module) -> ir.Module | None:
    if _opaque(module):
        return None
    sizes = sorted({d for a in module.main.arguments if isinstance(a.type, TensorType) for d in a.type.shape
                    if d is not None and d > 1})
    if not sizes:
        return None
    old = draw(st.sampled_from(sizes))
    # a size of the program itself makes two dimensions equal (transposes and reductions
    # then have other permutations / dimensions of the same type: ``attribute``)
    new = draw(st.sampled_from([s for s in NEW_SIZES + tuple(sizes) if s != old]))

    def retype(t):
        if not isinstance(t, TensorType):
            return t
        return TensorType(tuple(new if d == old else d for d in t.shape), t.element_type)

    def constant(attr, t):
        if not isinstance(attr, ir.DenseElements) or attr.type.shape == t.shape:
            return attr
        flat = np.asarray(attr.array).reshape(-1)
        if flat.size == 0 or np.any(flat != flat[0]):  # only a splat has a value at every size
            raise _NotApplicable
        return ir.DenseElements(np.full(t.shape, flat[0], dtype=attr.array.dtype), t)

    try:
        return _retyped(module, retype, constant)
    except _NotApplicable:
        return None


class _NotApplicable(Exception):
    pass


def mutate_dtype(draw, module: ir.Module) -> ir.Module | None:
    if _opaque(module):
        return None
    present = sorted({str(v.type.element_type) for op in module.walk_ops() for v in op.results
                      if isinstance(v.type, TensorType) and str(v.type.element_type) in FLOAT_TYPES})
    if not present:
        return None
    old = ELEMENT_TYPES[draw(st.sampled_from(present))]
    new = ELEMENT_TYPES[draw(st.sampled_from([t for t in FLOAT_TYPES if t != old.name]))]

    def retype(t):
        return TensorType(t.shape, new) if isinstance(t, TensorType) and t.element_type == old else t

    def constant(attr, t):
        if not isinstance(attr, ir.DenseElements) or attr.type == t:
            return attr
        with np.errstate(over="ignore", invalid="ignore"):
            return ir.DenseElements(np.asarray(attr.array).astype(new.dtype), t)

    return _retyped(module, retype, constant)


def _same_result_alternatives(op: ir.Op) -> tuple[str, list]:
    """The attribute of ``op`` a mutation may change, and the other values of it that keep
    the op's result type."""
    if op.name == "stablehlo.compare":
        current = op.attr("comparison_direction")
        return "comparison_direction", [ir.EnumAttr("comparison_direction", d) for d in DIRECTIONS if d != current]
    if not op.operands or not isinstance(op.operands[0].type, TensorType) or not op.operands[0].type.is_static:
        return "", []
    shape, result = op.operands[0].type.shape, op.results[0].type.shape
    if op.name == "stablehlo.reduce":
        current = tuple(op.attr("dimensions"))
        dims = [c for c in itertools.combinations(range(len(shape)), len(current))
                if c != current and tuple(d for i, d in enumerate(shape) if i not in c) == result]
        return "dimensions", [ir.DenseArray("i64", c) for c in dims]
    if op.name == "stablehlo.transpose" and len(shape) <= 6:
        current = tuple(op.attr("permutation"))
        perms = [p for p in itertools.permutations(range(len(shape)))
                 if p != current and tuple(shape[i] for i in p) == result]
        return "permutation", [ir.DenseArray("i64", p) for p in perms]
    if op.name == "stablehlo.broadcast_in_dim" and len(result) <= 6:
        current = tuple(op.attr("broadcast_dimensions"))
        dims = [c for c in itertools.permutations(range(len(result)), len(shape))
                if c != current and all(shape[i] in (1, result[j]) for i, j in enumerate(c))]
        return "broadcast_dimensions", [ir.DenseArray("i64", c) for c in dims[:64]]
    return "", []


def mutate_attribute(draw, module: ir.Module) -> ir.Module | None:
    ops = _body(module)
    candidates = [k for k, op in enumerate(ops) if _same_result_alternatives(op)[1]]
    if not candidates:
        return None
    k = draw(st.sampled_from(candidates))
    name, values = _same_result_alternatives(ops[k])
    op = ops[k]
    ops[k] = ir.Op(op.name, op.operands, op.results, {**op.attributes, name: draw(st.sampled_from(values))},
                   op.regions, op.location)
    return _with_main_ops(module, ops)


def mutate_swap(draw, module: ir.Module) -> ir.Module | None:
    ops = _body(module)
    choices = []
    for k, op in enumerate(ops):
        for group in SWAP_GROUPS:
            if op.mnemonic in group and op.name.startswith("stablehlo."):
                others = [f"stablehlo.{o}" for o in group if o != op.mnemonic and _accepts(f"stablehlo.{o}",
                                                                                          op.results[0].type)]
                choices += [(k, o) for o in others]
    if not choices:
        return None
    k, name = draw(st.sampled_from(choices))
    op = ops[k]
    ops[k] = ir.Op(name, op.operands, op.results, {}, (), op.location)
    return _with_main_ops(module, ops)


def mutate_insert(draw, module: ir.Module) -> ir.Module | None:
    ops = _body(module)
    edges = [(k, r) for k, op in enumerate(ops) for r in op.results if isinstance(r.type, TensorType)
             and (r.type.rank or any(_accepts(f"stablehlo.{u}", r.type) for u in INSERTABLE))]
    if not edges:
        return None
    k, value = draw(st.sampled_from(edges))
    choices = [u for u in INSERTABLE if _accepts(f"stablehlo.{u}", value.type)] + (["reverse"] if value.type.rank
                                                                                  else [])
    unary = draw(st.sampled_from(choices))
    attributes = {}
    if unary == "reverse":  # data movement of the same type: reverse along some dimensions
        dims = draw(st.sets(st.integers(0, value.type.rank - 1), min_size=1))
        attributes["dimensions"] = ir.DenseArray("i64", tuple(sorted(dims)))
    inserted = ir.Op(f"stablehlo.{unary}", (value,), (ir.Value(value.type, value.name),), attributes)
    rest, cloner = _redirect(ops, value, inserted.results[0], k + 1)
    outputs = tuple(cloner.value(v) for v in module.main.ops[-1].operands)
    return _with_main_ops(module, rest[:k + 1] + [inserted] + rest[k + 1:], outputs=outputs)


def mutate_delete(draw, module: ir.Module) -> ir.Module | None:
    ops = _body(module)
    bypasses = [(k, operand) for k, op in enumerate(ops) if len(op.results) == 1 and not op.regions
                for operand in dict.fromkeys(op.operands) if operand.type == op.results[0].type]
    if not bypasses:
        return None
    k, operand = draw(st.sampled_from(bypasses))
    rest, cloner = _redirect(ops, ops[k].results[0], operand, k + 1)
    outputs = tuple(cloner.value(v) for v in module.main.ops[-1].operands)
    return _with_main_ops(module, rest[:k] + rest[k + 1:], outputs=outputs)


def mutate_duplicate(draw, module: ir.Module) -> ir.Module | None:
    ops = _body(module)
    if not ops:
        return None
    start = draw(st.integers(0, len(ops) - 1))
    end = draw(st.integers(start, min(len(ops), start + 6) - 1))
    last = ops[end].results[0] if ops[end].results else None
    if last is None or not isinstance(last.type, TensorType):
        return None
    cloner = _Cloner()
    copies = [cloner.op(o) for o in ops[start:end + 1]]
    combine = f"stablehlo.{COMBINE[_kind(last.type.element_type)]}"
    joined = ir.Op(combine, (last, cloner.value(last)), (ir.Value(last.type, last.name),))
    rest, redirect = _redirect(ops, last, joined.results[0], end + 1)
    outputs = tuple(redirect.value(v) for v in module.main.ops[-1].operands)
    if joined.results[0] not in outputs and not any(joined.results[0] in o.operands for o in rest[end + 1:]):
        outputs += (joined.results[0],)  # nothing read the duplicated value: it is an output
    return _with_main_ops(module, rest[:end + 1] + copies + [joined] + rest[end + 1:], outputs=outputs)


def mutate_feedback(draw, module: ir.Module) -> ir.Module | None:
    main = module.main
    outputs = main.ops[-1].operands
    pairs = [(i, j) for i, o in enumerate(outputs) for j, a in enumerate(main.arguments) if o.type == a.type]
    if not pairs or len(main.ops) > 200:
        return None
    i, j = draw(st.sampled_from(pairs))
    cloner = _Cloner(mapping={main.arguments[j]: outputs[i]})
    second = [cloner.op(o) for o in main.ops[:-1]]
    fed = tuple(cloner.value(v) for v in outputs) + tuple(o for k, o in enumerate(outputs) if k != i)
    return _with_main_ops(module, list(main.ops[:-1]) + second, outputs=fed)


MUTATIONS = {"shape": mutate_shape, "dtype": mutate_dtype, "attribute": mutate_attribute, "swap": mutate_swap,
             "insert": mutate_insert, "delete": mutate_delete, "duplicate": mutate_duplicate,
             "feedback": mutate_feedback}


def mutate(draw, module: ir.Module, kinds) -> tuple[ir.Module, tuple[str, ...]]:
    """``module`` with each mutation of ``kinds`` applied in turn where it applies and the
    verifier accepts its result; returns the mutant and the kinds applied."""
    applied = []
    for kind in kinds:
        mutant = MUTATIONS[kind](draw, module)
        checked = verified(mutant) if mutant is not None else None
        if checked is not None:
            module = checked
            applied.append(kind)
    return module, tuple(applied)
