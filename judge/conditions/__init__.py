"""The conditions of known deviations, one module per family of ops (judge/conditions/registry.py
says what a condition is).  Importing the package registers every family's conditions."""

from . import (batch_norm, complex, conversion, elementwise, indexing, operands, program,  # noqa: F401
               reductions, windows)
from .registry import CONDITIONS, PROGRAM_CONDITIONS, triggered

__all__ = ["CONDITIONS", "PROGRAM_CONDITIONS", "triggered"]
