"""Drawing a fuzz campaign's programs (conformance/fuzz.py): which ops and element types to aim
at (not what a backend is known to refuse or die on), and rounds of Hypothesis drawing, each
seeded by (seed, shard, round) so that a resumed campaign goes on with new programs."""

from __future__ import annotations

import dataclasses
import json
import os
import time
import warnings

from oracle import ir
from judge.explain import REFUSALS, element_names, refuses

from .probe import load_support

#: Programs per round of Hypothesis drawing (a stopped campaign wastes at most a round's draws).
ROUND_PROGRAMS = 20


def known_refusals(backend, ops) -> dict[str, set[str]]:
    """op name -> element types ``backend`` is known to refuse or crash on: its probe cache's
    answers (``shlo-conform probe``) and the deviation table's entries without a condition."""
    refused: dict[str, set[str]] = {}
    for op, types in load_support(backend).items():
        for name, entry in types.items():
            if isinstance(entry, dict) and entry.get("status") in REFUSALS:
                refused.setdefault(op, set()).add(name)
    for info in ops:
        for name in info.element_types:
            if refuses(backend.name, info.name, name):
                refused.setdefault(info.name, set()).add(name)
    return refused


def aimed_ops(ops, *, dtypes=None, exclude_dtypes=(), refused: dict | None = None) -> list:
    """OpInfos restricted to the element types wanted (and not known refused); ops left with
    none are dropped.  (Connecting values may still bring other types: compare's i1, indices.)"""
    out = []
    for info in ops:
        names = tuple(t for t in info.element_types
                      if (dtypes is None or t in dtypes) and t not in exclude_dtypes
                      and t not in (refused or {}).get(info.name, ()))
        if names:
            out.append(info if names == tuple(info.element_types) else dataclasses.replace(info, element_types=names))
    return out


def touches(module: ir.Module, refused: dict[str, set[str]]) -> bool:
    """Does a top-level op of @main use an element type ``refused`` lists for it?"""
    for op in module.main.ops:
        types = refused.get(op.name)
        if types and element_names([v.type for v in op.operands + op.results]) & types:
            return True
    return False


def program_strategy(*, grid: bool, max_ops: int, ops: list, mode: str = "random", seeds=None):
    """The Hypothesis strategy of a campaign's programs: those of ``mode`` (random DAGs of ``ops``,
    mutants of the real programs of ``seeds``, templates, or a mix: model_programs.campaign_programs),
    or programs on random process grids (collectives mixed with ordinary ops)."""
    from generators.model_programs import campaign_programs
    from generators.random_programs import grid_programs
    return grid_programs(max_ops=max_ops) if grid else campaign_programs(mode, seeds, max_ops=max_ops, ops=ops)


def rounds_done(out_dir: str, seed: int, shard: tuple[int, int]) -> int:
    """Rounds an earlier run of this campaign (same seed and shard) finished, from summary.json."""
    try:
        with open(os.path.join(out_dir, "summary.json")) as f:
            old = json.load(f)
    except (OSError, ValueError):
        return 0
    if not isinstance(old, dict) or old.get("seed") != seed or old.get("shard") != list(shard):
        return 0
    rounds = old.get("rounds", 0)
    return rounds if isinstance(rounds, int) and rounds > 0 else 0


#: Rounds in a row that end in an exception before a campaign stops drawing (``draw_rounds``).
FAILED_ROUNDS_IN_A_ROW = 3


def draw_rounds(strategy, *, seed: int, shard_index: int, first_round: int, out_of_budget, batch_size,
                on_program, on_error):
    """Rounds of Hypothesis drawing until ``out_of_budget()``, yielding the number of rounds done
    after each.  A round draws ``batch_size()`` programs from ``strategy`` (no shrinking: the
    campaign shrinks within its share) and hands each to ``on_program(program, drawing_started)``
    unless the budget is out; an exception a round raises (a generator bug) goes to
    ``on_error(round_no, exception)`` and ends that round, not the campaign -- unless
    FAILED_ROUNDS_IN_A_ROW rounds in a row end so: the drawing stops then (a campaign without a
    time budget would go on failing for ever)."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed
    from hypothesis.errors import HypothesisWarning

    # (the ops list makes the strategy's repr long; Hypothesis warns about it once per round)
    warnings.filterwarnings("ignore", "Generating overly large repr", HypothesisWarning)
    round_no, failed_in_a_row = first_round, 0
    while not out_of_budget() and failed_in_a_row < FAILED_ROUNDS_IN_A_ROW:
        mark = {"t": time.perf_counter()}  # the end of the last program: drawing starts there

        @hypothesis_seed(seed * 1_000_003 + shard_index * 10_007 + round_no)
        @settings(max_examples=batch_size(), deadline=None, database=None, derandomize=False,
                  suppress_health_check=list(HealthCheck), print_blob=False, phases=[Phase.generate])
        @given(strategy)
        def campaign_round(program):
            if not out_of_budget():
                on_program(program, mark["t"])
            mark["t"] = time.perf_counter()

        try:
            campaign_round()
            failed_in_a_row = 0
        except Exception as e:  # a generator bug ends its round, not the night's campaign
            on_error(round_no, e)
            failed_in_a_row += 1
        round_no += 1
        yield round_no
