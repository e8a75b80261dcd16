"""Differential tests: the oracle vs every selected backend, for every op x element type.

One test per (op, element type, backend) -- in the ci profile the first backend gets every
element type and the others one representative type per op; each draws ``--max-examples`` one-op programs
with edge-reaching inputs (seeded, so a failure reproduces) and compares every output
with the op's tolerance.  Known deviations (judge/known_deviations.py) become xfails
with their reason; anything else that is not pass / implementation-defined fails with
the comparator's message and the reproducer's path.
"""

from __future__ import annotations

import pytest

from conformance.run import check_case, plan
from generators.cases import draw_cases, family_types, type_family
from oracle.types import element_type
from judge.explain import deviation_for_case

PAIRS = plan()
FAMILIES = family_types(PAIRS)

#: Element types a sampled backend runs each op on (the first one the op accepts).
REPRESENTATIVE = ("f32", "i32", "i1", "complex<f32>", "ui8")


def _representative(dtypes: list[str]) -> str:
    return next((t for t in REPRESENTATIVE if t in dtypes), dtypes[0])


def _pairs_for(backend_index: int, sampled: bool) -> list:
    """Every op x element type for the first backend; with ``sampled`` (the ci profile), one
    representative element type per op for the others, so the default run stays short."""
    if backend_index == 0 or not sampled:
        return PAIRS
    by_op: dict = {}
    for info, et in PAIRS:
        by_op.setdefault(info.name, (info, []))[1].append(et)
    return [(info, _representative(dtypes)) for info, dtypes in by_op.values()]


def pytest_generate_tests(metafunc):
    if "pair" in metafunc.fixturenames:
        from conftest import profile_name
        backends = [b.strip() for b in metafunc.config.getoption("--backend").split(",") if b.strip()]
        sampled = profile_name(metafunc.config) == "ci"
        params = [pytest.param((info.name, et, b), id=f"{info.mnemonic}-{et}-{b}")
                  for k, b in enumerate(backends) for info, et in _pairs_for(k, sampled)]
        metafunc.parametrize("pair", params)


@pytest.fixture(scope="session")
def backends():
    from adapters import get_backend
    cache = {}

    def get(name):
        if name not in cache:
            backend = get_backend(name)
            ok, why = backend.available()
            cache[name] = backend if ok else why
        if isinstance(cache[name], str):
            pytest.skip(f"backend {name} not usable here: {cache[name]}")
        return cache[name]
    yield get
    for b in cache.values():
        if not isinstance(b, str):
            b.close()


@pytest.mark.differential
def test_differential(pair, backends, max_examples, tmp_path_factory):
    op_name, dtype, backend_name = pair
    backend = backends(backend_name)
    info = next(i for i, et in PAIRS if i.name == op_name and et == dtype)
    # The op's attribute classes spread over its types as in `shlo-conform run` (a sampled
    # backend's representative type takes the classes that fall on it)
    cases = draw_cases(info, dtype if dtype.startswith("q.") else element_type(dtype), max_examples, seed=0,
                       same_family=FAMILIES[(op_name, type_family(dtype))])
    out_dir = str(tmp_path_factory.mktemp("repro"))
    results = [check_case(c, backend, out_dir=out_dir) for c in cases]
    bad, known = [], []
    for r in results:
        if r.status in ("pass", "implementation-defined", "inaccurate", "unsupported", "rejected"):  # inaccurate: no failure
            continue
        (known if deviation_for_case(backend_name, r) else bad).append(r)
    assert not bad, "\n\n".join(f"[{r.status}] {r.id}\n{r.message}\nreproducer: {r.reproducer}" for r in bad[:3])
    if known:
        d = deviation_for_case(backend_name, known[0])
        pytest.xfail(f"known deviation: {d.reason}")
    if results and all(r.status == "rejected" for r in results):
        pytest.skip(f"{backend_name} rejects {info.mnemonic} on {dtype}: {results[0].message[:200]}")
    if results and all(r.status == "unsupported" for r in results):
        pytest.skip(f"oracle: {results[0].message[:200]}")
