"""How reduce, reduce_window, select_and_scatter and map are drawn (the oracle's evaluation:
oracle/ops/reductions.py).

Random signatures take a body from generators.regions' menus; their init values are mostly
the body's identities, so that most results are schedule-independent and compared.  The
attribute classes pin the shapes, windows and init values the spec distinguishes.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from oracle import ir
from oracle.ops.reductions import is_identity, monoid_identity, monoid_ops, num_windows
from oracle.registry import Signature
from oracle.types import ElementType, TensorType, as_element_type

from ..regions import BODY_OPS, reducer_body
from . import AttributeClass, samplers
from .elements import drawn_elements, integers
from .linalg import planted_values


# ------------------------------------------------------------------ random signatures

_MAX_TERMS = 64  # reports/tolerance.py ASSUMED_MAX_REDUCTION_TERMS: values per reduced element


def _body_types(draw, et: ElementType) -> list[ElementType]:
    """One input, two of ``et``, or (``et``, i32) pairs (argmax-style bodies)."""
    kind = draw(st.integers(0, 3))
    return [et] if kind < 2 else [et, et] if kind == 2 else [et, as_element_type("i32")]


def _draw_inits(draw, sig: Signature) -> list:
    """Generic edge-value inputs; the init values are mostly the body's identities, so that
    most results are schedule-independent and compared (the rest are masked, still run)."""
    input_sets = draw.input_sets
    values = draw(input_sets(sig))
    region = sig.regions[-1]
    n = len(region.arguments) // 2
    names = monoid_ops(region, n)
    if names is not None and draw(st.integers(0, 3)):
        first_init = len(sig.operand_types) - n
        for i, name in enumerate(names):
            values[first_init + i] = monoid_identity(name, sig.operand_types[first_init + i].element_type)
    return values


def _draw_reduce(draw, element_type):
    reducer_bodies = draw.reducer_bodies
    shapes = draw.shapes
    et = as_element_type(element_type)
    types = _body_types(draw, et)
    body = draw(reducer_bodies(types))
    shape = draw(shapes(max_rank=4, max_side=4))
    dims = draw(st.lists(st.sampled_from(range(len(shape))), unique=True)) if shape else []
    while math.prod(shape[d] for d in dims) > _MAX_TERMS:
        dims.pop()
    return _reduce_signature(types, body.region, shape, dims)


def _reduce_signature(types, region: ir.Region, shape, dims) -> Signature:
    """reduce of inputs of ``shape`` (one per body type) over ``dims`` (in that order)."""
    kept = tuple(s for d, s in enumerate(shape) if d not in dims)
    operands = tuple(TensorType(tuple(shape), t) for t in types) + tuple(TensorType((), t) for t in types)
    return Signature(operands, {"dimensions": ir.DenseArray("i64", tuple(dims))},
                     tuple(TensorType(kept, t) for t in types), (region,))


def _draw_reduce_window(draw, element_type):
    reducer_bodies = draw.reducer_bodies
    shapes = draw.shapes
    et = as_element_type(element_type)
    types = _body_types(draw, et)
    body = draw(reducer_bodies(types))
    shape = draw(shapes(max_rank=3, max_side=5))
    window = [draw(st.integers(1, 3)) for _ in shape]
    strides = [draw(st.integers(1, 3)) for _ in shape]
    base = [draw(st.integers(1, 2)) for _ in shape]
    dil = [draw(st.integers(1, 2)) for _ in shape]
    low, high = [], []
    for n, b in zip(shape, base):
        dilated = 0 if n == 0 else (n - 1) * b + 1
        lo = draw(st.integers(-min(dilated, 1), 2))  # negative padding crops (pad semantics)
        low.append(lo)
        high.append(draw(st.integers(-min(dilated + lo, 1), 2)))
    spelled = {name for name in ("window_strides", "base_dilations", "window_dilations") if draw(st.integers(0, 3))}
    if shape and draw(st.booleans()):
        spelled.add("padding")
    return _reduce_window_signature(types, body.region, shape, window, strides=strides, base=base, dil=dil,
                                    low=low, high=high, spelled=spelled)


def _reduce_window_signature(types, region: ir.Region, shape, window, *, strides=None, base=None, dil=None,
                             low=None, high=None, spelled=()) -> Signature:
    """reduce_window of inputs of ``shape`` (one per body type); an attribute that is not given
    is all ones (padding: zeros) and left out unless named in ``spelled``."""
    rank = len(shape)
    strides, base, dil = (tuple(v) if v is not None else (1,) * rank for v in (strides, base, dil))
    low, high = (tuple(v) if v is not None else (0,) * rank for v in (low, high))
    padded = [lo + (0 if n == 0 else (n - 1) * b + 1) + hi for lo, n, b, hi in zip(low, shape, base, high)]
    counts = tuple(num_windows(p, w, s, d) for p, w, s, d in zip(padded, window, strides, dil))
    attrs = {"window_dimensions": ir.DenseArray("i64", tuple(window))}
    for name, values in (("window_strides", strides), ("base_dilations", base), ("window_dilations", dil)):
        if name in spelled or any(v != 1 for v in values):
            attrs[name] = ir.DenseArray("i64", tuple(values))
    if shape and ("padding" in spelled or any(low) or any(high)):
        pad = np.array([low, high], dtype=np.int64).T.reshape(rank, 2)
        attrs["padding"] = ir.DenseElements(pad, TensorType((rank, 2), as_element_type("i64")))
    operands = tuple(TensorType(tuple(shape), t) for t in types) + tuple(TensorType((), t) for t in types)
    return Signature(operands, attrs, tuple(TensorType(counts, t) for t in types), (region,))


def _draw_select_and_scatter(draw, element_type):
    reducer_bodies, select_bodies = draw.reducer_bodies, draw.select_bodies
    shapes = draw.shapes
    et = as_element_type(element_type)
    shape = draw(shapes(min_rank=1, max_rank=3, min_side=1, max_side=5))
    window = [draw(st.integers(1, 3)) for _ in shape]
    strides = [draw(st.integers(1, 3)) for _ in shape]
    pad = np.array([[draw(st.integers(0, 1)), draw(st.integers(0, 1))] for _ in shape], dtype=np.int64)
    select, scatter = draw(select_bodies(et)), draw(reducer_bodies([et]))
    return _select_and_scatter_signature(et, shape, window, strides, pad[:, 0], pad[:, 1], select.region,
                                         scatter.region)


def _select_and_scatter_signature(et: ElementType, shape, window, strides, low, high, select: ir.Region,
                                  scatter: ir.Region) -> Signature:
    pad = np.array([low, high], dtype=np.int64).T.reshape(len(shape), 2)
    counts = tuple(num_windows(lo + n + hi, w, s) for (lo, hi), n, w, s in zip(pad, shape, window, strides))
    attrs = {"window_dimensions": ir.DenseArray("i64", tuple(window)),
             "window_strides": ir.DenseArray("i64", tuple(strides)),
             "padding": ir.DenseElements(pad, TensorType((len(shape), 2), as_element_type("i64")))}
    t = TensorType(tuple(shape), et)
    return Signature((t, TensorType(counts, et), TensorType((), et)), attrs, (t,), (select, scatter))


def _draw_map(draw, element_type):
    map_bodies = draw.map_bodies
    shapes = draw.shapes
    et = as_element_type(element_type)
    types = [et] * draw(st.integers(1, 3))
    body = draw(map_bodies(types))
    shape = draw(shapes(max_rank=3))
    return Signature(tuple(TensorType(shape, t) for t in types),
                     {"dimensions": ir.DenseArray("i64", tuple(range(len(shape))))},
                     (TensorType(shape, types[0]),), (body.region,))


# ------------------------------------------------------------------ attribute spaces
# The classes of shapes and attributes that reduce, reduce_window and select_and_scatter
# distinguish (their attribute_space samplers): one case of each is drawn for every element type.

_IDEMPOTENT = frozenset({"stablehlo.maximum", "stablehlo.minimum", "stablehlo.and", "stablehlo.or"})


def _distinct_sizes(draw, rank: int, low: int = 2, high: int = 5) -> list[int]:
    """``rank`` different sizes in [low, high] (a swapped dimension shows)."""
    return list(draw(st.permutations(range(low, high + 1)))[:rank])


def _has_identity(name: str, et: ElementType) -> bool:
    """The monoid op has an identity in ``et`` (f8E8M0FNU has no zero: add has none)."""
    return is_identity(name, monoid_identity(name, et), et)


def _monoid_body(draw, types, names=None):
    """A body of the reducer menu that is a commutative monoid op per result (named in
    ``names`` when given) with an identity in every type, so that identity init values leave
    no schedule open.  None where ``names`` are the ordered ops and a type is complex."""
    if names is not None and set(names) <= {"maximum", "minimum"} and any(t.is_complex for t in types):
        return None

    def fits(body):
        ops = monoid_ops(body.region, len(types))
        return (ops is not None and (names is None or body.name in names)
                and all(_has_identity(o, t) for o, t in zip(ops, types)))
    return draw(draw.reducer_bodies(types).filter(fits))


def _other_value(name: str | None, et: ElementType, draw) -> np.ndarray:
    """A value of ``et`` that is neither zero (where another exists) nor the identity of
    ``name``: an init value a backend that assumes or drops the init gets wrong."""
    if et.is_bool:
        options = [True, False]
    elif et.is_complex:
        options = [complex(5, -3), complex(-2, 1), complex(0.5, 2)]
    else:
        options = [5, -3, 2, 0.5, 1, -1, 0]
    wide = np.complex128 if et.is_complex else np.float64 if et.is_float else object
    ok = []
    for v in options:
        a = np.array(v).astype(et.dtype)
        exact = a.astype(wide) == v if not et.is_integer else int(a) == v
        if exact and (name is None or not is_identity(name, a, et)):
            ok.append(a)
    return draw(st.sampled_from(ok[:3]))


def _set_inits(draw, sig: Signature, values: list, non_identity: bool) -> list:
    """Init values of a reduction-like signature (the last region is the body): each result's
    identity, or (``non_identity``) another value where the body is idempotent (max, min,
    and, or: then every schedule agrees) or always (non_identity="always")."""
    region = sig.regions[-1]
    n = len(region.arguments) // 2
    names = monoid_ops(region, n) or [None] * n
    first = len(sig.operand_types) - n
    for i, name in enumerate(names):
        et = sig.operand_types[first + i].element_type
        other = non_identity == "always" or (non_identity and name in _IDEMPOTENT)
        if other or name is None:
            values[first + i] = _other_value(name, et, draw)
        else:
            values[first + i] = monoid_identity(name, et)
    return values


def _identity_inits(draw, sig: Signature) -> list:
    """Edge-value inputs, the init values the body's identities: every result is compared."""
    return _set_inits(draw, sig, draw(draw.input_sets(sig)), non_identity=False)


