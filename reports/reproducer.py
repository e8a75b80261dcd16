"""Reproducer folders: everything needed to replay one finding, standalone.

    DIR/program.mlir   the program (StableHLO text the official tools accept)
    DIR/inputs.npz     its inputs           (oracle.arrays format, no pickle)
    DIR/expected.npz   the oracle's outputs
    DIR/actual.npz     the backend's outputs (absent when it crashed / timed out)
    DIR/case.json      id, backend, status, message
    DIR/command.txt    the one-line command that replays it

A finding on a process grid stores the program marked with its grid (module attributes
``mhlo.num_replicas`` / ``mhlo.num_partitions``, adapters.base.grid_program) and the values
of every process flat, in process order ((0, 0), (0, 1), ..., (1, 0), ...);
``read_reproducer`` gives them back per process with the grid, ready to run on it.
"""

from __future__ import annotations

import json
import os
import re
import shlex

import oracle

from oracle.arrays import read_arrays_file, save_arrays
from oracle.errors import BadInputFile

from .results import atomic_write_text


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:120]


def write_reproducer(root: str, *, case_id: str, backend: str, status: str, program: str, inputs, expected=None,
                     actual=None, message: str = "") -> str:
    directory = os.path.join(root, "reproducers", _safe(f"{backend}-{case_id}"))
    os.makedirs(directory, exist_ok=True)
    atomic_write_text(os.path.join(directory, "program.mlir"), program)
    save_arrays(os.path.join(directory, "inputs.npz"), list(inputs))
    if expected is not None:
        save_arrays(os.path.join(directory, "expected.npz"), list(expected))
    if actual is not None:
        save_arrays(os.path.join(directory, "actual.npz"), list(actual))
    command = f"shlo-conform repro {shlex.quote(directory)} --backend {shlex.quote(backend)}"
    atomic_write_text(os.path.join(directory, "command.txt"), command + "\n")
    atomic_write_text(os.path.join(directory, "case.json"), json.dumps(
        {"id": case_id, "backend": backend, "status": status, "message": message, "command": command}, indent=1) + "\n")
    return directory


def process_grid(module) -> tuple[int, int]:
    """(num_replicas, num_partitions) a program is marked for; (1, 1) when unmarked."""
    return (int(module.attributes["mhlo.num_replicas"].value) if "mhlo.num_replicas" in module.attributes else 1,
            int(module.attributes["mhlo.num_partitions"].value) if "mhlo.num_partitions" in module.attributes else 1)


def per_process(values: list, grid: tuple[int, int], per: int) -> dict:
    """Flat values in process order -> {(replica_id, partition_id): [``per`` values]}."""
    pids = [(r, p) for r in range(grid[0]) for p in range(grid[1])]
    if len(values) != per * len(pids):
        raise ValueError(f"{len(values)} values for a {grid[0]} x {grid[1]} grid of {per} each")
    return {pid: list(values[k * per:(k + 1) * per]) for k, pid in enumerate(pids)}


def read_reproducer(directory: str) -> dict:
    """program, inputs, expected, actual (None when absent), case (case.json), grid, module.
    On a process grid (``grid`` != (1, 1)) inputs / expected / actual are {(replica_id,
    partition_id): [arrays]}.  OSError when the folder has no program.mlir; BadInputFile when a
    file of it is unusable."""
    with open(os.path.join(directory, "program.mlir")) as f:
        program = f.read()
    out = {"program": program, "inputs": read_arrays_file(os.path.join(directory, "inputs.npz"))}
    for name in ("expected", "actual"):
        path = os.path.join(directory, f"{name}.npz")
        out[name] = read_arrays_file(path) if os.path.exists(path) else None
    meta = os.path.join(directory, "case.json")
    try:
        out["case"] = json.load(open(meta)) if os.path.exists(meta) else {}
    except ValueError as e:
        raise BadInputFile(f"{meta}: not JSON ({e})") from None
    try:
        module = oracle.parse_module(program, filename=os.path.join(directory, "program.mlir"))
    except oracle.MlirError as e:
        raise BadInputFile(str(e).splitlines()[0]) from None
    if not any(f.name == "main" for f in module.functions):
        raise BadInputFile(f"{os.path.join(directory, 'program.mlir')}: no func.func @main to run")
    out["module"], out["grid"] = module, process_grid(module)
    if out["grid"] != (1, 1):
        try:
            for name, per in (("inputs", len(module.main.arguments)), ("expected", len(module.main.result_types)),
                              ("actual", len(module.main.result_types))):
                if out[name] is not None:
                    out[name] = per_process(out[name], out["grid"], per)
        except ValueError as e:
            raise BadInputFile(f"{directory}: {name}.npz: {e}") from None
    return out
