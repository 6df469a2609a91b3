"""Privilege zone tagging of the synthetic 100k-object AD collection of bench/analysis.py.

    .venv/bin/python bench/zones.py [--objects 100000] [--runs 2]

Loads the collection into a throw-away embedded PostgreSQL, then times the zone step of analysis
(`tag_zones`: seeds, expansion, the stored diff, the Tag_ kinds, the Meta nodes) `--runs` times for
three set-ups: the default selectors only (Tier Zero is small: the admin groups, their members and
the OUs and GPOs above them); plus a second zone seeded by the root of the nested group tree, which
takes most principals of the domain with every OU above them; plus 500 owned objects. The first run
of each set-up inserts its selected nodes, the next ones diff against them (nothing changes).
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

from analysis import Generator, loaded_collection  # bench/analysis.py

from houndgraph.analysis.context import Context
from houndgraph.analysis.zones import tag_zones
from houndgraph.db import Database


def add_selectors(db: Database, setup: str, generator: Generator) -> None:
    with db.connect_raw() as conn:
        if setup == "second zone":
            conn.execute("INSERT INTO asset_group_tags (type, name, position) VALUES (1, 'Tier One', 2)")
            (selector,) = conn.execute(
                "INSERT INTO asset_group_tag_selectors (asset_group_tag_id, name) "
                "SELECT id, 'group tree' FROM asset_group_tags WHERE name = 'Tier One' RETURNING id").fetchone()
            conn.execute("INSERT INTO asset_group_tag_selector_seeds (selector_id, type, value) VALUES (%s, 1, %s)",
                         (selector, generator.groups[0]))
        elif setup == "owned":
            (selector,) = conn.execute(
                "INSERT INTO asset_group_tag_selectors (asset_group_tag_id, name) "
                "SELECT id, 'owned' FROM asset_group_tags WHERE name = 'Owned' RETURNING id").fetchone()
            conn.cursor().executemany(
                "INSERT INTO asset_group_tag_selector_seeds (selector_id, type, value) VALUES (%s, 1, %s)",
                [(selector, user) for user in generator.users[::len(generator.users) // 500][:500]])
        conn.commit()


def main() -> None:
    with loaded_collection(__doc__.splitlines()[0]) as (args, db):
        generator = Generator(args.objects)
        print(f"\n{'set-up':16} {'run':>3} {'seconds':>8}  members")
        for setup in ("defaults", "second zone", "owned"):
            add_selectors(db, setup, generator)
            for run in range(1, args.runs + 1):
                with db.connect_raw() as conn:
                    started = time.perf_counter()
                    report = tag_zones(Context(conn, datetime.now(UTC)))
                    conn.commit()
                    elapsed = time.perf_counter() - started
                members = ", ".join(f"{name} {count}" for name, count in report.members.items())
                print(f"{setup:16} {run:>3} {elapsed:8.2f}  {members}")


if __name__ == "__main__":
    main()
