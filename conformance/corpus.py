"""External test files (corpora) turned into programs that ANY backend can run.

Two formats are understood; both become "a module whose public ``@main`` takes no
arguments and returns the values to check" plus a list of :class:`Check` records, so a
backend never needs the ``check`` dialect:

* **interpret** -- the official interpreter tests (``stablehlo/tests/interpret/*.mlir``):
  cases separated by ``// -----`` (MLIR splits on that substring anywhere in a line, so
  ``// // -----`` splits too); each case is a ``func.func`` without arguments, or a
  ``module`` whose ``@main`` is the entry (the interpreter runs the only function, or
  ``@main`` when there are several).  Expectations are ``check.*`` ops, which MLIR (jaxlib)
  does not know, so they are the ONLY thing rewritten as text: each check statement is
  blanked out (line numbers stay those of the file), the entry function is renamed
  ``@main`` and made to return the checked operands.  Everything else is parsed and
  verified by MLIR (``oracle.parse_module``); a malformed case gets status ``error`` with
  MLIR's ``file:line:col`` diagnostic.
* **testdata** -- the StableHLO repo's ``testdata`` files: ``@main`` calls private
  ``@inputs``/``@expected`` and checks with ``stablehlo.custom_call @check.*``.  These are
  rewritten on the parsed MLIR module (jaxlib Python bindings): the check custom_calls are
  erased and ``@main`` returns ``(actual, expected)`` pairs.

Check semantics follow the official interpreter; the rules are the judge's
(judge/golden_checks.py: ``eq``, ``almost_eq``, ``close``).  Tolerances read here: 1e-4 for
``check.expect_almost_eq*`` without one and for testdata ``check.eq`` on floats, 1e-3 for
testdata ``check.expect_almost_eq``; ``close`` within ``[min_ulp_difference,
max_ulp_difference]`` (defaults 0 and 1), testdata ``check.expect_close`` 0..3 ULP.
"""

from __future__ import annotations

import contextlib
import glob
import multiprocessing
import multiprocessing.util
import os
import pkgutil
import re
import signal
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

import oracle.ops
from adapters import get_backend
from adapters.base import STATUSES, RunResult, RunStatus
from judge.golden_checks import DEFAULT_ALMOST_EQ_TOLERANCE, evaluate_check
from judge.program_bound import output_bounds
from judge.status import Status
from judge.verdict import Traits, judge_against_program_bound, judge_program, oracle_run
from judge.verdicts import BOUND_STATE
from oracle import rewrite
from oracle.errors import MlirError, OracleError
from oracle.mlir_text import parse_module, split_top_level
from reports.results import CaseResult

from .shared import shared_path

# --------------------------------------------------------------------------- records

#: Files of the interpret corpus that test the C++ tool itself, not StableHLO semantics.
TOOL_FILES = {
    "printing.mlir": "tests the interpreter's result printing (FileCheck on stdout), not op semantics",
    "probe.mlir": "tests the interpreter's probe instrumentation (interpreter.probe / expect_serialized_eq)",
    "api_input_arguments.mlir": "tests the interpreter's --args command-line option",
}

#: Corpus features newer than both the spec and the StableHLO in the installed jaxlib (whose
#: verifier rejects them): such cases are unsupported, with the reason, not malformed.
NEWER_THAN_SPEC = {
    "has_dynamic_root": "collective_broadcast's has_dynamic_root (a root operand) is in neither the spec nor "
                        "the installed StableHLO, whose verifier rejects it",
    "stablehlo.collective_reduce": "collective_reduce is in neither the spec nor the installed StableHLO "
                                   "(MLIR does not register it)",
}

#: Official tests whose program the spec makes invalid (the C++ verifier accepts them): skipped, with the reason.
INVALID_BY_SPEC = {
    "convolution_op_test_si8": "i8 x i8 -> i32: convolution (C27) 'element_type(lhs) = element_type(rhs) = "
                               "element_type(result)' makes the program invalid (the MLIR verifier accepts it)",
}

_TESTDATA_ALMOST_EQ_TOL = 1e-3
_TESTDATA_CLOSE_MAX_ULP = 3


@dataclass
class Check:
    """One expectation on the outputs of the rewritten program."""
    kind: str                      # "eq" | "almost_eq" | "close"
    actual: int                    # index of the checked value among @main's results
    expected: int | None = None    # index of the expected value among the results (two-operand checks)
    expected_value: np.ndarray | None = field(default=None, repr=False)  # the constant of *_const checks
    tolerance: float | None = None  # almost_eq
    max_ulp: int | None = None     # close
    min_ulp: int = 0               # close
    type: str = ""                 # MLIR type of the checked value
    op: str = ""                   # the check as written: "check.expect_eq_const", "@check.expect_close", ...
    line: int = 0                  # line of the check in its file

    def describe(self) -> str:
        extra = ""
        if self.kind == "almost_eq":
            extra = f" (tolerance {self.tolerance:g})"
        elif self.kind == "close":
            extra = f" (ULP in [{self.min_ulp}, {self.max_ulp}])"
        where = f" at line {self.line}" if self.line else ""
        return f"{self.op or self.kind}{where}{extra}"


@dataclass
class CorpusCase:
    id: str                         # "add.mlir:23:add_op_test_si4" or "file::name"
    file: str                       # path of the source file
    name: str                       # entry function (or module) name
    line: int = 0                   # line of the entry function in the file
    format: str = "interpret"       # "interpret" | "testdata"
    program_text: str = ""          # the rewritten module (public @main(), returns the checked values)
    checks: list[Check] = field(default_factory=list)
    ops: list[str] = field(default_factory=list)     # op names used ("stablehlo.add", "chlo.mulhi", ...)
    dtypes: list[str] = field(default_factory=list)  # element types seen in the program
    skip_reason: str = ""           # not a StableHLO semantics test (tool tests)
    unsupported_reason: str = ""    # a form this project cannot run yet (probes, ...)
    error: str = ""                 # the case is malformed: MLIR's diagnostics
    #: the entry takes arguments and there are no goldens: ``program_text`` is the program as
    #: written (its entry renamed @main), checked on drawn inputs (``case_results``' ``check``)
    takes_arguments: bool = False
    #: ``program_text`` parsed once into the oracle's IR (for the oracle and the judge)
    module: Any = field(default=None, repr=False, compare=False)

    @property
    def runnable(self) -> bool:
        return not (self.skip_reason or self.unsupported_reason or self.error)


# --------------------------------------------------------------------------- loading

def load_cases(path: str, *, root: str | None = None) -> list[CorpusCase]:
    """All cases of a corpus file, or of every ``*.mlir`` under a directory (sorted).

    ``root`` (default: the directory itself, or the file's directory) makes the ids
    relative (``chlo/mulhi.mlir:6:mulhi_op_test_si8``).  Never raises for a bad file or
    case: it comes back as a case with ``error`` set (a file that cannot be read, or with no
    function to run, is one such case).
    """
    if os.path.isdir(path):
        root = root or path
        files = sorted(glob.glob(os.path.join(path, "**", "*.mlir"), recursive=True))
        out: list[CorpusCase] = []
        for f in files:
            out.extend(load_cases(f, root=root))
        return out
    root = root or os.path.dirname(os.path.abspath(path))
    rel = os.path.relpath(os.path.abspath(path), os.path.abspath(root))
    text, problem = read_test_file(path)
    if problem:
        return [CorpusCase(id=rel, file=path, name=os.path.basename(rel), error=problem)]
    cases = load_file_cases(text, rel, path)
    if not cases:
        return [CorpusCase(id=rel, file=path, name=os.path.basename(rel),
                           error=f"{path}: no function to run (no func.func in any case of the file)")]
    return cases


