"""Element-type strategies (spec "Types": TensorElementType).

``element_types()`` draws over every element type of the spec, in an order chosen so that
Hypothesis shrinks towards the most common types (f32, then i32, ...) and the exotic
small floats come last.  ``op_element_types(op_info)`` is the list an op accepts, from its
registry entry.
"""

from __future__ import annotations

from typing import Iterable

from hypothesis import strategies as st

from oracle.types import ALL_ELEMENT_TYPES, ElementType, element_type

#: Kind names accepted by ``element_types(kinds=...)``; the composite ones expand to several kinds.
KIND_ALIASES: dict[str, tuple[str, ...]] = {
    "bool": ("bool",),
    "sint": ("sint",),
    "uint": ("uint",),
    "float": ("float",),
    "complex": ("complex",),
    "integer": ("sint", "uint"),
    "int": ("sint", "uint"),
    "signed": ("sint",),
    "unsigned": ("uint",),
    "numeric": ("sint", "uint", "float", "complex"),  # everything but i1
    "inexact": ("float", "complex"),
    "all": ("bool", "sint", "uint", "float", "complex"),
}

# Shrink order: the types a bug report is easiest to read in come first.
_PREFERRED = ["f32", "i32", "f64", "i64", "f16", "bf16", "i8", "ui8", "i1", "i16", "ui16", "ui32", "ui64",
              "complex<f32>", "complex<f64>", "i4", "ui4", "i2", "ui2",
              "f8E4M3FN", "f8E5M2", "f8E4M3", "f8E3M4", "f8E4M3FNUZ", "f8E5M2FNUZ", "f8E4M3B11FNUZ",
              "f8E8M0FNU", "f6E2M3FN", "f6E3M2FN", "f4E2M1FN"]


def _rank(t: ElementType) -> int:
    try:
        return _PREFERRED.index(t.name)
    except ValueError:  # a type added to oracle.types later: after the known ones
        return len(_PREFERRED) + ALL_ELEMENT_TYPES.index(t)


#: Every element type, in shrink order.
ORDERED_ELEMENT_TYPES: list[ElementType] = sorted(ALL_ELEMENT_TYPES, key=_rank)


def as_element_type(t: str | ElementType) -> ElementType:
    return element_type(t) if isinstance(t, str) else t


def element_type_list(kinds: Iterable[str] | str | None = None, *, names: Iterable[str] | None = None,
                      exclude: Iterable[str] = ()) -> list[ElementType]:
    """The element types of the given kinds (see ``KIND_ALIASES``) and/or names, in shrink order."""
    if isinstance(kinds, str):
        kinds = [kinds]
    wanted_kinds: set[str] | None = None
    if kinds is not None:
        wanted_kinds = set()
        for k in kinds:
            if k not in KIND_ALIASES:
                raise ValueError(f"unknown element kind {k!r}; expected one of {sorted(KIND_ALIASES)}")
            wanted_kinds.update(KIND_ALIASES[k])
    wanted_names = None if names is None else {as_element_type(n).name for n in names}
    excluded = {as_element_type(n).name for n in exclude}
    return [t for t in ORDERED_ELEMENT_TYPES
            if (wanted_kinds is None or t.kind in wanted_kinds)
            and (wanted_names is None or t.name in wanted_names)
            and t.name not in excluded]


def element_types(kinds: Iterable[str] | str | None = None, *, names: Iterable[str] | None = None,
                  exclude: Iterable[str] = ()) -> st.SearchStrategy[ElementType]:
    """Strategy over ElementType objects; ``kinds=None`` means all of ALL_ELEMENT_TYPES."""
    types = element_type_list(kinds, names=names, exclude=exclude)
    if not types:
        raise ValueError(f"no element type matches kinds={kinds!r} names={names!r} exclude={exclude!r}")
    return st.sampled_from(types)


def op_element_types(op_info) -> list[ElementType]:
    """The element types an op accepts (its OpInfo.element_types), in shrink order.

    An op that lists none (e.g. one whose operands are tokens only) gets every element type:
    its draw_signature decides what to do with it.
    """
    names = tuple(op_info.element_types)
    if not names:
        return list(ORDERED_ELEMENT_TYPES)
    return sorted((as_element_type(n) for n in names), key=_rank)
