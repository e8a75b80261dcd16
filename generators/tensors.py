"""Tensor value strategies whose values reach the edges of each element type ON PURPOSE.

Everything works on bit patterns: a value is built as an unsigned integer of the type's
``storage_dtype`` (only the low ``bits`` bits for the sub-byte types i2/i4/ui2/ui4/f4/f6,
the rest masked off) and then ``.view(dtype)``; so every encoding of every type is
reachable, NaN payloads and signs included.

For each element type a ``Palette`` holds *categories* of values (spec "Types" / "Values"):

* floats: ``nan`` (canonical, negative, signalling and payload NaNs), ``inf`` (+-inf),
  ``zero`` (+-0; only +0 where the type has no -0), ``subnormal`` (+-smallest, +-largest and
  random subnormals), ``max`` (the min and max finite values), ``extremes`` (the values next
  to max, +-smallest normal), ``one`` (+-1), ``pow2`` (every power of two), ``ties`` (values
  exactly half-way between two consecutive values of a narrower float type, e.g. f32 inputs
  that are rounding ties for a conversion to bf16/f16/f8, the ties at each narrower type's
  underflow / subnormal / overflow boundaries, and the half-integers that are ties for
  float->integer rounding), ``near_overflow`` (the top binade, and the neighbours of
  sqrt(max) and log(max), where squares / exponentials start to overflow);
* integers: ``small`` (0, 1, -1), ``extremes`` (min, max, min+1, max-1), ``pow2`` (+-2^k and
  2^k - 1, incl. the sign boundary of the unsigned types);
* i1: ``bool`` (false, true).

Each category maps a uniformly random (or Hypothesis-drawn) 64-bit ``raw`` integer to a bit
pattern, vectorized; raw = 0 gives the category's simplest value, so shrinking works.

An element of a tensor is drawn from a mixture: an *edge* value (one of the categories),
an *ordinary* value (in [-10, 10], a third of them integers or half-integers), or
*random* bits (half of them forced finite for floats: values across the whole exponent
range).  Tensors with up to ``SMALL_SIZE`` elements are drawn element by element with
Hypothesis (best shrinking); bigger ones draw a seed and a few knobs (mode, edge fraction,
focus category) with Hypothesis and build the array with numpy's Generator (fast, and the
knobs still shrink).  Sometimes a whole tensor is filled with one edge value.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Callable, Sequence

import numpy as np
from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from oracle.types import (FLOATS, ElementType, QuantizedElementType, TensorType, TokenType, TupleType)

from .dtypes import as_element_type

#: Tensors with at most this many elements are drawn element by element.
SMALL_SIZE = 16
#: Size range used for a ``?`` (dynamic) dimension when nothing else fixes it.
DYNAMIC_DIM_SIZES = (0, 4)

_U64 = np.uint64
Raw2Bits = Callable[[np.ndarray], np.ndarray]  # uint64 array -> storage bit patterns


# --------------------------------------------------------------------------- categories

def _pool(patterns) -> Raw2Bits | None:
    """A category that picks from a fixed array of bit patterns (raw = 0 -> the first)."""
    arr = np.asarray(patterns)
    if arr.size == 0:
        return None
    n = _U64(arr.size)

    def pick(raw):
        return arr[(raw % n).astype(np.intp)]
    pick.fixed = (arr,)
    return pick


def _union(parts: Sequence[Raw2Bits | None]) -> Raw2Bits | None:
    """A category choosing one of ``parts`` by ``raw % len`` and passing ``raw // len`` on."""
    parts = [p for p in parts if p is not None]
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]
    k = _U64(len(parts))

    def pick(raw):
        sel, rest = raw % k, raw // k
        out = None
        for i, p in enumerate(parts):
            m = sel == i
            if m.any():
                vals = p(rest[m])
                if out is None:
                    out = np.zeros(raw.shape, dtype=vals.dtype)
                out[m] = vals
        return out
    pick.fixed = tuple(a for p in parts for a in getattr(p, "fixed", ()))
    return pick


def _fixed_patterns(category: Raw2Bits) -> np.ndarray:
    """Every fixed pattern a category holds (its random parts, e.g. random NaN payloads, excluded)."""
    return _unique(np.concatenate(category.fixed)) if getattr(category, "fixed", ()) else np.zeros(0, np.uint8)


def _unique(patterns) -> np.ndarray:
    """Unique bit patterns, first occurrence order kept (so the nice ones stay first)."""
    arr = np.asarray(patterns).ravel()
    _, idx = np.unique(arr, return_index=True)
    return arr[np.sort(idx)]


