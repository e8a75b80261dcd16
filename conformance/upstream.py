"""``shlo-conform upstream``: a finding made ready for the backend's own tracker.

For one FINDING (conformance/upstream_findings.py: a reproducer folder, a fuzz finding,
``results.json#CASE-ID`` or a deviation entry ``FILE:INDEX``) it writes, into ``--out``:

* ``reproduce.py``: the standalone reproducer (reports/standalone.py), run here without this
  suite (conformance/upstream_running.py) to show that it exits 1;
* ``program.mlir`` (the shrunk program), ``input<k>.npy`` and, for IREE, the iree-compile /
  iree-run-module lines;
* ``report.md`` (reports/upstream_report.py): title, versions, program, inputs, the expected
  value with the specification's sentence and the computation, the actual value, why the
  program is well defined, and what ``--blame`` / ``--versions`` found;
* ``upstream.json``: the same facts as data.

``--blame`` runs the script's own blame loop (each optimisation switch off in turn) and
``--versions SPEC`` replays it on released versions of the backend's package
(conformance/upstream_versions.py); with a deviation entry as FINDING, both are written back
onto the entry (``blame`` / ``versions`` fields, judge/entry_fields.py).
``--all-entries --backend NAME`` does this for every entry of the backend's deviation file
and writes an index page.
"""

from __future__ import annotations

import json
import os

import numpy as np

import oracle
from judge.compare import compare
from judge.entry_fields import listed_entries, set_entry_field
from judge.program_bound import oracle_run
from judge.status import Status
from judge.tolerance import tolerance_for
from oracle import ir
from oracle.errors import OracleError
from oracle.literals import format_dense
from oracle.numerics import flush_subnormals
from oracle.types import TensorType
from reports.results import atomic_write_text
from reports.standalone import NoStandalone, iree_commands, standalone_script
from reports.upstream_report import UpstreamFacts, blame_text, render_index, render_report

from .cli_arguments import UsageError, output_folder, usable_backend
from .environment import package_versions
from .spec_examples import op_semantics
from .upstream_findings import Failing, failing_case
from .upstream_running import run_script
from .upstream_versions import BACKEND_PACKAGES, replay_versions

#: The standalone reproducer's file name in the output folder.
SCRIPT = "reproduce.py"
#: Elements a script checks per output at most (the first failing ones).
CHECKED_ELEMENTS = 64
#: Checked elements the report spells out.
SHOWN = 4


def _producers(main: ir.Function) -> dict:
    return {r: op for op in main.ops for r in op.results}


def _tolerance(op: ir.Op | None, et):
    """The tolerance row of ``op``'s result type (judge/tolerance.py), and the same as the script's data."""
    tol = tolerance_for(op.name.replace("stablehlo.", "") if op is not None else "*", et)
    return tol, {"ulp": tol.ulp, "rel": tol.rel, "abs": tol.abs, "strict_signed_zero": tol.strict_signed_zero,
                 "describe": tol.describe()}


def checks_of(failing: Failing, flushes: bool) -> list[dict]:
    """Per output: the elements the judge finds wrong (outside the producing op's tolerance, not
    implementation-defined), which the standalone script checks."""
    verdict, main = failing.verdict, failing.module.main
    if verdict.status != Status.MISMATCH or verdict.actual is None:
        return []
    producers = _producers(main)
    masks = verdict.masks or [None] * len(verdict.expected)
    out = []
    for k, (value, exp, act) in enumerate(zip(main.ops[-1].operands, verdict.expected, verdict.actual)):
        if not isinstance(value.type, TensorType):
            continue
        et = value.type.element_type
        tol, row = _tolerance(producers.get(value), et)
        flushed = flush_subnormals(exp) if flushes and np.asarray(exp).dtype.kind in "fc" else None
        c = compare(exp, act, et, tol, impl_defined=masks[k] if k < len(masks) else None, flushed_expected=flushed)
        if c.status != Status.MISMATCH:
            continue
        if c.failing is None:  # a result of another shape or type: the script checks that first
            out.append({"output": k, "elements": [], "tolerance": row, "shape": list(np.shape(exp)),
                        "actual_shape": list(np.shape(act)), "actual_dtype": str(np.asarray(act).dtype)})
            continue
        failing_at = np.flatnonzero(c.failing) if c.failing is not None else np.arange(np.asarray(exp).size)
        failing_at = sorted(failing_at, key=lambda i: _only_zero_sign(exp, act, i))[:CHECKED_ELEMENTS]
        out.append({"output": k, "elements": [int(i) for i in failing_at], "tolerance": row})
    return out


