"""pytest configuration: backend selection, example counts and Hypothesis profiles.

    pytest --backend xla,stablehlo-ref     # which backends the differential suite diffs against
    pytest --max-examples 20               # examples per op x element type
    HYPOTHESIS_PROFILE=nightly pytest      # or --hypothesis-profile=dev|ci|nightly
"""

from __future__ import annotations

import os

import pytest

from generators import profiles  # registers the ci / dev / nightly Hypothesis profiles

DEFAULT_BACKENDS = "xla,xla-folded,stablehlo-ref"


def pytest_addoption(parser):
    group = parser.getgroup("stablehlo-conformance")
    group.addoption("--backend", default=os.environ.get("SHLO_BACKENDS", DEFAULT_BACKENDS),
                    help=f"comma-separated backends for the differential suite (default: {DEFAULT_BACKENDS})")
    group.addoption("--max-examples", type=int, default=None,
                    help="examples per op x element type (default: from the Hypothesis profile)")


def profile_name(config) -> str:
    return config.getoption("--hypothesis-profile", None) or os.environ.get("HYPOTHESIS_PROFILE") or "ci"


def pytest_configure(config):
    profiles.load(profile_name(config))


#: Markers of long runs and of wall-clock bounds (which a loaded machine misses): skipped unless selected with -m (pytest -m fuzz) or in the nightly profile.
LONG_RUN_MARKERS = ("slow", "fuzz", "timing")


def pytest_collection_modifyitems(config, items):
    if config.getoption("markexpr", "") or profile_name(config) == "nightly":
        return
    for item in items:
        marked = [m for m in LONG_RUN_MARKERS if m in item.keywords]
        if marked:
            item.add_marker(pytest.mark.skip(reason=f"{marked[0]}: run with -m {marked[0]} or the nightly profile"))


@pytest.fixture(scope="session")
def backend_names(pytestconfig) -> list[str]:
    return [b.strip() for b in pytestconfig.getoption("--backend").split(",") if b.strip()]


#: Programs drawn per op x element type x backend in the differential suite, per profile:
#: every drawn program is compiled by each backend, so CI keeps this small and relies on the
#: edge-reaching tensors (each case holds many edge values) rather than on many cases.
DIFFERENTIAL_EXAMPLES = {"ci": 1, "dev": 10, "nightly": 100}


@pytest.fixture(scope="session")
def max_examples(pytestconfig) -> int:
    return pytestconfig.getoption("--max-examples") or DIFFERENTIAL_EXAMPLES.get(profile_name(pytestconfig), 1)
