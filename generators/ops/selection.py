"""How compare, select and clamp are drawn (the oracle's evaluation: oracle/ops/selection.py).

The attribute classes are the shapes, attributes and values these ops distinguish: every
pair of the element type's special values (``special_scalars``), compare_type left out,
operands compared with themselves, predicates and bounds of every kind.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from oracle import ir
from oracle.ops.selection import COMPARISON_DIRECTIONS, default_compare_type, has_sign_bit
from oracle.registry import Signature
from oracle.types import BOOL, ElementType, TensorType, as_element_type

from . import AttributeClass, samplers
from .elements import drawn_elements, integers


# ------------------------------------------------------------------ attribute spaces
# The classes of shapes, attributes and values that compare, select and clamp distinguish
# (their attribute_space): one case of each is drawn for every element type.

def _exact(values, et: ElementType) -> list:
    """The values ``et`` holds exactly, as 0-d arrays, each once (by bits; NaN is never exact)."""
    wide = np.complex128 if et.is_complex else np.float64 if et.is_float else object
    out, seen = [], set()
    for v in values:
        a = np.array(v).astype(et.dtype)
        if et.is_integer:
            ok = int(a) == v
        elif et.is_bool:
            ok = bool(a) == v
        else:
            with np.errstate(all="ignore"):
                ok = bool(a.astype(wide) == v) and (v != 0 or np.signbit(np.real(a)) == np.signbit(np.real(v)))
        key = a.tobytes()
        if ok and key not in seen:
            seen.add(key)
            out.append(a)
    return out


def _nans(et: ElementType) -> list:
    """The type's NaN, and where it has a sign bit and a -0, the NaN with the sign bit set."""
    if not (et.is_float and et.has_nan):
        return []
    nan = np.array(np.nan).astype(et.dtype)
    if not (has_sign_bit(et) and et.has_negative_zero):
        return [nan]
    bits = nan.view(et.storage_dtype) | et.storage_dtype.type(1 << (et.bits - 1))
    return [nan, np.array(bits).view(et.dtype)]


def special_scalars(et: ElementType) -> np.ndarray:
    """The values where comparisons and clamps change behaviour, each once (at most 16): for
    floats +-0, +-inf, NaN of both signs, +-1, +-smallest subnormal, +-smallest normal, +-max;
    for integers 0, +-1, min, max and their neighbours; for complex numbers pairs of 0, -0, 1,
    -1, inf and NaN parts, real parts tied with different imaginary parts."""
    if et.is_bool:
        values = _exact([False, True], et)
    elif et.is_integer:
        lo, hi = int(et.min_value), int(et.max_value)
        values = _exact([0, 1, -1, lo, hi, lo + 1, hi - 1, 2], et)
    elif et.is_complex:
        inf, nan = float("inf"), float("nan")
        values = _exact([0j, complex(-0.0, 0), complex(0, -0.0), 1 + 0j, 1 + 1j, 1 - 1j, -1 + 0j,
                         complex(inf, 0), complex(0, inf), complex(-inf, 1)], et)
        values += [np.array(v).astype(et.dtype) for v in (complex(nan, 0), complex(0, nan), complex(1, nan))]
    else:
        fi = et.finfo
        magnitudes = [0.0, float("inf"), 1.0, float(fi.smallest_subnormal), float(fi.smallest_normal), float(fi.max)]
        values = _exact([s * m for m in magnitudes for s in (1.0, -1.0)], et) + _nans(et)
    return np.array(values).reshape(-1).astype(et.dtype)


def _ascending(et: ElementType) -> list:
    """A few ordinary values of ``et`` in increasing order (complex: lexicographic)."""
    if et.is_complex:
        return _exact([-1 + 0j, 1 - 1j, 1 + 0j, 1 + 2j, 2 - 3j], et)
    return _exact([-2, -1, -0.5, 0, 0.5, 1, 2, 3] if not et.is_bool else [False, True], et)


