"""Standalone reproducers: a finding as a script on the backend's own packages alone.

``standalone_script(backend, ...)`` gives the text of a Python script that runs one program
on the backend the way its users would, with nothing of this suite:

* ``xla`` / ``xla-fast`` / ``xla-folded`` (``xla-gpu`` on a GPU): jax / jaxlib's PjRt client,
  ``compile_and_load`` of the StableHLO text; switches are XLA debug options
  (``xla_disable_hlo_passes``, fast-math and fusion flags), candidates for ``--blame`` from
  XLA's own pass dump (``xla_dump_hlo_pass_re=.*``: one file per pass that changed the module).
* ``iree-llvm-cpu`` / ``iree-vmvx``: iree-base-compiler / -runtime; switches are iree-compile
  flags.  ``iree_commands`` gives the same as ``iree-compile`` / ``iree-run-module`` lines.
* ``torch-eager`` / ``torch-inductor``: torch alone.  Torch reads no StableHLO, so the script
  carries the torch adapter's lowering of the program, traced to an FX graph of aten ops
  (its Python code and constants); switches are inductor's config and eager instead of inductor.
* ``stablehlo-ref``: jaxlib's bundled interpreter (``stablehlo.eval_module``), the inputs baked
  into the program as constants; element types the buffer protocol reads (no bf16/f8/sub-byte).

The backend-independent part (checks, exit codes, blame loop) is reports/standalone_common.py.
"""

from __future__ import annotations

import json

from adapters.iree import TARGETS, compile_flags, hal_element_types, sub_byte_boundary
from adapters.torch_backend import traced_graph
from adapters.xla import bake_inputs

from .standalone_common import CANNOT_RUN, FIXED, SCRIPT, STILL_WRONG, encode_array, python_string


class NoStandalone(ValueError):
    """The finding's backend or program has no standalone form here (the reason)."""


def standalone_script(backend: str, program: str, inputs: list, expected: list, checks: list, *,
                      title: str, expect: str = "values", filename: str = "reproduce.py") -> str:
    """The script's text.  ``checks``: [{"output": k, "elements": [flat indices], "tolerance":
    {ulp, rel, abs, strict_signed_zero}}]; ``expect``: "values" (a mismatch) or "completes" (the
    backend fails to run the program)."""
    part = _backend_part(backend, program, inputs)
    data = {"inputs": [] if part.get("baked") else [encode_array(x) for x in inputs],
            "expected": [encode_array(x) for x in expected], "checks": checks}
    return SCRIPT.format(title=title.replace('"""', "'''"), needs=part["needs"], backend_words=part["words"],
                         filename=filename, imports=part["imports"], program=python_string(part["program"]),
                         data=python_string(json.dumps(data)), expect=expect, run=part["run"],
                         cannot_run=CANNOT_RUN, still_wrong=STILL_WRONG, fixed=FIXED)


def _backend_part(backend: str, program: str, inputs: list) -> dict:
    if backend.startswith("xla"):
        return _xla_part(backend, program, inputs)
    if backend.startswith("iree-"):
        return _iree_part(backend, program)
    if backend.startswith("torch-"):
        return _torch_part(backend, program, inputs)
    if backend == "stablehlo-ref":
        return _interpreter_part(program, inputs)
    raise NoStandalone(f"no standalone reproducer for backend {backend!r} (xla*, iree-*, torch-*, stablehlo-ref)")


# ------------------------------------------------------------------------------------ XLA

