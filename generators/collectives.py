"""Collective programs on random process grids (spec "Collective ops").

``draw_collective(draw, op, et)`` draws a valid one-op Signature whose ``grid`` is a random
num_replicas x num_partitions grid of at most ``MAX_PROCESSES`` processes, with a process-group
strategy the op supports (cross_replica, cross_partition, cross_replica_and_partition,
flattened_ids — chosen through channel_id and use_global_device_ids exactly as each op's
semantics say), random valid replica groups (ragged, -1 padded, where the op allows them),
channel ids and dimensions.  ``draw_grid_inputs`` draws one input list per process.
"""

from __future__ import annotations

from contextvars import ContextVar

from hypothesis import strategies as st

from oracle import ir
from oracle.registry import Signature
from oracle.types import ELEMENT_TYPES, TensorType

from .dtypes import as_element_type
from .tensors import tensors

MAX_PROCESSES = 8

# op -> strategies it can use (first: the one with no channel)
STRATEGIES = {
    "all_gather": ("cross_replica", "cross_replica_and_partition", "flattened_ids"),
    "all_reduce": ("cross_replica", "cross_replica_and_partition", "flattened_ids"),
    "reduce_scatter": ("cross_replica", "cross_replica_and_partition", "flattened_ids"),
    "all_to_all": ("cross_replica", "cross_partition"),
    "collective_permute": ("cross_replica", "cross_partition"),
    "collective_broadcast": ("cross_replica", "cross_partition"),
}


