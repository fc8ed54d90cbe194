"""Kill -9 a tuning run after some recorded measurements, resume it, and
check from the JSON Lines export that nothing was lost or measured twice.

usage: kill_and_resume.py <tiletune> <input.mlir> <db> <trials> <kill-after>
"""
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

# Samples of at least 20 ms make each measurement take a tenth of a second or
# more, so the run outlasts the polling below even when the JIT is fast. The
# polling reads the database directly: a `tiletune export` per poll took over
# a second under the sanitizers, long enough for the whole run to finish.
tool, mlir, db, trials, kill_after = sys.argv[1:6]
trials, kill_after = int(trials), int(kill_after)
common = [tool, "tune", mlir, "--db=" + db, "--algorithm=random", "--seed=7",
          "--threads=1", "--repeats=2", "--min-sample-ms=20", "--quiet",
          "--batch=1", "--trials=%d" % trials]


def records():
    out = subprocess.run([tool, "export", "--db=" + db], capture_output=True,
                         text=True)
    if out.returncode != 0:
        return []
    return [json.loads(line) for line in out.stdout.splitlines() if line]


def recorded():
    """Rows in the measurements table, read without the tool (0 until the
    tuner has created the schema)."""
    try:
        con = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=5)
        try:
            return con.execute("SELECT count(*) FROM measurements").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0


def field(rec, *names):
    for n in names:
        if n in rec:
            return rec[n]
        for v in rec.values():
            if isinstance(v, dict) and n in v:
                return v[n]
    return None


proc = subprocess.Popen(common, stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL, start_new_session=True)
deadline = time.time() + 60
seen = 0
while time.time() < deadline and proc.poll() is None:
    if os.path.exists(db):
        seen = recorded()
        if seen >= kill_after:
            break
    time.sleep(0.05)
if proc.poll() is not None:
    print("FAIL: the run ended before it could be killed (%d records)" % seen)
    sys.exit(1)
# Kill the tuner and its worker process group at once.
os.killpg(proc.pid, signal.SIGKILL)
proc.wait()
before = records()
print("killed after %d recorded measurements" % len(before))

rc = subprocess.run(common + ["--resume"], stdout=subprocess.DEVNULL).returncode
if rc != 0:
    print("FAIL: resume exited with %d" % rc)
    sys.exit(1)
after = records()
runs = {field(r, "run_id", "run") for r in after}
print("runs: %d" % len(runs))
trial_ids = sorted(field(r, "trial") for r in after)
roles = [field(r, "role") for r in after]
searched = [r for r, role in zip(after, roles) if role in ("default", "search")]
keys = [field(r, "config_key", "key") for r in searched]
print("trial indices contiguous: %s" % (trial_ids == list(range(len(after)))))
print("measured (default+search): %d of budget %d" % (len(searched), trials))
print("distinct configs: %s" % (len(set(keys)) == len(keys)))
# Everything recorded before the kill is still there, unchanged.
def ident(r):
    return (field(r, "trial"), field(r, "role"), field(r, "config_key"),
            field(r, "status"), field(r, "gflops"))


kept = {ident(b) for b in before} <= {ident(a) for a in after}
print("records before the kill kept: %s" % kept)
