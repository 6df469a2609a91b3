"""The first pass over a document: which format it is, its meta tag, and whether it is sound.

The pass streams parse events and never builds the collector's data array, so it runs in constant
memory; it reads to the end, so a truncated or mixed file is refused before a single record is written.
SharpHound writes `data` before `meta`, which is why the meta tag cannot be taken from the first bytes;
when the document ends with it, `reading_plan.plan_reading` takes it from the last bytes instead, and the reader checks
the document in the pass that reads it (`SkeletonScan` is this scan, fed what that pass does not parse).
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, BinaryIO

import ijson

from houndgraph.ingest import opengraph
from houndgraph.ingest.errors import IngestError
from houndgraph.ingest.files import EMPTY_ZIP_MAGIC, INVALID_ZIP, ZIP_MAGIC, IngestFile, open_json
from houndgraph.ingest.nesting import DepthLimited

try:  # the C backend is ten times faster; the pure-Python one keeps the service working without it
    import ijson.backends.yajl2_c as yajl2_c

    ijson_backend: Any = yajl2_c
except ImportError:  # pragma: no cover - depends on the platform's wheel
    ijson_backend = ijson

PARSE_BUFFER = 1 << 16

NO_TAGS = "no valid meta tag or data tag found"
NO_META = "no valid meta tag found"
NO_DATA = "no data tag found"
INVALID_DATA = "invalid data tag found"
MIXED = "request must use either the classic format (meta/data) or the generic format (graph), not both"
GRAPH_EMPTY = "graph tag is empty. at least one of nodes: [] or edges: [] is required"
_VALUE_STARTS = frozenset({"start_map", "start_array", "string", "number", "integer", "double", "boolean", "null"})
# The reference stops reporting after this many node/edge errors; a user fixes them in rounds anyway.
MAX_VALIDATION_ERRORS = 15


class FileFormat(StrEnum):
    CLASSIC = "classic"  # SharpHound / AzureHound: {"meta": {...}, "data": [...]}
    GENERIC = "generic"  # OpenGraph: {"graph": {"nodes": [...], "edges": [...]}, "metadata": {...}}


class DataType(StrEnum):
    SESSIONS = "sessions"
    USERS = "users"
    GROUPS = "groups"
    COMPUTERS = "computers"
    GPOS = "gpos"
    OUS = "ous"
    DOMAINS = "domains"
    DELETED = "deleted"
    CONTAINERS = "containers"
    LOCALGROUPS = "localgroups"
    AIACAS = "aiacas"
    ROOTCAS = "rootcas"
    ENTERPRISECAS = "enterprisecas"
    NTAUTHSTORES = "ntauthstores"
    CERTTEMPLATES = "certtemplates"
    AZURE = "azure"
    ISSUANCEPOLICIES = "issuancepolicies"
    SITES = "sites"
    SITESERVERS = "siteservers"
    SITESUBNETS = "sitesubnets"


@dataclass(frozen=True, slots=True)
class Meta:
    type: DataType
    version: int
    methods: int


@dataclass(slots=True)
class Summary:
    """What the first pass learnt. `errors` is empty for a document that can be read."""

    format: FileFormat | None = None
    meta: Meta | None = None
    source_kind: str | None = None
    errors: list[str] = field(default_factory=list)


def sniff_format(stream: BinaryIO) -> FileFormat:
    """The format of a JSON document; IngestError with the reference's message when it has none."""
    summary = scan(stream)
    if summary.errors or summary.format is None:
        raise IngestError("; ".join(summary.errors) or NO_TAGS)
    return summary.format


def scan_file(file: IngestFile) -> Summary:
    """The first pass over a stored document.

    A classic file is mostly its data array, and walking that array event by event in Python costs
    three times what the C parser needs to find the meta tag. So the event walk stops where the data
    array starts, and one C-speed pass over the whole document then reads the meta tag (SharpHound
    writes it last) and proves the JSON complete. The walk resumes over everything only if the
    document mentions a generic-format key, which a classic file must not have.
    """
    scanner = Scanner()
    with open_json(file) as stream:
        failed = walk(scanner, stream, stop_at_data=True)
    if failed is not None or not scanner.stopped_at_data:
        return failed or scanner.summary()
    if _mentions_generic_keys(file):
        scanner = Scanner()
        with open_json(file) as stream:
            return walk(scanner, stream, stop_at_data=False) or scanner.summary()
    scanner.meta, scanner.meta_errors = None, []
    try:
        with open_json(file) as stream:
            for value in ijson_backend.items(stream, "meta", buf_size=PARSE_BUFFER):
                scanner.take_meta(value)
    except ijson.JSONError as exc:
        return Summary(errors=[not_json_message(exc, empty=False)])
    except UnicodeDecodeError as exc:
        return Summary(errors=[f"not JSON: the file is not UTF-8 text ({exc.reason})"])
    return scanner.summary()


