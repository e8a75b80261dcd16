"""Known backend deviations, as data (in the spirit of array-api-tests' xfails files).

The entries live in one TOML file per backend under ``judge/deviations/`` (``xla.toml``:
XLA CPU and its constant folder, ``stablehlo-ref.toml``: the reference interpreter).  Each
says which backends, which op(s), which element types and which kind of result it
explains, and WHY (with the spec section that decides it), optionally with a link.  A
matching failure is reported as a known deviation (an expected failure in pytest, a
``known-deviation`` cell in reports): still visible, never hidden.  An entry a run
exercises without any failure is reported as STALE (``stale_deviations``).

Who declared an entry (``origin``): this suite's reviewed tables (``suite``), or the submitter
of a certification -- ``--deviations FILE``, or the file a plug-in backend ships
(``Backend.deviations_file``) -- added with ``use_deviation_file`` (``submitter``).  An entry's
``versions`` (a PEP 440 specifier, ``">=0.9,<0.11"``) limits it to those versions of the
backend (declared with ``declare_backend_version``; a version text's first version number,
``version_number``): outside them, or where the version is not known, it explains nothing
(``not_applicable`` lists such entries).  ``link``: the filed bug.

The tables are the judge's: only judge/ imports this module.  The judge puts the entry that
explains a failure on its Verdict and case results; callers above read it there, or ask
judge/explain.py for a failure the judge did not see.
"""

from __future__ import annotations

import fnmatch
import glob
import json
import os
import re
import tomllib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from .conditions import CONDITIONS, triggered
from .status import FAILING

if TYPE_CHECKING:  # for annotations: judge/results.py reads verdicts through these lookups
    from .results import CaseResult

DEVIATIONS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "deviations")

#: Who declared an entry: this suite's reviewed tables, or the submitter of a certification.
SUITE, SUBMITTER = "suite", "submitter"
#: The fields an entry of a deviation file may have.
ENTRY_FIELDS = frozenset({"backends", "backend", "op", "ops", "dtypes", "statuses", "status", "reason", "link",
                          "when", "versions", "blame"})


@dataclass(frozen=True)
class Deviation:
    backend: str        # fnmatch pattern: "xla*"
    op: str             # mnemonic pattern: "count_leading_zeros"
    dtypes: str         # fnmatch pattern over the element types (joined by ","): "*", "f8*"
    statuses: tuple     # which statuses it explains: ("mismatch",)
    reason: str
    link: str = ""      # an upstream issue, when one is filed
    source: str = ""    # the data file it came from
    when: str = ""      # a condition on the case (judge/conditions/) it needs, if any
    versions: str = ""  # PEP 440 specifier over the backend's version ("": every version)
    origin: str = SUITE  # who declared it: SUITE or SUBMITTER
    entry: str = ""     # the whole [[deviation]] table it came from, as canonical JSON (waivers.toml)

    def applies_to(self, version: str | None) -> bool:
        """Whether the entry applies to the backend at ``version`` (None: not known, and then
        nothing rules the entry out: it applies)."""
        if not self.versions or version is None:
            return True
        number = version_number(version or "")
        return number is not None and number in SpecifierSet(self.versions)


def version_number(text: str) -> Version | None:
    """A backend's version text as a PEP 440 version: the text itself, else its first version
    number ("XLA CPU; jax 0.10.2, jaxlib 0.10.2" -> 0.10.2); None when it has none."""
    for candidate in [text.strip()] + re.findall(r"\d+(?:\.\d+)+[^\s,;()]*", text):
        try:
            return Version(candidate)
        except InvalidVersion:
            continue
    return None


class DeviationFileError(ValueError):
    pass


def _listed(entry: dict, one: str, many: str, where: str) -> list[str]:
    value = entry.get(many, entry.get(one))
    values = [value] if isinstance(value, str) else value
    if not values or not all(isinstance(v, str) and v for v in values):
        raise DeviationFileError(f"{where}: needs {one} (a pattern) or {many} (a list of patterns)")
    return list(values)


def canonical_entry(entry: dict) -> str:
    """One [[deviation]] table as canonical JSON: two tables with the same fields and values are
    the same text, whatever their order or the file's layout."""
    return json.dumps(entry, sort_keys=True, separators=(",", ":"))


