"""PyTorch: ``torch-eager`` (each op runs as it is called) and ``torch-inductor`` (the same
program wrapped in ``torch.compile(backend="inductor")``, C++ code for this CPU), in a
worker subprocess.

Torch has no StableHLO importer: the program is read into our IR and lowered op by op onto
torch operations (adapters/torch_lowering.py); an op, attribute or element type without a
lowering is ``rejected`` with the reason, before anything runs (the lowered function is
first run on ``meta`` tensors, which have shapes but no data, and its result shapes and dtypes
are checked against @main's).  Torch refusing a dtype at run time ("... not implemented for
'UInt32'", which eager mode says for most arithmetic on ui16/ui32/ui64 and the float8 types)
is ``rejected`` too; any other exception is ``error``.

Inductor: the lowered function is traced to an FX graph (``make_fx`` on fake tensors: our IR
walk stays in Python) and that graph goes to ``torch.compile(graph, backend="inductor",
fullgraph=True, dynamic=False)``, once per program text
(compiled on the first input set, ~1.5 s of CPU each; the worker caches prepared programs per
text, inductor's own cache lives under ``<cache>/torchinductor``).  A run compiles its cases 32
to a graph (``TorchEngine.prepare_batch``: the programs called one after the other,
traced into one: g++ takes ~1 s of CPU for one small program's kernel, ~1.4 s for 32
programs', but inductor's own passes grow with the graph, so 96 to a graph saved only 5 % of
the CPU of 10 ops' cases); the types inductor often refuses
(``INDUCTOR_OFTEN_REFUSED``) 32 to a graph among themselves, integer division
(``INDUCTOR_CRASHES``) alone.  Inductor's first compile in a process costs ~25 s more: the
worker pays it once before it forks its servers (``preload_inductor``), so a crash costs a
fork.  ``fullgraph=True``: a program dynamo cannot capture whole is refused (``rejected``)
instead of silently running parts of it eagerly.  Dynamo's caches are
reset for each new program, so its recompile limit never turns a program back into eager code.

Arrays whose dtype numpy cannot hold natively (bf16, the float8 types) cross as integer views
of the same width.  Torch runs single-threaded here (deterministic reductions; the test
machines are small).  Requires ``torch==2.13.0`` (``pip install -e '.[torch]'``, CPU wheel).
"""

from __future__ import annotations

import importlib.util
import os
import re

import numpy as np

from .base import Rejected, RunStatus
from .batch import LeftOut, first_occurrences, in_rounds, likeness, may_share_a_module
from .registry import TORCH_INSTALL
from .worker import WorkerBackend

MODES = {"torch-eager": "eager", "torch-inductor": "inductor"}

# Messages of torch errors that mean "this op does not take this dtype" (a refusal, not a fault).
_REFUSALS = ("not implemented for", "not supported for", "does not support", "Unsupported dtype",
             "unsupported dtype", "is not supported", "not supported on")


#: Programs of the float8 types and ui16 / ui32 / ui64, which inductor refuses more often than
#: others (dynamo's "Attempt to trace generator", ``KeyError: torch.float8_e4m3fn``, C++
#: compile errors): they share graphs only among themselves (``shares_among_its_kind``), so a
#: refusal splits only batches of their kind.  Compiled alone, one compile each, they were
#: most of a default run's compiles: in ``--ops add,log,convert,dot_general,reduce,scatter,sine``
#: 474 of the 840 programs torch can lower, of which inductor refused 74.
INDUCTOR_OFTEN_REFUSED = (re.compile(r"f8E"), re.compile(r"[<x]ui(16|32|64)>"))
#: Integer divide / remainder, whose division by zero kills the process (SIGFPE, a listed
#: deviation: the whole batch would run again case by case): always compiled alone.
INDUCTOR_CRASHES = (re.compile(r"stablehlo\.(divide|remainder)\b.*[<x]u?i\d+>"),)
#: What inductor never compiles in a batch of the common types.
INDUCTOR_ALONE = INDUCTOR_OFTEN_REFUSED + INDUCTOR_CRASHES
_FLOAT8 = re.compile(r"(?<=[<x])f8E\w+(?=>)")


def torch_version() -> str:
    from importlib.metadata import version
    return version("torch")


class _Prepared:
    __slots__ = ("function", "arg_types", "result_types", "signature")

    def __init__(self, **kw):
        for k, v in kw.items():
            setattr(self, k, v)


