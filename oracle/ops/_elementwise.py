"""Shared machinery of the element-wise ops (``oracle/ops/elementwise.py``).

Numerics, in one place:

* **Integers** wrap in two's complement at the type's OWN width.  numpy's 8..64-bit integer
  arrays already wrap silently; i2/i4/ui2/ui4 (ml_dtypes) are computed in int64/uint64 and
  wrapped explicitly (``wrap``).  Bit-level ops work on ``to_bits`` (the w-bit pattern in a
  uint64) and come back through ``from_bits``.
* **Floats, correctly rounded ops** (+ - * / sqrt fmod, and ops whose result is exact:
  ceil/floor/round/abs/max/...): f32 and f64 natively (numpy's f32/f64 arithmetic is IEEE);
  every narrower type (f16, bf16, f8*, f6*, f4) in f32 and then rounded once to the type.
  f32 has 24 >= 2p+2 bits for all of them (p <= 11), so that double rounding is innocuous
  for + - * / sqrt (Figueroa, "When is double rounding innocuous?", 1995).  E8M0's range
  exceeds float32's, so it goes through float64 instead.
* **Floats, transcendental ops** (exp, log, sin, pow, atan2, ...): the exact function
  (``_transcendental``) correctly rounded to the result type (``_special.correctly_rounded``:
  an Arb ball where it decides, mpmath where it does not), never numpy's float64 functions,
  whose bits depend on the CPU's SIMD kernels and on the array's length.  Each distinct
  operand value is evaluated once.  Values reach a narrow type through ``round_to`` (float64
  with round-to-odd, then float32 with round-to-odd, then ml_dtypes' correct float32 cast:
  ml_dtypes' own float64 casts may round twice).
* **Complex** transcendentals: off the axes, each component correctly rounded from an Arb
  ball or mpmath (``_special.complex_rounded``); on the real and imaginary axes (where the
  branch cuts lie and signed zeros pick a side) and for non-finite components, numpy's
  complex128 function (C99 Annex G), rounded once per component.  complex<f32>
  multiply/divide are done in complex128 and rounded once.
* Results that the type cannot hold (the spec is silent): no-infinity formats with a NaN
  (f8E4M3FN, the FNUZ types, E8M0) overflow to NaN (what IEEE-754 implies for a format
  without infinity; LLVM APFloat and ml_dtypes agree); the FNUZ types turn -0 into +0 and
  have one NaN.  f4E2M1FN/f6E2M3FN/f6E3M2FN have neither NaN nor infinity: overflow and
  +-inf saturate to +-max (ml_dtypes and XLA; APFloat saturates overflow too, but makes
  +-inf a zero), and a NaN result (0/0, sqrt(-1), log(-1)) becomes a zero whose sign is the
  OPPOSITE of the NaN's (ml_dtypes and XLA; the reference interpreter keeps the sign; on x86
  an invalid operation's NaN is negative, so +0 here) -- both are implementation-defined
  (there is no right answer in the format): comparisons should mask them.  f8E8M0FNU (powers of two
  2^-127..2^127, no sign, no zero) follows ml_dtypes' cast: zero, negatives, +-inf and NaN
  become its NaN (APFloat instead gives 2^-127 for zero and drops signs), ties between
  neighbouring powers of two round up, and tiny positive values round to 2^-127.
* Subnormals are kept (no flushing anywhere); numpy floating-point warnings are off.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from ..errors import OracleError, UndefinedBehavior, Unsupported
from ..numerics import note_unrepresentable, round_to
from ..registry import OpInfo, register
from ..quantization import dequantize_op_quantize
from ._special import complex_rounded, correctly_rounded
from ._transcendental import ARB, MPMATH
from ..types import (ALL_ELEMENT_TYPES, BOOL, COMPLEXES, ELEMENT_TYPES, FLOATS, SIGNED_INTEGERS,
                     UNSIGNED_INTEGERS, ElementType, element_type)

F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)
C64 = np.dtype(np.complex64)
C128 = np.dtype(np.complex128)
I64 = np.dtype(np.int64)
U64 = np.dtype(np.uint64)
_UINT = {8: np.dtype(np.uint8), 16: np.dtype(np.uint16), 32: np.dtype(np.uint32), 64: U64}

# ------------------------------------------------------------------ type groups (names)

ALL = tuple(t.name for t in ALL_ELEMENT_TYPES)
BOOLS = (BOOL.name,)
SINTS = tuple(t.name for t in SIGNED_INTEGERS)
UINTS = tuple(t.name for t in UNSIGNED_INTEGERS)
INTS = SINTS + UINTS
FLOAT_TYPES = tuple(t.name for t in FLOATS)
COMPLEX_TYPES = tuple(t.name for t in COMPLEXES)
INEXACT = FLOAT_TYPES + COMPLEX_TYPES


def as_element(t) -> ElementType:
    return element_type(t) if isinstance(t, str) else t


# ----------------------------------------------------------------------- integers

def wide(x: np.ndarray, et: ElementType) -> np.ndarray:
    """The values of ``x`` as int64 (signed types) or uint64 (unsigned types), exactly."""
    return x.astype(I64 if et.is_signed else U64, copy=False)


def wrap(v: np.ndarray, et: ElementType) -> np.ndarray:
    """Wide integers -> ``et`` modulo 2^bits (two's complement wrap at the type's own width)."""
    if et.bits >= 8:
        return np.asarray(v).astype(et.dtype)  # numpy's integer casts keep the low bits
    mask = (1 << et.bits) - 1
    u = np.asarray(v).astype(I64) & mask
    if et.is_signed:
        u = u - ((u & (1 << (et.bits - 1))) << 1)  # sign-extend bit (bits-1)
    return np.asarray(u).astype(et.dtype)


def to_bits(x: np.ndarray, et: ElementType) -> np.ndarray:
    """The ``et.bits``-bit two's complement pattern of each element, in a uint64."""
    x = np.asarray(x)
    if et.bits >= 8:
        return x.view(_UINT[et.bits]).astype(U64)
    return np.asarray(x.astype(I64) & ((1 << et.bits) - 1)).astype(U64)


