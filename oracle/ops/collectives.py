"""Collective ops and the process's position in the grid (spec "all_gather", "all_reduce",
"all_to_all", "reduce_scatter", "collective_permute", "collective_broadcast", "replica_id",
"partition_id"; process groups per "Collective ops").

Each op: work out this process's group from the op's strategy, meet the group through the
grid's rendezvous (oracle/grid.py) posting this process's operands, then compute this
process's results from everybody's operands exactly as the op's semantics say.
"""

from __future__ import annotations

import numpy as np

from ..allowances import order_dependent
from .. import ir
from ..accumulation import accumulation_bound
from ..element_conversion import convert_array
from ..errors import OracleError
from ..evaluator import batchable
from ..grid import ProcessId, process_of
from ..registry import op, record_facts
from ..quantization import on_storage
from ..types import ALL_ELEMENT_TYPES, ELEMENT_TYPES, TensorType, element_type_of_dtype
from .reductions import is_promotable, monoid_ops, record_masks, schedule_free, values_differ

_UI32 = ELEMENT_TYPES["ui32"]
_FAMILY = "collectives"
_ALL_NAMES = tuple(t.name for t in ALL_ELEMENT_TYPES)


# The record fields of the collectives the suite draws (generators/ops/collectives.py).
# manual_sharding: under several partitions each process runs the program as written
# (adapters/base.grid_program marks these ops mhlo.sharding = "{manual}").
_COLLECTIVE = dict(family=_FAMILY, element_types=_ALL_NAMES, manual_sharding=True)


# ----------------------------------------------------------------- process groups

def _channel_id(op_) -> int:
    handle = op_.attr("channel_handle", None)
    return int(handle.get("handle", 0)) if isinstance(handle, dict) else 0


def _groups_attr(op_, name: str) -> list[list[int]]:
    """A 2-D si64 groups attribute; -1 pads ragged groups (e.g. [[0, 1], [2, -1]])."""
    value = op_.attr(name, None)
    if value is None:
        return []
    array = np.asarray(value, dtype=np.int64)
    if array.ndim != 2:
        raise OracleError(f"{name} must be a 2-dimensional tensor, got shape {array.shape}", op=op_.name)
    return [[int(x) for x in row if x >= 0] for row in array]


def _check_groups(op_, groups: list[list[int]], size: int, what: str, c_unique: str, c_range: str) -> None:
    flat = [x for g in groups for x in g]
    if len(flat) != len(set(flat)):  # is_unique(replica_groups)
        raise OracleError(f"replica_groups {groups} has repeated ids", op=op_.name, constraint=c_unique)
    bad = [x for x in flat if not 0 <= x < size]
    if bad:  # 0 <= replica_groups < size
        raise OracleError(f"replica_groups {groups}: ids {bad} are outside [0, {size}) ({what})",
                          op=op_.name, constraint=c_range)


def _my_group(op_, groups, me: ProcessId) -> list[ProcessId]:
    for group in groups:
        if me in group:
            return group
    raise OracleError(f"process {me} is in no process group of {op_.attr('replica_groups', None)!r}: the "
                      f"replica groups must cover every process", op=op_.name, location=op_.location)


def _process_groups(op_, ctx, *, global_ids: bool, constraints=("C1", "C2", "C3")):
    """The process groups of all_gather / all_reduce / reduce_scatter: cross_replica,
    cross_replica_and_partition or flattened_ids, chosen by channel_id and use_global_device_ids."""
    process = process_of(ctx)
    grid = process.grid
    groups = _groups_attr(op_, "replica_groups")
    channel_id = _channel_id(op_)
    use_global = bool(op_.attr("use_global_device_ids", False)) if global_ids else False
    c_unique, c_size, c_global = constraints
    if use_global and channel_id <= 0:  # (C4)/(C5)/(C6): use_global_device_ids needs channel_id > 0
        raise OracleError("use_global_device_ids = true needs channel_id > 0", op=op_.name, constraint=c_global)
    if use_global:
        _check_groups(op_, groups, grid.num_processes, "flattened ids", c_unique, c_size)
        return process, list(grid.flattened_ids(groups)), channel_id
    _check_groups(op_, groups, grid.num_replicas, "replica ids", c_unique, c_size)
    if channel_id <= 0:
        return process, list(grid.cross_replica(groups)), channel_id
    return process, list(grid.cross_replica_and_partition(groups)), channel_id


