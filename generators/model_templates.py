"""Fusion-prone program templates drawn as wholes: the shapes of real model
code that compilers fuse and mis-optimize, each with drawn sizes (1, primes and powers of
two) and a drawn float type.

* ``softmax``: reduce max -> broadcast -> subtract -> exp -> reduce add -> broadcast -> divide;
* ``layer_norm``: mean and variance reductions feeding broadcasts, rsqrt, scale and shift (bf16 /
  f16 with the statistics in f32 or not);
* ``attention``: dot_general -> scale -> select with a (causal or given) mask -> softmax -> dot_general;
* ``dense``: dot -> bias -> activation (tanh, relu as maximum with 0, gelu's tanh form);
* ``scatter_add``: embedding rows accumulated by scatter with an add body (repeated indices),
  then the same rows looked up by gather;
* ``reduce_broadcast``: a reduction over drawn dimensions broadcast back and combined with its operand;
* ``scan``: a while loop computing a cumulative sum or a running max row by row.

Each is written as StableHLO text in JAX's style (scalar constants broadcast where used) and
read by ``oracle.parse_module``, so the StableHLO verifier checks every template drawn.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

FLOAT_TYPES = ("f32", "bf16", "f16", "f64")
#: Dimension sizes: 1, primes (remainder loops after vectorization), powers of two and their neighbours.
SIZES = (1, 2, 3, 5, 7, 8, 13, 16, 17, 31, 32, 33)
#: -inf of each float type, as MLIR's hexadecimal dense literal (the max-reduction's identity).
NEG_INF = {"f32": "0xFF800000", "f64": "0xFFF0000000000000", "f16": "0xFC00", "bf16": "0xFF80"}


def _sizes(draw, n: int, zero: bool = True) -> list[int]:
    """``n`` dimension sizes; one in ~12 programs has a zero-size dimension."""
    out = [draw(st.sampled_from(SIZES)) for _ in range(n)]
    if zero and draw(st.integers(0, 11)) == 0:
        out[draw(st.integers(0, n - 1))] = 0
    return out


def tensor(shape, et: str) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + et + ">"


class Text:
    """A @main body written op by op: each op line gets a fresh name."""

    def __init__(self, et: str):
        self.et, self.args, self.lines, self.count = et, [], [], 0
        self.fixed: dict[int, np.ndarray] = {}  # argument index -> the values it must have (indices)
        self.result: list[tuple[str, str]] = []  # (value, type) @main returns

    def arg(self, shape, et: str | None = None) -> str:
        self.args.append(tensor(shape, et or self.et))
        return f"%arg{len(self.args) - 1}"

    def op(self, text: str) -> str:
        name = f"%v{self.count}"
        self.count += 1
        self.lines.append(f"    {name} = {text}")
        return name

    def splat(self, value: str, shape, et: str | None = None) -> str:
        """A scalar constant broadcast to ``shape`` (JAX's form)."""
        et = et or self.et
        scalar = self.op(f"stablehlo.constant dense<{value}> : {tensor((), et)}")
        if not shape:
            return scalar
        return self.op(f"stablehlo.broadcast_in_dim {scalar}, dims = [] : ({tensor((), et)}) -> {tensor(shape, et)}")

    def unary(self, name: str, x: str, shape) -> str:
        return self.op(f"stablehlo.{name} {x} : {tensor(shape, self.et)}")

    def binary(self, name: str, a: str, b: str, shape) -> str:
        return self.op(f"stablehlo.{name} {a}, {b} : {tensor(shape, self.et)}")

    def reduce(self, x: str, shape, dims, reducer: str) -> tuple[str, list]:
        """``x`` reduced over ``dims`` by add / maximum / minimum / multiply; (value, shape)."""
        init = {"add": "0.0", "maximum": NEG_INF[self.et], "minimum": NEG_INF[self.et].replace("0xF", "0x7", 1),
                "multiply": "1.0"}[reducer]
        c = self.op(f"stablehlo.constant dense<{init}> : {tensor((), self.et)}")
        out = [d for i, d in enumerate(shape) if i not in dims]
        dims_text = ", ".join(map(str, dims))
        return self.op(f"stablehlo.reduce({x} init: {c}) applies stablehlo.{reducer} across dimensions = "
                       f"[{dims_text}] : ({tensor(shape, self.et)}, {tensor((), self.et)}) -> "
                       f"{tensor(out, self.et)}"), out

    def broadcast(self, x: str, shape, dims, to) -> str:
        return self.op(f"stablehlo.broadcast_in_dim {x}, dims = [{', '.join(map(str, dims))}] : "
                       f"({tensor(shape, self.et)}) -> {tensor(to, self.et)}")

    def module(self, results: list[tuple[str, str]]) -> str:
        args = ", ".join(f"%arg{i}: {t}" for i, t in enumerate(self.args))
        names, types = ", ".join(r for r, _ in results), ", ".join(t for _, t in results)
        return (f"func.func @main({args}) -> ({types}) {{\n" + "\n".join(self.lines)
                + f"\n    return {names} : {types}\n}}\n")


def softmax_of(b: Text, x: str, shape) -> str:
    """Softmax over the last dimension of ``x``, as jax.nn.softmax lowers it."""
    last = len(shape) - 1
    keep = list(range(last))
    m, mshape = b.reduce(x, shape, [last], "maximum")
    shifted = b.binary("subtract", x, b.broadcast(m, mshape, keep, shape), shape)
    e = b.unary("exponential", shifted, shape)
    s, sshape = b.reduce(e, shape, [last], "add")
    return b.binary("divide", e, b.broadcast(s, sshape, keep, shape), shape)


def softmax(draw, et: str) -> Text:
    b = Text(et)
    shape = _sizes(draw, draw(st.integers(1, 3)))
    x = b.arg(shape)
    b.result = [(softmax_of(b, x, shape), tensor(shape, et))]
    return b


def layer_norm(draw, et: str) -> Text:
    """Layer norm over the last dimension; for bf16 / f16 drawn either in the type itself or,
    as flax does, with the statistics in f32 (converts fused into the reductions)."""
    b = Text(et)
    rows, n = _sizes(draw, 2)
    shape = [rows, n]
    x, gamma, beta = b.arg(shape), b.arg([n]), b.arg([n])
    wide = et in ("bf16", "f16") and draw(st.booleans())
    if wide:
        x = b.op(f"stablehlo.convert {x} : ({tensor(shape, et)}) -> {tensor(shape, 'f32')}")
        b.et = "f32"
    inv_n = b.splat(repr(1.0 / n) if n else "0.0", [rows])
    s, _ = b.reduce(x, shape, [1], "add")
    mean = b.binary("multiply", s, inv_n, [rows])
    centered = b.binary("subtract", x, b.broadcast(mean, [rows], [0], shape), shape)
    sq, _ = b.reduce(b.binary("multiply", centered, centered, shape), shape, [1], "add")
    var = b.binary("multiply", sq, inv_n, [rows])
    inv = b.unary("rsqrt", b.binary("add", var, b.splat("9.99999974E-6", [rows]), [rows]), [rows])
    y = b.binary("multiply", centered, b.broadcast(inv, [rows], [0], shape), shape)
    if wide:
        y = b.op(f"stablehlo.convert {y} : ({tensor(shape, 'f32')}) -> {tensor(shape, et)}")
        b.et = et
    y = b.binary("multiply", y, b.broadcast(gamma, [n], [1], shape), shape)
    y = b.binary("add", y, b.broadcast(beta, [n], [1], shape), shape)
    b.result = [(y, tensor(shape, et))]
    return b


def attention(draw, et: str) -> Text:
    b = Text(et)
    batch, s, t, d = _sizes(draw, 4)
    q, k, v = b.arg([batch, s, d]), b.arg([batch, t, d]), b.arg([batch, t, d])
    scores_shape = [batch, s, t]
    scores = b.op(f"stablehlo.dot_general {q}, {k}, batching_dims = [0] x [0], contracting_dims = [2] x [2] : "
                  f"({tensor([batch, s, d], et)}, {tensor([batch, t, d], et)}) -> {tensor(scores_shape, et)}")
    scale = repr(1.0 / max(d, 1) ** 0.5)
    scores = b.binary("multiply", scores, b.splat(scale, scores_shape), scores_shape)
    if draw(st.booleans()):  # causal: query i sees keys j <= i
        qi = b.op(f"stablehlo.iota dim = 1 : {tensor(scores_shape, 'i32')}")
        ki = b.op(f"stablehlo.iota dim = 2 : {tensor(scores_shape, 'i32')}")
        mask = b.op(f"stablehlo.compare GE, {qi}, {ki}, SIGNED : ({tensor(scores_shape, 'i32')}, "
                    f"{tensor(scores_shape, 'i32')}) -> {tensor(scores_shape, 'i1')}")
    else:  # a padding mask given as an input
        mask = b.arg(scores_shape, "i1")
    filled = b.splat("-1.000000e+04", scores_shape)
    masked = b.op(f"stablehlo.select {mask}, {scores}, {filled} : {tensor(scores_shape, 'i1')}, "
                  f"{tensor(scores_shape, et)}")
    p = softmax_of(b, masked, scores_shape)
    out = b.op(f"stablehlo.dot_general {p}, {v}, batching_dims = [0] x [0], contracting_dims = [2] x [1] : "
               f"({tensor(scores_shape, et)}, {tensor([batch, t, d], et)}) -> {tensor([batch, s, d], et)}")
    b.result = [(out, tensor([batch, s, d], et))]
    return b


def dense(draw, et: str) -> Text:
    b = Text(et)
    rows, k, n = _sizes(draw, 3)
    shape = [rows, n]
    x, w, bias = b.arg([rows, k]), b.arg([k, n]), b.arg([n])
    y = b.op(f"stablehlo.dot_general {x}, {w}, contracting_dims = [1] x [0] : "
             f"({tensor([rows, k], et)}, {tensor([k, n], et)}) -> {tensor(shape, et)}")
    y = b.binary("add", y, b.broadcast(bias, [n], [1], shape), shape)
    activation = draw(st.sampled_from(("relu", "tanh", "gelu")))
    if activation == "relu":
        y = b.binary("maximum", y, b.splat("0.0", shape), shape)
    elif activation == "tanh":
        y = b.unary("tanh", y, shape)
    else:  # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
        cube = b.binary("multiply", b.binary("multiply", y, y, shape), y, shape)
        inner = b.binary("add", y, b.binary("multiply", cube, b.splat("0.044715", shape), shape), shape)
        t = b.unary("tanh", b.binary("multiply", inner, b.splat("0.797884583", shape), shape), shape)
        half = b.binary("multiply", y, b.splat("0.5", shape), shape)
        y = b.binary("multiply", half, b.binary("add", t, b.splat("1.0", shape), shape), shape)
    b.result = [(y, tensor(shape, et))]
    return b


def scatter_add(draw, et: str) -> Text:
    b = Text(et)
    vocab, rows, d = _sizes(draw, 3)
    table, indices, updates = b.arg([vocab, d]), b.arg([rows, 1], "i32"), b.arg([rows, d])
    seed = draw(st.integers(0, 2**32 - 1))
    # indices in range, repeated on purpose: updates to one row accumulate in an unspecified order
    b.fixed[1] = np.random.default_rng(seed).integers(0, max(vocab, 1), (rows, 1)).astype(np.int32)
    s = tensor((), et)
    out = b.op(
        f'"stablehlo.scatter"({table}, {indices}, {updates}) ({{\n    ^bb0(%a: {s}, %b: {s}):\n'
        f"      %sum = stablehlo.add %a, %b : {s}\n      stablehlo.return %sum : {s}\n    }}) "
        "{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], "
        "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, "
        f"unique_indices = false}} : ({tensor([vocab, d], et)}, {tensor([rows, 1], 'i32')}, "
        f"{tensor([rows, d], et)}) -> {tensor([vocab, d], et)}")
    b.result = [(out, tensor([vocab, d], et))]
    if vocab:  # the lookup of the same rows in the updated table (a gather of slices [1, d])
        rows_out = b.op(
            f'"stablehlo.gather"({out}, {indices}) {{dimension_numbers = #stablehlo.gather<offset_dims = [1], '
            "collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, "
            f"slice_sizes = array<i64: 1, {d}>}} : ({tensor([vocab, d], et)}, {tensor([rows, 1], 'i32')}) -> "
            f"{tensor([rows, d], et)}")
        b.result.append((rows_out, tensor([rows, d], et)))
    return b


def reduce_broadcast(draw, et: str) -> Text:
    b = Text(et)
    shape = _sizes(draw, draw(st.integers(1, 3)))
    dims = sorted(draw(st.sets(st.integers(0, len(shape) - 1), min_size=1)))
    x = b.arg(shape)
    reducer = draw(st.sampled_from(("add", "maximum", "minimum", "multiply")))
    r, rshape = b.reduce(x, shape, dims, reducer)
    kept = [i for i in range(len(shape)) if i not in dims]
    combine = draw(st.sampled_from(("subtract", "divide", "multiply", "add")))
    y = b.binary(combine, x, b.broadcast(r, rshape, kept, shape), shape)
    b.result = [(y, tensor(shape, et)), (r, tensor(rshape, et))]
    return b


def scan(draw, et: str) -> Text:
    """A row-by-row while loop: out[i] = acc = acc (+ | max) x[i]."""
    b = Text(et)
    (n,), (d,) = _sizes(draw, 1, zero=False), _sizes(draw, 1)  # (a row slice needs n >= 1)
    x = b.arg([n, d])
    combine = draw(st.sampled_from(("add", "maximum")))
    acc0 = b.splat("0.0" if combine == "add" else NEG_INF[et], [d])
    out0 = b.splat("0.0", [n, d])
    zero = b.op("stablehlo.constant dense<0> : tensor<i32>")
    i32 = "tensor<i32>"
    row, acc_t, out_t, x_t = tensor([1, d], et), tensor([d], et), tensor([n, d], et), tensor([n, d], et)
    types = f"{i32}, {acc_t}, {out_t}, {x_t}"
    loop = b.op(
        f"stablehlo.while(%i = {zero}, %acc = {acc0}, %out = {out0}, %x = {x}) : {types}\n"
        f"     cond {{\n"
        f"      %n = stablehlo.constant dense<{n}> : {i32}\n"
        f"      %p = stablehlo.compare LT, %i, %n, SIGNED : ({i32}, {i32}) -> tensor<i1>\n"
        f"      stablehlo.return %p : tensor<i1>\n"
        f"    }} do {{\n"
        f"      %z = stablehlo.constant dense<0> : {i32}\n"
        f"      %r = stablehlo.dynamic_slice %x, %i, %z, sizes = [1, {d}] : ({x_t}, {i32}, {i32}) -> {row}\n"
        f"      %rr = stablehlo.reshape %r : ({row}) -> {acc_t}\n"
        f"      %a = stablehlo.{combine} %acc, %rr : {acc_t}\n"
        f"      %ar = stablehlo.reshape %a : ({acc_t}) -> {row}\n"
        f"      %o = stablehlo.dynamic_update_slice %out, %ar, %i, %z : ({out_t}, {row}, {i32}, {i32}) -> {out_t}\n"
        f"      %one = stablehlo.constant dense<1> : {i32}\n"
        f"      %j = stablehlo.add %i, %one : {i32}\n"
        f"      stablehlo.return %j, %a, %o, %x : {types}\n"
        f"    }}")
    b.lines[-1] = b.lines[-1].replace(f"{loop} = ", f"{loop}:4 = ", 1)  # the while's four results
    b.result = [(f"{loop}#2", out_t)]
    return b


TEMPLATES = {"softmax": softmax, "layer_norm": layer_norm, "attention": attention, "dense": dense,
             "scatter_add": scatter_add, "reduce_broadcast": reduce_broadcast, "scan": scan}


def template_text(draw, name: str, et: str) -> tuple[str, dict]:
    """The template ``name`` drawn for element type ``et``: (MLIR text, {argument index: fixed values})."""
    b = TEMPLATES[name](draw, et)
    return b.module(b.result), b.fixed
