"""The openCypher TCK's scenarios, read in place from ../shared/tck with Cucumber's own Gherkin parser,
every Scenario Outline row expanded to a scenario of its own."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gherkin.parser import Parser
from gherkin.pickles.compiler import Compiler

from tests.conftest import SHARED

TCK = SHARED / "tck"
FEATURES = TCK / "features"
NAMED_GRAPHS = TCK / "graphs"
SIDE_EFFECTS = ("+nodes", "-nodes", "+relationships", "-relationships", "+labels", "-labels", "+properties",
                "-properties")
_ERROR = re.compile(r"^an? (\w+) should be raised at (compile time|runtime|any time): (\S+)$")


@dataclass
class Scenario:
    id: str  # `folder/File.feature:LINE`, the line of the scenario or of its Examples row
    name: str
    setup: list[str] = field(default_factory=list)
    query: str = ""
    uses_parameters: bool = False
    uses_procedures: bool = False
    columns: list[str] = field(default_factory=list)
    rows: list[list[str]] | None = None  # None when an error is expected
    ordered: bool = False
    unordered_lists: bool = False
    error: tuple[str, str, str] | None = None  # (class, phase, detail)
    side_effects: dict[str, int] | None = None  # None: not asserted
    # A scenario with a control query: its first query and what that must answer, checked before this one's.
    first: Scenario | None = None

    @property
    def folder(self) -> str:
        return "/".join(self.id.split("/")[:2])


def feature_files(*folders: str, exclude: tuple[str, ...] = ()) -> list[Path]:
    """The feature files under the given top folders (`clauses`, `expressions/temporal`, ...)."""
    files = [path for folder in folders for path in sorted((FEATURES / folder).rglob("*.feature"))]
    return [path for path in files
            if not any(path.is_relative_to(FEATURES / excluded) for excluded in exclude)]


def scenarios(path: Path) -> Iterator[Scenario]:
    document: dict[str, Any] = Parser().parse(path.read_text())
    document["uri"] = str(path)
    lines = _lines(document["feature"])
    relative = path.relative_to(FEATURES).as_posix()
    for pickle in Compiler().compile(document):
        line = lines[pickle["astNodeIds"][-1]]
        scenario = Scenario(id=f"{relative}:{line}", name=pickle["name"])
        for step in pickle["steps"]:
            _read_step(scenario, step["text"], step.get("argument", {}))
        yield scenario


def _lines(feature: dict[str, Any]) -> dict[str, int]:
    """Line numbers of the scenarios and Examples rows, by their AST id."""
    lines: dict[str, int] = {}
    for child in feature.get("children", []):
        scenario = child.get("scenario")
        if not scenario:
            continue
        lines[scenario["id"]] = scenario["location"]["line"]
        for examples in scenario.get("examples", []):
            for row in examples.get("tableBody", []):
                lines[row["id"]] = row["location"]["line"]
    return lines


def _table(argument: dict[str, Any]) -> list[list[str]]:
    return [[cell["value"] for cell in row["cells"]] for row in argument["dataTable"]["rows"]]


def _read_step(scenario: Scenario, text: str, argument: dict[str, Any]) -> None:
    doc = argument.get("docString", {}).get("content", "")
    if text in ("an empty graph", "any graph"):
        return
    if text.startswith("the ") and text.endswith(" graph"):
        name = text.removeprefix("the ").removesuffix(" graph")
        scenario.setup.append((NAMED_GRAPHS / name / f"{name}.cypher").read_text().strip().rstrip(";"))
    elif text == "having executed:":
        scenario.setup.append(doc)
    elif text == "parameters are:":
        scenario.uses_parameters = True
    elif text.startswith("there exists a procedure"):
        scenario.uses_procedures = True
    elif text == "executing control query:" and scenario.query:
        scenario.first = Scenario(scenario.id, scenario.name, [], scenario.query, columns=scenario.columns,
                                  rows=scenario.rows, ordered=scenario.ordered,
                                  unordered_lists=scenario.unordered_lists, error=scenario.error,
                                  side_effects=scenario.side_effects)
        scenario.query, scenario.columns, scenario.rows, scenario.side_effects = doc, [], None, None
        scenario.ordered = scenario.unordered_lists = False
    elif text in ("executing query:", "executing control query:"):
        scenario.query = doc
    elif text == "the result should be empty":
        scenario.rows = []
    elif text.startswith("the result should be"):
        table = _table(argument)
        scenario.columns, scenario.rows = table[0], table[1:]
        scenario.ordered = "in order" in text
        scenario.unordered_lists = "ignoring element order for lists" in text
    elif match := _ERROR.match(text):
        scenario.error = (match.group(1), match.group(2), match.group(3))
    elif text == "no side effects":
        scenario.side_effects = {}
    elif text == "the side effects should be:":
        scenario.side_effects = {name: int(count) for name, count in _table(argument)}
    else:
        raise ValueError(f"{scenario.id}: unknown step {text!r}")
