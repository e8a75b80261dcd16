"""The backend interface, run results, array (de)serialization and MLIR helpers.

Every backend takes a StableHLO program (MLIR text, pretty or generic, with a public
``@main``) plus numpy inputs and returns a :class:`RunResult`.  Arrays are numpy arrays
whose dtypes are the element types' numpy / ml_dtypes dtypes (``oracle.types``).

This module imports neither jax nor jaxlib at import time: the MLIR helpers at the bottom
import jaxlib lazily and are meant to run inside worker processes (adapters/worker.py).
"""

from __future__ import annotations

import abc
import enum
import json
import struct
from dataclasses import dataclass

import numpy as np

from oracle.registry import all_ops
from oracle.types import ALL_ELEMENT_TYPES

class RunStatus(enum.StrEnum):
    """Every status a RunResult can carry.  Each but ``ok`` is the case status of the same name
    (judge/status.py ``Status``, which the adapters, beside the judge, cannot import)."""
    OK = "ok"                     # outputs holds the results
    REJECTED = "rejected"         # the backend refused the program before running it (compile/parse error, type)
    CRASH = "crash"               # the worker process died (abort, segfault, SIGFPE, ...); message: signal + stderr
    TIMEOUT = "timeout"           # no answer within the time limit; the worker was killed
    ERROR = "error"               # the backend raised at run time
    UNSUPPORTED = "unsupported"   # the oracle does not implement something the program uses


STATUSES = tuple(RunStatus)


@dataclass
class RunResult:
    status: RunStatus
    outputs: list[np.ndarray] | None
    message: str = ""
    seconds: float = 0.0  # wall time seen by the caller (worker IPC included; compile included for the first set)
    backend_seconds: float | None = None  # time spent inside the backend itself (worker side), if known

    @property
    def ok(self) -> bool:
        return self.status == RunStatus.OK

    def __repr__(self) -> str:
        outs = "None" if self.outputs is None else "[" + ", ".join(
            f"{o.dtype}{list(o.shape)}" for o in self.outputs) + "]"
        msg = (self.message[:200] + "...") if len(self.message) > 200 else self.message
        return f"RunResult({self.status!r}, {outs}, {msg!r}, {self.seconds:.4f}s)"


class Backend(abc.ABC):
    """What a backend offers.  Every backend has a ``name`` and says whether it is usable here
    (``available``) and runs a program (``run``); each other member has a default that says
    "not offered", which a backend that offers it overrides:

    * ``supports``: every element type; ``run_many``: one ``run`` per input set;
    * ``run_batch``: one ``run`` per case (``batch_size``: programs compiled as one module);
    * ``run_grid``: none (``supports_grid``: it runs process grids);
    * ``set_jobs``: one caller at a time (``takes_concurrent_callers``: threads may share it);
    * ``restart``: nothing to restart (``restartable``: it starts a fresh process);
    * ``worker_restarts``: none; ``batch_stats``: none kept; ``version``: none (``""``);
    * ``deviations_file``: none (a plug-in may ship its own known deviations: the path of a TOML
      file in judge/deviations/' format, applied as the submitter's, never as the suite's);
    * ``close``: nothing to release.

    Built-in backends derive from this class; a plug-in object that does not is wrapped
    (adapters/plugins.py) so that callers read the same members of every backend."""

    name: str = ""
    flushes_subnormals: bool = False  # the backend flushes subnormals to zero
    batch_size: int = 0  # programs ``run_batch`` compiles as one module; 0: one compile per program
    supports_grid: bool = False  # ``run_grid`` runs a program on a process grid
    takes_concurrent_callers: bool = False  # after ``set_jobs(n)``, n threads may call it at once
    restartable: bool = False  # ``restart()`` makes the next call run in a fresh process
    batch_stats: dict | None = None  # counts of batches compiled and cases run alone, where it batches
    deviations_file: str | None = None  # the backend's own known deviations (TOML), where it ships them

    @abc.abstractmethod
    def available(self) -> tuple[bool, str]:
        """(usable here?, what it is or why not)."""

    @abc.abstractmethod
    def run(self, program: str, inputs: list[np.ndarray], timeout: float = 60) -> RunResult:
        """``program`` (MLIR text with a public @main) on one input set."""

    def supports(self, element_type_names: set[str]) -> tuple[bool, str]:
        """(True, "") where the backend takes every one of these element types, else why not."""
        return True, ""

    def run_many(self, program: str, input_sets: list[list[np.ndarray]], timeout: float = 60) -> list[RunResult]:
        """One RunResult per input set of one program."""
        return [self.run(program, inputs, timeout=timeout) for inputs in input_sets]

    def run_batch(self, programs: list[str], input_sets: list[list[np.ndarray]],
                  timeout: float = 60) -> list[RunResult]:
        """One RunResult per (program, input set), exactly as ``run`` gives for each alone."""
        return [self.run(program, inputs, timeout=timeout) for program, inputs in zip(programs, input_sets)]

    def run_grid(self, program: str, inputs: dict, num_replicas: int, num_partitions: int,
                 timeout: float = 60) -> GridResult:
        """Every process of a ``num_replicas x num_partitions`` grid (where ``supports_grid``)."""
        raise NotImplementedError(f"backend {self.name} cannot run a process grid")

    def set_jobs(self, jobs: int) -> None:
        """Let ``jobs`` threads call the backend at once (where ``takes_concurrent_callers``)."""

    def restart(self) -> None:
        """Make the next call run afresh (where ``restartable``)."""

    def worker_restarts(self) -> int:
        """Restarts of the backend's processes so far, after crashes and timeouts."""
        return 0

    def version(self) -> str:
        """The version of what runs the programs, where the backend knows it without starting."""
        return ""

    def close(self) -> None:
        """Release what the backend holds (worker processes, caches)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def backend_version(backend: Backend) -> str:
    """The backend's ``version()`` if it has one, else what ``available()`` says about itself."""
    version = backend.version()
    if not version:
        ok, version = backend.available()
        version = version if ok else "unavailable"
    return version


