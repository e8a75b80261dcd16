"""What a backend's compiler refuses, remembered to plan batches (never to judge).

A batch compiled as one module (adapters/batch.py) that holds a program the compiler refuses
fails as a whole, after a full compile of every program in it: IREE's refusals of f64 libm
calls (``undefined symbol: atan2``) come from its linker, at the very end.  In a cold default
run of iree-llvm-cpu such failed batch compiles were about 40 % of the compile CPU.  So the
*likeness* of each program refused alone (adapters.batch.likeness: its ops and element types)
is remembered, and programs alike are compiled alone from then on -- where the compiler gives
each its own verdict, exactly as before.  A wrong or stale entry only costs speed.

Where the likenesses come from, together:

* this run's refusals (WorkerBackend._isolated);
* earlier runs' on this machine: ``<cache>/refusals/<backend>-<version>.txt`` (adapters.cache);
* the profile shipped with the suite for the backend, ``adapters/refusal_profiles/<backend>.txt``:
  the likenesses of the programs a default run (seed 0) of that backend's version refused,
  so that a first run on a fresh machine plans its batches as a second one does.  To refresh
  it after a compiler upgrade, copy the cache file of a default run over it.

One likeness per line, its parts sorted and tab-separated; ``#`` starts a comment.
"""

from __future__ import annotations

import os
import re
import threading

from .cache import cache_dir

SHIPPED_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "refusal_profiles")


def _line(likeness: frozenset) -> str:
    return "\t".join(sorted(likeness))


def _read(path: str) -> set[frozenset]:
    try:
        with open(path, encoding="utf-8") as f:
            return {frozenset(line.rstrip("\n").split("\t")) for line in f
                    if line.strip() and not line.startswith("#")}
    except OSError:
        return set()


def cache_file(backend_name: str, version: str) -> str | None:
    """This machine's profile of ``backend_name`` at ``version`` (None: disk caches are off)."""
    base = cache_dir()
    safe_version = re.sub(r"[^\w.+-]+", "_", version or "unknown")
    return base and os.path.join(base, "refusals", f"{backend_name}-{safe_version}.txt")


class RefusalProfile:
    """The likenesses a backend's compiler refused alone (a set), kept on disk as they come."""

    def __init__(self, backend_name: str, version: str):
        self.path = cache_file(backend_name, version)
        self.known = _read(os.path.join(SHIPPED_DIR, f"{backend_name}.txt"))
        if self.path:
            self.known |= _read(self.path)
        self._lock = threading.Lock()

    def __contains__(self, likeness: frozenset) -> bool:
        return likeness in self.known

    def add(self, likeness: frozenset) -> None:
        with self._lock:
            if likeness in self.known:
                return
            self.known.add(likeness)
            if not self.path:
                return
            try:
                os.makedirs(os.path.dirname(self.path), exist_ok=True)
                with open(self.path, "a", encoding="utf-8") as f:  # one short line: O_APPEND keeps it whole
                    f.write(_line(likeness) + "\n")
            except OSError:
                pass  # a read-only cache only costs speed