class Palette:
    """Everything needed to draw values of one element type (see module docstring)."""

    et: ElementType
    categories: dict[str, Raw2Bits]

    def __init__(self, et: ElementType):
        self.et = et
        self.storage = et.storage_dtype if not et.is_bool else np.dtype(np.uint8)
        self.mask = _U64((1 << et.bits) - 1) if et.bits < 64 else _U64(0xFFFF_FFFF_FFFF_FFFF)
        self.categories = {}

    # conversions
    def to_bits(self, values) -> np.ndarray:
        raise NotImplementedError

    def bits_to_array(self, bits: np.ndarray) -> np.ndarray:
        """Storage bit patterns -> values of the element type (masked to the type's bits)."""
        bits = np.asarray(bits, dtype=self.storage)
        if self.et.is_bool:
            return (bits & 1).astype(np.bool_)
        if self.et.bits < 8:  # sub-byte ml_dtypes types: only the low `bits` bits are valid
            bits = bits & self.storage.type(int(self.mask))
        return bits.view(self.et.dtype)

    def random_bits(self, raw: np.ndarray) -> np.ndarray:
        return (raw & self.mask).astype(self.storage)

    def random_finite(self, raw: np.ndarray) -> np.ndarray:
        return self.random_bits(raw)

    def ordinary(self, values: np.ndarray) -> np.ndarray:
        """Values in about [-10, 10] (float64 in) -> bit patterns (clipped to the type's range)."""
        raise NotImplementedError

    def ordinary_values(self, rng: np.random.Generator, n: int) -> np.ndarray:
        v = rng.uniform(-10.0, 10.0, n)
        r = rng.integers(0, 6, n)
        v = np.where(r == 0, np.round(v), np.where(r == 1, np.round(v * 2) / 2, v))  # ints, half-ints
        return self.ordinary(v)

    def edge_pool(self, category: str | None = None) -> np.ndarray:
        """Every fixed edge value (of all categories, or of one), as values of the type."""
        cats = self.categories.values() if category is None else [self.categories[category]]
        pats = [_fixed_patterns(c).astype(self.storage) for c in cats]
        return self.bits_to_array(_unique(np.concatenate(pats)))


# ------------------------------------------------------------------------------- floats

def _mask_of(et: ElementType):
    return et.storage_dtype.type((1 << et.bits) - 1) if et.bits < 8 else None


def _to_bits(et: ElementType, values) -> np.ndarray:
    """float64 values -> bit patterns of ``et`` (rounded by the dtype's cast)."""
    with np.errstate(all="ignore"):
        bits = np.asarray(values, dtype=np.float64).astype(et.dtype).view(et.storage_dtype)
    m = _mask_of(et)
    return bits & m if m is not None else bits


def _to_f64(et: ElementType, bits) -> np.ndarray:
    bits = np.asarray(bits, dtype=et.storage_dtype)
    m = _mask_of(et)
    with np.errstate(all="ignore"):
        return (bits & m if m is not None else bits).view(et.dtype).astype(np.float64)


def _exact_bits(et: ElementType, values) -> np.ndarray:
    """Bit patterns of those ``values`` that ``et`` represents exactly, sign of zero included."""
    v = np.asarray(values, dtype=np.float64)
    b = _to_bits(et, v)
    back = _to_f64(et, b)
    keep = (back == v) & (np.signbit(back) == np.signbit(v))
    return b[keep]