_XLA_RUN = '''
#: XLA debug options of this configuration (the adapter's), before any --option.
BASE_OPTIONS = {base!r}
PLATFORM = {platform!r}


def merged(switches):
    """Debug options: the base ones, then ``switches`` ((name, value) pairs; several
    xla_disable_hlo_passes are one comma-separated list)."""
    options = dict(BASE_OPTIONS)
    for name, value in map(tuple, switches):
        if isinstance(value, str) and value.lower() in ("true", "false"):
            value = value.lower() == "true"  # (XLA wants a flag's own type)
        elif isinstance(value, str) and value.isdigit():
            value = int(value)
        if name == "xla_disable_hlo_passes" and options.get(name):
            value = options[name] + "," + value
        options[name] = value
    return options


def compiled(options):
    client = xb.get_backend(PLATFORM)
    compile_options = xb.get_compile_options(num_replicas=1, num_partitions=1)
    compile_options.env_option_overrides = sorted(options.items())
    device = client.local_devices()[0]
    if hasattr(client, "compile_and_load"):
        return client.compile_and_load(PROGRAM, [device], compile_options), device
    return client.compile(PROGRAM, compile_options), device


def run(switches=()):
    executable, device = compiled(merged(switches))
    results = executable.execute([jax.device_put(x, device) for x in INPUTS])
    return [np.asarray(r) for r in results]


#: Flags tried by --blame besides the passes (skipped where this jaxlib does not know them).
FLAGS = [("xla_cpu_use_fusion_emitters", False), ("xla_backend_optimization_level", 0),
         ("xla_llvm_disable_expensive_passes", True), ("xla_cpu_enable_fast_math", False),
         ("xla_cpu_enable_fast_min_max", False), ("xla_cpu_fast_math_honor_nans", True),
         ("xla_cpu_fast_math_honor_infs", True), ("xla_cpu_fast_math_honor_division", True),
         ("xla_cpu_fast_math_honor_functions", True), ("xla_cpu_enable_concurrency_optimized_scheduler", False)]


def passes():
    """The HLO passes that changed this program, from XLA's own dump (file names
    module_N.main.K.<pipeline>.after_<pass>.before_<next>.txt), and their pipelines."""
    import os
    import re
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        options = merged([("xla_dump_to", folder), ("xla_dump_hlo_pass_re", ".*")])
        compiled(options)
        names = []
        for f in sorted(os.listdir(folder)):
            m = re.match(r"module_\\d+\\.[^.]+\\.\\d+\\.([^.]+)\\.after_([^.]+)\\.before_([^.]+)\\.txt$", f)
            if m:
                names += [m.group(2), m.group(1)]
    skip = {{"pipeline-start", "pipeline-end"}}
    return [n for n in dict.fromkeys(names) if n not in skip]


def candidate_switches():
    return [("xla_disable_hlo_passes", p) for p in passes()] + FLAGS
'''

_FOLDED_NOTE = "XLA's constant folder (the HLO evaluator): the inputs are constants in the program"


def _xla_part(backend: str, program: str, inputs: list) -> dict:
    base = {}
    if backend == "xla-fast":
        base = {"xla_backend_optimization_level": 0, "xla_llvm_disable_expensive_passes": True,
                "xla_cpu_use_fusion_emitters": False}  # adapters/xla.py FAST_COMPILE_FLAGS
    platform = "cuda" if backend == "xla-gpu" else "cpu"
    baked = backend == "xla-folded"
    if baked:
        program = bake_inputs(program, list(inputs))
    words = _FOLDED_NOTE if baked else f"XLA ({platform.upper()}, through jaxlib's PjRt client)"
    return {"needs": "jax and jaxlib", "words": words, "baked": baked, "program": program,
            "imports": ('import jax\n\njax.config.update("jax_enable_x64", True)\n'
                        "from jax.extend import backend as xb\n"),
            "run": _XLA_RUN.format(base=base, platform=platform)}


# ------------------------------------------------------------------------------------ IREE