def _only_zero_sign(exp, act, flat: int) -> bool:
    """Whether element ``flat`` differs only in the sign of a zero (shown after the others)."""
    e, a = np.asarray(exp).reshape(-1)[flat], np.asarray(act).reshape(-1)[flat]
    try:
        return bool(e == 0 and a == 0)
    except (TypeError, ValueError):
        return False


def _value(x: np.ndarray, flat: int) -> str:
    return str(np.asarray(x).reshape(-1)[flat])


def _scalar(x: np.ndarray, flat: int) -> str:
    v = x.reshape(-1)[flat:flat + 1]
    return f"{str(v[0])} (0x{v.tobytes()[::-1].hex()})"


def _index(shape, flat: int) -> list:
    return [int(i) for i in np.unravel_index(flat, shape)] if shape else []


def derivation(failing: Failing, checks: list[dict]) -> tuple[list[str], list[str]]:
    """(expected lines, actual lines): each shown element with its operands where the producing
    op is element-wise (every operand of the result's shape), the specification's value, and the
    backend's."""
    verdict, main = failing.verdict, failing.module.main
    producers, values = _producers(main), dict(zip(main.arguments, failing.inputs))
    try:  # every value of the program, as the specification computes it
        values.update(oracle_run(failing.module, failing.inputs)[1])
    except OracleError:
        pass
    expected, actual = [], []
    for c in checks:
        value = main.ops[-1].operands[c["output"]]
        op = producers.get(value)
        exp, act = np.asarray(verdict.expected[c["output"]]), np.asarray(verdict.actual[c["output"]])
        if not c["elements"]:
            expected.append(f"output #{c['output']}: a {exp.dtype}{list(exp.shape)} tensor ({value.type}), "
                            f"by the semantics above: {_literal(exp, value.type)}")
            actual.append(f"output #{c['output']}: a {act.dtype}{list(act.shape)} tensor")
        for flat in c["elements"][:SHOWN]:
            where = f"output #{c['output']} {_index(exp.shape, flat)}"
            operands = [values.get(v) for v in op.operands] if op is not None else []
            if op is not None and operands and all(o is not None and np.shape(o) == exp.shape for o in operands):
                args = ", ".join(_scalar(np.asarray(o), flat) for o in operands)
                expected.append(f"{where}: `{op.name}({args})` = {_scalar(exp, flat)} ({value.type.element_type})")
            else:
                expected.append(f"{where}: {_scalar(exp, flat)}, by the semantics above on the inputs")
            actual.append(f"{where}: {_scalar(act, flat)} (expected {_scalar(exp, flat)})")
        if len(c["elements"]) > SHOWN:
            actual.append(f"... {len(c['elements']) - SHOWN} more element(s) of output #{c['output']} are checked")
    return expected, actual


def _literal(x: np.ndarray, ty) -> str:
    if not isinstance(ty, TensorType):
        return "(not a tensor)"
    if np.size(x) <= 64:
        return np.array2string(np.asarray(x), separator=", ", max_line_width=10 ** 6)
    text = format_dense(np.asarray(x), ty.element_type)
    return text if len(text) <= 400 else f"{text[:400]}... ({np.size(x)} elements, all in {SCRIPT})"


def _types(failing: Failing) -> str:
    """The culprit's element types as a title names them: its first operand's, and its result's
    where that differs (is_finite of f8E4M3FNUZ returns i1)."""
    v = failing.verdict
    op = next((o for o in failing.module.main.ops if o.name == v.op), None)
    operand = getattr(op.operands[0].type, "element_type", None) if op is not None and op.operands else None
    if operand is None or str(operand) == v.dtype:
        return v.dtype
    return f"{operand} (result {v.dtype})"


def _title(failing: Failing, checks: list[dict], family: str) -> str:
    v = failing.verdict
    op = v.op or "the program"
    if v.status != Status.MISMATCH or not checks:
        first = (v.message or v.status).strip().splitlines()[0][:120] if (v.message or v.status) else v.status
        return f"[{family}] {op} ({v.dtype or 'program'}): {v.status}: {first}"
    c = checks[0]
    exp, act = np.asarray(v.expected[c["output"]]), np.asarray(v.actual[c["output"]])
    if not c["elements"]:
        return (f"[{family}] {op} on {_types(failing)}: returns a {act.dtype}{list(act.shape)} result where "
                f"the StableHLO specification gives {exp.dtype}{list(exp.shape)}")
    flat = c["elements"][0]
    return (f"[{family}] {op} on {_types(failing)}: returns {_value(act, flat)} where the StableHLO specification "
            f"gives {_value(exp, flat)}")


def _family(backend: str) -> str:
    for prefix, words in (("xla-gpu", "XLA GPU"), ("xla-folded", "XLA constant folding"), ("xla", "XLA CPU"),
                          ("iree-", "IREE " + backend[5:]), ("torch-", "PyTorch " + backend[6:]),
                          ("stablehlo-ref", "StableHLO interpreter")):
        if backend.startswith(prefix):
            return words
    return backend