def all_grids(max_processes: int = MAX_PROCESSES) -> list[tuple[int, int]]:
    return [(r, p) for r in range(1, max_processes + 1) for p in range(1, max_processes // r + 1)]


@st.composite
def grids(draw, max_processes: int = MAX_PROCESSES):
    replicas = draw(st.integers(1, max_processes))
    partitions = draw(st.integers(1, max_processes // replicas))
    return replicas, partitions


def _ids_for(strategy: str, grid) -> int:
    """How many ids replica_groups ranges over for a strategy (the ops' size constraint)."""
    replicas, partitions = grid
    return {"cross_replica": replicas, "cross_replica_and_partition": replicas,
            "cross_partition": partitions, "flattened_ids": replicas * partitions}[strategy]


def _channel_attrs(draw, strategy: str) -> dict:
    attrs = {}
    if strategy == "cross_replica":
        if draw(st.booleans()):  # channel_id <= 0 is spelled by a 0 handle or by no handle at all
            attrs["channel_handle"] = _channel(0)
    else:
        attrs["channel_handle"] = _channel(draw(st.integers(1, 5)))
    if strategy == "flattened_ids":
        attrs["use_global_device_ids"] = ir.UnitAttr()
    return attrs


def _channel(handle: int) -> ir.StructAttr:
    return ir.StructAttr("stablehlo.channel_handle", (("handle", handle), ("type", 1 if handle else 0)))


def _groups_attr(groups: list[list[int]]) -> ir.DenseElements:
    """A 2-D si64 tensor, ragged groups padded with -1."""
    import numpy as np
    width = max((len(g) for g in groups), default=0)
    array = np.full((len(groups), width), -1, dtype=np.int64)
    for i, g in enumerate(groups):
        array[i, :len(g)] = g
    return ir.DenseElements(array, TensorType(array.shape, ELEMENT_TYPES["i64"]))


def _equal_groups(draw, n: int) -> list[list[int]]:
    """A random partition of range(n) into groups of one common size."""
    size = draw(st.sampled_from([d for d in range(1, n + 1) if n % d == 0]))
    order = draw(st.permutations(range(n)))
    return [list(order[i:i + size]) for i in range(0, n, size)]


def _ragged_groups(draw, n: int) -> list[list[int]]:
    order = list(draw(st.permutations(range(n))))
    groups = []
    while order:
        k = draw(st.integers(1, len(order)))
        groups.append(order[:k])
        order = order[k:]
    return groups


def _shape_with(draw, dim_multiple: int, max_rank: int = 3, min_multiple: int = 0):
    """A shape (rank >= 1) and one of its dims whose size is a multiple of ``dim_multiple``."""
    rank = draw(st.integers(1, max_rank))
    shape = [draw(st.integers(0, 3)) for _ in range(rank)]
    dim = draw(st.integers(0, rank - 1))
    shape[dim] = dim_multiple * draw(st.integers(min_multiple, 2))
    return tuple(shape), dim


#: The grid collectives draw on when a caller fixes one (random multi-op programs on a grid),
#: and the process-group strategy (coverage runs: every op x strategy x grid shape).
FIXED_GRID: ContextVar[tuple | None] = ContextVar("FIXED_GRID", default=None)
FIXED_STRATEGY: ContextVar[str | None] = ContextVar("FIXED_STRATEGY", default=None)


def draw_collective(draw, op: str, element_type, body=None) -> Signature:
    """A signature of collective ``op`` on a drawn grid; ``body`` (a generators.regions.Body):
    all_reduce's / reduce_scatter's computation, on operands with no size-0 dimension (else
    drawn from the menu, sizes from 0)."""
    et = as_element_type(element_type)
    grid = FIXED_GRID.get() or draw(grids())
    strategy = FIXED_STRATEGY.get() or draw(st.sampled_from(STRATEGIES[op]))
    attrs = _channel_attrs(draw, strategy)
    n_ids = _ids_for(strategy, grid)

    if op == "collective_permute":
        sources = draw(st.lists(st.integers(0, n_ids - 1), unique=True, max_size=n_ids))
        targets = draw(st.permutations(range(n_ids)))[:len(sources)]
        pairs = [[s, t] for s, t in zip(sources, targets)] or [[0, 0]]
        attrs["source_target_pairs"] = _groups_attr(pairs)
        shape = tuple(draw(st.lists(st.integers(0, 3), max_size=3)))
        t = TensorType(shape, et)
        return Signature((t,), attrs, (t,), grid=grid)

    if op == "collective_broadcast":  # groups need not cover every process: the others get zeros
        members = draw(st.lists(st.integers(0, n_ids - 1), unique=True, min_size=1, max_size=n_ids))
        groups = [[members[i] for i in g] for g in _equal_groups(draw, len(members))]
        attrs["replica_groups"] = _groups_attr(groups)
        shape = tuple(draw(st.lists(st.integers(0, 3), max_size=3)))
        t = TensorType(shape, et)
        return Signature((t,), attrs, (t,), grid=grid)

    if op == "all_reduce":
        from .regions import reducer_bodies
        groups = _ragged_groups(draw, n_ids)
        attrs["replica_groups"] = _groups_attr(groups)
        count = draw(st.integers(1, 2))
        sides = st.integers(0, 3) if body is None else st.integers(2, 3)
        shapes = [tuple(draw(st.lists(sides, min_size=0 if body is None else 1, max_size=3))) for _ in range(count)]
        types = tuple(TensorType(s, et) for s in shapes)
        body = body or draw(reducer_bodies([et]))
        return Signature(types, attrs, types, regions=(body.region,), grid=grid)

    groups = _equal_groups(draw, n_ids)
    attrs["replica_groups"] = _groups_attr(groups)
    size = len(groups[0])  # dim(process_groups, 1): a replica group spans every partition here
    group_size = size * (grid[1] if strategy == "cross_replica_and_partition" else 1)
    if op == "all_gather":
        count = draw(st.integers(1, 2))
        operands, results = [], []
        rank = draw(st.integers(1, 3))
        dim = draw(st.integers(0, rank - 1))
        for _ in range(count):
            # MLIR's verifier wants a non-empty all_gather_dim (the spec does not say so)
            shape = tuple(draw(st.integers(1 if d == dim else 0, 3)) for d in range(rank))
            operands.append(TensorType(shape, et))
            results.append(TensorType(shape[:dim] + (shape[dim] * group_size,) + shape[dim + 1:], et))
        attrs["all_gather_dim"] = ir.IntegerAttr(dim, "i64")
        return Signature(tuple(operands), attrs, tuple(results), grid=grid)
    if op == "reduce_scatter":
        from .regions import reducer_bodies
        shape, dim = _shape_with(draw, group_size, min_multiple=1)  # MLIR: no empty result at scatter_dimension
        if body is not None:  # a drawn computation: no size-0 dimension elsewhere either
            shape = tuple(n or 2 for n in shape)
        result = shape[:dim] + (shape[dim] // group_size,) + shape[dim + 1:]
        attrs["scatter_dimension"] = ir.IntegerAttr(dim, "i64")
        body = body or draw(reducer_bodies([et]))
        return Signature((TensorType(shape, et),), attrs, (TensorType(result, et),), regions=(body.region,),
                         grid=grid)
    if op == "all_to_all":
        shape, split_dim = _shape_with(draw, size)
        concat_dim = draw(st.integers(0, len(shape) - 1))
        result = list(shape)
        result[split_dim] //= size
        result[concat_dim] *= size
        attrs.update(split_dimension=ir.IntegerAttr(split_dim, "i64"), concat_dimension=ir.IntegerAttr(concat_dim, "i64"),
                     split_count=ir.IntegerAttr(size, "i64"))
        return Signature((TensorType(shape, et),), attrs, (TensorType(tuple(result), et),), grid=grid)
    raise ValueError(f"no collective generator for {op}")


def draw_grid_inputs(draw, signature: Signature) -> dict:
    """{(replica_id, partition_id): [one array per operand]} with edge-reaching values."""
    replicas, partitions = signature.grid
    return {(r, p): [draw(tensors(t.element_type, t.shape, salt=k + 31 * (r * partitions + p)))
                     for k, t in enumerate(signature.operand_types)]
            for r in range(replicas) for p in range(partitions)}
