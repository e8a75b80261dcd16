"""Portability hazards: on the elements the spec leaves to the implementation
a case is neither pass nor fail, but `run --backend a,b` compares the backends' values there
and marks the cases where they disagree ``divergent`` (results.json and the HTML report)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import adapters
from adapters.oracle_backend import OracleBackend
from conformance.cli import main
from judge.divergence import divergence

INT_MIN = np.iinfo(np.int32).min


class FillingOracle(OracleBackend):
    """The oracle, except that divide's signed overflow (INT_MIN / -1, implementation-defined:
    spec divide) gives ``fill`` -- as one real backend wraps and another traps or saturates."""

    def __init__(self, name: str, fill: int):
        super().__init__()
        self.name, self.fill = name, fill

    def run_many(self, program, input_sets, timeout=60):
        results = super().run_many(program, input_sets, timeout)
        if "stablehlo.divide" in program:
            for inputs, r in zip(input_sets, results):
                a, b = (np.asarray(x) for x in inputs)
                if r.ok and a.dtype == np.int32:
                    out = np.array(r.outputs[0], copy=True)
                    out[np.broadcast_to((a == INT_MIN) & (b == -1), out.shape)] = self.fill
                    r.outputs = [out]
        return results


@pytest.fixture
def fake_backends(monkeypatch):
    real = adapters.get_backend
    fills = {"wraps": INT_MIN, "wraps-too": INT_MIN, "saturates": np.iinfo(np.int32).max}
    monkeypatch.setattr(adapters, "get_backend",
                        lambda name, **kw: FillingOracle(name, fills[name]) if name in fills else real(name, **kw))


def _run(tmp_path, backends: str) -> dict:
    code = main(["run", "--backend", backends, "--ops", "divide", "--dtypes", "i32", "--max-examples", "1",
                 "--out", str(tmp_path), "--quiet"])
    assert code == 0
    return {b: json.load(open(tmp_path / b / "results.json")) for b in backends.split(",")}


def test_backends_that_disagree_on_masked_elements_are_divergent(tmp_path, fake_backends):
    runs = _run(tmp_path, "wraps,saturates")
    for doc in runs.values():
        assert doc["divergent"] >= 1
        case = next(c for c in doc["cases"] if c.get("divergent"))
        assert case["status"] == "implementation-defined"  # still not a failure
        d = case["divergent"]
        assert d["backends"] == ["wraps", "saturates"]
        assert d["values"] == {"wraps": str(INT_MIN), "saturates": str(np.iinfo(np.int32).max)}
    assert main(["report", str(tmp_path / "wraps" / "results.json"), str(tmp_path / "saturates" / "results.json"),
                 "--html", str(tmp_path / "r.html")]) == 0
    assert "Portability hazards" in (tmp_path / "r.html").read_text()


def test_backends_that_agree_are_not_divergent(tmp_path, fake_backends):
    runs = _run(tmp_path, "wraps,wraps-too")
    for doc in runs.values():
        assert doc["divergent"] == 0
        assert any(c["status"] == "implementation-defined" for c in doc["cases"])
        assert not any(c.get("divergent") for c in doc["cases"])


def test_divergence_compares_masked_values_nan_alike():
    where = np.array([0, 2])
    f = np.array([np.nan, 1.0], np.float32)
    g = np.array([-np.nan, 1.0], np.float32)  # another NaN: not what ports
    assert divergence({"a": [(where, f, (3,))], "b": [(where, g, (3,))]}) == {}
    h = np.array([np.nan, 2.0], np.float32)
    d = divergence({"a": [(where, f, (3,))], "b": [(where, g, (3,))], "c": [(where, h, (3,))]})
    assert d["backends"] == ["a", "c"] and d["index"] == [2] and d["elements"] == 1
    assert divergence({"a": [(where, f, (3,))], "b": None}) == {}  # one backend with masked values


def test_junit_of_several_backends_holds_one_suite_per_backend(tmp_path, fake_backends):
    junit = tmp_path / "all.xml"
    assert main(["run", "--backend", "wraps,saturates", "--ops", "divide", "--dtypes", "i32", "--max-examples", "1",
                 "--out", str(tmp_path / "out"), "--junit", str(junit), "--quiet"]) == 0
    suites = ET.parse(junit).getroot().findall("testsuite")
    assert sorted(s.get("name") for s in suites) == ["saturates.differential", "wraps.differential"]
    assert all(int(s.get("tests")) >= 1 for s in suites)