class SkeletonScan:
    """The full scan of a document pushed to it piece by piece: in `reader`'s one pass, every byte but
    the data arrays' contents (`slices.DataSlicer`)."""

    def __init__(self) -> None:
        self._scanner = Scanner()
        self._events: Any = ijson.sendable_list()
        self._parser = ijson_backend.parse_coro(self._events)
        self._failed = False

    @property
    def data_arrays(self) -> int:
        return self._scanner.data_arrays

    def send(self, data: bytes) -> None:
        if not self._failed:
            self._push(lambda: self._parser.send(data))

    def finish(self) -> Summary | None:
        """What the full scan would have found; None if the skeleton is not JSON (the full scan says why)."""
        if not self._failed:
            self._push(self._parser.close)
        return None if self._failed else self._scanner.summary()

    def _push(self, step: Callable[[], object]) -> None:
        try:
            step()
        except (ijson.JSONError, UnicodeDecodeError):
            self._failed = True
            return
        feed = self._scanner.feed
        for prefix, event, value in self._events:
            if prefix[:5] != "data.":
                feed(prefix, event, value)
        del self._events[:]


def _mentions_generic_keys(file: IngestFile) -> bool:
    """Whether the raw bytes contain "graph" or "metadata" anywhere (a necessary condition for the keys)."""
    needles = (b'"graph"', b'"metadata"')
    overlap = max(len(needle) for needle in needles) - 1
    tail = b""
    # The raw bytes: no parser reads them here, so neither the nesting check nor the byte order mark matter.
    with file.open() as stream:
        while chunk := stream.read(1 << 20):
            window = tail + chunk
            if any(needle in window for needle in needles):
                return True
            tail = window[-overlap:]
    return False


def validate_upload(path: Path) -> list[str]:
    """Errors that make a stored upload unreadable, for the upload endpoint to refuse it up front.

    A JSON upload gets the whole first pass (the reference stream-validates before storing); a zip gets
    its header checked only, since each member becomes its own task and fails alone.
    """
    with path.open("rb") as stream:
        head = stream.read(4)
        if head in (ZIP_MAGIC, EMPTY_ZIP_MAGIC):
            return []
        if head.startswith(b"PK"):
            return [INVALID_ZIP]
    try:
        return scan_file(IngestFile(name=path.name, parent_name=None, open=lambda: path.open("rb"))).errors
    except IngestError as exc:  # nesting too deep to parse safely
        return [str(exc)]


def scan(stream: BinaryIO) -> Summary:
    """The first pass over an open stream (which cannot be reopened): every event is walked."""
    scanner = Scanner()
    guarded: Any = io.BufferedReader(DepthLimited(stream), buffer_size=PARSE_BUFFER)
    return walk(scanner, guarded, stop_at_data=False) or scanner.summary()


def walk(scanner: Scanner, stream: BinaryIO, *, stop_at_data: bool) -> Summary | None:
    """Feed parse events to `scanner`; a Summary with the error if the document is not JSON."""
    feed = scanner.feed
    try:
        for prefix, event, value in ijson_backend.parse(stream, buf_size=PARSE_BUFFER):
            if prefix[:5] == "data.":  # the bulk of a classic file, and nothing to check in it here
                continue
            feed(prefix, event, value)
            if stop_at_data and scanner.data_seen:
                scanner.stopped_at_data = True
                return None
    except ijson.IncompleteJSONError as exc:
        return Summary(errors=[not_json_message(exc, empty=scanner.events == 0)])
    except ijson.JSONError as exc:
        return Summary(errors=[not_json_message(exc, empty=False)])
    except UnicodeDecodeError as exc:
        return Summary(errors=[f"not JSON: the file is not UTF-8 text ({exc.reason})"])
    return None


def not_json_message(exc: Exception, *, empty: bool) -> str:
    detail = exc.args[0] if exc.args else ""
    if isinstance(detail, bytes):
        detail = detail.decode("utf-8", "replace")
    lines = str(detail).strip().splitlines()
    first = lines[0].strip() if lines else type(exc).__name__
    if "premature EOF" in first:
        return "not JSON: the file is empty" if empty else "not JSON: the document ends too early (truncated file)"
    return f"not JSON: {first}"


