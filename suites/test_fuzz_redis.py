"""Shards of one fuzz campaign against a real Redis server (beyond one machine).

The set-up (suites/redis_server.py) installs ``redis-server`` from Debian's packages (``apt-get install -y
redis-server``, as root; ``apt-get update`` first when the package is not known) and starts it
on 127.0.0.1 with a free port; the test skips, saying why, where that cannot be done.  The
Python client is the ``redis`` package (the ``redis`` optional extra of pyproject.toml).

Two shard processes (``--shard 0/2``, ``--shard 1/2``) share the findings store in Redis: every
signature is claimed by exactly one of them (no duplicates across their folders), and a shard
killed with SIGKILL loses nothing it already found (its claims in Redis point at reproducers
on disk that replay).
"""

from __future__ import annotations

import glob
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from suites.redis_server import redis_url  # noqa: F401 (the fixture)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNNER = os.path.join(ROOT, "suites", "data", "faulty_runner.py")
NEGATE_WRONG = f"cmd:{sys.executable} {RUNNER} --wrong stablehlo.negate {{program}} {{inputs}} {{outputs}}"
AIM = ["--ops", "negate,add,multiply,abs", "--max-ops", "3", "--input-sets", "1", "--quiet"]


def _shard(index: int, out: str, url: str, *budget: str) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "conformance.cli", "fuzz", "--backend", NEGATE_WRONG, "--shard", f"{index}/2",
           "--database", url, "--out", out, *budget, *AIM]
    return subprocess.Popen(cmd, cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def _written(out: str) -> dict:
    found = {}
    for path in glob.glob(os.path.join(out, "findings", "*", "finding.json")):
        record = json.load(open(path))
        found[record["signature"]] = record
    return found


def _stored(url: str) -> dict:
    import redis
    client = redis.Redis.from_url(url)
    out = {}
    for key in client.keys("shlo-conform:findings:*"):
        out.update({k.decode(): json.loads(v) for k, v in client.hgetall(key).items()})
    return out


def test_two_shards_share_one_store_without_duplicates(redis_url, tmp_path):
    outs = [str(tmp_path / f"shard{i}") for i in range(2)]
    shards = [_shard(i, out, redis_url, "--programs", "10") for i, out in enumerate(outs)]
    logs = [p.communicate(timeout=300)[0] for p in shards]
    assert [p.returncode for p in shards] != [0, 0], logs  # the wrong negate was found
    written = [_written(out) for out in outs]
    both = set(written[0]) & set(written[1])
    assert not both, both  # each signature is written by one shard only
    merged = {**written[0], **written[1]}
    assert merged and all("|negate|" in s for s in merged)
    stored = _stored(redis_url)
    assert set(merged) <= set(stored)  # the store knows every finding...
    for signature, record in merged.items():  # ...and where its reproducer is
        assert stored[signature]["reproducer"] == record["reproducer"]
    # a third run (any shard, new folder) shrinks none of them again
    again = _shard(0, str(tmp_path / "again"), redis_url, "--programs", "10")
    again.communicate(timeout=300)
    summary = json.load(open(tmp_path / "again" / "summary.json"))
    assert summary["new_findings"] == 0 and summary["time_split"]["shrinking"] == 0


def test_a_killed_shard_loses_nothing_it_found(redis_url, tmp_path):
    import redis
    redis.Redis.from_url(redis_url).flushdb()
    out = str(tmp_path / "killed")
    shard = _shard(1, out, redis_url, "--minutes", "2")
    try:
        deadline = time.time() + 120
        while time.time() < deadline and not _written(out):
            time.sleep(0.2)
        time.sleep(0.5)  # a finding written, maybe another being shrunk: kill it now
    finally:
        shard.send_signal(signal.SIGKILL)
        shard.communicate(timeout=30)
    written = _written(out)
    assert written, "the shard found nothing in 2 minutes"
    stored = _stored(redis_url)
    for signature, record in written.items():
        assert signature in stored
    for signature, record in stored.items():  # every claim points at a reproducer on disk
        assert record["reproducer"] and os.path.isfile(os.path.join(record["reproducer"], "program.mlir")), record
    # and the folder triages (replays) as it is
    from conformance.cli import main as cli
    assert cli(["triage", out]) == 1
