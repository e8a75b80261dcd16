"""Portability hazards across backends: after one run per backend, the implementation-defined
cases whose masked elements the backends answer differently are marked ``divergent`` in every
backend's results.json (judge/divergence.py compares them; they do not fail a run)."""

from __future__ import annotations

from judge.divergence import divergence
from reports.results import mark_divergent


def mark_divergence(runs: dict[str, tuple[list, str]]) -> dict[str, dict]:
    """``runs``: backend name -> (its results, its results.json).  Returns case id -> the first
    disagreement (judge/divergence.py's description) for every divergent case, each results.json
    rewritten with them."""
    by_case: dict = {}
    for name, (results, _) in runs.items():
        for r in results:
            by_case.setdefault(r.id, {})[name] = getattr(r, "masked_outputs", None)
    divergent = {case_id: d for case_id, values in by_case.items() if (d := divergence(values))}
    for _, path in runs.values():
        mark_divergent(path, divergent)
    return divergent
