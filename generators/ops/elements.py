"""Many elements for an op's ``draw_inputs`` sampler, at array speed.

Hypothesis draws an element in about 50 us, so a hook that draws a tensor of thousands one by
one costs a fuzz campaign most of a second per operand.  Up to ``SMALL_ELEMENTS`` elements are
drawn one by one (each shrinks on its own, as before); more come from a numpy Generator seeded
by one Hypothesis draw, through the hook's own ``sample(rng, n)`` with the same distribution
(the split generators/tensors.py makes for every ordinary tensor).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from oracle.numerics import round_to
from oracle.types import as_element_type, element_type

#: Tensors up to this many elements are drawn element by element (generators/tensors.py SMALL_SIZE).
SMALL_ELEMENTS = 16


def drawn_elements(draw, n: int, strategy, sample) -> list:
    """n elements (Python scalars, as Hypothesis draws them: 64-bit unsigned values too): from
    ``strategy`` one by one, or ``sample(rng, n)`` when n > SMALL_ELEMENTS."""
    from hypothesis import strategies as st
    if n <= SMALL_ELEMENTS:
        return list(draw(st.lists(strategy, min_size=n, max_size=n)))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    return _scalars(sample(rng, n))


def _scalars(values) -> list:
    """A sampler's values (an array or a list) as a list of Python scalars."""
    return values.tolist() if isinstance(values, np.ndarray) else list(values)


def pick(rng, n: int, *branches) -> list:
    """n elements, each from one of ``branches`` (``rng, k -> k values``) chosen uniformly, as
    Hypothesis's ``one_of`` does; values stay Python scalars (numpy would turn 64-bit unsigned
    integers mixed with others into floats)."""
    which = rng.integers(0, len(branches), n)
    out: list = [None] * n
    for k, branch in enumerate(branches):
        where = np.flatnonzero(which == k)
        if where.size:
            for i, v in zip(where.tolist(), _scalars(branch(rng, where.size))):
                out[i] = v
    return out


def integers(lo: int, hi: int):
    """A branch: uniform integers in [lo, hi] (any width: unsigned 64-bit ones included)."""
    def branch(rng, k):
        span = hi - lo
        if span < 2 ** 63:
            return [lo + int(v) for v in rng.integers(0, span, k, endpoint=True)]
        return [lo + int(v) % (span + 1) for v in rng.integers(0, 2 ** 64 - 1, k, dtype=np.uint64, endpoint=True)]
    return branch


def sampled_from(values):
    """A branch: one of ``values`` each."""
    pool = list(values)

    def branch(rng, k):
        return [pool[i] for i in rng.integers(0, len(pool), k)]
    return branch


# ------------------------------------------------------ values on a conversion's destination edges
#
# A conversion goes wrong where its DESTINATION type has edges: its subnormals, its smallest
# normal, its largest finite value, its +-0, the ties between two adjacent destination values,
# and the first values past its range.  The source type's own special values rarely land there
# (no f32 special value is an exact f16 subnormal), so a conversion's special-value case also
# gets these values, each mapped back to an exact value of the source type, with its neighbours
# in the source type (just above / below every tie).  A backend may also round through a
# narrower intermediate type on the way (f32 -> f16 -> f8E4M3FN; i64 -> f64 -> f32): a value
# just above or below an intermediate type's tie next to a destination tie rounds twice.

#: Intermediate float types a conversion from a float type may round through.  Spec convert: an
#: exactly representable value converts exactly, an inexact one is "TBD (#180)"; the oracle's
#: profile rounds once to nearest (oracle/element_conversion.py), which rounding twice breaks.
FLOAT_INTERMEDIATES = ("f16", "bf16", "f32")
#: Intermediate float types a conversion from a wide integer may round through.
INTEGER_INTERMEDIATES = ("f32", "f64")


