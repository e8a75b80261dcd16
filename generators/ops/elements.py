"""Many elements for an op's ``draw_inputs`` sampler, at array speed.

Hypothesis draws an element in about 50 us, so a hook that draws a tensor of thousands one by
one costs a fuzz campaign most of a second per operand.  Up to ``SMALL_ELEMENTS`` elements are
drawn one by one (each shrinks on its own, as before); more come from a numpy Generator seeded
by one Hypothesis draw, through the hook's own ``sample(rng, n)`` with the same distribution
(the split generators/tensors.py makes for every ordinary tensor).
"""

from __future__ import annotations

import numpy as np

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
