"""What the campaign-triage tests share: a program judged on a real backend, as a campaign and
``shlo-conform repro`` judge it, and the deviation conditions that hold for one of its ops."""

from __future__ import annotations

import pytest

import oracle
from judge.conditions import triggered

#: The modules each backend needs (the test is skipped without them).
NEEDS = {"xla": ("jax",), "xla-fast": ("jax",), "iree-llvm-cpu": ("iree.compiler", "iree.runtime"),
         "torch-inductor": ("torch",)}


def verdict_on(backend_name: str, text: str, inputs):
    for module in NEEDS.get(backend_name, ()):
        pytest.importorskip(module)
    from adapters import get_backend
    from conformance.fuzz import check_program

    backend = get_backend(backend_name)
    try:
        return check_program(backend, oracle.parse_module(text), inputs)
    finally:
        backend.close()


def conditions_of(text: str, index: int) -> tuple[str, ...]:
    """The conditions that hold for op #index of @main (its operands are not read here)."""
    ops = oracle.parse_module(text).main.ops
    return triggered(ops[index], [], ops[:index])
