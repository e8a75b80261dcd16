"""A submission package: the files ``certify --out DIR`` writes beside its results so that
anyone can check the certificate without the backend (``shlo-conform verify``, conformance/verify.py).

- ``statement.toml``: what is certified -- the backend's name, version and configuration (the
  environment variables that change it), and the submitter's own fields (``--statement FILE``:
  product, device, contact); what the submitter states, not checked;
- ``plan.json``: the plan -- the suite's version and git commit (``dirty`` and the modified files
  when its tree is not clean), seed, ops, element types, example count, the op x element type
  pairs claimed, every drawn case's id with the sha256 of its program and of its inputs;
- ``environment.json``: Python, every installed distribution, the OS, the CPU model and flags;
- ``outputs.npz``: every differential case's backend outputs (``oracle.arrays.save_array_sets``,
  compressed) and ``outputs.json``: each case's run status and message -- what the judge saw;
- ``waivers.toml``: every deviation entry the verdict relied on, whole, with ``source`` (this
  ``suite`` or the ``submitter``) and the ``file`` it came from;
- ``certificate.txt`` / ``certificate.html``: one page -- verdict, scope, waivers by source, the
  plan's identity;
- ``manifest.sha256``: every other file, in ``sha256sum`` format (``sha256sum -c manifest.sha256``).
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import platform
import subprocess
import sys
import tarfile
import tomllib
from importlib.metadata import PackageNotFoundError, distributions, version

from generators.programs import inputs_digest
from judge.status import FAILING
from oracle.arrays import load_array_sets, save_array_sets
from reports.results import atomic_write_text

SUITE_DISTRIBUTION = "stablehlo-conformance"
SUITE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MANIFEST = "manifest.sha256"
#: Environment variables that change what a backend computes or how (recorded in statement.toml).
CONFIGURATION_PREFIXES = ("XLA_", "JAX_", "IREE_", "TORCH", "TORCHINDUCTOR_", "CUDA_", "OMP_", "MKL_",
                          "OPENBLAS_", "SHLO_")
#: Fields of a plan that every shard of one plan shares (plan.json without its slice and cases).
PLAN_FIELDS = ("suite", "backend", "seed", "max_examples", "ops", "dtypes", "every_class_on_every_type",
               "corpus", "spec")


class PackageError(ValueError):
    """A package that cannot be read (one line naming the file)."""


# ------------------------------------------------------------------ identities

def _git(*args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", SUITE_ROOT, *args], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def suite_identity() -> dict:
    """This suite: its version, git commit, whether its tree is modified, and which files are."""
    try:
        suite_version = version(SUITE_DISTRIBUTION)
    except PackageNotFoundError:
        suite_version = ""
    commit = (_git("rev-parse", "HEAD") or "").strip()
    status = _git("status", "--porcelain", "--untracked-files=no") if commit else None
    modified = sorted(line[3:] for line in (status or "").splitlines() if line.strip())
    return {"name": SUITE_DISTRIBUTION, "version": suite_version, "commit": commit,
            "dirty": bool(modified) if commit else None, "modified": modified}


def case_digest(case) -> dict:
    """A drawn case (generators.programs.Case) as plan.json lists it: id, the pair that drew it,
    program and inputs hashes."""
    return {"id": case.id, "pair": case.pair, "program": hashlib.sha256(case.program.encode()).hexdigest(),
            "inputs": inputs_digest(case.inputs)}


def plan_digest(plan: dict) -> str:
    """The plan's identity: sha256 of plan.json's content (its fields and cases, canonical JSON)."""
    return hashlib.sha256(json.dumps(plan, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def environment() -> dict:
    """Python, every installed distribution with its version, the OS, the CPU model and flags."""
    cpu = {"machine": platform.machine(), "processor": platform.processor(), "count": os.cpu_count()}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "flags") and key.strip() not in cpu:
                    cpu[key.strip()] = value.strip()
    except OSError:
        pass
    dists = sorted({(d.metadata["Name"] or "", d.version) for d in distributions() if d.metadata["Name"]})
    return {"python": sys.version, "implementation": platform.python_implementation(), "os": platform.platform(),
            "cpu": cpu, "distributions": dict(dists)}


def backend_statement(backend, backend_version: str, submitted: dict) -> dict:
    """statement.toml's content: the backend and its configuration, then the submitter's fields."""
    configuration = {k: v for k, v in sorted(os.environ.items()) if k.startswith(CONFIGURATION_PREFIXES)}
    return {"backend": {"name": backend.name, "version": backend_version,
                        "flushes_subnormals": bool(backend.flushes_subnormals),
                        "deviations_file": bool(backend.deviations_file)},
            "configuration": configuration, "submitter": submitted}


def read_statement_file(path: str) -> dict:
    """The submitter's ``--statement`` TOML (any fields); PackageError naming it when unreadable."""
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise PackageError(f"--statement {path}: {e}") from None