class FloatPalette(Palette):
    def __init__(self, et: ElementType):
        super().__init__(et)
        fi = et.finfo
        self.max = float(fi.max)
        self.lowest = float(fi.min)  # -max, or the smallest value for the unsigned f8E8M0FNU
        self.smallest_normal = float(fi.smallest_normal)
        self._finite = None
        if et.bits <= 16:
            self._build_enumerated()
        else:
            self._build_ieee()
        half_integers = [x for h in (0.5, 1.5, 2.5, 3.5, 4.5, 7.5, 8.5) for x in (h, -h)]  # float->int ties
        per_type, boundary = _tie_patterns(et.name)
        self.categories["ties"] = _union([_pool(p) for p in per_type]
                                         + [_pool(boundary), _pool(_exact_bits(et, half_integers))])
        self.categories = {k: v for k, v in self.categories.items() if v is not None}

    def to_bits(self, values) -> np.ndarray:
        return _to_bits(self.et, values)

    def ordinary(self, values):
        v = np.asarray(values, dtype=np.float64)
        if self.lowest > 0:  # f8E8M0FNU: positive powers of two only
            v = np.abs(v)
        return self.to_bits(np.clip(v, self.lowest, self.max))

    def random_finite(self, raw):
        if self._finite is not None:
            return self._finite[(raw % _U64(self._finite.size)).astype(np.intp)]
        # Random bits with the exponent kept below all-ones: finite values over the whole range.
        bits = raw & self.mask
        exp_all = _U64((1 << self.E) - 1)
        is_special = ((bits >> _U64(self.M)) & exp_all) == exp_all
        bits = np.where(is_special, bits ^ (_U64(1) << _U64(self.M)), bits)
        return bits.astype(self.storage)

    def _neighbours(self, targets) -> np.ndarray:
        """The finite values just below / at / above each positive target, with both signs."""
        out = []
        for t in targets:
            if not (np.isfinite(t) and t > 0):
                continue
            b = int(self.to_bits([t])[0])
            out += [b + d for d in (-1, 0, 1) if 0 <= b + d <= int(self.mask)]
        cand = np.array(out, dtype=np.uint64).astype(self.storage)
        vals = _to_f64(self.et, cand)
        cand = cand[np.isfinite(vals) & (vals > 0)]
        return _unique(np.concatenate([cand, _exact_bits(self.et, -_to_f64(self.et, cand))]))

    def _thresholds(self) -> list[float]:
        """Where x*x and exp(x) / exp(2x) start to overflow."""
        m = self.max
        return [math.sqrt(m), math.log(m), math.log(m) / 2] if m > 1 else [math.sqrt(m)]

    def _build_enumerated(self):
        """Formats of <= 16 bits: classify every bit pattern."""
        et = self.et
        pats = np.arange(1 << et.bits, dtype=np.uint64).astype(self.storage)
        vals = _to_f64(et, pats)
        finite = np.isfinite(vals)
        absv = np.abs(vals)
        nan = pats[np.isnan(vals)]
        first_nans = self.to_bits([np.nan, -np.nan])  # canonical quiet NaN and its negation first
        self.categories["nan"] = _pool(_unique(np.concatenate([first_nans[np.isin(first_nans, nan)], nan])))
        self.categories["inf"] = _pool(_exact_bits(et, [np.inf, -np.inf]))
        is_zero = finite & (vals == 0)
        self.categories["zero"] = _pool(pats[is_zero][np.argsort(np.signbit(vals[is_zero]), kind="stable")])
        sub = finite & (absv > 0) & (absv < self.smallest_normal)
        if sub.any():
            lo, hi = absv[sub].min(), absv[sub].max()
            head = _exact_bits(et, [lo, -lo, hi, -hi])
            self.categories["subnormal"] = _pool(_unique(np.concatenate([head, pats[sub]])))
        ordered = np.unique(absv[finite & (absv > 0)])
        prev_max = ordered[-2] if ordered.size > 1 else ordered[-1]
        self.categories["max"] = _pool(_unique(_exact_bits(et, [self.max, self.lowest, -self.max])))
        self.categories["extremes"] = _pool(_unique(_exact_bits(et, [
            prev_max, -prev_max, self.smallest_normal, -self.smallest_normal])))
        self.categories["one"] = _pool(_exact_bits(et, [1.0, -1.0]))
        mant, _ = np.frexp(vals)
        p2 = finite & (np.abs(mant) == 0.5)
        order = np.lexsort((np.signbit(vals[p2]), np.abs(np.log2(absv[p2]))))  # 1, -1, 2, -2, 0.5, ...
        self.categories["pow2"] = _pool(pats[p2][order])
        top_binade = finite & (absv >= 2.0 ** math.floor(math.log2(self.max)))
        self.categories["near_overflow"] = _union([_pool(pats[top_binade]),
                                                   _pool(self._neighbours(self._thresholds()))])
        self._finite = pats[finite]

    def _build_ieee(self):
        """f32 / f64: build the patterns from the IEEE fields (sign | exponent | mantissa)."""
        et = self.et
        self.M, self.E = M, E = int(et.finfo.nmant), int(et.finfo.nexp)
        sign = _U64(1 << (et.bits - 1))
        exp_all = (1 << E) - 1
        mant_mask = (1 << M) - 1
        quiet = 1 << (M - 1)

        def pats(*fields):
            return np.array([(int(sign) if neg else 0) | (e << M) | m for e, m, neg in fields],
                            dtype=np.uint64).astype(self.storage)

        def both(e, m):
            return [(e, m, False), (e, m, True)]

        def random_field(e):  # random sign (raw bit 0) and non-zero random mantissa (raw >> 1)
            def f(raw):
                mant = (raw >> _U64(1)) & _U64(mant_mask)
                mant = np.where(mant == 0, _U64(1), mant)
                return (((raw & _U64(1)) * sign) | (_U64(e) << _U64(M)) | mant).astype(self.storage)
            return f

        bias = (1 << (E - 1)) - 1
        payload = quiet | (0x5555_5555_5555_5555 & (mant_mask >> 1))
        self.categories["nan"] = _union([_pool(pats(*both(exp_all, quiet), *both(exp_all, 1), *both(exp_all, mant_mask),
                                                    *both(exp_all, quiet | 1), *both(exp_all, payload))),
                                         random_field(exp_all)])  # quiet, signalling, payload NaNs
        self.categories["inf"] = _pool(pats(*both(exp_all, 0)))
        self.categories["zero"] = _pool(pats(*both(0, 0)))
        self.categories["subnormal"] = _union([_pool(pats(*both(0, 1), *both(0, mant_mask))), random_field(0)])
        self.categories["max"] = _pool(pats(*both(exp_all - 1, mant_mask)))
        self.categories["extremes"] = _pool(pats(*both(exp_all - 1, mant_mask - 1), *both(1, 0)))
        self.categories["one"] = _pool(pats(*both(bias, 0)))
        normal = [f for e in sorted(range(1, exp_all), key=lambda e: abs(e - bias)) for f in both(e, 0)]
        self.categories["pow2"] = _pool(pats(*normal, *[f for k in range(M) for f in both(0, 1 << k)]))
        self.categories["near_overflow"] = _union([random_field(exp_all - 1),
                                                   _pool(self._neighbours(self._thresholds()))])


@lru_cache(maxsize=None)
def _tie_patterns(name: str) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
    """Patterns of ``name`` exactly half-way between two consecutive values of a narrower float
    type (what a round-to-nearest-even conversion has to break a tie on): one array per
    narrower type, and one array of the boundary ties of all of them (0 | smallest subnormal,
    largest subnormal | smallest normal, max | the step past max)."""
    from oracle.types import element_type
    et = element_type(name)
    out, boundary = [], []
    for narrow in FLOATS:
        if narrow.name == name or narrow.finfo.nmant >= et.finfo.nmant:
            continue
        mids = _midpoints(narrow)
        pats = _exact_bits(et, np.stack([mids, -mids], axis=1).ravel())
        if pats.size:
            out.append(pats)
        fi = narrow.finfo
        edges = [float(fi.smallest_subnormal) / 2, float(fi.smallest_normal) - float(fi.smallest_subnormal) / 2,
                 mids.max()]
        boundary.append(_exact_bits(et, [x for e in edges for x in (e, -e)]))
    return tuple(out), _unique(np.concatenate(boundary)) if boundary else np.zeros(0, et.storage_dtype)


