"""Vendor paths: the ``cmd:`` subprocess protocol (adapters/cmd.py) with the worked example
runner of docs/adding-a-backend.md (examples/oracle_runner.py), its exit-status convention, and
a backend plug-in installed from examples/plugin/ through the ``shlo_conform.backends`` entry-point group.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

from adapters import all_backend_names, get_backend
from adapters.cmd import CmdBackend
from adapters.plugins import PluginBackend
from generators.ops import samplers_of

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNNER = f"cmd:{sys.executable} {REPO}/examples/oracle_runner.py {{program}} {{inputs}} {{outputs}}"

ADD = """func.func public @main(%a: tensor<3xbf16>, %b: tensor<3xbf16>) -> (tensor<3xbf16>, tensor<i1>) {
  %0 = stablehlo.add %a, %b : tensor<3xbf16>
  %t = stablehlo.constant dense<true> : tensor<i1>
  return %0, %t : tensor<3xbf16>, tensor<i1>
}"""
ADD_INPUTS = [np.array([1.5, -2, 256], ml_dtypes.bfloat16), np.array([2, 0.5, 1], ml_dtypes.bfloat16)]
ADD_OUTPUT = np.array([3.5, -1.5, 256], ml_dtypes.bfloat16)  # 257 is a tie in bf16: to even, 256


def shell_runner(script: str) -> CmdBackend:
    """A runner that ignores its arguments and runs ``script`` (exercises the exit convention)."""
    return CmdBackend(f": {{program}} {{inputs}} {{outputs}}; {script}")


# ------------------------------------------------------------------ the cmd: protocol

def test_oracle_runner_computes_and_round_trips_bf16():
    backend = get_backend(RUNNER)
    assert backend.name == RUNNER and backend.available()[0]
    r = backend.run(ADD, ADD_INPUTS)
    assert r.status == "ok", r
    assert r.outputs[0].dtype == ADD_OUTPUT.dtype and r.outputs[0].tobytes() == ADD_OUTPUT.tobytes()
    assert r.outputs[1].dtype == np.bool_ and r.outputs[1].shape == () and bool(r.outputs[1])


def test_oracle_runner_rejects_what_does_not_parse():
    r = get_backend(RUNNER).run(ADD.replace("stablehlo.add", "stablehlo.bogus"), ADD_INPUTS)
    assert r.status == "rejected" and "bogus" in r.message, r


@pytest.mark.parametrize("script, status, words", [
    ("echo cannot compile that >&2; exit 3", "rejected", "cannot compile that"),
    ("echo device lost >&2; exit 4", "error", "device lost"),
    ("kill -SEGV $$", "crash", "SIGSEGV"),
    ("exit 1", "crash", "exit status 1"),
    ("exit 0", "error", "unreadable"),  # exit 0 but no outputs written
])
def test_exit_status_convention(script, status, words):
    r = shell_runner(script).run(ADD, ADD_INPUTS, timeout=30)
    assert r.status == status and words in r.message, r


def test_timeout_kills_the_runner():
    r = shell_runner("sleep 30").run(ADD, ADD_INPUTS, timeout=0.5)
    assert r.status == "timeout" and r.seconds < 30, r  # killed, not waited for


def test_template_checks():
    with pytest.raises(ValueError, match="{program}"):
        get_backend("cmd:my-runner {inputs}")
    ok, why = get_backend("cmd:no-such-runner-xyz {program} {inputs} {outputs}").available()
    assert not ok and "no-such-runner-xyz" in why


def test_cli_run_with_the_runner(tmp_path):
    from conformance.cli import main
    code = main(["run", "--backend", RUNNER, "--ops", "add,select", "--dtypes", "f32,i1",
                 "--max-examples", "1", "--out", str(tmp_path), "--quiet"])
    data = json.loads((tmp_path / "results.json").read_text())
    # per op x element type pair: the special-value case, then one drawn case; and select's
    # attribute classes once per element-type family (i1 and f32 are two)
    classes = len(samplers_of("stablehlo.select").attribute_space)
    assert data["backend"] == RUNNER and len(data["cases"]) == 2 * 4 + 2 * classes
    assert code == 0 and set(data["summary"]) <= {"pass", "implementation-defined"}, data["summary"]


# ------------------------------------------------------------------ entry-point plug-ins

@pytest.fixture(scope="module")
def installed_plugin(tmp_path_factory):
    """examples/plugin installed into a private folder (a real pip install), put on sys.path."""
    src = tmp_path_factory.mktemp("plugin-src") / "plugin"
    shutil.copytree(os.path.join(REPO, "examples", "plugin"), src)  # pip builds in place: keep the repo clean
    target = tmp_path_factory.mktemp("plugin-site")
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target),
                           str(src)], capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        pytest.fail(f"pip could not install examples/plugin:\n{proc.stderr[-2000:]}")
    sys.path.insert(0, str(target))
    importlib.invalidate_caches()
    yield target
    sys.path.remove(str(target))
    sys.modules.pop("shlo_example_plugin", None)
    importlib.invalidate_caches()


def test_plugin_is_found_and_runs(installed_plugin):
    assert "example-oracle" in all_backend_names()
    backend = get_backend("example-oracle")
    assert backend.name == "example-oracle" and backend.available()[0]
    assert isinstance(backend, PluginBackend)  # (the example does not derive from adapters.base.Backend)
    r = backend.run(ADD, ADD_INPUTS)
    assert r.status == "ok" and r.outputs[0].tobytes() == ADD_OUTPUT.tobytes(), r


def test_backends_command_lists_the_plugin(installed_plugin, monkeypatch, capsys):
    from adapters import registry
    from conformance.cli import main
    assert main(["backends"]) == 0
    line = next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("example-oracle"))
    assert " installed " in line and "shlo-conform-example-plugin 0.1.0" in line
    monkeypatch.setattr(registry, "BUILT_IN", {"oracle": registry.BUILT_IN["oracle"]})  # (start no built-in worker)
    assert main(["backends", "--check"]) == 0
    lines = capsys.readouterr().out.splitlines()
    line = next(ln for ln in lines if ln.startswith("example-oracle"))
    assert " usable " in line and "shlo-conform-example-plugin 0.1.0" in line and "shlo_example_plugin:make_backend" in line
    assert any(ln.startswith("cmd:") for ln in lines)


def test_unknown_backend_names_the_plugins(installed_plugin):
    with pytest.raises(ValueError, match="example-oracle"):
        get_backend("tpu-magic")