def read_test_file(path: str) -> tuple[str, str]:
    """(text, "") or ("", why it cannot be a test file: unreadable, not UTF-8 text, empty)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        return "", f"{path}: cannot read ({e.strerror})"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return "", (f"{path}: not a text file (byte {data[e.start]:#04x} at offset {e.start} is not UTF-8); "
                    "expected MLIR text")
    if not text.strip():
        return "", f"{path}: empty file (expected MLIR text)"
    return text, ""


def load_file_cases(text: str, rel: str, path: str) -> list[CorpusCase]:
    """The cases of one file's text, each ``// -----`` chunk in its own format (``detect_format``):
    a file may mix interpret-format chunks with testdata-format ones."""
    chunks = split_cases(text)
    cases, pending = [], []
    for start, chunk in chunks:
        if detect_format(chunk) == "testdata":
            cases.append(load_testdata_case(chunk, rel, path, start=start, alone=len(chunks) == 1))
        else:
            cases.extend(_interpret_chunk_cases(chunk, start, rel, path, pending))
    _resolve_constants(pending, rel)
    return cases


_TESTDATA_MARK = re.compile(r'@check\.[\w.]+\s*\(|call_target_name\s*=\s*"check\.')
_INTERPRET_MARK = re.compile(r"^\s*\"?check\.\w+", re.M)


def detect_format(text: str) -> str:
    """``"testdata"`` if checks are ``stablehlo.custom_call @check.*``, else ``"interpret"``
    (``check.*`` ops in either syntax, or no checks at all).  Called per ``// -----`` case."""
    if _TESTDATA_MARK.search(text) and not _INTERPRET_MARK.search(text):
        return "testdata"
    return "interpret"


# ----------------------------------------------------------------- interpret format

_SPLIT = re.compile(r"// -----")
_FUNC_HEADER = re.compile(
    r"^(?P<indent>\s*)func\.func\s+(?:(?:public|private|nested)\s+)?@(?P<name>[\w.$-]+|\"[^\"]*\")\s*\(")


def split_cases(text: str) -> list[tuple[int, str]]:
    """(first line number, text) of each ``// -----``-separated chunk.

    Like MLIR's ``splitAndProcessBuffer`` the marker splits wherever it occurs, so a
    ``// // -----`` line splits too.
    """
    chunks, current, start = [], [], 1
    for i, line in enumerate(text.split("\n"), start=1):
        if _SPLIT.search(line):
            chunks.append((start, "\n".join(current)))
            current, start = [], i + 1
        else:
            current.append(line)
    chunks.append((start, "\n".join(current)))
    return chunks


@dataclass
class _Statement:
    first: int   # 0-based line index within the chunk
    last: int
    text: str


def _bracket_delta(line: str) -> int:
    depth = 0
    in_str = False
    for i, c in enumerate(line):
        if c == '"' and (i == 0 or line[i - 1] != "\\"):
            in_str = not in_str
        elif in_str:
            continue
        elif c in "[({":
            depth += 1
        elif c in "])}":
            depth -= 1
        elif c == "<":
            depth += 1
        elif c == ">" and not (i > 0 and line[i - 1] == "-"):
            depth -= 1
    return depth


def _strip_comment(line: str) -> str:
    if "//" not in line:
        return line
    if '"' not in line:
        return line[:line.index("//")]
    in_str = False
    for i, c in enumerate(line):
        if c == '"' and (i == 0 or line[i - 1] != "\\"):
            in_str = not in_str
        elif not in_str and line.startswith("//", i):
            return line[:i]
    return line


def _check_statements(lines: list[str]) -> list[_Statement]:
    """Every ``check.*`` statement: from its first line until its brackets balance."""
    out, i = [], 0
    while i < len(lines):
        code = _strip_comment(lines[i])
        if re.match(r'^\s*(?:check\.\w+|"check\.\w+")', code):
            first, depth, parts = i, _bracket_delta(code), [code.strip()]
            while (depth > 0 or _incomplete(" ".join(parts))) and i + 1 < len(lines):
                if depth <= 0 and _STATEMENT_START.match(_strip_comment(lines[i + 1])):
                    break  # a malformed check (no ': type'): never swallow the next statement
                i += 1
                more = _strip_comment(lines[i])
                parts.append(more.strip())
                depth += _bracket_delta(more)
            out.append(_Statement(first, i, " ".join(parts)))
        i += 1
    return out


_STATEMENT_START = re.compile(r"^\s*(?:%|func\.|return\b|check\.|stablehlo\.|chlo\.|\}|\"|module\b)")


def _incomplete(statement: str) -> bool:
    """A check statement continues on the next line: trailing ',' or ':', or no ': type' yet."""
    s = statement.rstrip()
    if s.startswith('"check.'):  # generic form: ends with its function type "-> ()"
        return not re.search(r"->\s*\(\s*\)$", s)
    return s.endswith((",", ":")) or not _partition_type(s.split(None, 1)[1] if " " in s else "")[1]


class CheckSyntaxError(ValueError):
    pass


def balanced_end(text: str, pos: int, open_ch: str, close_ch: str) -> int:
    """Index just past the bracket matching ``text[pos] == open_ch``."""
    depth, in_str = 0, False
    for i in range(pos, len(text)):
        c = text[i]
        if c == '"':
            in_str = not in_str
        elif in_str:
            continue
        elif c == open_ch:
            depth += 1
        elif c == close_ch and not (close_ch == ">" and i > 0 and text[i - 1] == "-"):
            depth -= 1
            if depth == 0:
                return i + 1
    raise CheckSyntaxError(f"unbalanced {open_ch}{close_ch} in {text!r}")


_VALUE = r"%[\w.$-]+(?:#\d+)?"


@dataclass
class ParsedCheck:
    """A ``check.*`` statement, parsed (before output indices are assigned)."""
    op: str                     # "expect_eq_const", ...
    kind: str                   # eq / almost_eq / close / serialized
    operands: list[str]         # SSA names
    type: str                   # MLIR type of the (first) operand
    dense: str | None = None    # "dense<...>" body of *_const checks
    tolerance: float | None = None
    max_ulp: int | None = None
    min_ulp: int = 0


