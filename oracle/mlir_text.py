"""MLIR text <-> IR.

Reading: jaxlib's bundled MLIR parses and verifies StableHLO in any syntax (pretty or
generic) and prints it back in the *generic* form, whose grammar is uniform for every
op; we read that form here.  So there is no hand-written parser for the ~100 custom op
syntaxes, and anything MLIR rejects comes back as an ``MlirError`` carrying MLIR's own
diagnostics (line:col and message).

Printing: generic op syntax inside ``func.func`` bodies, which the official verifier
accepts and which round-trips through ``parse_module``.
"""

from __future__ import annotations

import re
import threading

import numpy as np

from . import ir
from .errors import MlirError
from .literals import parse_dense
from .types import parse_element_type, parse_type

# ----------------------------------------------------------------- MLIR context

context_lock = threading.Lock()
_context = None


def _quant_artifact() -> str:
    return ('func.func @main(%arg0: tensor<2x!quant.uniform<i8:f32, 1.0:0>>) -> '
            'tensor<2x!quant.uniform<i8:f32, 1.0:0>> {\n  return %arg0 : tensor<2x!quant.uniform<i8:f32, 1.0:0>>\n}')


def mlir_context():
    """A jaxlib MLIR context with func, stablehlo, chlo, sdy and quant loaded (created once)."""
    global _context
    with context_lock:
        if _context is None:
            from jaxlib.mlir import ir as mlir
            from jaxlib.mlir._mlir_libs import _jax_mlir_ext
            from jaxlib.mlir.dialects import chlo, sdy, stablehlo

            registry = mlir.DialectRegistry()
            _jax_mlir_ext.register_dialects(registry)
            ctx = mlir.Context()
            ctx.append_dialect_registry(registry)
            ctx.load_all_available_dialects()
            stablehlo.register_dialect(ctx)
            chlo.register_dialect(ctx)
            # Shardy: JAX puts #sdy.* sharding attributes (and sdy.mesh ops) in every exported
            # program; loaded so they parse and print back unchanged (the oracle ignores them).
            sdy.register_dialect(ctx)
            # The quant dialect is only loaded into a context by deserializing an artifact that uses it.
            artifact = stablehlo.serialize_portable_artifact_str(_quant_artifact(), stablehlo.get_current_version())
            with ctx:
                stablehlo.deserialize_portable_artifact(ctx, artifact)
            _context = ctx
        return _context


def canonicalize(text: str, *, allow_unregistered: bool = False, filename: str = "-") -> str:
    """Parse + verify ``text`` with MLIR; return it in generic form with locations."""
    from jaxlib.mlir import ir as mlir

    ctx = mlir_context()
    with context_lock, ctx:
        ctx.allow_unregistered_dialects = allow_unregistered
        try:
            module = mlir.Module.parse(text)  # locations say "-": mlir_diagnostics puts the filename in
            if not module.operation.verify():
                raise MlirError([("", "module failed verification")])
        except mlir.MLIRError as e:
            raise MlirError(mlir_diagnostics(e, filename)) from None
        finally:
            ctx.allow_unregistered_dialects = False
        return module.operation.get_asm(print_generic_op_form=True, enable_debug_info=True)


def mlir_diagnostics(error, filename):
    out = []
    for d in getattr(error, "error_diagnostics", []) or []:
        loc = _short_location(str(d.location), filename)
        notes = "".join(f"\n  note: {n.message}" for n in getattr(d, "notes", []))
        out.append((loc, d.message + notes))
    if not out:
        out.append(("", str(error)))
    return out


def _short_location(loc: str, filename: str = "-") -> str:
    m = re.search(r'"([^"]*)":(\d+):(\d+)', loc)
    if not m:
        return ""
    name = filename if m.group(1) == "-" else m.group(1)
    return f"{name}:{m.group(2)}:{m.group(3)}"


