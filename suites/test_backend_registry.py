"""The registry of built-in backends: every built-in backend is made from its record and derives
from ``adapters.base.Backend``; `shlo-conform backends` answers from the records and the
installed packages' metadata without importing jax, torch or IREE, and ``--check`` starts them.
"""

from __future__ import annotations

import os
import subprocess
import sys

from adapters import BACKEND_NAMES, Backend, get_backend, registry

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_every_built_in_backend_is_made_from_its_record():
    assert BACKEND_NAMES == tuple(registry.BUILT_IN)
    for name, record in registry.BUILT_IN.items():
        backend = get_backend(name)  # (worker backends start their worker on first use only)
        try:
            assert isinstance(backend, Backend) and backend.name == name
            assert type(backend).__name__ == record.factory and type(backend).__module__ == f"adapters.{record.module}"
        finally:
            backend.close()
    assert get_backend("fault:add-ftz").name == "fault:add-ftz"
    assert get_backend("cmd:run {program} {inputs} {outputs}").name == "cmd:run {program} {inputs} {outputs}"


def test_backends_imports_no_framework():
    """`shlo-conform backends` lists every built-in backend from the records and the packages'
    metadata: jax, torch and IREE are not imported, nor is any adapter that defines a backend
    (none is made, so no worker starts: starting them all took half a minute)."""
    script = ("import sys; from conformance.cli import main; code = main(['backends']); "
              "print(sorted({m.split('.')[0] for m in sys.modules} & {'jax', 'jaxlib', 'torch', 'iree'}"
              " | {m for m in sys.modules if m.startswith('adapters.')} - {'adapters.base', 'adapters.plugins',"
              " 'adapters.registry', 'adapters.refusals'})); sys.exit(code)")
    env = dict(os.environ, PYTHONPATH=REPO)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, env=env, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    *lines, imported = proc.stdout.splitlines()
    assert imported == "[]", imported
    listed = {line.split()[0]: line for line in lines if line.strip()}
    for name in BACKEND_NAMES:
        assert " installed " in listed[name] or " not installed " in listed[name], listed[name]
    assert "--check" in lines[-1]


def test_backends_check_starts_each_backend(monkeypatch, capsys):
    from conformance.cli import main
    monkeypatch.setattr(registry, "BUILT_IN", {"oracle": registry.BUILT_IN["oracle"]})
    assert main(["backends", "--check"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "oracle           usable  (in-process numpy oracle)"
    assert lines[-1].startswith("cmd:TEMPLATE")


def test_a_missing_package_is_named_with_how_to_install_it():
    record = registry.BuiltIn("nowhere", "oracle_backend", "OracleBackend", "a backend of nothing",
                              ("numpy", "no-such-distribution-here"), "pip install it")
    ok, why = registry.installed(record)
    assert not ok and why == "a backend of nothing; needs no-such-distribution-here: pip install it"
    ok, why = registry.installed(registry.BUILT_IN["oracle"])
    assert ok and why == "in-process numpy oracle"
