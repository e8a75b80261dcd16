"""The backend interface: what every backend offers, and a plug-in's object that does not derive
from ``adapters.base.Backend`` wrapped with Backend's defaults for what it does not offer.
"""

from __future__ import annotations

import numpy as np
import pytest

from adapters import get_backend
from adapters.base import RunResult
from adapters.plugins import PluginBackend, load_plugin

NEGATE = "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = stablehlo.negate %a : tensor<2xf32>\n" \
         "  return %0 : tensor<2xf32>\n}\n"


class Bare:
    """A plug-in's backend with the plug-in protocol's members only."""
    name, flushes_subnormals = "bare", True

    def __init__(self):
        self.calls, self.closed = [], False

    def available(self):
        return True, "bare"

    def supports(self, element_type_names):
        return "f64" not in element_type_names, "no f64"

    def run(self, program, inputs, timeout=60):
        self.calls.append(len(inputs))
        return RunResult("ok", [-inputs[0]])

    def run_many(self, program, input_sets, timeout=60):
        return [self.run(program, inputs, timeout) for inputs in input_sets]

    def close(self):
        self.closed = True


class Batching(Bare):
    """A plug-in's backend with some of the optional members too."""
    batch_size, version = 8, "2.5"

    def __init__(self):
        super().__init__()
        self.batches, self.jobs = [], 1

    def run_batch(self, programs, input_sets, timeout=60):
        self.batches.append(len(programs))
        return [self.run(p, s, timeout) for p, s in zip(programs, input_sets)]

    def set_jobs(self, jobs):
        self.jobs = jobs


class EntryPoint:
    def __init__(self, factory):
        self.factory = factory

    def load(self):
        return self.factory


@pytest.fixture()
def plugged(monkeypatch):
    """Plug-ins named "bare" and "batching" (entry points faked: nothing is installed)."""
    from adapters import plugins
    monkeypatch.setattr(plugins, "entry_points", lambda: {"bare": EntryPoint(Bare), "batching": EntryPoint(Batching)})


def test_a_plugin_object_gets_the_defaults_of_what_it_does_not_offer(plugged):
    backend = get_backend("bare")
    assert isinstance(backend, PluginBackend) and isinstance(backend.plugged, Bare)
    assert backend.name == "bare" and backend.flushes_subnormals is True and backend.available() == (True, "bare")
    assert backend.supports({"f64"}) == (False, "no f64")
    x = np.array([1, 2], np.float32)
    runs = backend.run_batch([NEGATE, NEGATE], [[x], [x]])  # one run per case
    assert [r.outputs[0].tolist() for r in runs] == [[-1, -2], [-1, -2]] and backend.plugged.calls == [1, 1]
    assert (backend.batch_size, backend.supports_grid, backend.takes_concurrent_callers, backend.restartable) == (
        0, False, False, False)
    assert backend.version() == "" and backend.worker_restarts() == 0 and backend.batch_stats is None
    with pytest.raises(NotImplementedError, match="bare cannot run a process grid"):
        backend.run_grid(NEGATE, {}, 2, 1)
    backend.set_jobs(4)
    backend.restart()  # (nothing to restart)
    backend.close()
    assert backend.plugged.closed


def test_a_plugin_object_keeps_the_optional_members_it_offers(plugged):
    backend = get_backend("batching")
    assert isinstance(backend, PluginBackend) and backend.batch_size == 8 and backend.version() == "2.5"
    assert backend.takes_concurrent_callers and not backend.restartable
    backend.set_jobs(3)
    x = np.array([1, 2], np.float32)
    backend.run_batch([NEGATE, NEGATE, NEGATE], [[x], [x], [x]])
    assert backend.plugged.batches == [3] and backend.plugged.jobs == 3


def test_a_plugin_deriving_from_backend_is_not_wrapped(monkeypatch):
    from adapters import plugins
    from adapters.oracle_backend import OracleBackend
    monkeypatch.setattr(plugins, "entry_points", lambda: {"my-oracle": EntryPoint(OracleBackend)})
    backend = load_plugin("my-oracle")
    assert type(backend) is OracleBackend and backend.name == "my-oracle"