def parse_module(text: str, *, allow_unregistered: bool = False, filename: str = "-") -> ir.Module:
    """Any StableHLO text (pretty or generic) -> IR. Raises MlirError on bad input."""
    generic = canonicalize(text, allow_unregistered=allow_unregistered, filename=filename)
    return _GenericReader(generic, filename).module()


# ----------------------------------------------------------------- generic reader

_ALIAS_DEF = re.compile(r"^([#!][\w.$-]+) = (.*)$", re.M)
_IDENT = re.compile(r"[A-Za-z_][\w.$-]*")
_VALUE_REF = re.compile(r"%[\w.$-]+(?:#\d+)?")
_NUMBER = re.compile(r"[-+]?(?:0x[0-9a-fA-F]+|\d+\.?\d*(?:[eE][-+]?\d+)?|inf|nan)")
_RESULT_NAME = re.compile(r"%[\w.$-]+")
_RESULT_COUNT = re.compile(r":\d+")
_SYMBOL_NAME = re.compile(r"@[\w.$-]+(?:::@[\w.$-]+)*")
_BOOL = re.compile(r"true|false")
_HASH_NAME = re.compile(r"#([\w$-]+)(\.[\w.$-]+)?")
_SPACES = re.compile(r"\s*")  # (str.isspace's characters)
_TYPE_START = re.compile(r"(tensor|tuple|complex|!quant\.uniform|!stablehlo\.token|memref|vector|[A-Za-z_!][\w.]*)")


