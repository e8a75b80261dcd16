"""Programs with dynamic shapes made static by StableHLO's own shape refinement.

A program exported with symbolic shapes (``jax.export`` with ``b`` a symbolic dimension) has
``?`` dimensions in its ``@main`` arguments (``tensor<?x4xf32>``), and an older export also
takes one leading ``tensor<i64>`` argument per dimension variable.  Neither a backend nor the
oracle runs such a program as is: ``refine`` gives each argument a static shape, binds the
dimension arguments to constants and runs the StableHLO shape refinement pass that JAX runs
before it compiles an exported function it calls (``jaxlib``'s ``refine_polymorphic_shapes``,
shape assertions enabled: an assertion that fails is an error), so the result is the static
program a backend compiles -- ``dynamic_iota`` becomes ``iota``, ``dynamic_broadcast_in_dim``
``broadcast_in_dim`` and so on, calls inlined.

The pass lives in jaxlib, which the text -> IR layer already uses to read MLIR
(``oracle.mlir_text``); jax itself is not imported.  What sizes the ``?`` dimensions get is
read from the program (``polymorphism``): JAX writes its shape specification (``args[0].shape
= (b, 4),args[1].shape = (2*b,)``) into every shape assertion's message; a program without one
(an older export, a hand-written program) gives all its ``?`` dimensions and dimension
arguments one size.
"""

from __future__ import annotations

import ast
import io
import re
from dataclasses import dataclass

import numpy as np

from .errors import MlirError
from .mlir_text import context_lock, mlir_context, mlir_diagnostics

#: The name of the one dimension variable of a program without a shape specification.
ANY_SIZE = "?"
_REFINED_MAIN = "main__before_refinement"


class RefinementError(ValueError):
    """The program cannot be made static with these shapes (a failed shape assertion, sizes
    that disagree, MLIR's diagnostics): one line saying why."""


@dataclass(frozen=True)
class Polymorphism:
    """What the ``?`` dimensions of a program's ``@main`` arguments depend on."""
    variables: tuple[str, ...]      # dimension variables, sorted ("b", "c"; or ANY_SIZE)
    dimension_args: int             # leading dimension arguments of @main (older exports)
    shapes: tuple[tuple, ...]       # per other argument: its dims, ints or expressions over the variables
                                    # (None for a token)

    def static_shapes(self, sizes: dict[str, int]) -> list[tuple[int, ...] | None]:
        """Each argument's shape (after the dimension arguments) with the variables at ``sizes``."""
        return [None if shape is None else tuple(d if isinstance(d, int) else dimension_value(d, sizes)
                                                 for d in shape) for shape in self.shapes]

    def dimension_values(self, sizes: dict[str, int]) -> list[int]:
        """The values of the leading dimension arguments: the variables in order (JAX sorts them), or
        without a specification for each of them, the one size."""
        if len(self.variables) == self.dimension_args:
            return [sizes[v] for v in self.variables]
        return [sizes[self.variables[0]]] * self.dimension_args


def polymorphism(text: str, *, filename: str = "-") -> Polymorphism | None:
    """The dynamic dimensions of ``text``'s @main, or None when its arguments are static.
    MlirError when the text does not parse."""
    types = _argument_types(text, filename)
    if not any(t is not None and None in t[0] for t in types):
        return None
    dimension_args = 0
    while (dimension_args < len(types) and types[dimension_args] is not None
           and types[dimension_args][0] == () and types[dimension_args][1]):
        dimension_args += 1  # leading scalar integers: an older export's dimension arguments
    data = types[dimension_args:]
    spec = _specification(text)
    shapes = _match_specification(data, spec) if spec else None
    if shapes is None:  # no (usable) specification: one size for every ? dimension
        shapes = tuple(None if t is None else tuple(ANY_SIZE if d is None else d for d in t[0]) for t in data)
        return Polymorphism((ANY_SIZE,), dimension_args, shapes)
    names = sorted({n.id for shape in shapes if shape for d in shape if isinstance(d, str)
                    for n in ast.walk(ast.parse(d, mode="eval")) if isinstance(n, ast.Name)}
                   - set(_FUNCTIONS))
    return Polymorphism(tuple(names), dimension_args, shapes)


