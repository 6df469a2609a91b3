"""A large generated file reads in bounded batches and bounded memory.

The reading runs in a child interpreter so that its peak resident size is its own, not the test
session's. No timing is asserted.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

USERS = 200_000
ACES_PER_USER = 3
BATCH_SIZE = 5000
DOMAIN = "S-1-5-21-1000-2000-3000"

READER = """
import json, resource, sys
from pathlib import Path
from houndgraph.ingest import expand_upload, read_file

sizes, nodes, edges = [], 0, 0
for file in expand_upload(Path(sys.argv[1]), max_unzipped_bytes=1 << 34, max_ratio=100):
    for batch in read_file(file, batch_size=int(sys.argv[2])):
        sizes.append(len(batch))
        nodes += len(batch.nodes)
        edges += len(batch.edges)
# VmHWM is this process image's own peak; ru_maxrss would also count the parent's memory at fork time.
status = Path("/proc/self/status")
if status.exists():
    line = next(line for line in status.read_text().splitlines() if line.startswith("VmHWM:"))
    peak = int(line.split()[1]) * 1024
else:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"sizes": sizes, "nodes": nodes, "edges": edges, "peak": peak}))
"""


def write_users(path: Path) -> None:
    """SharpHound-shaped users, data first and meta last as SharpHound writes them, without building a list."""
    with path.open("w", encoding="utf-8") as out:
        out.write('{"data": [')
        for i in range(USERS):
            record = {
                "ObjectIdentifier": f"{DOMAIN}-{10_000 + i}",
                "Properties": {
                    "name": f"USER{i}@LAB.LOCAL",
                    "domainsid": DOMAIN,
                    "enabled": True,
                    "description": "generated for the memory test " * 3,
                },
                "PrimaryGroupSID": f"{DOMAIN}-513",
                "ContainedBy": {"ObjectIdentifier": "CONTAINER-USERS", "ObjectType": "Container"},
                "Aces": [
                    {
                        "PrincipalSID": f"{DOMAIN}-{512 + j}",
                        "PrincipalType": "Group",
                        "RightName": "GenericAll",
                        "IsInherited": True,
                    }
                    for j in range(ACES_PER_USER)
                ],
            }
            out.write(("," if i else "") + json.dumps(record))
        meta = {"methods": 0, "type": "users", "count": USERS, "version": 6}
        out.write(f'], "meta": {json.dumps(meta)}}}')


def test_large_file_reads_in_batches_of_batch_size_and_flat_memory(tmp_path: Path) -> None:
    path = tmp_path / "users.json"
    write_users(path)
    file_size = path.stat().st_size
    assert file_size > 140 * 1024 * 1024

    run = subprocess.run(
        [sys.executable, "-c", READER, str(path), str(BATCH_SIZE)], capture_output=True, text=True, check=True
    )
    report = json.loads(run.stdout)

    edges_per_user = ACES_PER_USER + 2  # the ACEs, the primary group, the container
    assert report["nodes"] == USERS
    assert report["edges"] == USERS * edges_per_user
    sizes = report["sizes"]
    assert max(sizes) == BATCH_SIZE
    assert all(size == BATCH_SIZE for size in sizes[:-1])
    assert sum(sizes) == USERS * (1 + edges_per_user)
    # Holding the parsed file would take gigabytes; the reader needs one record and one batch.
    assert report["peak"] < 80 * 1024 * 1024, report["peak"]  # about 26 MB measured
    assert report["peak"] < file_size