def _cross(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every pair (a[i], b[j]), flat."""
    return np.repeat(a, b.size), np.tile(b, a.size)


# --- compare

def _compare_signature(et: ElementType, shape, direction: str, compare_type: str | None) -> Signature:
    attrs = {"comparison_direction": ir.EnumAttr("comparison_direction", direction)}
    if compare_type is not None:
        attrs["compare_type"] = ir.EnumAttr("comparison_type", compare_type)
    t = TensorType(tuple(shape), et)
    return Signature((t, t), attrs, (TensorType(tuple(shape), BOOL),))


def _compare_types(et: ElementType) -> tuple[str, ...]:
    """compare (C3): the compare_type values the element type allows."""
    return ("FLOAT", "TOTALORDER") if et.is_float else (default_compare_type(et),)


def _compare_class(shape_of, compare_type="drawn", applies=lambda et: True):
    """A compare class: ``shape_of(draw, et)`` the operands' shape; ``compare_type``: "drawn"
    (one the type allows), None (the attribute left out)."""
    def draw_signature(draw, element_type):
        et = as_element_type(element_type)
        if not applies(et):
            return None
        direction = draw(st.sampled_from(COMPARISON_DIRECTIONS))
        ct = draw(st.sampled_from(_compare_types(et))) if compare_type == "drawn" else compare_type
        return _compare_signature(et, shape_of(draw, et), direction, ct)
    return draw_signature


def _special_pairs_shape(draw, et):
    return (special_scalars(et).size ** 2,)


def _special_pairs(draw, sig: Signature) -> list:
    """lhs, rhs: every pair of the type's special values."""
    return list(_cross(*(special_scalars(sig.operand_types[0].element_type),) * 2))


def _any_shape(draw, et):
    return tuple(draw(draw.shapes(min_rank=1, max_rank=3, min_side=1, max_side=5)))


def _same_operands(draw, sig: Signature) -> list:
    """rhs is lhs: special values and edge values compared with themselves."""
    t = sig.operand_types[0]
    x = np.array(draw(draw.tensors(t.element_type, t.shape)))
    flat = x.reshape(-1)
    specials = special_scalars(t.element_type)[:flat.size]
    flat[:specials.size] = specials
    return [x, x.copy()]


def _tied_real_parts(draw, sig: Signature) -> list:
    """Complex pairs whose real parts are equal (the imaginary parts decide: ordered, equal,
    +-0, NaN) and pairs whose real parts decide."""
    et = sig.operand_types[0].element_type
    nan, inf = float("nan"), float("inf")
    imag = [0.0, -0.0, 1.0, -1.0, inf, nan]
    lhs = [complex(r, a) for r in (1.0, 0.0) for a in imag for _ in imag]
    rhs = [complex(r, b) for r in (1.0, -0.0) for _ in imag for b in imag]
    lhs += [complex(1, 5), complex(2, -5), complex(nan, 0)]
    rhs += [complex(2, -5), complex(1, 5), complex(1, 0)]
    return [np.array(lhs).astype(et.dtype), np.array(rhs).astype(et.dtype)]


COMPARE_CLASSES = (
    AttributeClass("compare-type-absent", _compare_class(_special_pairs_shape, None), _special_pairs,
                   "compare (C3): compare_type left out takes the element type's (SIGNED / UNSIGNED / FLOAT, "
                   "not TOTALORDER), on every pair of special values"),
    AttributeClass("same-operand", _compare_class(_any_shape), _same_operands,
                   "compare: lhs and rhs the same values (NaN vs itself: only NE under FLOAT, EQ under "
                   "TOTALORDER; -0 vs -0)"),
    AttributeClass("rank-0", _compare_class(lambda draw, et: ()),
                   why="compare (C2): 0-dimensional operands and result"),
    AttributeClass("size-0", _compare_class(lambda draw, et: (3, 0)),
                   why="compare (C2): operands with no elements, an empty i1 result"),
    AttributeClass("complex-tied-real", _compare_class(lambda draw, et: (75,), applies=lambda et: et.is_complex),
                   _tied_real_parts,
                   "compare: complex values are compared lexicographically by (real, imag); equal real parts "
                   "leave the imaginary parts to decide"),
)


# --- select

def _select_class(pred, shape_of=_any_shape):
    """A select class: ``pred`` "scalar" (rank 0, true or false) or "all-true" / "all-false" /
    "mixed" (a tensor); ``shape_of(draw, et)`` the operands' shape."""
    def draw_signature(draw, element_type):
        et = as_element_type(element_type)
        shape = shape_of(draw, et)
        t = TensorType(shape, et)
        return Signature((TensorType(() if pred == "scalar" else shape, BOOL), t, t), {}, (t,))

    def draw_inputs(draw, sig):
        p, t, _ = sig.operand_types
        n = int(np.prod(p.shape, dtype=np.int64))
        if pred == "mixed":
            flags = drawn_elements(draw, n, st.booleans(), lambda rng, k: rng.random(k) < 0.5)
            flags[:2] = [True, False][:n]  # both values once at least
            flags = np.array(flags, dtype=bool)[draw(st.permutations(range(n)))] if n else np.zeros(0, bool)
        elif pred == "scalar":
            flags = np.array(draw(st.booleans()))
        else:
            flags = np.full(n, pred == "all-true")
        on_true = draw(draw.tensors(t.element_type, t.shape, salt=1))
        on_false = draw(draw.tensors(t.element_type, t.shape, salt=2))
        return [np.asarray(flags, dtype=bool).reshape(p.shape), on_true, on_false]
    return draw_signature, draw_inputs


def _empty_shape(draw, et):
    return tuple(draw(st.sampled_from([(0,), (2, 0), (0, 3), (3, 0, 2)])))


SELECT_CLASSES = (
    AttributeClass("scalar-pred", *_select_class("scalar"),
                   why="select (C1): a rank-0 pred picks the whole on_true or on_false tensor"),
    AttributeClass("pred-mixed", *_select_class("mixed"),
                   why="select (C1): a tensor pred picks element by element (both values present)"),
    AttributeClass("pred-all-true", *_select_class("all-true"),
                   why="select: a tensor pred that is true everywhere gives on_true"),
    AttributeClass("pred-all-false", *_select_class("all-false"),
                   why="select: a tensor pred that is false everywhere gives on_false"),
    AttributeClass("size-0", *_select_class("mixed", _empty_shape),
                   why="select (C1), (C2): operands with no elements, pred of the same empty shape"),
    AttributeClass("size-0-scalar-pred", *_select_class("scalar", _empty_shape),
                   why="select (C1): a rank-0 pred with empty on_true / on_false"),
)


# --- clamp

def _clamp_signature(et: ElementType, shape, min_shape, max_shape) -> Signature:
    t = TensorType(tuple(shape), et)
    return Signature((TensorType(tuple(min_shape), et), t, TensorType(tuple(max_shape), et)), {}, (t,))


def _ordered_bounds(draw, et: ElementType, n: int, relation: str):
    """n (min, max) pairs of ordinary values with min <= max ("ordered"), or min > max ("reversed")."""
    pool = np.array(_ascending(et)).astype(et.dtype)
    k = pool.size
    pairs = [(i, j) for i in range(k) for j in range(k) if (i <= j if relation == "ordered" else i > j)]
    picks = [pairs[i] for i in drawn_elements(draw, n, st.integers(0, len(pairs) - 1), integers(0, len(pairs) - 1))]
    lo = pool[np.array([i for i, _ in picks], dtype=np.int64)]
    hi = pool[np.array([j for _, j in picks], dtype=np.int64)]
    return lo, hi


def _clamp_operand(draw, et: ElementType, shape) -> np.ndarray:
    """Edge values, the type's special values and ordinary ones among them."""
    x = np.array(draw(draw.tensors(et, shape)))
    flat = x.reshape(-1)
    extra = np.concatenate([special_scalars(et), np.array(_ascending(et)).astype(et.dtype)])[:flat.size]
    flat[:extra.size] = extra
    return x


def _bounds_class(scalar_bounds: bool, relation: str):
    """min and max of ordinary values: scalars or tensors, min <= max or min > max."""
    def draw_signature(draw, element_type):
        et = as_element_type(element_type)
        shape = _any_shape(draw, et)
        bound = () if scalar_bounds else shape
        return _clamp_signature(et, shape, bound, bound)

    def draw_inputs(draw, sig):
        lo_t, t, _ = sig.operand_types
        et = t.element_type
        n = int(np.prod(lo_t.shape, dtype=np.int64))
        lo, hi = _ordered_bounds(draw, et, n, relation)
        return [lo.reshape(lo_t.shape), _clamp_operand(draw, et, t.shape), hi.reshape(lo_t.shape)]
    return draw_signature, draw_inputs


def _special_bounds_class(pool_of):
    """Tensor min and max: every (min, max) pair of ``pool_of(et)`` (a row each) against every
    special value of the operand (a column each); None where the pool is empty."""
    def pairs(et):
        pool = np.array(pool_of(et)).reshape(-1).astype(et.dtype) if pool_of(et) else None
        return None if pool is None else _cross(pool, pool)

    def draw_signature(draw, element_type):
        et = as_element_type(element_type)
        bounds = pairs(et)
        if bounds is None:
            return None
        shape = (bounds[0].size, special_scalars(et).size)
        return _clamp_signature(et, shape, shape, shape)

    def draw_inputs(draw, sig):
        t = sig.operand_types[1]
        et = t.element_type
        lo, hi = pairs(et)
        rows, cols = t.shape
        specials = special_scalars(et)[np.array(draw(st.permutations(range(cols))), dtype=np.int64)]
        operand = np.tile(specials, (rows, 1))  # the columns in a drawn order
        return [np.repeat(lo, cols).reshape(t.shape), operand, np.repeat(hi, cols).reshape(t.shape)]
    return draw_signature, draw_inputs


def _nan_bounds(et: ElementType) -> list:
    return _nans(et) + _exact([-1.0, 1.0], et) if _nans(et) else []


def _zero_bounds(et: ElementType) -> list:
    return _exact([-0.0, 0.0], et) + _exact([1.0], et) if et.is_float and et.has_negative_zero else []


def _infinite_bounds(et: ElementType) -> list:
    return _exact([-float("inf"), float("inf"), 1.0], et) if et.is_float and et.has_infinity else []


CLAMP_CLASSES = (
    AttributeClass("scalar-bounds", *_bounds_class(True, "ordered"),
                   why="clamp (C1), (C2): rank-0 min and max broadcast over a tensor operand"),
    AttributeClass("tensor-bounds", *_bounds_class(False, "ordered"),
                   why="clamp (C1), (C2): min and max tensors of the operand's shape, element by element"),
    AttributeClass("min-above-max", *_bounds_class(False, "reversed"),
                   why="clamp: min > max: minimum(maximum(operand, min), max) is max everywhere (not min)"),
    AttributeClass("nan-bounds", *_special_bounds_class(_nan_bounds),
                   why="clamp: a NaN min or max (either sign) propagates through IEEE maximum / minimum"),
    AttributeClass("signed-zero-bounds", *_special_bounds_class(_zero_bounds),
                   why="clamp: bounds -0 / +0 (IEEE maximum / minimum order -0 < +0)"),
    AttributeClass("infinite-bounds", *_special_bounds_class(_infinite_bounds),
                   why="clamp: bounds -inf / +inf (the no-op clamp, and every value pushed to an infinity)"),
)


# --- the ops' own draws

def _draw_compare(draw, element_type, key=None):
    """``key``: a direction (the compare_type drawn) or a (direction, compare_type) pair."""
    shapes = draw.shapes
    et = as_element_type(element_type)
    shape = draw(shapes(max_rank=3))
    direction, ct = (key, ...) if isinstance(key, str) else key if key is not None else (None, ...)
    if direction is None:
        direction = draw(st.sampled_from(COMPARISON_DIRECTIONS))
    if ct is ...:
        if et.is_float:
            choices = [None, "FLOAT", "TOTALORDER", "TOTALORDER"]
        else:
            choices = [None, default_compare_type(et)]
        ct = draw(st.sampled_from(choices))
    return _compare_signature(et, shape, direction, ct)


def compare_keys(et: ElementType) -> list[tuple[str, str]]:
    """Signature keys of compare: every direction with every compare_type the element type
    allows (C3), each its own special-value case (TOTALORDER and FLOAT for floats)."""
    return [(d, ct) for ct in _compare_types(as_element_type(et)) for d in COMPARISON_DIRECTIONS]


def _draw_select(draw, element_type):
    shapes = draw.shapes
    et = as_element_type(element_type)
    shape = draw(shapes(max_rank=3))
    pred_shape = () if draw(st.booleans()) else shape
    t = TensorType(shape, et)
    return Signature((TensorType(pred_shape, BOOL), t, t), {}, (t,))


def _draw_clamp(draw, element_type):
    shapes = draw.shapes
    et = as_element_type(element_type)
    shape = draw(shapes(max_rank=3))
    t = TensorType(shape, et)
    min_t = TensorType((), et) if draw(st.booleans()) else t
    max_t = TensorType((), et) if draw(st.booleans()) else t
    return Signature((min_t, t, max_t), {}, (t,))


samplers("stablehlo.compare", draw_signature=_draw_compare, signature_keys=compare_keys,
         attribute_space=COMPARE_CLASSES)
samplers("stablehlo.select", draw_signature=_draw_select, attribute_space=SELECT_CLASSES)
samplers("stablehlo.clamp", draw_signature=_draw_clamp, attribute_space=CLAMP_CLASSES)