@lru_cache(maxsize=None)
def _midpoints(narrow: ElementType) -> np.ndarray:
    """Positive exact midpoints between consecutive finite values of ``narrow`` (float64),
    including the tie between 0 and the smallest subnormal and the tie just above max."""
    if narrow.bits > 16:  # f32 (narrower than f64 only): a fixed sample of neighbour pairs
        rng = np.random.default_rng(0)
        b = np.concatenate([np.array([0, 1, 0x7FFFFF, 0x800000, 0x3F800000, 0x7F7FFFFE], np.uint32),
                            rng.integers(0, 0x7F7F_FFFF, 4096, dtype=np.uint32)])
        lo = b.view(np.float32).astype(np.float64)
        hi = (b + np.uint32(1)).view(np.float32).astype(np.float64)
        m = float(np.finfo(np.float32).max)
        over = m + (m - float(np.nextafter(np.float32(m), np.float32(0)))) / 2
        return np.concatenate([(lo + hi) / 2, [over]])
    pats = np.arange(1 << narrow.bits, dtype=np.uint64).astype(narrow.storage_dtype)
    vals = _to_f64(narrow, pats)
    vals = np.unique(vals[np.isfinite(vals) & (vals >= 0)])
    if vals[0] != 0:  # f8E8M0FNU has no zero
        vals = np.concatenate([[0.0], vals])
    vals = np.concatenate([vals, [vals[-1] + (vals[-1] - vals[-2])]])  # the next value past max
    mids = (vals[:-1] + vals[1:]) / 2
    # Ties around 1 first (shrink target), then the rest.
    return mids[np.argsort(np.abs(np.log2(mids)), kind="stable")]


# ----------------------------------------------------------------------------- integers

class IntPalette(Palette):
    def __init__(self, et: ElementType):
        super().__init__(et)
        lo, hi, b = et.min_value, et.max_value, et.bits
        small = [v for v in (0, 1, -1) if lo <= v <= hi]
        extremes = [lo, hi, lo + 1, hi - 1]
        p2 = []
        for k in range(b):
            for v in (1 << k, -(1 << k), (1 << k) - 1, -((1 << k) - 1) - 1):
                if lo <= v <= hi:
                    p2.append(v)
        self.categories = {"small": _pool(self.to_bits(small)), "extremes": _pool(_unique(self.to_bits(extremes))),
                           "pow2": _pool(_unique(self.to_bits(p2)))}
        self.categories = {k: v for k, v in self.categories.items() if v is not None}

    def to_bits(self, values) -> np.ndarray:
        vals = [int(v) & int(self.mask) for v in values]  # two's complement bit patterns
        return np.array(vals, dtype=np.uint64).astype(self.storage)

    def random_finite(self, raw):
        """Random magnitudes over every bit length (log-uniform), random sign for signed types."""
        width = self.et.bits - 1 if self.et.is_signed else self.et.bits
        nbits = raw % _U64(width + 1)                                     # 0 .. width
        mixed = raw * _U64(0x9E37_79B9_7F4A_7C15)                         # wraps mod 2^64
        mixed ^= mixed >> _U64(29)
        mag = np.where(nbits == 0, _U64(0), mixed >> (_U64(64) - np.maximum(nbits, _U64(1))))
        if self.et.is_signed:
            negative = (raw >> _U64(63)) == 1
            mag = np.where(negative, (~mag + _U64(1)), mag)  # two's complement
        return (mag & self.mask).astype(self.storage)

    def ordinary(self, values):
        v = np.clip(np.round(np.asarray(values, dtype=np.float64)), max(self.et.min_value, -10),
                    min(self.et.max_value, 10)).astype(np.int64)
        return (v.view(np.uint64) & self.mask).astype(self.storage)


class BoolPalette(Palette):
    def __init__(self, et: ElementType):
        super().__init__(et)
        self.categories = {"bool": _pool(np.array([0, 1], dtype=np.uint8))}

    def to_bits(self, values):
        return np.asarray(values).astype(bool).astype(np.uint8)

    def ordinary(self, values):
        return (np.asarray(values, dtype=np.float64) > 0).astype(np.uint8)


def palette(element_type: str | ElementType) -> Palette:
    """The (cached) palette of an element type."""
    return _palette(as_element_type(element_type))


@lru_cache(maxsize=None)
def _palette(et: ElementType) -> Palette:
    if et.is_complex:
        raise TypeError("complex tensors are built from two palettes of the component type")
    if et.is_bool:
        return BoolPalette(et)
    if et.is_integer:
        return IntPalette(et)
    return FloatPalette(et)


def edge_values(element_type: str | ElementType, category: str | None = None) -> np.ndarray:
    """The fixed edge values of a type (all categories, or one), as an array of that type."""
    return palette(element_type).edge_pool(category)


# ---------------------------------------------------------------------------- building

def _from_categories(p: Palette, cats: np.ndarray, names: list[str], raw: np.ndarray,
                     ordinary: np.ndarray | None) -> np.ndarray:
    """Bit patterns for elements whose category index (into ``names``) is ``cats``."""
    out = np.zeros(cats.shape, dtype=p.storage)
    for i, name in enumerate(names):
        m = cats == i
        if not m.any():
            continue
        if name == "ordinary":
            out[m] = ordinary[m]
        elif name == "bits":
            out[m] = p.random_bits(raw[m])
        elif name == "finite":
            out[m] = p.random_finite(raw[m])
        else:
            out[m] = p.categories[name](raw[m])
    return out


_MODES = st.sampled_from(["ordinary"] + ["mixture"] * 6 + ["fill"] * 2 + ["edges", "bits"])
_EDGE_FRACTIONS = st.sampled_from([0.3, 0.05, 0.1, 0.5, 0.9])
_ORDINARY_SHARES = st.sampled_from([0.5, 0.2, 0.8])
_SEEDS = st.integers(0, 2**32 - 1)
_ORDINARY_FLOATS = st.floats(-10, 10, allow_nan=False)
_SMALL_FILL = st.integers(0, 4)


