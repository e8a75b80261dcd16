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


if __name__ == "__main__" and "--dot-conv" not in __import__("sys").argv:
    for name, seconds in measure().items():
        print(f"{name:<34} {seconds * 1e6:9.1f} us")


# ------------------------------------------------------------------ dot_general / convolution

def dot_program(side: int = 256) -> str:
    t = f"tensor<{side}x{side}xf32>"
    return (f"func.func @main(%a: {t}, %b: {t}) -> {t} {{\n"
            f'  %0 = "stablehlo.dot_general"(%a, %b) {{dot_dimension_numbers = #stablehlo.dot<'
            f"lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = "
            f"[#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]}} : ({t}, {t}) -> {t}\n"
            f"  return %0 : {t}\n}}\n")


def conv_program() -> str:
    """NHWC 1x64x64x32 input, HWIO 3x3x32x32 kernel, stride 1, padding 1 ("SAME")."""
    lt, rt, ot = "tensor<1x64x64x32xf32>", "tensor<3x3x32x32xf32>", "tensor<1x64x64x32xf32>"
    return (f"func.func @main(%a: {lt}, %b: {rt}) -> {ot} {{\n"
            f'  %0 = "stablehlo.convolution"(%a, %b) {{dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x'
            f"[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64, "
            f"padding = dense<1> : tensor<2x2xi64>, precision_config = [#stablehlo<precision HIGHEST>, "
            f"#stablehlo<precision HIGHEST>]}} : ({lt}, {rt}) -> {ot}\n"
            f"  return %0 : {ot}\n}}\n")


def measure_dot_conv(repeat: int = 5) -> dict[str, float]:
    """Seconds per evaluation of a 256x256x256 f32 dot_general and the NHWC convolution above:
    the oracle (evaluation, and evaluation + error bound) and XLA CPU through adapters/xla.py
    (time seen by the caller, worker IPC included, after a warm-up compile)."""
    import oracle
    from adapters import get_backend

    rng = np.random.default_rng(0)
    programs = {
        "dot_general 256^3 f32": (dot_program(), [rng.standard_normal((256, 256)).astype(np.float32)
                                                  for _ in range(2)]),
        "convolution 1x64x64x32 * 3x3x32x32 f32": (conv_program(), [
            rng.standard_normal((1, 64, 64, 32)).astype(np.float32),
            rng.standard_normal((3, 3, 32, 32)).astype(np.float32)]),
    }
    out: dict[str, float] = {}
    xla = get_backend("xla")
    try:
        for name, (text, inputs) in programs.items():
            module = oracle.parse_module(text)
            op_ = module.main.ops[0]
            bound = oracle.lookup(op_.name).extra["error_bound"]
            out[f"{name}: oracle"] = _best_of(lambda: oracle.evaluate(module, inputs), repeat, 1)
            out[f"{name}: oracle error bound"] = _best_of(
                lambda: bound(op_, inputs, [r.type for r in op_.results]), repeat, 1)
            xla.run(text, inputs)  # compile once (and start the worker)
            out[f"{name}: xla (caller, with IPC)"] = _best_of(lambda: xla.run(text, inputs), repeat, 3)
    finally:
        xla.close()
    return out


if __name__ == "__main__" and "--dot-conv" in __import__("sys").argv:
    for name, seconds in measure_dot_conv().items():
        print(f"{name:<62} {seconds * 1e3:9.2f} ms")


def measure_fuzz(backend_name: str = "xla", programs: int = 60, seed: int = 0, out_dir: str | None = None) -> dict:
    """Programs/s of a fuzz campaign (steady state: its findings already known) vs the raw
    compile+execute loop on the SAME programs and input sets, replayed on a fresh backend (so
    every program compiles again): the campaign's overhead is generation, the oracle and
    comparison."""
    import tempfile

    from adapters import get_backend
    from conformance.fuzz import Campaign

    out_dir = out_dir or tempfile.mkdtemp(prefix="shlo-fuzz-bench-")
    backend = get_backend(backend_name)
    try:
        # A first campaign finds and shrinks what this backend gets wrong (shrinking costs many
        # runs per new finding); the second, over the same folder, measures the steady state.
        Campaign(backend, out_dir, seed=seed, progress=False).run(max_programs=programs)
        campaign = Campaign(backend, out_dir, seed=seed + 100, progress=False)
        campaign.recorded = []
        summary = campaign.run(max_programs=programs)
    finally:
        backend.close()
    replay = get_backend(backend_name)
    try:
        replay.run("func.func @main() -> () {\n  func.return\n}", [])  # start the worker first
        started = time.perf_counter()
        for text, input_sets in campaign.recorded:
            replay.run_many(text, input_sets)
        raw = programs / (time.perf_counter() - started)
    finally:
        replay.close()
    return {"campaign programs/s": summary["programs_per_s"], "raw compile+execute programs/s": round(raw, 3),
            "ratio": round(summary["programs_per_s"] / raw, 3), "findings": len(summary["findings"]),
            "finite_output_fraction": summary["finite_output_fraction"]}


if __name__ == "__main__" and "--fuzz" in __import__("sys").argv:
    for name, value in measure_fuzz().items():
        print(f"{name:<40} {value}")
