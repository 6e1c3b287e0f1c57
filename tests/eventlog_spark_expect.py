#!/usr/bin/env python3
"""planlint's figures against Apache Spark's own: the History Server's REST answers for its test logs.

  eventlog_spark_expect.py PLANLINT SHARED_CORPUS [--verbose]

SHARED_CORPUS holds eventlogs/apache-spark/ (Spark's test event logs) and eventlog-expect-spark/ (the
`*_expectation.json` golden files of Spark's HistoryServerSuite and CASES.txt, the REST path each one
answers). For every stage-list, stage, stage-attempt and task-summary answer about a log planlint can
read, each figure planlint also reports is compared; so are the applications' start, end and duration.

planlint merges a stage's attempts into one row (the History Server gives a row per attempt): a stage
that ran more than once is compared with the sum of its attempts' counts and metrics, the first
submission and the last completion. Differences that follow from a documented definition are listed
in DEFINITIONAL below with the reason and are not failures; any other difference is.
"""
import datetime
import json
import os
import re
import subprocess
import sys

# (file, stage id, figure): why planlint's figure is defined differently. Empty today: every
# comparable figure is equal.
DEFINITIONAL = {}


def rest_cases(cases_txt):
    """(expectation file name, REST path) from HistoryServerSuite's cases table."""
    text = open(cases_txt).read()
    for name, path in re.findall(r'"([^"]+)"\s*->\s*"([^"]+)"', text, flags=re.S):
        yield re.sub(r"[^A-Za-z0-9]", "_", name) + "_expectation.json", path


def epoch_ms(stamp):
    # "2015-02-03T16:43:07.191GMT"
    t = datetime.datetime.strptime(stamp.replace("GMT", ""), "%Y-%m-%dT%H:%M:%S.%f")
    return int(t.replace(tzinfo=datetime.timezone.utc).timestamp() * 1000 + 0.5)


# History Server stage field -> planlint stage field.
STAGE_FIGURES = [
    ("numFailedTasks", "failed_tasks"),
    ("numKilledTasks", "killed_tasks"),
    ("executorRunTime", "executor_run_ms"),
    ("executorCpuTime", "executor_cpu_ns"),
    ("jvmGcTime", "gc_ms"),
    ("inputBytes", "input_bytes"),
    ("inputRecords", "input_records"),
    ("outputBytes", "output_bytes"),
    ("outputRecords", "output_records"),
    ("shuffleReadBytes", "shuffle_read_bytes"),
    ("shuffleReadRecords", "shuffle_read_records"),
    ("shuffleWriteBytes", "shuffle_write_bytes"),
    ("shuffleWriteRecords", "shuffle_write_records"),
    ("memoryBytesSpilled", "memory_spill_bytes"),
    ("diskBytesSpilled", "disk_spill_bytes"),
    ("peakExecutionMemory", "peak_execution_memory_sum_bytes"),
]
QUANTILE_KEYS = {0.0: "min", 0.05: "p05", 0.25: "p25", 0.5: "median", 0.75: "p75", 0.95: "p95", 1.0: "max"}


