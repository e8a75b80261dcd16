"""The collectives' coverage grid: every collective x process-group strategy x grid shape (up
to 8 processes), one drawn case each through ``run``'s ``check_case`` (``shlo-conform
exhaustive --grid``'s plan).  Above run and grid_run, which judge the cases."""

from __future__ import annotations

import oracle
from generators.collectives import FIXED_GRID, FIXED_STRATEGY, STRATEGIES, all_grids
from oracle.types import element_type
from judge.results import CaseResult

from .run import check_case
from generators.cases import draw_cases


def coverage_plan(ops=None) -> list[tuple[str, str, tuple]]:
    """Every collective x process-group strategy x grid shape (up to 8 processes)."""
    return [(op, strategy, grid) for op in sorted(STRATEGIES) if ops is None or op in ops
            for strategy in STRATEGIES[op] for grid in all_grids()]


def run_coverage(backend, *, dtype: str = "f32", examples: int = 1, seed: int = 0, ops=None,
                 out_dir: str | None = None, on_result=None) -> list[CaseResult]:
    """One drawn case (or ``examples``) per collective x strategy x grid shape; each result's
    ``extra`` names its strategy and grid."""
    results = []
    for op, strategy, grid in coverage_plan(ops):
        tokens = FIXED_GRID.set(grid), FIXED_STRATEGY.set(strategy)
        try:
            cases = draw_cases(oracle.lookup(f"stablehlo.{op}"), element_type(dtype), examples, seed)
        finally:
            FIXED_GRID.reset(tokens[0])
            FIXED_STRATEGY.reset(tokens[1])
        for case in cases:
            result = check_case(case, backend, out_dir=out_dir)
            result.extra = dict(result.extra or {}, strategy=strategy, grid=list(grid))
            results.append(result)
            if on_result:
                on_result(result)
    return results


def coverage_table(results: list[CaseResult]) -> dict[str, dict[str, int]]:
    """``run_coverage``'s results as rows: "collective strategy" -> {status: how many grid shapes}."""
    rows: dict = {}
    for r in results:
        key = f"{r.ops[0].split('.')[-1]} {r.extra['strategy']}"
        rows.setdefault(key, {}).setdefault(r.status, 0)
        rows[key][r.status] += 1
    return rows