def parse_check(statement: str) -> ParsedCheck:
    """Parse one ``check.*`` statement (any of the forms of CheckOps.td).

    ``check.expect_eq_const %x, dense<..> : T``; ``check.expect_almost_eq_const %x,
    dense<..> : T {tolerance = 0.1 : f64}`` (or ``, tolerance = 0.1``);
    ``check.expect_eq %a, %b : T``; ``check.expect_almost_eq %a, %b, tolerance = 0.1 : T``;
    ``check.expect_close %a, %b, max_ulp_difference = 3[, min_ulp_difference = 0] : T, T``;
    ``check.expect_serialized_eq %x, probe_id = "p"[, iter = 0] : T``.
    """
    s = statement.strip()
    if s.startswith('"check.'):
        s = _pretty_check(s)
    m = re.match(r"check\.(\w+)\s+", s)
    if not m:
        raise CheckSyntaxError(f"not a check op: {s!r}")
    op, rest = m.group(1), s[m.end():]
    if op in ("expect_eq_const", "expect_almost_eq_const"):
        m = re.match(rf"({_VALUE})\s*,\s*", rest)
        if not m or not rest[m.end():].startswith("dense<"):
            raise CheckSyntaxError(f"expected '%value, dense<...>' in {s!r}")
        operand = m.group(1)
        start = m.end() + len("dense")
        end = balanced_end(rest, start, "<", ">")
        dense = rest[start + 1:end - 1]
        tail = rest[end:].strip()
        mt = re.match(r":\s*", tail)
        if not mt:
            raise CheckSyntaxError(f"expected ': type' after the dense literal in {s!r}")
        tail = tail[mt.end():]
        tm = re.match(r"tensor<", tail)
        if not tm:
            raise CheckSyntaxError(f"expected a tensor type in {s!r}")
        tend = balanced_end(tail, len("tensor"), "<", ">")
        ty, tail = tail[:tend], tail[tend:].strip()
        tol = None
        mtol = re.search(r"tolerance\s*=\s*([-+0-9.eE]+)", tail)
        if mtol:
            tol = float(mtol.group(1))
        kind = "eq" if op == "expect_eq_const" else "almost_eq"
        if kind == "almost_eq" and tol is None:
            tol = DEFAULT_ALMOST_EQ_TOLERANCE
        return ParsedCheck(op, kind, [operand], ty, dense=dense, tolerance=tol)
    head, colon, ty = _partition_type(rest)
    if not colon:
        raise CheckSyntaxError(f"expected ': type' in {s!r}")
    parts = split_top_level(head)
    values = [p for p in parts if re.fullmatch(_VALUE, p)]
    attrs = dict(_attr_pair(p) for p in parts if "=" in p)
    types = split_top_level(ty)
    first_type = types[0] if types else ""
    if op == "expect_eq":
        _want(values, 2, s)
        return ParsedCheck(op, "eq", values, first_type)
    if op == "expect_almost_eq":
        _want(values, 2, s)
        tol = float(attrs.get("tolerance", DEFAULT_ALMOST_EQ_TOLERANCE))
        return ParsedCheck(op, "almost_eq", values, first_type, tolerance=tol)
    if op == "expect_close":
        _want(values, 2, s)
        return ParsedCheck(op, "close", values, first_type, max_ulp=int(attrs.get("max_ulp_difference", 1)),
                           min_ulp=int(attrs.get("min_ulp_difference", 0)))
    if op == "expect_serialized_eq":
        return ParsedCheck(op, "serialized", values, first_type)
    raise CheckSyntaxError(f"unknown check op check.{op}")


def _pretty_check(s: str) -> str:
    """A generic-form check (``"check.expect_eq_const"(%0) <{value = dense<..> : T}> : (T) -> ()``,
    as MLIR prints an op of an unregistered dialect) -> the custom form ``parse_check`` reads."""
    m = re.match(r'"check\.(\w+)"\s*\(', s)
    if not m:
        raise CheckSyntaxError(f"not a check op: {s!r}")
    op, pos = m.group(1), m.end() - 1
    end = balanced_end(s, pos, "(", ")")
    operands = [v.strip() for v in split_top_level(s[pos + 1:end - 1]) if v.strip()]
    rest, attrs = s[end:].strip(), []
    for open_, close in (("<{", "}>"), ("{", "}")):  # properties, then the attribute dictionary
        if rest.startswith(open_):
            stop = balanced_end(rest, 0, "{" if open_ == "{" else "<", "}" if open_ == "{" else ">")
            attrs += split_top_level(rest[len(open_):stop - len(close)])
            rest = rest[stop:].strip()
    types = rest[1:].strip() if rest.startswith(":") else ""
    if not types.startswith("("):
        raise CheckSyntaxError(f"expected ': (types) -> ()' in {s!r}")
    operand_types = types[1:balanced_end(types, 0, "(", ")") - 1]
    named = {k.strip(): v.strip() if k.strip() == "value" else re.sub(r"\s*:\s*\w+$", "", v.strip())
             for k, _, v in (a.partition("=") for a in attrs if "=" in a)}  # "3 : i64" -> "3"
    if op in ("expect_eq_const", "expect_almost_eq_const"):
        value = named.get("value", "")
        if not value.startswith("dense<"):
            raise CheckSyntaxError(f"check.{op} without a dense value in {s!r}")
        tail = f" {{tolerance = {named['tolerance']}}}" if "tolerance" in named else ""
        return f"check.{op} {', '.join(operands)}, {value}{tail}"
    extra = [f"{k} = {v}" for k, v in named.items()]
    return f"check.{op} {', '.join(operands + extra)} : {operand_types}"


def _partition_type(rest: str) -> tuple[str, str, str]:
    """Split ``operands-and-attrs : types`` at the first top-level ':' (outside brackets/strings)."""
    depth, in_str = 0, False
    for i, c in enumerate(rest):
        if c == '"':
            in_str = not in_str
        elif in_str:
            continue
        elif c in "[({<":
            depth += 1
        elif c in "])}" or (c == ">" and not (i > 0 and rest[i - 1] == "-")):
            depth -= 1
        elif c == ":" and depth == 0:
            return rest[:i].strip(), ":", re.sub(r"\{.*\}\s*$", "", rest[i + 1:]).strip()
    return rest, "", ""


def _attr_pair(text: str) -> tuple[str, str]:
    k, _, v = text.partition("=")
    v = v.strip()
    v = re.sub(r"\s*:\s*\w+$", "", v)  # "0.1 : f64" -> "0.1"
    return k.strip(), v.strip('"')


def _want(values, n, s):
    if len(values) != n:
        raise CheckSyntaxError(f"expected {n} operands in {s!r}")


def _functions(lines: list[str]) -> list[dict]:
    """Function headers of a chunk: name, header line, body extent, argument text."""
    out = []
    text = "\n".join(lines)
    offsets = np.cumsum([0] + [len(line) + 1 for line in lines])
    for i, line in enumerate(lines):
        m = _FUNC_HEADER.match(_strip_comment(line))
        if not m:
            continue
        name = m.group("name").strip('"')
        pos = int(offsets[i]) + m.end() - 1  # at '('
        try:
            args_end = balanced_end(text, pos, "(", ")")
            body_open = text.index("{", args_end)
            body_end = balanced_end(text, body_open, "{", "}")
        except (CheckSyntaxError, ValueError):
            continue
        out.append(dict(name=name, line=i, args=text[pos + 1:args_end - 1].strip(),
                        header_end=args_end, body_open=body_open, body_end=body_end,
                        signature=text[args_end:body_open]))
    return out


def _line_of(offsets, pos: int) -> int:
    return int(np.searchsorted(offsets, pos, side="right") - 1)


def load_interpret_cases(text: str, rel: str, path: str) -> list[CorpusCase]:
    """Every chunk of ``text`` read as the interpret format."""
    cases, pending = [], []
    for start, chunk in split_cases(text):
        cases.extend(_interpret_chunk_cases(chunk, start, rel, path, pending))
    _resolve_constants(pending, rel)
    return cases


