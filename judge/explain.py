"""Which listed deviation explains a failure: the judge's answer, as callers above it read it.

The tables (``judge/deviations/*.toml``) and their conditions are the judge's own
(judge/known_deviations.py, judge/conditions/: nothing outside judge/ imports them).  A
failure's explaining entry is put on what the judge returns -- ``Verdict.deviation``
(judge/verdicts.py), ``CaseResult.deviation`` -- as ``recorded`` writes it (file, op, types,
statuses, reason, condition, link; ``{}``: no entry explains it), and reports only display it.
This module is the door for the few places that make a failure outside the judge (a run that
crashed, a stored finding, a sweep) and need its entry, and for the table's other questions
(what a backend refuses, which entries went stale).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .known_deviations import SUITE, Deviation, deviation_for, known_deviation, recorded
from .known_deviations import load_deviations, stale_deviations  # noqa: F401 (the tables themselves, their stale entries)
# the submitter's entries, the backend's version their ``versions`` are checked against, the
# entries that version excludes, and what a suite entry is (for a certificate's waivers)
from .known_deviations import (SUBMITTER, SUITE_ENTRIES, DeviationFileError, canonical_entry,  # noqa: F401
                               declare_backend_version, drop_deviations, load_deviation_file, not_applicable,
                               use_deviation_file)
from .messages import source_locations
from .status import FAILING, Status

if TYPE_CHECKING:  # for annotations: judge/results.py reads cases through these lookups
    from .results import CaseResult


@dataclass(frozen=True)
class Explained:
    """The entry explaining a failure of one op (``recorded``'s form; {}: none) and the
    conditions (judge/conditions/) found to hold for the op on its operands."""
    deviation: dict
    triggers: tuple = ()


def explain_op(backend: str, op: str, dtype: str, status: str, op_ir=None, operands=None, preceding=None, *,
               triggers: tuple | None = None) -> Explained:
    """The entry explaining a case whose op ``op`` (element types ``dtype``, joined by ",") ended in
    ``status``: with ``triggers`` (the conditions the judge already found), those decide an entry's
    condition; else they are checked here on the op (``op_ir``, an oracle.ir.Op), its operands'
    values and, for program conditions, the ops before it (``preceding``)."""
    if triggers is not None:
        triggers = tuple(triggers)
        return Explained(recorded(known_deviation(backend, op, dtype, status, triggers)), triggers)
    found = deviation_for(backend, op, dtype, status, op_ir, operands, preceding)
    return Explained(recorded(found.deviation), found.triggers)


def element_names(types) -> set[str]:
    """The element type names of ``types`` (TensorTypes, or names), as the entries' patterns see them."""
    return {str(getattr(t, "element_type", t)) for t in types}


@dataclass(frozen=True)
class Blame:
    """Which entry explains a failure (None: none does) and the ops and element types the case
    is named after so that the entry matches it again (results.json, ``explain_case``)."""
    deviation: Deviation | None
    ops: tuple
    dtypes: tuple


def explain_failure(backend: str, status: str, op: str, dtype: str, triggers=(), module=None) -> Blame:
    """The entry explaining a failure the judge attributed to ``op`` (its result element type
    ``dtype``; ``triggers``: the conditions found to hold for it) in ``module``.  A mismatch is
    the op the judge blamed, also under its operands' types (the table names an op as the
    one-op run does: is_finite on f8E8M0FNU -> i1); a crash, timeout or error has no exact
    culprit, so any op of the program with all the program's element types may explain it (the
    f6 crash of a convert from f6 to f32); such an entry needs no condition (a condition
    explains only the op it was evaluated on)."""
    deviation = known_deviation(backend, op, dtype, status, triggers)
    if deviation is not None or module is None:
        return Blame(deviation, (op,), (dtype,) if dtype else ())
    main = module.main
    if status == Status.MISMATCH:
        for culprit in (o for o in main.ops if o.name == op):
            types = tuple(sorted(element_names([v.type for v in culprit.operands])))
            deviation = known_deviation(backend, op, ",".join(types), status, triggers)
            if deviation is not None:
                return Blame(deviation, (op,), types)
        return Blame(None, (op,), (dtype,) if dtype else ())
    types = tuple(sorted(element_names([a.type for a in main.arguments] + [r.type for o in main.ops for r in o.results])))
    deviation = next((d for o in main.ops for d in [known_deviation(backend, o.name, ",".join(types), status)] if d), None)
    if deviation is None:
        return Blame(None, (op,), (dtype,) if dtype else ())
    return Blame(deviation, tuple(sorted({o.name for o in main.ops if o.name != "func.return"})), types)


def entry_for(backend: str, verdict, module=None) -> dict:
    """The entry explaining a judged case (a judge.verdicts.Verdict), as ``recorded``: the one the
    judge recorded on it, else -- a crash, timeout or error has no judged culprit -- the one
    ``explain_failure`` finds for its op, or any op of ``module`` ({}: none does)."""
    if verdict.deviation or verdict.status not in FAILING:
        return dict(verdict.deviation or {})
    return recorded(explain_failure(backend, verdict.status, verdict.op, verdict.dtype, verdict.triggers,
                                    module).deviation)


def _from_record(record: dict) -> Deviation | None:
    if not record:
        return None
    return Deviation(record["backend"], record["op"], record["dtypes"], tuple(record["statuses"]), record["reason"],
                     record.get("link", ""), record.get("file", ""), record.get("condition", ""),
                     record.get("versions", ""), record.get("origin", SUITE), record.get("entry", ""))


def deviation_for_case(backend: str, case: CaseResult) -> Deviation | None:
    """The entry explaining a failing case (a CaseResult: any of its ops, all its element types;
    the conditions the judge found in ``case.extra["triggers"]``).  A case read from results.json
    carries the entry its run recorded (``case.deviation``, see ``recorded``): that one is it.  An
    empty record (no entry explained it then) is matched again: asked about another backend's
    table, or after an entry was added."""
    if case.deviation:
        return _from_record(case.deviation)
    dtypes = ",".join(case.dtypes)
    triggers = tuple((case.extra or {}).get("triggers", ()))
    for op in case.ops or [""]:
        d = known_deviation(backend, op, dtypes, case.status, triggers)
        if d is not None:
            return d
    return None


def explain_case(backend: str, case) -> dict:
    """The entry explaining a case result of ``backend`` (``deviation_for_case``: the one its run
    recorded, else matched again), recorded on it as ``case.deviation`` and returned ({}: none)."""
    case.deviation = recorded(deviation_for_case(backend, case))
    return case.deviation


def explain_seen(backend: str, status: str, seen_with) -> Deviation | None:
    """The entry explaining a stored finding (no replay): the first of its (op, element type)
    pairs an entry without a condition explains (no condition can be checked without the values)."""
    return next((d for op, dtype in seen_with for d in [known_deviation(backend, op, dtype, status)] if d), None)


#: Statuses that say "this backend refuses or dies on it" (a probe's answers use them too).
REFUSALS = (Status.REJECTED, Status.CRASH)


def refuses(backend: str, op: str, dtype: str) -> bool:
    """An entry without a condition says ``backend`` refuses or crashes on ``op`` in ``dtype``."""
    return any(known_deviation(backend, op, dtype, status) for status in REFUSALS)


def describe(record: dict) -> str:
    """One line naming a recorded entry: the file that lists it, its op and element types, the
    condition it needs, its reason."""
    when = f", when {record['condition']}" if record.get("condition") else ""
    return (f"{record.get('file') or 'a deviation table'}: {record['op']} ({record['dtypes']}){when}: "
            f"{record['reason']}")


def names_the_site(record: dict, site: str) -> bool:
    """Whether a recorded entry may explain a crash at ``site`` (judge/messages.py ``crash_site``) by
    the source locations its reason names: it names the site's, or names none (then its op and
    condition decide)."""
    named = set(source_locations(record["reason"]))
    here = source_locations(site)
    return not named or bool(here and here[0] in named)
