"""The oracle recognises element types by what they are, so arrays that arrived from another
process (pickled, whose dtypes are copies: ``isbuiltin`` 0 even for complex128) evaluate exactly
as the originals: every registered op, on a drawn case of its hardest element types, with its
inputs sent through a ``multiprocessing`` pool and back."""

from __future__ import annotations

import multiprocessing
import pickle

import numpy as np

from generators.cases import random_example
from generators.ops import samplers_of
from generators.programs import one_op_programs
from oracle import all_ops, evaluate
from oracle.errors import OracleError
from oracle.ops.reductions import _windows
from oracle.types import element_type, is_extension_dtype


def _same(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def _echo(arrays):
    return arrays


def test_pickled_dtypes_are_recognised():
    for name in ("complex<f64>", "f32", "bf16", "i4", "f8E5M2"):
        dtype = element_type(name).dtype
        copy = pickle.loads(pickle.dumps(np.zeros(2, dtype))).dtype
        assert is_extension_dtype(copy) == is_extension_dtype(dtype) == (name in ("bf16", "i4", "f8E5M2"))
    z = pickle.loads(pickle.dumps(np.arange(6, dtype=np.complex128).reshape(2, 3)))
    assert z.dtype.isbuiltin == 0  # the premise: a pickled builtin dtype is a copy
    windows = _windows(z, (1, 2), (1, 1), (1, 1), (2, 2))  # failed with "data type 'u16' not understood"
    assert windows.shape == (2, 2, 2) and windows.dtype == np.complex128


def _hardest_types(info) -> list[str]:
    """complex<f64> (a builtin dtype of 16 bytes) and the first ml_dtypes type the op takes."""
    types = list(info.element_types)
    picks = [t for t in types if t == "complex<f64>"]
    picks += [t for t in types if is_extension_dtype(element_type(t).dtype)][:1]
    return picks or types[:1]


def _cases():
    out = []
    for name, info in sorted(all_ops().items()):
        if samplers_of(info).draw_signature is None:
            continue
        for t in _hardest_types(info):
            out.append((name, t))
    return out


def test_every_op_evaluates_pickled_inputs_as_the_originals():
    cases = []
    for name, t in _cases():
        try:
            case = random_example(one_op_programs(all_ops()[name], t), seed=5)
        except Exception:  # noqa: BLE001 - an op whose drawing needs more than a type: not this test's subject
            continue
        if case is None or isinstance(case.inputs, dict):  # grid cases: per-process inputs
            continue
        cases.append((name, t, case))
    assert len(cases) >= 80, len(cases)
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        sent = pool.map(_echo, [list(c.inputs) for _, _, c in cases])
    checked = 0
    for (name, t, case), arrays in zip(cases, sent):
        try:
            direct = evaluate(case.module, list(case.inputs))
        except OracleError:
            continue
        through = evaluate(case.module, arrays)
        assert len(direct) == len(through)
        for i, (d, p) in enumerate(zip(direct, through)):
            assert _same(d, p), f"{name} {t} output {i}: pickled inputs give another result"
        checked += 1
    assert checked >= 80, checked
