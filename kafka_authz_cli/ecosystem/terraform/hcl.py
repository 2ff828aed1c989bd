"""Terraform's HCL files as blocks and the literal values of their attributes, with positions.

Parsed by python-hcl2's grammar (its raw Lark tree: every node knows its line and column). Only what a
file states is evaluated: string, number and bool literals, templates whose interpolations are
themselves evaluable, heredocs, ``var.NAME`` (the variable's ``default``), ``local.NAME`` (its
``locals`` value), ``TYPE.NAME.ATTR`` where that resource configures ATTR (``kafka_topic.t.name``), tuples, objects,
``toset([...])``, ``each.key``/``each.value[.NAME]`` and ``count.index``, ``cond ? a : b`` and ``!x``. Anything else (resource attributes, ``each``,
functions, data sources) is :class:`Unevaluable`: the caller decides whether that is an error or
a skipped resource. Terraform's own evaluation of these forms is the reference
(developer.hashicorp.com "Expressions": string templates, ``$${``/``%%{`` escapes, heredocs).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable

from kafka_authz_cli.errors import InputError


@dataclass
class Block:
    """``TYPE "label" ... { body }``: its attributes (name -> expression node) and nested blocks."""

    type: str
    labels: list[str]
    line: int
    col: int
    attributes: dict[str, Any] = field(default_factory=dict)
    blocks: list["Block"] = field(default_factory=list)
    path: str = ""


class Unevaluable(Exception):
    """An expression a static reader cannot give a value to (``what``: its source text)."""

    def __init__(self, node, what: str, why: str):
        self.node = node
        self.what = what if len(what) <= 80 else what[:77] + "..."  # a message line, never the whole expression
        self.why = why
        super().__init__(f"{what}: {why}")


class Refused(Exception):
    """An expression past authz's bounds (nested too deep, a string too long, an integer of thousands of
    digits, an invalid escape): one located error, whatever ``--option unevaluated`` says. ``path`` is the file
    of ``node`` when it is not the resource's (a local value of another file)."""

    def __init__(self, node, reason: str, path: str | None = None):
        self.node = node
        self.reason = reason
        self.path = path
        super().__init__(reason)


#: expressions nested deeper than this are refused (Python would run out of stack long before HCL does)
MAX_DEPTH = 200
#: the longest string an expression may evaluate to (templates over templates double at each level)
MAX_STRING = 1 << 20
#: integer literals longer than this are refused (Python's own limit on converting digits)
MAX_DIGITS = 4300


class Literal:
    """A literal value read by :func:`fast_parse` (it stands where a Lark node would)."""

    __slots__ = ("value", "line", "column", "text")

    def __init__(self, value: Any, line: int, column: int, text: str):
        self.value, self.line, self.column, self.text = value, line, column, text

    def __str__(self) -> str:
        return self.text


class Chain(Literal):
    """A reference ``a.b.c`` read by :func:`fast_parse`: ``value`` is its list of names."""


_FAST_BLOCK = re.compile(r'([A-Za-z_][A-Za-z0-9_-]*)((?:[ \t]+"[^"\\$%\n]*")*)[ \t]*\{')
_FAST_LABEL = re.compile(r'"([^"]*)"')
#: ``name = value``: a quoted string without templates (``$``/``%`` only when no ``{`` follows) or escapes other
#: than the common ones, a whole number (not negative: ``-1`` is an expression) or a bool; a trailing comment
_FAST_ATTRIBUTE = re.compile(
    r'([A-Za-z_][A-Za-z0-9_-]*)[ \t]*=[ \t]*("(?:[^"\\$%\n]|\\[nrt"\\]|\\u[0-9a-fA-F]{4}|\$(?![{$])|%(?![{%]))*"|[0-9]+|true|false|'
    r'[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z_][A-Za-z0-9_-]*)+)'
    r'[ \t]*(?:(?:#|//)[^\n]*)?')
_FAST_ESCAPE = re.compile(r'\\(?:u([0-9a-fA-F]{4})|(.))')
_SURROGATE = re.compile(r'\\u[dD][89a-fA-F]')


def _fast_escape(m: re.Match) -> str:
    return chr(int(m.group(1), 16)) if m.group(1) else _ESCAPES[m.group(2)]