@lru_cache(maxsize=None)
def _raws(salt: int) -> SearchStrategy[int]:
    return st.integers(0, 2**64 - 1 - salt).map(lambda r: r + salt)


@lru_cache(maxsize=None)
def _category_names(p: Palette) -> SearchStrategy[str]:
    return st.sampled_from(list(p.categories))


@lru_cache(maxsize=None)
def _focus(p: Palette) -> SearchStrategy:
    return st.sampled_from([None, None, None] + list(p.categories))


@lru_cache(maxsize=None)
def _element_kinds(p: Palette) -> SearchStrategy[int]:
    # indices into ["ordinary", "bits", "finite", *categories]; ordinary first: shrinks towards it
    return st.sampled_from([0, 0, 0, 1, 2] + list(range(3, 3 + len(p.categories))))


def _fill_value(draw, p: Palette, salt: int):
    name = draw(_category_names(p))
    return p.categories[name](np.array([draw(_raws(salt))], dtype=_U64))[0]


@st.composite
def _big(draw, p: Palette, n: int, salt: int = 0):
    """n elements from a seed and a few knobs (numpy Generator does the bulk work)."""
    mode = draw(_MODES)
    if mode == "fill":
        return np.full(n, _fill_value(draw, p, salt), dtype=p.storage)
    cats = list(p.categories)
    focus = draw(_focus(p)) if mode in ("mixture", "edges") else None
    p_edge = {"mixture": draw(_EDGE_FRACTIONS), "edges": 1.0}.get(mode, 0.0)
    p_ord = {"mixture": draw(_ORDINARY_SHARES), "ordinary": 1.0}.get(mode, 0.0)
    rng = np.random.default_rng((draw(_SEEDS), salt))
    names = ["ordinary", "bits", "finite"] + ([focus] if focus else cats)
    u = rng.random(n)
    edge = u < p_edge
    ordn = ~edge & (u < p_edge + (1.0 - p_edge) * p_ord)
    which = np.where(edge, 3 + rng.integers(0, len(names) - 3, n), np.where(ordn, 0, 1 + rng.integers(0, 2, n)))
    raw = rng.integers(0, 2**64 - 1, n, dtype=_U64, endpoint=True)
    return _from_categories(p, which, names, raw, p.ordinary_values(rng, n))


@st.composite
def _small(draw, p: Palette, n: int, salt: int = 0):
    """n (<= SMALL_SIZE) elements drawn one by one with Hypothesis (each shrinks to 0.0).

    Hypothesis likes to copy one span of choices onto a sibling span (equal operands); with a
    non-zero ``salt`` the same choices give other edge values at other positions."""
    if draw(_SMALL_FILL) == 4:
        return np.full(n, _fill_value(draw, p, salt), dtype=p.storage)
    names = ["ordinary", "bits", "finite"] + list(p.categories)
    kinds, raws = _element_kinds(p), _raws(salt)
    cats = np.zeros(n, dtype=np.intp)
    raw = np.zeros(n, dtype=_U64)
    ordv = np.zeros(n, dtype=np.float64)
    for i in range(n):  # n <= SMALL_SIZE: Hypothesis draws, not array work
        cats[i] = draw(kinds)
        if cats[i] == 0:
            ordv[i] = draw(_ORDINARY_FLOATS)
        else:
            raw[i] = draw(raws)
    if salt:
        order = np.random.default_rng(salt).permutation(n)
        cats, raw, ordv = cats[order], raw[order], ordv[order]
    return _from_categories(p, cats, names, raw, p.ordinary(ordv))


@lru_cache(maxsize=4096)
def _real_tensors(et: ElementType, n: int, salt: int = 0) -> SearchStrategy[np.ndarray]:
    """n bit patterns (flat, storage dtype) of a non-complex element type."""
    p = palette(et)
    if n == 0:
        return st.just(np.zeros(0, dtype=p.storage))
    return _small(p, n, salt) if n <= SMALL_SIZE else _big(p, n, salt)


@lru_cache(maxsize=4096)
def _static_tensors(et: ElementType, shape: tuple[int, ...], salt: int) -> SearchStrategy[np.ndarray]:
    n = int(np.prod(shape, dtype=np.int64))
    if et.is_complex:
        comp = et.component
        return st.tuples(_real_tensors(comp, n, 2 * salt), _real_tensors(comp, n, 2 * salt + 1)).map(
            lambda ri: _complex_from_bits(et, ri[0], ri[1], shape))
    p = palette(et)
    return _real_tensors(et, n, salt).map(lambda bits: p.bits_to_array(bits).reshape(shape))


def tensors(element_type: str | ElementType, shape, *, salt: int = 0) -> SearchStrategy[np.ndarray]:
    """Arrays of ``shape`` (a tuple, or a strategy of tuples) with values of ``element_type``
    (dtype = the type's numpy/ml_dtypes dtype) that reach the type's edges on purpose.

    ``salt`` (a small int, e.g. the operand index) changes which values equal Hypothesis
    choices give: Hypothesis often copies the choices of one draw onto a sibling draw, and
    two operands (or the two halves of a complex number) with different salts still differ."""
    et = as_element_type(element_type)
    if isinstance(shape, SearchStrategy):
        return shape.flatmap(lambda s: tensors(et, s, salt=salt))
    shape = tuple(shape)
    if any(d is None or int(d) < 0 for d in shape):
        raise ValueError(f"tensors() needs a static shape, got {shape}")
    return _static_tensors(et, tuple(int(d) for d in shape), int(salt))


