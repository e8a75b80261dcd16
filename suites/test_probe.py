"""Support probing (conformance/probe.py): answers per op x element type, separated into
rejected / mismatch / pass, cached on disk per backend and version, refreshed on demand."""

from __future__ import annotations

import json
import os
import re

import numpy as np
import pytest

from adapters.base import Backend, RunResult
from adapters.cache import cache_dir
from conformance.probe import accepts, load_support, probe, support_path
from conformance.run import plan


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SHLO_CONFORM_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


class FakeBackend(Backend):
    """Refuses i8 programs, gets f32 wrong (adds one), runs the rest on the oracle."""
    name = "fake/backend"  # odd characters must not break the cache file name
    flushes_subnormals = False
    runs = 0

    def __init__(self, version="1.0"):
        from adapters.oracle_backend import OracleBackend
        self.oracle = OracleBackend()
        self._version = version

    def version(self):
        return self._version

    def available(self):
        return True, "fake"

    def supports(self, names):
        return True, ""

    def run(self, program, inputs, timeout=60):
        FakeBackend.runs += 1
        if re.search(r"[<x]i8>", program):
            return RunResult("rejected", None, "no i8 here")
        r = self.oracle.run(program, inputs)
        if re.search(r"[<x]f32>", program) and r.ok:
            r.outputs = [o + np.float32(1) for o in r.outputs]
        return r

    def close(self):
        pass


def test_cache_dir_env(monkeypatch, private_cache):
    assert cache_dir() == str(private_cache)
    monkeypatch.setenv("SHLO_CONFORM_CACHE", "off")
    assert cache_dir() is None and support_path(FakeBackend()) is None
    monkeypatch.delenv("SHLO_CONFORM_CACHE")
    assert cache_dir().endswith(os.path.join(".cache", "shlo-conform")) or "XDG_CACHE_HOME" in os.environ


def test_probe_separates_rejected_from_mismatch_and_caches():
    backend = FakeBackend()
    pairs = plan(["negate"], ["i8", "f32", "i32"])
    support = probe(backend, pairs)["stablehlo.negate"]
    assert support["i8"]["status"] == "rejected" and support["i8"]["accepted"] is False
    assert support["f32"]["status"] == "mismatch" and support["f32"]["accepted"] is True
    assert support["i32"]["status"] == "pass" and support["i32"]["accepted"] is True
    assert "no i8 here" in support["i8"]["message"]

    path = support_path(backend)
    assert os.path.basename(path) == "support-fake_backend-1.0.json"
    data = json.load(open(path))
    assert data["backend"] == "fake/backend" and data["version"] == "1.0"
    assert accepts(backend, "negate", "i8") is False and accepts(backend, "stablehlo.negate", "i32") is True
    assert accepts(backend, "negate", "i16") is None  # not probed

    runs = FakeBackend.runs
    assert probe(backend, pairs)["stablehlo.negate"] == support  # from the cache: nothing runs
    assert FakeBackend.runs == runs
    probe(backend, pairs, refresh=True)
    assert FakeBackend.runs == runs + 3


def test_new_pairs_are_probed_on_demand_and_versions_kept_apart():
    backend = FakeBackend()
    probe(backend, plan(["negate"], ["i32"]))
    runs = FakeBackend.runs
    support = probe(backend, plan(["negate"], ["i32", "i16"]))
    assert FakeBackend.runs == runs + 1 and set(support["stablehlo.negate"]) == {"i32", "i16"}
    other = FakeBackend(version="2.0")
    assert load_support(other) == {}


def test_damaged_cache_is_probed_again():
    backend = FakeBackend()
    path = support_path(backend)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("{not json")
    assert probe(backend, plan(["negate"], ["i32"]))["stablehlo.negate"]["i32"]["status"] == "pass"


def test_cli_probe_on_the_oracle(capsys, private_cache):
    from conformance.cli import main
    assert main(["probe", "--backend", "oracle", "--ops", "add,negate", "--dtypes", "f32,i8", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "TOTAL" in out and "cache: " + str(private_cache) in out
    files = os.listdir(private_cache)
    assert len(files) == 1 and files[0].startswith("support-oracle-")
    pairs = json.load(open(private_cache / files[0]))["pairs"]
    assert {e["status"] for by in pairs.values() for e in by.values()} <= {"pass", "implementation-defined"}