class TorchEngine:
    """Runs inside the worker process (``adapters.torch_backend:TorchEngine:<mode>``)."""

    per_case_compile = False

    def __init__(self, mode: str):
        import torch

        if mode not in MODES.values():
            raise ValueError(f"unknown torch mode {mode!r}")
        self.torch, self.mode = torch, mode
        torch.set_num_threads(1)

    def info(self) -> str:
        return f"PyTorch {self.torch.__version__}, {self.mode}" + (" (CPU)" if self.mode == "inductor" else "")

    def prepare(self, program: str) -> _Prepared:
        prep = self._lowered(program)
        if self.mode == "inductor":
            prep.function = self._compiled(self._traced(prep))
        return prep

    def _lowered(self, program: str) -> _Prepared:
        """The program read and lowered onto torch (Rejected when something has no lowering),
        its result shapes and dtypes checked on meta tensors."""
        from oracle.errors import OracleError
        from oracle.mlir_text import parse_module
        from oracle.types import TensorType

        from .torch_lowering import Unlowerable, lower, torch_dtype
        from .xla import Signature

        torch = self.torch
        try:
            module = parse_module(program)
        except (OracleError, ValueError) as e:
            raise Rejected(f"torch adapter: cannot read the program: {e}") from None
        main = module.main
        try:
            function = lower(module)
            arg_types = [a.type for a in main.arguments]
            result_types = list(main.result_types)
            metas = [torch.empty(t.shape, dtype=torch_dtype(t), device="meta") for t in arg_types]
            results = self._meta_run(function, metas)
        except Unlowerable as e:
            raise Rejected(f"torch adapter: {e}") from None
        if results is not None:  # the lowering's shapes and dtypes must be @main's
            for k, (r, t) in enumerate(zip(results, result_types)):
                if not isinstance(t, TensorType) or tuple(r.shape) != tuple(t.shape) or r.dtype != torch_dtype(t):
                    raise RuntimeError(f"torch adapter bug: result #{k} lowers to {r.dtype}{list(r.shape)}, "
                                       f"@main returns {t}")
        return _Prepared(function=function, arg_types=arg_types, result_types=result_types,
                         signature=Signature([str(t) for t in arg_types], [str(t) for t in result_types]))

    def _traced(self, prep: _Prepared):
        """The lowered function as an FX graph.  The lowering walks our IR in Python, which
        dynamo would trace too: record the torch ops it calls first (make_fx runs it on fake
        tensors), compile that."""
        from torch.fx.experimental.proxy_tensor import make_fx

        from .torch_lowering import torch_dtype
        try:
            return make_fx(prep.function, tracing_mode="fake")(
                *[self.torch.zeros(t.shape, dtype=torch_dtype(t)) for t in prep.arg_types])
        except Exception as e:
            self._classify(e)
            raise Rejected(f"torch adapter: the program could not be traced to an FX graph: "
                           f"{type(e).__name__}: {e}") from None

    def _compiled(self, graph):
        """``graph`` under torch.compile (inductor compiles it on the first call)."""
        self.torch._dynamo.reset()  # a fresh cache per program: never the recompile limit's eager fallback
        return self.torch.compile(graph, backend="inductor", fullgraph=True, dynamic=False)

    # A batch (adapters/batch.py), inductor only: the programs' lowered functions called one
    # after the other by one function, traced into ONE graph and compiled once (the calls share
    # no value).

    def prepare_batch(self, programs: list[str]) -> tuple:
        """One compiled graph for the programs (a program that comes back with another input
        set is in it once); a program that cannot be lowered or traced alone is left out and
        run alone, where it gets its own message.  The compile happens on the first call
        (execute_batch); a failure there fails the batch, which is then split."""
        if self.mode != "inductor":
            raise Rejected("torch eager compiles nothing; it has no batches")
        from torch.fx.experimental.proxy_tensor import make_fx

        from .torch_lowering import torch_dtype

        same_as = first_occurrences(programs)
        preps, left_out = {}, {}
        for k in sorted(set(same_as)):
            try:
                preps[k] = self._lowered(programs[k])
            except Rejected as e:  # what prepare() says of it alone
                left_out[k] = LeftOut(RunStatus.REJECTED, str(e))
            except Exception:
                left_out[k] = LeftOut("alone")
        if not preps:
            return None, preps, left_out, same_as

        def every_program(*tensors, callables):
            outputs, start = [], 0
            for k, call in callables.items():
                count = len(preps[k].arg_types)
                outputs += list(call(*tensors[start:start + count]))
                start += count
            return outputs

        def traced(callables):
            arguments = [self.torch.zeros(t.shape, dtype=torch_dtype(t)) for k in callables
                         for t in preps[k].arg_types]
            return make_fx(lambda *tensors: every_program(*tensors, callables=callables), tracing_mode="fake")(
                *arguments)

        # One trace of the lowered programs (a make_fx call costs ~12 ms of setup: a third of a
        # batch's tracing); where it fails, each program is traced alone and the ones that fail
        # there are left out, with what prepare() says of them.
        try:
            graph = traced({k: prep.function for k, prep in preps.items()})
        except Exception:
            graphs = {}
            for k in list(preps):
                try:
                    graphs[k] = self._traced(preps[k])
                except Rejected as e:
                    left_out[k] = LeftOut(RunStatus.REJECTED, str(e))
                except Exception:
                    left_out[k] = LeftOut("alone")
                if k in left_out:
                    preps.pop(k)
            graph = traced(graphs) if graphs else None
        return (self._compiled(graph) if graph is not None else None), preps, left_out, same_as

    def execute_batch(self, prepared: tuple, input_sets: list[list[np.ndarray]]) -> list[tuple]:
        """One (status, message, outputs) per program, as execute() would give for it alone
        ("alone": run it on its own).  Raises when the compiled graph fails as a whole."""
        from .torch_lowering import element_of, to_numpy, to_torch

        function, preps, left_out, same_as = prepared
        for k, f in enumerate(same_as):
            if f in preps:
                preps[f].signature.check_inputs(input_sets[k])

        def run_once(chosen):
            tensors = [to_torch(x, element_of(t)) for k, prep in zip(chosen, preps.values())
                       for x, t in zip(input_sets[k], prep.arg_types)]
            outputs, answers, start = function(*tensors), [], 0
            for prep in preps.values():
                mine, start = outputs[start:start + len(prep.result_types)], start + len(prep.result_types)
                try:
                    answers.append((RunStatus.OK, "", [to_numpy(o, element_of(t))
                                                       for o, t in zip(mine, prep.result_types)]))
                except Exception as e:  # the message execute() gives through the worker
                    answers.append((RunStatus.ERROR, f"{type(e).__name__}: {e}", []))
            return answers

        answers = in_rounds(same_as, list(preps), run_once)
        return [left_out[f].answer() if f in left_out else a for f, a in zip(same_as, answers)]

    @staticmethod
    def _meta_run(function, metas):
        """Results on meta tensors (None when some torch op has no meta kernel: the real run decides)."""
        from .torch_lowering import Unlowerable
        try:
            return function(*metas)
        except Unlowerable:
            raise
        except Exception:
            return None

    def execute(self, prep: _Prepared, inputs: list[np.ndarray]) -> list[np.ndarray]:
        from .torch_lowering import Unlowerable, element_of, to_numpy, to_torch

        prep.signature.check_inputs(inputs)
        tensors = [to_torch(x, element_of(t)) for x, t in zip(inputs, prep.arg_types)]
        try:
            outputs = prep.function(*tensors)
        except Unlowerable as e:
            raise Rejected(f"torch adapter: {e}") from None
        except Exception as e:
            self._classify(e)
            raise
        return [to_numpy(o, element_of(t)) for o, t in zip(outputs, prep.result_types)]

    def _classify(self, error: Exception) -> None:
        """Raise Rejected when ``error`` is torch refusing the program (a dtype an op lacks, or
        inductor/dynamo failing to compile it); otherwise return (the caller re-raises)."""
        text = f"{type(error).__name__}: {error}"
        first = text.strip().splitlines()[0][:500] if text.strip() else text
        compile_errors = ()
        if self.mode == "inductor":
            from torch._dynamo import exc as dynamo_exc
            compile_errors = (dynamo_exc.BackendCompilerFailed, dynamo_exc.Unsupported, dynamo_exc.UserError)
        if isinstance(error, compile_errors):
            raise Rejected(f"torch.compile (inductor) refused the program: {_tail(text)}") from None
        if isinstance(error, (NotImplementedError, RuntimeError, TypeError)) and any(r in text for r in _REFUSALS):
            raise Rejected(f"torch {self.mode}: {first}") from None