def _replica_or_partition_groups(op_, ctx, groups, c_unique, c_range):
    """cross_replica if channel_id <= 0 else cross_partition (all_to_all, collective_permute/broadcast)."""
    process = process_of(ctx)
    grid = process.grid
    channel_id = _channel_id(op_)
    if channel_id <= 0:
        _check_groups(op_, groups, grid.num_replicas, "replica ids", c_unique, c_range)
        return process, list(grid.cross_replica(groups)), channel_id
    _check_groups(op_, groups, grid.num_partitions, "partition ids", c_unique, c_range)
    return process, list(grid.cross_partition(groups)), channel_id


# ------------------------------------------------------------------ region folding

def _apply_computation(ctx, region: ir.Region, lhs: list, rhs: list, env) -> list:
    """computation(lhs..., rhs...) applied element by element to equally shaped arrays."""
    shape = lhs[0].shape
    if batchable(region):
        return ctx.run_region_batched(region, list(lhs) + list(rhs), shape, env)
    out = [np.empty(shape, dtype=a.dtype) for a in lhs]
    for index in np.ndindex(*shape):
        values = ctx.run_region(region, [np.asarray(a[index]) for a in (*lhs, *rhs)], env)
        for o, v in zip(out, values):
            o[index] = v
    return out


def _all_reduce_values(op_, ctx, env, group, received: dict) -> tuple[list, list]:
    """For each operand: exec(schedule) over the group's values (one binary computation
    applies to every operand).  The schedule is "an implementation-defined binary tree whose
    in-order traversal" is the group's values: the oracle computes the left fold and the right
    fold (two such trees) and records the elements where they differ as implementation-defined
    (differences by float rounding alone, for a commutative monoid computation, are the
    tolerance table's business), like reduce does (oracle/ops/reductions.py).  Returns the
    results and those masks (None: no element depends on the schedule)."""
    region = op_.regions[0]
    dest = region.arguments[0].type
    free, rounding = schedule_free(region, [], [dest.element_type])
    results, masks = [], []
    for i in range(len(received[group[0]])):
        leaves = [_to_destination_type(received[p][i], dest) for p in group]
        left, right = leaves[0], leaves[-1]
        for leaf in leaves[1:]:
            (left,) = _apply_computation(ctx, region, [left], [leaf], env)
        for leaf in reversed(leaves[:-1]):
            (right,) = _apply_computation(ctx, region, [leaf], [right], env)
        results.append(left)
        _record_bound(ctx, op_, i, region, np.stack(leaves), dest.element_type, group)
        masks.append(values_differ(left, right, rounding_only=free and rounding) if not free or rounding
                     else None)
    return results, masks


def _record_bound(ctx, op_, i: int, region: ir.Region, leaves: np.ndarray, et, group) -> None:
    """The per-element bound of result i for every schedule (oracle/accumulation.py), into
    ``ctx.extra["error_bounds"][result]`` when the caller asks for bounds (a process grid's
    judge; reduce_scatter keeps its part).  Not recorded for bodies without a bound."""
    bounds = ctx.extra.get("error_bounds")
    names = monoid_ops(region, 1)
    if bounds is None or names is None:
        return
    bound = accumulation_bound(names[0], leaves, et, oracle_sequential=True)
    if bound is None:
        return
    if op_.name == "stablehlo.reduce_scatter":
        dim = int(op_.attr("scatter_dimension"))
        bound = np.split(bound, len(group), axis=dim)[group.index(process_of(ctx).id)]
    bounds[op_.results[i]] = bound


def _to_destination_type(x: np.ndarray, t: TensorType) -> np.ndarray:
    if x.dtype == t.dtype:
        return x
    return convert_array(x, element_type_of_dtype(x.dtype), t.element_type)


