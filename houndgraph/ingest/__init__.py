"""Collector readers: SharpHound, AzureHound and OpenGraph files to node and edge records.

    for file in expand_upload(path, max_unzipped_bytes=..., max_ratio=...):
        warnings: list[str] = []
        for batch in read_file(file, warnings=warnings):
            store.write(batch)

A bad file raises IngestError (alone: the other members of an archive still read), before its first
batch unless it is a classic file read in one pass, whose fault may be met after some batches: write a
file's batches in one transaction, as the datapipe does. What the store should know about the records:

- node kinds are (primary kind, Base) for AD and (primary kind, AZBase) for Azure; OpenGraph nodes
  carry their own kinds plus the file's source_kind;
- a property set to None in a SharpHound record is an explicit null from the collector (e.g. an NTLM
  registry value that no longer exists) and should clear the stored value;
- one object can arrive in several node records (a stub domain, then the full one): merge them;
- the same edge can occur twice in one batch (SharpHound reports a session in two lists): dedupe
  before an upsert, which cannot touch one row twice in a statement.
"""

from houndgraph.ingest.errors import IngestError
from houndgraph.ingest.files import IngestFile, expand_upload, open_json
from houndgraph.ingest.reader import DEFAULT_BATCH_SIZE, read_file
from houndgraph.ingest.scan import DataType, FileFormat, Meta, scan_file, sniff_format, validate_upload

__all__ = [
    "DEFAULT_BATCH_SIZE",
    "DataType",
    "FileFormat",
    "IngestError",
    "IngestFile",
    "Meta",
    "expand_upload",
    "open_json",
    "read_file",
    "scan_file",
    "sniff_format",
    "validate_upload",
]
