"""CPU milliseconds per query of the Cypher parser, on every distinct query of the openCypher TCK.

    .venv/bin/python bench/cypher_parse.py [--passes 3]

Reads the scenarios in place from ../shared/tck (as tests/tck does). Each pass clears the parse cache, so every
query is parsed again; the first pass also warms ANTLR's shared prediction tables, as a fresh service would.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from houndgraph.graph.cypher import parser  # noqa: E402
from houndgraph.graph.cypher.errors import CypherError  # noqa: E402
from tests.tck.scenarios import feature_files, scenarios  # noqa: E402


def tck_queries() -> list[str]:
    queries: dict[str, None] = {}
    for path in feature_files("clauses", "expressions", "useCases"):
        for scenario in scenarios(path):
            first = [scenario.first.query] if scenario.first else []
            for query in (*scenario.setup, *first, scenario.query):
                if query:
                    queries[query] = None
    return list(queries)


def timed_pass(queries: list[str]) -> tuple[float, int]:
    parser.parse.cache_clear()
    refused = 0
    start = time.process_time()
    for query in queries:
        try:
            parser.parse(query)
        except CypherError:
            refused += 1
    return (time.process_time() - start) * 1000 / len(queries), refused


def main() -> None:
    arguments = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    arguments.add_argument("--passes", type=int, default=3)
    passes = arguments.parse_args().passes
    queries = tck_queries()
    print(f"{len(queries)} distinct queries")
    for number in range(passes):
        ms, refused = timed_pass(queries)
        print(f"pass {number + 1}: {ms:.2f} ms per query (CPU), {refused} refused by the parser")


if __name__ == "__main__":
    main()