_IREE_RUN = '''
TARGET = {target!r}
#: iree-compile flags of this configuration (the adapter's), before any --option.
BASE_FLAGS = {flags!r}
#: Each input's IREE HAL element type code (HalElementType).
HAL_TYPES = {hal!r}


def merged(switches):
    return BASE_FLAGS + [f"--{{name}}={{value}}" for name, value in map(tuple, switches)]


def run(switches=()):
    vmfb = iree.compiler.compile_str(PROGRAM, input_type="stablehlo", target_backends=[TARGET],
                                     extra_args=merged(switches))
    rt = iree.runtime
    config = rt.Config("local-task")
    hal = rt.create_hal_module(config.vm_instance, config.device)
    module = rt.VmModule.copy_buffer(config.vm_instance, vmfb)
    context = rt.VmContext(config.vm_instance, [hal, module])
    args = rt.VmVariantList(len(INPUTS))
    for x, hal_type in zip(INPUTS, HAL_TYPES):
        raw = np.ascontiguousarray(x).reshape(-1).view(np.uint8)
        buffer = config.device.allocator.allocate_buffer_copy(
            memory_type=rt.MemoryType.DEVICE_LOCAL, allowed_usage=rt.BufferUsage.DEFAULT, device=config.device,
            buffer=raw if raw.size else np.zeros(1, np.uint8))
        args.push_ref(rt.HalBufferView(buffer, list(x.shape), hal_type).ref)
    results = rt.VmVariantList(len(EXPECTED))
    context.invoke(module.lookup_function("main"), args, results)
    out = []
    for k, exp in enumerate(EXPECTED):
        view = results.get_as_object(k, rt.HalBufferView)
        raw = np.array(view.get_buffer().map().asarray([view.byte_length], np.dtype(np.uint8)), copy=True)
        out.append(raw.view(exp.dtype).reshape(tuple(view.shape)))
    return out


def candidate_switches():
    return {candidates!r}
'''

#: iree-compile flags tried by --blame: optimisation levels and the passes that change values.
IREE_CANDIDATES = [("iree-opt-level", "O0"), ("iree-global-optimization-opt-level", "O0"),
                   ("iree-dispatch-creation-opt-level", "O0"), ("iree-llvmcpu-mlir-opt-level", "O0"),
                   ("iree-opt-const-eval", "false"), ("iree-llvmcpu-reassociate-fp-reductions", "false"),
                   ("iree-llvmcpu-use-fast-min-max-ops", "false"), ("iree-llvmcpu-enable-ukernels", "none"),
                   ("iree-llvmcpu-loop-vectorization", "false"), ("iree-llvmcpu-slp-vectorization", "false"),
                   ("iree-dispatch-creation-enable-aggressive-fusion", "false"),
                   ("iree-opt-aggressively-propagate-transposes", "false"),
                   ("iree-opt-numeric-precision-reduction", "false"), ("iree-llvmcpu-target-cpu", "generic")]


def _iree_part(backend: str, program: str) -> dict:
    target = TARGETS.get(backend)
    if target is None:
        raise NoStandalone(f"unknown IREE configuration {backend!r}")
    problem = sub_byte_boundary(program)
    if problem:
        raise NoStandalone(f"the standalone IREE script passes whole bytes: {problem}")
    return {"needs": "iree-base-compiler and iree-base-runtime", "words": f"IREE ({target})", "program": program,
            "imports": "import iree.compiler\nimport iree.runtime\n",
            "run": _IREE_RUN.format(target=target, flags=compile_flags(target), hal=hal_element_types(program),
                                    candidates=IREE_CANDIDATES)}


def iree_commands(backend: str, input_files: list[str], program_file: str = "program.mlir") -> list[str]:
    """The same run as ``iree-compile`` / ``iree-run-module`` command lines (inputs as .npy files)."""
    target = TARGETS[backend]
    return [" ".join(["iree-compile", program_file, "--iree-input-type=stablehlo",
                      f"--iree-hal-target-backends={target}", *compile_flags(target), "-o", "program.vmfb"]),
            " ".join(["iree-run-module", "--module=program.vmfb", "--device=local-task", "--function=main",
                      *[f"--input=@{f}" for f in input_files]])]


# ----------------------------------------------------------------------------------- torch

