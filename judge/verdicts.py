"""The judge's final answer about one case: ``Verdict``.

Every path that judges a whole program (fuzz campaigns, ``shlo-conform check``/``repro``,
triage) gets one of these from the judge and only stores or displays it; results.json's row
(judge.results.CaseResult) is made from it.  The judge's internal answers (judge_op's
comparison, judge_program's replay details) stay inside judge/.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from .status import Status


@dataclass
class Verdict:
    status: Status | str        # a judge.status.Status (a backend's RunStatus for a run that did not finish)
    message: str = ""
    op: str = ""                # the culprit op's name ("argument": a program argument; "": none)
    dtype: str = ""             # the culprit's result element type
    expected: list | None = None    # the oracle's outputs
    actual: list | None = None      # the backend's outputs
    inputs: list | None = None      # the input set (a dict per process on a process grid)
    triggers: tuple = ()        # known-deviation conditions that hold for the op (judge/conditions/)
    op_index: int = -1          # the culprit's position in @main (-1: not known)
    deviation: dict = field(default_factory=dict)  # the entry explaining it (judge/explain.py; {}: none)
    comparison: object = None   # the judge's comparison of the culprit (judge.compare.Comparison), when made
    max_ulp: float | None = None    # the largest ULP distance measured (a process grid: over every process)
    notes: list = field(default_factory=list)
    replayed: bool = False      # judged on a replay (the backend ran the program again, every value returned)
    #: computes ``masks`` on their first read (judge_program's; a fuzz campaign never reads them)
    masks_from: Callable[[], list] | None = field(default=None, repr=False, compare=False)

    @property
    def masks(self) -> list | None:
        """Implementation-defined elements of the outputs (one mask or None per output), where the
        judge computed them: computed when first read."""
        if self.masks_from is not None:
            self._masks, self.masks_from = self.masks_from(), None
        return getattr(self, "_masks", None)

    @masks.setter
    def masks(self, masks: list | None) -> None:
        self._masks, self.masks_from = masks, None


#: A value judged against a program-level bound (a golden, a first run against its replay): what
#: its status says, in the words messages use (judge/program_bound.py judge_golden).
BOUND_STATE = {Status.PASS: "inexact", Status.MISMATCH: "wrong", Status.UNSUPPORTED: "unjudged"}

