#!/usr/bin/env python3
"""A test backend: the oracle op by op, with legitimate rounding differences and/or one wrong op.

    python suites/data/faulty_runner.py [--nudge OP,...] [--wrong OP] [--crash OP] PROGRAM INPUTS OUTPUTS

``--nudge``: float results of these ops move one ULP up (within their allowance: what another
correct implementation may return); ``--wrong``: the first element of the first result of
every ``OP`` is off (a real fault); ``--crash``: a program with this op aborts the runner
(SIGABRT, as XLA aborts on some programs).  Ops inside if/case/while are perturbed too.
``FaultyOracle`` is the same backend in process.  Follows the ``cmd:`` protocol (examples/oracle_runner.py).
"""

from __future__ import annotations

import functools
import os
import sys
from dataclasses import dataclass

import numpy as np


@dataclass
class Run:
    status: str
    outputs: list | None
    message: str = ""


def _nudged(x):
    x = np.asarray(x)
    if x.dtype.kind not in "f" and not x.dtype.name.startswith(("float", "bfloat")):
        return x
    wide = x.astype(np.float64)
    up = np.nextafter(x.astype(x.dtype), np.asarray(np.inf, dtype=x.dtype)) if x.dtype.kind == "f" else None
    if up is None:  # ml_dtypes: one ULP by the bit pattern (positive finite values only)
        bits = x.view(np.uint16 if x.dtype.itemsize == 2 else np.uint8).copy()
        ok = np.isfinite(wide) & (wide > 0)
        bits[ok] += 1
        return bits.view(x.dtype)
    return np.where(np.isfinite(wide), up, x).astype(x.dtype)


def _wrong(x):
    x = np.array(x, copy=True)
    if x.size:
        flat = x.reshape(-1)
        # integers (quantized storage too, where +-1 is within the allowance): 7 off
        step = 1 if x.dtype.kind == "f" or x.dtype.name.startswith(("float", "bfloat")) else 7
        flat[0] = np.logical_not(flat[0]) if x.dtype == bool else flat[0] + flat.dtype.type(step)
    return x


_CONTROL_FLOW = ("stablehlo.while", "stablehlo.if", "stablehlo.case")


@functools.cache
def _through_regions():
    """A context of the evaluator whose regions run op by op through ``runner._run`` (perturbed)."""
    from oracle.evaluator import Context

    class ThroughRegions(Context):
        runner = None

        def run_region(self, region, args, env=None):
            scope = dict(env or {})
            scope.update(zip(region.arguments, args))
            return self.runner._run(region.ops, scope, self.module)
    return ThroughRegions


class FaultyOracle:
    flushes_subnormals = False

    def __init__(self, nudge=(), wrong: str | None = None):
        self.nudge, self.wrong = set(nudge), wrong
        self.name = f"faulty({','.join(sorted(self.nudge))}|{wrong})"

    def evaluate(self, module, inputs) -> list:
        main = module.main
        return self._run(main.ops, dict(zip(main.arguments, inputs)), module)

    def _run(self, ops, env: dict, module) -> list:
        """``ops`` one by one, each op's results perturbed; inside if/case/while too (their
        regions run through here), like a backend that computes the ops of a loop body itself."""
        from oracle import ir
        from oracle.evaluator import Context, run_ops
        for op in ops:
            if op.name in ("func.return", "stablehlo.return"):
                return [env[v] for v in op.operands]
            if op.name in _CONTROL_FLOW:
                context = _through_regions()(module)
                context.runner = self
            else:
                context = Context(module)
            results = run_ops((op, ir.Op("func.return", op.results, ())), dict(env), context)
            if op.name in self.nudge:
                results = [_nudged(r) if isinstance(r, np.ndarray) else r for r in results]
            if op.name == self.wrong:
                results = [_wrong(results[0])] + list(results[1:])
            env.update(zip(op.results, results))
        raise ValueError("no terminator")

    def run(self, program: str, inputs, timeout: float = 60) -> Run:
        import oracle
        return Run("ok", self.evaluate(oracle.parse_module(program), list(inputs)))

    def run_many(self, program: str, input_sets, timeout: float = 60) -> list:
        return [self.run(program, inputs, timeout) for inputs in input_sets]

    def close(self):
        pass


def main(argv: list[str]) -> int:
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    import oracle
    from oracle.arrays import load_arrays, save_arrays

    nudge, wrong, crash = [], None, None
    while argv and argv[0].startswith("--"):
        flag, value, argv = argv[0], argv[1], argv[2:]
        if flag == "--nudge":
            nudge = value.split(",")
        elif flag == "--wrong":
            wrong = value
        elif flag == "--crash":
            crash = value
    program_path, inputs_path, outputs_path = argv
    inputs = load_arrays(inputs_path) if os.path.exists(inputs_path) else []
    with open(program_path) as f:
        module = oracle.parse_module(f.read(), filename=program_path)
    if crash is not None and any(op.name == crash for op in module.main.ops):
        os.abort()
    save_arrays(outputs_path, FaultyOracle(nudge, wrong).evaluate(module, inputs))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
