"""Lowering of our IR (``oracle.ir``) onto PyTorch operations, op by op.

PyTorch has no StableHLO importer, so the torch backends (adapters/torch_backend.py) read
the program with ``oracle.mlir_text.parse_module`` and run each op as the torch operation
(or short composition of them) that means the same thing in the spec.  This is a
translation, not a call into the oracle: every value is a ``torch.Tensor`` computed by torch.
Where torch's own operation means something else than the spec (integer division by zero,
``sign(-0.0)``, ...), the translation keeps torch's operation and the difference is a listed
deviation (judge/deviations/torch.toml), not something patched here.

``lower(module)`` checks, before anything runs, that every op (nested regions included)
has a lowering and every element type a torch dtype; otherwise it raises
:class:`Unlowerable` (the backend reports ``rejected`` with the reason).  It returns a plain
Python function of torch tensors, which ``torch.compile`` can trace (shapes are static, so
all Python-level decisions depend only on the program).
"""

from __future__ import annotations

import numpy as np
import torch

from oracle import ir
from oracle.types import ElementType, TensorType, TupleType, TokenType


class Unlowerable(Exception):
    """The program uses an op, attribute or element type with no torch lowering."""


# ------------------------------------------------------------------------- types

#: Element type name -> torch dtype.  Missing: i2/i4/ui2/ui4 (torch's int1..int7 / uint1..uint7
#: have no arithmetic), f4E2M1FN (torch only has the packed float4_e2m1fn_x2), f6*, f8E3M4,
#: f8E4M3, f8E4M3B11FNUZ (no torch dtype).
TORCH_DTYPES = {
    "i1": torch.bool, "i8": torch.int8, "i16": torch.int16, "i32": torch.int32, "i64": torch.int64,
    "ui8": torch.uint8, "ui16": torch.uint16, "ui32": torch.uint32, "ui64": torch.uint64,
    "bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32, "f64": torch.float64,
    "f8E4M3FN": torch.float8_e4m3fn, "f8E4M3FNUZ": torch.float8_e4m3fnuz, "f8E5M2": torch.float8_e5m2,
    "f8E5M2FNUZ": torch.float8_e5m2fnuz, "f8E8M0FNU": torch.float8_e8m0fnu,
    "complex<f32>": torch.complex64, "complex<f64>": torch.complex128,
}

#: Unsigned integer dtypes of each byte size: the integer views that carry bits across
#: the numpy <-> torch boundary for dtypes numpy cannot hold natively (bf16, f8).
_BITS_TORCH = {1: torch.uint8, 2: torch.uint16, 4: torch.uint32, 8: torch.uint64}
_BITS_NUMPY = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
#: numpy dtypes torch.from_numpy / Tensor.numpy take as they are.
_NATIVE = {np.dtype(t) for t in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                                 np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128)}
_UNSIGNED_OF = {torch.int8: torch.uint8, torch.int16: torch.uint16, torch.int32: torch.uint32,
                torch.int64: torch.uint64}


def element_of(t) -> ElementType:
    if not isinstance(t, TensorType) or getattr(t.element_type, "is_quantized", False):
        raise Unlowerable(f"type {t} has no torch equivalent (only tensors of non-quantized element types)")
    return t.element_type


def torch_dtype(t) -> torch.dtype:
    et = element_of(t)
    try:
        return TORCH_DTYPES[et.name]
    except KeyError:
        raise Unlowerable(f"element type {et.name} has no torch dtype") from None


def to_torch(x: np.ndarray, et: ElementType) -> torch.Tensor:
    """A numpy array as a torch tensor of ``et``'s dtype (bits through an integer view)."""
    dtype = TORCH_DTYPES[et.name]
    x = np.array(x, order="C", copy=True)  # (np.ascontiguousarray would make rank 0 rank 1)
    if x.dtype in _NATIVE:
        return torch.from_numpy(x)
    raw = torch.from_numpy(x.view(_BITS_NUMPY[x.dtype.itemsize]))
    return raw.view(dtype)