#: torch dtypes whose numpy form is an ml_dtypes type of the same name (they cross as bits).
ML_DTYPES_NAMES = ("bfloat16", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz",
                   "float8_e8m0fnu")


def traced_graph(program: str):
    """The program lowered onto torch and traced to an FX graph of aten ops, as a standalone
    reproducer carries it (reports/standalone.py): (graph module, its constants as numpy arrays
    by attribute name, {numpy dtype name: torch dtype name} of the types that cross as bits)."""
    import ml_dtypes
    import torch

    engine = TorchEngine("eager")
    graph = engine._traced(engine._lowered(program))
    constants = {}
    for node in graph.graph.nodes:
        if node.op == "get_attr":
            value = getattr(graph, node.target).detach().contiguous()
            name = str(value.dtype).replace("torch.", "")
            if name in ML_DTYPES_NAMES:
                bits = torch.uint8 if value.element_size() == 1 else torch.int16
                constants[node.target] = value.view(bits).numpy().view(getattr(ml_dtypes, name))
            else:
                constants[node.target] = value.numpy()
    return graph, constants, {n: n for n in ML_DTYPES_NAMES}


def preload_eager() -> None:
    """What a torch worker does once before it forks its servers (adapters/worker.py): import
    torch (seconds of CPU), so that a server forked after a crash (inductor's SIGFPE on an
    integer division by zero) starts at once.  Nothing here leaves a thread running."""
    import torch

    torch.set_num_threads(1)


