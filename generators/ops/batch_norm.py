"""How batch_norm_inference, batch_norm_training and batch_norm_grad are drawn (the oracle's
evaluation: oracle/ops/batch_norm.py).

The data is centered, offset or of a wide range (a drawn kind), the statistics the data's own or
a few drawn ones, sometimes with a NaN.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from oracle import ir
from oracle.registry import Signature
from oracle.types import TensorType, as_element_type

from . import samplers
from .linalg import rounded_to_type, seeded_rng


def _draw_batch_norm(draw, element_type, kind: str) -> Signature:
    shapes = draw.shapes
    et = as_element_type(element_type)
    shape = draw(shapes(min_rank=1, max_rank=4, max_side=6))
    fi = draw(st.integers(0, len(shape) - 1))
    epsilon = draw(st.sampled_from([0.001, 0.0001, 0.5, 0.0]))  # (ir.FloatAttr prints 1e-05 unparsably)
    t = TensorType(shape, et)
    f = TensorType((shape[fi],), et)
    attrs = {"epsilon": ir.FloatAttr(epsilon, "f32"), "feature_index": ir.IntegerAttr(fi, "i64")}
    if kind == "inference":
        return Signature((t, f, f, f, f), attrs, (t,))
    if kind == "training":
        return Signature((t, f, f), attrs, (t, f, f))
    return Signature((t, f, f, f, t), attrs, (t, f, f))


_DATA_KINDS = ("centered", "centered", "offset", "wide_range")


def _inputs_for(kind: str):
    return lambda draw, sig: _draw_batch_norm_inputs(draw, sig, kind)


def _draw_batch_norm_inputs(draw, sig, op_kind: str) -> list[np.ndarray]:
    """Operands N(0, 1), or around a large mean (1000: where the one-pass variance formula
    E[x^2] - E[x]^2 cancels), or with a wide exponent range; scale / offset N(0, 1); mean,
    variance the data's own statistics (variance > 0) or a few drawn ones; sometimes a NaN."""
    rng = seeded_rng(draw)
    kind = draw(st.sampled_from(_DATA_KINDS))
    t = sig.operand_types[0]
    fi = int(sig.attributes["feature_index"].value)

    def data(tt):
        x = rng.standard_normal(tt.shape)
        if kind == "offset":
            x = x + 1000
        elif kind == "wide_range":
            x = x * 2.0 ** rng.integers(-8, 9, tt.shape)
        return rounded_to_type(x, tt)

    def feature(tt, positive=False):
        x = np.abs(rng.standard_normal(tt.shape)) + 0.25 if positive else rng.standard_normal(tt.shape)
        return rounded_to_type(x, tt)

    x = data(t)
    axes = tuple(d for d in range(len(t.shape)) if d != fi)
    wide = x.astype(np.float64)
    with np.errstate(all="ignore"):
        stats = (wide.mean(axis=axes) if x.size else np.zeros(t.shape[fi]),
                 wide.var(axis=axes) + 0.25 if x.size else np.ones(t.shape[fi]))
    f_t = TensorType((t.shape[fi],), t.element_type)
    if op_kind == "training":  # operand, scale, offset
        inputs = [x, feature(f_t), feature(f_t)]
    elif op_kind == "inference":  # operand, scale, offset, mean, variance
        inputs = [x, feature(f_t), feature(f_t), rounded_to_type(stats[0], f_t), rounded_to_type(stats[1], f_t)]
    else:  # grad: operand, scale, mean, variance, grad_output
        inputs = [x, feature(f_t), rounded_to_type(stats[0], f_t), rounded_to_type(stats[1], f_t),
                  rounded_to_type(rng.standard_normal(t.shape), t)]
    if x.size and draw(st.integers(0, 9)) == 0:
        x.reshape(-1)[rng.integers(x.size)] = np.nan
    return inputs


samplers("stablehlo.batch_norm_inference", draw_signature=lambda draw, et: _draw_batch_norm(draw, et, "inference"),
         draw_inputs=_inputs_for("inference"))
samplers("stablehlo.batch_norm_training", draw_signature=lambda draw, et: _draw_batch_norm(draw, et, "training"),
         draw_inputs=_inputs_for("training"))
samplers("stablehlo.batch_norm_grad", draw_signature=lambda draw, et: _draw_batch_norm(draw, et, "grad"),
         draw_inputs=_inputs_for("grad"))
