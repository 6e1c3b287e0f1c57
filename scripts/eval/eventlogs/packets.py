#!/usr/bin/env python3
"""Writes the findings of `planlint eventlog --format json` as a packet for labelling.

  packets.py RUN.json PREFIX OUT.tsv [EARLIER.tsv]

Each finding gets an id PREFIX<n>; with EARLIER (a packet already labelled), a finding with the same
log, rule, stage and log line keeps the earlier id (the message's start tells apart findings that
share all four), so its label still applies (a new id needs a new label).
"""
import csv
import json
import sys

run, prefix, out = sys.argv[1:4]
earlier, exact = {}, {}
if len(sys.argv) > 4:
    with open(sys.argv[4], newline="") as f:
        for r in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            key = (r["log"], r["rule"], r["stage"], r["line"])
            earlier.setdefault(key, []).append(r["id"])
            exact[key + (r["message"][:80],)] = r["id"]
n = max([int(i[len(prefix):]) for i in exact.values() if i[len(prefix):].isdigit()] + [0])
with open(out, "w") as o:
    o.write("id\tlog\trule\tseverity\tstage\tline\tmessage\tfix\n")
    for a in json.load(open(run))["applications"]:
        for f in a["findings"]:
            key = (a["path"], f["rule"], str(f["stage"]), str(f["line"]))
            clean = lambda s: s.replace("\t", " ").replace("\n", " ")
            if key + (clean(f["message"])[:80],) in exact:
                fid = exact[key + (clean(f["message"])[:80],)]
            elif len(earlier.get(key, [])) == 1:
                fid = earlier[key][0]
            else:
                n += 1
                fid = f"{prefix}{n}"
            o.write("\t".join([fid, a["path"], f["rule"], f["severity"], str(f["stage"]), str(f["line"]),
                               clean(f["message"]),
                               clean(f["fix"])]) + "\n")
