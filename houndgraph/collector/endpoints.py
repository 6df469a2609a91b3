from __future__ import annotations

from fastapi import Response
from fastapi.responses import FileResponse
from starlette.concurrency import run_in_threadpool

from houndgraph.collector import service
from houndgraph.collector.schemas import CollectorManifest, CollectorVersion
from houndgraph.deps import SettingsDep
from houndgraph.kit.answers import answers_file
from houndgraph.kit.envelopes import DataEnvelope


async def list_collectors(collector_type: str, settings: SettingsDep) -> DataEnvelope[CollectorManifest]:
    releases = await run_in_threadpool(service.releases, settings.collectors_dir, collector_type)
    return DataEnvelope(data=CollectorManifest(
        latest=releases[0].version if releases else "",
        versions=[CollectorVersion(version=r.version, sha256sum=r.sha256sum, deprecated=False) for r in releases]))


@answers_file("application/octet-stream", binary=True)
async def download_collector(collector_type: str, release_tag: str, settings: SettingsDep) -> FileResponse:
    release = await run_in_threadpool(service.release, settings.collectors_dir, collector_type, release_tag)
    return FileResponse(release.path, media_type="application/octet-stream", filename=release.path.name)


@answers_file("text/plain")
async def collector_checksum(collector_type: str, release_tag: str, settings: SettingsDep) -> Response:
    release = await run_in_threadpool(service.release, settings.collectors_dir, collector_type, release_tag)
    return Response(f"{release.sha256sum}  {release.path.name}\n", media_type="text/plain")