def _operand_tied_with_init(draw, sig: Signature) -> list:
    """select_and_scatter's inputs with every operand element equal to the init value: in a
    padded window each real element ties with what padding would hold, so a backend that
    lets padding (filled with the init) compete selects it (GE / LE pick the first tie, GT /
    LT the last) and loses the source value; the spec never selects padding."""
    values = _identity_inits(draw, sig)
    values[0] = np.full_like(values[0], values[2])
    return values


def _idempotent_other_inits(draw, sig: Signature) -> list:
    """Edge-value inputs; max / min / and / or bodies get an init that is not their identity."""
    return _set_inits(draw, sig, draw(draw.input_sets(sig)), non_identity=True)


def _other_inits(draw, sig: Signature) -> list:
    """Edge-value inputs; every init value differs from zero and from the body's identity."""
    return _set_inits(draw, sig, draw(draw.input_sets(sig)), non_identity="always")


def _argmax_or_monoid(draw, et: ElementType):
    """Two inputs: (value, i32 index) with the argmax body where the value type is ordered,
    else two inputs of ``et`` with a monoid body."""
    menu_types = [et, as_element_type("i32")]
    if not et.is_complex:
        return menu_types, draw(draw.reducer_bodies(menu_types).filter(lambda body: body.name == "argmax"))
    return [et, et], _monoid_body(draw, [et, et])


