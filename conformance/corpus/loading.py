"""Test files read into cases: each ``// -----`` chunk in its own format (interpret or testdata),
a file that cannot be read or has nothing to run one ``error`` case."""

from __future__ import annotations

import glob
import os
import re

from ..shared import shared_path
from .interpret_format import interpret_chunk_cases, resolve_constants, split_cases
from .records import CorpusCase
from .testdata_format import load_testdata_case


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
            cases.extend(interpret_chunk_cases(chunk, start, rel, path, pending))
    resolve_constants(pending, rel)
    return cases


_TESTDATA_MARK = re.compile(r'@check\.[\w.]+\s*\(|call_target_name\s*=\s*"check\.')
_INTERPRET_MARK = re.compile(r"^\s*\"?check\.\w+", re.M)


def detect_format(text: str) -> str:
    """``"testdata"`` if checks are ``stablehlo.custom_call @check.*``, else ``"interpret"``
    (``check.*`` ops in either syntax, or no checks at all).  Called per ``// -----`` case."""
    if _TESTDATA_MARK.search(text) and not _INTERPRET_MARK.search(text):
        return "testdata"
    return "interpret"



def default_corpus_dir() -> str | None:
    """``../shared/corpora/stablehlo-interpret`` next to the repo (or $SHLO_CORPUS), if present."""
    return shared_path("SHLO_CORPUS", "corpora", "stablehlo-interpret")
