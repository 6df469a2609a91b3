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
