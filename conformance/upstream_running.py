"""Running a standalone reproducer script the way a compiler engineer would: without this suite.

``run_script`` starts it in an isolated interpreter (``python -I``: no PYTHONPATH, no user
site, not the current folder) from its own folder, and fails loudly if the script imported any
of this suite's packages after all (an editable install of the suite is on every path of the
venv it was written in: a clean venv, conformance/upstream_versions.py, leaves it out too).
"""

from __future__ import annotations

import os
import subprocess
import sys

#: This suite's top-level packages: a standalone script imports none of them.
SUITE_PACKAGES = ("oracle", "judge", "adapters", "generators", "reports", "conformance")

_GUARD = """
import runpy, sys
script = sys.argv[1]
sys.argv = sys.argv[1:]
code = 0
try:
    runpy.run_path(script, run_name="__main__")
except SystemExit as e:
    code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
suite = sorted({m.split(".")[0] for m in sys.modules} & set(SUITE))
if suite:
    print("standalone reproducer imported this suite's " + ", ".join(suite), file=sys.stderr)
    sys.exit(3)
sys.exit(code)
"""


class NotStandalone(RuntimeError):
    """The script imported this suite."""


def run_script(script: str, *args: str, python: str | None = None, timeout: float = 900,
               env: dict | None = None) -> tuple[int, str]:
    """(exit status, stdout + stderr) of ``python -I script args``, from the script's folder."""
    guard = f"SUITE = {SUITE_PACKAGES!r}\n" + _GUARD
    environment = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "XLA_FLAGS")}
    environment.update(env or {})
    try:
        done = subprocess.run([python or sys.executable, "-I", "-c", guard, os.path.abspath(script), *args],
                              cwd=os.path.dirname(os.path.abspath(script)), capture_output=True, text=True,
                              timeout=timeout, env=environment)
    except subprocess.TimeoutExpired:
        return 124, f"timed out after {timeout:.0f} s"
    output = (done.stdout + done.stderr).strip()
    if done.returncode == 3 and "imported this suite" in output:
        raise NotStandalone(output.splitlines()[-1])
    return done.returncode, output
