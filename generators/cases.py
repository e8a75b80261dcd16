"""The cases of a plan: every op x element type's cases, reproducibly for a seed.

``draw_cases`` gives one op x element type its special-value cases, its attribute classes'
cases (``class_types`` spreads them over an element-type family) and its random draws, each
drawn with its own seed (``case_seed``), so a case does not change when the plan around it does.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import threading
from typing import Sequence

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis.internal.conjecture.providers import CONSTANTS_CACHE, HypothesisProvider
from hypothesis.internal.constants_ast import Constants

from oracle.registry import lookup
from oracle.types import as_element_type, element_type

from .ops import samplers_of
from .programs import Case, attribute_class_cases, one_op_programs, pairs_elements, signature_keys, special_value_cases
from .quantized import is_quantized_key


_NO_CONSTANTS = Constants()
_constants_lock = threading.RLock()


@contextlib.contextmanager
def _without_local_constants():
    """Hypothesis draws, now and then, a literal constant found in the loaded modules of the
    project (every local module's source literals): which modules are loaded (the backend's
    adapter, the command), an edit to any literal, and an editable or a site-packages install
    would each change the drawn cases.  A plan's draws see none (its global constants, the same
    everywhere, stay), so one plan draws the same cases wherever and however it runs.  (The hook
    is Hypothesis's provider and its cache of permitted constants, emptied on the way in and out;
    the lock keeps a second drawing thread from seeing it restored.)"""
    with _constants_lock:
        saved = HypothesisProvider.__dict__["_local_constants"]
        HypothesisProvider._local_constants = property(lambda self: _NO_CONSTANTS)
        CONSTANTS_CACHE.cache.clear()
        try:
            yield
        finally:
            HypothesisProvider._local_constants = saved
            CONSTANTS_CACHE.cache.clear()


def collect_examples(strategy, max_examples: int, seed: int) -> list:
    """The first ``max_examples`` examples Hypothesis generates from ``strategy`` (reproducible per
    seed, whatever the loaded modules: ``_without_local_constants``)."""
    drawn: list = []

    @hypothesis_seed(seed)
    @settings(max_examples=max_examples, database=None, deadline=None, derandomize=False,
              suppress_health_check=list(HealthCheck), phases=[Phase.generate])
    @given(strategy)
    def collect(case):
        drawn.append(case)

    with _without_local_constants():
        collect()
    return drawn


#: Signatures drawn for the special-value cases: each distinct one (a comparison direction, a
#: destination type, ...) is its own case; those that do not pair up elements (a clamp with
#: scalar bounds) are left out.
SPECIAL_VALUE_TRIES = 12


#: Draws per signature key of an op that does not pair up elements; the case with the most input
#: elements is kept (Hypothesis's first example is its simplest: a scalar dot product).
KEYED_TRIES = 3


def _largest(cases):
    def elements(case):
        inputs = case.inputs.values() if isinstance(case.inputs, dict) else [case.inputs]
        return sum(int(np.size(x)) for process in inputs for x in process)
    return max(cases, key=elements)


def first_case_of(strategy, tries: int, seed: int) -> list:
    """[the first case (not None) among the first ``tries`` examples of ``strategy``], or [].
    The first example alone is tried first: Hypothesis's first example is its simplest one
    whatever ``max_examples`` is, so where it is a case it is the same one, drawn once instead
    of along with ``tries - 1`` examples that were thrown away."""
    for n in (1, tries):
        drawn = [c for c in collect_examples(strategy, n, seed) if c is not None]
        if drawn:
            return drawn[:1]
    return []


def case_seed(seed: int, op: str, element_type, *key) -> int:
    """The seed of one drawn case: a hash of (run seed, op, element type, what the case is: its
    signature key, attribute class or example index), so every op x element type x case draws
    its own program instead of all element types of an op sharing one seed's signatures."""
    text = repr((int(seed), op, str(element_type)) + tuple(str(k) for k in key))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "little")


def random_example(strategy, seed: int):
    """One random example of ``strategy`` (None where it gave none): Hypothesis's first example
    is its simplest whatever the seed (zero choices), the second a seeded random draw; a
    strategy that makes no choice at all has its one example."""
    drawn = collect_examples(strategy, 2, seed)
    return drawn[-1] if drawn else None


