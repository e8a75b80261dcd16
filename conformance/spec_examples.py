"""The spec's per-op "Examples" paragraphs, turned into runnable test cases.

An example in ``stablehlo-spec.txt`` looks like::

    // %operand: [[1, 2], [3, 4]]
    %result = "stablehlo.transpose"(%operand) {permutation = array<i64: 1, 0>} : (tensor<2x2xi32>) -> tensor<2x2xi32>
    // %result: [[1, 3], [2, 4]]

i.e. input values in comments before the op text, the op text itself (possibly several
lines, with regions and comments), then the documented results in comments after it.
:func:`extract_examples` turns each into a ``@main`` whose arguments are the op's free
values (types read from the op text), whose body is the example verbatim, and which
returns the documented results; the literals become numpy values.  Examples that cannot
run as a single-process program with documented values (collectives, infeed, no values,
implementation-defined results, text MLIR rejects) come back with a
``skip_reason``.

Documented values are compared by the judge (judge/documented.py ``compare_documented``).

``ERRATA`` lists examples whose documented values are wrong for the inputs as written,
each with the reason and the corrected values (worked out by hand); those are what the
tests compare against, and ``documented_literals`` keeps what the spec prints.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


from oracle.mlir_text import split_top_level

from .corpus import balanced_end as _balanced_end
from .shared import shared_path

# -------------------------------------------------------------------------- locating


def spec_path() -> str | None:
    """$SHLO_SPEC, or ``../shared/spec/stablehlo-spec.txt`` relative to the repo root (None if absent)."""
    return shared_path("SHLO_SPEC", "spec", "stablehlo-spec.txt")


# ------------------------------------------------------------------------- records

#: Examples whose documented values do not hold for the inputs as written: id -> (why,
#: {result index: corrected literal}).  The corrections are worked out by hand from the
#: example's inputs (the reasoning is in the text); tests compare against them.
ERRATA: dict[str, tuple[str, dict[int, str]]] = {
    "divide-0": ("documents 17 / 3 = 5.66666651 but lhs is 17.1: 17.1 / 3 = 5.7 (f32: 5.70000029)",
                 {0: "[5.7, -5.7, -5.7, 5.7]"}),
    "log_plus_one-0": ("documents log_plus_one(-0.999) = -6.90776825, i.e. log(1 + f32(-0.999)); in f64 it is "
                       "log(0.001) = -3 * ln(10) = -6.907755278982137",
                       {0: "[0.0, -6.907755278982137, 2.07944155, 2.0, 2.77258873]"}),
    "power-0": ("documents 10000.0 ** 10.0 = inf (an f32 overflow); the operands are f64, where 1e40 is finite",
                {0: "[4.0, 0.0, -nan, 25.0, 0.333333343, 1.0e+40]"}),
    "tan-0": ("documents tan(f64(pi/2)) = 1.63312e+16 and tan(3pi/2) = 5.44375e+15 and tan(pi) = 0, but the "
              "inputs are 1.57079632, 3.14159265, 4.71238898: with d = distance to the pole/zero "
              "(6.7948966e-9, 3.5897930e-9, 3.8469e-10) tan = 1/d, -d, 1/d",
              {0: "[[0.0, 1.4716927e+08], [-3.5897931e-09, 2.5994971e+09]]"}),
    "all_reduce-0": ("documents %result1 = operand1 summed ([22, 24, 26, 28]), but the op text reduces "
                     "(%operand0, %operand0): both results are operand0 summed over the group",
                     {1: "[6, 8, 10, 12]"}),
    "while-0": ("documents %results1 = 10, but the loop runs for i = 1..9 (cond i < 10), adding 1 to the sum "
                "9 times: (10, 9)", {1: "9"}),
}


@dataclass
class SpecExample:
    op: str                          # mnemonic: "add"
    index: int                       # 0-based among the op's examples
    program_text: str = ""           # module with @main(free values) -> documented results
    inputs: list = field(default_factory=list)     # numpy arrays (tuples for tuple types, TOKEN for tokens)
    expected: list = field(default_factory=list)   # documented results, in @main's result order
    expected_literals: list[str] = field(default_factory=list)  # the documented literal text of each result
    result_types: list[str] = field(default_factory=list)
    output_names: list[str] = field(default_factory=list)
    note: str = ""                   # free-text comments of the example ("Logical values: ...")
    skip_reason: str = ""
    source: str = ""                 # the example text as printed in the spec
    line: int = 0                    # its first line in the spec
    # (num_replicas, num_partitions) for examples on a process grid; then ``inputs`` and
    # ``expected`` are dicts keyed by process id (replica_id, partition_id).
    grid: tuple[int, int] | None = None

    @property
    def id(self) -> str:
        return f"{self.op}-{self.index}"

    documented_literals: list[str] = field(default_factory=list)  # as printed (differs for ERRATA)

    @property
    def erratum(self) -> str:
        return ERRATA[self.id][0] if self.id in ERRATA else ""


# -------------------------------------------------------------------------- splitting

_OP_HEADING = re.compile(r"^[a-z][a-z0-9_]*$")


def _sections(lines: list[str]) -> list[tuple[str, int, int]]:
    """(op mnemonic, first line, end line) of every op section (a heading followed by 'Semantics')."""
    heads = []
    for i, line in enumerate(lines):
        if _OP_HEADING.match(line):
            j = i + 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            if j < len(lines) and lines[j].strip() == "Semantics":
                heads.append((line.strip(), i))
    out = []
    for k, (name, start) in enumerate(heads):
        end = heads[k + 1][1] if k + 1 < len(heads) else len(lines)
        out.append((name, start, end))
    return out


def op_semantics(op: str) -> str:
    """The first paragraph of an op's Semantics section in the spec, verbatim ("" when the spec
    or the section is not there)."""
    path = spec_path()
    if path is None:
        return ""
    lines = open(path, encoding="utf-8").read().splitlines()
    for name, start, end in _sections(lines):
        if name == op:
            body = [ln for ln in lines[start + 1:end]]
            text = "\n".join(body).split("Semantics", 1)[-1].strip()
            paragraphs = text.split("\n\nInputs\n")[0].split("\n\n")
            # the first paragraph, and the list it introduces ("does the following:")
            keep = paragraphs[:2] if paragraphs[0].rstrip().endswith(":") else paragraphs[:1]
            return "\n\n".join(p.strip() for p in keep)
    return ""


def _example_blocks(lines: list[str], start: int, end: int) -> list[tuple[int, list[str]]]:
    """Blank-line separated blocks of the op's Examples paragraph: (first line index, lines)."""
    try:
        ex = next(i for i in range(start, end) if lines[i].strip() == "Examples")
    except StopIteration:
        return []
    blocks, cur, cur_start = [], [], None
    for i in range(ex + 1, end):
        line = lines[i]
        s = line.strip()
        if s == "More Examples" or (re.match(r"^[A-Z][A-Za-z ]+$", s) and not line.startswith(" ")):
            break
        if not s:
            if cur:
                blocks.append((cur_start, cur))
            cur, cur_start = [], None
            continue
        if cur_start is None:
            cur_start = i
        cur.append(line)
    if cur:
        blocks.append((cur_start, cur))
    return blocks


