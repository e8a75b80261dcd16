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
  * ``signature_keys``: the keys (result types, destination types, ...) a signature is drawn for.

``samplers_of(name)`` is the one way to read them: it loads every family module once.
"""

from __future__ import annotations

import importlib
import pkgutil
import threading
from dataclasses import dataclass, fields
from typing import Any, Callable, Optional

from oracle.registry import AttributeClass, OpInfo, lookup

__all__ = ["AttributeClass", "Samplers", "samplers", "samplers_of"]


@dataclass
class Samplers:
    draw_signature: Optional[Callable[..., Any]] = None
    draw_inputs: Optional[Callable[..., list]] = None
    attribute_space: tuple[AttributeClass, ...] = ()
    signature_keys: Any = None


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


_loaded = False
_loading = threading.RLock()


def _load_families() -> None:
    global _loaded
    if _loaded:
        return
    with _loading:
        if not _loaded:
            for module in pkgutil.iter_modules(__path__):
                importlib.import_module(f"{__name__}.{module.name}")
            _loaded = True


def samplers_of(op: str | OpInfo) -> Samplers:
    """The samplers of an op (by name or record); an op nothing draws has empty ones."""
    _load_families()
    name = op if isinstance(op, str) else op.name
    found = SAMPLERS.get(name)
    if found is not None:
        return found
    # Families not moved here yet keep their hooks on the record.
    info = op if isinstance(op, OpInfo) else lookup(name)
    if info is None:
        return Samplers()
    return Samplers(draw_signature=info.draw_signature, draw_inputs=info.draw_inputs,
                    attribute_space=info.attribute_space, signature_keys=info.extra.get("signature_keys"))