def main():
    planlint, shared = sys.argv[1], sys.argv[2]
    verbose = "--verbose" in sys.argv
    logs = os.path.join(shared, "eventlogs", "apache-spark", "spark-events")
    expect = os.path.join(shared, "eventlog-expect-spark")
    reports = {}

    def report(app):
        if app not in reports:
            path = os.path.join(logs, app)
            out = subprocess.run([planlint, "eventlog", "--format", "json", "--exit-zero", "-q", path],
                                 capture_output=True, text=True)
            if out.returncode != 0:
                sys.exit(f"planlint eventlog {path} exited {out.returncode}: {out.stderr}")
            reports[app] = json.loads(out.stdout)["applications"][0]
        return reports[app]

    equal, differ, definitional, skipped = 0, [], [], []

    def check(where, figure, want, got):
        nonlocal equal
        if want == got:
            equal += 1
            if verbose:
                print(f"equal   {where} {figure}: {want}")
        elif (where[0], where[1], figure) in DEFINITIONAL:
            definitional.append((where, figure, want, got))
        else:
            differ.append((where, figure, want, got))

    for fname, path in rest_cases(os.path.join(expect, "CASES.txt")):
        file = os.path.join(expect, fname)
        m = re.match(r"applications/([^/?]+)/stages(?:/(\d+)(?:/(\d+))?)?(/taskSummary)?/?(\?.*)?$", path)
        if not m or not os.path.exists(file):
            continue
        app, one_stage, attempt, summary, query = m.groups()
        query = query or ""
        if not os.path.isfile(os.path.join(logs, app)):
            skipped.append((fname, "no single log file for " + app))
            continue
        if query and "status=" not in query and "quantiles=" not in query and "withSummaries" not in query \
                and "details" not in query:
            skipped.append((fname, "query " + query))
            continue
        got = {s["id"]: s for s in report(app)["stages"]}
        data = json.load(open(file))
        if summary or "withSummaries" in query:
            dist = data if summary else data.get("taskMetricsDistributions")
            sid = int(one_stage)
            if sid not in got:
                differ.append(((fname, sid), "stage", "present", "missing"))
                continue
            if got[sid]["attempts"] != 1:
                skipped.append((fname, "stage with several attempts (a summary is per attempt)"))
                continue
            for q, v in zip(dist["quantiles"], dist["duration"]):
                key = QUANTILE_KEYS.get(round(q, 4))
                if key is None:
                    skipped.append((fname, f"quantile {q} (planlint reports {sorted(QUANTILE_KEYS)})"))
                    continue
                check((fname, sid), f"duration q{q}", int(v), got[sid]["task_duration_ms"][key])
            if summary:
                continue
        rows = data if isinstance(data, list) else [data]
        by_stage = {}
        for r in rows:
            by_stage.setdefault(r["stageId"], []).append(r)
        for sid, attempts in by_stage.items():
            if "status=" in query:  # a filtered list: the stages it names must be there
                pass
            if sid not in got:
                differ.append(((fname, sid), "stage", "present", "missing"))
                continue
            g = got[sid]
            if len(attempts) != g["attempts"] and "status=" not in query and not one_stage:
                differ.append(((fname, sid), "attempts", len(attempts), g["attempts"]))
            partial = len(attempts) != g["attempts"]  # an answer about one attempt of several
            if not partial:
                for want_key, got_key in STAGE_FIGURES:
                    check((fname, sid), want_key, sum(a[want_key] for a in attempts), g[got_key])
                done = sum(a["numCompleteTasks"] for a in attempts)
                check((fname, sid), "numCompleteTasks", done, g["tasks"] - g["failed_tasks"] - g["killed_tasks"])
                subs = [epoch_ms(a["submissionTime"]) for a in attempts if "submissionTime" in a]
                if subs:
                    check((fname, sid), "submissionTime", min(subs), g["submission_ms"])
                ends = [epoch_ms(a["completionTime"]) for a in attempts if "completionTime" in a]
                if ends and all(a["status"] != "ACTIVE" for a in attempts):
                    check((fname, sid), "completionTime", max(ends), g["completion_ms"])
            last = max(attempts, key=lambda a: a["attemptId"])
            if last["attemptId"] + 1 == g["attempts"]:
                check((fname, sid), "numTasks", last["numTasks"], g["partitions"])
            check((fname, sid), "name", attempts[0]["name"], g["name"])

    # Applications: start, end, duration of the ones whose log is one file.
    for fname in ("application_list_json_expectation.json",):
        for a in json.load(open(os.path.join(expect, fname))):
            if not os.path.isfile(os.path.join(logs, a["id"])) or len(a["attempts"]) != 1:
                continue
            att = a["attempts"][0]
            got = report(a["id"])
            check((fname, a["id"]), "startTime", epoch_ms(att["startTime"]), got["start_ms"])
            if att.get("completed"):
                check((fname, a["id"]), "endTime", epoch_ms(att["endTime"]), got["end_ms"])
                check((fname, a["id"]), "duration", att["duration"], got["duration_ms"])

    for where, figure, want, got in definitional:
        print(f"definitional {where[0]} {where[1]} {figure}: Spark {want}, planlint {got} "
              f"({DEFINITIONAL[(where[0], where[1], figure)]})")
    for where, figure, want, got in differ:
        print(f"DIFFERENT {where[0]} stage/app {where[1]} {figure}: Spark {want}, planlint {got}")
    if verbose:
        for fname, why in skipped:
            print(f"skipped {fname}: {why}")
    print(f"{equal} of {equal + len(differ) + len(definitional)} figures equal to Spark's; "
          f"{len(definitional)} differ by definition, {len(differ)} differ; {len(skipped)} answers or parts skipped")
    return 1 if differ or equal == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
