"""Micro-benchmark: the oracle vs the official C++ interpreter on one small program.

``python -m conformance.bench`` prints the time per evaluation of a 20-op 16x16 f32
program of element-wise ops on the oracle (in-process) and on stablehlo-ref (the
interpreter's own time, measured inside its worker process, and the time a caller sees).
The fuzz loop evaluates millions of such programs, so per-op Python overhead matters.
"""

from __future__ import annotations

import time

import numpy as np

_OPS = ["add", "multiply", "tanh", "subtract", "maximum", "exponential", "negate", "abs", "minimum", "sine",
        "add", "multiply", "logistic", "subtract", "cosine", "maximum", "floor", "multiply", "sqrt", "add"]
_UNARY = {"tanh", "exponential", "negate", "abs", "sine", "logistic", "cosine", "floor", "sqrt"}


def program(n_ops: int = 20, side: int = 16) -> str:
    t = f"tensor<{side}x{side}xf32>"
    lines, prev = [], "%a"
    for i, name in enumerate((_OPS * (n_ops // len(_OPS) + 1))[:n_ops]):
        operands = prev if name in _UNARY else f"{prev}, %b"
        lines.append(f"  %v{i} = stablehlo.{name} {operands} : {t}")
        prev = f"%v{i}"
    return (f"func.func @main(%a: {t}, %b: {t}) -> {t} {{\n" + "\n".join(lines) +
            f"\n  return {prev} : {t}\n}}\n")


def _best_of(fn, repeat: int = 5, number: int = 200) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - start) / number)
    return best


def measure(n_ops: int = 20, side: int = 16) -> dict[str, float]:
    """Seconds per evaluation: oracle, stablehlo-ref inside its worker, stablehlo-ref as seen by the caller."""
    import oracle
    from adapters import get_backend

    text = program(n_ops, side)
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal((side, side)).astype(np.float32) for _ in range(2)]
    module = oracle.parse_module(text)
    out = {"oracle": _best_of(lambda: oracle.evaluate(module, inputs))}
    ref = get_backend("stablehlo-ref")
    try:
        ref.run(text, inputs)  # start the worker and prepare the module once
        start = time.perf_counter()
        runs = ref.run_many(text, [inputs] * 50)
        out["stablehlo-ref (caller, with IPC)"] = (time.perf_counter() - start) / len(runs)
        inside = [r.backend_seconds for r in runs if getattr(r, "backend_seconds", None)]
        out["stablehlo-ref (interpreter)"] = min(inside) if inside else float("nan")
    finally:
        ref.close()
    return out


if __name__ == "__main__":
    for name, seconds in measure().items():
        print(f"{name:<34} {seconds * 1e6:9.1f} us")