# -------------------------------------------------------------- comment value entries

_ENTRY = re.compile(r"^%?\s*([A-Za-z_][\w]*)((?:#\d+)?)(@\([^)]*\))?\s*(?:\[\d+\])?\s*(?::|=)\s*(.*)$")


def _comment_body(line: str) -> str:
    s = line.strip()
    assert s.startswith("//")
    body = s[2:]
    k = body.find("//")  # a comment inside the comment: "[0, 1.57]  // [0, pi/2]"
    if k >= 0:
        body = body[:k]
    return body.strip()


def _depth(text: str) -> int:
    return text.count("[") - text.count("]") + text.count("(") - text.count(")")


def _entries(comment_lines: list[str]) -> tuple[list[tuple[str, str]], list[str]]:
    """Parse ``// %name: value`` entries (values may continue on following comment lines)."""
    entries: list[list[str]] = []
    notes: list[str] = []
    for line in comment_lines:
        body = _comment_body(line)
        if entries and _depth(entries[-1][1]) > 0:
            entries[-1][1] += " " + body
            continue
        m = _ENTRY.match(body)
        if m and (body.startswith("%") or m.group(1) in ("operand", "num_replicas", "num_partitions",
                                                           "infeed_queue", "results0", "results1")
                  or m.group(3)):
            name = m.group(1) + m.group(2) + (m.group(3) or "")
            if body.startswith("infeed_queue"):
                name = "infeed_queue"
            entries.append([name, m.group(4).strip()])
        elif body:
            notes.append(body)
    return [(n, v) for n, v in entries], notes


