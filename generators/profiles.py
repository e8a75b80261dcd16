"""Hypothesis settings profiles.

* ``ci`` (default): few examples, ``derandomize=True`` so every CI run draws the same cases
  (a failure reproduces by re-running), no example database (nothing written), no deadline.
* ``dev``: more examples, random exploration, the local example database (``.hypothesis/``)
  so a failure found once is replayed first next time.
* ``nightly``: many examples, random exploration, nothing written (failures print a
  ``@reproduce_failure`` blob instead).

Selected with ``load(name)``; ``load()`` reads ``$HYPOTHESIS_PROFILE`` (default ``ci``).
conftest.py calls it with the ``--hypothesis-profile`` option or the variable.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

DEFAULT = "ci"
ENV_VAR = "HYPOTHESIS_PROFILE"

#: name -> the keyword arguments it is registered with (kept for inspection / docs).
PROFILES: dict[str, dict] = {
    "ci": dict(max_examples=10, derandomize=True, database=None, deadline=None, print_blob=True,
               suppress_health_check=[HealthCheck.too_slow]),
    "dev": dict(max_examples=50, deadline=None, print_blob=True,
                suppress_health_check=[HealthCheck.too_slow]),
    "nightly": dict(max_examples=1000, derandomize=False, database=None, deadline=None, print_blob=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]),
}


def register() -> None:
    """Register every profile with Hypothesis (idempotent; also done on import)."""
    for name, kwargs in PROFILES.items():
        settings.register_profile(name, **kwargs)


def load(name: str | None = None) -> str:
    """Make ``name`` (default: ``$HYPOTHESIS_PROFILE``, else ``ci``) the active profile; returns it."""
    name = name or os.environ.get(ENV_VAR) or DEFAULT
    if name not in PROFILES:
        raise ValueError(f"unknown Hypothesis profile {name!r}; expected one of {', '.join(PROFILES)}")
    register()
    settings.load_profile(name)
    return name


def get(name: str) -> settings:
    """The settings object of a profile (without loading it)."""
    register()
    return settings.get_profile(name)


register()
