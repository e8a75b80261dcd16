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


def pytest_configure(config):
    name = config.getoption("--hypothesis-profile", None) or os.environ.get("HYPOTHESIS_PROFILE") or "ci"
    profiles.load(name)


@pytest.fixture(scope="session")
def backend_names(pytestconfig) -> list[str]:
    return [b.strip() for b in pytestconfig.getoption("--backend").split(",") if b.strip()]


#: Programs drawn per op x element type x backend in the differential suite, per profile:
#: every drawn program is compiled by each backend, so CI keeps this small and relies on the
#: edge-reaching tensors (each case holds many edge values) rather than on many cases.
DIFFERENTIAL_EXAMPLES = {"ci": 2, "dev": 10, "nightly": 100}


@pytest.fixture(scope="session")
def max_examples(pytestconfig) -> int:
    profile = os.environ.get("HYPOTHESIS_PROFILE") or pytestconfig.getoption("--hypothesis-profile", None) or "ci"
    return pytestconfig.getoption("--max-examples") or DIFFERENTIAL_EXAMPLES.get(profile, 2)