def fast_parse(text: str, path: str) -> list[Block] | None:
    """The blocks of a file written in the plain shape ``cluster pull`` writes and most hand-written ACL
    files have (blocks, ``name = "literal"`` lines, comments), much faster than the grammar; None for
    anything else, which :func:`parse` then reads. The tests hold it to the grammar's result."""
    top: list[Block] = []
    stack: list[Block] = []
    attribute, block_head = _FAST_ATTRIBUTE.fullmatch, _FAST_BLOCK.fullmatch
    for number, raw in enumerate(text.removeprefix("\ufeff").split("\n"), 1):
        line = raw.strip(" \t\r")
        if not line or line[0] == "#" or line.startswith("//"):
            continue
        m = attribute(line) if stack else None
        if m is not None:
            if "/*" in line:
                return None
            value_text = m.group(2)
            col = m.start(2) + len(raw) - len(raw.lstrip(" \t\r")) + 1
            first = value_text[0]
            if first == '"':
                value: Any = value_text[1:-1]
                if "\\" in value:
                    if _SURROGATE.search(value):
                        return None
                    value = _FAST_ESCAPE.sub(_fast_escape, value)
                node = Literal(value, number, col, value_text)
            elif first.isdigit():
                if len(value_text) > MAX_DIGITS:
                    return None  # the grammar's reading refuses it, located
                node = Literal(int(value_text), number, col, value_text)
            elif value_text in ("true", "false"):
                node = Literal(value_text == "true", number, col, value_text)
            else:
                node = Chain(value_text.split("."), number, col, value_text)
            attributes = stack[-1].attributes
            if m.group(1) in attributes:
                return None  # the grammar's reading decides what a repeated argument means
            attributes[m.group(1)] = node
            continue
        if line == "}":
            if not stack:
                return None
            stack.pop()
            continue
        m = block_head(line)
        if m is None or "/*" in line:
            return None
        col = len(raw) - len(raw.lstrip(" \t\r")) + 1
        block = Block(m.group(1), _FAST_LABEL.findall(m.group(2)), number, col, path=path)
        (stack[-1].blocks if stack else top).append(block)
        stack.append(block)
    return top if not stack else None


def parse(text: str, path: str) -> list[Block]:
    """The top-level blocks of one ``.tf`` file; a syntax error is one located InputError."""
    fast = fast_parse(text, path)
    return fast if fast is not None else grammar_parse(text, path)


def grammar_parse(text: str, path: str) -> list[Block]:
    """:func:`parse` by python-hcl2's grammar alone (every file HCL allows)."""
    from hcl2.api import parses_to_tree
    from lark.exceptions import UnexpectedInput

    try:
        tree = parses_to_tree(text.removeprefix("\ufeff"))
    except UnexpectedInput as e:
        line, col = getattr(e, "line", None), getattr(e, "column", None)
        token = getattr(e, "token", None)
        shown = str(token) if token is not None else ""
        near = f" at {shown[:60]!r}" + (f" ({len(shown):,} characters)" if len(shown) > 60 else "") \
            if shown.strip() else ""
        raise InputError(f"not valid HCL (Terraform's configuration syntax){near}", path,
                         line if isinstance(line, int) and line > 0 else None,
                         col if isinstance(col, int) and col > 0 else None) from None
    body = next(c for c in tree.children if _is(c, "body"))
    return [_block(c, path, text) for c in body.children if _is(c, "block")]


def _is(node, name: str) -> bool:
    return getattr(node, "data", None) == name


def _block(node, path: str, text: str) -> Block:
    head = [c for c in node.children if not _is(c, "new_line_or_comment") and hasattr(c, "data")]
    body = next(c for c in node.children if _is(c, "body"))
    names = [_name(c) for c in head if c is not body]
    block = Block(names[0], names[1:], node.meta.line, node.meta.column, path=path)
    for child in body.children:
        if _is(child, "attribute"):
            key = _name(child.children[0])
            if key in block.attributes:  # Terraform: "Attribute redefined"
                raise InputError(f"{key} is given twice in this {block.type} block (Terraform refuses it)", path,
                                 child.meta.line, child.meta.column)
            block.attributes[key] = child.children[-1]
        elif _is(child, "block"):
            block.blocks.append(_block(child, path, text))
    return block


def _name(node) -> str:
    """A block type, label or attribute name: an identifier, a keyword or a plain quoted string."""
    if _is(node, "string"):
        return "".join(str(p.children[0]) for p in node.children if _is(p, "string_part"))
    return str(node.children[0])


def where(node) -> tuple[int, int]:
    meta = getattr(node, "meta", None)
    if meta is not None and not getattr(meta, "empty", True):
        return meta.line, meta.column
    return getattr(node, "line", 0) or 0, getattr(node, "column", 0) or 0


