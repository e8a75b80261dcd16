"""The backend-independent part of a standalone reproducer script (reports/standalone.py).

A standalone script carries its program, inputs and expected values as data and needs only
numpy, ml_dtypes and the backend's own package: it imports nothing of this suite.  This
module holds the script text every backend shares: decoding the arrays, checking the elements
the finding is about (with the tolerance the judge used), the exit codes, and the blame loop
(``--blame``: each optimisation switch of the backend turned off in turn).
"""

from __future__ import annotations

import base64

import numpy as np

#: Exit codes of a standalone script.
STILL_WRONG, FIXED, CANNOT_RUN = 1, 0, 2


def encode_array(x: np.ndarray) -> dict:
    """An array as JSON-able data: dtype name (numpy's or ml_dtypes'), shape, base64 of its bytes."""
    x = np.ascontiguousarray(x)
    return {"dtype": x.dtype.name, "shape": list(x.shape), "data": base64.b64encode(x.tobytes()).decode()}


def python_string(text: str) -> str:
    """``text`` as a Python literal that stays readable (a raw triple-quoted string where it can)."""
    if "'''" not in text and not text.endswith("\\"):
        return "r'''" + text + "'''"
    return repr(text)


# The script's own code: array decoding, element checks, the exit codes, blame.  ``{run}`` is
# the backend's part: it defines run(options) -> list of numpy arrays, candidate_switches()
# and merged(switches) (reports/standalone.py).
SCRIPT = '''#!/usr/bin/env python3
"""{title}

Standalone reproducer: needs only {needs} (and numpy, ml_dtypes).  It runs the StableHLO
program below on {backend_words} and checks the elements the finding is about against the
values the StableHLO specification gives.

    python {filename}            exit 1: still wrong, 0: fixed, 2: could not run the program
    python {filename} --blame    turn each optimisation switch off in turn, name those that fix it
    python {filename} --option K=V ...   run with extra compiler options
"""
import base64
import json
import subprocess
import sys

import ml_dtypes
import numpy as np
{imports}
PROGRAM = {program}

#: The inputs, the expected outputs (specification), and which elements are checked, with
#: the tolerance allowed on each output ({{}}: exact; NaN matches NaN).
DATA = json.loads({data})
#: "values": the checked elements differ from the expected ones; "completes": the backend
#: fails to run the program at all (crash, abort, error).
EXPECT = {expect!r}


def array(spec):
    name = spec["dtype"]
    dtype = np.dtype(getattr(ml_dtypes, name)) if hasattr(ml_dtypes, name) else np.dtype(name)
    return np.frombuffer(base64.b64decode(spec["data"]), dtype=dtype).reshape(spec["shape"]).copy()


INPUTS = [array(a) for a in DATA["inputs"]]
EXPECTED = [array(a) for a in DATA["expected"]]
{run}

def _ordered(x):
    """Integers in the order of the float values (adjacent floats differ by 1)."""
    size = x.dtype.itemsize
    u = x.view({{1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}}[size]).astype(np.int64)
    if "e8m0" in x.dtype.name:  # no sign bit
        return u
    sign = np.int64(1) << (8 * size - 1)
    magnitude = u & (sign - 1) if size < 8 else u & np.int64(0x7FFFFFFFFFFFFFFF)
    return np.where(u & sign if size < 8 else u < 0, -magnitude, magnitude)


def _wrong(expected, actual, tol):
    """Which of the checked elements (flat arrays) are outside the tolerance."""
    if expected.dtype.kind == "c":
        parts = [_wrong(expected.real, actual.real, {{}}), _wrong(expected.imag, actual.imag, {{}})]
        bad = parts[0] | parts[1]
        e, a = expected.astype(np.complex128), actual.astype(np.complex128)
    else:
        if expected.dtype.kind in "biu" or expected.dtype == bool:
            return expected != actual
        e, a = expected.astype(np.float64), actual.astype(np.float64)
        bits_equal = np.array([x.tobytes() == y.tobytes() for x, y in zip(expected, actual)], dtype=bool)
        bad = ~(bits_equal | (np.isnan(e) & np.isnan(a)))
        if not tol.get("strict_signed_zero", True):
            bad &= ~((e == 0) & (a == 0))
        if tol.get("ulp") is not None:
            bad &= ~(np.abs(_ordered(expected) - _ordered(actual)) <= tol["ulp"])
    with np.errstate(invalid="ignore", over="ignore"):
        if tol.get("rel") is not None:
            bad &= ~(np.abs(a - e) <= tol["rel"] * np.abs(e))
        if tol.get("abs") is not None:
            bad &= ~(np.abs(a - e) <= tol["abs"])
        if tol.get("strict_signed_zero", True) and expected.dtype.kind != "c":  # (no bound excuses -0 for +0)
            bad |= (e == 0) & (a == 0) & (np.signbit(e) != np.signbit(a))
    return bad


def _shown(x, k):
    """An element as numpy prints it, with its bits (most significant first)."""
    return f"{{str(x[k])}} (0x{{x[k:k + 1].tobytes()[::-1].hex()}})"


def check(outputs):
    """(still wrong?, one line per checked element: index, expected, actual)."""
    lines, wrong = [], False
    for c in DATA["checks"]:
        exp, act = EXPECTED[c["output"]], outputs[c["output"]]
        if act.shape != exp.shape or act.dtype != exp.dtype:
            return True, [f"output #{{c['output']}}: {{act.dtype}}{{list(act.shape)}}, expected {{exp.dtype}}{{list(exp.shape)}}"]
        idx = np.array(c["elements"], dtype=np.int64)
        e, a = exp.reshape(-1)[idx], act.reshape(-1)[idx]
        bad = _wrong(e, a, c["tolerance"])
        wrong |= bool(bad.any())
        for k, flat in enumerate(idx[:8]):
            where = [int(i) for i in np.unravel_index(int(flat), exp.shape)] if exp.shape else []
            mark = "WRONG" if bad[k] else "ok"
            lines.append(f"output #{{c['output']}} {{where}}: expected {{_shown(e, k)}}, actual {{_shown(a, k)}}  {{mark}}")
    return wrong, lines


def still_wrong(switches=()):
    """(the finding still shows, what was seen); raises when the program cannot be run."""
    if EXPECT == "completes":  # a crash takes the process with it: run it in a child
        child = subprocess.run([sys.executable, __file__, "--child", json.dumps(list(switches))],
                               capture_output=True, text=True, timeout=600)
        tail = (child.stderr or child.stdout).strip().splitlines()[-3:]
        return child.returncode != 0, [f"exit status {{child.returncode}}"] + tail
    return check(run(switches))


def in_children(switch_sets):
    """still_wrong for each set of switches, in child processes (a compiler may abort on a
    switch): True / False, None where it could not tell (the run raised, or killed its child)."""
    results = []
    while len(results) < len(switch_sets):
        rest = switch_sets[len(results):]
        child = subprocess.run([sys.executable, __file__, "--check-each", json.dumps(rest)],
                               capture_output=True, text=True, timeout=3600)
        answers = [json.loads(ln[8:]) for ln in child.stdout.splitlines() if ln.startswith("checked ")]
        results += answers
        if child.returncode != 0 and len(results) < len(switch_sets):
            results.append(None)  # the next set took its child with it
    return results


def candidates_in_child():
    child = subprocess.run([sys.executable, __file__, "--candidates"], capture_output=True, text=True, timeout=3600)
    lines = [ln for ln in child.stdout.splitlines() if ln.startswith("candidates ")]
    return [tuple(c) for c in json.loads(lines[-1][11:])] if lines else None  # None: the listing died


def blame():
    """The switches that make the finding disappear: each one alone; when none does, a
    minimal set of them (all together, then dropping what is not needed)."""
    if in_children([[]])[0] is not True:
        return {{"error": "the finding does not show without switches", "alone": [], "minimal": [], "tried": 0}}
    candidates = candidates_in_child()
    if not candidates:
        return {{"alone": [], "minimal": [], "tried": 0, "unusable": [], "listed": candidates is not None}}
    answers = in_children([[c] for c in candidates])
    fixing = [c for c, a in zip(candidates, answers) if a is False]
    unusable = [c for c, a in zip(candidates, answers) if a is None]
    found = {{"alone": fixing, "minimal": fixing[:1], "tried": len(candidates), "unusable": unusable}}
    usable = [c for c in candidates if c not in unusable]
    if fixing or not usable or in_children([usable])[0] is not False:
        return found
    needed = list(usable)
    for switch in list(needed):
        fewer = [s for s in needed if s != switch]
        if fewer and in_children([fewer])[0] is False:
            needed = fewer
    found["minimal"] = needed
    return found


def main(argv):
    if argv[:1] == ["--child"]:
        run(json.loads(argv[1]))
        return 0
    if argv[:1] == ["--check-each"]:
        for switches in json.loads(argv[1]):
            try:
                answer = still_wrong(switches)[0]
            except Exception:
                answer = None
            print("checked " + json.dumps(answer), flush=True)
        return 0
    if argv[:1] == ["--candidates"]:
        print("candidates " + json.dumps(candidate_switches()), flush=True)
        return 0
    if argv[:1] == ["--blame"]:
        found = blame()
        print(json.dumps(found) if "--json" in argv else
              "switches that make it disappear: " + (", ".join(map(str, found["minimal"])) or "none")
              + f" (of {{found['tried']}} tried)")
        return 0
    switches = [tuple(argv[i + 1].split("=", 1)) for i in range(len(argv) - 1) if argv[i] == "--option"]
    try:
        wrong, lines = still_wrong(switches)
    except Exception as e:
        print(f"could not run the program: {{type(e).__name__}}: {{e}}")
        return {cannot_run}
    print("\\n".join(lines))
    print("STILL WRONG" if wrong else "FIXED: the checked elements have the values the specification gives")
    return {still_wrong} if wrong else {fixed}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
'''