def to_numpy(t: torch.Tensor, et: ElementType) -> np.ndarray:
    """The inverse of to_torch: an array of ``et.dtype``."""
    t = t.detach().contiguous().cpu()
    if t.dtype != TORCH_DTYPES[et.name]:
        raise RuntimeError(f"torch adapter: a result came back as {t.dtype}, expected {et.name}")
    if et.dtype in _NATIVE:
        return t.numpy().copy()
    return t.view(_BITS_TORCH[et.dtype.itemsize]).numpy().view(et.dtype).copy()


# ------------------------------------------------------------------- lowering table

LOWERINGS: dict = {}


def lowering(*names):
    def deco(fn):
        for n in names:
            LOWERINGS[n if "." in n else f"stablehlo.{n}"] = fn
        return fn
    return deco


def _kind(v: ir.Value) -> str:
    return element_of(v.type).kind


def _elementwise(fn):
    """An element-wise op whose torch function takes the operands as they are."""
    return lambda op, args, run: [fn(*args)]


def _by_kind(op_name: str, **per_kind):
    """Pick the torch function by the first operand's element kind (bool/sint/uint/float/complex)."""
    def lower(op, args, run):
        kind = _kind(op.operands[0])
        fn = per_kind.get(kind, per_kind.get("default"))
        if fn is None:
            raise Unlowerable(f"{op_name} on {kind} has no torch lowering")
        return [fn(*args)]
    return lower


_int_div = lambda a, b: torch.div(a, b, rounding_mode="trunc")  # spec: fractional part discarded
_SIMPLE = {
    "add": _by_kind("add", bool=torch.logical_or, default=torch.add),
    "subtract": _by_kind("subtract", default=torch.sub),
    "multiply": _by_kind("multiply", bool=torch.logical_and, default=torch.mul),
    "divide": _by_kind("divide", sint=_int_div, uint=_int_div, float=torch.div, complex=torch.div),
    "remainder": _by_kind("remainder", default=torch.fmod),  # sign of the dividend, like the spec
    "maximum": _by_kind("maximum", default=torch.maximum),
    "minimum": _by_kind("minimum", default=torch.minimum),
    "power": _by_kind("power", default=torch.pow),
    "atan2": _by_kind("atan2", default=torch.atan2),
    "and": _by_kind("and", default=torch.bitwise_and),
    "or": _by_kind("or", default=torch.bitwise_or),
    "xor": _by_kind("xor", default=torch.bitwise_xor),
    "not": _by_kind("not", default=torch.bitwise_not),
    "shift_left": _by_kind("shift_left", sint=torch.bitwise_left_shift, uint=torch.bitwise_left_shift),
    "abs": _elementwise(torch.abs),
    "negate": _elementwise(torch.neg),
    "sign": _by_kind("sign", complex=torch.sgn, default=torch.sign),
    "ceil": _elementwise(torch.ceil),
    "floor": _elementwise(torch.floor),
    "round_nearest_even": _elementwise(torch.round),  # torch.round rounds half to even
    "exponential": _elementwise(torch.exp),
    "exponential_minus_one": _elementwise(torch.expm1),
    "log": _elementwise(torch.log),
    "log_plus_one": _elementwise(torch.log1p),
    "logistic": _elementwise(torch.sigmoid),
    "sqrt": _elementwise(torch.sqrt),
    "rsqrt": _elementwise(torch.rsqrt),
    "sine": _elementwise(torch.sin),
    "cosine": _elementwise(torch.cos),
    "tan": _elementwise(torch.tan),
    "tanh": _elementwise(torch.tanh),
    "is_finite": _elementwise(torch.isfinite),
    "complex": _elementwise(torch.complex),
    "real": _elementwise(torch.real),
    "optimization_barrier": lambda op, args, run: list(args),
}
for _name, _fn in _SIMPLE.items():
    LOWERINGS[f"stablehlo.{_name}"] = _fn