# ------------------------------------------------------------------ TOML out

def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return json.dumps(str(value))  # a JSON string is a TOML basic string


def toml_text(tables: dict, arrays: dict | None = None) -> str:
    """Tables of scalars / lists (``{name: {key: value}}``) and arrays of such tables, as TOML."""
    lines = []
    for name, table in tables.items():
        lines.append(f"[{name}]")
        lines += [f"{json.dumps(k)} = {_toml_value(v)}" for k, v in table.items()]
        lines.append("")
    for name, items in (arrays or {}).items():
        for table in items:
            lines.append(f"[[{name}]]")
            lines += [f"{json.dumps(k)} = {_toml_value(v)}" for k, v in table.items()]
            lines.append("")
    return "\n".join(lines)


# ------------------------------------------------------------------ outputs

def write_outputs(folder: str, cases) -> int:
    """outputs.npz and outputs.json: each case's run as the judge saw it (``CaseResult.backend_run``);
    returns how many cases had one."""
    recorded = {case.id: {"status": str(case.backend_run.status), "message": case.backend_run.message or "",
                          "outputs": case.backend_run.outputs} for case in cases if case.backend_run is not None}
    write_recorded(folder, recorded)
    return len(recorded)


def write_recorded(folder: str, recorded: dict) -> None:
    """outputs.npz and outputs.json from ``read_outputs``'s form."""
    save_array_sets(os.path.join(folder, "outputs.npz"),
                    {k: list(v["outputs"]) for k, v in recorded.items() if v["outputs"] is not None})
    runs = {k: {"status": v["status"], "message": v["message"]} for k, v in recorded.items()}
    atomic_write_text(os.path.join(folder, "outputs.json"), json.dumps(runs, indent=0, sort_keys=True) + "\n")


def read_outputs(folder: str) -> dict:
    """{case id: {"status", "message", "outputs" (list of arrays or None)}}."""
    with open(os.path.join(folder, "outputs.json")) as f:
        runs = json.load(f)
    arrays = load_array_sets(os.path.join(folder, "outputs.npz"))
    return {k: dict(v, outputs=arrays.get(k)) for k, v in runs.items()}


# ------------------------------------------------------------------ waivers

def relied_on(cases) -> list[dict]:
    """The deviation entries the verdict relied on (recorded on failing cases), one per entry,
    as waivers.toml writes them: the entry's own fields, then ``source`` and ``file``."""
    waivers = {}
    for case in cases:
        record = case.deviation or {}
        if case.status in FAILING and record.get("entry"):
            key = (record["entry"], record.get("origin", "suite"))
            waivers.setdefault(key, dict(json.loads(record["entry"]), source=record.get("origin", "suite"),
                                         file=record.get("file", "")))
    return [waivers[k] for k in sorted(waivers)]


def write_waivers(folder: str, waivers: list[dict], not_applicable: list[dict]) -> None:
    head = {"waivers": {"about": "every deviation entry the verdict relied on, whole; source: who declared it "
                                 "(suite: this suite's reviewed tables, submitter: --deviations or the backend's "
                                 "own file)", "not_applicable": len(not_applicable)}}
    atomic_write_text(os.path.join(folder, "waivers.toml"),
                      toml_text(head, {"deviation": waivers, "not_applicable": not_applicable}))


def read_waivers(folder: str) -> tuple[list[dict], list[dict]]:
    """(the waivers, the entries not applicable to the backend's version) of waivers.toml."""
    try:
        with open(os.path.join(folder, "waivers.toml"), "rb") as f:
            data = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise PackageError(f"waivers.toml: {e}") from None
    return data.get("deviation", []), data.get("not_applicable", [])


# ------------------------------------------------------------------ the certificate