def load_deviation_file(path: str, origin: str = SUITE) -> list[Deviation]:
    """The entries of one TOML file (``[[deviation]]`` tables; see judge/deviations/xla.toml),
    declared by ``origin``."""
    with open(path, "rb") as f:
        try:
            data = tomllib.load(f)
        except tomllib.TOMLDecodeError as e:
            raise DeviationFileError(f"{path}: {e}") from None
    out = []
    for k, entry in enumerate(data.get("deviation", [])):
        where = f"{os.path.basename(path)} deviation #{k + 1}"
        unknown = set(entry) - ENTRY_FIELDS
        if unknown:
            raise DeviationFileError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
        when = entry.get("when", "")
        if when and when not in CONDITIONS:
            raise DeviationFileError(f"{where}: unknown condition when = {when!r} "
                                     f"(judge/conditions/ has {', '.join(sorted(CONDITIONS))})")
        reason = entry.get("reason", "")
        if not isinstance(reason, str) or not reason.strip():
            raise DeviationFileError(f"{where}: every deviation needs its reason")
        versions = entry.get("versions", "")
        try:
            SpecifierSet(versions)
        except (InvalidSpecifier, TypeError):
            raise DeviationFileError(f"{where}: versions = {versions!r} is not a version specifier "
                                     "(PEP 440, e.g. \">=0.9,<0.11\")") from None
        statuses = tuple(_listed(entry, "status", "statuses", where))
        text = canonical_entry(entry)
        for backend in _listed(entry, "backend", "backends", where):
            for op in _listed(entry, "op", "ops", where):
                for dtypes in _listed(entry, "dtypes", "dtypes", where):
                    out.append(Deviation(backend, op, dtypes, statuses, reason.strip(), entry.get("link", ""),
                                         os.path.basename(path), when, versions, origin, text))
    return out


def load_deviations(directory: str = DEVIATIONS_DIR) -> list[Deviation]:
    return [d for path in sorted(glob.glob(os.path.join(directory, "*.toml"))) for d in load_deviation_file(path)]


#: Every entry of the data files (then the submitter's, ``use_deviation_file``).
KNOWN_DEVIATIONS: list[Deviation] = load_deviations()
#: The suite's own entries, as its files hold them (what a waiver marked ``suite`` must equal).
SUITE_ENTRIES: frozenset[str] = frozenset(d.entry for d in KNOWN_DEVIATIONS)
#: {backend name: its version}, for the entries' ``versions``.
BACKEND_VERSIONS: dict[str, str] = {}


def use_deviation_file(path: str, origin: str = SUBMITTER) -> list[Deviation]:
    """Add the entries of ``path`` (declared by ``origin``) after the suite's; returns them.
    Adding a file twice adds its entries once."""
    global KNOWN_DEVIATIONS
    added = [d for d in load_deviation_file(path, origin) if d not in KNOWN_DEVIATIONS]
    KNOWN_DEVIATIONS = KNOWN_DEVIATIONS + added
    return added


def drop_deviations(entries: list[Deviation]) -> None:
    """Take back entries ``use_deviation_file`` added."""
    global KNOWN_DEVIATIONS
    gone = set(entries)
    KNOWN_DEVIATIONS = [d for d in KNOWN_DEVIATIONS if d not in gone]


def declare_backend_version(backend: str, version: str) -> None:
    """The running ``backend``'s version, which entries with ``versions`` are checked against."""
    global _lookups
    BACKEND_VERSIONS[backend] = version
    _lookups = _Lookups([])


def not_applicable(backend: str) -> list[Deviation]:
    """Entries for ``backend`` whose ``versions`` exclude its declared version (or that need a
    version it did not declare): they explain nothing here."""
    version = BACKEND_VERSIONS.get(backend)
    return [d for d in KNOWN_DEVIATIONS if fnmatch.fnmatchcase(backend, d.backend) and not d.applies_to(version)]


class _Lookups:
    """known_deviation's caches: its answers (reports ask for the same backend, op, types, status
    and triggers many times, and each answer is a scan of patterns) and each backend's entries
    (most entries name other backends).  Both belong to one entry list: tests replace the list,
    and the cache keeps the list it was built for (so no other list can take its id)."""
    def __init__(self, entries: list):
        self.entries, self.length = entries, len(entries)
        self.answers: dict = {}
        self.by_backend: dict = {}


