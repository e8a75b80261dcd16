"""Bad input to ``shlo-conform`` is one clear line naming what is wrong, exit 2 - never a
traceback, never a silent success.

Each case runs the CLI in a subprocess (``python -m conformance.cli``, what the console script
calls) on a file made for it: binary, empty, corrupt, not an .npz, an object array, a results
file that is not one, an unknown element type inside a list, an output folder that is a file...
Every check must fire before any backend work starts, so each case takes well under a second.
"""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

NEGATE = """func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.negate %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""


def _unwritable_folder() -> str | None:
    """An existing folder nobody may write in (root included), or None where this machine allows it."""
    try:
        os.makedirs("/sys/shlo-conform-out")
    except OSError:
        return "/sys"
    os.rmdir("/sys/shlo-conform-out")
    return None


def _files(d) -> dict:
    """The bad (and a few good) files the cases point at."""
    (d / "binary.mlir").write_bytes(bytes(range(256)) * 4)
    (d / "empty.mlir").write_text("")
    (d / "no_main.mlir").write_text(NEGATE.replace("@main", "@other"))
    (d / "negate.mlir").write_text(NEGATE)
    (d / "corrupt.npz").write_bytes(b"PK\x03\x04 not really a zip")
    (d / "text.npz").write_text("hello\n")
    np.savez(d / "object.npz", a=np.array([1, "x", None], dtype=object))
    np.savez(d / "good.npz", a=np.array([1, 2], np.float32))
    (d / "no_mlir").mkdir()
    (d / "no_mlir" / "notes.txt").write_text("hi\n")
    (d / "list.json").write_text("[1, 2]\n")
    (d / "foo.json").write_text('{"foo": 1}\n')
    (d / "broken.json").write_text('{"cases": [\n')
    (d / "a_file").write_text("")
    return {os.path.splitext(p.name)[0]: str(p) for p in d.iterdir()}  # "binary.mlir" as {binary}


# (name, arguments with {file} placeholders, a piece of the expected one-line message)
CASES = [
    ("eval-binary", "eval {binary}", "binary.mlir: not a text file"),
    ("eval-empty", "eval {empty}", "empty.mlir: empty file"),
    ("eval-no-main", "eval {no_main}", "no_main.mlir: no func.func @main"),
    ("eval-missing-program", "eval {tmp}/nope.mlir", "nope.mlir: cannot read"),
    ("eval-folder-program", "eval {no_mlir}", "no_mlir: is a folder"),
    ("eval-inputs-corrupt", "eval {negate} --inputs {corrupt}", "corrupt.npz: not an .npz file"),
    ("eval-inputs-missing", "eval {negate} --inputs {tmp}/missing.npz", "missing.npz: no such file"),
    ("eval-inputs-not-npz", "eval {negate} --inputs {text}", "text.npz: not an .npz file"),
    ("eval-inputs-object-array", "eval {negate} --inputs {object}", "object.npz: entry 'a' is an object array"),
    ("eval-inputs-count", "eval {negate}", "negate.mlir: @main takes 1 arguments, got 0"),
    ("eval-out-folder", "eval {negate} --inputs {good} --out {tmp}", "is a folder; give a file name"),
    ("eval-out-no-folder", "eval {negate} --inputs {good} --out {tmp}/no/such/out.npz", "does not exist"),
    ("corpus-binary", "corpus {binary} --backend oracle --out {tmp}/c1 --quiet", "binary.mlir: not a text file"),
    ("corpus-empty", "corpus {empty} --backend oracle --out {tmp}/c1 --quiet", "empty.mlir: empty file"),
    ("corpus-no-mlir", "corpus {no_mlir} --backend oracle --out {tmp}/c1 --quiet", "no_mlir: no .mlir file"),
    ("corpus-missing", "corpus {tmp}/nope --backend oracle --out {tmp}/c1 --quiet", "nope: no such file or folder"),
    ("report-json-list", "report {list} --html {tmp}/r.html", "list.json: not a results file (a JSON list"),
    ("report-no-cases", "report {foo} --html {tmp}/r.html", 'foo.json: not a results file (no "cases" list'),
    ("report-not-json", "report {broken} --html {tmp}/r.html", "broken.json: not JSON"),
    ("report-binary", "report {binary} --html {tmp}/r.html", "binary.mlir: not a text file"),
    ("report-folder-without-results", "report {no_mlir} --html {tmp}/r.html", "results.json: no such file"),
    ("report-nothing-to-write", "report {foo}", "nothing to write"),
    ("run-unknown-dtype-in-list", "run --backend oracle --ops negate --dtypes f32,f33 --out {tmp}/r1",
     "--dtypes: unknown element type(s) f33"),
    ("run-unknown-op-in-list", "run --backend oracle --ops negate,negat --out {tmp}/r1", "--ops: unknown op(s) negat"),
    ("run-empty-op-list", "run --backend oracle --ops , --out {tmp}/r1", "--ops: empty list"),
    ("run-nothing-matches", "run --backend oracle --ops popcnt --dtypes f32 --out {tmp}/r1", "nothing to run"),
    ("run-out-is-a-file", "run --backend oracle --ops negate --out {a_file}", "exists and is a file, not a folder"),
    ("run-unknown-backend", "run --backend nope --ops negate --out {tmp}/r1", "unknown backend 'nope'"),
    ("run-max-examples-0", "run --backend oracle --max-examples 0 --out {tmp}/r1", "--max-examples must be >= 1"),
    ("run-negative-timeout", "run --backend oracle --timeout -1 --out {tmp}/r1", "--timeout must be > 0"),
    ("certify-unknown-dtype", "certify --backend oracle --ops negate --dtypes i8,si9 --out {tmp}/ce",
     "unknown element type(s) si9"),
    ("probe-unknown-op", "probe --backend oracle --ops negate,negat", "--ops: unknown op(s) negat"),
    ("fuzz-no-length", "fuzz --backend oracle --out {tmp}/f", "say how long"),
    ("fuzz-zero-programs", "fuzz --backend oracle --programs 0 --out {tmp}/f", "--programs must be > 0"),
    ("fuzz-bad-shard", "fuzz --backend oracle --programs 1 --shard 3/2 --out {tmp}/f", "shard"),
    ("fuzz-out-is-a-file", "fuzz --backend oracle --programs 1 --out {a_file}", "exists and is a file"),
    ("collectives-unknown-op", "collectives --backend oracle --ops all_reduce,al_gather --out {tmp}/co",
     "unknown collective(s) al_gather"),
    ("collectives-unknown-dtype", "collectives --backend oracle --dtype f33 --out {tmp}/co",
     "--dtype: unknown element type(s) f33"),
    ("repro-not-a-reproducer", "repro {no_mlir} --backend oracle", "not a reproducer folder"),
]
UNWRITABLE = _unwritable_folder()
if UNWRITABLE:  # a read-only place: refused before the run starts, not after it
    CASES += [("run-out-unwritable", f"run --backend oracle --ops negate --out {UNWRITABLE}/results", "cannot write"),
              ("eval-out-unwritable", f"eval {{negate}} --inputs {{good}} --out {UNWRITABLE}/o.npz",
               "cannot write")]


def _cli(args: list[str]) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=REPO, PYTHONWARNINGS="ignore")
    return subprocess.run([sys.executable, "-m", "conformance.cli", *args], capture_output=True, text=True,
                          env=env, timeout=120, cwd=REPO)


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    """Every case, run once (a few at a time: each is a fresh interpreter)."""
    tmp = tmp_path_factory.mktemp("bad")
    files = dict(_files(tmp), tmp=str(tmp))
    argv = {name: [a.format(**files) for a in args.split()] for name, args, _ in CASES}
    with ThreadPoolExecutor(4) as pool:
        done = dict(zip(argv, pool.map(_cli, argv.values())))
    return done, files


@pytest.mark.parametrize("name,args,message", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_one_line_and_exit_2(outcomes, name, args, message):
    done, _ = outcomes
    r = done[name]
    assert "Traceback" not in r.stderr, r.stderr
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("shlo-conform: error: ") and message in lines[0], lines[0]


def test_nothing_is_created_by_a_refused_run(outcomes):
    """A refused command leaves no half-made output behind (no report, no results)."""
    _, files = outcomes
    assert not os.path.exists(os.path.join(files["tmp"], "r.html"))
    assert not os.path.exists(os.path.join(files["tmp"], "r1", "results.json"))


def test_eval_out_is_written_where_asked(tmp_path):
    """--out NAME without .npz is written as NAME (numpy alone would append .npz)."""
    (tmp_path / "p.mlir").write_text(NEGATE)
    np.savez(tmp_path / "in.npz", a=np.array([1, -2], np.float32))
    r = _cli(["eval", str(tmp_path / "p.mlir"), "--inputs", str(tmp_path / "in.npz"), "--out", str(tmp_path / "o")])
    assert r.returncode == 0, r.stderr
    with np.load(tmp_path / "o") as out:
        assert out["arg0"].tolist() == [-1.0, 2.0]
