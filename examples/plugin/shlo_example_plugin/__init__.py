"""An example shlo-conform backend plug-in.

A backend is any object with: ``name``, ``flushes_subnormals``, ``available()``,
``supports(element_type_names)``, ``run(program, inputs, timeout)``,
``run_many(program, input_sets, timeout)`` and ``close()``, returning
``adapters.base.RunResult``s; shlo-conform gives it the defaults of the optional members
(``run_batch``, ``run_grid``, ``version()``, ...).  A plug-in may instead derive from
``adapters.base.Backend``, which declares them all.  This one evaluates programs with the stablehlo-conformance
oracle in-process; a real plug-in compiles ``program`` (MLIR text with a public @main) for
its device and runs it on ``inputs`` (numpy arrays, one per @main argument).  A backend that
can crash or hang should run its work in a subprocess (adapters/worker.py does that).
"""

from __future__ import annotations

import time


class ExampleOracleBackend:
    name = "example-oracle"
    flushes_subnormals = False  # True if the device flushes subnormals to zero

    def available(self):
        try:
            import oracle  # noqa: F401
        except ImportError as e:
            return False, f"needs stablehlo-conformance: {e}"
        return True, "example plug-in (evaluates with the oracle)"

    def supports(self, element_type_names):
        return True, ""

    def run(self, program, inputs, timeout=60):
        return self.run_many(program, [inputs], timeout)[0]

    def run_many(self, program, input_sets, timeout=60):
        import oracle
        from adapters.base import RunResult

        try:
            module = oracle.parse_module(program)
        except oracle.MlirError as e:  # the backend refuses the program: 'rejected'
            return [RunResult("rejected", None, str(e)) for _ in input_sets]
        results = []
        for inputs in input_sets:
            t0 = time.perf_counter()
            try:
                outputs = oracle.evaluate(module, list(inputs))
            except oracle.Unsupported as e:
                results.append(RunResult("rejected", None, str(e)))
            except Exception as e:  # failed while running: 'error'
                results.append(RunResult("error", None, f"{type(e).__name__}: {e}"))
            else:
                results.append(RunResult("ok", list(outputs), "", time.perf_counter() - t0))
        return results

    def close(self):
        pass


def make_backend(**kwargs):
    """The entry point: shlo-conform calls it with get_backend's keyword arguments."""
    return ExampleOracleBackend(**kwargs)