def _interpret_chunk_cases(chunk: str, start: int, rel: str, path: str, pending: list) -> list[CorpusCase]:
    """One case per test function of the chunk; the literals of its *_const checks are added to
    ``pending`` (read by ``_resolve_constants``, one MLIR parse for the whole file)."""
    if not re.search(r"func\.func", chunk):
        return []  # an empty case (comments only)
    tool_reason = TOOL_FILES.get(os.path.basename(rel), "")
    return [_interpret_case(chunk, start, rel, path, pending, tool_reason=tool_reason, entry_name=entry)
            for entry in _test_functions(chunk)]


def _test_functions(chunk: str) -> list[str | None]:
    """The entry functions of a chunk: [None] (the usual: its only function, or @main), or,
    for a module of several functions without @main, each one whose body holds checks."""
    lines = chunk.split("\n")
    funcs = _functions(lines)
    if len(funcs) <= 1 or any(f["name"] == "main" for f in funcs):
        return [None]
    offsets = np.cumsum([0] + [len(x) + 1 for x in lines])
    firsts = [st.first for st in _check_statements(lines)]
    tests = [f["name"] for f in funcs
             if any(_line_of(offsets, f["body_open"]) <= i <= _line_of(offsets, f["body_end"] - 1) for i in firsts)]
    return tests or [None]


def _interpret_case(chunk: str, start: int, rel: str, path: str, pending: list, *, tool_reason: str = "",
                    entry_name: str | None = None) -> CorpusCase:
    """One case: ``entry_name``'s checks (default: the only function, or @main); the checks of
    the module's other functions are blanked (a module of several test functions).  A case
    without checks tests that the program runs (the official interpreter's meaning): its entry
    keeps the values it returns, which the judge compares with the oracle's."""
    lines = chunk.split("\n")
    funcs = _functions(lines)
    mod = re.search(r"^\s*module\s+@([\w.$-]+)", chunk, re.M)
    if entry_name is not None:
        entry = next(f for f in funcs if f["name"] == entry_name)
        mod = None  # the case is named after its function
    elif len(funcs) == 1:
        entry = funcs[0]
    else:
        entry = next((f for f in funcs if f["name"] == "main"), None)
    name = entry["name"] if entry else (mod.group(1) if mod else (funcs[0]["name"] if funcs else "?"))
    if mod and entry and entry["name"] == "main":
        name = mod.group(1)
    line = start + (entry["line"] if entry else 0)
    case = CorpusCase(id=f"{rel}:{line}:{name}", file=path, name=name, line=line, format="interpret")
    if tool_reason:
        case.skip_reason = tool_reason
        return case
    if name in INVALID_BY_SPEC:
        case.skip_reason = INVALID_BY_SPEC[name]
        return case
    newer = [why for feature, why in NEWER_THAN_SPEC.items() if re.search(rf"\b{feature}\b", chunk)]
    if newer:
        case.unsupported_reason = newer[0]
        return case
    if "interpreter.probe" in chunk or "check.expect_serialized_eq" in chunk:
        case.unsupported_reason = "interpreter.probe / check.expect_serialized_eq instrument the C++ interpreter"
        return case
    if entry is None:
        case.error = f"{rel}:{start}: several functions and none is @main (the interpreter needs @main)"
        return case

    statements = _check_statements(lines)
    offsets = np.cumsum([0] + [len(x) + 1 for x in lines])
    body_first = _line_of(offsets, entry["body_open"])
    body_last = _line_of(offsets, entry["body_end"] - 1)
    parsed: list[tuple[_Statement, ParsedCheck]] = []
    for st in statements:
        try:
            pc = parse_check(st.text)
        except CheckSyntaxError as e:
            case.error = f"{rel}:{start + st.first}: {e}"
            return case
        if not body_first <= st.first <= body_last:
            if entry_name is not None:  # another test function's check: blanked, not collected
                for i in range(st.first, st.last + 1):
                    lines[i] = ""
                continue
            case.unsupported_reason = f"check at line {start + st.first} is outside the entry function"
            return case
        if pc.kind == "serialized":
            case.unsupported_reason = "check.expect_serialized_eq needs probe files"
            return case
        parsed.append((st, pc))
    if entry["args"]:
        return _with_arguments(case, entry, lines, start, parsed)

    # Blank out the check statements (keeps every other line where it was).
    new_lines = list(lines)
    for st, _ in parsed:
        for i in range(st.first, st.last + 1):
            new_lines[i] = ""

    # Outputs: the checked operands, in check order.
    outputs: list[tuple[str, str]] = []
    checks: list[Check] = []
    for st, pc in parsed:
        try:
            ty = _operand_type(pc)
        except CheckSyntaxError as e:
            case.error = f"{rel}:{start + st.first}: {e}"
            return case
        idx = len(outputs)
        outputs.append((pc.operands[0], ty))
        chk = Check(kind=pc.kind, actual=idx, tolerance=pc.tolerance, max_ulp=pc.max_ulp, min_ulp=pc.min_ulp,
                    type=ty, op=f"check.{pc.op}", line=start + st.first)
        if pc.dense is not None:
            pending.append(_Literal(case, chk, pc.dense, ty))
        else:
            chk.expected = len(outputs)
            outputs.append((pc.operands[1], ty))
        checks.append(chk)

    # Rewrite the entry function: return the checked values (a case without checks returns what it returned).
    body_text = "\n".join(new_lines)
    returns_values = bool(entry["signature"].strip())
    ret_types = [t for _, t in outputs] if outputs or not returns_values else _result_types(entry["signature"])
    if outputs:
        ret_vals = ", ".join(v for v, _ in outputs)
        if returns_values:  # an entry that returns values already: return the checked ones instead
            f = next(g for g in _functions(body_text.split("\n")) if g["name"] == entry["name"])
            body_text = body_text[:f["header_end"]] + " " + body_text[f["body_open"]:]
        body_text, ok = _replace_terminator(body_text, entry, f"func.return {ret_vals} : {', '.join(ret_types)}",
                                            replace_values=returns_values)
    elif not returns_values:
        body_text, ok = _replace_terminator(body_text, entry, "func.return")
    else:
        ok = True
    if not ok:
        case.error = f"{rel}:{line}: cannot find the terminator of @{entry['name']}"
        return case
    # Signature: "@name()" -> "@main() -> (types)".
    rename = entry["name"] != "main" and _symbol_uses(chunk, entry["name"]) == 1 and not _symbol_uses(chunk, "main")
    new_name = "main" if (rename or entry["name"] == "main") else entry["name"]
    result_text = f" -> ({', '.join(ret_types)})" if outputs else ""
    body_text, ok = _rename_header(body_text, entry["name"], new_name, result_text)
    if not ok:
        case.error = f"{rel}:{line}: cannot rewrite the header of @{entry['name']}"
        return case
    body_text = re.sub(r"(func\.func\s+)private(\s+@main\b)", r"\1\2", body_text)
    if new_name != "main":  # keep the test function and add a public @main calling it
        body_text = _add_wrapper(body_text, entry["name"], ret_types)
    case.program_text = "\n" * (start - 1) + body_text + "\n"
    case.checks = checks
    _annotate(case, rel)
    return case