_lookups = _Lookups([])


def _current_lookups() -> _Lookups:
    global _lookups
    if _lookups.entries is not KNOWN_DEVIATIONS or _lookups.length != len(KNOWN_DEVIATIONS):
        _lookups = _Lookups(KNOWN_DEVIATIONS)
    return _lookups


def known_deviation(backend: str, op: str, dtype: str, status: str, triggers=()) -> Deviation | None:
    """The entry explaining a failure; an entry with a condition (``when``) only when the judge
    found that condition to hold for the failing op (``triggers``, judge/conditions/)."""
    lookups = _current_lookups()
    key = (backend, op, dtype, status, tuple(triggers))
    if key not in lookups.answers:
        lookups.answers[key] = _first_entry(lookups, backend, op.replace("stablehlo.", ""), dtype, status, key[-1])
    return lookups.answers[key]


def _first_entry(lookups: _Lookups, backend: str, op: str, dtype: str, status: str,
                 triggers: tuple) -> Deviation | None:
    if backend not in lookups.by_backend:
        version = BACKEND_VERSIONS.get(backend)
        lookups.by_backend[backend] = [d for d in lookups.entries
                                       if fnmatch.fnmatchcase(backend, d.backend) and d.applies_to(version)]
    for d in lookups.by_backend[backend]:
        if (status in d.statuses and fnmatch.fnmatchcase(op, d.op) and fnmatch.fnmatchcase(dtype, d.dtypes)
                and (not d.when or d.when in triggers)):
            return d
    return None


@dataclass(frozen=True)
class Explanation:
    """What the judge found about a failure: the entry that explains it (None: no entry does) and
    the conditions (judge/conditions/) that hold for its op on its operands."""
    deviation: Deviation | None
    triggers: tuple = ()


def deviation_for(backend: str, op: str, dtype: str, status: str, op_ir=None, operands=None,
                  preceding=None) -> Explanation:
    """The entry explaining a case whose op ``op`` (element types ``dtype``, joined by ",") ended in
    ``status``, with the entries' conditions checked here on the facts: the op itself (``op_ir``,
    an oracle.ir.Op), its operands' values and, for program conditions, the ops before it
    (``preceding``).  Only failures are looked up (a rejection is never a deviation); without
    ``op_ir`` or ``operands`` no condition holds."""
    if status not in FAILING:
        return Explanation(None)
    triggers = triggered(op_ir, operands, preceding)
    return Explanation(known_deviation(backend, op, dtype, status, triggers), triggers)


def recorded(deviation: Deviation | None) -> dict:
    """The entry explaining a case, as results.json records it beside the case ({}: none does), so
    that a reader of results.json never matches the deviation tables again."""
    if deviation is None:
        return {}
    return {"file": deviation.source, "backend": deviation.backend, "op": deviation.op, "dtypes": deviation.dtypes,
            "statuses": list(deviation.statuses), "reason": deviation.reason, "condition": deviation.when,
            "link": deviation.link, "versions": deviation.versions, "origin": deviation.origin,
            "entry": deviation.entry}


def _covers(d: Deviation, backend: str, case: CaseResult) -> bool:
    """``d``'s backend, op and element-type patterns match ``case`` (whatever its status)."""
    dtypes = ",".join(case.dtypes)
    if d.when and d.when not in (case.extra or {}).get("triggers", ()):
        return False  # its condition was not seen to hold (the judge records it for failures only)
    return (fnmatch.fnmatch(backend, d.backend) and fnmatch.fnmatch(dtypes, d.dtypes)
            and any(fnmatch.fnmatch(op.replace("stablehlo.", ""), d.op) for op in case.ops))


def stale_deviations(backend: str, cases: Iterable[CaseResult]) -> list[Deviation]:
    """Entries for ``backend`` that this run exercised (some case matches their patterns) but
    that explained no failure: the deviation may be fixed, so the entry should go."""
    stale = []
    version = BACKEND_VERSIONS.get(backend)
    for d in KNOWN_DEVIATIONS:
        if not fnmatch.fnmatch(backend, d.backend) or not d.applies_to(version):
            continue
        covered = [c for c in cases if _covers(d, backend, c)]
        if covered and not any(c.status in d.statuses for c in covered):
            stale.append(d)
    return stale