def from_bits(u: np.ndarray, et: ElementType) -> np.ndarray:
    """Low ``et.bits`` bits of each uint64 (or int64) -> values of ``et``."""
    u = np.asarray(u).astype(U64, copy=False)
    if et.bits >= 8:
        return u.astype(_UINT[et.bits]).view(et.dtype)
    v = np.asarray(u & np.uint64((1 << et.bits) - 1)).astype(I64)
    if et.is_signed:
        v = v - ((v & (1 << (et.bits - 1))) << 1)
    return np.asarray(v).astype(et.dtype)


def int_arith(fn):
    """An integer kernel from a numpy function whose exact result is then wrapped to the width."""
    def kernel(et, *xs):
        if et.bits >= 8:
            return fn(*xs)  # numpy 8..64-bit integer arithmetic wraps at the dtype's width
        return wrap(fn(*[wide(x, et) for x in xs]), et)
    return kernel


# -------------------------------------------------------------------------- floats

#: f8E8M0FNU reaches 2^-127 .. 2^127, beyond float32 (a product of two values can be 2^-254):
#: its correctly rounded ops are done in float64 (exact for * /; 53 >= 2p+2 for the rest).
E8M0 = "f8E8M0FNU"


def narrow(r: np.ndarray, et: ElementType) -> np.ndarray:
    """float32 values -> ``et`` with ml_dtypes' cast, which rounds float32 correctly (see the
    module docstring for what it does with values the format cannot hold)."""
    note_unrepresentable(r, et)
    return r.astype(et.dtype)


def round_f64(x: np.ndarray, et: ElementType) -> np.ndarray:
    """Round float64 values once (round-to-nearest-even) to float type ``et``."""
    return x if et.bits == 64 else round_to(np.asarray(x), et)


def float_exact(fn):
    """A float kernel for a correctly rounded op (see module docstring): native f32/f64,
    f32 + one rounding for the narrower types (f64 for E8M0, whose range f32 lacks)."""
    def kernel(et, *xs):
        if et.bits >= 32:
            return fn(*xs)
        if et.name == E8M0:
            return round_f64(np.asarray(fn(*[x.astype(F64) for x in xs])), et)
        return narrow(np.asarray(fn(*[x.astype(F32) for x in xs])), et)
    return kernel


def float_correctly_rounded(exact):
    """A float kernel for a transcendental: ``exact(*floats, mp)`` (``_transcendental``)
    rounded once to the type, the same bits on every machine."""
    def mpmath_value(*xs):
        return exact(*xs, MPMATH)

    def ball(*xs):
        return exact(*xs, ARB)

    def kernel(et, *xs):
        with np.errstate(invalid="ignore"):  # NaN of the narrow formats
            wide = [np.asarray(x).astype(F64) for x in xs]
        return correctly_rounded(et, wide, None, mpmath_value, ball=ball)
    return kernel


def complex_native(fn):
    def kernel(et, *xs):
        return fn(*xs)
    return kernel


def complex_correctly_rounded(exact, ball, fallback):
    """A complex kernel for a transcendental: ``exact(mpc)`` / ``ball(acb)`` correctly rounded
    per component off the axes, ``fallback`` (numpy complex128) on them (module docstring)."""
    def kernel(et, x):
        return complex_rounded(et, x, exact, fallback, ball)
    return kernel


