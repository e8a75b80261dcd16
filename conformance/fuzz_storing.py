"""A fuzz campaign's findings on disk (conformance/fuzz.py): DIR/findings/<hash>/ holds a
reproducer folder and finding.json per signature, DIR/flaky/<hash>/ a reproducer of each failure
that did not recur on a fresh worker.  A later run over DIR reads the findings back."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import dataclass, field

import oracle
from oracle import ir
from judge.verdict import replay_command
from reports.reproducer import write_reproducer
from reports.results import atomic_write_text

from .fuzz_checking import Verdict, known_reason, op_and_type


@dataclass
class Finding:
    signature: str
    status: str
    reproducer: str
    message: str = ""
    ops: int = 0
    known_deviation: str = ""  # the reason, when judge/deviations/ lists it (still reported)
    drawn: str = ""            # the signature of the drawing it was shrunk from
    shrunk: bool = True        # False: written as drawn (the shrinking share of the budget was spent)
    beside: dict = field(default_factory=dict)  # the other backends' verdicts on the same program
    new: bool = False          # found by this run (not read back from DIR)
    seen_with: list = field(default_factory=list)  # [op, element type] pairs that failed so (a crash site: many)

    def record(self) -> dict:
        """What finding.json holds."""
        return {k: v for k, v in self.__dict__.items() if k != "new"}


def folder_name(signature: str) -> str:
    return hashlib.sha256(signature.encode()).hexdigest()[:16]


class FindingsFolder:
    """DIR/findings: ``findings`` (signature -> Finding) read back from it, and kept written."""

    def __init__(self, out_dir: str):
        self.out_dir = out_dir
        self.root = os.path.join(out_dir, "findings")
        self.findings: dict[str, Finding] = {}
        for name in sorted(os.listdir(self.root)) if os.path.isdir(self.root) else []:
            path = os.path.join(self.root, name, "finding.json")
            if os.path.exists(path):
                with open(path) as f:
                    data = json.load(f)
                known = {k: data[k] for k in Finding.__dataclass_fields__ if k in data and k != "new"}
                self.findings[data["signature"]] = Finding(**known)

    def write(self, backend, signature: str, module: ir.Module, verdict: Verdict, **extra) -> Finding:
        """The finding of ``signature``: ``module`` on the verdict's inputs as its reproducer (a
        shrunk program replaces the drawn one under the same signature, keeping its seen_with)."""
        folder = folder_name(signature)
        program = oracle.print_module(module)
        inputs, expected, actual = verdict.inputs or [], verdict.expected, verdict.actual
        if isinstance(inputs, dict):  # a grid: the program marked with its grid, values in process order
            from adapters.base import grid_program
            pids = sorted(inputs)
            program = grid_program(program, 1 + max(r for r, _ in pids), 1 + max(p for _, p in pids))
            inputs, expected, actual = ([x for pid in pids for x in values[pid]] if values is not None else None
                                        for values in (inputs, expected, actual))
        reproducer = write_reproducer(os.path.join(self.root, folder), case_id=folder, backend=backend.name,
                                      status=verdict.status, program=program, inputs=inputs, expected=expected,
                                      actual=actual, message=verdict.message)
        message = f"{verdict.message[:2000]}\n{replay_command(reproducer, backend.name)}"
        previous = self.findings.get(signature)  # (the drawn program's, now shrunk)
        finding = Finding(signature, verdict.status, reproducer, message, len(module.main.ops) - 1,
                          known_reason(backend.name, verdict, module), new=True,
                          seen_with=list(previous.seen_with) if previous else [], **extra)
        if op_and_type(verdict) not in finding.seen_with:
            finding.seen_with.append(op_and_type(verdict))
        self.findings[signature] = finding
        self.write_record(finding)
        return finding

    def write_record(self, finding: Finding) -> None:
        """finding.json says what is known of ``finding`` now."""
        folder = os.path.join(self.root, folder_name(finding.signature))
        if os.path.isdir(folder):  # (one an earlier run shrunk may be kept elsewhere: the store's)
            atomic_write_text(os.path.join(folder, "finding.json"), json.dumps(finding.record(), indent=1) + "\n")

    def seen_with(self, signature: str, verdict: Verdict) -> bool:
        """The finding of ``signature`` lists the (op, element type) of ``verdict`` too (a crash
        bucket gathers every one that reached its site): whether that is news."""
        finding = self.findings.get(signature)
        if finding is None or op_and_type(verdict) in finding.seen_with:
            return False
        finding.seen_with.append(op_and_type(verdict))
        self.write_record(finding)
        return True

    def remove(self, finding: Finding) -> None:
        """A drawn finding whose shrunk program failed under another signature: gone from DIR."""
        shutil.rmtree(os.path.join(self.root, folder_name(finding.signature)), ignore_errors=True)
        self.findings.pop(finding.signature, None)

    def write_flaky(self, backend, signature: str, module: ir.Module, verdict: Verdict) -> str:
        """A reproducer of a flaky failure (what the campaign saw), under DIR/flaky/<hash>/."""
        if isinstance(verdict.inputs, dict):
            return ""
        folder = folder_name(signature)
        return write_reproducer(os.path.join(self.out_dir, "flaky", folder), case_id=folder, backend=backend.name,
                                status=verdict.status, program=oracle.print_module(module), inputs=verdict.inputs,
                                expected=verdict.expected, actual=verdict.actual, message=verdict.message)