_SYMBOL_USE = re.compile(r'@([\w.$-]+|"[^"]*")')
_HEADER = re.compile(r'(func\.func\s+(?:(?:public|private)\s+)?)@([\w.$-]+|"[^"]*")(\s*\(\s*\))?')


def _symbol_uses(text: str, name: str) -> int:
    """How often ``@name`` occurs (definition and uses)."""
    return sum(1 for m in _SYMBOL_USE.finditer(text) if m.group(1).strip('"') == name)


def _rename_header(text: str, name: str, new_name: str, suffix: str = "", *,
                   empty_arguments: bool = True) -> tuple[str, bool]:
    """``func.func @name(`` -> ``func.func @new_name(`` (the first such header; with
    ``empty_arguments``, only a header ``@name()``, followed by ``suffix``)."""
    for m in _HEADER.finditer(text):
        if m.group(2).strip('"') == name and (m.group(3) is not None or not empty_arguments):
            return text[:m.start()] + f"{m.group(1)}@{new_name}{m.group(3) or ''}{suffix}" + text[m.end():], True
    return text, False


def _result_types(signature: str) -> list[str]:
    """The result types of a function signature's ``-> T`` / ``-> (T1 {attrs}, T2)``."""
    text = signature.strip()
    text = text[2:].strip() if text.startswith("->") else text
    if text.startswith("("):
        text = text[1:balanced_end(text, 0, "(", ")") - 1]
    return [re.sub(r"\s*\{.*\}\s*$", "", t, flags=re.S) for t in split_top_level(text)]


def _with_arguments(case: CorpusCase, entry: dict, lines: list[str], start: int, parsed: list) -> CorpusCase:
    """An entry that takes arguments: without goldens, the program as written (a public @main)
    is checked differentially on drawn inputs (``case_results``' ``check``)."""
    if parsed:
        case.unsupported_reason = (f"entry function @{entry['name']} takes arguments and has checks "
                                   "(checks need the program's inputs inside it)")
        return case
    text = "\n".join(lines)
    if entry["name"] != "main":
        if _symbol_uses(text, "main") or _symbol_uses(text, entry["name"]) > 1:
            case.unsupported_reason = f"entry function @{entry['name']} takes arguments and is not @main"
            return case
        text, _ = _rename_header(text, entry["name"], "main", empty_arguments=False)
    case.program_text = "\n" * (start - 1) + re.sub(r"(func\.func\s+)private(\s+@main\b)", r"\1\2", text) + "\n"
    case.takes_arguments = True
    return case


def expected_constant(dense_body: str, type_text: str) -> np.ndarray:
    """The value of ``dense<dense_body> : type_text`` exactly as MLIR reads it.

    The literal goes through MLIR (as a ``stablehlo.constant``) and the oracle's exact
    reader, so decimal spellings round the way MLIR's APFloat does (e.g. ``0.0`` in
    f8E8M0FNU, which has no zero, becomes 2^-127 as in the official interpreter, where
    ml_dtypes would give NaN).
    """
    return expected_constants([(dense_body, type_text)])[0]


def expected_constants(literals: list[tuple[str, str]]) -> list[np.ndarray]:
    """``expected_constant`` of many (dense body, type) pairs in one MLIR parse."""
    body = "".join(f"  %{i} = stablehlo.constant dense<{dense}> : {ty}\n" for i, (dense, ty) in enumerate(literals))
    types = ", ".join(ty for _, ty in literals)
    values = ", ".join(f"%{i}" for i in range(len(literals)))
    text = f"func.func @expected() -> ({types}) {{\n{body}  func.return {values} : {types}\n}}\n"
    module = parse_module(text, filename="expected")
    return [np.asarray(op.attr("value")) for op in module.functions[0].ops[:-1]]


@dataclass
class _Literal:
    """The expected literal of a *_const check, read when the whole file is loaded."""
    case: CorpusCase
    check: Check
    dense: str
    type: str


def _resolve_constants(pending: list[_Literal], rel: str) -> None:
    """Read every pending literal (one MLIR parse for all of them); when that fails, each one alone,
    so the case with the malformed literal gets the error and the others their values."""
    if not pending:
        return
    try:
        values = expected_constants([(p.dense, p.type) for p in pending])
    except Exception:  # noqa: BLE001 - some literal is malformed: find it below
        values = None
    for k, p in enumerate(pending):
        if values is not None:
            p.check.expected_value = values[k]
            continue
        try:
            p.check.expected_value = expected_constant(p.dense, p.type)
        except Exception as e:  # malformed literal (MLIR's diagnostic)
            p.case.error = f"{rel}:{p.check.line}: bad expected literal for {p.check.op}: {e}"
            p.case.module = None


def _operand_type(pc: ParsedCheck) -> str:
    if not pc.type.startswith("tensor<"):
        raise CheckSyntaxError(f"check.{pc.op}: cannot read the operand type from {pc.type!r}")
    return pc.type


def _replace_terminator(text: str, entry: dict, return_line: str, *, replace_values: bool = False) -> tuple[str, bool]:
    """Replace the entry function's final ``func.return``/``return`` (no operands) by ``return_line``.

    ``entry`` offsets refer to the original chunk; blanking check lines kept the lengths
    of lines other than the check lines, which only shrank, so we search again.
    """
    funcs = _functions(text.split("\n"))
    f = next((g for g in funcs if g["name"] == entry["name"]), None)
    if f is None:
        return text, False
    body = text[f["body_open"] + 1:f["body_end"] - 1]
    # The terminator is the last top-level statement of the body.
    matches = list(re.finditer(r"(^|\n)(\s*)(?:(?:func\.)?return\b|\"func\.return\"\(\)\s*:\s*\(\)\s*->\s*\(\))([^\n]*)", body))
    for m in reversed(matches):
        prefix = body[:m.start()]
        if _bracket_depth(prefix) != 0:
            continue
        rest = m.group(3).strip()
        if rest and not replace_values:
            return text, False
        new_body = body[:m.start()] + m.group(1) + m.group(2) + return_line + body[m.end():]
        return text[:f["body_open"] + 1] + new_body + text[f["body_end"] - 1:], True
    # No terminator written: add one before the closing brace.
    new_body = body.rstrip() + "\n  " + return_line + "\n"
    return text[:f["body_open"] + 1] + new_body + text[f["body_end"] - 1:], True


def _bracket_depth(text: str) -> int:
    return sum(_bracket_delta(line) for line in _strip_lines(text))


def _strip_lines(text: str):
    return (_strip_comment(line) for line in text.split("\n"))


def _add_wrapper(text: str, callee: str, types: list[str]) -> str:
    n = len(types)
    tys = ", ".join(types)
    if n == 0:
        body = f"  func.call @{callee}() : () -> ()\n  func.return\n"
    elif n == 1:
        body = f"  %r = func.call @{callee}() : () -> ({tys})\n  func.return %r : {tys}\n"
    else:
        names = ", ".join(f"%r#{i}" for i in range(n))
        body = f"  %r:{n} = func.call @{callee}() : () -> ({tys})\n  func.return {names} : {tys}\n"
    wrapper = f"\nfunc.func @main() -> ({tys}) {{\n{body}}}\n"
    m = re.search(r"^\s*module\b[^{]*\{", text, re.M)
    if m:  # insert inside the module, before its last '}'
        idx = text.rstrip().rfind("}")
        return text[:idx] + wrapper + text[idx:]
    return text + wrapper


