"""Compare the database rows of a local run and an `mpirun` run of the same
tuning (same problem, algorithm, seed and budget), from `tiletune export`.

usage: compare_runs.py <tiletune> <local.db> <mpi.db>
"""
import json
import subprocess
import sys

tool, local_db, mpi_db = sys.argv[1:4]


def records(db):
    out = subprocess.run([tool, "export", "--db=" + db], capture_output=True,
                         text=True, check=True)
    return [json.loads(line) for line in out.stdout.splitlines() if line]


local, mpi = records(local_db), records(mpi_db)
searched = lambda rows: sorted(r["config_key"] for r in rows
                               if r["role"] in ("default", "search"))
# The final confirmation's rows depend on which config won (timing noise).
print("searched rows: local %d, mpi %d" % (len(searched(local)),
                                           len(searched(mpi))))
fields = lambda r: set(r) - {"paired"}  # paired: only rows timed paired
print("same fields: %s" % (all(fields(a) == fields(local[0])
                               for a in local + mpi)))
print("same run options: %s" % (
    {json.dumps(r["run_options"], sort_keys=True) for r in local} ==
    {json.dumps(r["run_options"], sort_keys=True) for r in mpi}))
for name, rows in (("local", local), ("mpi", mpi)):
    roles = {r["role"] for r in rows}
    print("%s roles: %s" % (name, {"default", "search"} <= roles <=
                            {"default", "search", "final"}))
    ok = [r for r in rows if r["status"] == "ok"]
    print("%s ok rows have times: %s" % (
        name, bool(ok) and all(r["time"]["median"] > 0 and r["gflops"] > 0
                       for r in ok)))
print("same target: %s" % (
    {json.dumps(r["target"], sort_keys=True) for r in local} ==
    {json.dumps(r["target"], sort_keys=True) for r in mpi}))
print("same configs measured: %s" % (searched(local) == searched(mpi)))
status = lambda rows: {r["config_key"]: r["status"] for r in rows
                       if r["role"] in ("default", "search")}
print("same status per config: %s" % (status(local) == status(mpi)))
print("paired rows in the mpi run: %s" % any("paired" in r for r in mpi))
