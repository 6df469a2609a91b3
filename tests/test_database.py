from houndgraph.db import Database


def test_migrations_create_the_builtin_roles(database: Database) -> None:
    with database.connect_raw() as conn:
        names = [row[0] for row in conn.execute("SELECT name FROM roles ORDER BY id")]
    assert names == ["Administrator", "Power User", "User", "Read-Only", "Upload-Only"]


def test_migrating_twice_keeps_data(database: Database) -> None:
    with database.connect_raw(autocommit=True) as conn:
        conn.execute("INSERT INTO kind (name) VALUES ('MigrationProbe') ON CONFLICT DO NOTHING")
    database.migrate()
    with database.connect_raw() as conn:
        assert conn.execute("SELECT count(*) FROM kind WHERE name = 'MigrationProbe'").fetchone() == (1,)


def test_json_values_read_back_whole_beyond_64_bit_integers(database: Database) -> None:
    # jsonb keeps numbers of any size; they come back as the numbers stored, next to ordinary values.
    stored = ('{"big": 123456789012345678901234567890, "small": -7, "float": 1.5, "text": "é\\u00e9", '
              '"list": [null, true]}')
    with database.connect_raw() as conn:
        row = conn.execute("SELECT %s::jsonb, '[1, 2.25, \"x\"]'::json", (stored,)).fetchone()
    assert row == ({"big": 123456789012345678901234567890, "small": -7, "float": 1.5, "text": "éé",
                    "list": [None, True]}, [1, 2.25, "x"])
