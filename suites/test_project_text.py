"""Text about the project only: code, comments, deviation reasons, docs and test names say what the
project is and why, never how it was built.  The history -- numbered work periods and issues, who
worked on what, scratch files, which run found an entry or what it named before -- belongs in the
commit messages, where it stays true.

Upstream references are facts about other projects and pass: ``openxla/xla#1234``,
``llvm/llvm-project#112372``, the spec's ``(#180)``."""

from __future__ import annotations

import os
import re
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: (what the words record, pattern).  Each pattern needs words around a number or a path, so an
#: upstream ``owner/repo#N`` or a spec's ``#N`` never matches.
PROCESS_WORDS = [
    ("a numbered work period", re.compile(r"\bsessions?[- ]\d+", re.I)),
    ("a numbered issue of our own", re.compile(r"\bissues?[- ]#?\d+", re.I)),
    ("an item of an issue's list", re.compile(r"\bitems? \d+\b", re.I)),
    ("a helper's id", re.compile(r"(?:\(|, )h(?:\d{1,2}|[A-Z])\)")),
    ("a temporary path", re.compile(r"/tmp/")),
    ("a scratch file", re.compile(r"(?<!from )\bscratch\b", re.I)),
    ("a work brief", re.compile(r"\b(?:triage|work|the) brief\b", re.I)),
    ("what an entry was before", re.compile(r"\b(?:this|the) entry (?:was|named|used to)\b|\bnamed only the\b"
                                            r"|\bnarrowed in\b|\bformerly\b", re.I)),
    ("which run found it", re.compile(r"(?:^|[(;,]\s*)found (?:by (?:a|the|shlo-conform|fuzz)|once)\b"
                                      r"|\b\d+-minute (?:mixed )?fuzz (?:campaign|finding)", re.I)),
]

#: This file names the words it looks for.
THIS_FILE = os.path.relpath(os.path.abspath(__file__), ROOT)


def tracked_files() -> list[str]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the tracked files are unknown")
    return [p for p in out.decode().split("\0") if p and p != THIS_FILE]


def process_words(text: str) -> list[tuple[int, str, str]]:
    """(line number, what the words record, the words) for each hit in ``text``."""
    hits = []
    for number, line in enumerate(text.splitlines(), 1):
        for what, pattern in PROCESS_WORDS:
            hits.extend((number, what, m.group(0)) for m in pattern.finditer(line))
    return hits


def test_no_tracked_file_records_how_the_project_was_built():
    hits = []
    for path in tracked_files():
        # (a file a test renames or deletes meanwhile is not there to read)
        try:
            with open(os.path.join(ROOT, path), encoding="utf-8") as f:
                text = f.read()
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue
        hits.extend(f"{path}:{n}: {what}: {words!r}" for n, what, words in process_words(text))
    hits.extend(f"{path}: {what}: a test file's name" for path in tracked_files()
                for _, what, _ in process_words(os.path.basename(path).replace("_", " ")))
    assert not hits, "process words (history goes in commit messages):\n" + "\n".join(hits)


@pytest.mark.parametrize("text", [
    "the entry was '*f8E4M3FN*' until session 7", "(issue 25 item 3, h7)", "see issue #16", "session-7 triage",
    "(found by a fuzz campaign)", "10-minute mixed fuzz finding xla-fast|maximum", "/tmp/h1-check/x.mlir",
    "the triage brief's scratch notes", "until then this entry named only the types seen", "(h9)", ", hB)",
])
def test_process_words_are_caught(text):
    assert process_words(text), text


@pytest.mark.parametrize("text", [
    "openxla/xla#1234", "llvm/llvm-project#112372", "the spec's own (#180) and #1156",
    "<h2>Environment</h2>", "h1{font-size:20px}", "batches are planned from scratch",
    "the item at index 3", "a session of the worker", "found by probing IREE 3.13",
])
def test_project_words_pass(text):
    assert not process_words(text), process_words(text)
