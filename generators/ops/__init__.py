"""How the suite draws each op: its samplers, kept beside -- not inside -- the op's record.

The oracle's record (``oracle.registry.OpInfo``) says what an op means: its spec facts and its
evaluation.  How a valid instance of it is drawn lives here, one module per op family
(``generators/ops/<family>.py``), attached to the op by its name -- the split PyTorch makes
between an OpInfo's reference and its ``sample_inputs_func``:

  * ``draw_signature(draw, element_type)`` draws a valid ``Signature`` (None: not generatable);
  * ``draw_inputs(draw, signature)`` draws its operand values (None: the generic edge-value
    tensors of ``generators.tensors``);
  * ``attribute_space``: the classes of shapes and attributes the op's semantics distinguish
    (``AttributeClass``), drawn deterministically before the random draws;
  * ``signature_keys``: the keys (result types, destination types, ...) a signature is drawn for;
  * ``destination_values(signature)``: for an op whose result type differs from its operand's
    (a conversion), operand values that land on the RESULT type's edges, added to the op's
    special-value case (one array per operand; None: nothing to add).

``samplers_of(name)`` is the one way to read them: it loads every family module once.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Callable, Optional

from oracle.registry import OpInfo, Signature, import_submodules

__all__ = ["AttributeClass", "Samplers", "samplers", "samplers_of"]


@dataclass(frozen=True)
class AttributeClass:
    """One class of shapes and attributes that an op's semantics distinguish (a permutation that
    is not an involution, start indices past the edge, keys with ties, an empty reduced
    dimension with a non-identity init value, ...).  A one-op run draws one case of every class
    of the op in every element-type family (certify: on every type), before its random draws,
    so a bug that only such a signature shows cannot hide behind Hypothesis's simplest examples.

    ``draw_signature(draw, element_type)`` draws a Signature IN the class (the class fixes the
    structure, the draw the rest) or returns None where the class does not apply to that
    element type (NaN keys for an integer sort).  ``draw_inputs(draw, signature)`` draws the
    operand values where the class is about values too (ties, indices out of range); None:
    the op's own ``draw_inputs``, else the generic edge-value tensors."""
    name: str                      # short and stable: "cycle-rank3" (results.json and reports show it)
    draw_signature: Callable[..., Optional[Signature]]
    draw_inputs: Optional[Callable[..., list]] = None
    why: str = ""                  # what it distinguishes, with the spec constraint: "transpose (C2)"


@dataclass
class Samplers:
    draw_signature: Optional[Callable[..., Any]] = None
    draw_inputs: Optional[Callable[..., list]] = None
    attribute_space: tuple[AttributeClass, ...] = ()
    signature_keys: Any = None
    destination_values: Optional[Callable[..., Optional[list]]] = None


SAMPLERS: dict[str, Samplers] = {}
_FIELDS = {f.name for f in fields(Samplers)}


def samplers(name: str, **hooks) -> Samplers:
    """Attaches samplers to the op ``name`` (its full name, "stablehlo.add"); called once per op
    from its family module, or again to add hooks it did not set yet (setting one twice is an
    error)."""
    unknown = set(hooks) - _FIELDS
    if unknown:
        raise TypeError(f"Samplers has no field {sorted(unknown)}")
    entry = SAMPLERS.setdefault(name, Samplers())
    for key, value in hooks.items():
        if getattr(entry, key) not in (None, ()):
            raise ValueError(f"{name}: sampler {key} given twice")
        setattr(entry, key, value)
    return entry


def samplers_of(op: str | OpInfo) -> Samplers:
    """The samplers of an op (by name or record); an op nothing draws has empty ones."""
    import_submodules(__name__, __path__)
    return SAMPLERS.get(op if isinstance(op, str) else op.name) or Samplers()
