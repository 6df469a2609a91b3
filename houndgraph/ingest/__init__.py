"""Collector readers: SharpHound, AzureHound and OpenGraph files to node and edge records.

    for file in expand_upload(path, max_unzipped_bytes=..., max_ratio=...):
        warnings: list[str] = []
        for batch in read_file(file, warnings=warnings):
            store.write(batch)

A bad file raises IngestError (alone: the other members of an archive still read).
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
