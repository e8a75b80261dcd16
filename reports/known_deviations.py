"""Known backend deviations, as data (in the spirit of array-api-tests' xfails files).

Each entry: which backend, which op (and optionally which element types), which kind of
result, and WHY (with the spec section that decides it).  A matching failure is reported
as a known deviation (an expected failure in pytest): still visible, never hidden.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass


@dataclass(frozen=True)
class Deviation:
    backend: str        # fnmatch pattern: "xla*"
    op: str             # mnemonic pattern: "count_leading_zeros"
    dtypes: str         # fnmatch pattern over the element type: "*", "f8*"
    statuses: tuple     # which statuses it explains: ("mismatch",)
    reason: str


KNOWN_DEVIATIONS: list[Deviation] = [
]


def known_deviation(backend: str, op: str, dtype: str, status: str) -> Deviation | None:
    op = op.replace("stablehlo.", "")
    for d in KNOWN_DEVIATIONS:
        if (fnmatch.fnmatch(backend, d.backend) and fnmatch.fnmatch(op, d.op)
                and fnmatch.fnmatch(dtype, d.dtypes) and status in d.statuses):
            return d
    return None