def refine(text: str, shapes: list, dimension_values: list[int] = (), *, filename: str = "-") -> str:
    """``text`` with @main taking static arguments of ``shapes`` (one per argument after the
    leading dimension arguments; None for a token) and its dimension arguments bound to
    ``dimension_values``, refined by StableHLO's pass: the static program, as MLIR text.
    RefinementError (one line) when the pass refuses it, e.g. a shape assertion fails."""
    from jaxlib import _jax

    bytecode = _under_lock(_wrapped, text, list(shapes), list(dimension_values), filename)
    try:
        refined = _jax.mlir.refine_polymorphic_shapes(bytecode, enable_shape_assertions=True,
                                                      validate_static_shapes=True, enable_shardy="sdy." in text)
    except Exception as e:  # noqa: BLE001 - jaxlib's error types: one line saying why
        raise RefinementError(f"{filename}: shape refinement failed: {_first_error(str(e))}") from None
    return _under_lock(_printed, refined)


def _under_lock(fn, *args):
    """``fn(*args)`` holding the MLIR context's lock, every MLIR object it made gone before the
    lock is released (an error is re-raised without the traceback that would keep them alive):
    the context's bookkeeping is not thread-safe."""
    from jaxlib.mlir import ir

    ctx = mlir_context()  # (takes the lock itself: before it)
    error = None
    with context_lock, ctx, ir.Location.unknown():
        try:
            return fn(ir, *args)
        except (MlirError, RefinementError) as e:
            error = e.with_traceback(None)
            error.__context__ = None  # (jaxlib's MLIRError, whose diagnostics hold MLIR objects)
    raise error


def _wrapped(ir, text: str, shapes: list, dimension_values: list, filename: str) -> bytes:
    """The module with a new static @main calling the original one (as JAX calls an exported
    function: the arguments converted to the callee's dynamic types), as bytecode."""
    from jaxlib.mlir.dialects import func, stablehlo

    module = _parse(ir, text, filename)
    main = _main(ir, module)
    ftype = ir.FunctionType(ir.TypeAttr(main.attributes["function_type"]).value)
    inputs = list(ftype.inputs)
    n_dims = len(dimension_values)
    if len(shapes) + n_dims != len(inputs):
        raise RefinementError(f"{filename}: @main takes {len(inputs)} arguments, got {n_dims} dimension "
                              f"value(s) and {len(shapes)} shape(s)")
    static = [t if shape is None else ir.RankedTensorType.get(list(shape), t.element_type)
              for t, shape in zip(inputs[n_dims:], shapes)]
    ir.SymbolTable.set_symbol_name(main, _REFINED_MAIN)
    main.attributes["sym_visibility"] = ir.StringAttr.get("private")
    with ir.InsertionPoint(module.body):
        wrapper = func.FuncOp("main", (static, list(ftype.results)))
        wrapper.attributes["sym_visibility"] = ir.StringAttr.get("public")
        block = wrapper.add_entry_block()
        with ir.InsertionPoint(block):
            dims = [stablehlo.constant(ir.DenseElementsAttr.get(np.array(v, dtype=_integer_dtype(t)), type=t))
                    for v, t in zip(dimension_values, inputs)]
            args = [a if a.type == t else stablehlo.convert(t, a) for a, t in zip(block.arguments, inputs[n_dims:])]
            call = func.CallOp(list(ftype.results), ir.FlatSymbolRefAttr.get(_REFINED_MAIN), dims + args)
            func.ReturnOp(call.results)
    buffer = io.BytesIO()
    module.operation.write_bytecode(buffer)
    return buffer.getvalue()


def _printed(ir, bytecode: bytes) -> str:
    return str(ir.Module.parse(bytecode))


def dimension_value(expression: str, sizes: dict[str, int]) -> int:
    """A JAX dimension expression (``2*b``, ``b + -1``, ``floordiv(b, 2)``, ``max(b, 4)``, ...)
    at ``sizes``; KeyError naming a variable ``sizes`` lacks."""
    def value(node):
        if isinstance(node, ast.Expression):
            return value(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.Name):
            return sizes[ANY_SIZE] if node.id == ANY_SIZE else sizes[node.id]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -value(node.operand)
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            return _OPERATORS[type(node.op)](value(node.left), value(node.right))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS:
            return _FUNCTIONS[node.func.id](*[value(a) for a in node.args])
        raise ValueError(f"not a dimension expression: {expression!r}")
    if expression == ANY_SIZE:
        return sizes[ANY_SIZE]
    return int(value(ast.parse(expression, mode="eval")))


