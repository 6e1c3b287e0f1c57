#!/usr/bin/env python3
"""Writes a synthetic Spark event log (JSON lines, the shape Spark 3.x writes) for planlint's
fixtures and benchmarks. Every number is chosen here, so tests know what the diagnosis must say.

  gen_eventlog.py OUT --stages 3 --tasks 200 [--skew-stage 1] [--spill-stage 2] [--gc-stage 0] ...
  gen_eventlog.py big.log --stages 100 --tasks 4000 --pad 2000      # about 1 GB for the benchmark
"""
import argparse
import json
import sys

p = argparse.ArgumentParser()
p.add_argument("out")
p.add_argument("--stages", type=int, default=3)
p.add_argument("--tasks", type=int, default=200)
p.add_argument("--task-ms", type=int, default=2000, help="median task duration")
p.add_argument("--cores", type=int, default=16, help="total cores (2 executors)")
p.add_argument("--skew-stage", type=int, action="append", default=[])
p.add_argument("--spill-stage", type=int, action="append", default=[])
p.add_argument("--gc-stage", type=int, action="append", default=[])
p.add_argument("--fail-stage", type=int, action="append", default=[])
p.add_argument("--cancel-stage", type=int, action="append", default=[],
               help="the stage's job group is cancelled: its tasks are killed, nothing fails")
p.add_argument("--retried-stage", type=int, action="append", default=[],
               help="a tenth of its tasks fail once with a Python exception; their retries pass and the stage ends well")
p.add_argument("--fail-host", default="", help="with --fail-stage: every failed task ran on this host")
p.add_argument("--input-skew-stage", type=int, action="append", default=[],
               help="its task 0 reads 20x the input records (one large unsplittable file)")
p.add_argument("--straggler-stage", type=int, action="append", default=[],
               help="its task 0 runs 20x longer reading what the others read, mostly off CPU, on host-2")
p.add_argument("--speculate", action="store_true",
               help="with --straggler-stage: a speculative copy of the slow task, killed when the original ends")
p.add_argument("--same-name", action="store_true", help="every stage has one call site (a streaming job's batches)")
p.add_argument("--aqe-read", action="store_true", help="stages read their shuffle through AQEShuffleRead")
p.add_argument("--shuffle-gb", type=float, default=0.0, help="shuffle read of every stage after the first")
p.add_argument("--gap-ms", type=int, default=0, help="driver time between jobs")
p.add_argument("--malformed", type=int, default=0, help="line numbers to break, counted from 1")
p.add_argument("--truncate", action="store_true", help="cut the last line in half, as an in-progress log")
p.add_argument("--pad", type=int, default=0, help="Accumulables entries per TaskEnd (makes lines longer)")
p.add_argument("--sql-plan", default="", help="a physical plan for the one SQL execution")
p.add_argument("--smj-bytes", default="", help="LEFT,RIGHT: a sort-merge join whose sides' exchanges wrote these bytes")
p.add_argument("--smj-over-aggregates", action="store_true",
               help="with --smj-bytes: each side's exchange is an aggregate's shuffle under the join")
p.add_argument("--broadcast-bytes", type=int, default=0, help="a broadcast exchange that collected this many bytes")
p.add_argument("--spark2", action="store_true", help="Spark 2.x metric names (data size total (min, med, max))")
p.add_argument("--conf", action="append", default=[], help="KEY=VALUE Spark property")
a = p.parse_args()

out = open(a.out, "w", buffering=1 << 20) if a.out != "-" else sys.stdout
lines = []
n = 0


def emit(event):
    global n
    n += 1
    text = json.dumps(event, separators=(",", ":"))
    if n == a.malformed:
        text = text.replace(",", ",_", 1)
    out.write(text + "\n")


props = {"spark.master": "yarn", "spark.app.id": "app-synthetic", "spark.sql.adaptive.enabled": "true"}
props.update(dict(kv.split("=", 1) for kv in a.conf))
t = 1_700_000_000_000
emit({"Event": "SparkListenerLogStart", "Spark Version": "3.5.1"})
emit({"Event": "SparkListenerEnvironmentUpdate", "JVM Information": {}, "Spark Properties": props,
      "System Properties": {}, "Classpath Entries": {}})
emit({"Event": "SparkListenerApplicationStart", "App Name": "synthetic", "App ID": "app-synthetic",
      "Timestamp": t, "User": "planlint"})
per = a.cores // 2
for e in (1, 2):
    emit({"Event": "SparkListenerExecutorAdded", "Timestamp": t + 1, "Executor ID": str(e),
          "Executor Info": {"Host": f"host-{e}", "Total Cores": per, "Log Urls": {}}})


def node(name, simple, children=(), size_id=None):
    metrics = [{"name": "number of output rows", "accumulatorId": 8000, "metricType": "sum"}]
    if size_id is not None:
        metrics.append({"name": "data size total (min, med, max)" if a.spark2 else "data size",
                        "accumulatorId": size_id, "metricType": "size"})
    return {"nodeName": name, "simpleString": simple, "children": list(children), "metadata": {}, "metrics": metrics}


