"""How the CHLO ops are drawn (the oracle's evaluation: oracle/ops/chlo.py).

The element-wise ones draw one shape for all operands and the result; where a function has a
domain (acos, lgamma, polygamma, ...), its inputs are mostly inside it, with the domain's edges
and special values on purpose.  top_k, ragged_dot and the broadcasting ops draw their own
signatures.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from oracle import ir
from oracle.ops._elementwise import as_element
from oracle.registry import Signature, all_ops
from oracle.types import TensorType, element_type

from . import samplers
from .elementwise import draw_same_shape
from .elements import drawn_elements, pick, sampled_from
from .elements import integers as integer_sample


def _domain_inputs(lo, hi, *, specials=(), integers=False):
    """draw_inputs: values mostly in [lo, hi] (exact in the type), some edge values."""
    def draw_inputs(draw, signature):
        out = []
        for t in signature.operand_types:
            et = as_element(t.element_type)
            n = math.prod(t.shape)
            inside = st.integers(int(lo), int(hi)).map(float) if integers else st.floats(lo, hi)
            edges = (lo, hi) + tuple(specials)  # one element in ~8: most tensors have none
            inside_sample = integer_sample(int(lo), int(hi)) if integers else (
                lambda rng, k: rng.uniform(lo, hi, k))
            vals = drawn_elements(draw, n, st.one_of(*[inside] * 7, st.sampled_from(edges)),
                                  lambda rng, k: pick(rng, k, *[inside_sample] * 7, sampled_from(edges)))
            arr = np.array(vals, np.float64).reshape(t.shape)
            out.append(np.asarray(arr.astype(np.float32) if et.bits < 64 else arr).astype(et.dtype))
        return out
    return draw_inputs


def _each_operand(*draws):
    def draw_inputs(draw, signature):
        return [d(draw, Signature((t,), {}, ())).pop() for d, t in zip(draws, signature.operand_types)]
    return draw_inputs


_NAN = math.nan


_DOMAINS = {
    "acos": _domain_inputs(-1.0, 1.0, specials=(0.0, -0.0, 1.5, _NAN)),
    "asin": _domain_inputs(-1.0, 1.0, specials=(0.0, -0.0, -1.5, _NAN)),
    "atanh": _domain_inputs(-1.0, 1.0, specials=(0.0, -0.0, 2.0, _NAN)),
    "acosh": _domain_inputs(1.0, 50.0, specials=(0.5, math.inf, _NAN)),
    "erf_inv": _domain_inputs(-1.0, 1.0, specials=(0.0, -0.0, 0.999, -0.999, _NAN)),
    "lgamma": _domain_inputs(-6.0, 30.0, specials=(0.0, -1.0, -2.5, 1.0, 2.0, math.inf, _NAN)),
    "digamma": _domain_inputs(-6.0, 30.0, specials=(0.0, -1.0, -2.5, 1.0, math.inf, _NAN)),
    "cosh": _domain_inputs(-20.0, 20.0, specials=(0.0, math.inf, -math.inf, _NAN)),
    "sinh": _domain_inputs(-20.0, 20.0, specials=(0.0, -0.0, math.inf, _NAN)),
    "tan": _domain_inputs(-10.0, 10.0, specials=(0.0, -0.0, math.inf, _NAN)),
    "erfc": _domain_inputs(-6.0, 12.0, specials=(0.0, math.inf, -math.inf, _NAN)),
}


_polygamma_inputs = _each_operand(_domain_inputs(0, 4, integers=True, specials=(0.5,)),
                                  _domain_inputs(-3.0, 20.0, specials=(0.0, -1.0, 1.0, math.inf)))


_zeta_inputs = _each_operand(_domain_inputs(1.0, 12.0, specials=(0.5, 2.0, math.inf)),
                             _domain_inputs(-3.0, 20.0, specials=(0.0, -2.0, -1.5, 1.0)))


def _draw_shape(draw, *, min_rank=0, max_rank=4, min_side=0, max_side=5):
    """A static shape."""
    return tuple(draw(st.lists(st.integers(min_side, max_side), min_size=min_rank, max_size=max_rank)))


_draw_predicate = draw_same_shape(1, result=lambda et: element_type("i1"))


def _draw_top_k(draw, operand_type):
    et = as_element(operand_type)
    shape = _draw_shape(draw, min_rank=1)
    if shape[-1] == 0:
        shape = shape[:-1] + (1,)
    k = draw(st.integers(0, shape[-1]))
    out_shape = shape[:-1] + (k,)
    return Signature((TensorType(shape, et),), {"k": ir.IntegerAttr(k, "i64")},
                     (TensorType(out_shape, et), TensorType(out_shape, element_type("i32"))))


def _draw_ragged_dot(draw, operand_type):
    """The three modes of lax.ragged_dot_general, with 0-1 batch dims and group_sizes either
    [g] or batched [b..., x..., g]: mode 1 lhs [b, m, k] x rhs [g, b, k, n] -> [b, m, n];
    mode 2 lhs [b, m, k] x rhs [b, k, n] -> [g, b, m, n] (k ragged); mode 3 lhs [b, m, k] x
    rhs [b, k, n] -> [b, m, n] (b ragged, needs a batch dim)."""
    et = as_element(operand_type)
    mode = draw(st.sampled_from((1, 2, 3)))
    nb = 1 if mode == 3 else draw(st.integers(0, 1))
    b, m, k, n, g = (draw(st.integers(1, 4)) for _ in range(5))
    B = (b,) * nb
    bd = tuple(range(nb))
    ragged = {1: nb, 2: nb + 1, 3: 0}[mode]
    rhs_shape = ((g,) if mode == 1 else ()) + B + (k, n)
    rhs_off = 1 if mode == 1 else 0
    dims = ir.StructAttr("chlo.ragged_dot", (
        ("lhs_batching_dimensions", bd), ("rhs_batching_dimensions", tuple(d + rhs_off for d in bd)),
        ("lhs_contracting_dimensions", (nb + 1,)), ("rhs_contracting_dimensions", (nb + rhs_off,)),
        ("lhs_ragged_dimensions", (ragged,)), ("rhs_group_dimensions", (0,) if mode == 1 else ())))
    batched = mode != 3 and nb and draw(st.booleans())
    sizes_shape = (B if batched else ()) + (g,)
    out = ((g,) if mode == 2 else ()) + B + (m, n)
    return Signature((TensorType(B + (m, k), et), TensorType(rhs_shape, et), TensorType(sizes_shape, element_type("i64"))),
                     {"ragged_dot_dimension_numbers": dims}, (TensorType(out, et),))


def _draw_ragged_dot_inputs(draw, signature):
    """O(1) operands; group sizes >= 0 summing to at most the ragged dim (the rest is in no group)."""
    lhs_t, rhs_t, sizes_t = signature.operand_types
    (ragged,) = signature.attributes["ragged_dot_dimension_numbers"].value["lhs_ragged_dimensions"]
    length = lhs_t.shape[ragged]
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    cuts = np.sort(rng.integers(0, length + 1, tuple(sizes_t.shape)), axis=-1)
    sizes = np.diff(cuts, axis=-1, prepend=0).astype(np.int64)
    def values(t):
        return np.asarray(rng.uniform(-2, 2, t.shape).astype(np.float32)).astype(as_element(t.element_type).dtype)
    return [values(lhs_t), values(rhs_t), sizes]


def _draw_broadcast(draw, operand_type):
    """lhs of some shape, rhs of a trailing part of it (numpy-style broadcasting), or with
    broadcast_dimensions mapping a lower-rank rhs onto chosen lhs dimensions."""
    et = as_element(operand_type)
    shape = _draw_shape(draw, min_rank=1, max_rank=3, min_side=1)
    rank = draw(st.integers(0, len(shape)))
    attrs = {}
    if rank and rank < len(shape) and draw(st.booleans()):
        dims = tuple(sorted(draw(st.permutations(range(len(shape))))[:rank]))
        attrs["broadcast_dimensions"] = ir.DenseArray("i64", dims)
        rhs = tuple(shape[d] for d in dims)
    else:
        rhs = shape[len(shape) - rank:]
    return Signature((TensorType(shape, et), TensorType(rhs, et)), attrs, (TensorType(shape, et),))


# ================================================================== registration
# The element-wise CHLO ops are the records with an arity (oracle/ops/chlo.py registers them).
_PREDICATES = ("chlo.is_inf", "chlo.is_neg_inf", "chlo.is_pos_inf")
_INPUTS = {**{f"chlo.{name}": draw for name, draw in _DOMAINS.items()},
           "chlo.polygamma": _polygamma_inputs, "chlo.zeta": _zeta_inputs}
for _name, _info in sorted(all_ops().items()):
    if _info.family != "chlo":
        continue
    if "arity" in _info.extra:
        _draw = _draw_predicate if _name in _PREDICATES else draw_same_shape(_info.extra["arity"])
        samplers(_name, draw_signature=_draw, draw_inputs=_INPUTS.get(_name))
    elif _name.startswith("chlo.broadcast_") and _info.element_types:  # the others are not generated
        samplers(_name, draw_signature=_draw_broadcast)
samplers("chlo.top_k", draw_signature=_draw_top_k)
samplers("chlo.ragged_dot", draw_signature=_draw_ragged_dot, draw_inputs=_draw_ragged_dot_inputs)
