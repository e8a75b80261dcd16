"""The official StableHLO interpreter tests (../shared/corpora/stablehlo-interpret), on the oracle.

One test per case (``// -----`` split).  Each case is rewritten by ``conformance.corpus``
into a ``@main`` returning the checked values; the checks follow the official
interpreter's semantics.  Tool tests (printing, probe, --args), cases needing a process
grid (``interpreter.run_parallel``) and ops the oracle does not implement yet are skipped
with the reason; a case whose ops are all implemented must pass.  The whole module is skipped when the corpus is absent.
"""

from __future__ import annotations

import pytest

from adapters import get_backend
from conformance.corpus import default_corpus_dir, load_cases, run_case
from oracle import lookup

pytestmark = pytest.mark.corpus

CORPUS = default_corpus_dir()
if CORPUS is None:
    pytest.skip("the interpret corpus (../shared/corpora/stablehlo-interpret or $SHLO_CORPUS) is not available",
                allow_module_level=True)

CASES = load_cases(CORPUS)


@pytest.fixture(scope="module")
def oracle_backend():
    return get_backend("oracle")


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_interpret_case(case, oracle_backend):
    if case.skip_reason:
        pytest.skip(case.skip_reason)
    if case.unsupported_reason:
        pytest.skip(case.unsupported_reason)
    res = run_case(case, oracle_backend)
    missing = [op for op in case.ops if lookup(op) is None and op not in ("stablehlo.return", "func.return")]
    if res.status == "unsupported" and missing:
        pytest.skip(f"the oracle does not implement {', '.join(sorted(set(missing)))} yet")
    assert res.status == "pass", f"{case.id}: {res.status}\n{res.message}\nprogram:\n{case.program_text.lstrip()}"


def test_corpus_loads_without_errors():
    """Every case of the corpus is understood: rewritten and verified by MLIR, or skipped with a reason."""
    errors = [f"{c.id}: {c.error}" for c in CASES if c.error]
    assert not errors, "\n".join(errors)
    assert len(CASES) > 500
    runnable = [c for c in CASES if c.runnable]
    assert len(runnable) > 450
