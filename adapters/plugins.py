"""Backends from other installed packages, through the entry-point group ``shlo_conform.backends``.

A package declares, in its pyproject.toml::

    [project.entry-points."shlo_conform.backends"]
    my-accel = "my_package.shlo:make_backend"

and ``get_backend("my-accel", **kwargs)`` then calls ``make_backend(**kwargs)``, which returns
an object following the protocol of adapters/base.py (name, flushes_subnormals, available(),
supports(), run(), run_many(), close()).  Nothing in this repository changes.  A worked
example is examples/plugin/ (docs/adding-a-backend.md).
"""

from __future__ import annotations

from importlib import metadata

GROUP = "shlo_conform.backends"


def entry_points() -> dict:
    """Backend name -> EntryPoint, for every installed package that declares one."""
    found = {}
    for ep in metadata.entry_points(group=GROUP):
        found.setdefault(ep.name, ep)  # the first one on sys.path wins, as for imports
    return found


def plugin_names() -> list[str]:
    return sorted(entry_points())


def load_plugin(name: str, **kwargs):
    """A backend instance from the entry point ``name`` (KeyError if there is none)."""
    ep = entry_points()[name]
    factory = ep.load()
    backend = factory(**kwargs)
    if getattr(backend, "name", None) != name:
        # results.json and known deviations go by the name: keep the one the user asked for
        try:
            backend.name = name
        except AttributeError:
            pass
    return backend


def describe(name: str) -> str:
    """``package version (module:attr)`` of an entry point, for `shlo-conform backends`."""
    ep = entry_points()[name]
    dist = getattr(ep, "dist", None)
    origin = f"{dist.name} {dist.version}, " if dist is not None else ""
    return f"plug-in: {origin}{ep.value}"