def _complex_from_bits(et: ElementType, re_bits: np.ndarray, im_bits: np.ndarray, shape) -> np.ndarray:
    comp = et.component
    flat = np.empty(2 * re_bits.size, dtype=comp.storage_dtype)
    flat[0::2], flat[1::2] = re_bits, im_bits  # bit-exact: NaN payloads and -0 survive
    return flat.view(et.dtype).reshape(shape)


def scalars(element_type: str | ElementType) -> SearchStrategy:
    """Single values (numpy scalars) of an element type, edges included."""
    return tensors(element_type, ()).map(lambda a: a[()])


# --------------------------------------------------------------------------- input sets

def _resolve_shapes(types: Sequence, draw) -> Callable[[TensorType], tuple[int, ...]]:
    """A function giving a static runtime shape for a (possibly dynamic) tensor type.

    A ``?`` dim at position i of a rank-r type takes the static size that some other type of
    the same signature with rank r has at position i (so element-wise operands agree), else one
    size drawn once per (r, i) and shared by every type of the signature."""
    hints: dict[tuple[int, int], int] = {}

    def collect(t):
        if isinstance(t, TensorType):
            for i, d in enumerate(t.shape):
                if d is not None:
                    hints.setdefault((t.rank, i), d)
        elif isinstance(t, TupleType):
            for u in t.types:
                collect(u)
    for t in types:
        collect(t)

    def resolve(t: TensorType):
        dims = []
        for i, d in enumerate(t.shape):
            if d is None:
                if (t.rank, i) not in hints:
                    hints[(t.rank, i)] = draw(st.integers(*DYNAMIC_DIM_SIZES))
                d = hints[(t.rank, i)]
            dims.append(d)
        return tuple(dims)
    return resolve


def _value_of(t, resolve, draw, salt: int):
    from oracle.evaluator import TOKEN_VALUE
    if isinstance(t, TokenType):
        return TOKEN_VALUE
    if isinstance(t, TupleType):
        return tuple(_value_of(u, resolve, draw, 100 * salt + 1 + i) for i, u in enumerate(t.types))
    if not isinstance(t, TensorType):
        raise TypeError(f"cannot draw a value of type {t}")
    shape = resolve(t)
    et = t.element_type
    if isinstance(et, QuantizedElementType):  # values are storage integers in [storage_min, storage_max]
        a = draw(tensors(et.storage_type, shape, salt=salt))
        return np.asarray(np.clip(a.astype(np.int64), et.min, et.max).astype(et.storage_type.dtype))
    return draw(tensors(et, shape, salt=salt))


def input_sets(signature) -> SearchStrategy[list]:
    """One value per operand type of ``signature`` (an oracle.registry.Signature, or any
    sequence of types): arrays for tensors (``?`` dims get a size), TOKEN_VALUE for tokens,
    tuples for tuples.  About one operand in ten whose type equals an earlier operand's type
    repeats that operand's value (x - x, x == x, ...)."""
    return _input_sets(tuple(getattr(signature, "operand_types", signature)),
                       tuple(getattr(signature, "result_types", ())))


@st.composite
def _input_sets(draw, operand_types: tuple, result_types: tuple):
    resolve = _resolve_shapes(operand_types + result_types, draw)
    values: list = []
    for i, t in enumerate(operand_types):
        earlier = [j for j in range(i) if operand_types[j] == t and isinstance(values[j], np.ndarray)]
        if earlier and draw(st.integers(0, 9)) == 9:
            values.append(values[draw(st.sampled_from(earlier))].copy())
        else:
            values.append(_value_of(t, resolve, draw, i))
    return values


# ------------------------------------------------------------------------ special values

#: Most elements in one special-value tensor (a cross product is thinned out evenly past it).
SPECIAL_CROSS_LIMIT = 1 << 16

# Where element-wise ops change behaviour: the edges of their domains (log, sqrt, acos, log1p
# at 0 / -1 / +-1), the periods of the trigonometric functions, and rounding ties.
_DOMAIN_POINTS = (0.5, 1.0, 2.0, math.pi / 4, math.pi / 2, math.pi, math.e, 10.0, 0.25, 1.5, 2.5, 3.5)


def _spread(patterns: np.ndarray, k: int) -> np.ndarray:
    """At most ``k`` patterns spread evenly over ``patterns`` (first and last kept)."""
    if patterns.size <= k:
        return patterns
    return patterns[np.unique(np.linspace(0, patterns.size - 1, k).round().astype(np.intp))]


def _float_specials(p: "FloatPalette") -> np.ndarray:
    et = p.et
    fixed = {name: _fixed_patterns(c).astype(p.storage) for name, c in p.categories.items()}
    # each category's first patterns are its named ones (+-min/max subnormal, quiet/signalling NaN, ...)
    parts = [fixed.get(name, np.zeros(0, p.storage))[:k] for name, k in
             (("zero", 2), ("inf", 2), ("nan", 8), ("subnormal", 6), ("max", 2), ("extremes", 4), ("one", 2),
)]
    parts.append(_spread(fixed.get("near_overflow", np.zeros(0, p.storage)), 24))  # top binade, sqrt(max), log(max)
    parts.append(_spread(fixed.get("ties", np.zeros(0, p.storage)), 24))  # rounding ties of narrower types
    parts.append(_spread(fixed.get("pow2", np.zeros(0, p.storage)), 12))
    domain = _unique(_to_bits(et, [s * v for v in _DOMAIN_POINTS for s in (1.0, -1.0)]).astype(p.storage))
    parts.append(domain)
    # the neighbours of the domain points: just inside and just outside each edge
    finite = np.isfinite(_to_f64(et, domain)) & (_to_f64(et, domain) != 0)
    for step in (1, -1):
        with np.errstate(over="ignore"):
            near = (domain[finite].astype(np.int64) + step).astype(p.storage)
        parts.append(near[np.isfinite(_to_f64(et, near))])
    bits = _unique(np.concatenate(parts))
    if _mask_of(et) is not None:
        bits = _unique(bits & _mask_of(et))
    return p.bits_to_array(bits)


