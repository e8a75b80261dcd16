"""The default plan against the registry: every op of the registry is planned on every element
type its record takes (and every quantized storage type where its quantized form is drawn), or
``generators.cases.NOT_PLANNED`` names the reason, which ``run`` prints when nothing is left to
run and ``certify`` lists as not certified."""

from __future__ import annotations

import json

import numpy as np

import oracle
from conformance.cli import main as cli
from conformance.run import not_planned, plan
from generators.cases import NOT_PLANNED, draw_cases
from generators.ops import samplers_of
from generators.quantized import QUANTIZED_KEYS, quantized_form_supported


def test_every_op_is_planned_or_names_why_not():
    registry = oracle.all_ops()
    planned: dict[str, set] = {}
    for info, et in plan():
        planned.setdefault(info.name, set()).add(et)
    for name, info in registry.items():
        if name in NOT_PLANNED:
            assert name not in planned, f"{name} is planned and also said not to be"
            assert len(NOT_PLANNED[name]) > 20, name
            continue
        assert name in planned, f"{name} is neither planned nor in NOT_PLANNED"
        expected = set(info.element_types) | (set(QUANTIZED_KEYS) if quantized_form_supported(info) else set())
        expected |= set(samplers_of(info).plan_keys or ())
        assert planned[name] == expected, name
    assert set(NOT_PLANNED) <= set(registry), sorted(set(NOT_PLANNED) - set(registry))


def test_uniform_dequantize_is_planned_on_every_storage_type():
    pairs = plan(["uniform_dequantize"])
    assert [et for _, et in pairs] == list(QUANTIZED_KEYS)
    for info, key in pairs:
        cases = draw_cases(info, key, 2, 0)
        assert cases
        for case in cases:
            (out,) = oracle.evaluate(oracle.parse_module(case.program), list(case.inputs))
            assert np.asarray(out).dtype.kind == "f"  # the expressed type


def test_run_names_the_reason_when_nothing_is_planned(capsys):
    assert cli(["run", "--backend", "oracle", "--ops", "tuple", "--out", "/dev/null/never"]) == 2
    err = capsys.readouterr().err
    assert "nothing to run" in err and NOT_PLANNED["stablehlo.tuple"] in err


def test_certify_lists_the_ops_not_planned(tmp_path):
    out = tmp_path / "certify"
    cli(["certify", "--backend", "oracle", "--ops", "uniform_dequantize,replica_id", "--max-examples", "1",
         "--out", str(out), "--quiet"])
    summary = json.loads((out / "summary.json").read_text())
    assert summary["not_planned"] == not_planned(["replica_id"]) == {
        "stablehlo.replica_id": NOT_PLANNED["stablehlo.replica_id"]}
    assert "NOT CERTIFIED, no one-op case is drawn: 1 ops" in (out / "summary.txt").read_text()
    assert any(k.startswith("uniform_dequantize:") for k in summary["differential"]["conforms"])