def _annotate(case: CorpusCase, rel: str) -> None:
    """Parse + verify the rewritten program with MLIR, once: keep the IR (``case.module``) and
    fill ops/dtypes, or set ``error``."""
    try:
        module = parse_module(case.program_text, filename=rel,
                              allow_unregistered="interpreter.run_parallel" in case.program_text)
    except MlirError as e:
        case.error = str(e)
        return
    except Exception as e:  # the IR reader does not know a construct: report, never a traceback
        case.error = f"{type(e).__name__}: {e}"
        return
    case.module = module
    case.ops, case.dtypes = ops_and_dtypes(module)


def ops_and_dtypes(module) -> tuple[list[str], list[str]]:
    """Op names (dialect ops; not func.*) and element types used by an oracle IR module."""
    from oracle.types import TensorType

    ops, dtypes = set(), set()

    def note(t):
        if isinstance(t, TensorType):
            dtypes.add(str(t.element_type))
        elif hasattr(t, "types"):
            for u in t.types:
                note(u)

    for op in module.walk_ops():
        if not op.name.startswith("func."):
            ops.add(op.name)
        for v in (*op.operands, *op.results):
            note(v.type)
    for fn in module.functions:
        for v in fn.arguments:
            note(v.type)
        for t in fn.result_types:
            note(t)
    return sorted(ops), sorted(dtypes)


# ------------------------------------------------------------------ testdata format

_TESTDATA_KINDS = {
    "check.expect_eq": ("eq", None, None),
    "check.expect_close": ("close", None, _TESTDATA_CLOSE_MAX_ULP),
    "check.expect_almost_eq": ("almost_eq", _TESTDATA_ALMOST_EQ_TOL, None),
    "check.eq": ("eq_or_almost", DEFAULT_ALMOST_EQ_TOLERANCE, None),  # ints exact, floats almost_eq 1e-4
}


def load_testdata_case(text: str, rel: str, path: str, *, start: int = 1, alone: bool = True) -> CorpusCase:
    """A testdata file (or one ``// -----`` chunk of a file, from line ``start``; ``alone``: the
    file's only chunk) -> one case, rewritten on the MLIR module with jaxlib's bindings."""
    name = os.path.splitext(os.path.basename(rel))[0]
    if alone:
        case = CorpusCase(id=f"{rel}::{name}", file=path, name=name, format="testdata")
    else:
        main = re.search(r"^[ \t]*func\.func\s+(?:public\s+)?@main\b", text, re.M)
        line = start + (text[:main.start()].count("\n") if main else 0)
        case = CorpusCase(id=f"{rel}:{line}:{name}", file=path, name=name, line=line, format="testdata")
    try:
        program, checks = rewrite_testdata("\n" * (start - 1) + text, filename=rel)
    except _TestdataError as e:
        case.error = str(e)
        return case
    case.program_text, case.checks = program, checks
    _annotate(case, rel)
    return case


class _TestdataError(Exception):
    pass


def rewrite_testdata(text: str, *, filename: str = "-") -> tuple[str, list[Check]]:
    """Drop the ``@check.*`` custom_calls of ``@main``; return (actual, expected) pairs instead."""
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import func as func_d

    from oracle.errors import MlirError
    from oracle.mlir_text import context_lock, mlir_diagnostics, mlir_context

    ctx = mlir_context()
    with context_lock, ctx, ir.Location.unknown():
        try:
            module = ir.Module.parse(text)
        except ir.MLIRError as e:
            raise _TestdataError(str(MlirError(mlir_diagnostics(e, filename)))) from None
        main = None
        for op in module.body.operations:
            op = op.operation
            if op.name == "func.func" and ir.StringAttr(op.attributes["sym_name"]).value == "main":
                main = op
        if main is None:
            raise _TestdataError(f"{filename}: no func.func @main")
        block = main.regions[0].blocks[0]
        values, checks, to_erase, terminator = [], [], [], None
        for op in block.operations:
            op = op.operation
            if op.name in ("func.return", "return"):
                terminator = op
                continue
            if op.name != "stablehlo.custom_call":
                continue
            target = ir.StringAttr(op.attributes["call_target_name"]).value
            if not target.startswith("check."):
                continue
            if target not in _TESTDATA_KINDS:
                raise _TestdataError(f"{filename}: unknown check custom_call @{target}")
            if len(op.operands) != 2:
                raise _TestdataError(f"{filename}: @{target} takes 2 operands, got {len(op.operands)}")
            kind, tol, max_ulp = _TESTDATA_KINDS[target]
            ty = str(op.operands[0].type)
            if kind == "eq_or_almost":
                kind = "eq" if _is_integer_type(ty) else "almost_eq"
            line = _mlir_line(op.location)
            checks.append(Check(kind=kind, actual=len(values), expected=len(values) + 1,
                                tolerance=tol if kind == "almost_eq" else None,
                                max_ulp=max_ulp if kind == "close" else None, type=ty,
                                op=f"@{target}", line=line))
            values.extend([op.operands[0], op.operands[1]])
            to_erase.append(op)
        if not checks:
            raise _TestdataError(f"{filename}: @main has no @check.* custom_call")
        if terminator is None:
            raise _TestdataError(f"{filename}: @main has no terminator")
        with ir.InsertionPoint(terminator):
            func_d.ReturnOp(values)
        terminator.erase()
        for op in to_erase:
            for r in op.results:
                if list(r.uses):
                    raise _TestdataError(f"{filename}: the result of a check custom_call is used by another op")
            op.erase()
        main.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get([], [v.type for v in values]))
        if "res_attrs" in main.attributes:
            del main.attributes["res_attrs"]
        if not module.operation.verify():
            raise _TestdataError(f"{filename}: the rewritten module does not verify")
        return str(module), checks


def _is_integer_type(type_text: str) -> bool:
    from oracle.types import parse_type

    try:
        et = parse_type(type_text).element_type
        return bool(et.is_integer or et.is_bool)
    except Exception:
        return False


def _mlir_line(location) -> int:
    m = re.search(r":(\d+):\d+", str(location))
    return int(m.group(1)) if m else 0


# ------------------------------------------------------------------------- running

@contextlib.contextmanager
def _backend_of(backend: Any):
    """``backend`` itself, or the backend of that name (``adapters.get_backend``), closed when done."""
    if not isinstance(backend, str):
        yield backend
        return
    made = get_backend(backend)
    try:
        yield made
    finally:
        made.close()


_UNSUPPORTED_HINTS = ("does not implement", "Unsupported", "not supported by the oracle")


def run_case(case: CorpusCase, backend: Any, timeout: float = 60) -> CaseResult:
    """Run one case on ``backend`` (a Backend or a name) and apply its checks."""
    return case_results(case, backend, timeout)[0]


#: ``conformance.check.check_program``'s signature: checks a program whose entry takes arguments
#: on drawn inputs (given to ``case_results`` by the caller: conformance/check.py builds on this module).
DifferentialCheck = Callable[..., list]


