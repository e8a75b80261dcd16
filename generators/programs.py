"""One-op programs: a public ``@main`` whose arguments are the operands of one op and whose
results are that op's results, plus one input set for it (spec "Programs").

``one_op_programs(op_info)`` asks the op's registry entry for a valid Signature
(``draw_signature(draw, element_type)``), builds the IR directly, and draws the inputs with
the op's own ``draw_inputs(draw, signature)`` if it has one, else with the generic
edge-value tensors of ``generators.tensors.input_sets``.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import re
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
from hypothesis import strategies as st

from oracle import ir
from oracle.mlir_text import parse_module, print_module
from oracle.registry import OpInfo, Signature
from oracle.types import ElementType, QuantizedElementType, TensorType, TupleType

from .drawing import as_draw
from .dtypes import as_element_type, op_element_types
from .modules import build_module, signature_attribute, signature_region  # noqa: F401  (public here too)
from .ops import samplers_of
from .quantized import is_quantized_key, quantized_form_supported, quantized_inputs, quantized_signature
from .tensors import input_sets, special_value_cross, vector_tail_only


@dataclass(eq=False)
class Case:
    """One drawn program and one input set for it: what a run checks and records."""
    module: ir.Module
    inputs: list | dict              # a dict {(replica_id, partition_id): [arrays]} for a case on a process grid
    op: str                          # full op name: "stablehlo.add"
    element_types: tuple[str, ...]   # element type names of the operands, then of the results (no repeats)
    signature: Signature | None = field(default=None, repr=False)
    attribute_class: str = ""        # the op's attribute class it was drawn in ("": a random draw)
    pair: str = ""                   # the plan's op x element type pair that drew it ("stablehlo.add:f32")

    @functools.cached_property
    def program(self) -> str:
        """The program as MLIR text (generic op form; oracle.parse_module reads it back)."""
        return print_module(self.module)

    @functools.cached_property
    def id(self) -> str:
        """Short and stable, from the program and the inputs (``case_id``); a hand-written case may set its own."""
        return case_id(self)

    @property
    def grid(self) -> tuple:
        """(num_replicas, num_partitions): collectives run on a process grid."""
        return self.signature.grid if self.signature is not None else (1, 1)

    @classmethod
    def written(cls, case_id: str, text: str, op: str, element_types, inputs) -> "Case":
        """A hand-written case: its program exactly as written, and its own id."""
        case = cls(module=parse_module(text), inputs=inputs, op=op, element_types=tuple(element_types))
        case.program, case.id = text, case_id
        return case


# --------------------------------------------------------------------------- building

def _element_names(types: Sequence) -> list[str]:
    out: list[str] = []
    for t in types:
        if isinstance(t, TensorType):
            et = t.element_type
            out.append(et.name if not isinstance(et, QuantizedElementType) else str(et))
        elif isinstance(t, TupleType):
            out += _element_names(t.types)
    return out


def _unique_names(names: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(names))


def _element_type_choices(op_info: OpInfo, element_type) -> list[ElementType]:
    if element_type is None:
        return op_element_types(op_info)
    if isinstance(element_type, (str, ElementType)):
        return [as_element_type(element_type)]
    return [as_element_type(t) for t in element_type]


def one_op_programs(op_info: OpInfo, element_type: str | ElementType | Sequence | None = None,
                    key=None) -> st.SearchStrategy:
    """Cases for one op: ``element_type`` (a name / ElementType / list of them; default: every
    type the op accepts) is passed to the op's ``draw_signature``, and so is ``key`` (one of its
    ``signature_keys``: a result type, a destination type, ...) when given."""
    if samplers_of(op_info).draw_signature is None:
        raise ValueError(f"{op_info.name} has no draw_signature: it cannot be generated yet")
    if is_quantized_key(element_type) and quantized_form_supported(op_info):
        # "q.i8": the op's quantized form, retyped from a float signature (generators/quantized.py)
        return _cases(op_info, st.just(element_type), lambda draw, key: quantized_signature(draw, op_info, key),
                      quantized_inputs)
    if is_quantized_key(element_type):  # an op whose own draw_signature takes the key (uniform_dequantize)
        return _cases(op_info, st.just(element_type), samplers_of(op_info).draw_signature)
    choices = _element_type_choices(op_info, element_type)
    element_strategy = st.just(choices[0]) if len(choices) == 1 else st.sampled_from(choices)
    own = samplers_of(op_info).draw_signature
    draw_signature = own if key is None else functools.partial(own, key=key)
    return _cases(op_info, element_strategy, draw_signature)


@st.composite
def _drawn_by(draw, draw_case):
    """The strategy of a drawing function defined per call: decorated with ``st.composite``
    itself, each call had Hypothesis read and parse the function's source (about a quarter
    of the time a run spent drawing its cases).  The cases drawn are the same."""
    return draw_case(draw)


def _cases(op_info: OpInfo, element_strategy, draw_signature, draw_inputs=None) -> st.SearchStrategy:
    """Cases from ``draw_signature(draw, et)``; with ``draw_inputs``, that returns (signature,
    what draw_inputs(draw, op_info, signature, what) needs) and draws the inputs."""
    def draw_case(draw):
        draw = as_draw(draw)  # the op record's hooks reach the strategies through it
        et = draw(element_strategy)
        sig = draw_signature(draw, et)
        if draw_inputs is not None:
            sig, extra = sig
            return _case(op_info, sig, draw_inputs(draw, op_info, sig, extra), et)
        return _case(op_info, sig, _op_inputs(draw, op_info, sig), et)
    return _drawn_by(draw_case)


def _op_inputs(draw, op_info: OpInfo, sig: Signature, draw_inputs=None) -> list | dict:
    """The operand values of ``sig``: ``draw_inputs`` (an attribute class's), else the op's own
    ``draw_inputs``, else the generic edge-value tensors."""
    draw_inputs = draw_inputs or samplers_of(op_info).draw_inputs
    if draw_inputs is None:
        return draw(input_sets(sig))
    inputs = draw_inputs(draw, sig)
    if isinstance(inputs, dict):  # per process (a collective on a grid); one process: a plain list
        return inputs if sig.grid != (1, 1) else list(inputs[(0, 0)])
    return list(inputs)


def _case(op_info: OpInfo, sig: Signature, inputs, et, attribute_class: str = "") -> Case:
    names = _unique_names(_element_names(sig.operand_types) + _element_names(sig.result_types))
    return Case(module=build_module(op_info.name, sig), inputs=inputs, op=op_info.name,
                element_types=names or (str(et),), signature=sig, attribute_class=attribute_class)


def attribute_class_cases(op_info: OpInfo, element_type, attribute_class) -> st.SearchStrategy:
    """Cases of one of the op's attribute classes (``samplers_of(op).attribute_space``) for operands of
    ``element_type``; ``None`` where the class does not apply to that type."""

    if is_quantized_key(element_type):  # the class drawn for f32, retyped (generators/quantized.py)
        def draw_quantized(draw):
            draw = as_draw(draw)
            drawn = quantized_signature(draw, op_info, element_type, attribute_class.draw_signature)
            if drawn is None:
                return None
            sig, float_sig = drawn
            return _case(op_info, sig, quantized_inputs(draw, op_info, sig, float_sig, attribute_class.draw_inputs),
                         element_type, attribute_class.name)
        return _drawn_by(draw_quantized)
    et = as_element_type(element_type)

    def draw_case(draw):
        draw = as_draw(draw)
        sig = attribute_class.draw_signature(draw, et)
        if sig is None:
            return None
        return _case(op_info, sig, _op_inputs(draw, op_info, sig, attribute_class.draw_inputs), et,
                     attribute_class.name)
    return _drawn_by(draw_case)


# ----------------------------------------------------------------- special-value cases

#: Op families whose ops pair up operand elements by index (their attributes never name dimensions).
ELEMENTWISE_FAMILIES = frozenset({"elementwise", "selection", "conversion"})


def pairs_elements(op_info: OpInfo) -> bool:
    """The op pairs up operand elements by index: the element-wise families, and the CHLO ops
    registered element-wise (their records carry an ``arity``; chlo.top_k, ragged_dot, ... do not)."""
    return op_info.family in ELEMENTWISE_FAMILIES or (op_info.family == "chlo" and "arity" in op_info.extra)


def _elementwise_shaped(op_info: OpInfo, sig: Signature) -> bool:
    """An element-wise op whose operands and results are static tensors of one shape, with no
    region or grid: its operands can be any same-length lists of values."""
    types = tuple(sig.operand_types) + tuple(sig.result_types)
    if not pairs_elements(op_info) or sig.regions or sig.grid != (1, 1) or not sig.operand_types:
        return False
    if not all(isinstance(t, TensorType) and not isinstance(t.element_type, QuantizedElementType) for t in types):
        return False
    return len({t.shape for t in types}) == 1 and all(d is not None for d in types[0].shape)


def special_value_cases(op_info: OpInfo, element_type, key=None, values=special_value_cross) -> st.SearchStrategy:
    """The op's deterministic first case (``None`` where the drawn signature does not fit):
    one signature from ``draw_signature``, every tensor reshaped to ``(n,)``, and inputs holding
    the cross product of the operands' special values (``generators.tensors.special_values``):
    every special value for a unary op, every pair for a binary one -- in the spirit of
    array-api-tests' special cases and XLA's exhaustive tests.  ``key``: one of the op's
    signature keys (``signature_keys``), passed on to its ``draw_signature``; ``values``: the
    operand arrays from the operands' element types (conformance/exhaustive.py: every value).
    A one-operand float op draws a second case, its hardest values alone in a vector-tail-sized
    tensor (``vector_tail_only``: a tail bug that only small tensors show); the first example,
    all a keyed op gets, is the full special-value case."""
    def draw_case(draw):
        draw = as_draw(draw)
        et = as_element_type(element_type)
        own = samplers_of(op_info).draw_signature
        sig = own(draw, et) if key is None else own(draw, et, key=key)
        if not _elementwise_shaped(op_info, sig):
            return None
        if (values is special_value_cross and op_info.family == "chlo"
                and not any(t.element_type.is_complex for t in sig.operand_types)):
            # Not yet for real CHLO types: zeta / polygamma over the real special-value grid take
            # minutes in mpmath, and XLA's real CHLO functions have not been judged there.
            return None
        operand_types = [t.element_type for t in sig.operand_types]
        # a second case of a one-operand float op: its hardest values alone, VECTOR_TAIL - 1 in all
        # (tensors.vector_tail_only); the first example (False, Hypothesis's simplest) is the long one
        short = values is special_value_cross and vector_tail_only(operand_types) is not None
        if short and draw(st.booleans()):
            inputs = vector_tail_only(operand_types)
        elif values is special_value_cross and samplers_of(op_info).destination_values is not None:
            # a conversion: the result type's edges too (generators/ops/elements.destination_edges)
            inputs = special_value_cross(operand_types, extra=samplers_of(op_info).destination_values(sig))
        else:
            inputs = values(operand_types)
        if inputs is None:
            return None
        shape = (int(inputs[0].size),)
        sig = dataclasses.replace(
            sig, operand_types=tuple(dataclasses.replace(t, shape=shape) for t in sig.operand_types),
            result_types=tuple(dataclasses.replace(t, shape=shape) for t in sig.result_types))
        names = _unique_names(_element_names(sig.operand_types) + _element_names(sig.result_types))
        return Case(module=build_module(op_info.name, sig), inputs=list(inputs), op=op_info.name,
                    element_types=names, signature=sig)
    return _drawn_by(draw_case)


def signature_keys(op_info: OpInfo, element_type) -> list:
    """The op's signature keys for operands of ``element_type`` (``samplers_of(op).signature_keys``:
    the destination types of convert, the comparison directions of compare, ...), each one its
    own case; [] for an op whose signature is one element type."""
    keys = samplers_of(op_info).signature_keys
    return list(keys(as_element_type(element_type))) if keys is not None else []


# ------------------------------------------------------------------------------ naming

def _input_digest(h, value) -> None:
    if isinstance(value, dict):  # per-process inputs of a grid case
        for pid in sorted(value):
            h.update(repr(pid).encode())
            for v in value[pid]:
                _input_digest(h, v)
        return
    if isinstance(value, tuple):
        h.update(b"(")
        for v in value:
            _input_digest(h, v)
        h.update(b")")
        return
    if not isinstance(value, np.ndarray):  # a token
        h.update(repr(value).encode())
        return
    h.update(f"{value.dtype.name}{value.shape}".encode())
    data = np.ascontiguousarray(value)
    if data.dtype.itemsize == 1 and data.dtype.name in ("int2", "int4", "uint2", "uint4", "float4_e2m1fn",
                                                         "float6_e2m3fn", "float6_e3m2fn"):
        from oracle.literals import to_hex_bytes
        from oracle.types import element_type_of_dtype
        h.update(to_hex_bytes(data, element_type_of_dtype(data.dtype)))  # only the valid low bits
    else:
        h.update(data.tobytes())


def case_hash(case: Case, length: int = 12) -> str:
    h = hashlib.sha256(case.program.encode())
    if isinstance(case.inputs, dict):
        h.update(repr(case.signature.grid).encode())
        _input_digest(h, case.inputs)
        return h.hexdigest()[:length]
    for x in case.inputs:
        _input_digest(h, x)
    return h.hexdigest()[:length]


def inputs_digest(inputs) -> str:
    """sha256 of a case's inputs (a list of arrays, or per process of a grid), as ``case_hash`` reads them."""
    h = hashlib.sha256()
    for value in [inputs] if isinstance(inputs, dict) else inputs:
        _input_digest(h, value)
    return h.hexdigest()


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "", text)


def case_id(case: Case) -> str:
    """Short, stable id: ``add-f32-<12 hex digits of sha256(program text, inputs)>``."""
    mnemonic = case.op.split(".", 1)[-1]
    types = "_".join(_slug(t) for t in case.element_types[:3])
    return f"{mnemonic}-{types}-{case_hash(case)}"
