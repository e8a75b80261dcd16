"""Shape strategies: rank 0 and zero-size dimensions are reached on purpose."""

from __future__ import annotations

from hypothesis import strategies as st


def shapes(min_rank: int = 0, max_rank: int = 4, min_side: int = 0, max_side: int = 5) -> st.SearchStrategy:
    """Static shapes; about one in ten has a zero-size dimension, one in five is rank 0."""
    side = st.integers(min_side, max_side)
    return st.one_of(
        st.just(()) if min_rank == 0 else st.nothing(),
        st.lists(side, min_size=max(min_rank, 1), max_size=max(max_rank, 1)).map(tuple),
    ) if max_rank > 0 else st.just(())


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