_TORCH_RUN = '''
MODE = {mode!r}
#: The torch adapter's lowering of the program, traced to aten ops (torch.fx code).
GRAPH_CODE = {code}
#: The graph's constants (``self.<name>`` in GRAPH_CODE).
CONSTANTS = {{name: array(spec) for name, spec in json.loads({constants}).items()}}
#: torch dtypes of the inputs/outputs whose numpy dtype is an ml_dtypes one (they cross as bits).
TORCH_DTYPES = {dtypes!r}


class Graph(torch.nn.Module):
    pass


def graph():
    module = Graph()
    for name, value in CONSTANTS.items():
        setattr(module, name, to_torch(value))
    namespace = {{"torch": torch, "inf": float("inf"), "nan": float("nan"), "device": torch.device}}
    exec(GRAPH_CODE, namespace)
    Graph.forward = namespace["forward"]
    return module


def to_torch(x):
    name = TORCH_DTYPES.get(x.dtype.name)
    if name is None:
        return torch.from_numpy(np.ascontiguousarray(x).copy())
    bits = {{1: np.uint8, 2: np.int16}}[x.dtype.itemsize]
    return torch.from_numpy(np.ascontiguousarray(x).view(bits).copy()).view(getattr(torch, name))


def to_numpy(t, like):
    if like.dtype.name in TORCH_DTYPES:
        bits = {{1: torch.uint8, 2: torch.int16}}[like.dtype.itemsize]
        return t.detach().contiguous().view(bits).numpy().view(like.dtype)
    return t.detach().numpy()


def run(switches=()):
    torch.set_num_threads(1)
    switches = dict(map(tuple, switches))
    function = graph()
    if MODE == "inductor" and switches.pop("mode", "inductor") == "inductor":
        import torch._inductor.config as config
        for name, value in switches.items():
            owner = config
            *path, last = name.split(".")
            for part in path:
                owner = getattr(owner, part)
            getattr(owner, last)  # AttributeError: this torch has no such switch
            setattr(owner, last, value)
        torch._dynamo.reset()
        function = torch.compile(function, backend="inductor", fullgraph=True, dynamic=False)
    outputs = function(*[to_torch(x) for x in INPUTS])
    return [to_numpy(o, e) for o, e in zip(outputs, EXPECTED)]


def candidate_switches():
    if MODE != "inductor":
        return []
    return [("mode", "eager")] + [(k, v) for k, v in {inductor!r}]
'''

#: Inductor config switches tried by --blame (value: the non-default setting).
INDUCTOR_CANDIDATES = [("epilogue_fusion", False), ("pattern_matcher", False), ("max_fusion_size", 1),
                       ("emulate_precision_casts", True), ("fallback_random", True), ("split_reductions", False),
                       ("online_softmax", False), ("joint_graph_constant_folding", False),
                       ("cpp.simdlen", 1), ("cpp.fallback_scatter_reduce_sum", False),
                       ("reorder_for_locality", False)]


def _torch_part(backend: str, program: str, inputs: list) -> dict:
    mode = backend.split("-", 1)[1]
    graph, constants, dtypes = traced_graph(program)
    code = graph.code
    return {"needs": "torch", "words": f"PyTorch ({mode}, CPU)", "program": program,
            "imports": "import torch\n",
            "run": _TORCH_RUN.format(mode=mode, code=python_string(code.strip() + "\n"),
                                     constants=python_string(json.dumps(
                                         {k: encode_array(v) for k, v in constants.items()})),
                                     dtypes=dtypes, inductor=INDUCTOR_CANDIDATES)}


# ------------------------------------------------------------------------- interpreter

_INTERPRETER_RUN = '''

def run(switches=()):
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import stablehlo
    with ir.Context() as context, ir.Location.unknown():
        stablehlo.register_dialect(context)
        module = ir.Module.parse(PROGRAM)
        return [np.array(np.asarray(r), copy=True) for r in stablehlo.eval_module(module, [])]


def candidate_switches():
    return []  # the interpreter has no optimisation to turn off
'''

_BUFFER_DTYPES = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                  "float16", "float32", "float64"}


def _interpreter_part(program: str, inputs: list) -> dict:
    odd = sorted({x.dtype.name for x in inputs if x.dtype.name not in _BUFFER_DTYPES})
    if odd:
        raise NoStandalone(f"the interpreter's results are read through the buffer protocol, which has no {odd}")
    return {"needs": "jaxlib", "words": "the StableHLO reference interpreter bundled with jaxlib",
            "baked": True, "program": bake_inputs(program, list(inputs)), "imports": "", "run": _INTERPRETER_RUN}

