"""Findings grouped by root cause: cases that fail the same op the same way are ONE finding.

A vendor reading 45 failing cases wants the ~8 problems behind them: 30 ``dot_general`` cases
over every unsigned operand x wider result type pair that all sign-extend their operands are
one bug.  ``group_cases`` sorts the non-passing cases of one backend into groups by this rule
(element types, shapes, attributes and input values are never part of a key):

=========================================  ==========================================================
case                                        group key: (status, op, ...)
=========================================  ==========================================================
a failure a listed deviation explains       the deviation entry (judge/deviations/*.toml: its file and
                                            reason) -- its ``when`` condition is part of the entry
``mismatch``                                the RELATION between expected and actual (table below) of
                                            the elements the judge reported (``CaseResult.mismatches``,
                                            or the rows of the judge's message where a case has none)
``mismatch`` without element evidence       the first line of the message, normalized (below)
(shapes, output count, a statistical test)
``crash``                                   the crash site (judge/messages.py ``crash_site``: the
                                            abort's ``file.cc:LINE`` and what it says there, a fatal
                                            message, or the signal and the backend's top frames);
                                            else the first line of the backend's stderr, else of
                                            the message, normalized
``timeout``, ``error``, ``rejected``        the first line of the message that says ``error`` (a
                                            compiler's warnings come first), else its first line,
                                            normalized
=========================================  ==========================================================

Normalized (judge/messages.py ``normalized``): element type names become ``T``, shaped types
``tensor<...>``, numbers ``N``, folders of a path are dropped and a printed MLIR op is cut off --
so the same message about another type, shape, rank or value is the same key.

Relations of one mismatching element (expected e, actual a), the first that holds:

=======================  ===================================================================
relation                 holds when
=======================  ===================================================================
number where NaN         e is NaN, a is not (complex: NaN = either part NaN, as the judge reads it)
NaN where number         a is NaN, e is not
signed zero              e and a are zeros of opposite sign (the judge's "wrong sign of zero")
flushed subnormal        a is 0, e is not but |e| < 2 x the smallest normal (a subnormal or a value
                         of the smallest normal binade: flushed, or computed from flushed operands)
inf/overflow             e or a is infinite (and they differ)
wrong sign               a == -e
sign-extended unsigned   integer result wider than the case's unsigned integer operand type of k
                         bits (``CaseResult.dtypes[0]``), a - e a multiple of 2**k: an operand
                         >= 2**(k-1) was read as negative
zero-extended signed     the same for a signed operand type: a negative operand read as unsigned
off by k ULP             floats: at most SMALL_ULP units in the last place apart; integers: off by
                         one (a rounding or truncation slip; further is a wrong value)
wrong value              anything else
=======================  ===================================================================

A complex element takes the relation of its differing component (both differ: the first in
the table).  A case's relation is the one most of its reported elements have (a tie: the first
in the table); a group's is that of most of its members.  Reading the evidence is not judging:
the judge (judge/compare.py) decided that these elements fail; here we only name how.

Layer: judge (reads judge.results.CaseResult, as ``explain.deviation_for_case`` does);
reports/ shows the groups (closing summary, results.json ``groups``, HTML, JUnit).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable

import numpy as np

from oracle.numerics import from_bits, isnan, signbit, ulp_distance
from oracle.types import as_element_type

from .explain import deviation_for_case
from .known_deviations import Deviation
from .messages import HEADLINE_CHARS, crash_site, normalized
from .status import FAILING, Status

if TYPE_CHECKING:  # for annotations: judge/results.py builds its runs on the groups
    from .results import CaseResult

__all__ = ["RELATIONS", "SMALL_ULP", "Group", "group_cases", "element_relations", "element_evidence",
           "case_relation", "failure_headline", "normalized", "case_op"]

NUMBER_WHERE_NAN, NAN_WHERE_NUMBER = "number where NaN", "NaN where number"
SIGNED_ZERO, FLUSHED, OVERFLOW, WRONG_SIGN = "signed zero", "flushed subnormal", "inf/overflow", "wrong sign"
SIGN_EXTENDED, ZERO_EXTENDED = "sign-extended unsigned", "zero-extended signed"
OFF_BY_ULP, WRONG_VALUE = "off by k ULP", "wrong value"
#: The relations in the order they are tried (module docstring).
RELATIONS = (NUMBER_WHERE_NAN, NAN_WHERE_NUMBER, SIGNED_ZERO, FLUSHED, OVERFLOW, WRONG_SIGN, SIGN_EXTENDED,
             ZERO_EXTENDED, OFF_BY_ULP, WRONG_VALUE)
_EQUAL = "equal"  # a component that does not differ (complex elements only)
#: "A few ULP": the top of the judge's "5-16" histogram bucket (judge/compare.py ULP_BUCKETS);
#: beyond it a result is a wrong value, not a rounding or accuracy slip.
SMALL_ULP = 16
#: Statuses that form groups; ``rejected`` groups are not failures (never "new problems").
GROUPED = (Status.MISMATCH, Status.COMPILER_ERROR, Status.CRASH, Status.TIMEOUT, Status.ERROR, Status.REJECTED)
FAILURES = FAILING  # every grouped status but rejected


# ------------------------------------------------------------------ element relations

def element_relations(expected, actual, element_type, operand_type=None) -> np.ndarray:
    """The relation (module docstring) of each element pair, as an array of names."""
    et = as_element_type(element_type)
    e, a = np.asarray(expected), np.asarray(actual)
    if et.is_complex:
        re_, im = (_float_relations(x, y, et.component) for x, y in ((e.real, a.real), (e.imag, a.imag)))
        order = {name: i for i, name in enumerate((_EQUAL,) + RELATIONS)}
        first = np.where(np.vectorize(order.get)(re_) <= np.vectorize(order.get)(im), re_, im)
        both = np.where(re_ == _EQUAL, im, np.where(im == _EQUAL, re_, first))
        e_nan, a_nan = isnan(e), isnan(a)
        return np.select([e_nan & a_nan, e_nan, a_nan], [_EQUAL, NUMBER_WHERE_NAN, NAN_WHERE_NUMBER], both)
    if et.is_float:
        return _float_relations(e, a, et)
    if et.is_integer:
        operand = as_element_type(operand_type) if operand_type is not None else None
        return _integer_relations(e, a, et, operand)
    return np.full(e.shape, WRONG_VALUE)


def _float_relations(e: np.ndarray, a: np.ndarray, et) -> np.ndarray:
    with np.errstate(invalid="ignore", over="ignore"):
        ef, af = e.astype(np.float64), a.astype(np.float64)
        e_nan, a_nan = np.isnan(ef), np.isnan(af)
        ulps = ulp_distance(e, a)
        rules = (
            ((e_nan & a_nan) | ((ef == af) & (signbit(e) == signbit(a))), _EQUAL),
            (e_nan, NUMBER_WHERE_NAN),
            (a_nan, NAN_WHERE_NUMBER),
            ((ef == 0) & (af == 0), SIGNED_ZERO),
            ((af == 0) & (np.abs(ef) < 2 * float(et.finfo.smallest_normal)), FLUSHED),
            (np.isinf(ef) | np.isinf(af), OVERFLOW),
            (af == -ef, WRONG_SIGN),
            (ulps <= SMALL_ULP, OFF_BY_ULP),
        )
        return np.select([c for c, _ in rules], [name for _, name in rules], WRONG_VALUE)


def _integer_relations(e: np.ndarray, a: np.ndarray, et, operand) -> np.ndarray:
    as_int = np.vectorize(int, otypes=[object])  # exact for ui64 too
    difference = as_int(a) - as_int(e)
    rules = []
    if operand is not None and getattr(operand, "is_integer", False) and operand.bits < et.bits:
        wrapped = (difference % (1 << operand.bits) == 0).astype(bool)
        rules.append((wrapped, SIGN_EXTENDED if operand.is_unsigned else ZERO_EXTENDED))
    rules.append((abs(difference) == 1, OFF_BY_ULP))
    return np.select([np.asarray(c, dtype=bool) for c, _ in rules], [name for _, name in rules], WRONG_VALUE)


# ------------------------------------------------------------------ a case's relation

_BITS = re.compile(r"0x[0-9a-fA-F]+")
# the judge's message format (judge/compare.py): a block header naming the type, then its rows
_MESSAGE_TYPE = re.compile(r"differ \(([^ ,]+), tolerance")
_MESSAGE_ROW = re.compile(r"\]: expected (?P<ev>.*?) \((?P<eb>0x[0-9a-fA-F]+(?:, 0x[0-9a-fA-F]+)?)\), "
                          r"actual (?P<av>.*?) \((?P<ab>0x[0-9a-fA-F]+(?:, 0x[0-9a-fA-F]+)?)\)")


def _type_or_none(name: str):
    try:
        return as_element_type(name)
    except (KeyError, ValueError, TypeError):
        return None  # a quantized type's text, an unknown name


def _evidence(case: CaseResult) -> list[tuple[str, str, str, str]]:
    """(element type, expected bits, actual bits, "expected X, actual Y") of the mismatching
    elements the judge reported: the case's ``mismatches`` rows, or else the rows of its message."""
    rows = [(m.get("dtype") or (case.dtypes[-1] if case.dtypes else ""), m.get("expected_bits", ""),
             m.get("actual_bits", ""), f"expected {m.get('expected')}, actual {m.get('actual')}")
            for m in (case.mismatches or [])]
    if rows:
        return rows
    et = ""
    for line in (case.message or "").splitlines():
        header = _MESSAGE_TYPE.search(line)
        if header:
            et = header.group(1)
        row = _MESSAGE_ROW.search(line)
        if row and et:
            rows.append((et, row["eb"], row["ab"], f"expected {row['ev']}, actual {row['av']}"))
    return rows