info_root = node("Range", "Range (0, 10)")


def agg(children):  # the side as an aggregate over its own shuffle, when asked
    return [node("HashAggregate", "HashAggregate(keys=[k], functions=[count(1)])", children)] \
        if a.smj_over_aggregates else children
if a.smj_bytes:
    info_root = node("WholeStageCodegen (3)", "WholeStageCodegen (3)", [
        node("SortMergeJoin", "SortMergeJoin [k#1], [k#2], Inner", [
            node("Sort", "Sort [k#1 ASC]", [node("InputAdapter", "InputAdapter", agg([
                node("Exchange", "Exchange hashpartitioning(k#1, 200)", [info_root], size_id=9001)]))]),
            node("Sort", "Sort [k#2 ASC]", [node("InputAdapter", "InputAdapter", agg([
                node("Exchange", "Exchange hashpartitioning(k#2, 200)", [node("Range", "Range (0, 5)")],
                     size_id=9002)]))])])])
if a.broadcast_bytes:
    info_root = node("BroadcastHashJoin", "BroadcastHashJoin [k#1], [k#2], Inner, BuildRight", [
        info_root, node("BroadcastExchange", "BroadcastExchange HashedRelationBroadcastMode", [node("Range", "Range")],
                        size_id=9003)])
sql = bool(a.sql_plan or a.smj_bytes or a.broadcast_bytes)
if sql:
    plan_text = open(a.sql_plan).read() if a.sql_plan else "== Physical Plan ==\n*(1) Range (0, 10, step=1, splits=1)\n"
    emit({"Event": "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart", "executionId": 0,
          "description": "synthetic query", "details": "", "physicalPlanDescription": plan_text,
          "sparkPlanInfo": info_root, "time": t + 5})
if a.broadcast_bytes:
    emit({"Event": "org.apache.spark.sql.execution.ui.SparkListenerDriverAccumUpdates", "executionId": 0,
          "accumUpdates": [[9003, a.broadcast_bytes]]})
smj = [int(x) for x in a.smj_bytes.split(",")] if a.smj_bytes else []
pad = [{"ID": i, "Name": f"internal.metrics.m{i}", "Update": i, "Value": i, "Internal": True,
        "Count Failed Values": True} for i in range(a.pad)]