class Scanner:
    """Consumes (prefix, event, value) triples; builds only the small values it needs."""

    def __init__(self) -> None:
        self.events = 0
        self.top_is_object: bool | None = None
        self.meta: Meta | None = None
        self.meta_errors: list[str] = []
        self.data_seen = False
        self.stopped_at_data = False
        self.data_is_array = False
        self.data_arrays = 0
        self.graph_seen = False
        self.graph_is_object = False
        self.nodes_seen = False
        self.edges_seen = False
        self.metadata: Any = None
        self.metadata_seen = False
        self.validation: list[str] = []
        self.critical: list[str] = []
        self.node_index = 0
        self.edge_index = 0
        self._builder: ijson.ObjectBuilder | None = None
        self._building: str = ""
        self._depth = 0

    def feed(self, prefix: str, event: str, value: Any) -> None:
        self.events += 1
        if self._builder is not None:
            self._builder.event(event, value)
            if event in ("start_map", "start_array"):
                self._depth += 1
            elif event in ("end_map", "end_array"):
                self._depth -= 1
            if self._depth == 0:
                self._finish(self._building, self._builder.value)
                self._builder = None
            return
        if prefix == "":
            if self.top_is_object is None:
                self.top_is_object = event == "start_map"
            return
        if prefix == "data":
            if event not in ("end_array", "end_map"):
                self.data_seen = True
                self.data_is_array = event == "start_array"
                self.data_arrays += self.data_is_array
            return
        if prefix in ("meta", "metadata", "graph.metadata", "graph.nodes.item", "graph.edges.item"):
            if event in ("end_map", "end_array"):
                return
            self._start(prefix, event, value)
            return
        if prefix == "graph":
            if event == "start_map":
                self.graph_seen, self.graph_is_object = True, True
            elif event == "map_key":
                self.nodes_seen |= value == "nodes"
                self.edges_seen |= value == "edges"
            elif event in _VALUE_STARTS:
                self.graph_seen = True
                self.critical.append("graph tag must be an object with nodes and edges arrays")
            return
        if prefix in ("graph.nodes", "graph.edges") and event in _VALUE_STARTS and event != "start_array":
            self.critical.append(f"{prefix[6:]} must be an array")

    def _start(self, prefix: str, event: str, value: Any) -> None:
        builder = ijson.ObjectBuilder()
        builder.event(event, value)
        if event in ("start_map", "start_array"):
            self._builder, self._building, self._depth = builder, prefix, 1
        else:
            self._finish(prefix, builder.value)

    def _finish(self, prefix: str, value: Any) -> None:
        if prefix == "meta":
            self.take_meta(value)
        elif prefix in ("metadata", "graph.metadata"):
            self.metadata_seen = True
            self.metadata = value
        elif prefix == "graph.nodes.item":
            self._check(opengraph.node_errors(value, self.node_index))
            self.node_index += 1
        else:
            self._check(opengraph.edge_errors(value, self.edge_index))
            self.edge_index += 1

    def _check(self, errors: list[str]) -> None:
        room = MAX_VALIDATION_ERRORS - len(self.validation)
        self.validation.extend(errors[: max(room, 0)])

    def take_meta(self, value: Any) -> None:
        # Like the reference, an unusable meta tag is ignored; a later valid one in the same file wins.
        if not isinstance(value, dict):
            self.meta_errors.append("meta must be an object")
            return
        raw_type: Any = value.get("type")
        try:
            data_type = DataType(raw_type)
        except ValueError:
            known = ", ".join(t.value for t in DataType)
            self.meta_errors.append(f"meta.type {raw_type!r} is not one of: {known}")
            return
        version, methods = value.get("version", 0), value.get("methods", 0)
        if not _is_int(version) or not _is_int(methods):
            self.meta_errors.append("meta.version and meta.methods must be integers")
            return
        self.meta = Meta(type=data_type, version=int(version), methods=int(methods))

    def summary(self) -> Summary:
        if self.top_is_object is False:
            return Summary(errors=[f"{NO_TAGS}: the document is not a JSON object"])
        classic = self.meta is not None or self.data_seen
        if self.graph_seen and (classic or self.meta_errors):
            return Summary(errors=[MIXED])
        if self.graph_seen:
            return self._generic_summary()
        if self.metadata_seen:
            return Summary(errors=[MIXED if classic else f"{NO_TAGS}: metadata without a graph tag"])
        if self.meta is None and not self.data_seen:
            return Summary(errors=[_with_detail(NO_TAGS, self.meta_errors)])
        if self.meta is None:
            return Summary(errors=[_with_detail(NO_META, self.meta_errors)])
        if not self.data_seen:
            return Summary(errors=[NO_DATA])
        if not self.data_is_array:
            return Summary(errors=[f"{INVALID_DATA}: data must be an array"])
        return Summary(format=FileFormat.CLASSIC, meta=self.meta)

    def _generic_summary(self) -> Summary:
        errors = list(self.critical)
        if self.graph_is_object and not (self.nodes_seen or self.edges_seen):
            errors.append(GRAPH_EMPTY)
        source_kind = None
        if self.metadata_seen:
            metadata_errors = opengraph.metadata_errors(self.metadata)
            errors.extend(metadata_errors)
            if not metadata_errors:
                source_kind = self.metadata.get("source_kind")
        errors.extend(self.validation)
        if errors:
            return Summary(format=FileFormat.GENERIC, errors=errors)
        return Summary(format=FileFormat.GENERIC, source_kind=source_kind or None)


def _with_detail(message: str, details: list[str]) -> str:
    return f"{message}: {details[-1]}" if details else message


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