def _decoded(bits: str, et) -> np.ndarray | None:
    words = [int(h, 16) for h in _BITS.findall(bits)]
    if len(words) != (2 if et.is_complex else 1):
        return None
    return from_bits(np.array(words if et.is_complex else words[0], dtype=np.uint64), et)


def _most_common(names) -> str:
    counts = Counter(names)
    return max(counts, key=lambda name: (counts[name], -RELATIONS.index(name)))


def element_evidence(case: CaseResult) -> list[tuple[str, str]]:
    """(relation, "expected X, actual Y") of each mismatching element the judge reported for
    ``case``, in its order (elements whose bits cannot be read are left out)."""
    operand = _type_or_none(case.dtypes[0]) if case.dtypes else None
    rows = _evidence(case)
    found = {}
    for name in dict.fromkeys(r[0] for r in rows):  # one vectorized call per element type
        et = _type_or_none(name)
        if et is None:
            continue
        et = et.storage_type if getattr(et, "is_quantized", False) else et  # compared as storage integers
        decoded = [(k, _decoded(r[1], et), _decoded(r[2], et)) for k, r in enumerate(rows) if r[0] == name]
        decoded = [(k, e, a) for k, e, a in decoded if e is not None and a is not None]
        if decoded:
            expected, actual = (np.stack([d[i] for d in decoded]) for i in (1, 2))
            found.update(zip((d[0] for d in decoded), element_relations(expected, actual, et, operand)))
    return [(str(found[k]), rows[k][3]) for k in sorted(found) if found[k] != _EQUAL]