# ------------------------------------------------------------------- op text scanning

def _strip_code_comment(line: str) -> str:
    k = line.find("//")
    return line if k < 0 else line[:k]


def _skip_ws(text: str, p: int) -> int:
    while p < len(text) and text[p].isspace():
        p += 1
    return p


_TYPE_TOKEN = re.compile(r"(tensor|tuple|complex|!quant\.uniform|!stablehlo\.token|[A-Za-z_!][\w.]*)")


def _read_type(text: str, p: int) -> tuple[str, int]:
    p = _skip_ws(text, p)
    m = _TYPE_TOKEN.match(text, p)
    if not m:
        raise ValueError("expected a type")
    q = m.end()
    if q < len(text) and text[q] == "<":
        q = _balanced_end(text, q, "<", ">")
    return text[p:q], q


def _names(group: str) -> list[str]:
    """``%a, %b:2`` -> ['%a', '%b#0', '%b#1'] (and keeps '%b' for the pack)."""
    out = []
    for part in group.split(","):
        part = part.strip()
        m = re.fullmatch(r"(%[\w.$-]+)(?::(\d+))?", part)
        if not m:
            continue
        if m.group(2):
            out.extend(f"{m.group(1)}#{i}" for i in range(int(m.group(2))))
        else:
            out.append(m.group(1))
    return out


_DEFINED_BEFORE = re.compile(r"((?:%[\w.$-]+(?::\d+)?\s*,\s*)*%[\w.$-]+(?::\d+)?)\s*=\s*$")


def infer_types(code: str) -> tuple[dict[str, str], list[str]]:
    """Types of the SSA values an example's op text uses or defines, read from its signatures.

    Returns (name -> type text, defined names in order).  Generic ops give operand and
    result types positionally from ``: (operand types) -> result types``; pretty ops
    (``stablehlo.add %a, %b : T``, ``stablehlo.return %a, %b : T1, T2``) give one type
    per operand or one type for all.
    """
    types: dict[str, str] = {}
    defined: list[str] = []
    for m in re.finditer(r'"((?:stablehlo|chlo|func)\.\w+)"\s*\(', code):
        try:
            close = _balanced_end(code, m.end() - 1, "(", ")")
            operands = [o for o in split_top_level(code[m.end():close - 1]) if o]
            p = _skip_ws(code, close)
            if code.startswith("<{", p):
                p = _balanced_end(code, p + 1, "{", "}") + 1
                p = _skip_ws(code, p)
            if code.startswith("(", p) and code[_skip_ws(code, p + 1):].startswith("{"):
                p = _skip_ws(code, _balanced_end(code, p, "(", ")"))
            if code.startswith("{", p):
                p = _skip_ws(code, _balanced_end(code, p, "{", "}"))
            if not code.startswith(":", p):
                continue
            p = _skip_ws(code, p + 1)
            if code.startswith("(", p):
                q = _balanced_end(code, p, "(", ")")
                in_types = split_top_level(code[p + 1:q - 1])
                p = _skip_ws(code, q)
            else:
                t, p = _read_type(code, p)
                in_types = [t]
                p = _skip_ws(code, p)
            out_types: list[str] = []
            if code.startswith("->", p):
                p = _skip_ws(code, p + 2)
                if code.startswith("(", p):
                    q = _balanced_end(code, p, "(", ")")
                    out_types = split_top_level(code[p + 1:q - 1])
                else:
                    t, _ = _read_type(code, p)
                    out_types = [t]
        except ValueError:
            continue
        for o, t in zip(operands, in_types):
            types.setdefault(o.split("#")[0] if "#" not in o else o, t)
        d = _DEFINED_BEFORE.search(code[:m.start()])
        if d:
            names = _names(d.group(1))
            defined.extend(names)
            if len(names) == len(out_types):
                for n, t in zip(names, out_types):
                    types.setdefault(n, t)
    for line in code.split("\n"):
        pm = re.match(r"^\s*(?:((?:%[\w.$-]+(?::\d+)?\s*,\s*)*%[\w.$-]+(?::\d+)?)\s*=\s*)?"
                      r"(?:stablehlo|chlo)\.(\w+)\s+(.*)$", line)
        if not pm:
            continue
        rest = pm.group(3)
        depth, colon = 0, -1
        for i, c in enumerate(rest):
            if c in "[({<":
                depth += 1
            elif c in "])}" or (c == ">" and rest[i - 1] != "-"):
                depth -= 1
            elif c == ":" and depth == 0:
                colon = i
                break
        if colon < 0:
            continue
        head, tail = rest[:colon], rest[colon + 1:].strip()
        operands = re.findall(r"%[\w.$-]+(?:#\d+)?", head)
        results = _names(pm.group(1)) if pm.group(1) else []
        if "->" in tail:
            ins, _, outs = tail.partition("->")
            in_types = split_top_level(ins.strip().strip("()"))
            out_types = split_top_level(outs.strip().strip("()")) if outs.strip().startswith("(") else [outs.strip()]
        else:
            in_types = split_top_level(tail)
            out_types = in_types[-1:] if in_types else []
        if len(in_types) == 1 and len(operands) > 1:
            in_types = in_types * len(operands)
        for o, t in zip(operands, in_types):
            types.setdefault(o, t)
        for r, t in zip(results, out_types if len(out_types) == len(results) else out_types[-1:] * len(results)):
            types.setdefault(r, t)
        defined.extend(results)
    return types, defined


