"""``stablehlo-ref``: the official StableHLO reference interpreter bundled with jaxlib
(``jaxlib.mlir.dialects.stablehlo.eval_module``), run in a worker subprocess.

The interpreter aborts the process on ops it does not implement (``LLVM ERROR:
Unsupported op``: custom_call, tuple results, ...; CHLO ops are first legalized to StableHLO
as the interpreter's own CHLO tests do) and raises SIGFPE on integer
division by zero, hence the subprocess.

Conversions (what works, found by probing jaxlib 0.10.2):

* inputs: ``ir.DenseElementsAttr.get(array, type=tensor type, signless=...)``.  Standard
  numpy dtypes and i1 (bool) and complex go in directly; unsigned types need
  ``signless=False``; ml_dtypes types (bf16, i2/i4/ui2/ui4, f4, f6, f8*) go in as their raw
  unsigned-int view (sub-byte types: one byte per element, bit pattern in the low bits).
* outputs: the buffer protocol (``np.asarray(attr)``) works for i1, i8..i64, ui8..ui64,
  f16, f32, f64 (splats are expanded); for bf16, sub-byte and f8 types it raises
  "Unsupported ... type", so those are read back from the attribute's text (decimal
  literals that round-trip, hex for NaN/inf, one hex blob for large tensors).
* complex results: ``eval_module`` itself terminates the process when it converts a
  complex result attribute to Python.  So @main is wrapped: a new @main returns
  ``stablehlo.real`` / ``stablehlo.imag`` of each complex result and the adapter puts the
  parts back together bit-exactly.
"""

from __future__ import annotations


import numpy as np

from .base import (Rejected, call_text, main_signature, mlir_context, parse_mlir, run_stablehlo_passes,
                   wrap_main)
from .worker_client import WorkerBackend
from .xla import Signature

_BUFFER_DTYPES = {np.dtype(n) for n in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                         "uint32", "uint64", "float16", "float32", "float64")}


#: The interpreter's own lowering of quantized ops refuses some valid programs (per-axis
#: uniform_quantize: "unsupported non prefix-padded dynamic rank broadcast_dimensions").
QUANT_LOWERING_FAILED = "Failed to lower quantized types/ops"

#: The interpreter implements no CHLO op; its own CHLO tests run them through this pass first
#: (``stablehlo-opt --chlo-legalize-to-stablehlo``), so the adapter does the same.
CHLO_TO_STABLEHLO = "builtin.module(func.func(chlo-legalize-to-stablehlo))"


def _legalize_chlo(module):
    run_stablehlo_passes(module, CHLO_TO_STABLEHLO, "chlo-legalize-to-stablehlo")
    return module


class _Prepared:
    __slots__ = ("module", "signature", "result_types", "arg_ir_types", "arg_elements",
                 "result_elements", "complex_results")

    def __init__(self, **kw):
        for k, v in kw.items():
            setattr(self, k, v)


def _element_of(type_text: str):
    from oracle.types import TensorType, parse_type

    try:
        t = parse_type(type_text)
    except Exception:
        return None, None
    if not isinstance(t, TensorType):
        return None, None
    et = t.element_type
    if getattr(et, "is_quantized", False):
        et = et.storage_type
    return t, et


def _complex_wrapper(complex_idx: list[int]):
    def body(callee, arg_types, result_types):
        params = ", ".join(f"%a{k}: {t}" for k, t in enumerate(arg_types))
        call, results = call_text(callee, [f"%a{k}" for k in range(len(arg_types))], arg_types, result_types)
        lines, outs, out_types = [call], [], []
        for k, (name, ty) in enumerate(zip(results, result_types)):
            if k in complex_idx:
                part_ty = ty.replace("complex<f32>", "f32").replace("complex<f64>", "f64")
                lines.append(f"    %re{k} = stablehlo.real {name} : ({ty}) -> {part_ty}\n")
                lines.append(f"    %im{k} = stablehlo.imag {name} : ({ty}) -> {part_ty}\n")
                outs += [f"%re{k}", f"%im{k}"]
                out_types += [part_ty, part_ty]
            else:
                outs.append(name)
                out_types.append(ty)
        ret = f"    func.return {', '.join(outs)} : {', '.join(out_types)}\n" if outs else "    func.return\n"
        return f"func.func public @main({params}) -> ({', '.join(out_types)}) {{\n" + "".join(lines) + ret + "}\n"
    return body


def attr_to_numpy(attr, element, shape: tuple[int, ...]) -> np.ndarray:
    """A (non-complex) DenseElementsAttr -> numpy array of ``element.dtype`` and ``shape``."""
    dtype = element.dtype
    if dtype in _BUFFER_DTYPES:
        a = np.asarray(attr)
        if a.dtype != dtype:
            if a.dtype.itemsize != dtype.itemsize:
                raise RuntimeError(f"adapter: interpreter buffer has dtype {a.dtype}, expected {dtype}")
            a = a.view(dtype)
        return np.array(a.reshape(shape), dtype=dtype, copy=True)
    return parse_attr_text(str(attr), element, shape)