def _variadic_inputs(draw, sig: Signature) -> list:
    """argmax: values of edge values, indices their flat positions (an iota), init values
    (lowest value, largest index): the identity of argmax, so ties resolve by index alone.
    Other bodies: their identities."""
    values = draw(draw.input_sets(sig))
    region = sig.regions[-1]
    if monoid_ops(region, 2) is not None:
        return _set_inits(draw, sig, values, non_identity=False)
    value_t, index_t = (t.element_type for t in sig.operand_types[:2])
    shape = sig.operand_types[0].shape
    values[1] = np.arange(math.prod(shape), dtype=index_t.dtype).reshape(shape)
    values[2] = monoid_identity("stablehlo.maximum", value_t)
    values[3] = np.array(index_t.max_value).astype(index_t.dtype)
    return values


# --- reduce

def _reduce_class(pick_shape_dims, body="monoid"):
    """A reduce class: ``pick_shape_dims(draw) -> (shape, dims)``; ``body``: "monoid" (a
    commutative monoid with an identity in the type), "any" (the whole menu), "max-min",
    "variadic" (argmax-style)."""
    def draw_signature(draw, element_type):
        et = as_element_type(element_type)
        if body == "variadic":
            types, chosen = _argmax_or_monoid(draw, et)
        elif body == "any":
            types = _body_types(draw, et)
            chosen = draw(draw.reducer_bodies(types))
        else:
            types = [et]
            chosen = _monoid_body(draw, types, ("maximum", "minimum") if body == "max-min" else None)
        if chosen is None:
            return None
        shape, dims = pick_shape_dims(draw)
        return _reduce_signature(types, chosen.region, shape, dims)
    return draw_signature


def _empty_reduced_dim(draw):
    rank = draw(st.integers(2, 3))
    shape = _distinct_sizes(draw, rank)
    zero = draw(st.integers(0, rank - 1))
    shape[zero] = 0
    dims = [zero] + ([d for d in range(rank) if d != zero][:1] if draw(st.booleans()) else [])
    return shape, draw(st.permutations(dims))