@lowering("imag")
def _imag(op, args, run):
    (x,) = args
    return [torch.imag(x) if x.is_complex() else torch.zeros_like(x)]  # imag of a real number is 0


@lowering("shift_right_logical")
def _shift_right_logical(op, args, run):
    a, b = args
    if a.dtype in _UNSIGNED_OF:  # torch's >> is arithmetic on signed types: shift the unsigned view
        unsigned = _UNSIGNED_OF[a.dtype]
        return [torch.bitwise_right_shift(a.view(unsigned), b.view(unsigned)).view(a.dtype)]
    return [torch.bitwise_right_shift(a, b)]


_SIGNED_OF = {u: s for s, u in _UNSIGNED_OF.items()}


@lowering("shift_right_arithmetic")
def _shift_right_arithmetic(op, args, run):
    a, b = args
    if a.dtype in _SIGNED_OF:  # spec: on the bits, the top bit copied in; torch's >> on unsigned is logical
        signed = _SIGNED_OF[a.dtype]
        return [torch.bitwise_right_shift(a.view(signed), b.view(signed)).view(a.dtype)]
    return [torch.bitwise_right_shift(a, b)]


@lowering("round_nearest_afz")
def _round_afz(op, args, run):
    # torch has no round-half-away-from-zero: trunc, then step away from zero on a half or more
    (x,) = args
    t = torch.trunc(x)
    return [torch.where(torch.abs(x - t) >= 0.5, t + torch.sign(x), t)]


_COMPARE = {"EQ": torch.eq, "NE": torch.ne, "LT": torch.lt, "LE": torch.le, "GT": torch.gt, "GE": torch.ge}


@lowering("compare")
def _compare(op, args, run):
    if op.attr("compare_type", None) == "TOTALORDER":
        raise Unlowerable("compare with compare_type TOTALORDER has no torch lowering")
    return [_COMPARE[op.attr("comparison_direction")](*args)]


@lowering("select")
def _select(op, args, run):
    return [torch.where(*args)]


@lowering("clamp")
def _clamp(op, args, run):
    lo, x, hi = args
    return [torch.clamp(x, lo, hi)]


# ------------------------------------------------------------------ conversions

@lowering("convert")
def _convert(op, args, run):
    return [args[0].to(torch_dtype(op.results[0].type))]


@lowering("bitcast_convert")
def _bitcast_convert(op, args, run):
    (x,) = args
    dtype = torch_dtype(op.results[0].type)
    if (x.dtype == torch.bool) != (dtype == torch.bool):
        raise Unlowerable("bitcast_convert to or from i1: torch stores a bool in a byte")
    src, dst = x.element_size(), torch.empty((), dtype=dtype).element_size()
    if src == dst:
        return [x.view(dtype)]
    if src > dst:  # spec: a new last dimension of src/dst elements (little-endian order)
        return [x.unsqueeze(-1).view(dtype)]
    return [x.view(dtype).squeeze(-1)]


# ------------------------------------------------------------------ structural

def _shape(v: ir.Value) -> tuple:
    return tuple(v.type.shape)


@lowering("constant")
def _constant(op, args, run):
    return [to_torch(np.asarray(op.attr("value")), element_of(op.results[0].type))]


@lowering("iota")
def _iota(op, args, run):
    shape = _shape(op.results[0])
    dim = op.attr("iota_dimension")
    view = [1] * len(shape)
    view[dim] = shape[dim]
    ramp = torch.arange(shape[dim], dtype=torch.int64).reshape(view).to(torch_dtype(op.results[0].type))
    return [ramp.expand(shape).contiguous()]


@lowering("broadcast_in_dim")
def _broadcast_in_dim(op, args, run):
    (x,) = args
    dims = list(op.attr("broadcast_dimensions"))
    shape = _shape(op.results[0])
    order = sorted(range(len(dims)), key=dims.__getitem__)
    x = x.permute(order) if order != list(range(len(dims))) else x
    view = [1] * len(shape)
    for i in order:
        view[dims[i]] = _shape(op.operands[0])[i]
    return [x.reshape(view).expand(shape).contiguous()]


