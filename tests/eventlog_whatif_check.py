#!/usr/bin/env python3
"""The what-if simulation checked against the logs themselves.

  eventlog_whatif_check.py PLANLINT LOG_DIR... [--table]

For every event log under the folders whose application ran on more than one executor, the cluster
the log had is simulated (`simulation` in `planlint eventlog --format json`) and compared with the
duration the log measured. Checked: the critical path never exceeds the measured or the simulated
wall time, a simulated size never beats the critical path, more executors never make it slower, and
the simulation of the size as run is within 10 % of the measured duration on at least 90 % of the
logs (the distribution is printed; --table prints every log).
"""
import json
import os
import subprocess
import sys


def main():
    planlint, dirs = sys.argv[1], [a for a in sys.argv[2:] if not a.startswith("--")]
    table = "--table" in sys.argv
    out = subprocess.run([planlint, "eventlog", "--format", "json", "--exit-zero", "-q",
                          "--what-if", "executors=1,2,4,8,16,32,64"] + dirs, capture_output=True, text=True)
    apps = json.loads(out.stdout)["applications"]
    errors, bad = [], []
    for a in apps:
        sim = a.get("simulation")
        if not sim:
            continue
        rows = sim["what_if"]
        for r in rows:
            if r["wall_ms"] < sim["critical_path_ms"]:
                bad.append(f"{a['path']}: {r['executors']} executors simulated {r['wall_ms']} ms, under the critical "
                           f"path {sim['critical_path_ms']} ms")
        walls = [r["wall_ms"] for r in rows if not r["as_run"]]
        if any(b > x for x, b in zip(walls, walls[1:])):
            bad.append(f"{a['path']}: more executors made it slower: {walls}")
        if sim["critical_path_ms"] > sim["measured_ms"]:
            bad.append(f"{a['path']}: critical path {sim['critical_path_ms']} ms over the measured {sim['measured_ms']} ms")
        if sim["executors"] <= 1 or sim["measured_ms"] <= 0:
            continue
        err = (sim["simulated_ms"] - sim["measured_ms"]) / sim["measured_ms"]
        errors.append((err, a["path"], sim))
    for line in bad:
        print("FAIL", line)
    errors.sort()
    if table:
        for err, path, sim in errors:
            print(f"{err * 100:+7.1f} %  measured {sim['measured_ms']:>9} ms  simulated {sim['simulated_ms']:>9} ms  "
                  f"critical {sim['critical_path_ms']:>9} ms  {sim['executors']} x {sim['cores_per_executor']} cores  {path}")
    n = len(errors)
    if n == 0:
        print("no log ran on more than one executor")
        return 1
    within = sum(1 for e, _, _ in errors if abs(e) <= 0.10)
    absolute = sorted(abs(e) for e, _, _ in errors)
    print(f"{n} logs on more than one executor: simulated within 10 % of measured on {within} ({100 * within / n:.0f} %); "
          f"error median {absolute[n // 2] * 100:.1f} %, p90 {absolute[min(n - 1, int(0.9 * n))] * 100:.1f} %, "
          f"max {absolute[-1] * 100:.1f} %; signed min {errors[0][0] * 100:+.1f} %, max {errors[-1][0] * 100:+.1f} %")
    return 1 if bad or within < 0.9 * n else 0


if __name__ == "__main__":
    sys.exit(main())