_OPERATORS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
              ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b}
#: The functions JAX's dimension expressions print (jax/_src/export/shape_poly.py).
_FUNCTIONS = {"floordiv": lambda a, b: a // b, "mod": lambda a, b: a % b, "max": max, "min": min,
              "non_negative": lambda a: max(a, 0)}


# ---------------------------------------------------------------------- reading the program

def _parse(ir, text: str, filename: str):
    try:
        module = ir.Module.parse(text)
    except ir.MLIRError as e:
        raise MlirError(mlir_diagnostics(e, filename)) from None
    if not module.operation.verify():
        raise MlirError([(filename, "module failed verification")])
    return module


def _main(ir, module):
    for op in module.body.operations:
        op = op.operation
        if op.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == "main":
            return op
    raise MlirError([("", "no func.func @main")])


def _argument_types(text: str, filename: str) -> list:
    """Per @main argument: (shape with None for ?, is a 32- or 64-bit integer) or None (not a tensor)."""
    return _under_lock(_types_of_main, text, filename)


def _types_of_main(ir, text: str, filename: str) -> list:
    module = _parse(ir, text, filename)  # (kept: its operations die with it)
    out = []
    for t in ir.FunctionType(ir.TypeAttr(_main(ir, module).attributes["function_type"]).value).inputs:
        if not isinstance(t, ir.RankedTensorType):
            out.append(None)
            continue
        shape = tuple(None if t.is_dynamic_dim(i) else t.get_dim_size(i) for i in range(t.rank))
        out.append((shape, isinstance(t.element_type, ir.IntegerType) and t.element_type.width in (32, 64)))
    return out


def _integer_dtype(t) -> type:
    return np.int32 if t.element_type.width == 32 else np.int64


_SPECIFICATION = re.compile(r"Using the following polymorphic shapes specifications: (.*?)\. Obtained")
_ARG_SHAPE = re.compile(r"args\[(\d+)\]\.shape = \(")


def _specification(text: str) -> list[tuple[str, ...]] | None:
    """JAX's shape specification of the arguments, as written in its shape assertions' messages
    (``args[0].shape = (b, 4),args[1].shape = (2*b,)``): per argument, its dims as text."""
    m = _SPECIFICATION.search(text)
    if not m:
        return None
    spec, out = m.group(1), []
    for arg in _ARG_SHAPE.finditer(spec):
        depth, start = 1, arg.end()
        for end in range(start, len(spec)):
            depth += {"(": 1, ")": -1}.get(spec[end], 0)
            if depth == 0:
                break
        out.append(tuple(_top_level_split(spec[start:end])))
    return out


def _top_level_split(text: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for c in text:
        depth += {"(": 1, ")": -1}.get(c, 0)
        if c == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += c
    if current.strip():
        parts.append(current.strip())
    return parts


def _match_specification(types: list, spec: list[tuple[str, ...]]) -> tuple | None:
    """Each argument's dims from the specification entry that fits it (same rank, same static
    dims; JAX leaves unused arguments out of the module, so entries may be skipped); None when
    an argument with a ? dimension finds none."""
    out, j = [], 0
    for t in types:
        if t is None:
            out.append(None)
            continue
        shape = t[0]
        while j < len(spec) and not _fits(shape, spec[j]):
            j += 1
        if j == len(spec):
            if None in shape:
                return None
            out.append(shape)
            continue
        out.append(tuple(d if d is not None else spec[j][i] for i, d in enumerate(shape)))
        j += 1
    return tuple(out)


def _fits(shape: tuple, dims: tuple[str, ...]) -> bool:
    return len(shape) == len(dims) and all(d is None or str(d) == text for d, text in zip(shape, dims))


def _first_error(message: str) -> str:
    """The first diagnostic of a refinement failure, without the status prefixes and locations."""
    m = re.search(r"error: (?:loc\([^)]*\): )?(.*)", message)
    return (m.group(1) if m else message.strip().splitlines()[0] if message.strip() else "unknown error").strip()
