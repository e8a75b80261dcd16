"""``shlo-conform triage DIR...``: the findings of fuzz campaigns, by signature, each re-checked.

Every DIR is a campaign's output folder (``DIR/findings/*/finding.json``, conformance/fuzz.py).
Findings of several folders (shards, nights) merge by signature; a crash merges by the site it
aborts at (judge/messages.py crash_site, conformance/fuzz_crash_sites.py: also a finding an older campaign filed under its op
and type), listing every (op, element type) seen with it.  Each one is replayed
through the judge every path uses (``conformance.fuzz.check_program``, what ``shlo-conform
repro`` does) and sorted into:

* ``new``: it still fails, and no entry of the deviation table (judge/deviations/) explains it;
* ``known deviation``: it still fails, and an entry explains it (the table may have grown
  since the campaign found it);
* ``stale``: it no longer fails (a fixed backend, or a fixed false alarm).

A replay that fails under another signature than the finding's says so (``now``).  The
report: triage.json and an HTML page (reports/html.py's page, one "fuzz findings" matrix per
backend, plus a triage table on top).
"""

from __future__ import annotations

import html
import json
import os
from dataclasses import asdict, dataclass, field

from judge.results import CaseResult, Run
from judge.explain import explain_seen
from judge.status import Status
from reports.html import render_report
from reports.reproducer import read_reproducer
from reports.results import atomic_write_text

from .fuzz import FINDING_STATUSES, Verdict, check_program, signature_of
from .fuzz_crash_sites import is_bucket

NEW, KNOWN, STALE = "new", "known deviation", "stale"


@dataclass
class Triaged:
    signature: str
    backend: str
    op: str
    dtype: str
    status: str                  # the status the campaign found
    verdict: str = NEW           # new / known deviation / stale (after the replay)
    now: str = ""                # the replay's signature when it differs from the finding's
    reason: str = ""             # the known deviation's reason
    reproducer: str = ""
    message: str = ""
    folders: list = field(default_factory=list)  # the campaign folders holding it
    seen_with: list = field(default_factory=list)  # [op, element type] pairs that failed so


def split_signature(signature: str) -> tuple[str, str, str, str]:
    """(backend, op, element type, status); a cmd: backend's name may itself hold '|'."""
    backend, op, dtype, status = signature.rsplit("|", 3)
    return backend, op, dtype, status


def _reproducer_path(finding_folder: str, record: dict) -> str:
    """The finding's reproducer folder, also when its campaign folder was moved or copied."""
    path = record.get("reproducer", "")
    if path and os.path.isdir(path):
        return path
    root = os.path.join(finding_folder, "reproducers")
    inside = sorted(os.listdir(root)) if os.path.isdir(root) else []
    return os.path.join(root, inside[0]) if inside else path


def collect(folders: list[str]) -> dict[str, Triaged]:
    """Every finding of ``folders``, one per signature (the first folder's reproducer kept)."""
    found: dict[str, Triaged] = {}
    for folder in folders:
        root = os.path.join(folder, "findings")
        if not os.path.isdir(root):
            raise ValueError(f"{folder}: not a fuzz campaign folder (no findings/ in it)")
        for name in sorted(os.listdir(root)):
            path = os.path.join(root, name, "finding.json")
            try:
                with open(path) as f:
                    record = json.load(f)
                backend, op, dtype, status = split_signature(record["signature"])
            except (OSError, ValueError, KeyError):
                continue  # a folder a killed campaign left half-written
            seen = record.get("seen_with") or ([] if is_bucket(op) else [[op, dtype]])
            signature = record["signature"]
            if status == Status.CRASH:  # (one an older campaign filed under its op and type: its site's bucket)
                signature = signature_of(backend, Verdict(status, record.get("message", ""), op, dtype))
                op, dtype = split_signature(signature)[1:3]
            item = found.get(signature)
            if item is None:
                item = found[signature] = Triaged(signature, backend, op, dtype, status,
                                                  reproducer=_reproducer_path(os.path.join(root, name), record),
                                                  message=record.get("message", "").split("\n")[0][:300])
            item.folders.append(folder)
            item.seen_with += [pair for pair in seen if pair not in item.seen_with]
    return found


