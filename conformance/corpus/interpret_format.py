"""The interpret format: the official interpreter tests (``stablehlo/tests/interpret/*.mlir``).

Cases are separated by ``// -----`` (MLIR splits on that substring anywhere in a line, so
``// // -----`` splits too); each case is a ``func.func`` without arguments, or a ``module``
whose ``@main`` is the entry (the interpreter runs the only function, or ``@main`` when there
are several).  Expectations are ``check.*`` ops, which MLIR (jaxlib) does not know, so they are
the ONLY thing rewritten as text: each check statement is blanked out (line numbers stay those
of the file), the entry function is renamed ``@main`` and made to return the checked operands.
Everything else is parsed and verified by MLIR (``oracle.parse_module``); a malformed case gets
status ``error`` with MLIR's ``file:line:col`` diagnostic.

Check semantics follow the official interpreter (judge/golden_checks.py): 1e-4 for
``check.expect_almost_eq*`` without a tolerance; ``close`` within ``[min_ulp_difference,
max_ulp_difference]`` (defaults 0 and 1).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

import numpy as np

from judge.golden_checks import DEFAULT_ALMOST_EQ_TOLERANCE
from oracle.mlir_text import parse_module, split_top_level

from .records import Check, CorpusCase, annotate


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
        cases.extend(interpret_chunk_cases(chunk, start, rel, path, pending))
    resolve_constants(pending, rel)
    return cases


def interpret_chunk_cases(chunk: str, start: int, rel: str, path: str, pending: list) -> list[CorpusCase]:
    """One case per test function of the chunk; the literals of its *_const checks are added to
    ``pending`` (read by ``resolve_constants``, one MLIR parse for the whole file)."""
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
    annotate(case, rel)
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


def resolve_constants(pending: list[_Literal], rel: str) -> None:
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
