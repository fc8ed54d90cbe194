"""Kill -9 a whole-model tuning run after some recorded measurements, resume
it with a new budget, and check from the JSON Lines export that each
problem's run was continued (no new run), that nothing recorded before the
kill was lost and that no config of a run was measured twice.

usage: model_kill_and_resume.py <tiletune> <model.mlir> <db> <kill-after>
"""
import collections
import json
import os
import signal
import subprocess
import sys
import time

tool, mlir, db, kill_after = sys.argv[1:5]
kill_after = int(kill_after)
common = [tool, "tune", mlir, "--db=" + db, "--algorithm=random", "--seed=7",
          "--threads=1", "--repeats=2", "--min-sample-ms=0.1", "--quiet",
          "--batch=2"]


def records():
    out = subprocess.run([tool, "export", "--db=" + db], capture_output=True,
                         text=True)
    if out.returncode != 0:
        return []
    return [json.loads(line) for line in out.stdout.splitlines() if line]


def field(rec, *names):
    for n in names:
        if n in rec:
            return rec[n]
        for v in rec.values():
            if isinstance(v, dict) and n in v:
                return v[n]
    return None


proc = subprocess.Popen(common + ["--time-budget=120s"],
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                        start_new_session=True)
deadline = time.time() + 100
seen = 0
while time.time() < deadline and proc.poll() is None:
    if os.path.exists(db):
        recs = records()
        seen = len(recs)
        # Both problems started (the second's warm-up recorded something).
        if seen >= kill_after and len({field(r, "run_id", "run")
                                       for r in recs}) >= 2:
            break
    time.sleep(0.05)
if proc.poll() is not None:
    print("FAIL: the run ended before it could be killed (%d records)" % seen)
    sys.exit(1)
os.killpg(proc.pid, signal.SIGKILL)
proc.wait()
before = records()
runs_before = {field(r, "run_id", "run") for r in before}
print("killed after >= %d recorded measurements: %s"
      % (kill_after, len(before) >= kill_after))

rc = subprocess.run(common + ["--resume", "--time-budget=6s"],
                    stdout=subprocess.DEVNULL).returncode
if rc != 0:
    print("FAIL: resume exited with %d" % rc)
    sys.exit(1)
after = records()
runs_after = {field(r, "run_id", "run") for r in after}
print("runs before: %d, after: %d" % (len(runs_before), len(runs_after)))
by_run = collections.defaultdict(list)
for r in after:
    if field(r, "role") in ("default", "search"):
        by_run[field(r, "run_id", "run")].append(field(r, "config_key", "key"))
print("distinct configs per run: %s"
      % all(len(set(keys)) == len(keys) for keys in by_run.values()))
print("more measured after the resume: %s" % (len(after) > len(before)))


def ident(r):
    return (field(r, "run_id", "run"), field(r, "trial"), field(r, "role"),
            field(r, "config_key"), field(r, "status"), field(r, "gflops"))


print("records before the kill kept: %s"
      % ({ident(b) for b in before} <= {ident(a) for a in after}))