# ---------------------------------------------------------------------- literals

def _literal_shape(text: str) -> tuple[int, ...] | None:
    """Shape of a nested-list literal (None for a scalar; raises on ragged lists)."""
    text = text.strip()
    if not text.startswith("["):
        return None

    def parse(s: str, i: int):
        # s[i] == '['
        i += 1
        items = []
        while True:
            while i < len(s) and s[i] in " ,":
                i += 1
            if s[i] == "]":
                return items, i + 1
            if s[i] == "[":
                sub, i = parse(s, i)
                items.append(sub)
            else:
                j = i
                depth = 0
                while j < len(s) and (depth > 0 or s[j] not in ",]"):
                    if s[j] == "(":
                        depth += 1
                    elif s[j] == ")":
                        depth -= 1
                    j += 1
                items.append(s[i:j].strip())
                i = j

    tree, _ = parse(text, 0)

    def shape(t):
        if isinstance(t, list):
            subs = {shape(x) for x in t}
            if len(subs) > 1:
                raise ValueError("ragged literal")
            return (len(t),) + (subs.pop() if subs else ())
        return ()

    return shape(tree)


def _pair_complex(text: str) -> str:
    """``[-2.5, -0.0]`` for one complex element -> ``[(-2.5, -0.0)]`` (the spec writes negate's so)."""
    nums = re.findall(r"[-+]?(?:0x[0-9a-fA-F]+|inf|nan|\d+\.?\d*(?:[eE][-+]?\d+)?)", text)
    pairs = [f"({nums[i]}, {nums[i + 1]})" for i in range(0, len(nums) - 1, 2)]
    return "[" + ", ".join(pairs) + "]"


def parse_value(text: str, type_text: str):
    """A documented value (numpy-ish literal) as a value of ``type_text``."""
    from oracle.evaluator import TOKEN_VALUE
    from oracle.literals import parse_dense
    from oracle.types import TensorType, TokenType, TupleType, parse_type

    ty = parse_type(type_text) if isinstance(type_text, str) else type_text
    text = text.strip()
    if isinstance(ty, TokenType):
        if text != "!stablehlo.token":
            raise ValueError(f"expected !stablehlo.token, got {text!r}")
        return TOKEN_VALUE
    if isinstance(ty, TupleType):
        if not (text.startswith("(") and text.endswith(")")):
            raise ValueError(f"expected a tuple literal, got {text!r}")
        items = split_top_level(text[1:-1])
        if len(items) != len(ty.types):
            raise ValueError(f"tuple literal has {len(items)} items, type has {len(ty.types)}")
        return tuple(parse_value(i, t) for i, t in zip(items, ty.types))
    if not isinstance(ty, TensorType):
        raise ValueError(f"cannot build a value of type {type_text}")
    et = ty.element_type
    if et.is_complex and "(" not in text:
        text = _pair_complex(text)
    if et.is_complex and text.startswith("(") and ty.rank == 1:
        text = "[" + text + "]"
    shape = _literal_shape(text)
    if shape is not None and tuple(shape) != tuple(ty.shape):
        raise ValueError(f"literal has shape {list(shape)}, type {type_text} has {list(ty.shape)}")
    if shape is None and ty.rank > 0 and ty.num_elements != 1:
        raise ValueError(f"scalar literal for {type_text}")
    return parse_dense(text, ty)


