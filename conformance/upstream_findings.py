"""What ``shlo-conform upstream`` starts from: a finding, resolved to a program that fails.

FINDING is one of

* a reproducer folder (``run`` / ``check`` / ``fuzz`` write them: program.mlir, inputs.npz, case.json);
* a fuzz finding folder (DIR/findings/<hash>/ with finding.json, which names its reproducer);
* ``results.json#CASE-ID``: a case of a run's results (its reproducer folder);
* ``FILE:INDEX``: a deviation entry (judge/entry_fields.py), e.g. ``xla:5``: the entry's op(s)
  on the element types it names are run on the backend (``run``'s cases) until a failure that
  this entry explains turns up; that case is the reproducer.

``failing_case`` replays the program on the backend through the one judge (``check_program``)
and shrinks it with ``fuzz``'s shrinker while it keeps failing the same way, so a ``run`` or
``check`` failure is as small as a fuzz finding.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import tempfile
import time
from dataclasses import dataclass, field

import numpy as np

import oracle

from judge.entry_fields import DeviationFileError, listed_entry
from judge.status import Status
from oracle import ir
from reports.reproducer import read_reproducer

from .cli_arguments import UsageError, usable_backend
from .fuzz_checking import FINDING_STATUSES, Verdict, check_program
from .fuzz_shrinking import shrink_program
from .run import plan, run_differential

#: Seconds ``failing_case`` may shrink one program for.
SHRINK_SECONDS = 60.0
#: Cases drawn per op x element type pair while looking for a deviation entry's failure.
ENTRY_EXAMPLES = 6


@dataclass
class Failing:
    """A program that fails on a backend, shrunk, with the judge's verdict on it."""
    backend: str
    module: ir.Module
    inputs: list
    verdict: Verdict
    source: str                    # what it came from (the FINDING as given)
    entry: dict = field(default_factory=dict)   # the deviation entry it was drawn for ({}: none)
    entry_name: str = ""           # FILE:INDEX of that entry
    ops_before: int = 0            # the program's size before shrinking


def parse_entry_name(text: str) -> tuple[str, int] | None:
    """``xla:5`` -> ("xla", 5); None when ``text`` is no FILE:INDEX."""
    stem, _, index = text.rpartition(":")
    if stem and index.isdigit() and not os.path.exists(text) and "/" not in stem:
        return stem, int(index)
    return None


def reproducer_folder(finding: str) -> str:
    """The reproducer folder FINDING names (a folder, a fuzz finding, results.json#CASE-ID)."""
    path, _, case_id = finding.partition("#")
    if case_id:
        try:
            cases = json.load(open(path))["cases"]
        except (OSError, ValueError, KeyError) as e:
            raise UsageError(f"{path}: not a results.json ({e})") from None
        case = next((c for c in cases if c.get("id") == case_id), None)
        if case is None:
            raise UsageError(f"{path}: no case {case_id!r}")
        if not case.get("reproducer"):
            raise UsageError(f"{path}: case {case_id} has no reproducer folder (it did not fail)")
        return case["reproducer"]
    finding_json = os.path.join(path, "finding.json")
    if os.path.isfile(finding_json):
        return json.load(open(finding_json))["reproducer"]
    if not os.path.isfile(os.path.join(path, "program.mlir")):
        raise UsageError(f"{finding}: not a reproducer folder, fuzz finding, results.json#CASE-ID or FILE:INDEX")
    return path


def failing_case(finding: str, backend_name: str | None, *, timeout: float = 60.0,
                 shrink_seconds: float = SHRINK_SECONDS, work_dir: str | None = None) -> Failing:
    """FINDING replayed on its backend, judged, and shrunk while it fails the same way."""
    entry, name = {}, parse_entry_name(finding)
    if name is not None:
        try:
            entry = listed_entry(*name)
        except DeviationFileError as e:
            raise UsageError(str(e)) from None
        folder, backend_name = entry_reproducer(entry, name[0], backend_name, timeout=timeout, work_dir=work_dir)
    else:
        folder = reproducer_folder(finding)
    data = read_reproducer(folder)
    if data["grid"] != (1, 1):
        raise UsageError(f"{finding}: a process-grid program has no standalone reproducer here")
    backend_name = backend_name or data["case"].get("backend")
    if not backend_name:
        raise UsageError(f"{finding}: which backend? (--backend NAME)")
    backend = usable_backend(backend_name)
    try:
        verdict = check_program(backend, data["module"], data["inputs"], timeout=timeout)
        if verdict.status not in FINDING_STATUSES:
            raise UsageError(f"{finding}: no longer fails on {backend.name} ({verdict.status})")
        module, inputs, verdict = shrunk(backend, data["module"], data["inputs"], verdict, timeout, shrink_seconds)
    finally:
        backend.close()
    return Failing(backend.name, module, inputs, verdict, finding, entry=entry or dict(verdict.deviation or {}),
                   entry_name=f"{name[0]}:{name[1]}" if name else "", ops_before=len(data["module"].main.ops) - 1)