def certificate_lines(summary: dict) -> list[tuple[str, str]]:
    """The certificate's (label, value) rows, from summary.json alone."""
    plan = summary["plan"]
    waived = summary["waived"]
    scope = summary.get("differential", {})
    rows = [("Backend", f"{summary['backend']} {summary.get('backend_version', '')}".strip()),
            ("Verdict", summary["verdict"].upper()),
            ("Conforms on", f"{len(scope.get('conforms', []))} op x element type pairs"),
            ("Deviates (explained)", f"{len(scope.get('deviates_known', {}))} pairs"),
            ("Deviates (unexplained)", f"{len(scope.get('deviates', {}))} pairs"),
            ("Rejected", f"{len(scope.get('rejected', {}))} pairs"),
            ("Not certified (coverage)", f"{len(scope.get('not_certified', {}))} pairs"),
            ("Not claimed", f"{len(summary.get('not_claimed', {}))} pairs"),
            ("Failures waived by the suite", f"{waived['suite']} case(s)"),
            ("Failures waived by the submitter", f"{waived['submitter']} case(s)"),
            ("Entries not applicable to this version", str(len(summary.get("not_applicable", [])))),
            ("Suite", f"{plan['suite']['version']} commit {plan['suite']['commit'] or 'unknown'}"
                      + (" (MODIFIED tree)" if plan["suite"]["dirty"] else "")),
            ("Plan", f"seed {plan['seed']}, {plan['max_examples']} examples, {plan['cases']} cases, "
                     f"sha256 {plan['digest']}")]
    return rows


def certificate_text(summary: dict) -> str:
    rows = certificate_lines(summary)
    width = max(len(k) for k, _ in rows)
    return ("StableHLO conformance certificate\n\n" + "\n".join(f"{k:<{width}}  {v}" for k, v in rows)
            + "\n\nCheck it: shlo-conform verify THIS_FOLDER\n")


def certificate_html(summary: dict) -> str:
    rows = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>"
                   for k, v in certificate_lines(summary))
    return ("<!doctype html><meta charset=utf-8><title>StableHLO conformance certificate</title>"
            "<style>body{font:15px system-ui;margin:2em}th{text-align:left;padding-right:2em}"
            "td,th{border-bottom:1px solid #ddd;padding:4px}</style>"
            f"<h1>StableHLO conformance certificate</h1><table>{rows}</table>"
            "<p>Check it: <code>shlo-conform verify THIS_FOLDER</code></p>\n")


# ------------------------------------------------------------------ integrity

def file_hash(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def package_files(folder: str) -> list[str]:
    """Every file of the package but the manifest, relative, sorted."""
    out = []
    for root, _, files in os.walk(folder):
        for name in files:
            rel = os.path.relpath(os.path.join(root, name), folder)
            if rel != MANIFEST:
                out.append(rel)
    return sorted(out)


def write_manifest(folder: str) -> None:
    lines = [f"{file_hash(os.path.join(folder, rel))}  {rel}" for rel in package_files(folder)]
    atomic_write_text(os.path.join(folder, MANIFEST), "\n".join(lines) + "\n")


def manifest_problems(folder: str) -> list[str]:
    """Integrity, both ways: each manifest file is there with its hash; no file is there it lacks."""
    path = os.path.join(folder, MANIFEST)
    if not os.path.isfile(path):
        return [f"{MANIFEST}: missing"]
    listed = {}
    with open(path) as f:
        for line in f:
            digest, _, rel = line.rstrip("\n").partition("  ")
            if rel:
                listed[rel] = digest
    problems = []
    for rel, digest in sorted(listed.items()):
        full = os.path.join(folder, rel)
        if not os.path.isfile(full):
            problems.append(f"{rel}: in the manifest, missing from the package")
        elif file_hash(full) != digest:
            problems.append(f"{rel}: its sha256 is not the manifest's")
    problems += [f"{rel}: in the package, not in the manifest" for rel in package_files(folder) if rel not in listed]
    return problems


def write_archive(folder: str) -> str:
    """FOLDER.tar.gz holding the package (its files under the folder's name)."""
    path = os.path.abspath(folder).rstrip(os.sep) + ".tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        tar.add(folder, arcname=os.path.basename(os.path.abspath(folder)))
    return path


def open_package(path: str, unpack_dir: str) -> str:
    """The package's folder: ``path`` itself, or a .tar.gz unpacked under ``unpack_dir``."""
    if os.path.isdir(path):
        return path
    if not (os.path.isfile(path) and tarfile.is_tarfile(path)):
        raise PackageError(f"{path}: neither a package folder nor a .tar.gz of one")
    with tarfile.open(path) as tar:
        tar.extractall(unpack_dir, filter="data")
    inside = [os.path.join(unpack_dir, n) for n in os.listdir(unpack_dir)]
    if len(inside) != 1 or not os.path.isdir(inside[0]):
        raise PackageError(f"{path}: the archive does not hold one package folder")
    return inside[0]


def read_json(folder: str, name: str) -> dict:
    try:
        with open(os.path.join(folder, name)) as f:
            return json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise PackageError(f"{name}: {e}") from None