@functools.lru_cache(maxsize=None)
def _grid(name: str) -> np.ndarray:
    """Every finite non-negative value of a float type of 16 bits or fewer, sorted (float64)."""
    et = element_type(name)
    pats = np.arange(1 << et.bits, dtype=np.uint64).astype(et.storage_dtype)
    with np.errstate(invalid="ignore"):  # 4- and 6-bit types: one code per byte, low bits
        vals = pats.view(et.dtype).astype(np.float64)
    return np.unique(vals[np.isfinite(vals) & (vals >= 0)])


def _neighbours(et, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The values of float type ``et`` just below and just above each of ``values`` (non-negative
    values of ``et``); NaN where there is none below; above the largest finite value, the step
    past it (max + the last spacing: where the type would continue)."""
    v = np.asarray(values, np.float64)
    if et.bits <= 16:
        grid = _grid(et.name)
        i = np.clip(np.searchsorted(grid, v), 0, grid.size - 1)
        past = grid[-1] + (grid[-1] - grid[-2])
        below = np.where(i > 0, grid[np.maximum(i - 1, 0)], np.nan)
        above = np.where(i + 1 < grid.size, grid[np.minimum(i + 1, grid.size - 1)], past)
        return below, above
    x = v.astype(et.dtype)
    below = np.nextafter(x, et.dtype.type(-np.inf)).astype(np.float64)
    with np.errstate(over="ignore"):
        above = np.nextafter(x, et.dtype.type(np.inf)).astype(np.float64)
    above = np.where(np.isinf(above), v + (v - below), above)  # past max: the next spacing
    return np.where(v > 0, below, np.nan), above


def _exactly_in(et, values: np.ndarray) -> np.ndarray:
    """``values`` (float64) rounded to ``et`` -- each kept where exact, its nearest value where not."""
    with np.errstate(all="ignore"):
        return round_to(np.asarray(values, np.float64), et).astype(np.float64)


def _float_destination_ties(dst, intermediates) -> np.ndarray:
    """Non-negative values (float64) at ``dst``'s edges: 0, its smallest and largest subnormal, smallest
    normal, 1, largest finite value and the one below; the ties between each of them and its
    neighbours (0 | smallest subnormal, max | the step past max: the first value past the range
    included); the step past max; and beside every tie, the ties of each type of
    ``intermediates`` next to it (where a conversion rounding through that type goes wrong)."""
    fi = dst.finfo
    tiny, normal, top = float(fi.smallest_subnormal), float(fi.smallest_normal), float(fi.max)
    anchors = np.array([a for a in (tiny, normal - tiny, normal, 1.0, top) if a > 0])
    below, above = _neighbours(dst, anchors)
    anchors = np.concatenate([anchors, below[np.isfinite(below) & (below > 0)]])
    below, above = _neighbours(dst, anchors)
    ties = np.concatenate([(anchors + below)[np.isfinite(below)] / 2, (anchors + above) / 2])
    out = [[0.0], anchors, ties, above[-1:] if anchors.size else anchors, [2 * top]]
    for inner in intermediates:
        if not inner.finfo.nmant > fi.nmant:
            continue
        exact = ties[_exactly_in(inner, ties) == ties]
        lo, hi = _neighbours(inner, exact)
        out += [((exact + lo) / 2)[np.isfinite(lo)], (exact + hi) / 2]
    return np.concatenate([np.asarray(o, np.float64) for o in out])


def _with_source_neighbours(src, values: np.ndarray) -> np.ndarray:
    """``values`` in float type ``src`` (rounded where inexact) with both signs and, beside each,
    the values of ``src`` just below and above it."""
    v = _exactly_in(src, np.abs(values[np.isfinite(values)]))
    v = v[np.isfinite(v)]
    below, above = _neighbours(src, v)
    both = np.concatenate([v, below[np.isfinite(below)], above[np.isfinite(above)]])
    return np.concatenate([both, -both])


def _integer_targets(lo: int, hi: int) -> list[int]:
    """Integers at and just past the range [lo, hi] of an integer destination."""
    return [lo, hi, lo - 1, hi + 1, lo + 1, hi - 1, 2 * hi + 2, lo * 2]


def _integer_source_float_ties(src, dst, intermediates) -> list[int]:
    """Integers of ``src`` at ``dst``'s ties (a float destination): at a few powers of two where
    dst's spacing is 2 or more, and at dst's largest finite value, the tie above each value and
    the one above the next (one rounds down, one up, to even), plus and minus one; beside each
    tie the ties of every intermediate type next to it, plus and minus one."""
    p = int(dst.finfo.nmant)
    top_bit = src.bits - (1 if src.is_signed else 0)
    exponents = sorted({e for e in (p + 1, p + 2, p + 8, top_bit - 2, top_bit - 1) if p < e < top_bit})
    out: list[int] = []
    anchors = [(1 << e, e) for e in exponents]
    top = float(dst.finfo.max)
    if top < src.max_value:
        anchors.append((int(top), int(math.floor(math.log2(top)))))
    for a, e in anchors:
        if e <= p:  # a spacing below 2 there: its ties are not integers
            continue
        half = 1 << (e - p - 1)  # half the destination's spacing at 2^e
        for tie in (a + half, a + 3 * half):
            out += [tie - 1, tie, tie + 1]
            for inner in intermediates:
                q = int(inner.finfo.nmant)
                if p < q and e - q - 1 >= 0:  # the intermediate's ties next to this tie
                    h = 1 << (e - q - 1)
                    out += [tie - h - 1, tie - h, tie - h + 1, tie + h - 1, tie + h, tie + h + 1]
    return out


def destination_edges(src, dst) -> np.ndarray:
    """Values of element type ``src`` (an array of its dtype) where a conversion to ``dst`` meets
    dst's edges: dst's subnormals, smallest normal, largest finite value and +-0, the ties
    between adjacent values of dst, the first values past dst's range, each with its neighbours
    in ``src``, and the values beside the ties of every narrower float type a backend might
    round through on the way (FLOAT_INTERMEDIATES from a float, INTEGER_INTERMEDIATES from an
    integer).  Complex types: these values as the real parts (reversed as the imaginary parts)
    of the components' conversion.  Empty where a bool is on either side."""
    with np.errstate(all="ignore"):  # the steps past max may overflow float64 (f64 itself): dropped
        return _destination_edges(as_element_type(src), as_element_type(dst))


def _destination_edges(src, dst) -> np.ndarray:
    if src.is_complex:
        part = _destination_edges(src.component, dst.component if dst.is_complex else dst)
        out = np.zeros(part.size, src.dtype)
        out.real, out.imag = part, part[::-1]
        return out
    dst = dst.component if dst.is_complex else dst
    if src.is_bool or dst.is_bool:
        return np.zeros(0, src.dtype)
    if src.is_float:
        if dst.is_float:
            inner = [element_type(n) for n in FLOAT_INTERMEDIATES if element_type(n).finfo.nmant < src.finfo.nmant]
            values = _float_destination_ties(dst, inner)
        else:
            values = np.array([v + d for v in _integer_targets(dst.min_value, dst.max_value)
                               for d in (0.0, 0.5, -0.5)], np.float64)
        values = _with_source_neighbours(src, values)
        if src.finfo.min >= 0:  # f8E8M0FNU: no negatives (and no zero)
            values = values[values > 0]
        return _unique_values(values.astype(src.dtype))
    # an integer source: exact integers, in range
    if dst.is_float:
        inner = [element_type(n) for n in INTEGER_INTERMEDIATES if element_type(n).finfo.nmant + 1 < src.bits]
        ints = _integer_source_float_ties(src, dst, inner)
    else:
        ints = _integer_targets(dst.min_value, dst.max_value)
    ints = sorted({s * v for v in ints for s in (1, -1) if src.min_value <= s * v <= src.max_value})
    return np.array(ints, dtype=object).astype(src.dtype) if ints else np.zeros(0, src.dtype)


def _unique_values(values: np.ndarray) -> np.ndarray:
    """``values`` with repeated bit patterns dropped, in their first order."""
    bits = values.view(np.dtype(f"u{values.dtype.itemsize}"))
    _, first = np.unique(bits, return_index=True)
    return values[np.sort(first)]


def reduce_precision_edges(src, exponent_bits: int, mantissa_bits: int) -> np.ndarray:
    """Values of float type ``src`` at the edges of reduce_precision's eXmY format: its smallest
    subnormal and normal, largest finite value and the ties beside them and beside 1 (one below
    an even neighbour, one below an odd one), the tie past max (which overflows to inf), each
    with its neighbours in ``src``."""
    src = as_element_type(src)
    e, m = exponent_bits, mantissa_bits
    emax = (1 << (e - 1)) - 1 if e >= 1 else 0
    emin = 1 - emax
    top = (2.0 - 2.0 ** -m) * 2.0 ** emax
    normal, tiny = 2.0 ** emin, 2.0 ** (emin - m)
    values = [top, normal, tiny, normal - tiny, 1.0, tiny / 2, normal - tiny / 2, normal + tiny / 2,
              1.0 + 2.0 ** -(m + 1), 1.0 + 3 * 2.0 ** -(m + 1), top + 2.0 ** (emax - m - 1),
              top - 2.0 ** (emax - m - 1)]
    with np.errstate(all="ignore"):
        return _unique_values(_with_source_neighbours(src, np.array(values, np.float64)).astype(src.dtype))


def bitcast_destination_specials(src, dst, specials: np.ndarray) -> np.ndarray:
    """``specials`` (values of ``dst``: its NaN payloads, infinities, subnormals, -0) as the values
    of ``src`` with the same bits, where both types are whole bytes of one width (other
    bitcasts change the shape, which the special-value case does not take)."""
    src, dst = as_element_type(src), as_element_type(dst)
    if src.bits != dst.bits or src.bits < 8 or src.is_bool or dst.is_bool:
        return np.zeros(0, src.dtype)
    return np.ascontiguousarray(specials).view(src.dtype)


def quantization_edges(expressed, scales: np.ndarray, zero_points: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """Float values (of type ``expressed``) where uniform_quantize to storage range [lo, hi] with
    per-element ``scales`` / ``zero_points`` meets the destination's edges, one row of candidates
    per element (shape (k,) + scales.shape): the storage bounds and zero point exactly, one step
    past each bound, the ties half-way between the bounds and their neighbours and beside the zero
    point (spec uniform_quantize: round_nearest_even of clamp(x / scale + zero_point)), each
    rounded to ``expressed`` and then its neighbours in ``expressed``, and +-0."""
    et = as_element_type(expressed)
    z = np.asarray(zero_points, np.float64)
    steps = [lo, hi, lo - 1, hi + 1, lo + 0.5, hi - 0.5, lo - 0.5, hi + 0.5]
    rows = [(np.full_like(z, k) - z) for k in steps] + [z * 0 + 0.5, z * 0 - 0.5, z * 0 + 1.5]
    out = []
    with np.errstate(all="ignore"):
        for r in rows:
            x = round_to(r * np.asarray(scales, np.float64), et)
            out += [x, np.nextafter(x, et.dtype.type(np.inf)) if et.bits >= 32 else _step(et, x, 1),
                    np.nextafter(x, et.dtype.type(-np.inf)) if et.bits >= 32 else _step(et, x, -1)]
    out += [np.zeros_like(out[0]), -np.zeros_like(out[0])]
    with np.errstate(all="ignore"):  # a step past the range overflows to inf: kept
        return np.stack([np.asarray(o, et.dtype) for o in out])


def _step(et, x: np.ndarray, direction: int) -> np.ndarray:
    """The value of float type ``et`` (16 bits or fewer) one step toward +inf (1) or -inf (-1) from each x."""
    v = np.asarray(x, np.float64)
    below, above = _neighbours(et, np.abs(v))
    if direction > 0:
        return np.where(v >= 0, above, -below)
    return np.where(v > 0, below, -above)