def source(node, text: str) -> str:
    """The expression as written (for messages)."""
    meta = getattr(node, "meta", None)
    if meta is not None and not getattr(meta, "empty", True):
        return text[meta.start_pos:meta.end_pos]
    return str(node)


_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", '"': '"', "\\": "\\"}
_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|(.))", re.S)


def unescape(chars: str, node=None) -> str:
    """A quoted string's characters as Terraform reads them (``\\n``, ``\\"``, ``\\uNNNN`` ...); an escape of
    no Unicode character (a surrogate, past U+10FFFF) is refused, as HCL refuses it."""
    if "\\" not in chars:
        return chars

    def one(m: re.Match) -> str:
        code = m.group(1) or m.group(2)
        if code:
            point = int(code, 16)
            if point > 0x10FFFF or 0xD800 <= point <= 0xDFFF:
                raise Refused(node, f"the escape {m.group(0)} is no Unicode character (Terraform refuses it)")
            return chr(point)
        return _ESCAPES.get(m.group(3), "\\" + m.group(3))
    return _ESCAPE.sub(one, chars)


class Scope:
    """What ``var.NAME`` and ``local.NAME`` stand for in one module (the files of a directory)."""

    def __init__(self, text_of: dict[str, str]):
        #: name -> (expression node, path) of each variable default and local value
        self.variables: dict[str, tuple[Any, str]] = {}
        self.locals: dict[str, tuple[Any, str]] = {}
        #: (type, name) -> the resource block: ``TYPE.NAME.ATTR`` is its configured value of ATTR
        self.resources: dict[tuple[str, str], Block] = {}
        self.text_of = text_of
        #: variables whose defaults were used (each reading warns once)
        self.defaults_used: dict[str, str] = {}
        self._evaluating: set[str] = set()
        #: each reference target's value (or the error it gave), evaluated once
        self._values: dict[str, Any] = {}
        self._paths: list[str] = []
        self.depth = 0
        #: the instance being read: ``each`` as (key, value) under for_each, ``count.index`` under count
        self.each: tuple[str, Any] | None = None
        self.count_index: int | None = None

    def add(self, block: Block) -> None:
        if block.type == "resource" and len(block.labels) == 2:
            self.resources[(block.labels[0], block.labels[1])] = block
        elif block.type == "variable" and block.labels and "default" in block.attributes:
            self.variables[block.labels[0]] = (block.attributes["default"], block.path)
        elif block.type == "locals":
            for name, node in block.attributes.items():
                self.locals[name] = (node, block.path)

    @property
    def path(self) -> str | None:
        """The file of the value being evaluated, when it is another resource's, a variable or a local."""
        return self._paths[-1] if self._paths else None

    def attribute(self, chain: list[str], node, text: str) -> Any:
        """``TYPE.NAME.ATTR``: the value the file configures (a required argument such as kafka_topic's
        ``name`` is in the state as configured); computed attributes (``id``) are not known here."""
        block = self.resources.get((chain[0], chain[1]))
        if block is None or chain[2] not in block.attributes:
            why = ("a resource not in these files" if block is None
                   else f"{chain[2]} is not configured in {chain[0]}.{chain[1]} (known only once Terraform applies it)")
            raise Unevaluable(node, source(node, text), why)
        if "count" in block.attributes or "for_each" in block.attributes:
            raise Unevaluable(node, source(node, text), f"{chain[0]}.{chain[1]} has count or for_each")
        return self._once(".".join(chain), block.attributes[chain[2]], block.path, node, text)

    def lookup(self, kind: str, name: str, node, text: str) -> Any:
        table = self.variables if kind == "var" else self.locals
        if name not in table:
            why = ("the variable has no default here (set by -var, a .tfvars file or TF_VAR_)" if kind == "var"
                   else "no such local value in these files")
            raise Unevaluable(node, source(node, text), why)
        expr, path = table[name]
        value = self._once(f"{kind}.{name}", expr, path, node, text)
        if kind == "var":
            self.defaults_used.setdefault(name, f"{path}:{where(expr)[0]}")
        return value

    def _once(self, key: str, expr, path: str, node, text: str) -> Any:
        """The value of a reference target, evaluated once however often it is referred to (as Terraform
        evaluates each local value once), where no instance's ``each`` or ``count`` reaches (Terraform
        allows them only in the resource's own arguments). An error is kept and raised again."""
        if key in self._values:
            value = self._values[key]
            if isinstance(value, (Unevaluable, Refused)):
                raise value
            return value
        if key in self._evaluating:
            raise Unevaluable(node, source(node, text), "refers to itself")
        if self.depth >= MAX_DEPTH:  # a chain of references is as deep as the values it goes through
            raise Refused(node, f"references nested more than {MAX_DEPTH} levels deep (a value referring to one "
                          "referring to another ...): authz evaluates that deep", self.path)
        self._evaluating.add(key)
        self._paths.append(path)
        self.depth += 1
        each, index = self.each, self.count_index
        self.each, self.count_index = None, None
        try:
            value = evaluate(expr, self, self.text_of.get(path, ""))
        except (Unevaluable, Refused) as exc:
            self._values[key] = exc
            raise
        finally:
            self.depth -= 1
            self.each, self.count_index = each, index
            self._paths.pop()
            self._evaluating.discard(key)
        self._values[key] = value
        return value