def _check_computation(op_, operand_types, c: str) -> None:
    """computation has type (tensor<E>, tensor<E>) -> (tensor<E>) with is_promotable(operand, E)."""
    region = op_.regions[0] if op_.regions else None
    if region is None or len(region.arguments) != 2:
        raise OracleError("computation must take 2 scalar arguments", op=op_.name, constraint=c)
    e = region.arguments[0].type.element_type
    for t in operand_types:
        et = t.element_type
        if region.arguments[0].type.rank != 0 or not is_promotable(et, e):
            raise OracleError(f"computation argument type {region.arguments[0].type} is not a promotion of {et}",
                              op=op_.name, constraint=c)


# ---------------------------------------------------------------------------- ops

@op("stablehlo.replica_id", family=_FAMILY, spec="replica_id")
def replica_id(op_, args, ctx, env):
    return [np.array(process_of(ctx).replica_id, dtype=_UI32.dtype)]


@op("stablehlo.partition_id", manual_sharding=True, family=_FAMILY, spec="partition_id")
def partition_id(op_, args, ctx, env):
    return [np.array(process_of(ctx).partition_id, dtype=_UI32.dtype)]


@op("stablehlo.all_gather", **_COLLECTIVE)
@on_storage
def all_gather(op_, args, ctx, env):
    dim = int(op_.attr("all_gather_dim"))
    for x in args:
        if not 0 <= dim < x.ndim:  # all_gather (C1)
            raise OracleError(f"all_gather_dim {dim} is not in [0, {x.ndim})", op=op_.name, constraint="C1")
    process, groups, channel = _process_groups(op_, ctx, global_ids=True, constraints=("C2", "C4", "C5"))
    group = _my_group(op_, groups, process.id)
    received = process.exchange(op_, group, list(args), channel)
    # results...@process = concatenate(operands...@process, all_gather_dim), operands in group order
    return [np.concatenate([received[p][i] for p in group], axis=dim) for i in range(len(args))]


@op("stablehlo.all_reduce", **_COLLECTIVE)
@on_storage
def all_reduce(op_, args, ctx, env):
    _check_computation(op_, [v.type for v in op_.operands], "C5")
    process, groups, channel = _process_groups(op_, ctx, global_ids=True, constraints=("C1", "C3", "C4"))
    group = _my_group(op_, groups, process.id)
    received = process.exchange(op_, group, list(args), channel)
    results, masks = _all_reduce_values(op_, ctx, env, group, received)
    record_masks(ctx, op_, masks, results)
    return results


@op("stablehlo.reduce_scatter", **_COLLECTIVE)
@on_storage
def reduce_scatter(op_, args, ctx, env):
    (x,) = args
    dim = int(op_.attr("scatter_dimension"))
    if not 0 <= dim < x.ndim:  # reduce_scatter (C2)
        raise OracleError(f"scatter_dimension {dim} is not in [0, {x.ndim})", op=op_.name, constraint="C2")
    _check_computation(op_, [op_.operands[0].type], "C7")
    process, groups, channel = _process_groups(op_, ctx, global_ids=True, constraints=("C3", "C5", "C6"))
    group = _my_group(op_, groups, process.id)
    if x.shape[dim] % len(group):  # reduce_scatter (C1)
        raise OracleError(f"dim(operand, {dim}) = {x.shape[dim]} is not divisible by the group size {len(group)}",
                          op=op_.name, constraint="C1")
    received = process.exchange(op_, group, [x], channel)
    (reduced,), (mask,) = _all_reduce_values(op_, ctx, env, group, received)
    me = group.index(process.id)
    mine = np.ascontiguousarray(np.split(reduced, len(group), axis=dim)[me])
    record_masks(ctx, op_, [None if mask is None else np.split(mask, len(group), axis=dim)[me]], [mine])
    return [mine]


