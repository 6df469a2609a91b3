"""The TCK's written values (`(:A {name: 'a'})`, `[:T]`, `<(a)-[:T]->(b)>`, `1.0`, `'s'`, lists, maps) and
the service's answer, both brought to one comparable form.

Comparable form: None for null, and tagged tuples otherwise, so that 1 and 1.0 and true stay apart:
("b", bool), ("i", int), ("f", float), ("s", str), ("l", tuple), ("m", frozenset of (key, value)),
("n", frozenset of labels, props), ("r", type, props), ("p", tuple of nodes and relationships)."""

from __future__ import annotations

import re
from typing import Any

Value = Any

_NUMBER = re.compile(r"-?(?:\d+\.\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+|0x[0-9a-fA-F]+|\d+)")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|`[^`]*`")


# JSON has no NaN and no infinity: the answer writes them as the text Neo4j's HTTP API writes (helpers.sql, hg_float),
# so the TCK's NaN, Inf and -Inf are compared as that text.
NON_FINITE = {"NaN": ("s", "NaN"), "-Inf": ("s", "-Infinity"), "Inf": ("s", "Infinity")}


class TckValueError(ValueError):
    pass


def scalar(value: Any) -> Value:
    """A JSON value of the service's answer in comparable form."""
    if value is None:
        return None
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, int):
        return ("i", value)
    if isinstance(value, float):
        return ("f", value)
    if isinstance(value, str):
        return ("s", value)
    if isinstance(value, list):
        return ("l", tuple(scalar(v) for v in value))
    if isinstance(value, dict):
        return _record(value) or ("m", frozenset((k, scalar(v)) for k, v in value.items()))
    raise TckValueError(f"unexpected JSON value {value!r}")


# A node, relationship or path inside a literal is the record graph_query/literals.py writes, told apart from a map
# by its exact keys (no map of the TCK's expected results has them).
_NODE_RECORD = frozenset({"id", "kinds", "properties"})
_RELATIONSHIP_RECORD = frozenset({"id", "start_id", "end_id", "kind", "properties"})
_PATH_RECORD = frozenset({"nodes", "edges"})


def _record(value: dict[str, Any]) -> Value | None:
    keys = frozenset(value)
    if keys == _NODE_RECORD:
        return node(value["kinds"], value["properties"])
    if keys == _RELATIONSHIP_RECORD:
        return relationship(value["kind"], value["properties"])
    if keys == _PATH_RECORD and isinstance(value["nodes"], list) and isinstance(value["edges"], list):
        members = [scalar(value["nodes"][0])] if value["nodes"] else []
        for edge, end in zip(value["edges"], value["nodes"][1:], strict=True):
            members += [scalar(edge), scalar(end)]
        return ("p", tuple(members))
    return None


def node(labels: list[str], properties: dict[str, Any]) -> Value:
    return ("n", frozenset(labels), properties_of(properties))


def relationship(kind: str, properties: dict[str, Any]) -> Value:
    return ("r", kind, properties_of(properties))


def properties_of(properties: dict[str, Any]) -> frozenset[tuple[str, Value]]:
    # A property set to null does not exist.
    return frozenset((k, scalar(v)) for k, v in properties.items() if v is not None)


def canonical(value: Any) -> str:
    """A text that equal values share: `repr` of a frozenset follows its iteration order, which two equal sets
    built in another order (or under another hash seed) need not share."""
    if isinstance(value, frozenset):
        return "{" + ",".join(sorted(canonical(v) for v in value)) + "}"
    if isinstance(value, tuple):
        return "(" + ",".join(canonical(v) for v in value) + ")"
    if isinstance(value, list):  # a row: its cells keep their order, each in its own canonical text
        return "[" + ",".join(canonical(v) for v in value) + "]"
    return repr(value)


def unordered(value: Value) -> Value:
    """`ignoring element order for lists`: every list, at any depth, as a sorted one."""
    if not isinstance(value, tuple):
        return value
    if value[0] == "l":
        return ("l", tuple(sorted((unordered(v) for v in value[1]), key=canonical)))
    if value[0] == "m":
        return ("m", frozenset((k, unordered(v)) for k, v in value[1]))
    return value


def entities(value: Value, into: tuple[set[Value], set[Value]]) -> None:
    """Collect the nodes and relationships `value` holds, at any depth (paths included)."""
    if not isinstance(value, tuple):
        return
    tag = value[0]
    if tag == "n":
        into[0].add(value)
    elif tag == "r":
        into[1].add(value)
    elif tag in ("p", "l"):
        for item in value[1]:
            entities(item, into)
    elif tag == "m":
        for _, item in value[1]:
            entities(item, into)


def has_entity(value: Value) -> bool:
    found: tuple[set[Value], set[Value]] = (set(), set())
    entities(value, found)
    return bool(found[0] or found[1])


def parse(text: str) -> Value:
    """One cell of an expected-result table."""
    reader = _Reader(text)
    value = reader.value()
    reader.space()
    if reader.pos != len(text):
        raise TckValueError(f"trailing text in {text!r}")
    return value


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def peek(self, word: str) -> bool:
        self.space()
        return self.text.startswith(word, self.pos)

    def take(self, word: str) -> None:
        if not self.peek(word):
            raise TckValueError(f"expected {word!r} at {self.pos} in {self.text!r}")
        self.pos += len(word)

    def name(self) -> str:
        self.space()
        match = _NAME.match(self.text, self.pos)
        if not match:
            raise TckValueError(f"expected a name at {self.pos} in {self.text!r}")
        self.pos = match.end()
        return match.group().strip("`")

    def value(self) -> Value:
        self.space()
        rest = self.text[self.pos:]
        for word, value in (("null", None), ("true", ("b", True)), ("false", ("b", False)),
                            *NON_FINITE.items()):
            if rest.startswith(word) and not rest[len(word):len(word) + 1].isalnum():
                self.pos += len(word)
                return value
        if rest.startswith("'"):
            return self.string()
        if rest.startswith("["):
            return self.list_or_relationship()
        if rest.startswith("{"):
            return ("m", frozenset(self.map().items()))
        if rest.startswith("("):
            return self.node()
        if rest.startswith("<"):
            return self.path()
        match = _NUMBER.match(self.text, self.pos)
        if match:
            self.pos = match.end()
            number = match.group()
            if number.lstrip("-").startswith("0x"):
                return ("i", int(number, 16))
            if any(c in number for c in ".eE"):
                return ("f", float(number))
            return ("i", int(number))
        raise TckValueError(f"cannot read a value at {self.pos} in {self.text!r}")

    def string(self) -> Value:
        self.take("'")
        out: list[str] = []
        while self.pos < len(self.text):
            char = self.text[self.pos]
            if char == "\\" and self.pos + 1 < len(self.text):
                out.append(self.text[self.pos + 1])
                self.pos += 2
                continue
            if char == "'":
                self.pos += 1
                return ("s", "".join(out))
            out.append(char)
            self.pos += 1
        raise TckValueError(f"unterminated string in {self.text!r}")

    def map(self) -> dict[str, Value]:
        self.take("{")
        items: dict[str, Value] = {}
        if self.peek("}"):
            self.take("}")
            return items
        while True:
            key = self.name()
            self.take(":")
            items[key] = self.value()
            if self.peek(","):
                self.take(",")
                continue
            self.take("}")
            return items

    def labels_and_properties(self) -> tuple[list[str], frozenset[tuple[str, Value]]]:
        labels: list[str] = []
        while self.peek(":"):
            self.take(":")
            labels.append(self.name())
        props = self.map() if self.peek("{") else {}
        return labels, frozenset((k, v) for k, v in props.items() if v is not None)

    def node(self) -> Value:
        self.take("(")
        labels, props = self.labels_and_properties()
        self.take(")")
        return ("n", frozenset(labels), props)

    def relationship_body(self) -> Value:
        self.take("[")
        labels, props = self.labels_and_properties()
        self.take("]")
        return ("r", labels[0] if labels else "", props)

    def list_or_relationship(self) -> Value:
        self.take("[")
        if self.peek(":"):
            self.pos -= 1
            return self.relationship_body()
        items: list[Value] = []
        if self.peek("]"):
            self.take("]")
            return ("l", ())
        while True:
            items.append(self.value())
            if self.peek(","):
                self.take(",")
                continue
            self.take("]")
            return ("l", tuple(items))

    def path(self) -> Value:
        self.take("<")
        items = [self.node()]
        while not self.peek(">"):
            incoming = self.peek("<-")
            self.take("<-" if incoming else "-")
            items.append(self.relationship_body())
            self.take("-" if incoming else "->")
            items.append(self.node())
        self.take(">")
        return ("p", tuple(items))
