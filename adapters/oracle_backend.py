"""``oracle``: the pure-numpy reference evaluator (oracle/), run in-process.

It defines the right answer, so nothing is converted or fixed up here.  Statuses:
``oracle.errors.Unsupported`` -> 'unsupported'; MLIR rejecting the text (``MlirError``
while parsing) -> 'rejected'; any other exception (OracleError, UndefinedBehavior, bugs)
-> 'error' with the exception's class name and message.  ``timeout`` is not enforced
(in-process); the oracle is assumed to terminate.
"""

from __future__ import annotations

import time

import numpy as np

from .base import Backend, GridResult, RunResult, RunStatus


class OracleBackend(Backend):
    name = "oracle"
    flushes_subnormals = False
    supports_grid = True

    def __init__(self):
        self._parsed: dict[str, object] = {}

    @staticmethod
    def _api():
        from oracle import evaluate, parse_module  # lazy: the oracle is being written alongside
        return parse_module, evaluate

    def available(self) -> tuple[bool, str]:
        try:
            self._api()
        except Exception as e:
            return False, f"oracle not importable: {type(e).__name__}: {e}"
        return True, "in-process numpy oracle"

    @staticmethod
    def _is(e: BaseException, name: str) -> bool:
        try:
            import oracle.errors as errors
        except Exception:
            return type(e).__name__ == name
        cls = getattr(errors, name, None)
        return isinstance(e, cls) if cls is not None else False

    def _module(self, program: str):
        module = self._parsed.get(program)
        if module is None:
            parse_module, _ = self._api()
            # The interpreter's test harness (interpreter.run_parallel) is an unregistered dialect.
            module = parse_module(program, allow_unregistered="interpreter." in program)
            if len(self._parsed) > 64:
                self._parsed.pop(next(iter(self._parsed)))
            self._parsed[program] = module
        return module

    def run(self, program: str, inputs: list[np.ndarray], timeout: float = 60) -> RunResult:
        return self.run_many(program, [inputs], timeout)[0]

    def run_many(self, program: str, input_sets: list[list[np.ndarray]], timeout: float = 60) -> list[RunResult]:
        t0 = time.perf_counter()
        try:
            _, evaluate = self._api()
            module = self._module(program)
        except Exception as e:
            status = RunStatus.UNSUPPORTED if self._is(e, "Unsupported") else (
                RunStatus.REJECTED if self._is(e, "MlirError") else RunStatus.ERROR)
            r = RunResult(status, None, f"{type(e).__name__}: {e}", time.perf_counter() - t0)
            return [r] + [RunResult(r.status, None, r.message) for _ in input_sets[1:]]
        results = []
        for inputs in input_sets:
            t = time.perf_counter()
            try:
                outputs = evaluate(module, list(inputs))
                dt = time.perf_counter() - t
                results.append(RunResult(RunStatus.OK, [np.asarray(o) for o in outputs], "", dt, dt))
            except Exception as e:
                status = RunStatus.UNSUPPORTED if self._is(e, "Unsupported") else RunStatus.ERROR
                results.append(RunResult(status, None, f"{type(e).__name__}: {e}", time.perf_counter() - t))
        return results

    def run_grid(self, program: str, inputs: dict, num_replicas: int, num_partitions: int, timeout: float = 60):
        """Every process of the grid (oracle.grid.evaluate_parallel): adapters.base.GridResult."""
        from oracle.grid import evaluate_parallel

        t0 = time.perf_counter()
        try:
            outputs = evaluate_parallel(self._module(program), inputs, num_replicas=num_replicas,
                                        num_partitions=num_partitions, timeout=timeout)
        except Exception as e:
            status = RunStatus.UNSUPPORTED if self._is(e, "Unsupported") else (
                RunStatus.REJECTED if self._is(e, "MlirError") else RunStatus.ERROR)
            return GridResult(status, None, f"{type(e).__name__}: {e}", time.perf_counter() - t0)
        return GridResult(RunStatus.OK, outputs, "", time.perf_counter() - t0)

    def close(self) -> None:
        self._parsed.clear()