class _GenericReader:
    """Recursive-descent reader for MLIR's generic op form (as printed by MLIR itself)."""

    def __init__(self, text: str, filename: str):
        self.filename = filename
        aliases = dict(_ALIAS_DEF.findall(text))
        text = _ALIAS_DEF.sub("", text)
        if aliases:  # substitute alias uses, longest names first (#loc10 before #loc1)
            names = sorted(aliases, key=len, reverse=True)
            pattern = re.compile("|".join(re.escape(n) for n in names) + r"(?![\w.$-])")
            for _ in range(3):  # aliases may refer to aliases
                text = pattern.sub(lambda m: aliases[m.group(0)], text)
        self.text = text
        self.pos = 0

    # -- lexing helpers
    def ws(self):
        self.pos = _SPACES.match(self.text, self.pos).end()

    def peek(self, s: str) -> bool:
        self.pos = p = _SPACES.match(self.text, self.pos).end()  # (ws(), inlined: the reader's hottest path)
        return self.text.startswith(s, p)

    def accept(self, s: str) -> bool:
        self.pos = p = _SPACES.match(self.text, self.pos).end()
        if self.text.startswith(s, p):
            self.pos = p + len(s)
            return True
        return False

    def expect(self, s: str):
        if not self.accept(s):
            raise MlirError([("", f"internal reader error: expected {s!r} at {self.text[self.pos:self.pos + 60]!r}")])

    def match(self, regex: re.Pattern):
        self.ws()
        m = regex.match(self.text, self.pos)
        if m:
            self.pos = m.end()
            return m.group(0)
        return None

    def need(self, regex: re.Pattern, what: str) -> str:
        """Like ``match`` but a miss is a clear reader error naming ``what`` (never a None)."""
        found = self.match(regex)
        if found is None:
            raise MlirError([("", f"internal reader error: expected {what} at "
                                  f"{self.text[self.pos:self.pos + 60]!r}")])
        return found

    def balanced(self, open_ch: str, close_ch: str) -> str:
        """Text from the current ``open_ch`` to its matching ``close_ch`` (inclusive), skipping strings."""
        self.ws()
        start, depth, t, p = self.pos, 0, self.text, self.pos
        while p < len(t):
            c = t[p]
            if c == '"':
                p = self._string_end(p)
                continue
            if c == "-" and t.startswith("->", p):
                p += 2
                continue
            if c == open_ch:
                depth += 1
            elif c == close_ch:
                depth -= 1
                if depth == 0:
                    self.pos = p + 1
                    return t[start:p + 1]
            p += 1
        raise MlirError([("", "internal reader error: unbalanced text")])

    def _string_end(self, p: int) -> int:
        t = self.text
        p += 1
        while t[p] != '"':
            p += 2 if t[p] == "\\" else 1
        return p + 1

    def string(self) -> str:
        self.ws()
        end = self._string_end(self.pos)
        raw = self.text[self.pos + 1:end - 1]
        self.pos = end
        return _unescape(raw)

    # -- types
    def type_text(self) -> str:
        self.ws()
        t = self.text
        m = _TYPE_START.match(t, self.pos)
        if not m:
            raise MlirError([("", f"internal reader error: expected a type at {t[self.pos:self.pos + 40]!r}")])
        self.pos = m.end()
        if self.peek("<"):
            self.pos = m.end()
            rest = self.balanced("<", ">")
            return m.group(0) + rest
        return m.group(0)

    def value_type(self):
        text = self.type_text()
        try:
            return parse_type(text)
        except ValueError:
            return ir.OpaqueAttr(text)  # e.g. a type from a non-StableHLO dialect

    def type_list(self):
        """``(T, T)`` or a single ``T``."""
        if self.accept("("):
            types = []
            if not self.accept(")"):
                types.append(self.value_type())
                while self.accept(","):
                    types.append(self.value_type())
                self.expect(")")
            return types
        return [self.value_type()]

    def function_type(self):
        inputs = self.type_list()
        self.expect("->")
        return inputs, self.type_list()

    # -- attributes
    def attr_dict(self) -> dict[str, ir.Attr]:
        self.expect("{")
        out: dict[str, ir.Attr] = {}
        if self.accept("}"):
            return out
        while True:
            name = self.string() if self.peek('"') else self.match(_IDENT)
            if self.accept("="):
                out[name] = self.attr()
            else:
                out[name] = ir.UnitAttr()
            if self.accept("}"):
                return out
            self.expect(",")

    def attr(self) -> ir.Attr:
        self.ws()
        t, p = self.text, self.pos
        if t.startswith("dense<", p):
            self.pos += len("dense")
            body = self.balanced("<", ">")[1:-1]
            self.expect(":")
            ty = self.value_type()
            if isinstance(ty, ir.OpaqueAttr):  # e.g. tensor<2xindex> (custom_call layouts): kept as text
                return ir.OpaqueAttr(self.text[p:self.pos].strip())
            return ir.DenseElements(parse_dense(body, ty), ty)
        if t.startswith("array<", p):
            self.pos += len("array")
            body = self.balanced("<", ">")[1:-1]
            elem, _, items = body.partition(":")
            elem = elem.strip()
            vals = [v.strip() for v in items.split(",") if v.strip()]
            conv = (lambda v: v == "true") if elem == "i1" else (float if elem.startswith("f") else int)
            return ir.DenseArray(elem, tuple(conv(v) for v in vals))
        if t.startswith("[", p):
            self.pos += 1
            items = []
            if not self.accept("]"):
                items.append(self.attr())
                while self.accept(","):
                    items.append(self.attr())
                self.expect("]")
            return ir.ArrayAttr(tuple(items))
        if t.startswith("{", p):
            return ir.DictAttr(tuple(self.attr_dict().items()))
        if t.startswith('"', p):
            s = self.string()
            if self.peek(":") and not self.peek("::"):
                self.expect(":")
                self.type_text()
            return ir.StringAttr(s)
        if t.startswith("@", p):
            if t.startswith('@"', p):  # a quoted symbol name
                self.pos += 1
                return ir.SymbolRef(self.string())
            return ir.SymbolRef(self.need(_SYMBOL_NAME, "a symbol name")[1:])
        if t.startswith("#", p):
            return self.hash_attr()
        if t.startswith("true", p) or t.startswith("false", p):
            return ir.BoolAttr(self.match(_BOOL) == "true")
        if t.startswith("unit", p):
            self.pos += 4
            return ir.UnitAttr()
        if t.startswith("(", p):
            inputs, outputs = self.function_type()
            return ir.TypeAttr(FunctionTypeText(inputs, outputs))
        num = self.match(_NUMBER)
        if num is not None:
            ty = self.type_text() if self.accept(":") else "i64"
            is_hex = num.lstrip("+-").lower().startswith("0x")
            if ty.startswith(("f", "bf")):  # FloatAttr; hex spells the bits
                if is_hex:
                    et = parse_element_type(ty)
                    return ir.FloatAttr(float(np.array(int(num, 16), dtype=et.storage_dtype).view(et.dtype)), ty)
                return ir.FloatAttr(float(num), ty)
            return ir.IntegerAttr(int(num, 16) if is_hex else int(num), ty)
        start = self.pos
        ty = self.value_type()
        if isinstance(ty, ir.OpaqueAttr):
            return ir.OpaqueAttr(self.text[start:self.pos].strip())
        return ir.TypeAttr(ty)

    def hash_attr(self) -> ir.Attr:
        start = self.pos
        m = self.need(_HASH_NAME, "an attribute name after #")
        dialect, sub = m[1:], None
        if "." in dialect:
            dialect, sub = dialect.split(".", 1)
        if not self.peek("<"):
            return ir.OpaqueAttr(self.text[start:self.pos])
        body = self.balanced("<", ">")[1:-1].strip()
        text = self.text[start:self.pos]
        if sub is None:
            kind, _, value = body.partition(" ")
            if kind and value and re.fullmatch(r"[\w]+", kind) and re.fullmatch(r"[\w]+", value.strip()):
                return ir.EnumAttr(kind, value.strip(), dialect)
            return ir.OpaqueAttr(text)
        fields = _struct_fields(body)
        return ir.StructAttr(f"{dialect}.{sub}", fields) if fields is not None else ir.OpaqueAttr(text)

    # -- structure
    def location(self) -> str:
        if self.peek("loc("):
            self.expect("loc")
            return _short_location(self.balanced("(", ")"), self.filename)
        return ""

    def module(self) -> ir.Module:
        op = self.op({})
        if op.name != "builtin.module":
            raise MlirError([("", f"expected a module, got {op.name}")])
        functions, declarations = [], []
        for inner in op.regions[0].ops:
            if inner.name != "func.func":
                declarations.append(inner)
                continue
            body = inner.regions[0]
            _, results = inner.attr("function_type")
            functions.append(ir.Function(
                name=inner.attr("sym_name"), arguments=body.arguments, result_types=tuple(results),
                ops=body.ops, visibility=inner.attr("sym_visibility", "public"), location=inner.location,
                arg_attrs=_dicts(inner.attributes.get("arg_attrs")),
                res_attrs=_dicts(inner.attributes.get("res_attrs"))))
        return ir.Module(tuple(functions), attributes=dict(op.attributes), declarations=tuple(declarations))

    def op(self, scope: dict) -> ir.Op:
        result_names: list[tuple[str, int]] = []
        if self.peek("%"):
            while True:
                name = self.need(_RESULT_NAME, "a result name")
                count = int(self.need(_RESULT_COUNT, "a result count")[1:]) \
                    if self.peek(":") and not self.peek(": ") else 1
                result_names.append((name, count))
                if not self.accept(","):
                    break
            self.expect("=")
        op_name = self.string()
        self.expect("(")
        operands = []
        if not self.accept(")"):
            while True:
                ref = self.match(_VALUE_REF)
                if ref not in scope:
                    raise MlirError([("", f"internal reader error: unknown value {ref}")])
                operands.append(scope[ref])
                if self.accept(")"):
                    break
                self.expect(",")
        attributes: dict[str, ir.Attr] = {}
        if self.accept("<{"):
            self.pos -= 1
            attributes.update(self.attr_dict())
            self.expect(">")
        regions = []
        if self.peek("({"):
            self.expect("(")
            while True:
                regions.append(self.region(scope))
                if self.accept(")"):
                    break
                self.expect(",")
        if self.peek("{"):
            attributes.update(self.attr_dict())
        self.expect(":")
        _, result_types = self.function_type()
        location = self.location()
        results = []
        types = iter(result_types)
        for name, count in result_names:
            for i in range(count):
                v = ir.Value(next(types), name if count == 1 else f"{name}#{i}")
                scope[v.name] = v
                results.append(v)
        return ir.Op(op_name, tuple(operands), tuple(results), attributes, tuple(regions), location)

    def region(self, outer: dict) -> ir.Region:
        scope = dict(outer)  # values of enclosing regions stay visible (implicit capture)
        self.expect("{")
        args = []
        if self.accept("^"):
            self.match(_IDENT)
            if self.accept("("):
                while not self.accept(")"):
                    name = self.match(_RESULT_NAME)
                    self.expect(":")
                    v = ir.Value(self.value_type(), name)
                    self.location()
                    scope[name] = v
                    args.append(v)
                    self.accept(",")
            self.expect(":")
        ops = []
        while not self.accept("}"):
            ops.append(self.op(scope))
        return ir.Region(tuple(args), tuple(ops))


