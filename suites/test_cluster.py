"""``shlo-conform campaign``: a 3-shard fuzz campaign on a local rq cluster with a real Redis
(campaigns across machines).  The backend's floor truncates (an injected fault): the
finding appears once in the merged summary although several shards meet it, its reproducer
replays, and the merged triage lists it as new.  Bad options are one error line, exit 2.
"""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys

import pytest

from conformance.cli import main
from suites.redis_server import redis_url  # noqa: F401 (the fixture)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FLOOR_TRUNCATES = "fault:floor-truncates"  # floor(-0.5) = -0: an injected fault (adapters/faults.py)

pytest.importorskip("rq", reason="the rq package: pip install 'stablehlo-conformance[redis]'")


def test_three_shards_on_a_local_cluster_find_an_injected_fault_once(redis_url, tmp_path):
    out = tmp_path / "campaign"
    command = [sys.executable, "-m", "conformance.cli", "campaign", "--shards", "3", "--redis", redis_url,
               "--out", str(out), "--local-workers", "3", "--", "--backend", FLOOR_TRUNCATES,
               "--ops", "floor,negate,add", "--dtypes", "f32,bf16", "--max-ops", "2", "--input-sets", "1",
               "--programs", "4"]
    done = subprocess.run(command, cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT), capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 1, (done.stdout[-3000:], done.stderr[-3000:])  # 1: new findings
    summary = json.loads((out / "summary.json").read_text())
    assert [s["state"] for s in summary["shards"]] == ["finished"] * 3, summary["shards"]
    assert all(s["programs"] > 0 for s in summary["shards"]) and summary["complete"]
    assert summary["per_mode"]["random"]["programs"] == summary["programs"] == 12  # (--ops: random DAGs)
    signatures = [f["signature"] for f in summary["findings"]]
    assert signatures and len(signatures) == len(set(signatures)) and all("|floor|" in s for s in signatures)
    written = glob.glob(str(out / "shard-*" / "findings" / "*" / "finding.json"))
    assert sorted(json.load(open(p))["signature"] for p in written) == sorted(signatures)  # once, in one shard
    # (a shard also lists what another found first, with that shard's reproducer: the owner's is merged)
    assert all(os.path.isdir(f["reproducer"]) and str(out) in f["reproducer"] and f["new"]
               for f in summary["findings"]), summary["findings"]
    reproducer = summary["findings"][0]["reproducer"]
    replay = subprocess.run([sys.executable, "-m", "conformance.cli", "repro", reproducer, "--backend", FLOOR_TRUNCATES],
                            cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT), capture_output=True, text=True,
                            timeout=300)
    assert replay.returncode == 1 and "mismatch" in replay.stdout.lower(), replay.stdout[-2000:]
    triage = json.loads((out / "triage.json").read_text())
    listed = {item["signature"]: item["verdict"] for item in triage}
    assert all(listed.get(s) == "new" for s in signatures), listed
    assert "shard 2: finished" in done.stdout and "3 signatures" not in done.stderr


@pytest.mark.parametrize("options,says", [
    (["--", "--backend", "oracle"], "--minutes M and/or --programs N"),
    (["--", "--backend", "oracle", "--minutes", "1", "--shard", "0/2"], "--shard: the campaign sets"),
    (["--", "--backend", "oracle", "--minutes", "1", "--bogus"], "unrecognized arguments: --bogus"),
])
def test_bad_campaign_options_are_one_error_line(tmp_path, capsys, options, says):
    code = main(["campaign", "--shards", "2", "--redis", "redis://127.0.0.1:1/0", "--out", str(tmp_path / "o"),
                 *options])
    err = capsys.readouterr().err
    assert code == 2 and says in err and "Traceback" not in err


def test_an_unreachable_redis_is_one_error_line(tmp_path, capsys):
    code = main(["campaign", "--shards", "2", "--redis", "redis://127.0.0.1:1/0", "--out", str(tmp_path / "o"),
                 "--", "--backend", "oracle", "--programs", "3"])
    err = capsys.readouterr().err
    assert code == 2 and "--redis redis://127.0.0.1:1/0" in err and len(err.strip().splitlines()) == 1
