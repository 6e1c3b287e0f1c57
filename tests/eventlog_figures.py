#!/usr/bin/env python3
"""Independent check of `planlint eventlog --format json`: recomputes per-stage figures from the raw
event log with Python's json module (attempts merged, durations of successful tasks) and compares.

  eventlog_figures.py PLANLINT LOG...
"""
import json
import subprocess
import sys


def events(path):
    if path.endswith(".zstd"):
        data = subprocess.run(["zstd", "-dc", path], check=True, capture_output=True).stdout
    else:
        data = open(path, "rb").read()
    for line in data.decode("utf-8", "replace").splitlines():
        try:
            yield json.loads(line)
        except ValueError:
            pass


def expected(path):
    st = {}
    for e in events(path):
        if e.get("Event") != "SparkListenerTaskEnd":
            continue
        s = st.setdefault(e["Stage ID"], {"tasks": 0, "durations": [], "input": 0, "shuffle_read": 0,
                                          "shuffle_write": 0, "spill": 0, "gc": 0, "failed": 0})
        s["tasks"] += 1
        info = e.get("Task Info", {})
        ok = e.get("Task End Reason", {}).get("Reason", "Success") == "Success" and not info.get("Failed") \
            and not info.get("Killed")
        if ok:
            s["durations"].append(max(0, info["Finish Time"] - info["Launch Time"]))
        elif e.get("Task End Reason", {}).get("Reason") not in ("TaskKilled", "TaskCommitDenied") \
                and not info.get("Killed"):  # Spark's status listener counts a denied commit as a kill
            s["failed"] += 1
        m = e.get("Task Metrics") or {}
        s["input"] += (m.get("Input Metrics") or {}).get("Bytes Read", 0)
        r = m.get("Shuffle Read Metrics") or {}
        s["shuffle_read"] += r.get("Remote Bytes Read", 0) + r.get("Local Bytes Read", 0)
        s["shuffle_write"] += (m.get("Shuffle Write Metrics") or {}).get("Shuffle Bytes Written", 0)
        s["spill"] += m.get("Disk Bytes Spilled", 0)
        s["gc"] += m.get("JVM GC Time", 0)
    return st


def spark_rank(v, p):
    # The History Server's pick (AppStatusStore.taskSummary): rank min(floor(p * n), n - 1).
    return v[min(int(p * len(v)), len(v) - 1)]


planlint, logs = sys.argv[1], sys.argv[2:]
bad = 0
checked = 0
for log in logs:
    out = subprocess.run([planlint, "eventlog", "--format", "json", "--exit-zero", log], capture_output=True,
                         text=True)
    got = {s["id"]: s for s in json.loads(out.stdout)["applications"][0]["stages"]}
    for sid, want in expected(log).items():
        g = got.get(sid)
        if g is None:
            print(f"FAIL {log}: stage {sid} missing")
            bad += 1
            continue
        d = sorted(want["durations"])
        pairs = [("tasks", want["tasks"], g["tasks"]), ("failed_tasks", want["failed"], g["failed_tasks"]),
                 ("input_bytes", want["input"], g["input_bytes"]),
                 ("shuffle_read_bytes", want["shuffle_read"], g["shuffle_read_bytes"]),
                 ("shuffle_write_bytes", want["shuffle_write"], g["shuffle_write_bytes"]),
                 ("disk_spill_bytes", want["spill"], g["disk_spill_bytes"]), ("gc_ms", want["gc"], g["gc_ms"])]
        if d:
            q = g["task_duration_ms"]
            pairs += [("min", d[0], q["min"]), ("p05", spark_rank(d, 0.05), q["p05"]),
                      ("p25", spark_rank(d, 0.25), q["p25"]), ("median", spark_rank(d, 0.5), q["median"]),
                      ("p75", spark_rank(d, 0.75), q["p75"]), ("p95", spark_rank(d, 0.95), q["p95"]),
                      ("max", d[-1], q["max"])]
        for name, w, h in pairs:
            checked += 1
            if w != h:
                print(f"FAIL {log}: stage {sid} {name}: expected {w}, planlint says {h}")
                bad += 1
print(f"{checked} figures compared, {bad} differ")
sys.exit(1 if bad or checked == 0 else 0)