def _dicts(array_attr) -> tuple:
    """arg_attrs / res_attrs (an array of dictionaries) -> tuple of DictAttr (None where empty)."""
    if not isinstance(array_attr, ir.ArrayAttr):
        return ()
    return tuple(a if isinstance(a, ir.DictAttr) and a.items else None for a in array_attr.items)


def _with_attrs(text: str, attrs) -> str:
    return f"{text} {attrs}" if attrs is not None else text


class FunctionTypeText:
    """A FunctionType attribute value: iterable as (inputs, outputs), prints as MLIR."""

    def __init__(self, inputs, outputs):
        self.inputs, self.outputs = list(inputs), list(outputs)

    def __iter__(self):
        return iter((self.inputs, self.outputs))

    def __str__(self):
        return "(" + ", ".join(map(str, self.inputs)) + ") -> " + _result_types(self.outputs)


def _struct_fields(body: str):
    """``a = [1, 2], b = 3, c = true`` -> tuple of (name, value); None if not of that shape."""
    fields = []
    for part in split_top_level(body):
        if "=" not in part:
            return None
        key, _, raw = part.partition("=")
        raw = raw.strip()
        if re.fullmatch(r"\[\s*(-?\d+\s*(,\s*-?\d+\s*)*)?\]", raw):
            value = tuple(int(x) for x in raw[1:-1].split(",") if x.strip())
        elif re.fullmatch(r"-?\d+", raw):
            value = int(raw)
        elif raw in ("true", "false"):
            value = raw == "true"
        else:
            value = ir.OpaqueAttr(raw)
        fields.append((key.strip(), value))
    return tuple(fields)


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """``text`` split on ``sep`` outside brackets and string literals, each part stripped (``->``
    is not a bracket); an empty last part is dropped."""
    parts, depth, cur, in_string = [], 0, [], False
    for i, c in enumerate(text):
        if c == '"':
            in_string = not in_string
        elif not in_string:
            if c in "[({<":
                depth += 1
            elif c in "])}" or (c == ">" and not (i > 0 and text[i - 1] == "-")):
                depth -= 1
            elif c == sep and depth == 0:
                parts.append("".join(cur).strip())
                cur = []
                continue
        cur.append(c)
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