class Rejected(Exception):
    """Raised inside an engine when the backend refuses the program (compile time)."""


# ------------------------------------------------------------------ dtype by name

_DTYPES = {t.dtype.name: t.dtype for t in ALL_ELEMENT_TYPES}


def dtype_from_name(name: str) -> np.dtype:
    """numpy / ml_dtypes dtype by its ``dtype.name`` (never evaluates anything)."""
    try:
        return _DTYPES[name]
    except KeyError:
        raise ValueError(f"unknown dtype name {name!r}") from None


# ------------------------------------------------------------- array serialization
#
# A message is: u64 little-endian length, then the payload.  A payload is a u32 length,
# a JSON header, then the raw bytes of the arrays the header describes (under "arrays":
# [{"dtype": name, "shape": [...], "nbytes": n}, ...]).  Arrays travel as their raw
# little-endian bytes plus the dtype *name*, so ml_dtypes types survive; no pickle.

def array_meta(a: np.ndarray) -> dict:
    return {"dtype": a.dtype.name, "shape": list(a.shape), "nbytes": int(a.nbytes)}


def encode_message(header: dict, arrays: list[np.ndarray] = ()) -> bytes:
    arrays = [a if a.flags.c_contiguous else np.array(a, order="C") for a in map(np.asarray, arrays)]
    for a in arrays:
        if a.dtype.byteorder == ">":
            raise ValueError("big-endian arrays are not supported")
        if a.dtype.hasobject:
            raise ValueError("object arrays cannot be sent")
    header = dict(header, arrays=[array_meta(a) for a in arrays])
    head = json.dumps(header).encode()
    parts = [struct.pack("<I", len(head)), head] + [a.tobytes() for a in arrays]
    payload = b"".join(parts)
    return struct.pack("<Q", len(payload)) + payload


