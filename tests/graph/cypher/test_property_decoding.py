"""Many entities' properties are read as text and decoded by orjson (`json_values.read_json`, through
`execute._decode_last_column`): the values must be the standard library's, integers past 64 bits included (orjson
reads them as floats; such texts are read again)."""

from __future__ import annotations

import json
import random
from typing import Any

from houndgraph.graph.cypher.execute import _decode_last_column
from houndgraph.graph.json_values import read_json

NUMBERS: list[Any] = [0, -1, 2**31, 2**53 + 1, 2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 2**64 - 1, 2**64, 10**30,
                      -(10**40), 1.5, -0.0, 1e300, 2.0**63, -(2.0**64), 123456789.125]


def value(rng: random.Random, depth: int = 0) -> Any:
    choice = rng.randrange(6 if depth < 3 else 4)
    if choice == 0:
        return rng.choice(NUMBERS)
    if choice == 1:
        return rng.choice([None, True, False, "", "S-1-5-21-1-512", "é \\u0000 \"quoted\"", "1234567890123456789012"])
    if choice == 2:
        return rng.randint(-(2**70), 2**70)
    if choice == 3:
        return rng.uniform(-1e20, 1e20)
    if choice == 4:
        return [value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {f"k{n}": value(rng, depth + 1) for n in range(rng.randrange(4))}


def test_decoded_properties_are_the_standard_librarys() -> None:
    rng = random.Random(9)
    texts = [json.dumps({f"p{n}": value(rng) for n in range(rng.randrange(8))}) for _ in range(2000)]
    decoded = _decode_last_column([(number, text) for number, text in enumerate(texts)])
    for (number, found), text in zip(decoded, texts, strict=True):
        expected = json.loads(text)
        # repr tells an int from an equal float, which == does not.
        assert repr(found) == repr(expected), (number, text)
        # psycopg hands its reader bytes or a memoryview.
        assert repr(read_json(memoryview(text.encode()))) == repr(expected), (number, text)