def _first_and_last_dims(draw):
    rank = draw(st.integers(3, 4))
    return _distinct_sizes(draw, rank), draw(st.permutations([0, rank - 1]))  # either order


def _no_dims(draw):
    return _distinct_sizes(draw, draw(st.integers(1, 3))), []


def _all_dims(draw):
    rank = draw(st.integers(2, 3))
    return _distinct_sizes(draw, rank, 2, 4), draw(st.permutations(range(rank)))


def _one_dim(draw):
    rank = draw(st.integers(2, 3))
    return _distinct_sizes(draw, rank), [draw(st.integers(0, rank - 1))]


def _size_one_dim(draw):
    rank = draw(st.integers(2, 3))
    shape = _distinct_sizes(draw, rank)
    one = draw(st.integers(0, rank - 1))
    shape[one] = 1
    return shape, [one]


# --- every body on every element-type family, and large sizes (shared by reduce and reduce_window)

def _body_of(name: str, et: ElementType):
    """The body ``name`` of the reducer menu on ``et``; None where ``et`` does not take it."""
    return reducer_body(name, [et])


def _nondegenerate(draw) -> tuple[list[int], list[int]]:
    """Rank 2 or 3, sides 3 to 6 (all different), one drawn dimension reduced: every result
    combines several values, even on i1 and the 2-bit integers."""
    rank = draw(st.integers(2, 3))
    return _distinct_sizes(draw, rank, 3, 6), [draw(st.integers(0, rank - 1))]


def _reduce_body_class(name: str) -> AttributeClass:
    def draw_signature(draw, element_type):
        body = _body_of(name, as_element_type(element_type))
        if body is None:
            return None
        shape, dims = _nondegenerate(draw)
        return _reduce_signature([as_element_type(element_type)], body.region, shape, dims)
    return AttributeClass(f"body-{name}", draw_signature, _identity_inits,
                          f"reduce with a {name} body{_BODY_WHY[name]} on a non-degenerate shape, the body's "
                          "identity as init where it has one: drawn on every element-type family that takes it, "
                          "i1 and 2- / 4-bit integers included")


_BODY_WHY = {"add": " (logical or on i1, wrapping on integers)", "multiply": " (logical and on i1)",
             "maximum": "", "minimum": "", "and": "", "or": "", "xor": "",
             "first": " returning its first argument (in a reduction: schedule-dependent, masked where it matters)",
             "second": " returning its second argument (in a reduction: schedule-dependent, masked where it "
                       "matters)"}

#: A large reduction: 2^17 elements in rows of 512, where backends switch to vectorized, tiled
#: and multi-threaded code paths; NaN, +-inf and -0 planted at drawn positions.
LARGE_SHAPE = (256, 512)


def _large_body(draw, et: ElementType):
    """add (the sum kernels) or maximum (where ordered): with an identity, so every schedule agrees."""
    names = [n for n in ("add", "maximum") if _body_of(n, et) is not None and _has_identity(f"stablehlo.{n}", et)]
    return _body_of(draw(st.sampled_from(names)), et) if names else None


def _large_inputs(draw, sig: Signature) -> list:
    """Planted values for every input tensor, the body's identity as init."""
    n = len(sig.regions[-1].arguments) // 2
    values = [planted_values(draw, t) for t in sig.operand_types[:-n]] + [np.zeros((), t.element_type.dtype)
                                                                          for t in sig.operand_types[-n:]]
    return _set_inits(draw, sig, values, non_identity=False)


def _large_reduce(draw, element_type):
    et = as_element_type(element_type)
    body = _large_body(draw, et)
    if body is None:
        return None
    return _reduce_signature([et], body.region, LARGE_SHAPE, [draw(st.sampled_from([1, 1, 0]))])