def decode_payload(payload: bytes) -> tuple[dict, list[np.ndarray]]:
    (hlen,) = struct.unpack_from("<I", payload, 0)
    header = json.loads(payload[4:4 + hlen].decode())
    pos = 4 + hlen
    arrays = []
    for meta in header.pop("arrays", []):
        dt = dtype_from_name(meta["dtype"])
        n = meta["nbytes"]
        a = np.frombuffer(payload, dtype=dt, count=n // dt.itemsize if dt.itemsize else 0, offset=pos)
        arrays.append(a.reshape(meta["shape"]).copy())
        pos += n
    return header, arrays


def split_arrays(arrays: list[np.ndarray], counts: list[int]) -> list[list[np.ndarray]]:
    out, pos = [], 0
    for c in counts:
        out.append(arrays[pos:pos + c])
        pos += c
    return out


# ------------------------------------------------------------------ MLIR helpers
# (jaxlib is imported lazily; these run inside worker processes)

def mlir_context():
    """The jaxlib MLIR context (func, stablehlo, chlo, quant loaded), shared with the oracle."""
    from oracle.mlir_text import mlir_context as oracle_context
    return oracle_context()


def parse_mlir(text: str):
    """Parse + verify; raises Rejected with MLIR's diagnostics on failure."""
    from jaxlib.mlir import ir

    ctx = mlir_context()
    with ctx, ir.Location.unknown():
        try:
            module = ir.Module.parse(text)
        except ir.MLIRError as e:
            raise Rejected(mlir_error_text(e)) from None
        except Exception as e:  # pragma: no cover
            raise Rejected(f"{type(e).__name__}: {e}") from None
        if not module.operation.verify():
            raise Rejected("module failed verification")
    return module


def mlir_error_text(e) -> str:
    diags = getattr(e, "error_diagnostics", None) or []
    lines = [f"{d.location}: {d.message}" for d in diags]
    return "MLIR: " + ("\n".join(lines) if lines else str(e))


def run_stablehlo_passes(module, pipeline: str, what: str) -> None:
    """Run the StableHLO pass ``pipeline`` over a parsed ``module`` in place; Rejected naming
    ``what`` with MLIR's diagnostics when a pass refuses it."""
    from jaxlib.mlir import passmanager
    from jaxlib.mlir._mlir_libs import _stablehlo

    with mlir_context():
        _stablehlo.register_stablehlo_passes()
        try:
            passmanager.PassManager.parse(pipeline).run(module.operation)
        except Exception as e:
            raise Rejected(f"{what} failed: {mlir_error_text(e)}") from None


def find_main(module):
    """The ``func.func @main`` operation of a parsed module (Rejected if none)."""
    for op in module.body.operations:
        op = op.operation
        if op.name == "func.func" and "sym_name" in op.attributes:
            if _string_attr(op.attributes["sym_name"]) == "main":
                return op
    raise Rejected("module has no func.func @main")


def _string_attr(attr) -> str:
    from jaxlib.mlir import ir

    return ir.StringAttr(attr).value


def main_signature(module) -> tuple[list[str], list[str]]:
    """(argument types, result types) of @main as MLIR type text."""
    from jaxlib.mlir import ir

    main = find_main(module)
    ftype = ir.FunctionType(ir.TypeAttr(main.attributes["function_type"]).value)
    return [str(t) for t in ftype.inputs], [str(t) for t in ftype.results]


def expected_dtype(type_text: str) -> np.dtype | None:
    """numpy dtype of a ``tensor<...>`` type (storage dtype for quantized); None otherwise."""
    from oracle.types import TensorType, parse_type

    try:
        t = parse_type(type_text)
    except Exception:
        return None
    if not isinstance(t, TensorType):
        return None
    return t.dtype


def wrap_main(module, new_main_body) -> str:
    """Rename @main to a fresh private symbol and add a new public @main.

    ``new_main_body(callee, arg_types, result_types)`` returns the text of the new
    ``func.func public @main ...`` which calls ``@callee``.  Works on the parsed module, so
    any valid module (pretty or generic syntax, nested attributes, other functions) works.
    Returns the printed (generic form) module text.
    """
    from jaxlib.mlir import ir

    ctx = mlir_context()
    with ctx, ir.Location.unknown():
        main = find_main(module)
        arg_types, result_types = main_signature(module)
        existing = {_string_attr(op.operation.attributes["sym_name"])
                    for op in module.body.operations if "sym_name" in op.operation.attributes}
        callee, k = "__shlo_original_main", 0
        while callee in existing:
            k += 1
            callee = f"__shlo_original_main_{k}"
        ir.SymbolTable.replace_all_symbol_uses("main", callee, module.operation)
        ir.SymbolTable.set_symbol_name(main, callee)
        main.attributes["sym_visibility"] = ir.StringAttr.get("private")  # (set_visibility needs one already)
        text = new_main_body(callee, arg_types, result_types)
        # a declaration of the callee lets the wrapper parse (and verify) on its own
        text += f"func.func private @{callee}({', '.join(arg_types)}) -> ({', '.join(result_types)})\n"
        try:
            wrapper = ir.Module.parse(text)
        except ir.MLIRError as e:
            raise Rejected("adapter could not build the wrapper @main: " + mlir_error_text(e)) from None
        new_main = find_main(wrapper)
        new_main.move_before(main)  # any position in the module body works
        if not module.operation.verify():
            raise Rejected("wrapped module failed verification")
        return module.operation.get_asm(print_generic_op_form=True, assume_verified=True)


def call_text(callee: str, args: list[str], arg_types: list[str], result_types: list[str]) -> tuple[str, list[str]]:
    """A ``func.call`` line and the names of its results."""
    n = len(result_types)
    fn_type = f"({', '.join(arg_types)}) -> ({', '.join(result_types)})"
    call = f"func.call @{callee}({', '.join(args)}) : {fn_type}"
    if n == 0:
        return f"    {call}\n", []
    if n == 1:
        return f"    %r = {call}\n", ["%r"]
    return f"    %r:{n} = {call}\n", [f"%r#{i}" for i in range(n)]


# ------------------------------------------------------------------ process grids

@dataclass
class GridResult:
    """The result of running a program on a process grid: one output list per process."""
    status: RunStatus
    outputs: dict | None  # {(replica_id, partition_id): [np.ndarray, ...]}
    message: str = ""
    seconds: float = 0.0


def manual_sharding_ops() -> frozenset:
    """Ops marked ``mhlo.sharding = "{manual}"`` in multi-partition programs: the records that
    say ``manual_sharding`` (partition_id and the collectives, oracle/ops/collectives.py)."""
    return frozenset(name for name, info in all_ops().items() if info.manual_sharding)


def grid_program(text: str, num_replicas: int, num_partitions: int) -> str:
    """The program marked for a ``num_replicas x num_partitions`` grid the way JAX marks its
    own: module attributes ``mhlo.num_replicas`` / ``mhlo.num_partitions``.  With several
    partitions, @main's arguments and results and every partition_id op are also marked
    ``mhlo.sharding = "{manual}"`` (so are the collectives): each partition runs the program as written (no SPMD
    partitioning of our per-process values), which is what the spec's process grid means."""
    from jaxlib.mlir import ir

    module = parse_mlir(text)
    with mlir_context():
        i32 = ir.IntegerType.get_signless(32)
        attrs = module.operation.attributes
        attrs["mhlo.num_replicas"] = ir.IntegerAttr.get(i32, num_replicas)
        attrs["mhlo.num_partitions"] = ir.IntegerAttr.get(i32, num_partitions)
        if num_partitions > 1:
            manual = ir.DictAttr.get({"mhlo.sharding": ir.StringAttr.get("{manual}")})
            main = find_main(module)
            function_type = ir.FunctionType(ir.TypeAttr(main.attributes["function_type"]).value)
            main.attributes["arg_attrs"] = ir.ArrayAttr.get([manual] * len(function_type.inputs))
            main.attributes["res_attrs"] = ir.ArrayAttr.get([manual] * len(function_type.results))

            manual_ops = manual_sharding_ops()

            def mark(op):  # side-effecting ops need an explicit sharding under the SPMD partitioner
                if op.name in manual_ops:
                    op.attributes["mhlo.sharding"] = ir.StringAttr.get("{manual}")
                return ir.WalkResult.ADVANCE
            module.operation.walk(mark)
        return str(module)


def grid_of(module) -> tuple[int, int]:
    """(num_replicas, num_partitions) from a parsed module's attributes ((1, 1) if absent)."""
    from jaxlib.mlir import ir

    attrs = module.operation.attributes

    def get(name):
        return ir.IntegerAttr(attrs[name]).value if name in attrs else 1
    return get("mhlo.num_replicas"), get("mhlo.num_partitions")


def run_grid_flat(backend, program: str, inputs: dict, num_replicas: int, num_partitions: int,
                  timeout: float = 60) -> GridResult:
    """Run a grid program through ``backend.run`` with the processes' inputs concatenated in
    process order (replica-major) and split the outputs back (the engine does the reverse)."""
    pids = [(r, p) for r in range(num_replicas) for p in range(num_partitions)]
    try:
        text = grid_program(program, num_replicas, num_partitions)
    except Rejected as e:
        return GridResult(RunStatus.REJECTED, None, str(e))
    flat = [x for pid in pids for x in inputs[pid]]
    result = backend.run(text, flat, timeout=timeout)
    if not result.ok:
        return GridResult(result.status, None, result.message, result.seconds)
    n = len(result.outputs) // len(pids)
    return GridResult(RunStatus.OK, {pid: result.outputs[i * n:(i + 1) * n] for i, pid in enumerate(pids)}, "",
                      result.seconds)
