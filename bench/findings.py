"""Attack-path findings of the synthetic 100k-object AD collection, timed inside analysis.

    .venv/bin/python bench/findings.py [--objects 100000] [--runs 2]

Loads the collection of bench/analysis.py into a throw-away embedded PostgreSQL, runs `run_analysis`
`--runs` times and prints the seconds of the findings step (detection, reachability and impact, and
the writes) beside the whole run, with how many findings and principals it counted.
"""

from __future__ import annotations

from analysis import loaded_collection  # bench/analysis.py

from houndgraph.analysis import run_analysis


def main() -> None:
    with loaded_collection(__doc__.splitlines()[0]) as (args, db):
        for run in range(1, args.runs + 1):
            with db.connect_raw() as conn:
                report = run_analysis(conn)
                conn.commit()
                findings, principals = conn.execute(
                    "SELECT count(*), count(DISTINCT principal) FROM attack_path_findings "
                    "WHERE deleted_at IS NULL").fetchone() or (0, 0)
                posture = conn.execute("SELECT exposure_index, principal_count, tier_zero_count "
                                       "FROM attack_path_posture ORDER BY id DESC LIMIT 1").fetchone()
            print(f"run {run}: findings {report.steps['record_findings']:.2f} s of {report.seconds:.1f} s in total; "
                  f"{findings} findings over {principals} principals; exposure, eligible, Tier Zero: {posture}")


if __name__ == "__main__":
    main()
