"""TensorFlow: ``tensorflow``, StableHLO through ``XlaCallModule`` on the CPU, in a worker subprocess.

``tensorflow.compiler.tf2xla.python.xla.call_module(args, version=V, module=TEXT, Tout=...,
Sout=..., platforms=["CPU"])`` is the op jax2tf and TF-serving of JAX models use: tf2xla's
loader parses the module (its own StableHLO version, shape refinement and validation), lowers
it to HLO inside a TF entry computation and compiles it with the XLA copy bundled in
TensorFlow, under TensorFlow's default XLA options, when the op first runs eagerly (the
compile is cached per module text and input shapes).  The program goes as text, at the
highest version this TensorFlow's loader takes (``call_module_maximum_supported_version``):
CHLO has no portable serialization, text carries it as it is.

What the adapter supplies, since TensorFlow does not check it against the module:

* ``Tout`` and ``Sout`` come from @main's signature, never guessed: a wrong ``Tout`` makes TF
  reinterpret the result's bits as the other type, silently;
* a program with a dynamic dimension (``tensor<?x...>``) or a dynamic op (dynamic_iota,
  dynamic_gather, ...; adapters.batch.DYNAMIC) gets the module attribute
  ``jax.uses_shape_polymorphism = true``: without it the loader refuses a module with dynamic
  shapes ("Module has dynamic shapes") instead of refining them from the arguments' shapes
  (which also turns a dynamic op with constant shape operands into its static form); ``Sout``
  has ``None`` at a dynamic result dimension;
* quantized programs are lowered to integer math first (adapters.xla.lower_quantized), so
  @main takes and returns storage integers, as for XLA;
* ``XLA_FLAGS`` is cleared for the worker: TensorFlow's XLA aborts the process on a flag it
  does not know, and those the ``xla`` backends set are jaxlib's.

Statuses: an element type TensorFlow has no ``DType`` for (``tf.as_dtype`` refuses it) in
@main's signature is ``rejected`` with TensorFlow's message before anything runs; an error
TensorFlow raises from the op (the loader, tf2xla or XLA refusing the module; XLA CPU has no
run-time failure for these programs) is ``rejected`` with TensorFlow's message; the process
dying is a ``crash``.  ``import tensorflow`` takes 10-20 s: the worker imports it once and
serves from forked children (adapters/worker.py), so a crash costs a fork.

Measured with tensorflow-cpu 2.21.0 (XlaCallModule version 10, StableHLO 1.13.7), not assumed:

* subnormals are flushed: f32 1e-45 + 1e-45 gives 0 (suites/test_backends_tensorflow.py
  ``test_flushes_subnormals_as_declared``);
* f6E2M3FN, f6E3M2FN, f8E3M4, f8E4M3 and f8E8M0FNU have no TensorFlow DType, and XlaCallModule
  has no kernel for i2, ui2 and f4E2M1FN arguments or results ("No registered 'XlaCallModule'
  OpKernel for XLA_CPU_JIT devices compatible with ..."): @main cannot take or return them
  (inside a program they compile as XLA compiles them);
* i4 / ui4 tensors cross the boundary one element per byte while XLA reads and writes them
  packed, and TF's XLA runs with fast min / max (NaN dropped): both listed deviations
  (judge/deviations/tensorflow.toml), not worked around, since users meet them so.

``tf.function(jit_compile=True)`` around the same call (``TensorflowEngine("jit")``, the backend
class under the name ``tensorflow-jit``) goes through the same tf2xla lowering and the same XLA
CPU compiler: on 27 ops x every element type (2,640 cases without i4 / ui4, whose results hold
uninitialised memory, above) every status was the same and every result bit-identical but two
sorts along a negative dimension (a listed deviation, wrong on both paths, and identical when
run alone), so it is not listed as a backend of its own.
"""

from __future__ import annotations

import re

import numpy as np

from .base import Rejected, RunStatus, main_signature, mlir_context, parse_mlir
from .batch import DYNAMIC, LeftOut, compile_batch, first_occurrences, in_rounds, may_share_a_module
from .worker_client import WorkerBackend
from .xla import Signature, aborts_xla, batch_signatures, lower_quantized

#: Element types TensorFlow has no DType for (``tf.as_dtype`` refuses their numpy dtypes):
#: a program with one at @main's boundary is refused before it runs; kept out of batches,
#: whose inputs and results all cross that boundary.
NO_TF_DTYPE = ("f6E2M3FN", "f6E3M2FN", "f8E3M4", "f8E4M3", "f8E8M0FNU")
_NO_TF_DTYPE = re.compile(r"[<x](?:" + "|".join(NO_TF_DTYPE) + r")>")