def case_results(case: CorpusCase, backend: Any, timeout: float = 60, out_dir: str | None = None, *,
                 check: DifferentialCheck | None = None) -> list[CaseResult]:
    """Every result of one case: one for a test; for a program whose entry takes arguments (no
    goldens), ``check``'s results (one per input set; reproducers under ``out_dir``), or without
    ``check`` one ``unsupported`` result."""
    if case.takes_arguments and case.runnable and check is None:
        return [CaseResult(id=case.id, ops=[], dtypes=[], status=Status.UNSUPPORTED, file=case.file,
                           message="entry function takes arguments and the file has no goldens: "
                                   "`shlo-conform check` (or `corpus`) runs it on drawn inputs")]
    with _backend_of(backend) as be:
        if case.takes_arguments and case.runnable:
            return check(case.program_text, be, name=case.id, timeout=timeout, out_dir=out_dir, filename=case.file)
        return [_run_test_case(case, be, timeout)]


def _run_test_case(case: CorpusCase, be, timeout: float) -> CaseResult:
    base = dict(id=case.id, ops=list(case.ops), dtypes=list(case.dtypes), file=case.file,
                reproducer=reproducer(case))
    if case.skip_reason:
        return CaseResult(status=Status.UNSUPPORTED, message=f"skipped: {case.skip_reason}",
                          extra={"skipped": True}, **base)
    if case.unsupported_reason:
        return CaseResult(status=Status.UNSUPPORTED, message=case.unsupported_reason, **base)
    if case.error:
        return CaseResult(status=Status.ERROR, message=case.error, **base)
    itself = be.name == "oracle"
    t0 = time.perf_counter()
    try:
        # The oracle as the backend: its one evaluation is both the answer and what the judge needs.
        res, values = _oracle_itself(case) if itself else (be.run(case.program_text, [], timeout=timeout), None)
    except Exception as e:  # a backend bug must not abort a whole corpus run
        return CaseResult(status=Status.ERROR, message=f"backend raised {type(e).__name__}: {e}",
                          seconds=time.perf_counter() - t0, **base)
    seconds = float(getattr(res, "seconds", 0.0) or (time.perf_counter() - t0))
    status = res.status
    if status == RunStatus.ERROR and any(h in (res.message or "") for h in _UNSUPPORTED_HINTS) and itself:
        status = RunStatus.UNSUPPORTED  # an oracle that reports a missing op as a plain error
    if status != RunStatus.OK:
        mapped = Status(status) if status in STATUSES else Status.ERROR
        return CaseResult(status=mapped, message=res.message or status, seconds=seconds, **base)
    outputs = list(res.outputs or [])
    max_ulp, failures = None, []
    for check in case.checks:
        outcome = evaluate_check(check, outputs)
        if outcome.max_ulp is not None:
            max_ulp = outcome.max_ulp if max_ulp is None else max(max_ulp, outcome.max_ulp)
        if not outcome.ok:
            failures.append((check, outcome.message))
    # The oracle judges too (judge/verdict.py): the backend's outputs against the oracle's
    # allowances, and a golden the backend misses against the rigorous bound of the exact answer.
    judged = None
    if failures or not itself:  # (the oracle's outputs need no judging against themselves)
        judged = _judge_by_oracle(case, be, outputs, [c for c, _ in failures], timeout, values,
                                  judge_outputs=not itself)
    extra = {"checks": len(case.checks)}
    if judged is not None and judged["verdict"] is not None and judged["verdict"].status == Status.MISMATCH:
        messages = [m for _, m in failures] + [f"the oracle's judge: {judged['verdict'].message}"]
        return CaseResult(status=Status.MISMATCH, message="\n".join(messages), max_ulp=max_ulp, seconds=seconds,
                          extra=dict(extra, failed_checks=len(failures)), **base)
    goldens = judged["goldens"] if failures and judged is not None else []
    if goldens:
        wrong = [g.message for g in goldens if g.status == Status.MISMATCH]
        if wrong:  # the file's expected value is outside the bound of the exact answer: still a failure
            message = "\n".join([m for _, m in failures] + ["wrong golden: " + text for text in wrong])
            return CaseResult(status=Status.MISMATCH, message=message, max_ulp=max_ulp,
                              seconds=seconds, extra=dict(extra, wrong_golden=len(wrong)), **base)
        if len(goldens) == len(failures) and all(g.status == Status.PASS for g in goldens):
            return CaseResult(status=Status.PASS, message="golden inexact: " + "\n".join(g.message for g in goldens),
                              max_ulp=max_ulp, seconds=seconds, extra=dict(extra, golden_inexact=len(goldens)),
                              **base)
        notes = [f"golden {BOUND_STATE[g.status]}: {g.message}" for g in goldens if g.status != Status.PASS]
        failures = failures + [(None, "\n".join(notes))] if notes else failures
    if failures:
        return CaseResult(status=Status.MISMATCH, message="\n".join(m for _, m in failures), max_ulp=max_ulp,
                          seconds=seconds, extra=dict(extra, failed_checks=len(failures)), **base)
    message = "" if case.checks else "no checks: the program ran without error" + (
        ", its outputs judged against the oracle's" if outputs and not itself and judged else "")
    return CaseResult(status=Status.PASS, message=message, max_ulp=max_ulp, seconds=seconds, extra=extra, **base)


def _oracle_itself(case: CorpusCase) -> tuple[RunResult, tuple | None]:
    """The oracle as the backend, on the case's parsed program: (its result, ``oracle_run``'s values)."""
    from oracle.errors import Unsupported

    t0 = time.perf_counter()
    try:
        values = oracle_run(_module_of(case), [])
    except Exception as e:  # noqa: BLE001 - every failure is a status, as the oracle backend gives it
        status = RunStatus.UNSUPPORTED if isinstance(e, Unsupported) else RunStatus.ERROR
        return RunResult(status, None, f"{type(e).__name__}: {e}", time.perf_counter() - t0), None
    return RunResult(RunStatus.OK, [np.asarray(o) for o in values[0]], "", time.perf_counter() - t0), values


def _module_of(case: CorpusCase):
    if case.module is None:
        case.module = parse_module(case.program_text, allow_unregistered="interpreter." in case.program_text)
    return case.module


def _judge_by_oracle(case: CorpusCase, backend, outputs: list, failed: list, timeout: float,
                     values: tuple | None = None, *, judge_outputs: bool = True) -> dict | None:
    """{"verdict": the judge's verdict on the backend's outputs (None when not ``judge_outputs``),
    "goldens": [(consistent, evidence)] for each failed check's expected value, judged as if it
    were the producing op's result}; None when the oracle cannot evaluate the program.
    ``values``: ``oracle_run``'s answer when the caller has it."""
    try:
        module = _module_of(case)
        values = values or oracle_run(module, [])
    except Exception:  # noqa: BLE001 - the oracle cannot judge this case (unsupported op, ...)
        return None

    def rerun(text):
        again = backend.run(text, [], timeout=timeout)
        return again.outputs if again.status == RunStatus.OK else None

    verdict = None
    if judge_outputs:
        try:
            verdict = judge_program(module, [], outputs, traits=Traits.of(backend), rerun=rerun,
                                    oracle_values=values)
        except Exception:  # noqa: BLE001
            return None
    return {"verdict": verdict, "goldens": _judged_goldens(module, values, outputs, failed)}


