"""StableHLO's ``result_accuracy`` attribute: the accuracy a program asks of a transcendental.

``#stablehlo.result_accuracy<atol = A, rtol = R, ulps = N, mode = #stablehlo.result_accuracy_mode<M>>``
on the unary ops that have several implementations (``lax.exp(x, accuracy=...)`` emits it): mode
``DEFAULT`` (the implementation's choice), ``HIGHEST`` (its most accurate implementation) or
``TOLERANCE`` (a result within ``atol`` / ``rtol`` / ``ulps`` of the exact one).  The text
parser keeps it as an ``ir.StructAttr`` (omitted fields are StableHLO's defaults: 0, and mode
DEFAULT); this module reads it and builds it, for the judge and the generators alike.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import ir

__all__ = ["ResultAccuracy", "MODES", "RESULT_ACCURACY_OPS", "result_accuracy", "attribute"]

#: The attribute's modes.
MODES = ("DEFAULT", "HIGHEST", "TOLERANCE")

#: The ops that take the attribute (StableHLO's ops with the ``result_accuracy`` attribute).
RESULT_ACCURACY_OPS = frozenset(f"stablehlo.{name}" for name in (
    "cbrt", "cosine", "exponential", "exponential_minus_one", "log", "log_plus_one", "logistic", "rsqrt",
    "sine", "sqrt", "tan", "tanh"))

_MODE_TEXT = "#stablehlo.result_accuracy_mode<{}>"


@dataclass(frozen=True)
class ResultAccuracy:
    atol: float = 0.0
    rtol: float = 0.0
    ulps: int = 0
    mode: str = "DEFAULT"

    def text(self) -> str:
        """The attribute as MLIR prints it."""
        return (f"#stablehlo.result_accuracy<atol = {self.atol:e}, rtol = {self.rtol:e}, ulps = {self.ulps}, "
                f"mode = {_MODE_TEXT.format(self.mode)}>")


def _mode_of(value) -> str:
    text = str(getattr(value, "text", value))
    for mode in MODES:
        if text in (mode, _MODE_TEXT.format(mode)) or text.endswith(f"<{mode}>"):
            return mode
    raise ValueError(f"result_accuracy: unknown mode {text!r} (one of {', '.join(MODES)})")


def _number(value) -> float:
    return float(getattr(value, "text", value))  # the parser keeps a float field as its text


def result_accuracy(op: ir.Op) -> ResultAccuracy | None:
    """The op's ``result_accuracy`` attribute, or None when it has none."""
    attr = op.attributes.get("result_accuracy")
    if attr is None:
        return None
    fields = dict(getattr(attr, "fields", ()))
    return ResultAccuracy(atol=_number(fields.get("atol", 0.0)), rtol=_number(fields.get("rtol", 0.0)),
                          ulps=int(fields.get("ulps", 0)), mode=_mode_of(fields.get("mode", "DEFAULT")))


def attribute(accuracy: ResultAccuracy) -> ir.StructAttr:
    """The attribute an op carries for ``accuracy`` (as the parser reads it)."""
    return ir.StructAttr("stablehlo.result_accuracy", (
        ("atol", ir.OpaqueAttr(f"{accuracy.atol:e}")), ("rtol", ir.OpaqueAttr(f"{accuracy.rtol:e}")),
        ("ulps", accuracy.ulps),
        ("mode", ir.OpaqueAttr(_MODE_TEXT.format(accuracy.mode)))))