def case_relation(case: CaseResult) -> str:
    """How a mismatching case fails (module docstring); its normalized first message line when
    it has no element evidence."""
    names = [relation for relation, _ in element_evidence(case)]
    return _most_common(names) if names else failure_headline(case)


# --------------------------------------------------------------- messages and crash sites

_ERROR = re.compile(r"\berror\b", re.IGNORECASE)


def failure_headline(case: CaseResult) -> str:
    """The crash site, or the first line of the stderr / message, normalized (module docstring)."""
    lines = [line.strip() for line in (case.message or "").splitlines() if line.strip()]
    if case.status == Status.CRASH:
        site = crash_site(case.message)
        if site:
            return site[:HEADLINE_CHARS]
        stderr = next((k for k, line in enumerate(lines) if line.endswith("stderr:")), None)
        if stderr is not None and stderr + 1 < len(lines):
            return normalized(lines[stderr + 1])
    return normalized(next((line for line in lines if _ERROR.search(line)), lines[0])) if lines else case.status


# ------------------------------------------------------------------------------ groups

def case_op(case: CaseResult, kind: str = "") -> str:
    """The op a case tests (its mnemonic): a drawn case's op; a corpus case's (a case read from a
    file) the op its file is named after, or else the first op of its program that is not a constant."""
    ops = [o.split(".", 1)[1] if o.startswith("stablehlo.") else o for o in case.ops]
    kind = kind or case.kind or ("corpus" if case.file else "")
    if kind == "corpus":
        stem = os.path.splitext(os.path.basename(case.file or case.id.split(":")[0]))[0]
        return stem if stem in ops else next((o for o in ops if o != "constant"), ops[0] if ops else stem)
    return ops[0] if ops else "?"


def _entry(d: Deviation) -> dict:
    """A deviation entry as a group shows it; ``entry`` names it (its file and a digest of its reason:
    one TOML entry lists several ops or types, all with one reason)."""
    digest = hashlib.sha1(d.reason.encode()).hexdigest()[:8]
    out = {"entry": f"{d.source or 'python'}#{digest}", "op": d.op, "dtypes": d.dtypes, "reason": d.reason}
    return out | ({"when": d.when} if d.when else {}) | ({"link": d.link} if d.link else {})