def _unescape(raw: str) -> str:
    def repl(m):
        s = m.group(1)
        return {"n": "\n", "t": "\t", '"': '"', "\\": "\\"}.get(s) or chr(int(s, 16))
    return re.sub(r'\\(n|t|"|\\|[0-9a-fA-F]{2})', repl, raw)


# ----------------------------------------------------------------- printer

def _result_types(types) -> str:
    if len(types) == 1 and not str(types[0]).startswith("("):
        return str(types[0])
    return "(" + ", ".join(map(str, types)) + ")"


class _Printer:
    def __init__(self):
        self.names: dict[int, str] = {}
        self.counter = 0
        self.arg_counter = 0
        self.lines: list[str] = []

    def name_arg(self, v: ir.Value) -> str:
        n = f"%arg{self.arg_counter}"
        self.arg_counter += 1
        self.names[id(v)] = n
        return n

    def ref(self, v: ir.Value) -> str:
        try:
            return self.names[id(v)]
        except KeyError:
            raise ValueError(f"value {v!r} is used before it is defined") from None

    def op(self, op: ir.Op, indent: str):
        prefix = ""
        if op.results:
            base = f"%{self.counter}"
            self.counter += 1
            if len(op.results) == 1:
                self.names[id(op.results[0])] = base
                prefix = base + " = "
            else:
                for i, r in enumerate(op.results):
                    self.names[id(r)] = f"{base}#{i}"
                prefix = f"{base}:{len(op.results)} = "
        operands = ", ".join(self.ref(v) for v in op.operands)
        self.lines.append(f'{indent}{prefix}"{op.name}"({operands})' + (" (" if op.regions else ""))
        for i, region in enumerate(op.regions):
            args = ", ".join(f"{self.name_arg(a)}: {a.type}" for a in region.arguments)
            self.lines.append(indent + "{" if i == 0 else indent + "}, {")
            if region.arguments:
                self.lines.append(f"{indent}^bb0({args}):")
            for inner in region.ops:
                self.op(inner, indent + "  ")
        tail = (indent + "})") if op.regions else ""
        attrs = ""
        if op.attributes:
            attrs = " {" + ", ".join(ir.named_attribute_text(k, v) for k, v in op.attributes.items()) + "}"
        sig = " : (" + ", ".join(str(v.type) for v in op.operands) + ") -> " + (
            _result_types([r.type for r in op.results]) if op.results else "()")
        if op.regions:
            self.lines.append(tail + attrs + sig)
        else:
            self.lines[-1] += attrs + sig