_NOT_EVALUATED = object()


def evaluate(node, scope: Scope, text: str) -> Any:
    """The value of an expression node, or :class:`Unevaluable` (:class:`Refused` past authz's bounds)."""
    if isinstance(node, Chain):
        return _reference(node.value, node, scope, text)
    if isinstance(node, Literal):
        return node.value
    form = _FORMS.get(getattr(node, "data", None))
    if scope.depth >= MAX_DEPTH:
        raise Refused(node, f"an expression nested more than {MAX_DEPTH} levels deep (parentheses, brackets, "
                      "conditionals, references): authz evaluates that deep", scope.path)
    scope.depth += 1
    try:
        value = _NOT_EVALUATED if form is None else form(node, scope, text)
    finally:
        scope.depth -= 1
    if value is _NOT_EVALUATED:
        raise Unevaluable(node, source(node, text), "an expression authz does not evaluate (only literals, var.NAME "
                          "defaults, local values, configured arguments of other resources and conditionals on them)")
    return value


def _parts(node) -> list:
    return [c for c in node.children if hasattr(c, "data") and not _is(c, "new_line_or_comment")]


def _term(node, scope: Scope, text: str) -> Any:
    inner = _parts(node)
    return evaluate(inner[0], scope, text) if len(inner) == 1 else _NOT_EVALUATED


def _attribute_chain(node, scope: Scope, text: str) -> Any:
    chain = _chain(node)
    return _reference(chain, node, scope, text) if chain else _NOT_EVALUATED


def _conditional(node, scope: Scope, text: str) -> Any:
    parts = _parts(node)
    condition = evaluate(parts[0], scope, text)
    if not isinstance(condition, bool):
        raise Unevaluable(parts[0], source(parts[0], text), "the condition is not a bool")
    return evaluate(parts[1] if condition else parts[2], scope, text)


def _function(node, scope: Scope, text: str) -> Any:
    if str(node.children[0].children[0]) != "toset":
        return _NOT_EVALUATED
    args = [c for c in node.children if _is(c, "arguments")]
    items = _parts(args[0]) if args else []
    value = evaluate(items[0], scope, text) if len(items) == 1 else None
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return tuple(sorted(set(value)))  # a set of strings: Terraform iterates it in lexical order
    return _NOT_EVALUATED


def _not(node, scope: Scope, text: str) -> Any:
    if str(node.children[0]) != "!":
        return _NOT_EVALUATED
    value = evaluate(node.children[1], scope, text)
    return (not value) if isinstance(value, bool) else _NOT_EVALUATED


def _element(node, scope: Scope, text: str) -> tuple[str, Any]:
    """An object's ``key = value``: a bare name is the key itself, anything else is evaluated."""
    key_node = node.children[0].children[0]
    chain = _chain(key_node)
    key = chain[0] if chain and len(chain) == 1 else evaluate(key_node, scope, text)
    return str(key), evaluate(node.children[-1], scope, text)


def _reference(chain: list[str], node, scope: Scope, text: str) -> Any:
    """``var.NAME``, ``local.NAME`` or ``TYPE.NAME.ATTR``; anything else is Unevaluable."""
    if chain[0] == "each" and scope.each is not None and len(chain) >= 2 and chain[1] in ("key", "value"):
        value = scope.each[0] if chain[1] == "key" else scope.each[1]
        for name in chain[2:]:
            if not isinstance(value, dict) or name not in value:
                raise Unevaluable(node, source(node, text), f"each.value has no {name}")
            value = value[name]
        return value
    if chain == ["count", "index"] and scope.count_index is not None:
        return scope.count_index
    if len(chain) > 2 and chain[0] in ("var", "local"):
        value = _reference(chain[:2], node, scope, text)
        for name in chain[2:]:
            if not isinstance(value, dict) or name not in value:
                raise Unevaluable(node, source(node, text), f"{'.'.join(chain[:2])} has no {name}")
            value = value[name]
        return value
    if len(chain) == 2 and chain[0] in ("var", "local"):
        return scope.lookup(chain[0], chain[1], node, text)
    if len(chain) == 3 and chain[0] not in ("var", "local", "data", "module", "each", "count"):
        return scope.attribute(chain, node, text)
    raise Unevaluable(node, source(node, text), "a reference authz does not evaluate (only var.NAME defaults, "
                      "local values and configured arguments of resources in these files)")