now = t + 10
task_id = 0
for s in range(a.stages):
    name = f"collect at /jobs/etl.py:{40 + (0 if a.same_name else s)}"
    info = {"Stage ID": s, "Stage Attempt ID": 0, "Stage Name": name, "Number of Tasks": a.tasks,
            "RDD Info": [{"RDD ID": s, "Name": "MapPartitionsRDD", "Scope": "{\"id\":\"1\",\"name\":\"%s\"}" % (
                              "AQEShuffleRead" if a.aqe_read else "Exchange"),
                          "Callsite": name, "Parent IDs": []}],
            "Parent IDs": [], "Details": "synthetic", "Submission Time": now, "Accumulables": []}
    props = {"spark.sql.execution.id": "0"} if sql else {}
    emit({"Event": "SparkListenerJobStart", "Job ID": s, "Submission Time": now, "Stage Infos": [info],
          "Stage IDs": [s], "Properties": props})
    emit({"Event": "SparkListenerStageSubmitted", "Stage Info": info, "Properties": props})
    slot_free = [now] * a.cores
    shuffle = int(a.shuffle_gb * (1 << 30) / a.tasks) if s > 0 else 0
    for i in range(a.tasks):
        dur = a.task_ms + (i % 7) * 10
        records, shuffle_records, cpu_ms = 100, 1000, dur - 20
        skewed = s in a.skew_stage and i == 0
        straggler = s in a.straggler_stage and i == 0
        if skewed:  # a hot key: the task reads 20 times the shuffled rows and works through them
            dur, shuffle_records, cpu_ms = a.task_ms * 20, 20000, a.task_ms * 20 - 20
        if s in a.input_skew_stage and i == 0:  # one big file for one task
            dur, records, cpu_ms = a.task_ms * 20, 2000, a.task_ms * 20 - 20
        if straggler:  # a slow node: the same rows, the time spent waiting
            dur, cpu_ms = a.task_ms * 20, a.task_ms - 20
        failed = (s in a.fail_stage or s in a.retried_stage) and i % 10 == 0
        cancelled = s in a.cancel_stage and i % 10 == 0
        slot = min(range(a.cores), key=lambda c: slot_free[c])
        if straggler:
            slot = 1  # host-2
        launch = slot_free[slot]
        finish = launch + dur
        slot_free[slot] = finish
        gc = dur // 4 if s in a.gc_stage else dur // 100
        spill = 3 * shuffle if s in a.spill_stage else 0
        accums = list(pad)
        if smj and s < 2:
            accums.append({"ID": 9001 + s, "Name": "data size", "Update": str(smj[s] // a.tasks), "Value": "0",
                           "Internal": False, "Count Failed Values": True})
        reason = {"Reason": "ExceptionFailure", "Class Name": "java.lang.OutOfMemoryError",
                  "Description": "Java heap space"} if failed else {"Reason": "Success"}
        if failed and s in a.retried_stage:
            reason = {"Reason": "ExceptionFailure", "Class Name": "org.apache.spark.api.python.PythonException",
                      "Description": "Traceback (most recent call last):\n  File \"etl.py\", line 9, in f\n"
                                     "ConnectionResetError: [Errno 104] Connection reset by peer\n"}
        if cancelled:
            reason = {"Reason": "TaskKilled", "Kill Reason": "Stage cancelled: Job 1 cancelled part of cancelled job group nb-7"}
        host = 1 + slot % 2
        if failed and a.fail_host:
            host = int(a.fail_host.split("-")[1])
        emit({"Event": "SparkListenerTaskEnd", "Stage ID": s, "Stage Attempt ID": 0, "Task Type": "ResultTask",
              "Task End Reason": reason,
              "Task Info": {"Task ID": task_id, "Index": i, "Attempt": 0, "Partition ID": i, "Launch Time": launch,
                            "Executor ID": str(host), "Host": f"host-{host}", "Locality": "PROCESS_LOCAL",
                            "Speculative": False, "Getting Result Time": 0, "Finish Time": finish, "Failed": failed,
                            "Killed": cancelled, "Accumulables": accums},
              "Task Metrics": {"Executor Deserialize Time": 5, "Executor Deserialize CPU Time": 1000,
                               "Executor Run Time": dur - 10, "Executor CPU Time": cpu_ms * 1_000_000,
                               "Peak Execution Memory": 1 << 20, "Result Size": 100, "JVM GC Time": gc,
                               "Result Serialization Time": 0, "Memory Bytes Spilled": spill * 2,
                               "Disk Bytes Spilled": spill,
                               "Shuffle Read Metrics": {"Remote Blocks Fetched": 1, "Local Blocks Fetched": 1,
                                                        "Fetch Wait Time": 0, "Remote Bytes Read": shuffle // 2,
                                                        "Remote Bytes Read To Disk": 0,
                                                        "Local Bytes Read": shuffle - shuffle // 2,
                                                        "Total Records Read": shuffle_records},
                               "Shuffle Write Metrics": {"Shuffle Bytes Written": 1000, "Shuffle Write Time": 1,
                                                         "Shuffle Records Written": 10},
                               "Input Metrics": {"Bytes Read": (1 << 20) * records // 100, "Records Read": records},
                               "Output Metrics": {"Bytes Written": 0, "Records Written": 0},
                               "Updated Blocks": []}})
        task_id += 1
        if straggler and a.speculate:  # the copy started late on host-1 and lost the race
            emit({"Event": "SparkListenerTaskEnd", "Stage ID": s, "Stage Attempt ID": 0, "Task Type": "ResultTask",
                  "Task End Reason": {"Reason": "TaskKilled", "Kill Reason": "another attempt succeeded",
                                      "Accumulator Updates": []},
                  "Task Info": {"Task ID": task_id, "Index": i, "Attempt": 1, "Partition ID": i,
                                "Launch Time": finish - dur // 2, "Executor ID": "1", "Host": "host-1",
                                "Locality": "PROCESS_LOCAL", "Speculative": True, "Getting Result Time": 0,
                                "Finish Time": finish, "Failed": False, "Killed": True, "Accumulables": []},
                  "Task Metrics": {"Executor Run Time": dur // 2, "Executor CPU Time": 1_000_000,
                                   "JVM GC Time": 0, "Input Metrics": {"Bytes Read": 1 << 19, "Records Read": 50}}})
            task_id += 1
    end = max(slot_free)
    done = dict(info, **{"Completion Time": end})
    if s in a.fail_stage:
        done["Failure Reason"] = "Job aborted due to stage failure: java.lang.OutOfMemoryError"
    if s in a.cancel_stage:
        done["Failure Reason"] = "Job 1 cancelled part of cancelled job group nb-7"
    emit({"Event": "SparkListenerStageCompleted", "Stage Info": done})
    emit({"Event": "SparkListenerJobEnd", "Job ID": s, "Completion Time": end,
          "Job Result": {"Result": "JobFailed" if s in a.fail_stage else "JobSucceeded"}})
    now = end + a.gap_ms
if sql:
    emit({"Event": "org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionEnd", "executionId": 0, "time": now})
if a.truncate:
    out.write('{"Event":"SparkListenerTaskEnd","Stage ID":0,"Task Info":{"Launch')
else:
    emit({"Event": "SparkListenerApplicationEnd", "Timestamp": now + 100})
out.close()