@lowering("reshape")
def _reshape(op, args, run):
    return [args[0].reshape(_shape(op.results[0]))]


@lowering("transpose")
def _transpose(op, args, run):
    return [args[0].permute(list(op.attr("permutation"))).contiguous()]


@lowering("slice")
def _slice(op, args, run):
    starts, limits, strides = op.attr("start_indices"), op.attr("limit_indices"), op.attr("strides")
    return [args[0][tuple(slice(s, l, k) for s, l, k in zip(starts, limits, strides))].contiguous()]


@lowering("concatenate")
def _concatenate(op, args, run):
    return [torch.cat(list(args), dim=op.attr("dimension"))]


@lowering("reverse")
def _reverse(op, args, run):
    dims = list(op.attr("dimensions"))
    return [torch.flip(args[0], dims) if dims else args[0]]


@lowering("pad")
def _pad(op, args, run):
    x, value = args
    lows, highs, interiors = op.attr("edge_padding_low"), op.attr("edge_padding_high"), op.attr("interior_padding")
    # every positive padding into a buffer filled with the padding value, then crop the negative ones
    spread = [(n - 1) * (i + 1) + 1 if n else 0 for n, i in zip(x.shape, interiors)]
    big = [max(lo, 0) + s + max(hi, 0) for lo, s, hi in zip(lows, spread, highs)]
    buf = value.expand(big).clone()
    buf[tuple(slice(max(lo, 0), max(lo, 0) + s, i + 1) for lo, s, i in zip(lows, spread, interiors))] = x
    return [buf[tuple(slice(max(-lo, 0), b - max(-hi, 0)) for lo, hi, b in zip(lows, highs, big))].contiguous()]


def _clamp_index(start: torch.Tensor, high: int) -> torch.Tensor:
    """clamp(0, start, high) as int64, for any integer index type (a ui64 index above
    2^63 - 1 is large, not negative)."""
    if start.dtype == torch.uint64:
        signed = start.view(torch.int64)
        return torch.where(signed < 0, torch.full_like(signed, high), torch.clamp(signed, 0, high))
    return torch.clamp(start.to(torch.int64), 0, high)


def _clamped_index_grid(starts, operand_shape, sizes):
    """Broadcastable index tensors for a window at ``starts`` clamped into the operand
    (dynamic_slice (semantics) / dynamic_update_slice: clamp(0, start, dim - size))."""
    rank = len(operand_shape)
    grid = []
    for d, (start, n, size) in enumerate(zip(starts, operand_shape, sizes)):
        s = _clamp_index(start, n - size)
        view = [1] * rank
        view[d] = size
        grid.append((s + torch.arange(size, dtype=torch.int64)).reshape(view))
    return tuple(grid)


@lowering("dynamic_slice")
def _dynamic_slice(op, args, run):
    x, *starts = args
    if x.dim() == 0:
        return [x.clone()]
    return [x[_clamped_index_grid(starts, x.shape, list(op.attr("slice_sizes")))]]


@lowering("dynamic_update_slice")
def _dynamic_update_slice(op, args, run):
    x, update, *starts = args
    if x.dim() == 0:
        return [update.clone()]
    out = x.clone()
    out[_clamped_index_grid(starts, x.shape, list(update.shape))] = update
    return [out]