def recheck(item: Triaged, backend, *, timeout: float = 60) -> Triaged:
    """Replay ``item`` on ``backend`` and sort it (new / known deviation / stale)."""
    data = read_reproducer(item.reproducer)
    verdict = check_program(backend, data["module"], data["inputs"], timeout=timeout)
    if verdict.status not in FINDING_STATUSES:
        item.verdict, item.message = STALE, f"the replay gives {verdict.status}"
        return item
    now = signature_of(item.backend, verdict)
    item.now = now if now != item.signature else ""
    item.reason = verdict.deviation.get("reason", "")  # (check_program records the entry on every failure)
    item.verdict = KNOWN if item.reason else NEW
    item.message = verdict.message.split("\n")[0][:300] or item.message
    return item


def triage(folders: list[str], get_backend, *, replay: bool = True, timeout: float = 60) -> list[Triaged]:
    """The findings of ``folders`` sorted; ``get_backend(name)`` gives a Backend (the caller closes it)."""
    items = sorted(collect(folders).values(), key=lambda t: t.signature)
    for item in items:
        if replay:
            recheck(item, get_backend(item.backend), timeout=timeout)
        else:  # no replay: the table alone decides known (stale cannot be told)
            d = explain_seen(item.backend, item.status, item.seen_with or [[item.op, item.dtype]])
            item.verdict, item.reason = (KNOWN, d.reason) if d else (NEW, "")
    return items


def _case(item: Triaged) -> CaseResult:
    status = Status.PASS if item.verdict == STALE else item.status if item.status in FINDING_STATUSES else Status.ERROR
    ops = [op for op, _ in item.seen_with] if is_bucket(item.op) and item.seen_with else [item.op]
    dtypes = [t for _, t in item.seen_with] if is_bucket(item.op) and item.seen_with else [item.dtype]
    return CaseResult(id=item.signature,
                      ops=[f"stablehlo.{op}" if "." not in op else op for op in dict.fromkeys(ops)],
                      dtypes=list(dict.fromkeys(t or "none" for t in dtypes)), status=status,
                      message=f"[{item.verdict}] {item.message}",
                      reproducer=item.reproducer, extra={"triage": item.verdict, "now": item.now})


def render_html(items: list[Triaged], base: str = "") -> str:
    """reports/html.py's page over the findings (one matrix per backend), with the triage table on top."""
    runs = [Run(backend, "differential", {"triage": True}, [_case(t) for t in items if t.backend == backend])
            for backend in sorted({t.backend for t in items})]
    page = render_report(runs, base=base, title="Fuzz findings: triage")
    rows = "".join(
        f"<tr class='t-{t.verdict.split()[0]}'><td><code>{_esc(t.signature)}</code></td><td>{_esc(t.verdict)}</td>"
        f"<td>{_esc(t.now)}</td><td>{_esc(t.reason or t.message)}</td>"
        f"<td><code>{_esc(f'shlo-conform repro {t.reproducer} --backend {t.backend}')}</code></td></tr>"
        for t in items)
    counts = {v: sum(t.verdict == v for t in items) for v in (NEW, KNOWN, STALE)}
    section = (f"<section id=triage><h2>Fuzz findings by signature</h2><p>{counts[NEW]} new, {counts[KNOWN]} "
               f"known deviation, {counts[STALE]} stale (each replayed through the judge)</p><table>"
               "<tr><th>signature</th><th>triage</th><th>replay now</th><th>why</th><th>replay</th></tr>"
               f"{rows}</table></section>")
    return page.replace('<ul class="sources">', section + '<ul class="sources">', 1)


def _esc(x) -> str:
    return html.escape(str(x), quote=True)


def write_report(items: list[Triaged], out_dir: str) -> tuple[str, str]:
    """triage.json and triage.html in ``out_dir``: (json path, html path)."""
    os.makedirs(out_dir, exist_ok=True)
    json_path, html_path = os.path.join(out_dir, "triage.json"), os.path.join(out_dir, "triage.html")
    atomic_write_text(json_path, json.dumps([asdict(t) for t in items], indent=1) + "\n")
    atomic_write_text(html_path, render_html(items, base=os.path.abspath(out_dir)))
    return json_path, html_path
