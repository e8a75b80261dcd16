"""The oracle: a reference evaluator for StableHLO written from the spec, on numpy + ml_dtypes."""

from .errors import MlirError, OracleError, UndefinedBehavior, Unsupported
from .evaluator import TOKEN_VALUE, Context, evaluate
from .mlir_text import parse_module, print_module
from .registry import OPS, OpInfo, Signature, all_ops, lookup

__all__ = ["MlirError", "OracleError", "UndefinedBehavior", "Unsupported", "TOKEN_VALUE", "Context",
           "evaluate", "parse_module", "print_module", "OPS", "OpInfo", "Signature", "all_ops", "lookup"]
