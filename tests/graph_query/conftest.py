from tests.graph.cypher.conftest import graph  # noqa: F401 - the small hand-drawn graph