#: TensorFlow's decoration around an op's error message: the function node before it, the node
#: and op names after it.
_TF_DECORATION = re.compile(r"^\{\{function_node [^}]*\}\}\s*|\s*\[\[\{\{node [^}]*\}\}\]\].*$", re.S)


def tensorflow_message(error: Exception) -> str:
    """TensorFlow's own words for an error: the exception's class and message, without the
    node and function names TF wraps it in."""
    message = getattr(error, "message", None) or str(error)
    return f"{type(error).__name__}: {_TF_DECORATION.sub('', message).strip()}"


def preload_worker() -> None:
    """What a TensorFlow worker does once before it forks its servers (adapters/worker.py):
    import tensorflow (10-20 s) and the XlaCallModule wrapper; the import starts no thread the
    fork would lose (the eager context, whose thread pools are, starts in each server).  Without
    tensorflow it does nothing: the engine then says, in one line, why it cannot start."""
    try:
        import tensorflow  # noqa: F401
        from tensorflow.compiler.tf2xla.python import xla  # noqa: F401
    except ImportError:
        pass


class _Prepared:
    """A program made ready for ``call_module``: its text, @main's signature, Tout and Sout."""
    __slots__ = ("text", "signature", "tout", "sout")

    def __init__(self, text, signature, tout, sout):
        self.text, self.signature, self.tout, self.sout = text, signature, tout, sout


def _shape(type_text: str) -> list:
    """The static shape of ``tensor<3x?xf32>`` as Sout wants it: [3, None]."""
    dims = type_text[len("tensor<"):].split("x")[:-1] if type_text.startswith("tensor<") else []
    return [None if d == "?" else int(d) for d in dims if d == "?" or d.isdigit()]


class TensorflowEngine:
    """Runs inside the worker process.  ``jit``: the call inside ``tf.function(jit_compile=True)``."""

    per_case_compile = False

    def __init__(self, mode: str = "eager"):
        import tensorflow as tf
        from tensorflow.compiler.tf2xla.python import xla as tfxla

        if mode not in ("eager", "jit"):
            raise ValueError(f"unknown TensorFlow mode {mode!r}")
        self.tf, self.tfxla, self.mode = tf, tfxla, mode
        self.version = tfxla.call_module_maximum_supported_version()
        self._jitted = {}  # program text -> tf.function (jit)

    def info(self) -> str:
        return f"tensorflow {self.tf.__version__}, XlaCallModule version {self.version}, CPU ({self.mode})"

    def _dtype(self, type_text: str, where: str):
        """The TF DType of a tensor type at @main's boundary; Rejected, in TF's words, when TF has none."""
        from .base import expected_dtype

        dtype = expected_dtype(type_text)
        if dtype is None:
            raise Rejected(f"@main's {where} {type_text} is not a tensor; XlaCallModule takes and returns tensors")
        try:
            return self.tf.as_dtype(dtype)
        except TypeError as e:
            raise Rejected(f"{where} {type_text}: TensorFlow: {e}") from None

    def prepare(self, program: str) -> _Prepared:
        module = parse_mlir(lower_quantized(program))
        arg_types, result_types = main_signature(module)
        for k, ty in enumerate(arg_types):
            self._dtype(ty, f"argument #{k}")
        tout = [self._dtype(ty, f"result #{k}") for k, ty in enumerate(result_types)]
        sout = [_shape(ty) for ty in result_types]
        if DYNAMIC.search(program):
            from jaxlib.mlir import ir

            with mlir_context():  # the loader refines dynamic shapes only in modules marked so
                module.operation.attributes["jax.uses_shape_polymorphism"] = ir.BoolAttr.get(True)
        with mlir_context():
            text = str(module)
        return _Prepared(text, Signature(arg_types, result_types), tout, sout)

    def _call(self, prep: _Prepared, inputs: list[np.ndarray]) -> list[np.ndarray]:
        tf = self.tf
        try:
            args = [tf.constant(x) for x in inputs]
            if self.mode == "jit":
                outputs = self._jitted_call(prep)(*args)
            else:
                outputs = self.tfxla.call_module(args, version=self.version, module=prep.text, Tout=prep.tout,
                                                 Sout=prep.sout, platforms=["CPU"])
            return [np.asarray(o.numpy()) for o in outputs]
        except tf.errors.OpError as e:
            raise Rejected(tensorflow_message(e)) from None

    def _jitted_call(self, prep: _Prepared):
        function = self._jitted.get(prep.text)
        if function is None:
            tfxla, version = self.tfxla, self.version

            def call(*args):
                return tfxla.call_module(list(args), version=version, module=prep.text, Tout=prep.tout,
                                         Sout=prep.sout, platforms=["CPU"])
            function = self._jitted[prep.text] = self.tf.function(call, jit_compile=True)
            while len(self._jitted) > 64:
                self._jitted.pop(next(iter(self._jitted)))
        return function

    def execute(self, prep: _Prepared, inputs: list[np.ndarray]) -> list[np.ndarray]:
        prep.signature.check_inputs(inputs)
        outputs = self._call(prep, inputs)
        prep.signature.check_outputs(outputs)
        return outputs

    # A batch (adapters/batch.py): many one-op programs as one module, one XlaCallModule.

    def prepare_batch(self, programs: list[str]) -> tuple:
        """The programs as one module (each program once); TF compiles it when it first runs
        (``execute_batch``), so a refusal there fails the batch as a whole.  A program whose
        own preparation is refused is "rejected" with that message, as alone."""
        same_as = first_occurrences(programs)
        left_out, texts = {}, {}
        for k in sorted(set(same_as)):
            try:
                texts[k] = self.prepare(programs[k]).text
            except Rejected as e:
                left_out[k] = LeftOut(RunStatus.REJECTED, str(e))
        return compile_batch(texts, self.prepare, left_out=left_out), same_as

    def execute_batch(self, prepared: tuple, input_sets: list[list[np.ndarray]]) -> list[tuple]:
        """One (status, message, outputs) per program, as execute() gives for it alone.
        Raises Rejected, with TensorFlow's message, when the module as a whole is refused."""
        batch, same_as = prepared
        signatures = batch_signatures(batch, same_as, input_sets)

        def run_once(chosen):
            outputs = self._call(batch.compiled, [x for k in chosen for x in input_sets[k]])
            answers, start = [], 0
            for signature in signatures.values():
                mine, start = outputs[start:start + len(signature.result_types)], start + len(signature.result_types)
                try:
                    signature.check_outputs(mine)
                    answers.append((RunStatus.OK, "", mine))
                except RuntimeError as e:
                    answers.append((RunStatus.ERROR, f"{type(e).__name__}: {e}", []))
            return answers

        answers = in_rounds(same_as, list(signatures), run_once) if signatures else [None] * len(same_as)
        return [batch.left_out[f].answer() if f in batch.left_out else a for f, a in zip(same_as, answers)]