REDUCE_CLASSES = (
    AttributeClass("empty-reduced-dim", _reduce_class(_empty_reduced_dim, "any"), _other_inits,
                   "reduce: a reduced dimension of size 0 reduces no value, the result is the init value "
                   "(not zero, not the body's identity) whatever the body"),
    AttributeClass("first-and-last-dims", _reduce_class(_first_and_last_dims), _identity_inits,
                   "reduce (C4), (C7): two non-adjacent dimensions, in either order in `dimensions`; input "
                   "slices keep the operand's dimension order"),
    AttributeClass("no-dims", _reduce_class(_no_dims), _identity_inits,
                   "reduce (C7): dimensions = [] reduces each element alone (result = body(init, x))"),
    AttributeClass("all-dims", _reduce_class(_all_dims), _identity_inits,
                   "reduce (C7): every dimension reduced (listed in any order), a rank-0 result"),
    AttributeClass("size-one-dim", _reduce_class(_size_one_dim), _identity_inits,
                   "reduce: a reduced dimension of size 1 (one value per result, not a reshape that drops "
                   "the body)"),
    AttributeClass("variadic", _reduce_class(_one_dim, "variadic"), _variadic_inputs,
                   "reduce (C3), (C6): two inputs reduced together, an argmax-style (value, index) body whose "
                   "results depend on both"),
    AttributeClass("max-min-identity-init", _reduce_class(_one_dim, "max-min"), _identity_inits,
                   "reduce: a maximum / minimum body with its identity init (-inf / +inf, or the lowest / "
                   "highest value), over NaN and infinite values"),
    AttributeClass("max-min-other-init", _reduce_class(_one_dim, "max-min"), _idempotent_other_inits,
                   "reduce: a maximum / minimum body whose init is inside the values' range; the init takes "
                   "part as a term (results it cannot change are compared)"),
    *(_reduce_body_class(name) for name in BODY_OPS),
    AttributeClass("large", _large_reduce, _large_inputs,
                   "reduce of 2^17 elements along rows of 512 (or columns of 256), where backends take vectorized, "
                   "tiled and multi-threaded paths, with NaN, +-inf and -0 planted at drawn positions"),
)


# --- reduce_window

def _reduce_window_class(geometry, body="monoid"):
    """A reduce_window class: ``geometry(draw) -> (shape, window, attributes)`` (the keyword
    arguments of _reduce_window_signature); ``body``: "monoid", "max-min" (ordered types only)
    or "variadic"."""
    def draw_signature(draw, element_type):
        et = as_element_type(element_type)
        if body == "variadic":
            types, chosen = _argmax_or_monoid(draw, et)
        else:
            types = [et]
            chosen = _monoid_body(draw, types, ("maximum", "minimum") if body == "max-min" else None)
        if chosen is None:
            return None
        shape, window, attrs = geometry(draw)
        return _reduce_window_signature(types, chosen.region, shape, window, **attrs)
    return draw_signature


