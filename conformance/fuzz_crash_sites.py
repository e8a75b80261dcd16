"""A fuzz crash finding's bucket: the site it crashed at (judge/messages.py ``crash_site``),
written in a signature's op field (``backend|at SITE|*|crash``)."""

from __future__ import annotations


def bucket_op(site: str) -> str:
    """The op field of a crash signature bucketed by its site ('|' separates signature fields)."""
    return "at " + site.replace("|", "¦")


def is_bucket(op_field: str) -> bool:
    """Is this a signature's op field naming a crash site rather than an op?"""
    return op_field.startswith("at ")