def complex_via_c128(fn):
    """A complex kernel: complex128, then each component rounded to the component type."""
    def kernel(et, *xs):
        if et.bits == 128:
            return fn(*xs)
        return fn(*[x.astype(C128) for x in xs]).astype(C64)
    return kernel


def make_complex(re: np.ndarray, im: np.ndarray) -> np.ndarray:
    """re + i*im without arithmetic (no inf*0 = NaN surprises), complex128."""
    out = np.empty(np.broadcast_shapes(np.shape(re), np.shape(im)), C128)
    out.real = re
    out.imag = im
    return out


# ------------------------------------------------------------------ registration

def _bad_element_type(name: str, op, kernels: dict):
    et = op.operands[0].type.element_type if op.operands else op.results[0].type.element_type
    if getattr(et, "is_quantized", False) or any(getattr(r.type, "element_type", None) is not None
                                                 and r.type.element_type.is_quantized for r in op.results):
        raise Unsupported("quantized element types are not implemented yet", op=name, location=op.location)
    raise OracleError(f"element type {et} is not allowed (allowed: {', '.join(kernels)})",
                      op=name, location=op.location, constraint="I1")


def _evaluator(name: str, arity: int, table: dict):
    """One evaluate(op, args, ctx, env) per op: dispatch on the operand element type's name."""
    def shape_mismatch(op, args):
        raise UndefinedBehavior(f"operand shapes {[a.shape for a in args]} differ at runtime",
                                op=name, location=op.location)

    if arity == 1:
        def evaluate(op, args, ctx, env):
            kernel = table.get(op.operands[0].type.element_type.name)
            if kernel is None:
                _bad_element_type(name, op, table)
            with np.errstate(all="ignore"):
                r = kernel(args[0])
            return [r if type(r) is np.ndarray else np.asarray(r)]
    else:
        def evaluate(op, args, ctx, env):
            kernel = table.get(op.operands[0].type.element_type.name)
            if kernel is None:
                _bad_element_type(name, op, table)
            a, b = args
            if a.shape != b.shape:
                shape_mismatch(op, args)
            if a.dtype != b.dtype:  # (C1) type(lhs) = type(rhs)
                raise OracleError(f"operand dtypes {a.dtype} and {b.dtype} differ", op=name,
                                  location=op.location, constraint="C1")
            with np.errstate(all="ignore"):
                r = kernel(a, b)
            return [r if type(r) is np.ndarray else np.asarray(r)]
    evaluate.__name__ = name.split(".", 1)[1]
    return evaluate


def _raiser(name: str, reason: str):
    def kernel(*xs):
        raise Unsupported(reason, op=name)
    return kernel


def same_type(et: ElementType) -> ElementType:
    return et


def component_type(et: ElementType) -> ElementType:
    """complex_element_type for complex types, the type itself otherwise (abs, real, imag)."""
    return et.component if et.is_complex else et


def elementwise(mnemonic: str, *, arity: int, kernels: dict, result=same_type, notes: str = "",
                unsupported: dict | None = None, extra: dict | None = None, **facts):
    """Register ``stablehlo.<mnemonic>``.

    ``kernels`` maps an element-type name, or a group (a tuple of names), to a kernel
    ``kernel(et, *arrays) -> array``; its keys decide ``element_types`` (the spec's Inputs table).
    ``unsupported`` maps groups the spec allows but leaves undefined to the reason given in the
    ``Unsupported`` error; those are not in ``element_types`` (nothing to generate).
    ``facts``: the record's other fields (tolerances, impl_defined, quantized, domain, ...);
    ``quantized="elementwise"`` evaluates quantized tensors by dequantize_op_quantize;
    ``extra``: the record's other hooks (``error_bound``, ``quantized_error_bound``, ...).
    """
    name = f"stablehlo.{mnemonic}"
    table = {}
    for key, kernel in kernels.items():
        for n in (key if isinstance(key, tuple) else (key,)):
            table[n] = partial(kernel, ELEMENT_TYPES[n])
    element_types = tuple(n for n in ALL if n in table)
    for key, reason in (unsupported or {}).items():
        for n in (key if isinstance(key, tuple) else (key,)):
            table[n] = _raiser(name, reason)
    evaluate = _evaluator(name, arity, table)
    if facts.get("quantized") == "elementwise":
        evaluate = dequantize_op_quantize(evaluate)
    info = OpInfo(name=name, family="elementwise", evaluate=evaluate,
                  element_types=element_types,
                  spec=mnemonic, notes=notes, extra={"arity": arity, "result_type": result, **(extra or {})},
                  **facts)
    register(info)
    return info