def type_family(element_type) -> str:
    """The element-type family an attribute class is drawn once in (``class_types``)."""
    if is_quantized_key(element_type):
        return "quantized"
    et = as_element_type(element_type)
    if et.is_bool or et.is_complex:
        return "bool" if et.is_bool else "complex"
    if et.is_integer:
        return "signed" if et.is_signed else "unsigned"
    return "float" if et.bits >= 16 else "narrow float"


def family_types(pairs) -> dict[tuple[str, str], list[str]]:
    """{(op name, family): the run's element types of that op in that family, in plan order}."""
    out: dict[tuple[str, str], list[str]] = {}
    for info, et in pairs:
        out.setdefault((info.name, type_family(et)), []).append(str(et))
    return out


@functools.lru_cache(maxsize=4096)
def _class_case(op_name: str, class_name: str, et_name: str, seed: int):
    """The case of one attribute class on one element type (None where it does not apply)."""
    info = lookup(op_name)
    attribute_class = next(c for c in samplers_of(info).attribute_space if c.name == class_name)
    et = et_name if is_quantized_key(et_name) else element_type(et_name)
    return random_example(attribute_class_cases(info, et, attribute_class),
                          case_seed(seed, op_name, et_name, "class", class_name))


def class_types(op_info, attribute_class, index: int, same_family: Sequence[str], seed: int) -> str | None:
    """The one element type of ``same_family`` (the run's types of the op in one family) that
    attribute class number ``index`` is drawn on: the types take the classes in turn (class i
    starts at type i), and a class that does not apply to a type moves on to the next one.
    Every class is so exercised once per element-type family -- on several widths across the
    classes -- instead of once per type, which would multiply the run's cases."""
    n = len(same_family)
    for k in range(n):
        et = same_family[(index + k) % n]
        if _class_case(op_info.name, attribute_class.name, et, seed) is not None:
            return et
    return None


def draw_cases(op_info, element_type, max_examples: int, seed: int,
               same_family: Sequence[str] | None = None) -> list[Case]:
    """The cases of one op x element type, reproducibly for a given seed, in this order:

    1. the special-value cases of ops that pair up operand elements by index
       (generators.programs.special_value_cases: one per signature key of the op, else one per
       distinct signature among SPECIAL_VALUE_TRIES draws); other ops with signature keys
       (dot_general's result types, uniform_quantize's storage pairs) get one drawn case per key;
    2. the cases of the op's attribute space (``samplers_of(op).attribute_space``) this element type
       takes: with ``same_family`` (the run's types of the op in this type's family), the
       classes ``class_types`` gives it; without, every class that applies to it;
    3. ``max_examples`` draws: the first Hypothesis's simplest example (one deliberately tiny
       case), each other one a random draw with its own seed (``case_seed``)."""
    def seed_of(*key):
        return case_seed(seed, op_info.name, element_type, *key)

    drawn = []
    if not is_quantized_key(element_type):
        keys = signature_keys(op_info, element_type)
        # Every signature (destination type, direction, result type, ...) gets its own case: its
        # special-value case, or for an op that does not pair up elements, one drawn case.
        elementwise = pairs_elements(op_info)
        for key in keys:
            special = first_case_of(special_value_cases(op_info, element_type, key), 4,
                                    seed_of("special", key)) if elementwise else []
            drawn += special or [_largest(collect_examples(one_op_programs(op_info, element_type, key),
                                                           KEYED_TRIES, seed_of("key", key)))]
        if not keys:
            drawn += collect_examples(special_value_cases(op_info, element_type), SPECIAL_VALUE_TRIES,
                                      seed_of("special"))
    et_name = str(element_type)
    for index, attribute_class in enumerate(samplers_of(op_info).attribute_space):
        if same_family is None or class_types(op_info, attribute_class, index, same_family, seed) == et_name:
            drawn.append(_class_case(op_info.name, attribute_class.name, et_name, seed))
    strategy = one_op_programs(op_info, element_type)
    drawn += collect_examples(strategy, 1, seed_of("tiny"))
    drawn += [random_example(strategy, seed_of("example", i)) for i in range(1, max_examples)]
    out, seen = [], set()
    for c in drawn:
        if c is not None and c.id not in seen:
            seen.add(c.id)
            out.append(c)
    return out