@op("stablehlo.all_to_all", **_COLLECTIVE)
@on_storage
def all_to_all(op_, args, ctx, env):
    split_dim, concat_dim = int(op_.attr("split_dimension")), int(op_.attr("concat_dimension"))
    split_count = int(op_.attr("split_count"))
    for x in args:
        if not 0 <= split_dim < x.ndim:  # all_to_all (C1)
            raise OracleError(f"split_dimension {split_dim} is not in [0, {x.ndim})", op=op_.name, constraint="C1")
        if not 0 <= concat_dim < x.ndim:  # all_to_all (C3)
            raise OracleError(f"concat_dimension {concat_dim} is not in [0, {x.ndim})", op=op_.name,
                              constraint="C3")
        if split_count <= 0 or x.shape[split_dim] % split_count:  # all_to_all (C2), (C4)
            raise OracleError(f"dim {split_dim} of size {x.shape[split_dim]} cannot be split in {split_count}",
                              op=op_.name, constraint="C2")
    groups_attr = _groups_attr(op_, "replica_groups")
    if any(len(g) != split_count for g in groups_attr):  # all_to_all (C8)
        raise OracleError(f"replica groups {groups_attr} must each have split_count = {split_count} members",
                          op=op_.name, constraint="C8")
    process, groups, channel = _replica_or_partition_groups(op_, ctx, groups_attr, "C5", "C7")
    group = _my_group(op_, groups, process.id)
    received = process.exchange(op_, group, list(args), channel)
    me = group.index(process.id)
    # scattered_parts@receiver = [split(operand@sender)[receiver_index] for sender in group]
    return [np.concatenate([np.split(received[p][i], split_count, axis=split_dim)[me] for p in group],
                           axis=concat_dim) for i in range(len(args))]


def _zeros_like(x: np.ndarray) -> np.ndarray:
    return np.zeros(x.shape, dtype=x.dtype)


@op("stablehlo.collective_permute", **_COLLECTIVE)
@on_storage
def collective_permute(op_, args, ctx, env):
    (x,) = args
    pairs = _groups_attr(op_, "source_target_pairs")
    if any(len(p) != 2 for p in pairs):  # collective_permute (C1)
        raise OracleError(f"source_target_pairs {pairs} must have 2 columns", op=op_.name, constraint="C1")
    for column, c in ((0, "C2"), (1, "C3")):
        ids = [p[column] for p in pairs]
        if len(ids) != len(set(ids)):
            raise OracleError(f"source_target_pairs {pairs}: column {column} repeats ids", op=op_.name,
                              constraint=c)
    process = process_of(ctx)
    grid = process.grid
    channel = _channel_id(op_)
    n = grid.num_replicas if channel <= 0 else grid.num_partitions
    if any(not 0 <= i < n for p in pairs for i in p):  # collective_permute (C4)
        raise OracleError(f"source_target_pairs {pairs} has ids outside [0, {n})", op=op_.name, constraint="C4")
    groups = list(grid.cross_replica(pairs) if channel <= 0 else grid.cross_partition(pairs))
    # Everyone sends to its targets and receives from its source: meet every group I am in.
    mine = [g for g in groups if process.id in g]
    result = _zeros_like(x)
    for group in mine:
        received = process.exchange(op_, group, x, channel)
        if group[1] == process.id:  # result@process = operand@process_groups[i, 0] where [i, 1] = process
            result = np.array(received[group[0]], copy=True)
    return [result]


@op("stablehlo.collective_broadcast", **_COLLECTIVE)
@on_storage
def collective_broadcast(op_, args, ctx, env):
    (x,) = args
    groups_attr = _groups_attr(op_, "replica_groups")
    process, groups, channel = _replica_or_partition_groups(op_, ctx, groups_attr, "C1", "C2")
    group = next((g for g in groups if process.id in g), None)
    if group is None:  # a process in no group gets zeros
        return [_zeros_like(x)]
    received = process.exchange(op_, group, x, channel)
    return [np.array(received[group[0]], copy=True)]


# ------------------------------------------------------------ tolerance rows, on the records
# How far a backend's result may be from the oracle's (oracle/allowances.py builds the rows;
# judge/tolerance.py explains the lookup and generates TOLERANCE_TABLE from the records).
# The float result depends on an implementation-defined order, or is specified only up to the algorithm.
for _name in ("all_reduce", "reduce_scatter"):
    record_facts(f"stablehlo.{_name}", tolerances=order_dependent("accumulation"))