def _judged_goldens(module, values: tuple, outputs: list, failed: list) -> list:
    """Each failed check's expected value judged against the program-level bound of the exact
    answer (judge/program_bound.py: every op's allowance carried through the ops after it, calls
    inlined): a judge ``Verdict`` per check whose golden is not the oracle's own answer (that one
    stands as written)."""
    def golden_of(check):
        return check.expected_value if check.expected is None else outputs[check.expected]

    differ = [c for c in failed if golden_of(c) is not None and c.actual < len(values[0])
              and np.asarray(golden_of(c)).tobytes() != np.asarray(values[0][c.actual]).tobytes()]
    if not differ:
        return []
    try:
        expanded = output_bounds(module, [])
    except (rewrite.TooLarge, RecursionError, OracleError):  # not judged: the file's checks stand
        return []
    goldens = []
    for check in differ:  # (a golden that is the oracle's answer: the file's check stands as written)
        verdict = judge_against_program_bound(*expanded, check.actual, golden_of(check))
        if verdict is not None:
            verdict.message = f"{check.describe()}: the file's expected value is {verdict.message}"
            goldens.append(verdict)
    return goldens


def reproducer(case: CorpusCase) -> str:
    """The rewritten program without the blank lines that keep it aligned with its file."""
    if not case.program_text:
        return ""
    first = len(case.program_text) - len(case.program_text.lstrip("\n"))
    shift = f"; line L here is line L{first - 1:+d} of the file" if first - 1 else ""
    return f"// {case.id} ({case.format} format, rewritten{shift})\n" + case.program_text.lstrip("\n")


def summary_by_file(results: list[CaseResult]) -> dict[str, dict[str, int]]:
    """{file: {status: count}} with tool tests counted as "skip"."""
    out: dict[str, dict[str, int]] = {}
    for r in results:
        key = r.id.split(":")[0] if ":" in r.id else os.path.basename(r.file)
        st = "skip" if r.extra.get("skipped") else r.status
        out.setdefault(key, {}).setdefault(st, 0)
        out[key][st] += 1
    return out


def run_corpus(path: str, backend: Any, timeout: float = 60) -> list[CaseResult]:
    """Load and run every case of ``path`` (file or directory), in this process."""
    with _backend_of(backend) as be:
        return [r for c in load_cases(path) for r in case_results(c, be, timeout)]


def run_file(path: str, backend: Any, *, timeout: float = 60, root: str | None = None,
             out_dir: str | None = None, check: DifferentialCheck | None = None) -> list[CaseResult]:
    """Every result of one file (``load_cases`` then ``case_results``); never raises: a bad file
    or case is an ``error`` result, and so is a bug of this harness (the other files still run)."""
    try:
        with _backend_of(backend) as be:
            return [r for case in load_cases(path, root=root) for r in case_results(case, be, timeout, out_dir,
                                                                                     check=check)]
    except Exception as e:  # noqa: BLE001 - a harness bug is a result too, not the end of the run
        return [_file_error(path, root, f"harness: {type(e).__name__}: {e}")]


def _file_error(path: str, root: str | None, message: str) -> CaseResult:
    """The one ``error`` result of a file that gave no results of its own."""
    rel = os.path.relpath(path, root) if root else os.path.basename(path)
    return CaseResult(id=rel, ops=[], dtypes=[], status=Status.ERROR, file=path, message=f"{path}: {message}")


def iter_file_results(paths: list[str], backend: Any, *, jobs: int | None = None, timeout: float = 60,
                      root: str | None = None, out_dir: str | None = None, check: DifferentialCheck | None = None):
    """``(path, run_file's results)`` for each of ``paths``, in their order, the files spread over
    ``jobs`` worker processes (default: one per core; 1, or one file: in this process).

    Each worker parses, evaluates and judges whole files with its own instance of the backend
    (``backend.name`` is what it makes; a backend object is used as is only in this process), so
    the results are those of ``jobs=1``.  A worker that dies takes no other file with it: the
    file it was running is run again alone, and is one ``error`` result if it kills that one too.
    Ctrl-C stops the workers; the results handed out so far stay.  ``check``: see ``case_results``
    (a module-level function: the workers get it by name).  As with any multiprocessing code, a
    script that calls this with ``jobs > 1`` needs the ``if __name__ == "__main__":`` guard (the
    workers import the caller's main module)."""
    jobs = min(jobs or os.cpu_count() or 1, len(paths))
    if jobs <= 1:
        with _backend_of(backend) as be:  # one backend for every file (a worker backend keeps its process)
            for path in paths:
                yield path, run_file(path, be, timeout=timeout, root=root, out_dir=out_dir, check=check)
        return
    name = backend if isinstance(backend, str) else backend.name
    task = dict(backend=name, timeout=timeout, root=root, out_dir=out_dir, check=check)
    done = 0
    while done < len(paths):
        with _worker_pool(jobs) as pool:
            futures = [pool.submit(_run_file_in_worker, path, task) for path in paths[done:]]
            try:
                for future in futures:
                    results = future.result()
                    yield paths[done], results
                    done += 1
            except BrokenProcessPool:  # the worker running paths[done] (or another one) died
                pass
            finally:
                pool.shutdown(wait=False, cancel_futures=True)
        if done < len(paths):  # run the first unfinished file alone: is it the one that kills a worker?
            yield paths[done], _run_alone(paths[done], task)
            done += 1


@contextlib.contextmanager
def _worker_pool(jobs: int):
    # Each worker forks from a server that imported the corpus runner and every op family once
    # (a server, not this process: jaxlib's MLIR context and the backends' pipes stay here).
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__, *(f"oracle.ops.{m.name}"
                                                for m in pkgutil.iter_modules(oracle.ops.__path__))])
    pool = ProcessPoolExecutor(jobs, mp_context=context, initializer=_init_worker, initargs=(warnings.filters,))
    try:
        yield pool
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def _init_worker(warning_filters: list) -> None:
    """In a corpus worker: the caller's warning filters (the CLI's silence numpy's IEEE warnings);
    Ctrl-C (sent to the whole process group) ends it quietly, the parent keeps what finished."""
    warnings.filters[:] = warning_filters
    signal.signal(signal.SIGINT, lambda *_: os._exit(130))


#: This corpus worker's backend, made for its first file and used for every file after (a worker
#: backend keeps its process); closed when the worker exits.
_worker_backend: Any = None


def _run_file_in_worker(path: str, task: dict) -> list[CaseResult]:
    global _worker_backend
    if _worker_backend is None:
        try:
            _worker_backend = get_backend(task["backend"])
        except Exception as e:  # noqa: BLE001 - as in run_file: this file's error result, not the end of the run
            return [_file_error(path, task["root"], f"harness: {type(e).__name__}: {e}")]
        multiprocessing.util.Finalize(None, _worker_backend.close, exitpriority=10)
    return run_file(path, _worker_backend, timeout=task["timeout"], root=task["root"], out_dir=task["out_dir"],
                    check=task["check"])


def _run_alone(path: str, task: dict) -> list[CaseResult]:
    with _worker_pool(1) as pool:
        try:
            return pool.submit(_run_file_in_worker, path, task).result()
        except BrokenProcessPool:
            return [_file_error(path, task["root"], f"the process reading and running this file died "
                                                    f"(backend {task['backend']})")]


def default_corpus_dir() -> str | None:
    """``../shared/corpora/stablehlo-interpret`` next to the repo (or $SHLO_CORPUS), if present."""
    return shared_path("SHLO_CORPUS", "corpora", "stablehlo-interpret")