def parse_attr_text(text: str, element, shape: tuple[int, ...]) -> np.ndarray:
    """Read ``dense<...> : tensor<...>`` text exactly (hex blob, nested list or splat)."""
    from oracle.literals import parse_dense
    from oracle.types import TensorType

    body = text.rsplit(" : ", 1)[0].strip()
    if not (body.startswith("dense<") and body.endswith(">")):
        raise RuntimeError(f"adapter: unexpected attribute text {text[:80]!r}")
    return parse_dense(body[len("dense<"):-1], TensorType(tuple(shape), element))


class RefEngine:
    """Runs inside the worker process."""

    per_case_compile = False

    def __init__(self):
        from jaxlib.mlir import ir
        from jaxlib.mlir.dialects import stablehlo

        self.ir = ir
        self.stablehlo = stablehlo
        self.ctx = mlir_context()
        self.diagnostics: list[str] = []

        def handler(d):
            self.diagnostics.append(f"{d.location}: {d.message}")
            return True  # handled: don't print to stderr

        self.ctx.attach_diagnostic_handler(handler)

    def info(self) -> str:
        import jaxlib

        return f"StableHLO reference interpreter (jaxlib {jaxlib.__version__}, StableHLO {self.stablehlo.get_current_version()})"

    def prepare(self, program: str) -> _Prepared:
        ir = self.ir
        self.diagnostics.clear()
        module = parse_mlir(program)
        if "chlo." in program:
            module = _legalize_chlo(module)
        arg_types, result_types = main_signature(module)
        result_elements = []
        for ty in result_types:
            t, et = _element_of(ty)
            result_elements.append((t, et))
        complex_idx = [k for k, (t, et) in enumerate(result_elements) if et is not None and et.kind == "complex"]
        if complex_idx:
            module = parse_mlir(wrap_main(module, _complex_wrapper(complex_idx)))
        with self.ctx, ir.Location.unknown():
            arg_ir_types = [ir.Type.parse(t) for t in arg_types]
        return _Prepared(module=module, signature=Signature(arg_types, result_types), result_types=result_types,
                         arg_ir_types=arg_ir_types, arg_elements=[_element_of(t)[1] for t in arg_types],
                         result_elements=result_elements, complex_results=set(complex_idx))

    def _to_attr(self, x: np.ndarray, ir_type, element):
        ir = self.ir
        x = x if x.flags.c_contiguous else np.array(x, order="C")  # (ascontiguousarray makes 0-d 1-d)
        signless = True
        if element is not None:
            signless = element.kind != "uint"
            if x.dtype not in _BUFFER_DTYPES and element.kind != "complex":
                x = x.view(np.dtype(f"u{x.dtype.itemsize}"))
                if element.bits < 8:
                    x = x & np.uint8((1 << element.bits) - 1)
        if not ir.ShapedType(ir_type).has_static_shape:  # a ? dimension: the input's runtime shape
            ir_type = ir.RankedTensorType.get(list(x.shape), ir.ShapedType(ir_type).element_type)
        try:
            return ir.DenseElementsAttr.get(x, type=ir_type, signless=signless)
        except ValueError as e:
            if "!quant." in str(ir_type):  # jaxlib's binding builds no quantized tensor from a buffer
                raise Rejected(f"adapter: cannot pass an input of type {ir_type} to the interpreter: {e}") from None
            raise

    def execute(self, prep: _Prepared, inputs: list[np.ndarray]) -> list[np.ndarray]:
        ir = self.ir
        prep.signature.check_inputs(inputs)
        self.diagnostics.clear()
        with self.ctx, ir.Location.unknown():
            attrs = [self._to_attr(x, ty, et) for x, ty, et in zip(inputs, prep.arg_ir_types, prep.arg_elements)]
            try:
                results = self.stablehlo.eval_module(prep.module, attrs)
            except Exception as e:
                detail = "; ".join(self.diagnostics)
                message = f"{e}" + (f": {detail}" if detail else "")
                if QUANT_LOWERING_FAILED in message:  # the program is valid; the interpreter refuses it
                    raise Rejected(message) from None
                raise RuntimeError(message) from None
            outputs = []
            pos = 0
            for k, (t, et) in enumerate(prep.result_elements):
                if et is None:
                    raise RuntimeError(f"adapter: cannot read result #{k} of type {prep.result_types[k]}")
                shape = tuple(ir.ShapedType(results[pos].type).shape)  # static even if @main's isn't
                if k in prep.complex_results:
                    part = et.component
                    re_ = attr_to_numpy(results[pos], part, shape)
                    im_ = attr_to_numpy(results[pos + 1], part, shape)
                    pos += 2
                    out = np.empty(shape, dtype=et.dtype)
                    out.real = re_
                    out.imag = im_
                else:
                    out = attr_to_numpy(results[pos], et, shape)
                    pos += 1
                outputs.append(out)
            if pos != len(results):
                raise RuntimeError(f"adapter: interpreter returned {len(results)} values, expected {pos}")
        prep.signature.check_outputs(outputs)
        return outputs


class StablehloRefBackend(WorkerBackend):
    name = "stablehlo-ref"
    worker_name = "stablehlo-ref"
    flushes_subnormals = False
