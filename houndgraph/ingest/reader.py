"""read_file: a JSON document to bounded batches of node and edge records.

A classic file that ends with its meta tag (SharpHound's and AzureHound's layout) is read in one pass
that checks the document as it converts it (`slices`); its meta tag is read from the end first. Any
other document gets two streaming passes: the first (scan) checks the whole document and finds its
meta tag; only a sound document gets the second, which converts records one at a time. Memory holds
one chunk, one record and one batch, whatever the file size. Every failure is an IngestError; a record
that cannot be converted is skipped with a warning instead of failing the file.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Iterator
from itertools import chain
from typing import Any, BinaryIO

import ijson

from houndgraph.graph.records import Batch, Cut
from houndgraph.ingest import ad_computers, ad_objects, ad_pki, azurehound, opengraph
from houndgraph.ingest.ad_common import lower_keys
from houndgraph.ingest.emitter import Emitter
from houndgraph.ingest.errors import IngestError, Warnings
from houndgraph.ingest.files import IngestFile, open_json
from houndgraph.ingest.reading_plan import plan_reading
from houndgraph.ingest.scan import (
    NO_META,
    PARSE_BUFFER,
    DataType,
    FileFormat,
    Meta,
    SkeletonScan,
    Summary,
    ijson_backend,
    not_json_message,
    scan_file,
)
from houndgraph.ingest.slices import DataSlicer, Malformed, parse_items

DEFAULT_BATCH_SIZE = 5000
# SharpHound CE writes version 5 and later; older files lack fields the readers rely on.
OLDEST_SUPPORTED_VERSION = 5

Converter = Callable[[Emitter, dict[str, Any]], object]
CONVERTERS: dict[DataType, Converter] = {
    DataType.USERS: ad_objects.convert_user,
    DataType.GROUPS: ad_objects.convert_group,
    DataType.COMPUTERS: ad_computers.convert_computer,
    # A localgroups file holds computer records carrying only their LocalGroups / UserRights.
    DataType.LOCALGROUPS: ad_computers.convert_computer,
    DataType.DOMAINS: ad_objects.convert_domain,
    DataType.OUS: ad_objects.convert_ou,
    DataType.GPOS: ad_objects.convert_gpo,
    DataType.CONTAINERS: ad_objects.convert_container,
    DataType.AIACAS: ad_objects.convert_aiaca,
    DataType.ROOTCAS: ad_objects.convert_rootca,
    DataType.ENTERPRISECAS: ad_pki.convert_enterprise_ca,
    DataType.NTAUTHSTORES: ad_objects.convert_ntauthstore,
    DataType.CERTTEMPLATES: ad_objects.convert_certtemplate,
    DataType.ISSUANCEPOLICIES: ad_objects.convert_issuance_policy,
    DataType.SITES: ad_objects.convert_site,
    DataType.SITESERVERS: ad_objects.convert_site_server,
    DataType.SITESUBNETS: ad_objects.convert_site_subnet,
    DataType.SESSIONS: ad_objects.convert_session,
    DataType.AZURE: azurehound.convert_record,
}
# A document the one pass could not vouch for, although the full scan finds nothing wrong with it.
NOT_ONE_PASS = "the document's data tag is laid out in a way the reader cannot follow"
# A converter meeting data it does not expect raises one of these; the record is skipped, not the file.
_RECORD_ERRORS = (TypeError, ValueError, KeyError, AttributeError, IndexError)


def read_file(
    file: IngestFile,
    *,
    batch_size: int = DEFAULT_BATCH_SIZE,
    warnings: list[str] | None = None,
) -> Iterator[Batch]:
    """Batches of at most `batch_size` records from one document.

    Raises IngestError if the document is not a readable collector file: before yielding anything,
    except for a fault in a classic file read in one pass, which is found where the pass meets it (the
    datapipe writes a file in one transaction, so nothing of such a file stays in the graph). Warnings
    (skipped records, unknown kinds) are appended to `warnings` when the reading ends, however it ends;
    repeats are counted, not listed, so the list stays short.
    """
    cuts = read_cuts(file, batch_size=batch_size, warnings=warnings)
    try:
        for cut in cuts:
            yield cut.batch()
    finally:
        cuts.close()  # the warnings are written when the reading ends, however it ends


def read_cuts(
    file: IngestFile,
    *,
    batch_size: int = DEFAULT_BATCH_SIZE,
    warnings: list[str] | None = None,
) -> Generator[Cut, None, None]:
    """`read_file`'s batches as the emitter cut them, edges by column (`worker.read_process.read_prepared` reads
    them so)."""
    log = Warnings()
    try:
        summary = _plan(file)
        out = Emitter(batch_size, log)
        if isinstance(summary, Meta):
            yield from _read_classic_in_one_pass(file, summary, out)
        elif summary.format is FileFormat.GENERIC:
            yield from _read_generic(file, summary.source_kind, out)
        elif summary.meta is not None:
            yield from _read_classic(file, summary.meta, out)
        else:  # unreachable: the scan reports a classic file without a meta tag as an error
            raise IngestError(NO_META)
        yield from out.take_rest()
    finally:
        if warnings is not None:
            warnings.extend(log.lines())


def _plan(file: IngestFile) -> Summary | Meta:
    try:
        summary = plan_reading(file)
    except OSError as exc:
        raise IngestError(f"{file.name}: cannot be read ({exc})") from exc
    if isinstance(summary, Summary) and summary.errors:
        raise IngestError("; ".join(summary.errors))
    return summary


def _scan(file: IngestFile) -> Summary:
    try:
        summary = scan_file(file)
    except OSError as exc:
        raise IngestError(f"{file.name}: cannot be read ({exc})") from exc
    if summary.errors:
        raise IngestError("; ".join(summary.errors))
    return summary


def _array_items(stream: BinaryIO) -> Iterator[Any]:
    return ijson_backend.items(stream, "item", use_float=True, buf_size=PARSE_BUFFER)  # type: ignore[no-any-return]


def _read_classic_in_one_pass(file: IngestFile, meta: Meta, out: Emitter) -> Iterator[Cut]:
    skeleton = SkeletonScan()
    slicer = DataSlicer(skeleton.send, lambda text: parse_items(text, _array_items))
    reason = NOT_ONE_PASS
    try:
        with open_json(file, depth_checked=False) as stream:
            yield from _convert_classic(chain.from_iterable(slicer.records(stream)), meta, out)
        summary = skeleton.finish()
    except Malformed as exc:
        summary, reason = None, str(exc) or NOT_ONE_PASS
    except OSError as exc:
        raise IngestError(f"{file.name}: cannot be read ({exc})") from exc
    if summary != Summary(format=FileFormat.CLASSIC, meta=meta) or skeleton.data_arrays != slicer.data_arrays:
        # Whatever was yielded is discarded with the transaction; the full scan names the fault.
        _scan(file)
        raise IngestError(reason)


def _items(file: IngestFile, prefix: str) -> Iterator[Any]:
    """The values at `prefix`, streamed; a document that changed since the scan still fails cleanly."""
    try:
        with open_json(file) as stream:
            yield from ijson_backend.items(stream, prefix, use_float=True, buf_size=PARSE_BUFFER)
    except ijson.JSONError as exc:
        raise IngestError(f"{not_json_message(exc, empty=False)} (the file changed after it was checked)") from exc
    except OSError as exc:
        raise IngestError(f"{file.name}: cannot be read ({exc})") from exc


def _read_classic(file: IngestFile, meta: Meta, out: Emitter) -> Iterator[Cut]:
    yield from _convert_classic(_items(file, "data.item"), meta, out)


def _convert_classic(records: Iterable[Any], meta: Meta, out: Emitter) -> Iterator[Cut]:
    if meta.version < OLDEST_SUPPORTED_VERSION:
        out.warnings.add(
            f"meta.version {meta.version} predates SharpHound CE (version {OLDEST_SUPPORTED_VERSION}): "
            "some relationships may be missing"
        )
    convert = CONVERTERS.get(meta.type)
    full = out.batch_size
    for index, raw in enumerate(records):
        if meta.type is DataType.DELETED:
            if isinstance(raw, str) and raw:
                out.delete(raw)
            else:
                out.warnings.add(f"data[{index}] of a deleted file is not an object id: skipped")
        elif not isinstance(raw, dict) or convert is None:
            out.warnings.add(f"data[{index}] is not an object: skipped")
        else:
            mark = out.mark()
            try:
                convert(out, lower_keys(raw))
            except _RECORD_ERRORS as exc:
                out.rollback(mark)  # no half of a record reaches the graph
                out.warnings.add(f"data[{index}] skipped: it could not be read ({type(exc).__name__}: {exc})")
        if out.pending() >= full:
            yield from out.take_full()


def _read_generic(file: IngestFile, source_kind: str | None, out: Emitter) -> Iterator[Cut]:
    if source_kind:
        # Refused before any batch, as the reference fails a file whose source kind it cannot register.
        if len(source_kind) > opengraph.MAX_SOURCE_KIND_LENGTH:
            raise IngestError(f"{file.name}: failed to register sourceKind: longer than "
                              f"{opengraph.MAX_SOURCE_KIND_LENGTH} characters")
        out.source_kind(source_kind)
    # Nodes first: an edge read later finds its ends already written.
    for node in _items(file, "graph.nodes.item"):
        converted = opengraph.convert_node(node, source_kind)
        if isinstance(converted, str):
            out.warnings.add(converted)
        else:
            out.record(converted)
        yield from out.take_full()
    for edge in _items(file, "graph.edges.item"):
        out.record(opengraph.convert_edge(edge))
        yield from out.take_full()
