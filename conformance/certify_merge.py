"""``shlo-conform certify-merge DIR... --out PACKAGE``: one submission package from the shards
of one plan (``certify --shard i/N``), which ``verify`` checks like a one-machine package.

Every shard must hold the same plan (plan.json's ``PLAN_FIELDS``: suite, backend, seed,
examples, ops, types) and the same statement, and the shards 0 .. N-1 each exactly once: a
shard given twice, one missing, or shards of different N are errors.  The merged package holds
the shards' cases in the plan's order (pair i of the plan is in shard i mod N), their recorded
outputs and reproducers, each shard's environment, and results, report, summary, waivers and
certificate written again from the joined results.
"""

from __future__ import annotations

import os
import shutil

from judge.results import CaseResult

from .certify import RESULT_FILES, write_json, write_package
from .package import PLAN_FIELDS, PackageError, read_json, read_outputs, read_waivers, write_manifest, write_recorded
from .run import plan


def merge_shards(folders: list[str], out: str) -> dict:
    """Write the merged package to ``out``; returns its summary.json content."""
    shards = [_shard(folder) for folder in folders]
    count = shards[0]["plan"]["shard"][1]
    for shard in shards[1:]:
        for key in PLAN_FIELDS:
            if shard["plan"].get(key) != shards[0]["plan"].get(key):
                raise PackageError(f"{shard['folder']}: plan.json's {key} differs from {shards[0]['folder']}'s: "
                                   "the shards are not of one plan")
        if shard["statement"] != shards[0]["statement"]:
            raise PackageError(f"{shard['folder']}: statement.toml differs from {shards[0]['folder']}'s")
    indexes = sorted(s["plan"]["shard"][0] for s in shards)
    counts = {s["plan"]["shard"][1] for s in shards}
    if counts != {count}:
        raise PackageError(f"shards of different counts: {sorted(counts)}")
    if len(set(indexes)) != len(indexes):
        twice = sorted({i for i in indexes if indexes.count(i) > 1})
        raise PackageError(f"shard(s) {', '.join(f'{i}/{count}' for i in twice)} given more than once (overlapping)")
    missing = sorted(set(range(count)) - set(indexes))
    if missing:
        raise PackageError(f"shard(s) {', '.join(f'{i}/{count}' for i in missing)} missing")
    shards.sort(key=lambda s: s["plan"]["shard"][0])

    os.makedirs(out, exist_ok=True)
    first = shards[0]
    merged = {k: first["plan"][k] for k in PLAN_FIELDS}
    merged["shard"] = [0, 1]
    merged["merged_from"] = count
    merged["pairs"], merged["cases"] = _in_plan_order(shards)
    order = {c["id"]: k for k, c in enumerate(merged["cases"])}
    runs = []
    for kind in RESULT_FILES:
        results = [_moved(c, s["folder"], out) for s in shards for c in s["results"].get(kind, [])]
        if kind == "differential":  # (a generator's error result, drawn no case: after the cases)
            results.sort(key=lambda c: order.get(c.id, len(order)))
        if kind in first["results"] or results:
            runs.append((kind, results))
    recorded = {}
    for shard in shards:
        recorded.update(read_outputs(shard["folder"]))
        reproducers = os.path.join(shard["folder"], "reproducers")
        if os.path.isdir(reproducers):
            shutil.copytree(reproducers, os.path.join(out, "reproducers"), dirs_exist_ok=True)
    write_recorded(out, recorded)
    write_json(out, "plan.json", merged)
    write_json(out, "environment.json", {"shards": [s["environment"] for s in shards]})
    shutil.copyfile(os.path.join(first["folder"], "statement.toml"), os.path.join(out, "statement.toml"))
    not_claimed = {k: v for s in shards for k, v in s["summary"].get("not_claimed", {}).items()}
    summary = write_package(out, merged["backend"], runs, merged, not_claimed, versions=first["summary"]["versions"],
                            backend_version=first["summary"].get("backend_version", ""),
                            not_applicable=read_waivers(first["folder"])[1])
    write_json(out, "timing.json", {"shards": [s["timing"] for s in shards]})
    write_manifest(out)
    return summary


def _moved(case: CaseResult, shard: str, out: str) -> CaseResult:
    """``case`` with its reproducer folder where the merged package holds it."""
    inside = os.path.relpath(case.reproducer, shard) if case.reproducer else ""
    if inside and not inside.startswith(os.pardir):
        case.reproducer = os.path.join(out, inside)
    return case


def _shard(folder: str) -> dict:
    if not os.path.isdir(folder):
        raise PackageError(f"{folder}: not a package folder")
    the_plan = read_json(folder, "plan.json")
    if not the_plan.get("shard"):
        raise PackageError(f"{folder}: plan.json names no shard")
    results = {}
    for kind, name in RESULT_FILES.items():
        if os.path.exists(os.path.join(folder, name)):
            results[kind] = [CaseResult.from_json(c) for c in read_json(folder, name).get("cases", [])]
    with open(os.path.join(folder, "statement.toml")) as f:
        statement = f.read()
    timing = read_json(folder, "timing.json") if os.path.exists(os.path.join(folder, "timing.json")) else {}
    return {"folder": folder, "plan": the_plan, "results": results, "statement": statement, "timing": timing,
            "environment": read_json(folder, "environment.json"), "summary": read_json(folder, "summary.json")}


def _in_plan_order(shards: list[dict]) -> tuple[list, list]:
    """The claimed pairs and the cases of every shard in the plan's order (this suite's plan for
    the shards' ops and types; each case names the pair that drew it)."""
    header = shards[0]["plan"]
    ops = None if header["ops"] == "all" else header["ops"]
    dtypes = None if header["dtypes"] == "all" else header["dtypes"]
    position = {f"{info.name}:{et}": k for k, (info, et) in enumerate(plan(ops, dtypes))}
    pairs = [p for s in shards for p in s["plan"]["pairs"]]
    unknown = [p for p in pairs if p not in position]
    if unknown:
        raise PackageError(f"pair(s) {', '.join(unknown[:5])} are not in this suite's plan: merge with the suite "
                           "version that made the shards")
    pairs.sort(key=position.__getitem__)
    cases = sorted((c for s in shards for c in s["plan"]["cases"]), key=lambda c: position[c["pair"]])
    return pairs, cases