@lowering("gather")
def _gather(op, args, run):
    # spec gather, vectorized: one int64 index tensor per operand dimension, each of shape
    # [batch dims..., slice dims...] (= full_start_index + full_batching_index + full_offset_index)
    operand, indices = args
    dn = op.attr("dimension_numbers")
    offset_dims = list(dn.get("offset_dims", ()))
    collapsed, operand_batching = list(dn.get("collapsed_slice_dims", ())), list(dn.get("operand_batching_dims", ()))
    indices_batching, start_map = list(dn.get("start_indices_batching_dims", ())), list(dn.get("start_index_map", ()))
    ivd, sizes = dn.get("index_vector_dim", 0), list(op.attr("slice_sizes"))
    indices = indices.unsqueeze(-1) if ivd == indices.dim() else indices.movedim(ivd, -1)
    batch_shape, rank = list(indices.shape[:-1]), operand.dim()
    nb = len(batch_shape)
    if rank == 0:
        return [operand.expand(_shape(op.results[0])).contiguous()]
    index = []
    for d in range(rank):
        if d in start_map:  # full_start_index, clamped
            start = _clamp_index(indices[..., start_map.index(d)], operand.shape[d] - sizes[d])
        elif d in operand_batching:  # full_batching_index: the position along that batch dim
            sd = indices_batching[operand_batching.index(d)]
            pos = sd - (0 if sd < ivd else 1)
            start = torch.arange(batch_shape[pos], dtype=torch.int64).reshape(
                [1] * pos + [batch_shape[pos]] + [1] * (nb - pos - 1))
        else:
            start = torch.zeros(batch_shape, dtype=torch.int64)  # (full size: the result has every batch dim)
        window = [1] * rank  # collapsed and batching dims read the one element at the start (offset 0)
        window[d] = sizes[d] if d not in collapsed and d not in operand_batching else 1
        offset = torch.arange(window[d], dtype=torch.int64).reshape([1] * nb + window)
        index.append(start.reshape(list(start.shape) + [1] * rank) + offset)
    window_dims = [d for d in range(rank) if d not in collapsed and d not in operand_batching]
    gathered = operand[tuple(index)].reshape(batch_shape + [sizes[d] for d in window_dims])
    # offset_dims of the result take the slice dims in order, the other dims the batch dims
    batch_axes, window_axes = iter(range(nb)), iter(range(nb, nb + len(window_dims)))
    perm = [next(window_axes) if r in offset_dims else next(batch_axes) for r in range(nb + len(window_dims))]
    return [gathered.permute(perm).contiguous()]


# ------------------------------------------------------------------ regions

def _body_binary_op(region: ir.Region) -> str | None:
    """The op name when a 2-argument region is ``return op(arg0, arg1)`` (either order)."""
    if len(region.arguments) != 2 or len(region.ops) != 2:
        return None
    first, ret = region.ops
    if ret.operands != first.results or set(first.operands) != set(region.arguments) or len(first.operands) != 2:
        return None
    return first.mnemonic


# reducer body op -> (kind -> torch reduction over dims)
_REDUCERS = {
    "add": {"bool": lambda x, d: torch.any(x, d) if d else x,
            "default": lambda x, d: torch.sum(x, d, dtype=x.dtype) if d else x},
    "multiply": {"bool": lambda x, d: torch.all(x, d) if d else x,
                 "default": lambda x, d: torch.prod(_prod_dims(x, d), -1, dtype=x.dtype) if d else x},
    "maximum": {"default": lambda x, d: torch.amax(x, d) if d else x},
    "minimum": {"default": lambda x, d: torch.amin(x, d) if d else x},
    "and": {"bool": lambda x, d: torch.all(x, d) if d else x},
    "or": {"bool": lambda x, d: torch.any(x, d) if d else x},
}


def _prod_dims(x, dims):
    """torch.prod takes one dim: move the reduced dims last and flatten them."""
    keep = [i for i in range(x.dim()) if i not in dims]
    return x.permute(keep + list(dims)).reshape([x.shape[i] for i in keep] + [-1])


