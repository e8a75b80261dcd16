"""External test files (corpora) turned into programs that ANY backend can run.

Two formats are understood, even mixed in one file (per ``// -----`` case): the official
interpreter tests (interpret_format.py) and the StableHLO repo's testdata files
(testdata_format.py).  Both become "a module whose public ``@main`` takes no arguments and
returns the values to check" plus a list of :class:`Check` records (records.py), so a backend
never needs the ``check`` dialect.  loading.py reads files into cases, running.py runs a case
on a backend and judges it, workers.py spreads files over worker processes.

Importing the package loads all of them: what each part needs, a caller gets at once.
"""

from __future__ import annotations

from .interpret_format import CheckSyntaxError, balanced_end, load_interpret_cases, parse_check, split_cases
from .loading import default_corpus_dir, load_cases, read_test_file
from .records import Check, CorpusCase, ops_and_dtypes
from .running import case_results, run_case, run_file
from .workers import iter_file_results

