"""Dense tensor literals (spec "Constants": TensorConstant), read and written exactly.

MLIR writes ``dense<...>`` either as nested lists of element literals or as one hex
blob ``dense<"0x...">`` of raw little-endian bytes.  In the hex form every element of a
sub-byte type (i1, i2, i4, f4, f6) takes one byte holding its bit pattern in the low
bits, and a blob holding exactly one element is a splat.  We always *write* hex: it is
exact for every type, NaN payloads and -0 included.
"""

from __future__ import annotations

import re

import numpy as np

from .numerics import round_to
from .types import ElementType, QuantizedElementType, TensorType


class LiteralError(ValueError):
    pass


def _storage(element: ElementType | QuantizedElementType) -> ElementType:
    return element.storage_type if isinstance(element, QuantizedElementType) else element


def _bit_mask(element: ElementType) -> int:
    return (1 << element.bits) - 1 if element.bits < 8 else 0


def to_hex_bytes(array: np.ndarray, element: ElementType) -> bytes:
    """The raw bytes of MLIR's hex form for ``array`` (see module docstring)."""
    a = np.ascontiguousarray(array, dtype=element.dtype)
    if element.is_bool:
        return a.astype(np.uint8).tobytes()
    raw = a.view(element.storage_dtype) if not element.is_complex else a
    if _bit_mask(element):
        raw = raw & np.uint8(_bit_mask(element))
    return raw.astype(raw.dtype.newbyteorder("<"), copy=False).tobytes()


def from_hex_bytes(data: bytes, element: ElementType, shape: tuple[int, ...]) -> np.ndarray:
    if element.is_bool:
        raw = np.frombuffer(data, dtype=np.uint8) != 0
    elif element.is_complex:
        raw = np.frombuffer(data, dtype=element.dtype.newbyteorder("<")).astype(element.dtype)
    else:
        raw = np.frombuffer(data, dtype=element.storage_dtype.newbyteorder("<")).astype(element.storage_dtype)
        if _bit_mask(element):
            raw = raw & np.uint8(_bit_mask(element))
        raw = raw.view(element.dtype)
    count = int(np.prod(shape, dtype=np.int64))
    if raw.size == count:
        return raw.reshape(shape).copy()
    if raw.size == 1:
        return np.full(shape, raw[0], dtype=element.dtype)
    raise LiteralError(f"hex literal holds {raw.size} elements, type needs {count}")


def format_dense(array: np.ndarray, element: ElementType | QuantizedElementType) -> str:
    """``dense<...>`` text (without the trailing ``: type``) that MLIR reads back bit-exactly."""
    element = _storage(element)
    if np.size(array) == 0:
        return "dense<>"
    return 'dense<"0x' + to_hex_bytes(np.asarray(array), element).hex().upper() + '">'


# --------------------------------------------------------------------------- reading

_TOKEN = re.compile(r"\s*(\[|\]|\(|\)|,|true|false|[-+]?0x[0-9a-fA-F]+|"
                    r"[-+]?(?:inf|nan|\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?))")


def _tokens(text: str):
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise LiteralError(f"unexpected {text[pos:pos + 20]!r} in dense literal")
        yield m.group(1)
        pos = m.end()
        while pos < len(text) and text[pos].isspace():
            pos += 1


def _scalar(token: str, element: ElementType):
    """One ElementLiteral converted to a value of ``element`` (exact where possible)."""
    if token in ("true", "false"):
        return token == "true"
    if element.is_float or element.is_complex:
        base = element if element.is_float else element.component
        if token.lstrip("+-").startswith("0x"):  # FloatLiteral (C2): hex gives the bits
            bits = int(token, 16)
            return np.array(bits, dtype=base.storage_dtype).view(base.dtype)[()]
        value = float(token)
        if base.name == "f8E8M0FNU" and value == 0.0:
            return np.array(0, np.uint8).view(base.dtype)[()]  # MLIR's APFloat reads 0.0 as the smallest E8M0, 2^-127
        return round_to(np.array(value), base)[()]  # one correct rounding (not ml_dtypes' double rounding)
    return int(token, 16) if token.lstrip("+-").startswith("0x") else int(token)


def parse_dense(body: str, tensor_type: TensorType) -> np.ndarray:
    """Parse the inside of ``dense<...>`` for a static ``tensor_type``."""
    element = _storage(tensor_type.element_type)
    shape = tuple(tensor_type.shape)
    body = body.strip()
    if body.startswith('"'):
        hexdigits = body.strip('"')
        if not hexdigits.startswith("0x"):
            raise LiteralError(f"string dense literal must be hex, got {body[:20]!r}")
        return from_hex_bytes(bytes.fromhex(hexdigits[2:]), element, shape)
    if body == "":
        values = []
    else:
        values = []
        complex_parts: list = []
        in_complex = False
        for tok in _tokens(body):
            if tok == "(":
                in_complex, complex_parts = True, []
            elif tok == ")":
                values.append(complex(float(complex_parts[0]), float(complex_parts[1])))
                in_complex = False
            elif tok in ("[", "]", ","):
                continue
            elif in_complex:
                complex_parts.append(_scalar(tok, element))
            else:
                values.append(_scalar(tok, element))
    count = int(np.prod(shape, dtype=np.int64))
    if len(values) == 1 and count != 1:
        return np.full(shape, _to_array(values, element)[0], dtype=element.dtype)
    if len(values) != count:
        raise LiteralError(f"dense literal has {len(values)} elements, {tensor_type} needs {count}")
    return _to_array(values, element).reshape(shape)


def _to_array(values: list, element: ElementType) -> np.ndarray:
    if element.is_integer:
        lo, hi = element.min_value, element.max_value
        for v in values:
            if not lo <= v <= hi:  # IntegerConstant (C1): is_wellformed
                raise LiteralError(f"integer literal {v} is out of range for {element}")
        return np.array(values, dtype=np.int64 if element.is_signed else np.uint64).astype(element.dtype)
    if element.is_float:
        return np.array(values, dtype=element.dtype)
    return np.array(values, dtype=element.dtype)
