"""Shape strategies.

Most drawn shapes are ones a backend really tiles and vectorizes: 2-4 non-trivial dimensions
and 64-4096 elements (a transpose with the inverse permutation, a reduction over the wrong
dimension or a mis-tiled loop only shows on such shapes).  Rank 0, tiny and zero-size shapes
are still drawn on purpose, about one in ten each.
"""

from __future__ import annotations

import functools
import math

from hypothesis import strategies as st

#: Element counts a "real" shape aims for (when the rank and side bounds allow).
REAL_ELEMENTS = (64, 4096)
#: Largest side of a real shape when the caller gives no ``max_side``.
REAL_MAX_SIDE = 64
# Sides of real shapes, the most typical first (Hypothesis's simplest draw is 8 x 8): powers of
# two, their odd neighbours (remainder loops after vectorization) and size-1 dimensions.
_REAL_SIDES = (8, 16, 5, 7, 32, 3, 64, 13, 4, 12, 2, 31, 33, 9, 1, 17, 6, 24, 48, 15, 63)


def _fit(sides: list[int], lo_side: int, hi_side: int) -> tuple[int, ...]:
    """Sides brought into REAL_ELEMENTS by halving the largest / doubling the smallest side."""
    lo, hi = REAL_ELEMENTS
    sides = list(sides)
    while sides and math.prod(sides) > hi and max(sides) > lo_side:
        i = sides.index(max(sides))
        sides[i] = max(lo_side, (sides[i] + 1) // 2)
    while sides and math.prod(sides) < lo:
        growable = [i for i, s in enumerate(sides) if s < hi_side]
        if not growable:
            break
        i = min(growable, key=lambda j: sides[j])
        grown = min(hi_side, max(2, sides[i] * 2))
        if math.prod(sides) // max(sides[i], 1) * grown > hi:
            break
        sides[i] = grown
    return tuple(sides)


@functools.lru_cache(maxsize=None)  # a composite defined per call costs Hypothesis a parse of its source
def _real_shapes(min_rank: int, max_rank: int, min_side: int, max_side: int) -> st.SearchStrategy:
    lo_side = max(min_side, 1)
    choices = [s for s in _REAL_SIDES if lo_side <= s <= max_side] or [max_side]
    # the fewest dimensions that can hold REAL_ELEMENTS[0] elements of sides <= max_side
    needed = math.ceil(math.log(REAL_ELEMENTS[0]) / math.log(max_side)) if max_side > 1 else max_rank
    lo_rank = min(max(min_rank, 2, needed), max_rank)

    @st.composite
    def draw(draw):
        rank = draw(st.integers(lo_rank, max_rank))
        return _fit([draw(st.sampled_from(choices)) for _ in range(rank)], lo_side, max_side)
    return draw()


def _small_shapes(min_rank: int, max_rank: int, min_side: int, max_side: int) -> st.SearchStrategy:
    return st.lists(st.integers(min_side, max_side), min_size=max(min_rank, 1), max_size=max(max_rank, 1)).map(tuple)


@functools.lru_cache(maxsize=None)
def _empty_shapes(min_rank: int, max_rank: int, max_side: int) -> st.SearchStrategy:
    """Shapes with one zero-size dimension."""
    @st.composite
    def draw(draw):
        shape = list(draw(_small_shapes(max(min_rank, 1), max_rank, 1, max_side)))
        shape[draw(st.integers(0, len(shape) - 1))] = 0
        return tuple(shape)
    return draw()


def shapes(min_rank: int = 0, max_rank: int = 4, min_side: int = 0, max_side: int | None = None) -> st.SearchStrategy:
    """Static shapes: most are real shapes (rank max(2, min_rank)..max_rank, sides up to
    ``max_side`` -- REAL_MAX_SIDE when not given --, REAL_ELEMENTS elements where the bounds
    allow); about one in ten has a zero-size dimension (when min_side is 0), one in ten is rank 0
    (when min_rank is 0) and one in ten is small (sides up to 5)."""
    if max_rank <= 0:
        return st.just(())
    small_side = min(5, max_side) if max_side is not None else 5
    real_side = max_side if max_side is not None else REAL_MAX_SIDE
    real = _real_shapes(min_rank, max_rank, min_side, max(real_side, max(min_side, 1)))
    small = _small_shapes(min_rank, max_rank, min_side, max(small_side, min_side))
    empty = _empty_shapes(min_rank, max_rank, max(small_side, 1)) if min_side == 0 else small
    scalar = st.just(()) if min_rank == 0 else small
    # Hypothesis favours the ends of a range and small numbers: those pick real shapes
    odd_ones = {3: empty, 5: scalar, 7: small}
    return st.integers(0, 9).flatmap(lambda k: odd_ones.get(k, real))


def broadcastable_to(shape: tuple[int, ...]) -> st.SearchStrategy:
    """(operand shape, broadcast_dimensions) pairs valid for broadcast_in_dim to ``shape``."""
    @st.composite
    def draw(draw):
        rank = draw(st.integers(0, len(shape)))
        dims = tuple(sorted(draw(st.permutations(range(len(shape))))[:rank]))
        operand = tuple(shape[d] if draw(st.booleans()) or shape[d] != 1 else 1 for d in dims)
        operand = tuple(1 if draw(st.integers(0, 4)) == 0 else s for s in operand)
        return operand, dims
    return draw()