@lowering("reduce")
def _reduce(op, args, run):
    n = len(args) // 2
    if n != 1:
        raise Unlowerable("variadic reduce has no torch lowering")
    body = _body_binary_op(op.regions[0])
    table = _REDUCERS.get(body)
    kind = _kind(op.operands[0])
    fn = None if table is None else table.get(kind, table.get("default") if kind != "bool" else None)
    if fn is None:
        raise Unlowerable(f"reduce with a {body or 'composite'} body on {kind} has no torch reduction")
    x, init = args
    dims = sorted(op.attr("dimensions"))
    out_shape = _shape(op.results[0])
    if any(x.shape[d] == 0 for d in dims):  # nothing to reduce: the init value (torch.amax refuses)
        return [init.expand(out_shape).clone()]
    reduced = fn(x, dims)
    # spec: the init value is one more element of every reduction
    return [LOWERINGS[f"stablehlo.{body}"](op.regions[0].ops[0], [reduced, init.expand(out_shape)], run)[0]]


_ELEMENTWISE_BODY_OPS = set(_SIMPLE) | {"imag", "shift_right_logical", "shift_right_arithmetic", "round_nearest_afz",
                                        "compare", "select",
                                        "clamp", "convert", "constant", "return"}


@lowering("map")
def _map(op, args, run):
    # a body of element-wise ops applied to whole tensors is the map (rank-0 constants broadcast)
    body = op.regions[0]
    if any(o.mnemonic not in _ELEMENTWISE_BODY_OPS for o in body.ops):
        raise Unlowerable("map whose body is not element-wise has no torch lowering")
    return [r.expand(_shape(op.results[0])).contiguous() for r in run(body, list(args))]


# ------------------------------------------------------------------ dot_general

@lowering("dot_general")
def _dot_general(op, args, run):
    lhs, rhs = args
    dims = op.attr("dot_dimension_numbers")
    lb, rb = list(dims.get("lhs_batching_dimensions", ())), list(dims.get("rhs_batching_dimensions", ()))
    lc, rc = list(dims.get("lhs_contracting_dimensions", ())), list(dims.get("rhs_contracting_dimensions", ()))
    lf = [d for d in range(lhs.dim()) if d not in lb + lc]
    rf = [d for d in range(rhs.dim()) if d not in rb + rc]
    dtype = torch_dtype(op.results[0].type)
    size = lambda t, ds: int(np.prod([t.shape[d] for d in ds], dtype=np.int64))
    # spec: result[batch, lhs free, rhs free] = sum over contracting dims, in the result type
    a = lhs.to(dtype).permute(lb + lf + lc).reshape(size(lhs, lb), size(lhs, lf), size(lhs, lc))
    b = rhs.to(dtype).permute(rb + rc + rf).reshape(size(rhs, rb), size(rhs, rc), size(rhs, rf))
    return [torch.bmm(a, b).reshape(_shape(op.results[0]))]


# ------------------------------------------------------------------ fft

@lowering("fft")
def _fft(op, args, run):
    (x,) = args
    lengths = list(op.attr("fft_length"))
    dims = list(range(x.dim() - len(lengths), x.dim()))
    kind = op.attr("fft_type")
    if kind == "FFT":
        return [torch.fft.fftn(x, dim=dims)]
    if kind == "IFFT":
        return [torch.fft.ifftn(x, dim=dims)]
    if kind == "RFFT":
        return [torch.fft.rfftn(x, dim=dims)]
    return [torch.fft.irfftn(x, s=lengths, dim=dims)]


# ------------------------------------------------------------------ the program

# ------------------------------------------------------------------ CHLO ops
# The CHLO ops torch has a function for (torch.special follows SciPy's conventions).  No
# torch function: chlo.mulhi, chlo.polygamma with a tensor order n (torch.special.polygamma
# takes one integer n), chlo.ragged_dot, chlo.scan: Unlowerable.  broadcast_* ops: below.
_CHLO_SIMPLE = {
    "acos": torch.acos, "acosh": torch.acosh, "asin": torch.asin, "asinh": torch.asinh,
    "atan": torch.atan, "atanh": torch.atanh, "cosh": torch.cosh, "sinh": torch.sinh, "tan": torch.tan,
    "erf": torch.special.erf, "erfc": torch.special.erfc, "erf_inv": torch.special.erfinv,
    "lgamma": torch.lgamma, "digamma": torch.special.digamma, "bessel_i1e": torch.special.i1e,
    "zeta": torch.special.zeta, "next_after": torch.nextafter, "square": torch.square,
    "is_inf": torch.isinf, "is_neg_inf": torch.isneginf, "is_pos_inf": torch.isposinf,
}
for _name, _fn in _CHLO_SIMPLE.items():
    LOWERINGS[f"chlo.{_name}"] = _elementwise(_fn)


