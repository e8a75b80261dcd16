"""``shlo-conform campaign``: one fuzz campaign as N shards on a cluster, started, watched and merged
by one command.

The engine is rq (Redis Queue).  The shards of a campaign already share their findings store in
Redis (``fuzz --database redis://``, conformance/findings_store.py); with rq the same Redis is also
the queue, so a cluster is one Redis server plus ``rq worker --url redis://HOST:PORT shlo-conform-shards``
on each machine (with this package installed): no second scheduler, no extra ports, and a worker
that dies leaves its job in rq's failed registry, where the launcher sees it.  (Ray would add a
second cluster manager beside the Redis the store needs, and a 2-core CI machine pays for its
daemons.)

Each shard is one job: ``shlo-conform fuzz OPTIONS --shard i/N --database URL`` in a fresh folder
on the worker, as a child process that dies with the job.  While it runs, the job publishes the
shard's progress (from the summary.json the campaign refreshes) in its meta; when it ends, it
returns the shard's folder (summary.json and findings/) packed as a tar archive.  The launcher
unpacks every shard under OUT/shard-<i>/, writes OUT/summary.json (the shards and their findings,
one per signature) and the merged ``triage`` of all shards.  Ctrl-C asks every shard to stop the
way fuzz stops on SIGTERM (its summary written), then merges what came back; a second Ctrl-C
leaves at once.
"""

from __future__ import annotations

import ctypes
import io
import json
import os
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import uuid
from dataclasses import dataclass, field

from reports.results import atomic_write_text

from .exits import EXIT_FINDINGS, EXIT_OK, STOPPED_CODES

QUEUE = "shlo-conform-shards"
PROGRESS_SECONDS = 2.0      # how often a shard publishes its progress, and the launcher looks
SHRINK_SLACK_SECONDS = 900  # a shard's job may outlive its --minutes by this much (the last shrink)
OPTIONS_SET_BY_THE_CAMPAIGN = ("--shard", "--database", "--out")


def _stop_key(campaign: str) -> str:
    return f"shlo-conform:campaign:{campaign}:stop"


