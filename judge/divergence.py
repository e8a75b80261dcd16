"""Portability hazards: where the spec leaves a value implementation-defined
(integer overflow, shift counts >= the bit width, float -> int of out-of-range values, ...), a
case is kept out of pass/fail (status ``implementation-defined``), but the backends' answers on
those elements are compared WITH EACH OTHER: where they disagree, a program relying on them will
not port.  ``masked_values`` keeps a backend's values on the masked elements of a case;
``divergence`` compares several backends' and describes the first disagreement."""

from __future__ import annotations

import numpy as np

from .compare import Comparison


def masked_values(comparison: Comparison | None, actual) -> list | None:
    """Per output: (flat indices of the implementation-defined elements, the backend's values
    there, the output's shape); None when nothing is masked."""
    masks = getattr(comparison, "masks", None)  # a record's own comparison (PropertyVerdict) masks nothing
    if not masks or not any(m is not None for m in masks):
        return None
    out = []
    for mask, value in zip(masks, actual):
        value = np.asarray(value)
        if mask is None or np.shape(mask) != value.shape:
            out.append((np.zeros(0, np.int64), value.reshape(-1)[:0], value.shape))
            continue
        where = np.flatnonzero(np.asarray(mask, bool))
        out.append((where, value.reshape(-1)[where], value.shape))
    return out


def _differs(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Where two backends' values differ: bit patterns, every NaN alike (a payload is not what ports)."""
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    if a.dtype != b.dtype:
        return np.ones(a.shape, bool)
    bits = a.view(f"u{a.dtype.itemsize}") != b.view(f"u{b.dtype.itemsize}") if a.dtype.itemsize in (1, 2, 4, 8) \
        else a != b
    if a.dtype.kind in "biu":
        return bits
    wide = np.complex128 if a.dtype.kind == "c" else np.float64
    with np.errstate(invalid="ignore"):
        both_nan = np.isnan(a.astype(wide)) & np.isnan(b.astype(wide))
    return bits & ~both_nan


def divergence(by_backend: dict) -> dict:
    """``by_backend``: backend name -> ``masked_values`` of one case.  {} when they agree on every
    masked element (or fewer than two backends have values); else {"backends": the backends whose
    value differs from the first's, with it, "output", "index", "values": backend -> value text,
    "elements": how many masked elements differ}."""
    named = [(name, v) for name, v in by_backend.items() if v is not None]
    if len(named) < 2:
        return {}
    (first_name, first), rest = named[0], named[1:]
    for k, (where, values, shape) in enumerate(first):
        differs = np.zeros(len(where), bool)
        disagreeing = set()
        for name, other in rest:
            if k >= len(other) or not np.array_equal(other[k][0], where):
                continue  # another case, or another mask: nothing to compare element by element
            d = _differs(values, other[k][1])
            if d.any():
                disagreeing.add(name)
            differs |= d
        if differs.any():
            j = int(np.flatnonzero(differs)[0])
            index = [int(i) for i in np.unravel_index(int(where[j]), shape)] if shape else []
            values_at = {first_name: str(values[j])}
            values_at.update({name: str(other[k][1][j]) for name, other in rest
                              if k < len(other) and np.array_equal(other[k][0], where)})
            return {"backends": [first_name, *sorted(disagreeing)], "output": k, "index": index,
                    "values": values_at, "elements": int(differs.sum())}
    return {}