class TensorflowBackend(WorkerBackend):
    """``tensorflow`` (eager XlaCallModule) and, where it differs, ``tensorflow-jit``."""

    flushes_subnormals = True  # measured (module docstring): TF's XLA CPU flushes f32 subnormals
    #: jaxlib's XLA_FLAGS abort TF's XLA; TF's info and warning lines, and oneDNN's note that it
    #: lacks AVX2 for f16 (an error line, whatever a crash was), would stand for a crash's cause in
    #: the worker's stderr; oneDNN serves TF's own kernels, never XlaCallModule's XLA code.
    worker_env = {"XLA_FLAGS": "", "TF_CPP_MIN_LOG_LEVEL": "2", "TF_ENABLE_ONEDNN_OPTS": "0"}
    batch_size = 32  # as xla's: 32 one-op programs per XlaCallModule

    def __init__(self, name: str = "tensorflow", env: dict[str, str] | None = None):
        modes = {"tensorflow": "eager", "tensorflow-jit": "jit"}
        if name not in modes:
            raise ValueError(f"unknown TensorFlow backend {name!r}; known: {', '.join(modes)}")
        self.name = name
        self.worker_name = f"adapters.tensorflow_backend:TensorflowEngine:{modes[name]}"
        super().__init__(env)

    def version(self) -> str:
        from importlib import metadata

        try:
            return f"tensorflow-cpu {metadata.version('tensorflow-cpu')}"
        except metadata.PackageNotFoundError:
            return ""

    def supports(self, element_type_names: set[str]) -> tuple[bool, str]:
        """Every element type: one without a TF DType is refused only at @main's boundary, by
        TensorFlow itself (the case is ``rejected`` with its message)."""
        return True, ""

    def batchable(self, program: str) -> bool:
        """Programs that can share a module (adapters.batch.may_share_a_module), none of an
        element type TF has no DType for (refused alone at once) and none XLA's compiler is
        known to abort on (adapters.xla.aborts_xla: the XLA bundled in TF is XLA's CPU code)."""
        return may_share_a_module(program) and not _NO_TF_DTYPE.search(program) and not aborts_xla(program)
