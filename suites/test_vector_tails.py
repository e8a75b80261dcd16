"""Special values reach vector tails: a kernel vectorized over 4 / 8 / 16 lanes computes the
elements past its last full vector in a separate epilogue (XLA CPU's f32 log of a subnormal is
wrong only there: judge/deviations/xla.toml), so the special-value case of a one-operand op ends
in a tail of its hardest values (generators.tensors.special_value_cross), and the default run
catches a tail-only bug (adapters/faults.py: log-tail-flushes-subnormals) on every float family."""

import numpy as np
import pytest

from adapters import get_backend
from conformance.cli import build_parser
from conformance.run import plan, run_differential
from generators.tensors import VECTOR_TAIL, special_value_cross, special_values
from oracle.types import element_type

FLOAT_FAMILIES = ["f32", "bf16", "f16", "f64"]


def _bits(a) -> list[int]:
    a = np.ascontiguousarray(a)
    return a.view(f"u{a.dtype.itemsize}").tolist()


@pytest.mark.parametrize("name", FLOAT_FAMILIES)
def test_float_tail_holds_subnormals_negative_zero_and_nan(name):
    et = element_type(name)
    (v,) = special_value_cross([et])
    assert v.size % VECTOR_TAIL == VECTOR_TAIL - 1  # a 15 / 7 / 3-element tail past 16 / 8 / 4 lanes
    tiny = float(et.finfo.smallest_subnormal)
    wanted = np.array([tiny, -0.0, np.nan, -tiny], dtype=np.float64).astype(et.dtype)
    tail8 = v[-(v.size % 8):]
    assert set(_bits(wanted)) <= set(_bits(tail8))
    assert set(_bits(wanted[:3])) == set(_bits(v[-3:]))  # the 4-lane tail: +min subnormal, -0, NaN
    # the body still holds every special value once, in its old place
    body = special_values(et)
    assert _bits(v[:body.size]) == _bits(body)
    assert set(_bits(v[body.size:])) <= set(_bits(body))


def test_integer_tail_holds_the_extremes_and_shift_counts():
    (v,) = special_value_cross([element_type("i32")])
    assert v.size % VECTOR_TAIL == VECTOR_TAIL - 1
    assert {-2**31, -1, 2**31 - 1, 0, 32, 1, 31} == set(v[-7:].tolist())


def test_the_binary_cross_is_unchanged():
    et = element_type("f32")
    a, b = special_value_cross([et, et])
    assert a.size == b.size == special_values(et).size ** 2


def _run_log(name: str, x: np.ndarray) -> np.ndarray:
    t = f"tensor<{x.size}x{name}>"
    text = (f'func.func @main(%a: {t}) -> {t} {{\n  %r = "stablehlo.log"(%a) : ({t}) -> {t}\n'
            f'  "func.return"(%r) : ({t}) -> ()\n}}\n')
    return np.asarray(get_backend("fault:log-tail-flushes-subnormals").run(text, [x]).outputs[0])


def test_fault_flushes_only_the_tail():
    tiny = np.float32(np.finfo(np.float32).smallest_subnormal)
    out = _run_log("f32", np.full(13, tiny, np.float32))
    body = np.float32(np.log(np.float64(tiny)))  # -103.28 (exact, rounded to f32)
    assert np.array_equal(out[:8], np.full(8, body))  # the first full 8-lane vector: right
    assert np.array_equal(out[8:], np.full(5, -np.inf, np.float32))  # the 5-element tail: log(0)
    assert np.array_equal(_run_log("f32", np.full(16, tiny, np.float32)), np.full(16, body))  # no tail


def _caught_types(fault: str, op: str, types: list[str]) -> set[str]:
    """The types on which ``shlo-conform run --backend fault:NAME --ops OP`` at the CLI's default
    budget reports a mismatch."""
    budget = build_parser().parse_args(["run", "--backend", "oracle"]).max_examples
    results = run_differential(get_backend(f"fault:{fault}"), plan([op], types), max_examples=budget, seed=0,
                               progress=False)
    return {r.dtypes[0] for r in results if r.status == "mismatch"}


def test_default_run_catches_a_tail_only_bug_on_every_float_family():
    """Before the tail (special values in a 145 / 153-element tensor, 1 element past the last 8-lane
    vector, and drawn shapes whose size is a multiple of 8) this fault passed on all four."""
    assert _caught_types("log-tail-flushes-subnormals", "log", FLOAT_FAMILIES) == set(FLOAT_FAMILIES)