def _die_with_parent() -> None:
    """In the shard's child: SIGTERM when the job's process dies (a stopped or timed-out job)."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except OSError:  # not Linux: the child ends at its own --minutes
        pass


def _packed(folder: str) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name in ("summary.json", "findings"):
            if os.path.exists(os.path.join(folder, name)):
                tar.add(os.path.join(folder, name), arcname=name)
    return buffer.getvalue()


def _read_summary(folder: str) -> dict:
    try:
        with open(os.path.join(folder, "summary.json")) as f:
            return json.load(f)
    except (OSError, ValueError):  # not written yet, or being replaced
        return {}


def run_shard(options: list[str], index: int, shards: int, database: str, campaign: str) -> dict:
    """The job a worker runs: one shard of the campaign, in a fresh folder, returned packed."""
    import redis
    from rq import get_current_job

    job = get_current_job()
    connection = redis.Redis.from_url(database)
    with tempfile.TemporaryDirectory(prefix=f"shlo-shard{index}-") as out:
        command = [sys.executable, "-m", "conformance.cli", "fuzz", *options, "--shard", f"{index}/{shards}",
                   "--database", database, "--out", out, "--quiet"]
        log_path = os.path.join(out, "fuzz.log")
        with open(log_path, "w") as log:
            child = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, preexec_fn=_die_with_parent)
            asked_to_stop = False
            while child.poll() is None:
                time.sleep(PROGRESS_SECONDS)
                if not asked_to_stop and connection.exists(_stop_key(campaign)):
                    child.send_signal(signal.SIGTERM)  # fuzz writes its summary and ends
                    asked_to_stop = True
                if job is not None:
                    summary = _read_summary(out)
                    job.meta.update(host=socket.gethostname(), programs=summary.get("programs", 0),
                                    findings=len(summary.get("findings", [])), seconds=summary.get("seconds", 0))
                    job.save_meta()
        with open(log_path) as log:
            tail = log.read()[-4000:]
        return {"host": socket.gethostname(), "returncode": child.returncode, "log_tail": tail,
                "stopped": asked_to_stop, "archive": _packed(out)}


@dataclass
class Shard:
    index: int
    job_id: str
    state: str = "queued"       # queued, started, finished, failed, lost
    host: str = ""
    programs: int = 0
    findings: int = 0
    seconds: float = 0.0
    returncode: int | None = None
    error: str = ""
    folder: str = ""
    summary: dict = field(default_factory=dict)

    def line(self) -> str:
        where = f" on {self.host}" if self.host else ""
        if self.state in ("queued", "lost"):
            return f"{self.index}: {self.state}"
        if self.state == "failed":
            return f"{self.index}: FAILED{where}"
        return f"{self.index}: {self.state}{where} {self.programs} programs {self.findings} findings {self.seconds:.0f}s"


def start_local_workers(database: str, count: int) -> list[subprocess.Popen]:
    """``count`` burst workers on this machine (they leave when the queue is empty): a local cluster."""
    command = [sys.executable, "-m", "rq.cli", "worker", "--burst", "--url", database, "--quiet", QUEUE]
    return [subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for _ in range(count)]


class ClusterCampaign:
    """The launcher's side: enqueue the shards, watch them, unpack and merge what they return."""

    def __init__(self, database: str, shards: int, fuzz_options: list[str], out: str, *,
                 job_timeout: float, stream=None):
        import redis
        from rq import Queue

        self.database, self.out, self.stream = database, out, stream or sys.stderr
        self.connection = redis.Redis.from_url(database)
        self.connection.ping()  # (an unreachable store is the user's error, said before anything runs)
        self.queue = Queue(QUEUE, connection=self.connection)
        self.campaign = uuid.uuid4().hex[:12]
        self.fuzz_options, self.job_timeout = list(fuzz_options), int(job_timeout)
        self.shards = [Shard(i, f"shlo-{self.campaign}-{i}") for i in range(shards)]
        self.started = time.monotonic()

    def enqueue(self) -> None:
        for shard in self.shards:
            self.queue.enqueue_call(run_shard, args=(self.fuzz_options, shard.index, len(self.shards),
                                                     self.database, self.campaign),
                                    job_id=shard.job_id, timeout=self.job_timeout, result_ttl=7 * 86400,
                                    failure_ttl=7 * 86400, description=f"shlo-conform fuzz shard {shard.index}/"
                                                                       f"{len(self.shards)}")

    def stop(self) -> None:
        """Ask every running shard to stop like fuzz on SIGTERM; shards not started yet are cancelled."""
        from rq.job import Job

        self.connection.set(_stop_key(self.campaign), 1, ex=86400)
        for shard in self.shards:
            job = Job.fetch(shard.job_id, connection=self.connection)
            if job.get_status() == "queued":
                job.cancel()
                shard.state = "cancelled"

    def _refresh(self, shard: Shard) -> None:
        from rq.exceptions import NoSuchJobError
        from rq.job import Job

        if shard.state in ("finished", "failed", "cancelled"):
            return
        try:
            job = Job.fetch(shard.job_id, connection=self.connection)
        except NoSuchJobError:
            shard.state = "lost"
            return
        status = job.get_status(refresh=True)
        status = str(getattr(status, "value", status))  # (rq's JobStatus)
        shard.host = job.meta.get("host", shard.host)
        shard.programs, shard.findings = job.meta.get("programs", 0), job.meta.get("findings", 0)
        shard.seconds = job.meta.get("seconds", 0)
        if status == "finished":
            self._unpack(shard, job.latest_result().return_value)
        elif status in ("failed", "stopped", "canceled"):
            result = job.latest_result()
            shard.state, shard.error = "failed", ((result.exc_string or "") if result else status).strip()[-2000:]
        else:
            shard.state = {"started": "running"}.get(status, status)

    def _unpack(self, shard: Shard, value: dict) -> None:
        shard.folder = os.path.join(self.out, f"shard-{shard.index}")
        os.makedirs(os.path.join(shard.folder, "findings"), exist_ok=True)  # (a campaign folder, findings or not)
        with tarfile.open(fileobj=io.BytesIO(value["archive"]), mode="r:gz") as tar:
            tar.extractall(shard.folder, filter="data")
        atomic_write_text(os.path.join(shard.folder, "fuzz.log"), value.get("log_tail", ""))
        shard.summary = _read_summary(shard.folder)
        shard.host, shard.returncode, shard.state = value.get("host", ""), value.get("returncode"), "finished"
        shard.programs = shard.summary.get("programs", shard.programs)
        shard.findings = len(shard.summary.get("findings", []))
        if shard.returncode not in (EXIT_OK, EXIT_FINDINGS, *STOPPED_CODES):  # (stopped: on request)
            shard.error = f"fuzz exited with {shard.returncode}: {value.get('log_tail', '')[-1000:]}"

    def watch(self) -> None:
        """Until every shard has ended: one progress line whenever something changed."""
        shown = ""
        while True:
            for shard in self.shards:
                self._refresh(shard)
            line = " | ".join(shard.line() for shard in self.shards)
            if line != shown:
                self.stream.write(f"[{time.monotonic() - self.started:5.0f}s] {line}\n")
                self.stream.flush()
                shown = line
            if all(shard.state in ("finished", "failed", "cancelled", "lost") for shard in self.shards):
                return
            time.sleep(PROGRESS_SECONDS)

    def merged_summary(self, complete: bool) -> dict:
        """OUT/summary.json: every shard, and the campaign's findings (one per signature)."""
        findings: dict = {}
        for shard in self.shards:
            for finding in shard.summary.get("findings", []):
                # a shard also lists what another shard found first (seen in the shared store, with that
                # shard's reproducer): the finding is the shard's whose unpacked folder holds it
                here = os.path.join(shard.folder, os.path.relpath(finding["reproducer"], start=_shard_root(
                    finding["reproducer"]))) if finding.get("reproducer") and shard.folder else ""
                if os.path.isdir(here):
                    findings[finding["signature"]] = dict(finding, shard=shard.index, reproducer=here)
                elif not os.path.isdir(findings.get(finding["signature"], {}).get("reproducer", "")):
                    findings[finding["signature"]] = dict(finding, shard=shard.index)  # (a path on its worker)
        per_mode: dict = {}  # each count per program mode (fuzz --mode), summed over shards
        for shard in self.shards:
            for mode, counts in shard.summary.get("per_mode", {}).items():
                total = per_mode.setdefault(mode, {})
                for key, count in counts.items():
                    total[key] = total.get(key, 0) + count
        summary = {"campaign": self.campaign, "complete": complete, "per_mode": per_mode, "shards": [
            {"index": s.index, "state": s.state, "host": s.host, "programs": s.programs, "seconds": s.seconds,
             "findings": s.findings, "returncode": s.returncode, "error": s.error, "folder": s.folder}
            for s in self.shards],
            "programs": sum(s.programs for s in self.shards), "findings": list(findings.values()),
            "new_findings": sum(bool(f.get("new")) for f in findings.values())}
        atomic_write_text(os.path.join(self.out, "summary.json"), json.dumps(summary, indent=1) + "\n")
        return summary


def _shard_root(reproducer: str) -> str:
    """The shard's folder on its worker, from a reproducer path under its findings/ folder."""
    head = reproducer
    while head and os.path.basename(head) != "findings":
        parent = os.path.dirname(head)
        if parent == head:
            return os.path.dirname(reproducer)
        head = parent
    return os.path.dirname(head)
