"""``cmd:TEMPLATE``: a backend that is any program, run once per input set.

    shlo-conform run --backend 'cmd:my-runner {program} {inputs} {outputs}'

For each run the tool writes the program (``program.mlir``: MLIR text with a public
``@main``) and the inputs (``inputs.npz``: the arguments of @main in order, written by
oracle/arrays.py: keys ``arg0``, ``arg1``, ... plus ``__dtypes__``, a JSON list of element type
names, so bf16 / f8 / i4 survive as raw bits) into a fresh folder, substitutes the
shell-quoted paths for ``{program}``, ``{inputs}`` and ``{outputs}`` in TEMPLATE, and runs it
with ``/bin/sh -c`` in the current directory (relative paths in TEMPLATE work as typed).  The runner writes the results of @main to ``{outputs}`` in
the same format (``oracle.arrays.save_arrays``; a plain ``np.savez`` of numpy-typed arrays
named in order works too).

Exit status convention (stderr becomes the message):

====================  ==========================================================
0                     ``ok``: the outputs file must exist and load (else ``error``)
3                     ``rejected``: the runner refuses the program (compile error, type it lacks)
4                     ``error``: the backend failed while running the program
killed by a signal    ``crash`` (names the signal)
any other status      ``crash``
no exit in time       ``timeout`` (the runner's process group is killed)
====================  ==========================================================

examples/oracle_runner.py is a complete runner (it shells out to the oracle).
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import tempfile
import time

import numpy as np

from oracle.arrays import load_arrays, save_arrays

from .base import Backend, RunResult, RunStatus

EXIT_REJECTED, EXIT_ERROR = 3, 4
PLACEHOLDERS = ("{program}", "{inputs}", "{outputs}")


class CmdBackend(Backend):
    flushes_subnormals = False  # unknown for an arbitrary runner: compare exactly

    def __init__(self, template: str, *, env: dict[str, str] | None = None):
        template = template.strip()
        missing = [p for p in ("{program}", "{outputs}") if p not in template]
        if not template or missing:
            raise ValueError(f"cmd backend: the command must contain {' and '.join(missing or PLACEHOLDERS)} "
                             f"(got {template!r}); e.g. cmd:'my-runner {{program}} {{inputs}} {{outputs}}'")
        self.template = template
        self.name = f"cmd:{template}"
        self.env = dict(env or {})

    def available(self) -> tuple[bool, str]:
        try:
            first = shlex.split(self.template)[0]
        except (ValueError, IndexError) as e:
            return False, f"cannot split the command: {e}"
        if shutil.which(first) is None and not os.path.exists(first):
            return False, f"{first!r} not found on PATH"
        return True, f"external runner: {self.template}"

    def _command(self, folder: str) -> str:
        paths = {p: shlex.quote(os.path.join(folder, p.strip("{}") + (".mlir" if p == "{program}" else ".npz")))
                 for p in PLACEHOLDERS}
        command = self.template
        for placeholder, path in paths.items():
            command = command.replace(placeholder, path)
        return command

    def run(self, program: str, inputs: list[np.ndarray], timeout: float = 60) -> RunResult:
        return self.run_many(program, [inputs], timeout)[0]

    def run_many(self, program: str, input_sets: list[list[np.ndarray]], timeout: float = 60) -> list[RunResult]:
        with tempfile.TemporaryDirectory(prefix="shlo-cmd-") as folder:
            with open(os.path.join(folder, "program.mlir"), "w") as f:
                f.write(program)
            return [self._run_one(folder, inputs, timeout) for inputs in input_sets]

    def _run_one(self, folder: str, inputs: list[np.ndarray], timeout: float) -> RunResult:
        outputs_path = os.path.join(folder, "outputs.npz")
        if os.path.exists(outputs_path):
            os.unlink(outputs_path)
        try:
            save_arrays(os.path.join(folder, "inputs.npz"), list(inputs))
        except Exception as e:
            return RunResult(RunStatus.ERROR, None, f"adapter: cannot write the inputs: {type(e).__name__}: {e}")
        env = dict(os.environ, **self.env)
        t0 = time.perf_counter()
        proc = subprocess.Popen(["/bin/sh", "-c", self._command(folder)], env=env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True)
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return RunResult(RunStatus.TIMEOUT, None, f"no exit within {timeout} s; runner killed",
                             time.perf_counter() - t0)
        seconds = time.perf_counter() - t0
        code = proc.returncode
        message = _tail((err or b"").decode("utf-8", "replace") or (out or b"").decode("utf-8", "replace"))
        if code == 0:
            try:
                outputs = load_arrays(outputs_path)
            except Exception as e:
                return RunResult(RunStatus.ERROR, None, f"runner exited 0 but {outputs_path} is unreadable: "
                                                f"{type(e).__name__}: {e}", seconds)
            return RunResult(RunStatus.OK, outputs, "", seconds)
        if code == EXIT_REJECTED:
            return RunResult(RunStatus.REJECTED, None, message, seconds)
        if code == EXIT_ERROR:
            return RunResult(RunStatus.ERROR, None, message, seconds)
        if code < 0 or code > 128:  # the shell reports a signal as 128 + n
            n = -code if code < 0 else code - 128
            try:
                how = f"killed by {signal.Signals(n).name} (signal {n})"
            except ValueError:
                how = f"exit status {code}"
        else:
            how = f"exit status {code}"
        return RunResult(RunStatus.CRASH, None, f"runner {how}" + (f"; stderr:\n{message}" if message else ""), seconds)


def _tail(text: str, lines: int = 20) -> str:
    kept = [ln for ln in text.strip().splitlines() if ln.strip()]
    if len(kept) > lines:
        kept = kept[:5] + ["..."] + kept[-(lines - 6):]
    return "\n".join(ln[:500] for ln in kept)
