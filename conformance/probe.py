"""Support probing: which op x element type combinations a backend accepts.

For every (op, element type) pair the oracle can generate, one small program is drawn
(``conformance.run.draw_cases``, fixed seed) and checked against the oracle
(``conformance.run.check_case``), so the answer separates a backend that *refuses* the
program (``rejected``) from one that accepts it and computes something else (``mismatch``),
crashes, etc.  Works for every backend (built-in, plug-in or ``cmd:``).

Answers are cached on disk, one file per backend and backend version:
``<cache>/support-<backend>-<version>.json``, where ``<cache>`` is ``$SHLO_CONFORM_CACHE`` or
``~/.cache/shlo-conform`` (``SHLO_CONFORM_CACHE=off`` disables every disk cache).  Pairs
missing from the file (new ops) are probed on demand; ``refresh=True`` (``shlo-conform probe
--refresh``) probes everything again.

File format: ``{"backend", "version", "pairs": {"stablehlo.add": {"f32": {"status",
"accepted", "message", "case"}}}}``; ``accepted`` is false only for ``rejected``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re

from adapters.base import RunStatus, backend_version
from adapters.cache import cache_dir
from judge.results import CaseResult
from judge.status import Status
from oracle.types import element_type
from reports.results import atomic_write_text

from .run import check_case, plan
from generators.cases import draw_cases

def file_slug(text: str, limit: int = 64) -> str:
    """``text`` as a safe file-name part (long ones shortened with a hash)."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", text).strip("_")
    if len(slug) > limit:  # long names (cmd: templates, jax's device strings) get a hash
        slug = slug[:limit - 13] + "-" + hashlib.sha1(text.encode()).hexdigest()[:12]
    return slug or "none"


def support_path(backend) -> str | None:
    root = cache_dir()
    if root is None:
        return None
    return os.path.join(root, f"support-{file_slug(backend.name)}-{file_slug(backend_version(backend))}.json")


def load_support(backend) -> dict:
    """The cached answers for ``backend`` (op -> element type -> entry); {} if none."""
    path = support_path(backend)
    if not path or not os.path.exists(path):
        return {}
    try:
        with open(path) as f:
            return json.load(f).get("pairs", {})
    except (OSError, ValueError):
        return {}  # a damaged cache is probed again


def probe_pair(backend, info, element_type_name: str, *, seed: int = 0, timeout: float = 60.0) -> dict:
    """Probe one (op, element type) pair: one drawn program, run and compared."""
    try:
        cases = draw_cases(info, element_type(element_type_name), 1, seed)
    except Exception as e:
        return {"status": Status.ERROR, "accepted": None, "message": f"generator: {type(e).__name__}: {e}", "case": ""}
    if not cases:
        return {"status": Status.ERROR, "accepted": None, "message": "generator drew no case", "case": ""}
    case = cases[-1]  # the drawn example (draw_cases puts the special-value cases first)
    result = check_case(case, backend, timeout=timeout)
    status, message = result.status, result.message
    if status == Status.UNSUPPORTED or (status == Status.ERROR and message.startswith("oracle:")):
        # the oracle cannot judge it, but whether the backend accepts it is still worth knowing
        run = backend.run(case.program, case.inputs, timeout=timeout)
        accepted = run.status != RunStatus.REJECTED
        message = f"{message}; backend: {run.status}" + (f" ({run.message[:300]})" if run.message else "")
    else:
        accepted = status != Status.REJECTED
    return {"status": status, "accepted": accepted, "message": message[:2000], "case": case.id}


def probe(backend, pairs=None, *, refresh: bool = False, seed: int = 0, timeout: float = 60.0,
          on_pair=None) -> dict:
    """Answers for ``pairs`` ((OpInfo, element type name); default: every generatable pair),
    probing those not cached (all of them with ``refresh``).  Saves the cache after each pair,
    so an interrupted probe keeps what it learned.  Returns op -> element type -> entry."""

    pairs = plan() if pairs is None else pairs
    path = support_path(backend)
    support = {} if refresh else load_support(backend)
    version = backend_version(backend)
    answers: dict = {}
    for info, et in pairs:
        entry = support.get(info.name, {}).get(et)
        if entry is None:
            entry = probe_pair(backend, info, et, seed=seed, timeout=timeout)
            support.setdefault(info.name, {})[et] = entry
            if path:
                atomic_write_text(path, json.dumps({"backend": backend.name, "version": version, "pairs": support},
                                                   indent=1, sort_keys=True))
        answers.setdefault(info.name, {})[et] = entry
        if on_pair is not None:
            on_pair(info, et, entry)
    return answers


def accepts(backend, op: str, element_type_name: str) -> bool | None:
    """Whether ``backend`` accepts ``op`` on ``element_type_name`` by the cache (None: not probed)."""
    op = op if "." in op else f"stablehlo.{op}"
    entry = load_support(backend).get(op, {}).get(element_type_name)
    return None if entry is None else entry.get("accepted")


def as_case_results(support: dict) -> list[CaseResult]:
    """The answers as CaseResults (for the CLI's summary table)."""
    return [CaseResult(id=e.get("case") or f"{op}-{et}", ops=[op], dtypes=[et], status=e["status"],
                       message=e.get("message", ""))
            for op, by_type in support.items() for et, e in by_type.items()]