_WARM_UP = "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = stablehlo.exponential %a : tensor<4xf32>\n" \
           "  return %0 : tensor<4xf32>\n}\n"


def preload_inductor() -> None:
    """preload_eager, and one tiny program compiled and run: inductor's first compile in a
    process costs ~25 s more than the next (imports, the C++ compiler and the CPU's vector
    extensions probed), which each forked server would otherwise pay again, and which would
    count against the deadline of the first case or batch (with TORCHINDUCTOR_COMPILE_THREADS=1
    it leaves no thread or process behind)."""
    preload_eager()
    engine = TorchEngine("inductor")
    try:
        engine.execute(engine.prepare(_WARM_UP), [np.ones(4, np.float32)])
    except Exception:  # (no C++ compiler, say): each program then meets the failure itself, as before
        pass


def _tail(text: str, lines: int = 12) -> str:
    parts = [ln for ln in text.strip().splitlines() if ln.strip()]
    return "\n".join(parts[:3] + (["..."] if len(parts) > lines else []) + parts[3:][-(lines - 3):])


class TorchBackend(WorkerBackend):
    """``torch-eager`` / ``torch-inductor`` (one class; the mode comes from the name)."""

    flushes_subnormals = False  # torch on the CPU keeps subnormals (no FTZ/DAZ set)

    def __init__(self, name: str = "torch-eager", env: dict[str, str] | None = None):
        if name not in MODES:
            raise ValueError(f"unknown torch backend {name!r}; known: {', '.join(MODES)}")
        self.name = name
        self.worker_name = f"adapters.torch_backend:TorchEngine:{MODES[name]}"
        merged = {"TORCHINDUCTOR_COMPILE_THREADS": "1", "OMP_NUM_THREADS": "1"}
        from .cache import cache_dir
        root = cache_dir()
        if root is not None:
            merged["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(root, "torchinductor")
        merged.update(env or {})
        self.startup_timeout = 300.0 if MODES[name] == "inductor" else self.startup_timeout  # (its warm-up)
        super().__init__(merged)
        # inductor: 32 programs per compiled graph (adapters/batch.py); eager compiles nothing
        self.batch_size = 32 if MODES[name] == "inductor" else 0

    def batchable(self, program: str) -> bool:
        """Programs that can share a compiled graph (adapters.batch.may_share_a_module), but
        none that inductor often refuses or is known to crash on (``INDUCTOR_ALONE``)."""
        return may_share_a_module(program) and not any(p.search(program) for p in INDUCTOR_ALONE)

    def shares_among_its_kind(self, program: str) -> bool:
        """Programs inductor often refuses (``INDUCTOR_OFTEN_REFUSED``) share graphs among
        themselves; those it crashes on (``INDUCTOR_CRASHES``) never share one."""
        return (may_share_a_module(program) and any(p.search(program) for p in INDUCTOR_OFTEN_REFUSED)
                and not any(p.search(program) for p in INDUCTOR_CRASHES))

    def refusal_likeness(self, program: str) -> frozenset:
        """adapters.batch.likeness with the float8 variants told apart: inductor refuses log and
        sine on f8E4M3FN and f8E5M2 (C++ compile errors, in kernels long enough to be vectorized)
        and f8E8M0FNU (dynamo), but compiles them on f8E4M3FNUZ and f8E5M2FNUZ; alike, the FNUZ
        ones would be compiled alone."""
        return likeness(program) | frozenset(_FLOAT8.findall(program))

    def available(self) -> tuple[bool, str]:
        if importlib.util.find_spec("torch") is None:  # no need to start a worker to say so
            return False, f"PyTorch is not installed; {TORCH_INSTALL}"
        return super().available()

    def version(self) -> str:
        return torch_version()
