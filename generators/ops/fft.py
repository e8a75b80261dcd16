"""How fft is drawn (the oracle's evaluation: oracle/ops/fft.py).

Inputs are O(1) values scaled by a drawn power of two, sometimes a NaN or an infinity; IRFFT
inputs are mostly the spectra of real signals (Hermitian), as a real transform expects.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from oracle import ir
from oracle.numerics import round_to
from oracle.ops.fft import fft_result_shape
from oracle.registry import Signature
from oracle.types import TensorType, as_element_type, element_type, element_type_of_dtype

from . import AttributeClass, samplers
from .linalg import normal_samples, rounded_to_type, seeded_rng


def _draw_fft(draw, element_type_, fft_type=None, min_length: int = 1):
    """``fft_type``: pinned (else drawn among those the type takes); ``min_length``: the least
    fft_length (3: every length tells a transform from its inverse or conjugate)."""
    et = as_element_type(element_type_)
    if fft_type is None:
        fft_type = draw(st.sampled_from(("FFT", "IFFT", "IRFFT"))) if et.is_complex else "RFFT"
    rank_l = draw(st.integers(1, 3 if min_length == 1 else 2))
    sizes = st.sampled_from(tuple(n for n in ((1, 2, 3, 4, 5, 6, 7, 8, 12, 16) if rank_l < 3 else (1, 2, 3, 4, 5))
                                  if n >= min_length))
    lengths = tuple(draw(sizes) for _ in range(rank_l))
    batch = tuple(draw(st.lists(st.integers(0 if min_length == 1 else 1, 3), max_size=2)))
    real = et if not et.is_complex else et.component
    cplx = element_type(f"complex<{real.name}>")
    if fft_type == "IRFFT":
        operand = TensorType(batch + lengths[:-1] + (lengths[-1] // 2 + 1,), cplx)
        result = TensorType(batch + lengths, real)
    else:
        operand = TensorType(batch + lengths, et)
        result = TensorType(fft_result_shape(operand.shape, fft_type, lengths), cplx)
    attrs = {"fft_type": ir.EnumAttr("fft_type", fft_type), "fft_length": ir.DenseArray("i64", lengths)}
    return Signature((operand,), attrs, (result,))


def _draw_fft_inputs(draw, sig):
    """O(1) values (scaled by a drawn power of two), sometimes a NaN / inf; IRFFT inputs are
    mostly spectra of real signals (rfftn of a real array, made exactly Hermitian where the
    DC and Nyquist lines must be), since other inputs have no inverse under rfft."""
    (t,) = sig.operand_types
    rng = seeded_rng(draw)
    fft_type = sig.attributes["fft_type"].value
    lengths = sig.attributes["fft_length"].value
    if fft_type == "IRFFT" and draw(st.integers(0, 4)):
        signal = rng.standard_normal(t.shape[:-len(lengths)] + tuple(lengths))
        spectrum = np.fft.rfftn(signal, axes=tuple(range(-len(lengths), 0)))
        return [_hermitian_edges(rounded_to_type(spectrum, t), lengths)]
    x = normal_samples(rng, t.shape, t.element_type.is_complex) * 2.0 ** draw(st.sampled_from([0, 0, -10, 10]))
    if x.size and draw(st.integers(0, 9)) == 0:
        x.reshape(-1)[rng.integers(x.size)] = draw(st.sampled_from([np.nan, np.inf]))
    return [rounded_to_type(x, t)]


def _hermitian_edges(y: np.ndarray, lengths) -> np.ndarray:
    """Make the DC (and even-length Nyquist) planes of a rounded half spectrum exactly
    Hermitian in the outer transformed dims, P[k] = conj(P[-k mod n]), by averaging each
    with its mirror: (a + conj(b)) / 2 is exactly conj((b + conj(a)) / 2) in IEEE arithmetic,
    and rounding commutes with conj."""
    n = lengths[-1]
    outer = tuple(range(-len(lengths) + 1, 0))  # the outer transformed dims, as axes of a plane y[..., k]
    et = element_type_of_dtype(y.dtype)
    y = y.copy()
    for edge in sorted({0, n // 2} if n % 2 == 0 else {0}):
        if edge >= y.shape[-1]:
            continue
        plane = y[..., edge].astype(np.complex128)
        mirror = np.roll(np.flip(plane, axis=outer), 1, axis=outer) if outer else plane
        y[..., edge] = round_to((plane + np.conj(mirror)) / 2, et)
    return y


def _fft_class(fft_type: str) -> AttributeClass:
    """fft_type crossed with the element-type families that take it (complex: FFT, IFFT, IRFFT;
    real: RFFT), lengths >= 3."""
    def draw_signature(draw, element_type_):
        et = as_element_type(element_type_)
        if et.is_complex != (fft_type != "RFFT"):
            return None
        return _draw_fft(draw, et, fft_type, min_length=3)
    return AttributeClass(fft_type.lower(), draw_signature, _draw_fft_inputs,
                          f"fft (C2)-(C5): fft_type = {fft_type} on lengths >= 3, where a transform, its inverse and "
                          "its conjugate all differ")


samplers("stablehlo.fft", draw_signature=_draw_fft, draw_inputs=_draw_fft_inputs,
         attribute_space=tuple(_fft_class(t) for t in ("FFT", "IFFT", "RFFT", "IRFFT")))