def _chain(node) -> list[str] | None:
    """``a.b.c`` as ``["a", "b", "c"]`` (None: not a plain chain of names); a loop, however long the chain."""
    names: list[str] = []
    while True:
        if _is(node, "expr_term") and len(node.children) == 1 and _is(node.children[0], "identifier"):
            names.append(str(node.children[0].children[0]))
            return names[::-1]
        if _is(node, "expr_term") and len(node.children) == 1:
            node = node.children[0]
        elif _is(node, "get_attr_expr_term") and len(node.children) == 2 and _is(node.children[1], "get_attr"):
            names.append(_name(node.children[1].children[-1]))
            node = node.children[0]
        else:
            return None


def _template(node, scope: Scope, text: str) -> str:
    out = []
    length = 0
    for part in node.children:
        if not _is(part, "string_part"):
            continue
        piece = part.children[0]
        if hasattr(piece, "data"):
            if not _is(piece, "interpolation"):
                raise Unevaluable(node, source(node, text), "a template directive (%{...})")
            expr = [c for c in piece.children if hasattr(c, "data")][0]
            out.append(_as_string(evaluate(expr, scope, text), piece, text))
        elif piece.type == "ESCAPED_INTERPOLATION":
            out.append(str(piece)[1:])  # $${ is a literal ${
        elif piece.type == "ESCAPED_DIRECTIVE":
            out.append(str(piece)[1:])
        else:
            out.append(unescape(str(piece), node))
        length += len(out[-1])
        if length > MAX_STRING:
            raise Refused(node, f"this string is longer than {MAX_STRING:,} characters (templates of templates "
                          "double at each level): authz evaluates strings up to that", scope.path)
    return "".join(out)


def _as_string(value: Any, node, text: str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, str)):
        return str(value)
    raise Unevaluable(node, source(node, text), "interpolates null")


def _heredoc(node, trim: bool, text: str) -> str:
    raw = str(node.children[0])
    lines = raw.split("\n")
    body = lines[1:-2]  # the marker line, the body, the closing marker, the final empty string
    value = "\n".join(body) + ("\n" if body else "")
    if "${" in value.replace("$${", "") or "%{" in value.replace("%%{", ""):
        raise Unevaluable(node, source(node, text), "a heredoc with interpolations")
    if trim and body:
        indent = min((len(ln) - len(ln.lstrip(" \t")) for ln in body if ln.strip()), default=0)
        value = "\n".join(ln[indent:] for ln in body) + "\n"
    return value.replace("$${", "${").replace("%%{", "%{")


def _integer(node, scope: Scope) -> int:
    digits = str(node.children[0])
    if len(digits) > MAX_DIGITS:
        raise Refused(node, f"an integer of {len(digits):,} digits: authz reads integers of up to {MAX_DIGITS:,}",
                      scope.path)
    return int(digits)


#: one reading per expression form of the grammar (the others are not evaluated)
_FORMS: dict[str | None, Callable[..., Any]] = {
    "expr_term": _term,
    "string": _template,
    "int_lit": lambda node, scope, text: _integer(node, scope),
    "float_lit": lambda node, scope, text: float(str(node.children[0])),
    "literal_value": lambda node, scope, text: {"true": True, "false": False, "null": None}[str(node.children[0])],
    "heredoc_template": lambda node, scope, text: _heredoc(node, False, text),
    "heredoc_template_trim": lambda node, scope, text: _heredoc(node, True, text),
    "get_attr_expr_term": _attribute_chain,
    "conditional": _conditional,
    "tuple": lambda node, scope, text: [evaluate(c, scope, text) for c in _parts(node)],
    "object": lambda node, scope, text: dict(_element(e, scope, text) for e in node.children if _is(e, "object_elem")),
    "function_call": _function,
    "unary_op": _not,
}
