"""The committed bundle was built from the committed sources: `make web` after any change under web/."""

import hashlib
import json
from pathlib import Path

from houndgraph.cli.openapi import openapi_document
from houndgraph.ui.serving import STATIC_ROOT

WEB = Path(__file__).resolve().parents[2] / "web"
# The same inputs, walk and digest as web/scripts/stamp.mjs.
INPUTS = ["openapi.json", "package.json", "package-lock.json", "tsconfig.json", "vite.config.ts", "index.html",
          "bench.html", "src", "public"]
# Generated from openapi.json during the build (git-ignored): openapi.json stands for it.
GENERATED = {"src/openapi.d.ts"}


def sources_digest() -> str:
    paths: list[str] = []
    for name in INPUTS:
        path = WEB / name
        files = [p for p in path.rglob("*") if p.is_file()] if path.is_dir() else [path]
        relative = (p.relative_to(WEB).as_posix() for p in files)
        paths.extend(name for name in relative if name not in GENERATED)
    digest = hashlib.sha256()
    for relative in sorted(paths):
        content = hashlib.sha256((WEB / relative).read_bytes()).hexdigest()
        digest.update(f"{relative}\n{content}\n".encode())
    return digest.hexdigest()


def test_the_committed_bundle_matches_its_sources() -> None:
    manifest = json.loads((STATIC_ROOT / "build-manifest.json").read_text())
    assert manifest["sources_sha256"] == sources_digest(), "the UI bundle is stale: run `make web` and commit it"


def test_the_wire_types_come_from_the_current_openapi_document() -> None:
    committed = json.loads((WEB / "openapi.json").read_text())
    assert committed == openapi_document(), "web/openapi.json is stale: run `make web` and commit it"


def test_every_prebuilt_query_is_named_and_grouped() -> None:
    groups = json.loads((WEB / "src" / "data" / "prebuilt.json").read_text())
    names = [query["name"] for group in groups for query in group["queries"]]
    assert len(names) == len(set(names))
    assert {"Domain Information", "Dangerous Privileges", "Kerberos Interaction", "Shortest Paths",
            "Active Directory Certificate Services"} <= {group["category"] for group in groups}
