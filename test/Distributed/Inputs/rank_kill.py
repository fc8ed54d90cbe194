"""Kill worker rank 1 of an `mpirun -n 2 ... --distributed=mpi` run after it
sent some results (TILETUNE_MPI_TEST_KILL_AFTER), then check that the run
ended with a clear error and no hang, that every result rank 1 sent is in
the database, and that --resume (locally) finishes the budget without
measuring anything twice.

usage: rank_kill.py <mpirun command> <tiletune> <input.mlir> <db> <trials> <n>
"""
import json
import os
import shlex
import subprocess
import sys
import time

mpirun, tool, mlir, db, trials, kill_after = sys.argv[1:7]
trials, kill_after = int(trials), int(kill_after)
common = ["tune", mlir, "--db=" + db, "--algorithm=random", "--seed=7",
          "--threads=1", "--repeats=2", "--min-sample-ms=0.1", "--batch=1",
          "--no-progress", "--trials=%d" % trials]


def records():
    out = subprocess.run([tool, "export", "--db=" + db], capture_output=True,
                         text=True)
    if out.returncode != 0:
        return []
    return [json.loads(line) for line in out.stdout.splitlines() if line]


env = dict(os.environ, TILETUNE_MPI_TEST_KILL_AFTER=str(kill_after))
start = time.time()
run = subprocess.run(shlex.split(mpirun) + ["-n", "2", tool] + common +
                     ["--distributed=mpi"], env=env, capture_output=True,
                     text=True)
print("mpirun exit code is non-zero: %s" % (run.returncode != 0))
# (mpirun exits with 137 itself when a rank was killed with SIGKILL: the
# time tells a hang, which %mpirun's limit would end after 90 s.)
print("no hang: %s" % (time.time() - start < 60))
err = run.stderr
print("rank 0 says: %s" % ("every result received is in the database"
                           in err))
print("mpirun names the dead rank: %s" % ("rank 1" in err))
before = records()
print("recorded before the kill: %d" % len(before))
print("nothing lost: %s" % (len(before) >= kill_after))

rc = subprocess.run([tool] + common + ["--resume", "--quiet"],
                    stdout=subprocess.DEVNULL).returncode
print("resume exit code: %d" % rc)
after = records()
trial_ids = sorted(r["trial"] for r in after)
searched = [r for r in after if r["role"] in ("default", "search")]
keys = [r["config_key"] for r in searched]
print("runs: %d" % len({r["run"] for r in after}))
print("trial indices contiguous: %s" % (trial_ids == list(range(len(after)))))
print("measured (default+search): %d of budget %d" % (len(searched), trials))
print("distinct configs: %s" % (len(set(keys)) == len(keys)))
ident = lambda r: (r["trial"], r["role"], r["config_key"], r["status"])
print("records before the kill kept: %s" % (
    {ident(b) for b in before} <= {ident(a) for a in after}))
if "every result received" not in err:
    sys.stderr.write(err)