@lowering("chlo.conj")
def _conj(op, args, run):
    (x,) = args
    return [torch.conj_physical(x) if x.is_complex() else x]


@lowering("chlo.top_k")
def _top_k(op, args, run):
    values, indices = torch.topk(args[0], int(op.attr("k")), dim=-1, largest=True, sorted=True)
    return [values, indices.to(torch_dtype(op.results[1].type))]


@lowering("chlo.constant_like")
def _constant_like(op, args, run):
    value = op.attributes["value"]
    v = np.asarray(value.value).reshape(()).item() if isinstance(value, ir.DenseElements) else op.attr("value")
    return [torch.full(tuple(args[0].shape), v, dtype=torch_dtype(op.results[0].type), device=args[0].device)]


def _chlo_broadcasting(base: str):
    """chlo.broadcast_<op>: broadcast both operands to the result shape (numpy-style, or
    broadcast_dimensions for a lower-rank operand), then the StableHLO op's lowering."""
    def lower(op, args, run):
        shape = tuple(op.results[0].type.shape)
        dims = op.attr("broadcast_dimensions", None)
        full = []
        for x in args:
            if x.dim() < len(shape):
                mapped = tuple(int(d) for d in dims) if dims is not None else tuple(
                    range(len(shape) - x.dim(), len(shape)))
                view = [1] * len(shape)
                for i, d in enumerate(mapped):
                    view[d] = x.shape[i]
                x = x.reshape(view)
            full.append(x.expand(shape))
        return LOWERINGS[base](op, full, run)
    return lower


for _name in ("add", "subtract", "multiply", "divide", "remainder", "power", "maximum", "minimum", "atan2",
              "and", "or", "xor", "shift_left", "complex", "compare", "select"):
    LOWERINGS[f"chlo.broadcast_{_name}"] = _chlo_broadcasting(f"stablehlo.{_name}")


def _check(module: ir.Module) -> None:
    for op in module.walk_ops():
        if op.name in ("func.return", "stablehlo.return"):
            continue
        if op.name not in LOWERINGS:
            raise Unlowerable(f"{op.name} has no torch lowering")
        for v in list(op.operands) + list(op.results):
            if isinstance(v.type, (TupleType, TokenType)):
                raise Unlowerable(f"{op.name}: tuple and token values have no torch lowering")
            torch_dtype(v.type)
    for f in module.functions:
        for v in f.arguments:
            torch_dtype(v.type)
        for t in f.result_types:
            torch_dtype(t)


def lower(module: ir.Module):
    """A function ``f(*tensors) -> list[tensor]`` computing @main with torch (Unlowerable if
    some op or type has no lowering).  Lowerings raise Unlowerable for attributes they cannot
    express when ``f`` runs: the backend runs it once on ``meta`` tensors (no data) first."""
    _check(module)
    main = module.main

    def run_ops(ops, env):
        for op in ops:
            if op.name in ("func.return", "stablehlo.return"):
                return [env[v] for v in op.operands]
            outs = LOWERINGS[op.name](op, [env[v] for v in op.operands], run_region)
            env.update(zip(op.results, outs))
        raise Unlowerable("a block without a terminator")

    def run_region(region: ir.Region, args):
        return run_ops(region.ops, dict(zip(region.arguments, args)))

    def program(*tensors):
        return run_ops(main.ops, dict(zip(main.arguments, tensors)))

    return program