def well_defined(failing: Failing, checks: list[dict]) -> list[str]:
    v = failing.verdict
    if v.status != Status.MISMATCH:
        return [f"the backend fails to run a program the specification defines ({v.status}): "
                "a valid program of valid types must compile and run"]
    masked = sum(int(np.count_nonzero(m)) for m in (v.masks or []) if m is not None)
    lines = [("none of the compared elements falls under a case the specification leaves implementation-defined"
              if not masked else f"the {masked} element(s) the specification leaves implementation-defined for "
              "these operands are not compared")]
    for c in checks:
        tol = c["tolerance"]["describe"]
        lines.append(f"output #{c['output']} is compared {'exactly (NaN matches NaN)' if tol == 'exact' else tol}")
    if failing.entry.get("reason"):
        lines.append(f"the deviation, with the section that decides it: {failing.entry['reason']}")
    return lines


def backend_versions(backend: str) -> dict:
    wanted = BACKEND_PACKAGES.get(_package_key(backend), ()) + ("numpy", "ml_dtypes")
    found = package_versions()
    return {p: found[p] for p in wanted if p in found}


def _package_key(backend: str) -> str:
    return next((k for k in BACKEND_PACKAGES if backend.startswith(k)), "")


def write_upstream(failing: Failing, out: str, *, flushes: bool, blame: bool = False,
                   versions: str | None = None, record: bool = True) -> dict:
    """Everything for one failing program into ``out``; returns upstream.json's facts."""
    os.makedirs(out, exist_ok=True)
    v, main = failing.verdict, failing.module.main
    checks = checks_of(failing, flushes)
    expect = "values" if checks else "completes"
    if v.status == Status.MISMATCH and not checks:
        raise UsageError(f"{failing.source}: the mismatch is in no output element the script can check "
                         f"({v.message.splitlines()[0] if v.message else ''})")
    program = _program_text(failing.module)
    title = _title(failing, checks, _family(failing.backend))
    expected = v.expected if v.expected is not None else []
    script = standalone_script(failing.backend, program, failing.inputs, expected, checks, title=title,
                               expect=expect, filename=SCRIPT)
    script_path = os.path.join(out, SCRIPT)
    atomic_write_text(script_path, script)
    atomic_write_text(os.path.join(out, "program.mlir"), program)
    npy = []
    for k, x in enumerate(failing.inputs):
        npy.append(f"input{k}.npy")
        np.save(os.path.join(out, npy[-1]), np.asarray(x), allow_pickle=False)
    rc, printed = run_script(script_path)
    facts = {"finding": failing.source, "backend": failing.backend, "title": title, "status": v.status,
             "op": v.op, "dtype": v.dtype, "entry": failing.entry_name, "link": failing.entry.get("link", ""),
             "script_exit": rc, "reproduces": rc == 1, "ops_before": failing.ops_before,
             "ops_after": len(main.ops) - 1}
    if blame:  # (switches can only be blamed for a failure the script shows)
        facts["blame"] = script_blame(script_path) if rc == 1 else {"error": f"the script exits {rc}, not 1"}
    if versions:
        facts["versions"] = replay_versions(script_path, versions)
    if record and failing.entry_name:
        _record_on_entry(failing.entry_name, facts)
    exp_lines, act_lines = derivation(failing, checks) if checks else (
        [f"the program runs and returns its results (the oracle computes them: {len(expected)} output(s))"],
        [f"{v.status}: {(v.message or '').strip()[:600]}"])
    report = UpstreamFacts(
        title=title, backend=failing.backend, versions=backend_versions(failing.backend), program=program,
        inputs=[(str(a.type), _literal(x, a.type)) for a, x in zip(main.arguments, failing.inputs)],
        spec_sentence=op_semantics((v.op or "").replace("stablehlo.", "")) or "(the op's Semantics section)",
        derivation=exp_lines, actual=act_lines, well_defined=well_defined(failing, checks), script=SCRIPT,
        script_needs=_needs(failing.backend), script_run=f"{printed}\n(exit status {rc})",
        commands=(iree_commands(failing.backend, npy) if failing.backend.startswith("iree-") else []),
        link=failing.entry.get("link", ""),
        entry=(f"{failing.entry_name or failing.entry.get('file', '')}: {failing.entry.get('reason', '')}"
               if failing.entry else ""),
        blame=facts.get("blame"), version_range=facts.get("versions"), shrunk_from=failing.ops_before)
    atomic_write_text(os.path.join(out, "report.md"), render_report(report))
    atomic_write_text(os.path.join(out, "upstream.json"), json.dumps(facts, indent=1, default=str) + "\n")
    return facts