# --------------------------------------------------------------------- extraction

_SKIP_OPS = {
    "rng": "the values of rng are implementation-defined",
}


def extract_examples(op: str | None = None, *, path: str | None = None,
                     validate: bool = True) -> list[SpecExample]:
    """Every example of the spec (or of one op); ``validate`` parses each program with MLIR."""
    path = path or spec_path()
    if path is None:
        return []
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    out = []
    for name, start, end in _sections(lines):
        if op is not None and name != op:
            continue
        for k, (first, block) in enumerate(_example_blocks(lines, start, end)):
            ex = _example(name, k, block, first + 1)
            if validate and not ex.skip_reason:
                _validate(ex)
            out.append(ex)
    return out


def _example(op: str, index: int, block: list[str], line: int) -> SpecExample:
    ex = SpecExample(op=op, index=index, source="\n".join(block), line=line)
    is_comment = [ln.strip().startswith("//") for ln in block]
    code_idx = [i for i, c in enumerate(is_comment) if not c]
    if not code_idx:
        ex.skip_reason = "no op text"
        return ex
    first, last = code_idx[0], code_idx[-1]
    lead = [block[i] for i in range(first)]
    trail = [block[i] for i in range(last + 1, len(block))]
    inner = [block[i] for i in range(first, last + 1) if is_comment[i]]
    code = "\n".join(block[first:last + 1])
    in_entries, in_notes = _entries(lead)
    out_entries, out_notes = _entries(trail)
    mid_entries, _ = _entries(inner)
    ex.note = "; ".join(in_notes + out_notes)
    names = {n for n, _ in in_entries + out_entries + mid_entries}
    if op in _SKIP_OPS:
        ex.skip_reason = _SKIP_OPS[op]
        return ex
    if any("@(" in n for n in names) or names & {"num_replicas", "num_partitions"}:
        return _grid_example(ex, code, in_entries, out_entries)
    if "infeed_queue" in names:
        ex.skip_reason = "needs an infeed queue"
        return ex
    return _fill(ex, code, in_entries, out_entries)

def _fill(ex: SpecExample, code: str, in_entries, out_entries) -> SpecExample:
    """The program (@main taking the op's free values, returning the documented results),
    its inputs and the expected values, from the op text and the value entries."""
    stripped = "\n".join(_strip_code_comment(ln) for ln in code.split("\n"))
    types, defined = infer_types(stripped)
    block_args = set(re.findall(r"(%[\w.$-]+)\s*:", " ".join(re.findall(r"\^bb\d*\(([^)]*)\)", stripped))))
    used = []
    for u in re.findall(r"%[\w.$-]+", stripped):
        if u not in used:
            used.append(u)
    defined_bases = {d.split("#")[0] for d in defined}
    free = [u for u in used if u not in defined_bases and u not in block_args]
    values = dict((("%" + n) if not n.startswith("%") else n, v) for n, v in in_entries)
    # Arguments: free values, in the order their values are given (then first use).
    order = [n for n in values if n in free] + [u for u in free if u not in values]
    args, inputs = [], []
    for name in order:
        ty = types.get(name)
        if ty is None:
            ex.skip_reason = f"cannot find the type of {name} in the op text"
            return ex
        if name not in values:
            if ty == "!stablehlo.token":
                from oracle.evaluator import TOKEN_VALUE
                args.append((name, ty))
                inputs.append(TOKEN_VALUE)
                continue
            ex.skip_reason = f"no value given for {name}"
            return ex
        if not _type_ok(ty):
            ex.skip_reason = f"the spec's example text does not verify: malformed type {ty!r} of {name}"
            return ex
        try:
            inputs.append(parse_value(values[name], ty))
        except Exception as e:
            ex.skip_reason = f"cannot read the value of {name} ({values[name]!r}) as {ty}: {e}"
            return ex
        args.append((name, ty))
    # Results: defined values with a documented value, in the order documented.
    outputs = []
    for n, v in out_entries:
        name = n if n.startswith("%") else "%" + n
        if name not in defined and name + "#0" not in defined:
            alt = re.sub(r"^(%[\w$.-]+?)(\d+)$", r"\1#\2", name)  # %result0 for %result:2
            if alt in defined:
                name = alt
            else:
                continue
        outputs.append((name, v))
    if not outputs:
        ex.skip_reason = "no documented result values"
        return ex
    ret_types = []
    for name, v in outputs:
        ty = types.get(name)
        if ty is None:
            ex.skip_reason = f"cannot find the type of {name}"
            return ex
        try:
            ex.expected.append(parse_value(v, ty))
        except Exception as e:
            ex.skip_reason = f"cannot read the documented value of {name} ({v!r}) as {ty}: {e}"
            return ex
        ex.expected_literals.append(v)
        ret_types.append(ty)
    ex.documented_literals = list(ex.expected_literals)
    if ex.id in ERRATA:
        why, fixes = ERRATA[ex.id]
        for i, lit in fixes.items():
            ex.expected[i] = parse_value(lit, ret_types[i])
            ex.expected_literals[i] = lit
        ex.note = (ex.note + "; " if ex.note else "") + "erratum: " + why
    ex.inputs = inputs
    ex.result_types = ret_types
    ex.output_names = [n for n, _ in outputs]
    arg_text = ", ".join(f"{n}: {t}" for n, t in args)
    body = "\n".join("  " + ln for ln in code.split("\n"))
    ex.program_text = (f"func.func @main({arg_text}) -> ({', '.join(ret_types)}) {{\n{body}\n"
                       f"  func.return {', '.join(n for n, _ in outputs)} : {', '.join(ret_types)}\n}}\n")
    return ex