def _capped_window(draw, extents, low: int = 1, high: int = 3, dilations=None) -> list[int]:
    """A window size per dimension in [low, high] whose dilated extent fits ``extents``."""
    dilations = dilations or [1] * len(extents)
    return [max(1, min(draw(st.integers(low, high)), (e - 1) // d + 1)) for e, d in zip(extents, dilations)]


def _base_dilated(draw):
    shape = _distinct_sizes(draw, 2)
    main = draw(st.integers(0, 1))
    base = [draw(st.integers(2, 3)) if d == main else draw(st.integers(1, 2)) for d in range(2)]
    dilated = [(n - 1) * b + 1 for n, b in zip(shape, base)]
    window = _capped_window(draw, dilated, 2, 3)
    return shape, window, {"base": base, "strides": [draw(st.integers(1, 2)) for _ in shape]}


def _window_dilated(draw):
    shape = _distinct_sizes(draw, 2, 4, 7)
    main = draw(st.integers(0, 1))
    dil = [draw(st.integers(2, 3)) if d == main else draw(st.integers(1, 2)) for d in range(2)]
    window = _capped_window(draw, shape, 2, 3, dil)
    return shape, window, {"dil": dil}


def _asymmetric_padding(draw):
    shape = _distinct_sizes(draw, 2)
    low0 = draw(st.integers(1, 3))
    high0 = draw(st.integers(0, 3).filter(lambda v: v != low0))
    low1 = draw(st.integers(-1, 3))
    high1 = draw(st.integers(-1, 3).filter(lambda v: v != low1 and low1 + v > -shape[1] + 1))
    low, high = [low0, low1], [high0, high1]
    padded = [lo + n + hi for lo, n, hi in zip(low, shape, high)]
    window = _capped_window(draw, padded, 2, 3)
    return shape, window, {"low": low, "high": high, "strides": [draw(st.integers(1, 2)) for _ in shape]}


def _strided(draw):
    shape = _distinct_sizes(draw, 2, 4, 7)
    main = draw(st.integers(0, 1))
    strides = [draw(st.integers(2, 3)) if d == main else draw(st.integers(1, 3)) for d in range(2)]
    window = _capped_window(draw, shape, 1, 3)
    return shape, window, {"strides": strides}


def _window_exceeds_input(draw):
    shape = _distinct_sizes(draw, 2)
    big = draw(st.integers(0, 1))
    low = [draw(st.integers(0, 1)) if d == big else 0 for d in range(2)]
    window = _capped_window(draw, shape, 1, 3)
    window[big] = shape[big] + low[big] + draw(st.integers(1, 2))  # past the padded dimension: 0 windows
    return shape, window, {"low": low}


def _padding_only_windows(draw):
    rank = draw(st.integers(1, 2))
    shape = _distinct_sizes(draw, rank)
    window = _capped_window(draw, shape, 1, 3)
    main = draw(st.integers(0, rank - 1))
    low = [window[d] + draw(st.integers(0, 1)) if d == main else 0 for d in range(rank)]  # windows of padding only
    high = [draw(st.integers(0, 2)) for _ in range(rank)]
    return shape, window, {"low": low, "high": high}


def _empty_input_dim(draw):
    shape = _distinct_sizes(draw, 2)
    zero = draw(st.integers(0, 1))
    shape[zero] = 0
    window = _capped_window(draw, [3 if n == 0 else n for n in shape], 1, 3)
    low = [draw(st.integers(0, 2)) if d == zero else 0 for d in range(2)]
    high = [max(window[d] - low[d], 0) + draw(st.integers(0, 1)) if d == zero else 0 for d in range(2)]
    return shape, window, {"low": low, "high": high}  # windows over padding only along the empty dimension


def _plain_windows(draw):
    shape = _distinct_sizes(draw, 2)
    window = _capped_window(draw, shape, 1, 3)
    return shape, window, {"strides": [draw(st.integers(1, 2)) for _ in shape]}


def _reduce_window_body_class(name: str) -> AttributeClass:
    def draw_signature(draw, element_type):
        et = as_element_type(element_type)
        body = _body_of(name, et)
        if body is None:
            return None
        shape = _distinct_sizes(draw, 2, 3, 6)
        window = [draw(st.integers(2, 3)) for _ in shape]
        return _reduce_window_signature([et], body.region, shape, window, strides=[1, draw(st.integers(1, 2))])
    return AttributeClass(f"body-{name}", draw_signature, _identity_inits,
                          f"reduce_window with a {name} body{_BODY_WHY[name]} over windows of 2 or 3 on a "
                          "non-degenerate input: drawn on every element-type family that takes it")


def _large_windows(draw, element_type):
    """2^17 elements in windows of 1 x 128 (4 per row of 512), non-overlapping."""
    et = as_element_type(element_type)
    body = _large_body(draw, et)
    if body is None:
        return None
    return _reduce_window_signature([et], body.region, LARGE_SHAPE, [1, 128], strides=[1, 128])


#: Rows of a cumulative sum: 512 long (every output sums up to 512 values: the oracle holds
#: rows x 512 x 512 window elements, so the rows are few).
CUMULATIVE_SHAPE = (16, 512)


def _cumulative_sum(draw, element_type):
    """A cumulative sum (or running maximum) along rows of 512: window 1 x 512, low padding 511,
    the way frontends lower cumsum / cummax."""
    et = as_element_type(element_type)
    body = _large_body(draw, et)
    if body is None:
        return None
    n = CUMULATIVE_SHAPE[1]
    return _reduce_window_signature([et], body.region, CUMULATIVE_SHAPE, [1, n], low=[0, n - 1], high=[0, 0])


REDUCE_WINDOW_CLASSES = (
    AttributeClass("base-dilation", _reduce_window_class(_base_dilated), _identity_inits,
                   "reduce_window (C8), (C9), (C15): base_dilations > 1 put init values between the input "
                   "elements (pad with interior padding) before the windows slide"),
    AttributeClass("window-dilation", _reduce_window_class(_window_dilated), _identity_inits,
                   "reduce_window (C10), (C11), (C15): window_dilations > 1 take every d-th element "
                   "(slice with stride window_dilations)"),
    AttributeClass("asymmetric-padding", _reduce_window_class(_asymmetric_padding), _identity_inits,
                   "reduce_window (C12), (C15): low != high padding, one dimension possibly cropped (negative), "
                   "the windows' origin shifts by padding[:, 0]"),
    AttributeClass("strided", _reduce_window_class(_strided), _identity_inits,
                   "reduce_window (C6), (C7), (C15): window_strides > 1, some larger than the window "
                   "(elements no window covers)"),
    AttributeClass("window-exceeds-input", _reduce_window_class(_window_exceeds_input), _identity_inits,
                   "reduce_window (C15): a window larger than the padded dimension: is_empty_window, "
                   "0 windows, an empty result"),
    AttributeClass("other-init-padding", _reduce_window_class(_padding_only_windows, "max-min"),
                   _idempotent_other_inits,
                   "reduce_window: a maximum / minimum body whose init is not its identity; the padding is "
                   "init values (pad(inputs, init_values, ...)), windows over padding only give the init"),
    AttributeClass("empty-input-dim", _reduce_window_class(_empty_input_dim), _idempotent_other_inits,
                   "reduce_window (C15): an input dimension of size 0 padded into windows that hold only "
                   "padding (dilated_input_shape = 0): results made of init values"),
    AttributeClass("variadic", _reduce_window_class(_plain_windows, "variadic"), _variadic_inputs,
                   "reduce_window (C1), (C13): two inputs windowed together, an argmax-style (value, index) "
                   "body"),
    *(_reduce_window_body_class(name) for name in BODY_OPS),
    AttributeClass("large", _large_windows, _large_inputs,
                   "reduce_window over 2^17 elements in windows of 128 along rows of 512 (vectorized and tiled "
                   "paths), NaN, +-inf and -0 planted at drawn positions"),
    AttributeClass("cumulative-sum", _cumulative_sum, _large_inputs,
                   "reduce_window as a cumulative sum / running maximum along rows of 512 (window 1 x 512, low "
                   "padding 511: how frontends lower cumsum), NaN, +-inf and -0 planted at drawn positions"),
)


# --- select_and_scatter

def _windows_have_values(shape, window, strides, low, high) -> bool:
    """Every window holds an operand element (else the result is unspecified)."""
    for n, w, s, lo, hi in zip(shape, window, strides, low, high):
        for p in range(num_windows(lo + n + hi, w, s)):
            start = p * s - lo
            if start + w - 1 < 0 or start > n - 1:
                return False
    return True


def _select_and_scatter_class(geometry, direction=None, scatter_body=None):
    """A select_and_scatter class: ``geometry(draw) -> (shape, window, strides, low, high)``;
    the select is ``direction``'s (else drawn: GE, GT, LE, LT), the scatter ``scatter_body``
    of the reducer menu (None where the type does not take it), else add (another monoid where
    add has no identity)."""
    def draw_signature(draw, element_type):
        et = as_element_type(element_type)
        if scatter_body is not None:
            scatter = _body_of(scatter_body, et)
            if scatter is None:
                return None
        else:
            scatter = _monoid_body(draw, [et], ("add",) if _has_identity("stablehlo.add", et) else ("multiply",))
        selects = draw.select_bodies(et)
        select = draw(selects if direction is None else selects.filter(lambda b: b.name == direction.lower()))
        shape, window, strides, low, high = geometry(draw)
        return _select_and_scatter_signature(et, shape, window, strides, low, high, select.region, scatter.region)
    return draw_signature


def _tiled(draw):
    shape = _distinct_sizes(draw, 2, 3, 6)
    window = _capped_window(draw, shape, 2, 3)
    return shape, window, [draw(st.integers(1, w)) for w in window], [0, 0], [0, 0]


def _overlapping(draw):
    shape = _distinct_sizes(draw, 2, 3, 5)
    window = _capped_window(draw, shape, 2, 3)
    strides = [draw(st.integers(1, w - 1)) for w in window]  # stride < window: windows overlap
    return shape, window, strides, [0, 0], [0, 0]


def _padded(draw):
    shape = _distinct_sizes(draw, 2)
    window = _capped_window(draw, shape, 2, 3)
    strides = [draw(st.integers(1, 2)) for _ in shape]
    # padding smaller than the window, low != high where the window allows, not all zero
    pads = draw(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2)), min_size=2, max_size=2)
                .map(lambda ps: [(min(lo, w - 1), min(hi, w - 1)) for (lo, hi), w in zip(ps, window)])
                .filter(lambda ps: any(lo or hi for lo, hi in ps)
                        and _windows_have_values(shape, window, strides, *zip(*ps))))
    low, high = (list(p) for p in zip(*pads))
    return shape, window, strides, low, high


