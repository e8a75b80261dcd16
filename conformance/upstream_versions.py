"""``upstream --versions SPEC``: in which released versions of the backend's package a finding holds.

SPEC is a package and a version range (``jaxlib>=0.7,<=0.10.2``).  The versions the package
index has (``pip index versions``) in that range are replayed with the standalone reproducer,
each in a virtual environment of its own that holds only that version (and its dependencies,
never this suite), created once and kept under the cache folder (``<cache>/upstream-venvs``,
adapters/cache.py).  The newest and oldest are run first; when they differ the range is bisected
(the behaviour is assumed to change once), so a long range costs a few installs.

Outcomes per version: ``bad`` (the script exits 1), ``good`` (0), ``cannot run`` (anything
else: the old compiler rejects the program text, the install failed).  The answer names the
first bad / last good version, or says the behaviour holds in every version replayed.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

from adapters.cache import cache_dir
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from .cli_arguments import UsageError
from .upstream_running import run_script

#: The packages a backend's standalone reproducer needs (installed together, at one version).
BACKEND_PACKAGES = {"xla": ("jax", "jaxlib"), "iree-": ("iree-base-compiler", "iree-base-runtime"),
                    "torch-": ("torch",), "stablehlo-ref": ("jaxlib",)}
#: The package a SPEC names -> what is installed with it at the same version.
INSTALLED_TOGETHER = {"jaxlib": ("jax", "jaxlib"), "jax": ("jax", "jaxlib"),
                      "iree-base-compiler": ("iree-base-compiler", "iree-base-runtime"),
                      "iree-base-runtime": ("iree-base-compiler", "iree-base-runtime"), "torch": ("torch",)}
OUTCOMES = {1: "bad", 0: "good"}


def parse_spec(spec: str) -> tuple[str, SpecifierSet]:
    m = re.match(r"^\s*([A-Za-z0-9_.-]+)\s*(.*)$", spec)
    if not m:
        raise UsageError(f"--versions {spec!r}: want PACKAGE[RANGE], e.g. jaxlib>=0.7,<=0.10.2")
    try:
        return m.group(1), SpecifierSet(m.group(2))
    except InvalidSpecifier as e:
        raise UsageError(f"--versions {spec!r}: {e}") from None


def index_versions(package: str, python: str | None = None) -> list[str]:
    """The versions the package index has (pip's own answer), oldest first."""
    done = subprocess.run([python or sys.executable, "-m", "pip", "index", "versions", package],
                          capture_output=True, text=True, timeout=300)
    m = re.search(r"Available versions:\s*(.+)", done.stdout)
    if done.returncode or not m:
        raise UsageError(f"the package index has no versions of {package}: {(done.stderr or done.stdout)[-300:]}")
    versions = []
    for v in m.group(1).split(","):
        try:
            versions.append(Version(v.strip()))
        except InvalidVersion:
            continue
    return [str(v) for v in sorted(versions)]


def venv_root() -> str:
    root = cache_dir()
    if root is None:
        raise UsageError("--versions keeps a venv per version under the cache folder; SHLO_CONFORM_CACHE is off")
    return os.path.join(root, "upstream-venvs")


def version_venv(package: str, version: str, root: str | None = None, find_links: str | None = None,
                 extras: tuple = ("numpy", "ml_dtypes")) -> str:
    """The python of a venv holding ``package``==``version`` (and what goes with it): created
    and installed on first use, a marker file says it is complete."""
    folder = os.path.join(root or venv_root(), f"{package}-{version}")
    python = os.path.join(folder, "bin", "python")
    marker = os.path.join(folder, "installed")
    if os.path.exists(marker):
        return python
    # a venv without pip of its own: this interpreter's pip installs into it (``pip --python``)
    subprocess.run([sys.executable, "-m", "venv", "--clear", "--without-pip", folder], check=True,
                   capture_output=True, timeout=300)
    wanted = [f"{p}=={version}" for p in INSTALLED_TOGETHER.get(package, (package,))]
    command = [sys.executable, "-m", "pip", "--python", python, "install", "-q", *wanted, *extras]
    if find_links:
        command += ["--no-index", "--find-links", find_links]
    env = {**os.environ, "PIP_CONSTRAINT": ""}  # a site-wide pin of the installed version must not apply
    done = subprocess.run(command, capture_output=True, text=True, timeout=1800, env=env)
    if done.returncode:
        raise RuntimeError(f"pip install {' '.join(wanted)}: {(done.stderr or done.stdout).strip()[-300:]}")
    open(marker, "w").close()
    return python


def _outcome(script: str, package: str, version: str, root, find_links, extras) -> str:
    try:
        python = version_venv(package, version, root, find_links, extras)
    except (RuntimeError, subprocess.SubprocessError) as e:
        return f"cannot run (install: {str(e)[:120]})"
    rc, printed = run_script(script, python=python)
    return OUTCOMES.get(rc, f"cannot run (exit {rc}: {printed.strip().splitlines()[-1][:120] if printed else ''})")


def bisect(versions: list[str], outcome) -> dict:
    """{version: outcome} of the versions replayed: newest, oldest, then halving the interval
    between the newest bad and the oldest good (``versions`` oldest first)."""
    tried: dict = {}

    def at(i):
        if versions[i] not in tried:
            tried[versions[i]] = outcome(versions[i])
        return tried[versions[i]]

    hi, lo = len(versions) - 1, 0
    runs = {"bad", "good"}
    if at(lo) not in runs and at(hi) in runs:  # the oldest cannot run it: find the oldest that can
        low = lo
        while hi - low > 1:
            mid = (low + hi) // 2
            if at(mid) in runs:
                hi = mid
            else:
                low = mid
        lo, hi = hi, len(versions) - 1
    if at(hi) != at(lo) and {at(hi), at(lo)} <= runs:
        while hi - lo > 1:  # at(lo) and at(hi) differ; find where it changes
            mid = (lo + hi) // 2
            o = at(mid)
            if o not in ("bad", "good"):
                break
            if o == at(hi):
                hi = mid
            else:
                lo = mid
    return {v: tried[v] for v in versions if v in tried}


def summarize(package: str, tried: dict) -> dict:
    ordered = [v for v in tried if tried[v] in ("bad", "good")]
    bad = [v for v in ordered if tried[v] == "bad"]
    good = [v for v in ordered if tried[v] == "good"]
    unrunnable = [v for v in tried if v not in ordered]
    found = _range(package, ordered, bad, good, tried)
    if unrunnable:
        found["summary"] += f"; {', '.join(unrunnable)} cannot run the reproducer"
    return found


def _range(package: str, ordered: list, bad: list, good: list, tried: dict) -> dict:
    if bad and not good:
        summary = f"holds in every {package} version replayed that runs it ({ordered[0]} ... {ordered[-1]})"
        field = f">={bad[0]},<={bad[-1]}"
    elif bad and good and Version(good[-1]) < Version(bad[0]):
        summary = f"first bad {package} {bad[0]}, last good {good[-1]}"
        field = f">={bad[0]},<={bad[-1]}"
    elif bad and good and Version(bad[-1]) < Version(good[0]):
        summary = f"fixed in {package} {good[0]} (last bad {bad[-1]})"
        field = f">={bad[0]},<={bad[-1]}"
    elif good and not bad:
        summary = f"does not reproduce in any {package} version replayed"
        field = ""
    else:
        summary = f"no clear range in {package}: " + ", ".join(f"{v} {o}" for v, o in tried.items())
        field = ""
    return {"package": package, "tried": tried, "summary": summary, "field": field}


def replay_versions(script: str, spec: str, *, root: str | None = None, find_links: str | None = None,
                    available: list[str] | None = None, extras: tuple = ("numpy", "ml_dtypes")) -> dict:
    """The standalone ``script`` replayed over the versions SPEC selects (module docstring)."""
    package, specifier = parse_spec(spec)
    versions = [v for v in (available or index_versions(package)) if Version(v) in specifier]
    if not versions:
        raise UsageError(f"--versions {spec}: the package index has no {package} version in that range")
    tried = bisect(versions, lambda v: _outcome(script, package, v, root, find_links, extras))
    return summarize(package, tried)