def _grid_example(ex: SpecExample, code: str, in_entries, out_entries) -> SpecExample:
    """An example on a process grid (``// num_replicas: 2``, ``// %operand@(0, 0): ...``): one
    program for every process; ``inputs`` / ``expected`` map (replica_id, partition_id) to that
    process's values (see oracle.grid.evaluate_parallel)."""
    sizes = {n: v for n, v in in_entries if n in ("num_replicas", "num_partitions")}
    try:
        ex.grid = (int(sizes.get("num_replicas", 1)), int(sizes.get("num_partitions", 1)))
    except ValueError:
        ex.skip_reason = f"cannot read the grid size from {sizes}"
        return ex
    per_process = {}
    for pid in [(r, p) for r in range(ex.grid[0]) for p in range(ex.grid[1])]:
        tag = re.compile(rf"@\(\s*{pid[0]}\s*,\s*{pid[1]}\s*\)$")
        sub = SpecExample(op=ex.op, index=ex.index, source=ex.source, line=ex.line)
        _fill(sub, code, [(tag.sub("", n), v) for n, v in in_entries if tag.search(n)],
              [(tag.sub("", n), v) for n, v in out_entries if tag.search(n)])
        if sub.skip_reason:
            ex.skip_reason = f"process {pid}: {sub.skip_reason}"
            return ex
        per_process[pid] = sub
    if len({sub.program_text for sub in per_process.values()}) != 1:
        ex.skip_reason = "the processes document different results (no single program)"
        return ex
    first = next(iter(per_process.values()))
    for name in ("program_text", "result_types", "output_names", "expected_literals", "documented_literals"):
        setattr(ex, name, getattr(first, name))
    ex.inputs = {pid: sub.inputs for pid, sub in per_process.items()}
    ex.expected = {pid: sub.expected for pid, sub in per_process.items()}
    ex.note = first.note
    return ex


def _type_ok(type_text: str) -> bool:
    from oracle.types import parse_type

    try:
        parse_type(type_text)
        return True
    except Exception:
        return False


def _validate(ex: SpecExample) -> None:
    from oracle.errors import MlirError
    from oracle.mlir_text import parse_module

    try:
        parse_module(ex.program_text, filename=f"spec:{ex.id}")
    except MlirError as e:
        ex.skip_reason = f"the spec's example text does not verify (MLIR: {str(e).splitlines()[0]})"
    except Exception as e:
        ex.skip_reason = f"the oracle's IR reader cannot read the example: {type(e).__name__}: {e}"


def summary(examples: list[SpecExample]) -> dict[str, int]:
    runnable = [e for e in examples if not e.skip_reason]
    return {"extracted": len(examples), "runnable": len(runnable), "skipped": len(examples) - len(runnable)}