def _int_specials(p: "IntPalette") -> np.ndarray:
    et = p.et
    lo, hi, w = et.min_value, et.max_value, et.bits
    values = [0, 1, -1, 2, -2, lo, hi, lo + 1, hi - 1, w - 1, w, w + 1, w // 2, -(w - 1), -w,
              1 << (w // 2), (1 << (w // 2)) - 1, -(1 << (w // 2)), hi // 2, hi // 2 + 1, lo // 2]
    # int -> float rounding: ties (2^p + 1 between 2^p and 2^p + 2 for a p-bit significand) and
    # their neighbours, and a value that i64 -> f64 -> f32 rounds twice (2^62 + 2^38 + 1)
    for digits in (4, 8, 11, 24, 53):
        values += [(1 << digits) + 1, (1 << (digits + 1)) + 3, -((1 << digits) + 1), (1 << digits) + 2]
    values += [(1 << 62) + (1 << 38) + 1, -((1 << 62) + (1 << 38) + 1), (1 << 30) + (1 << 6) + 1]
    return p.bits_to_array(_unique(p.to_bits([v for v in values if lo <= v <= hi])))


#: Ordinary components of the complex special values: near the unit circle, where the
#: functions' branch points (+-1, +-i for log1p/atan2) and periods (pi/2) are.
_COMPLEX_ORDINARY = (0.5, 2.0, math.pi / 2)


def _complex_components(component: ElementType, reduced: bool = False) -> np.ndarray:
    """The component values of the complex special values: +-0, +-inf, NaN, +-min subnormal,
    +-min normal, +-1, +-max and a few ordinary values (21 values, 441 complex numbers).
    ``reduced`` (two complex operands: every pair of 441 values would be 194,481 elements):
    +-0, +-inf, NaN, +-1, +-max, 0.5, -2 (11 values, 121 numbers, 14,641 pairs) -- the
    subnormal and min-normal components go, which only the unary ops' grid keeps."""
    fi = component.finfo
    big, normal, tiny = float(fi.max), float(fi.smallest_normal), float(fi.smallest_subnormal)
    if reduced:
        values = [0.0, -0.0, math.inf, -math.inf, math.nan, 1.0, -1.0, big, -big, 0.5, -2.0]
    else:
        values = [0.0, -0.0, math.inf, -math.inf, math.nan, tiny, -tiny, normal, -normal, 1.0, -1.0,
                  big, -big] + [s * v for v in _COMPLEX_ORDINARY for s in (1.0, -1.0)] + [0.25, -3.0]
    return np.array(values, dtype=np.float64).astype(component.dtype)


def _complex_grid(et: ElementType, reduced: bool) -> np.ndarray:
    """Every (re, im) pair of the components, re-major."""
    comp = _complex_components(et.component, reduced)
    re_index, im_index = np.meshgrid(np.arange(comp.size), np.arange(comp.size), indexing="ij")
    out = np.empty(re_index.size, et.dtype)
    out.real, out.imag = comp[re_index.ravel()], comp[im_index.ravel()]
    return out


@lru_cache(maxsize=None)
def _specials(et: ElementType) -> np.ndarray:
    if et.is_complex:  # every pair (re, im) of the special components (infinite and NaN ones included)
        return _complex_grid(et, reduced=False)
    p = palette(et)
    if et.is_bool:
        return np.array([False, True])
    return _int_specials(p) if et.is_integer else _float_specials(p)


def special_values(element_type: str | ElementType) -> np.ndarray:
    """The special values of a type, each once: for floats +-0, +-inf, NaNs (quiet, signalling,
    payloads), +-min/max subnormal, +-min normal, +-max, +-1, rounding ties of narrower types and
    float->int, the overflow thresholds of squares/exponentials, the domain edges of the
    element-wise functions (0, +-1, pi/2, ...) with their neighbours; for integers 0, +-1, +-2,
    min, max, min+1, max-1 and the shift counts around the bit width; for complex types every
    (re, im) pair of +-0, +-inf, NaN, +-min subnormal, +-min normal, +-1, +-max and a few
    ordinary components (``_complex_components``)."""
    return _specials(as_element_type(element_type))


#: The widest vector (in elements) whose tail the special values of one operand reach: a kernel
#: vectorized over 4, 8 or 16 lanes (SSE, AVX2, AVX-512 f32) computes the elements past its last
#: full vector in a separate (scalar or masked) epilogue -- where XLA CPU's f32 log of a subnormal
#: is wrong (judge/deviations/xla.toml, log `subnormal_in_short_vector_tail`).
VECTOR_TAIL = 16


def _tail_priority(et: ElementType) -> np.ndarray:
    """The special values a vector tail most often gets wrong, the most likely first: subnormals,
    -0 and NaN (a flushing or sign-losing epilogue), then the infinities, extremes and +-1."""
    p = palette(et)
    if et.is_float:
        fi = et.finfo
        tiny, normal, big = float(fi.smallest_subnormal), float(fi.smallest_normal), float(fi.max)
        sub_max = normal - tiny
        nan = p.categories.get("nan")
        nans = _fixed_patterns(nan)[:2] if nan is not None else np.zeros(0, p.storage)  # quiet NaN, -NaN
        exact = [_exact_bits(et, [v]) for v in (tiny, -0.0)] + [nans[:1]] + [
            _exact_bits(et, [v]) for v in (-sub_max, math.inf, -tiny, sub_max, -math.inf, 0.0)] + [nans[1:]] + [
            _exact_bits(et, [v]) for v in (normal, -normal, big, 1.0, -1.0)]
        subnormal = tiny < normal  # a type without subnormals: smallest_subnormal is the smallest normal
        if not subnormal:
            exact = [e for e in exact if e.size == 0 or _to_f64(et, e)[0] == 0 or abs(_to_f64(et, e)[0]) >= normal
                     or np.isnan(_to_f64(et, e)[0])]
        return p.bits_to_array(_unique(np.concatenate([np.asarray(e, p.storage) for e in exact])))
    lo, hi, w = et.min_value, et.max_value, et.bits
    values = [v for v in (lo, -1, hi, 0, w, 1, w - 1, lo + 1, hi - 1, w + 1, 2, -2) if lo <= v <= hi]
    return p.bits_to_array(_unique(p.to_bits(values)))


def _with_vector_tail(values: np.ndarray, et: ElementType) -> np.ndarray:
    """``values`` (the body: every special value once) followed by 15 to 30 of its hardest values
    (``_tail_priority``), so that the total is 15 mod VECTOR_TAIL: the last 15 / 7 / 3 elements,
    the tail past the last full 16 / 8 / 4-lane vector, hold the hardest values, the very last
    the hardest one, and each of them is in the body as well."""
    hard = _tail_priority(et)[:VECTOR_TAIL - 1]
    extra = VECTOR_TAIL - 1 + (-values.size) % VECTOR_TAIL
    tail = hard[::-1]  # the hardest value last
    return np.concatenate([values, np.resize(tail, extra - tail.size), tail]) if hard.size else values


def vector_tail_only(element_types: Sequence[ElementType]) -> list[np.ndarray] | None:
    """[VECTOR_TAIL - 1 hardest values of a single real float operand, the hardest last], else None.
    A tensor this small is all tail for a 16-lane kernel and ends in a 7 / 3-element tail past 8 / 4
    lanes; XLA CPU's f32 log of a subnormal is wrong only in tensors of 3-7 or 11-15 elements in
    all (a larger one is flushed to -inf), which the long special-value case never is."""
    if len(element_types) != 1 or not as_element_type(element_types[0]).is_float:
        return None
    et = as_element_type(element_types[0])
    return [_with_vector_tail(np.zeros(0, et.dtype), et)]


def _new_values_after(values: np.ndarray, more: np.ndarray | None) -> np.ndarray:
    """``values`` followed by those of ``more`` whose bit patterns it does not hold yet."""
    if more is None or not np.asarray(more).size:
        return values
    more = np.asarray(more, values.dtype)
    width = np.dtype(f"u{values.dtype.itemsize}") if values.dtype.itemsize <= 8 else None
    if width is None:  # complex: compare (re, im) bit pairs
        seen = {v.tobytes() for v in values}
        return np.concatenate([values, np.array([m for m in more if m.tobytes() not in seen], values.dtype)])
    return np.concatenate([values, more[~np.isin(more.view(width), values.view(width))]])


def special_value_cross(element_types: Sequence[ElementType], limit: int = SPECIAL_CROSS_LIMIT,
                        extra: Sequence[np.ndarray] | None = None) -> list[np.ndarray]:
    """Flat arrays, one per element type, holding together every combination (cross product) of
    the types' special values: for one operand each special value, for two every pair.  A product
    past ``limit`` elements keeps every pair of the first two operands (each list thinned evenly
    until they fit) and cycles the others' values along.  One real operand: the special values
    then the hardest of them again, ending in a vector tail (``_with_vector_tail``).  ``extra``:
    more values per operand, added to its special values before the cross (a conversion's
    values on its destination type's edges)."""
    # two or more complex operands: the reduced complex grid (see _complex_components)
    reduced = sum(as_element_type(t).is_complex for t in element_types) > 1
    lists = [_complex_grid(as_element_type(t), True) if reduced and as_element_type(t).is_complex
             else special_values(t) for t in element_types]
    if extra is not None:
        lists = [_new_values_after(v, more) for v, more in zip(lists, extra)]
    if not lists:
        return []
    if len(lists) == 1 and not as_element_type(element_types[0]).is_complex and not as_element_type(
            element_types[0]).is_bool:
        return [_with_vector_tail(lists[0], as_element_type(element_types[0]))]
    total = int(np.prod([v.size for v in lists], dtype=np.int64))
    if total > limit:
        a, b = lists[0], lists[1] if len(lists) > 1 else None
        side = int(limit ** 0.5) if b is not None else limit
        lists[0] = _spread(a, side)
        if b is not None:
            lists[1] = _spread(b, max(1, limit // lists[0].size))
        head = lists[:2]
        grids = np.meshgrid(*[np.arange(v.size) for v in head], indexing="ij")
        n = grids[0].size
        out = [v[g.ravel()] for v, g in zip(head, grids)]
        out += [np.resize(v, n) for v in lists[2:]]
        return out
    grids = np.meshgrid(*[np.arange(v.size) for v in lists], indexing="ij")
    return [v[g.ravel()] for v, g in zip(lists, grids)]