_BARE_SYMBOL = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*")


def _symbol(name: str) -> str:
    """A symbol name as MLIR prints it after ``@``: bare where it is an identifier, else quoted."""
    return name if _BARE_SYMBOL.fullmatch(name) else '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def print_module(module: ir.Module) -> str:
    """IR -> MLIR text (generic op form inside func.func) accepted by the StableHLO verifier."""
    attributes = dict(getattr(module, "attributes", None) or {})
    name = attributes.pop("sym_name", None)  # `module @name`: MLIR's form (IREE refuses a sym_name attribute)
    header = "module" + (f" @{_symbol(name.value)}" if isinstance(name, ir.StringAttr) else "")
    if attributes:
        header += " attributes {" + ", ".join(ir.named_attribute_text(k, v) for k, v in attributes.items()) + "}"
    out = [header + " {"]
    for declaration in getattr(module, "declarations", ()):
        p = _Printer()
        p.op(declaration, "  ")
        out.extend(p.lines)
    for f in module.functions:
        p = _Printer()
        arg_attrs = tuple(getattr(f, "arg_attrs", ())) + (None,) * len(f.arguments)
        args = ", ".join(_with_attrs(f"{p.name_arg(a)}: {a.type}", d) for a, d in zip(f.arguments, arg_attrs))
        res_attrs = tuple(getattr(f, "res_attrs", ()))
        if any(d is not None for d in res_attrs):
            results = " -> (" + ", ".join(_with_attrs(str(t), d) for t, d in
                                          zip(f.result_types, res_attrs + (None,) * len(f.result_types))) + ")"
        else:
            results = f" -> {_result_types(f.result_types)}" if f.result_types else ""
        vis = "" if f.visibility == "public" else f"{f.visibility} "
        p.lines.append(f"  func.func {vis}@{f.name}({args}){results} {{")
        for op in f.ops:
            p.op(op, "    ")
        p.lines.append("  }")
        out.extend(p.lines)
    out.append("}")
    return "\n".join(out) + "\n"