def _shapes(case: CaseResult) -> str:
    shapes = ["x".join(map(str, x.get("shape", []))) or "scalar" for x in case.inputs or []]
    return ", ".join(shapes)


@dataclass
class Group:
    """Cases failing one op the same way (module docstring)."""
    key: str
    status: str
    op: str
    deviation: dict = field(default_factory=dict)  # the listed deviation explaining them ({} if none)
    members: list[CaseResult] = field(default_factory=list)  # the cases, in run order
    relations: Counter = field(default_factory=Counter)

    @property
    def new(self) -> bool:
        """A problem nobody has listed: a failure no deviation explains."""
        return not self.deviation and self.status in FAILURES

    @property
    def relation(self) -> str:
        return _most_common_text(self.relations)

    @property
    def element_types(self) -> list[str]:
        return list(dict.fromkeys(",".join(c.dtypes) for c in self.members))

    @property
    def shapes(self) -> list[str]:
        return [s for s in dict.fromkeys(_shapes(c) for c in self.members) if s]

    @property
    def reproducer(self) -> str:
        """A member's reproducer folder, or else the test file of a corpus member (a corpus case's
        ``reproducer`` is its rewritten program's text)."""
        folders = (c.reproducer for c in self.members if c.reproducer and "\n" not in c.reproducer)
        return next(folders, "") or next((c.file for c in self.members if c.file), "")

    @property
    def example(self) -> str:
        """One member's evidence: a mismatching element of the group's relation (else of any), or
        the first line of its message."""
        relation = self.relation
        for wanted in (relation, None):
            for c in self.members if self.status == Status.MISMATCH else ():
                for found, text in element_evidence(c):
                    if wanted in (None, found):
                        return f"{text} ({c.id})"
        first = next((line.strip() for line in (self.members[0].message or "").splitlines() if line.strip()), "")
        return f"{first[:HEADLINE_CHARS]} ({self.members[0].id})"

    def label(self) -> str:
        """``op status: relation`` (a listed deviation: its condition or the start of its reason)."""
        how = self.relation if not self.deviation else (
            f"listed deviation ({self.deviation.get('when') or self.deviation['reason'][:60]})")
        return f"{self.op} {self.status}: {how}"

    def to_json(self) -> dict:
        out = {"key": self.key, "label": self.label(), "status": self.status, "op": self.op,
               "relation": self.relation, "new": self.new,
               "cases": len(self.members), "element_types": self.element_types, "shapes": self.shapes,
               "example": self.example, "reproducer": self.reproducer}
        if self.deviation:
            out["deviation"] = self.deviation
        out["members"] = [c.id for c in self.members]
        return out


def _most_common_text(counts: Counter) -> str:
    relations = [r for r in counts if r in RELATIONS]
    if relations:
        return _most_common(Counter({r: counts[r] for r in relations}).elements())
    return counts.most_common(1)[0][0] if counts else ""


def group_cases(backend: str, cases: Iterable[CaseResult], kind: str = "") -> list[Group]:
    """The groups of ``cases`` (one backend's results) by the rule of the module docstring: new
    problems first, then listed deviations, then rejections; the largest first within each."""
    groups: dict[str, Group] = {}
    looked_up: dict = {}  # what deviation_for_case reads -> its answer (a lookup scans every entry)
    for case in cases:
        if case.status not in GROUPED:
            continue
        op = case_op(case, kind)
        deviation = None
        if case.status in FAILURES:  # a rejection is never a deviation (judge/deviations/*.toml)
            reads = (tuple(case.ops), tuple(case.dtypes), case.status, tuple((case.extra or {}).get("triggers", ())))
            if reads not in looked_up:
                looked_up[reads] = deviation_for_case(backend, case)
            deviation = looked_up[reads]
        how = case_relation(case) if case.status == Status.MISMATCH else failure_headline(case)
        entry = _entry(deviation) if deviation is not None else {}
        key = f"{case.status} {op}: " + (f"listed deviation {entry['entry']}" if entry else how)
        group = groups.setdefault(key, Group(key, case.status, op, entry))
        group.members.append(case)
        group.relations[how] += 1
    return sorted(groups.values(), key=_rank)


def _rank(g: Group):
    return (0 if g.new else 1 if g.status in FAILURES else 2, -len(g.members), g.key)