def shrunk(backend, module: ir.Module, inputs: list, verdict: Verdict, timeout: float, seconds: float):
    """``fuzz``'s shrinker, while the program fails with the same status on the same op."""
    last = {"verdict": verdict}

    def still_fails(m, ins) -> bool:
        v = check_program(backend, m, ins, timeout=timeout)
        same = v.status == verdict.status and (v.op == verdict.op or verdict.status != Status.MISMATCH)
        if same:
            last["verdict"] = v
        return same
    module, inputs = shrink_program(module, list(inputs), still_fails, deadline=time.perf_counter() + seconds)
    fewer = fewer_elements(module, inputs, last["verdict"])
    if fewer is not None and still_fails(*fewer):
        module, inputs = fewer
    return module, inputs, last["verdict"]


#: Elements an element-wise program keeps when ``fewer_elements`` cuts it down.
KEPT_ELEMENTS = 8


def fewer_elements(module: ir.Module, inputs: list, verdict: Verdict) -> tuple[ir.Module, list] | None:
    """A one-op element-wise program (an op of the oracle's ``elementwise`` family, every operand
    of the result's shape) cut down to the elements where the backend's output differs, as a 1-D
    program of at most KEPT_ELEMENTS: each element of an element-wise op depends on the operands'
    elements at its own index only.  None when the program is not such a one."""
    ops = [o for o in module.main.ops if o.name != "func.return"]
    info = oracle.all_ops().get(ops[0].name) if len(ops) == 1 else None
    if info is None or info.family != "elementwise" or ops[0].regions or verdict.actual is None:
        return None
    shape = np.shape(inputs[0]) if inputs else None
    types = [a.type for a in module.main.arguments] + [r.type for r in ops[0].results]
    if (not shape or any(np.shape(x) != shape for x in inputs)
            or any(getattr(t, "shape", None) != shape for t in types) or len(verdict.actual) != 1):
        return None
    exp, act = np.asarray(verdict.expected[0]), np.asarray(verdict.actual[0])
    masked = (verdict.masks or [None])[0]
    masked = np.zeros(exp.size, bool) if masked is None else np.asarray(masked).reshape(-1)
    differ = [i for i in range(exp.size) if not masked[i]
              and exp.reshape(-1)[i:i + 1].tobytes() != act.reshape(-1)[i:i + 1].tobytes()]
    if not differ or exp.size <= KEPT_ELEMENTS:
        return None
    keep = np.array(differ[:KEPT_ELEMENTS])
    dims = "x".join(str(d) for d in shape) + "x"
    text = re.sub(rf"tensor<{re.escape(dims)}", f"tensor<{len(keep)}x", oracle.print_module(module))
    try:
        smaller = oracle.parse_module(text)
    except oracle.MlirError:
        return None
    return smaller, [np.asarray(x).reshape(-1)[keep] for x in inputs]


def _entry_matches(recorded: dict, entry: dict) -> bool:
    return bool(recorded) and recorded.get("reason", "").strip() == entry.get("reason", "").strip()


def _patterns(entry: dict, one: str, many: str) -> list[str]:
    value = entry.get(many, entry.get(one, "*"))
    return [value] if isinstance(value, str) else list(value)


def entry_backend(entry: dict, backend_name: str | None) -> str:
    """The backend an entry is replayed on: --backend (which the entry must cover), else its first."""
    backends = _patterns(entry, "backend", "backends")
    if backend_name:
        if not any(fnmatch.fnmatchcase(backend_name, b) for b in backends):
            raise UsageError(f"the entry is about {', '.join(backends)}, not {backend_name}")
        return backend_name
    plain = [b for b in backends if not any(c in b for c in "*?[")]
    if not plain:
        raise UsageError(f"the entry's backends are patterns ({', '.join(backends)}): say --backend NAME")
    return plain[0]


def entry_reproducer(entry: dict, stem: str, backend_name: str | None, *, timeout: float,
                     work_dir: str | None = None) -> tuple[str, str]:
    """(reproducer folder, backend) of a failure the entry explains, from ``run``'s cases of its
    op(s) on its element types."""
    backend_name = entry_backend(entry, backend_name)
    ops = _patterns(entry, "op", "ops")
    dtypes = _patterns(entry, "dtype", "dtypes")
    pairs = [(info, et) for info, et in plan()
             if any(fnmatch.fnmatchcase(info.name.replace("stablehlo.", ""), o) for o in ops)
             and any(fnmatch.fnmatchcase(et, d) or fnmatch.fnmatchcase(et, d.split(",")[0]) for d in dtypes)]
    if not pairs:
        raise UsageError(f"{stem}: the entry's ops {ops} x types {dtypes} name no case `run` draws: "
                         "it needs a reproducer program of its own")
    out = work_dir or tempfile.mkdtemp(prefix="shlo-upstream-")
    backend = usable_backend(backend_name)
    try:
        for k in range(0, len(pairs), 8):  # a few pairs at a time: stop at the first that shows it
            results = run_differential(backend, pairs[k:k + 8], max_examples=ENTRY_EXAMPLES, seed=0, out_dir=out,
                                       timeout=timeout, progress=False, jobs=1)
            for r in results:
                if r.status in entry.get("statuses", [r.status]) and r.reproducer and _entry_matches(r.deviation or {},
                                                                                                     entry):
                    return r.reproducer, backend.name
    finally:
        backend.close()
    raise UsageError(f"{stem}: no case of {len(pairs)} op x type pair(s) on {backend_name} shows this entry "
                     f"({ENTRY_EXAMPLES} cases each): it needs a reproducer program of its own")