def _stride_past_window(draw):
    shape = _distinct_sizes(draw, 2, 3, 6)
    window = _capped_window(draw, shape, 1, 2)
    main = draw(st.integers(0, 1))
    strides = [w + draw(st.integers(1, 2)) if d == main else draw(st.integers(1, 3)) for d, w in enumerate(window)]
    return shape, window, strides, [0, 0], [0, 0]


def _ordered_pool(et: ElementType) -> list:
    """Values for ties: two equal keys and a larger one (complex: select compares real parts,
    so equal real parts tie whatever the imaginary parts)."""
    if et.is_bool:
        return [False, True]
    if et.is_complex:
        return [complex(1, 1), complex(1, -2), complex(2, 0.5)]
    return [1, 2]


def _tied_inputs(draw, sig: Signature) -> list:
    """The operand holds only a few distinct keys (many ties in every window): GE / LE select
    the first of the tied elements (select(a, b) ? a : b keeps the earlier), GT / LT the last,
    for every schedule of the window's reduction."""
    values = _identity_inits(draw, sig)
    t = sig.operand_types[0]
    pool = np.array(_ordered_pool(t.element_type)).astype(t.element_type.dtype)
    n = math.prod(t.shape)
    picks = drawn_elements(draw, n, st.integers(0, len(pool) - 1), integers(0, len(pool) - 1))
    values[0] = pool[np.array(picks, dtype=np.int64)].reshape(t.shape)
    return values