def _needs(backend: str) -> str:
    return " and ".join(BACKEND_PACKAGES.get(_package_key(backend), ("the backend",)))


def _program_text(module: ir.Module) -> str:
    return oracle.print_module(module)


def script_blame(script_path: str) -> dict:
    rc, printed = run_script(script_path, "--blame", "--json")
    try:
        return json.loads(printed.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"error": f"exit status {rc}: {printed[-300:]}"}


def blame_field(found: dict) -> list[str]:
    """An entry's ``blame`` value: each switch that alone makes the deviation disappear, else the
    minimal set of them; ["none"] when no switch changes it."""
    if found.get("error") or not (found.get("tried") or found.get("listed")):
        return []
    return [f"{k}={v}" for k, v in found.get("alone") or found.get("minimal", [])] or ["none"]


def _record_on_entry(entry_name: str, facts: dict) -> None:
    stem, _, index = entry_name.rpartition(":")
    if "blame" in facts and blame_field(facts["blame"]):
        set_entry_field(stem, int(index), "blame", blame_field(facts["blame"]))
    if "versions" in facts and facts["versions"].get("field"):
        set_entry_field(stem, int(index), "versions", facts["versions"]["field"])


def cmd_upstream(args) -> int:
    output_folder(args.out)
    if args.all_entries:
        return all_entries(args)
    if not args.finding:
        raise UsageError("upstream needs a FINDING, or --all-entries --backend NAME")
    failing = failing_case(args.finding, args.backend, timeout=args.timeout, shrink_seconds=args.shrink_seconds)
    facts = _written(failing, args.out, args)
    print(f"{facts['title']}\nreport: {os.path.join(args.out, 'report.md')}\n"
          f"standalone reproducer: {os.path.join(args.out, SCRIPT)} (exit {facts['script_exit']} without the suite"
          f"{': reproduces' if facts['reproduces'] else ': does NOT reproduce'})")
    if "blame" in facts:
        print(f"blame: {blame_text(facts['blame'])}")
    if "versions" in facts:
        print(f"versions: {facts['versions']['summary']}")
    return 0 if facts["reproduces"] else 1


def _written(failing: Failing, out: str, args) -> dict:
    backend = usable_backend(failing.backend)
    flushes = bool(backend.flushes_subnormals)
    backend.close()
    try:
        return write_upstream(failing, out, flushes=flushes, blame=args.blame, versions=args.versions)
    except NoStandalone as e:
        raise UsageError(f"{failing.source}: {e}") from None


def all_entries(args) -> int:
    """A report per entry of the backend's deviation file that has (or gets) a reproducer, and index.md."""
    if not args.backend:
        raise UsageError("--all-entries needs --backend NAME")
    stem = args.entries_file or _entries_file(args.backend)
    rows = []
    entries = listed_entries(stem)
    chosen = [int(i) for i in args.entries.split(",")] if args.entries else range(1, len(entries) + 1)
    for index in chosen:
        name = f"{stem}:{index}"
        row = {"entry": name, "op": str(entries[index - 1].get("op", entries[index - 1].get("ops", ""))),
               "link": entries[index - 1].get("link", "")}
        try:
            failing = failing_case(name, args.backend, timeout=args.timeout, shrink_seconds=args.shrink_seconds)
            folder = name.replace(":", "-")
            facts = _written(failing, os.path.join(args.out, folder), args)
            row.update(folder=folder, reproduces="yes" if facts["reproduces"] else f"no (exit {facts['script_exit']})",
                       blame=", ".join(blame_field(facts["blame"])) if "blame" in facts else "")
        except (UsageError, NoStandalone) as e:
            row["problem"] = str(e).splitlines()[0][:200]
        rows.append(row)
        print(f"{name}: {row.get('reproduces') or row.get('problem')}", flush=True)
    atomic_write_text(os.path.join(args.out, "index.md"), render_index(rows))
    atomic_write_text(os.path.join(args.out, "index.json"), json.dumps(rows, indent=1) + "\n")
    done = sum(1 for r in rows if r.get("reproduces") == "yes")
    print(f"{done} of {len(rows)} entries reproduce standalone; index: {os.path.join(args.out, 'index.md')}")
    return 0


def _entries_file(backend: str) -> str:
    for prefix, stem in (("xla-gpu", "xla-gpu"), ("xla", "xla"), ("iree", "iree"), ("torch", "torch"),
                         ("stablehlo-ref", "stablehlo-ref")):
        if backend.startswith(prefix):
            return stem
    raise UsageError(f"which deviation file lists {backend}? (--entries-file STEM)")
