"""Importing saved queries from a JSON file or a zip of them, exporting them as a zip or one file, and the
Cypher check on everything stored."""

from __future__ import annotations

import io
import json
import zipfile

import httpx

from tests.factories import Account
from tests.saved_query.conftest import assert_error, create_query, unique

LIST = "/api/v2/saved-queries"
IMPORT = "/api/v2/saved-queries/import"
EXPORT = "/api/v2/saved-queries/export"


def query_file(name: str, query: str = "MATCH (u:User) RETURN u", description: str = "") -> bytes:
    return json.dumps({"name": name, "query": query, "description": description}).encode()


def zipped(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, content in entries.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def names(http: httpx.Client) -> set[str]:
    return {q["name"] for q in http.get(LIST).json()["data"]}


def test_import_one_json_file(owner: Account) -> None:
    name = unique()
    response = owner.http.post(IMPORT, content=query_file(name, description="from a file"),
                               headers={"Content-Type": "application/json"})
    assert response.status_code == 201, response.text
    assert response.json() == {"data": "imported 1 queries"}
    [stored] = [q for q in owner.http.get(LIST).json()["data"] if q["name"] == name]
    assert (stored["query"], stored["description"], stored["user_id"]) == (
        "MATCH (u:User) RETURN u", "from a file", owner.id)


def test_import_a_zip_skips_folders_and_hidden_files(owner: Account) -> None:
    first, second = unique(), unique()
    archive = zipped({f"{first}.json": query_file(first), f"nested/{second}.json": query_file(second),
                      "nested/": b"", "__MACOSX/._x.json": b"\x00\x05junk", ".DS_Store": b"\x00junk",
                      "nested/.hidden.json": b"junk"})
    response = owner.http.post(IMPORT, content=archive, headers={"Content-Type": "application/zip"})
    assert response.status_code == 201, response.text
    assert response.json() == {"data": "imported 2 queries"}
    assert {first, second} <= names(owner.http)


def test_zip_entry_names_never_reach_the_file_system(owner: Account) -> None:
    name = unique()
    archive = zipped({"../../../../tmp/escape.json": query_file(name), "/etc/absolute.json": query_file(name + "-2")})
    response = owner.http.post(IMPORT, content=archive, headers={"Content-Type": "application/x-zip-compressed"})
    assert response.status_code == 201, response.text
    assert {name, name + "-2"} <= names(owner.http)


def test_import_refusals_store_nothing(owner: Account) -> None:
    def refused(content: bytes, content_type: str, message: str | None = None, *, starts: str | None = None) -> None:
        before = names(owner.http)
        response = owner.http.post(IMPORT, content=content, headers={"Content-Type": content_type})
        assert_error(response, 400, message)
        if starts:
            assert response.json()["errors"][0]["message"].startswith(starts), response.text
        assert names(owner.http) == before

    refused(b"name,query", "text/csv",
            "invalid content-type: [text/csv]; Content type must be application/json or application/zip")
    refused(b"{not json", "application/json", starts="failed to unmarshal json file: ")
    refused(b"[1, 2]", "application/json", starts="failed to unmarshal json file: ")
    refused(query_file(""), "application/json", "the name and/or query field is empty")
    refused(b"PK\x03\x04 this is not a zip", "application/zip", starts="not a valid zip file: ")
    good = unique()
    refused(zipped({f"{good}.json": query_file(good), "bad.json": b"{oops"}), "application/zip",
            starts="failed to unmarshal json file bad.json: ")
    refused(zipped({f"{good}.json": query_file(good), "broken.json": query_file(unique(), "MATCH (n RETURN n")}),
            "application/zip", starts="invalid cypher query in ")
    # A zip bomb: a small archive whose entry expands past the per-file cap.
    bomb = zipped({"bomb.json": b" " * (8 * 1024 * 1024)})
    assert len(bomb) < 64 * 1024
    refused(bomb, "application/zip", starts="error during zip validation: bomb.json is larger than")


def test_import_of_a_taken_name_is_409_and_stores_nothing(owner: Account) -> None:
    taken = create_query(owner.http)["name"]
    fresh = unique()
    archive = zipped({"a.json": query_file(fresh), "b.json": query_file(taken)})
    response = owner.http.post(IMPORT, content=archive, headers={"Content-Type": "application/zip"})
    assert_error(response, 409, "duplicate name for saved query: please choose a different name")
    assert fresh not in names(owner.http)


def test_export_scopes(owner: Account, shared_user: Account, other_user: Account) -> None:
    mine = create_query(owner.http, f"mine/{unique()}", description="slash in the name")
    shared = create_query(other_user.http)
    public = create_query(shared_user.http)
    other_user.http.put(f"{LIST}/{shared['id']}/permissions", json={"user_ids": [owner.id]})
    shared_user.http.put(f"{LIST}/{public['id']}/permissions", json={"public": True})

    assert_error(owner.http.get(EXPORT), 400, "scope query parameter cannot be empty")
    assert_error(owner.http.get(EXPORT, params={"scope": "mine"}), 400, "invalid scope param: mine")

    def exported(scope: str) -> dict[str, dict]:
        response = owner.http.get(EXPORT, params={"scope": scope})
        assert response.status_code == 200, response.text
        assert response.headers["content-type"] == "application/zip"
        assert 'filename="exported_queries.zip"' in response.headers["content-disposition"]
        with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
            return {info.filename: json.loads(archive.read(info)) for info in archive.infolist()}

    owned = exported("owned")
    entry = owned[f"mine_{mine['name'][5:]}.json"]
    assert entry == {"name": mine["name"], "query": mine["query"], "description": "slash in the name"}
    assert all("/" not in filename for filename in owned)
    assert shared["name"] + ".json" in exported("shared") and shared["name"] + ".json" not in owned
    assert public["name"] + ".json" in exported("public")
    everything = exported("ALL")
    assert {mine["name"] .replace("/", "_") + ".json", shared["name"] + ".json", public["name"] + ".json"} <= set(
        everything)


def test_export_then_import_round_trips(owner: Account, other_user: Account) -> None:
    made = [create_query(owner.http, description=f"n{i}") for i in range(3)]
    archive = owner.http.get(EXPORT, params={"scope": "owned"}).content
    response = other_user.http.post(IMPORT, content=archive, headers={"Content-Type": "application/zip"})
    assert response.status_code == 201 and response.json() == {"data": "imported 3 queries"}
    imported = {q["name"]: q for q in other_user.http.get(LIST).json()["data"]}
    for query in made:
        assert (imported[query["name"]]["query"], imported[query["name"]]["description"]) == (
            query["query"], query["description"])


def test_export_one_query(owner: Account, other_user: Account) -> None:
    query = create_query(owner.http, f"Kerberoastable ünicode {unique()}", description="one file")
    response = owner.http.get(f"{LIST}/{query['id']}/export")
    assert response.status_code == 200
    assert response.json() == {"name": query["name"], "query": query["query"], "description": "one file"}
    disposition = response.headers["content-disposition"]
    assert disposition.startswith("attachment; filename=\"Kerberoastable _nicode")
    assert "filename*=UTF-8''Kerberoastable%20%C3%BCnicode" in disposition
    assert_error(other_user.http.get(f"{LIST}/{query['id']}/export"), 404, "query does not exist")
    assert_error(owner.http.get(f"{LIST}/nope/export"), 400, "id is malformed")


def test_stored_cypher_must_parse(owner: Account) -> None:
    response = owner.http.post(LIST, json={"name": unique(), "query": "MATCH (n RETURN n"})
    assert_error(response, 400)
    assert response.json()["errors"][0]["message"].startswith("invalid cypher query: line 1:9 ")
    assert_error(owner.http.post(LIST, json={"name": unique(), "query": "CALL db.labels()"}), 400,
                 "invalid cypher query: procedure invocation is not supported")
    query = create_query(owner.http)
    assert_error(owner.http.put(f"{LIST}/{query['id']}", json={"query": "RETURN ("}), 400)
    assert owner.http.get(f"{LIST}/{query['id']}").json()["data"]["query"] == query["query"]