def _extreme(et: ElementType, high: bool) -> np.ndarray:
    if et.is_complex:
        edge = et.component.max_value if high else et.component.min_value
        return np.array(complex(edge, 0)).astype(et.dtype)
    if et.is_float and et.has_infinity:
        return np.array(np.inf if high else -np.inf).astype(et.dtype)
    return np.array(et.max_value if high else et.min_value).astype(et.dtype)


def _overlap_inputs(draw, sig: Signature) -> list:
    """Edge-value inputs with the select's winner (the largest value for GE / GT, the smallest
    for LE / LT) planted where windows overlap: several windows select it, their source values
    accumulate there."""
    values = _identity_inits(draw, sig)
    select = sig.regions[0]
    direction = next(o.attr("comparison_direction") for o in select.ops if o.name == "stablehlo.compare")
    t = sig.operand_types[0]
    window = tuple(sig.attributes["window_dimensions"].value)
    strides = tuple(sig.attributes["window_strides"].value)
    counts = sig.operand_types[1].shape
    where = tuple(s if c >= 2 else 0 for s, c in zip(strides, counts))
    operand = values[0].copy()
    operand[where] = _extreme(t.element_type, direction in ("GE", "GT"))
    values[0] = operand
    return values


SELECT_AND_SCATTER_CLASSES = (
    AttributeClass("window-ties", _select_and_scatter_class(_tiled), _tied_inputs,
                   "select_and_scatter: equal keys in a window; select(a, b) ? a : b picks the first tied "
                   "element for GE / LE and the last for GT / LT, whatever the reduction's schedule"),
    AttributeClass("overlapping-windows", _select_and_scatter_class(_overlapping), _overlap_inputs,
                   "select_and_scatter: window_strides < window_dimensions; an element selected by several "
                   "windows receives reduce(source values, init) of all of them"),
    AttributeClass("padding", _select_and_scatter_class(_padded), _identity_inits,
                   "select_and_scatter (C2), (C8): low / high padding (each window still holds an operand "
                   "element); padding is never selected"),
    AttributeClass("padding-ties", _select_and_scatter_class(_padded), _operand_tied_with_init,
                   "select_and_scatter (C2), (C8): low / high padding and every operand element equal to the "
                   "init value: the tie is the first / last REAL element of the window, never padding"),
    AttributeClass("other-init", _select_and_scatter_class(_tiled), _other_inits,
                   "select_and_scatter: a non-zero init value: unselected elements are init, selected ones "
                   "reduce([sources], [init])"),
    AttributeClass("stride-past-window", _select_and_scatter_class(_stride_past_window), _other_inits,
                   "select_and_scatter (C2): window_strides > window_dimensions; elements no window covers are "
                   "never selected and keep the init value"),
    *(AttributeClass(f"select-{d.lower()}", _select_and_scatter_class(_overlapping, direction=d), _tied_inputs,
                     f"select_and_scatter with a {d} select over overlapping windows with tied keys: each "
                     "direction picks another element (GE / LE the first tie, GT / LT the last)")
      for d in ("GE", "GT", "LE", "LT")),
    *(AttributeClass(f"scatter-body-{name}", _select_and_scatter_class(_overlapping, scatter_body=name),
                     _identity_inits, f"select_and_scatter with a {name} scatter body{_BODY_WHY[name]} over "
                     "overlapping windows (selected elements combine several sources): every element-type family "
                     "that takes it") for name in BODY_OPS),
)


samplers("stablehlo.reduce", draw_signature=_draw_reduce, draw_inputs=_draw_inits, attribute_space=REDUCE_CLASSES)
samplers("stablehlo.reduce_window", draw_signature=_draw_reduce_window, draw_inputs=_draw_inits,
         attribute_space=REDUCE_WINDOW_CLASSES)
samplers("stablehlo.select_and_scatter", draw_signature=_draw_select_and_scatter, draw_inputs=_draw_inits,
         attribute_space=SELECT_AND_SCATTER_CLASSES)
# --- map

def _map_body_class(name: str) -> AttributeClass:
    """map of two operands with the reducer menu's body ``name`` (two scalars in, one out)."""
    def draw_signature(draw, element_type):
        et = as_element_type(element_type)
        body = _body_of(name, et)
        if body is None:
            return None
        shape = tuple(_distinct_sizes(draw, draw(st.integers(1, 3)), 2, 5))
        return Signature((TensorType(shape, et),) * 2, {"dimensions": ir.DenseArray("i64", tuple(range(len(shape))))},
                         (TensorType(shape, et),), (body.region,))
    return AttributeClass(f"body-{name}", draw_signature, None,
                          f"map (C3)-(C5) of two operands with a {name} computation{_BODY_WHY[name]}: drawn on every "
                          "element-type family that takes it")


MAP_CLASSES = tuple(_map_body_class(name) for name in BODY_OPS)


samplers("stablehlo.map", draw_signature=_draw_map, attribute_space=MAP_CLASSES)
