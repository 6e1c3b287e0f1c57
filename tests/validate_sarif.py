#!/usr/bin/env python3
"""validate_sarif.py FILE...: checks SARIF logs against the official SARIF 2.1.0 schema (tests/sarif/,
draft 4, with Debian's python3-jsonschema) and the fields GitHub code scanning needs to show an alert
(rule descriptions and help, result messages, rule ids and indices, relative locations with a line).
Exit: 0 all valid, 1 some invalid, 2 an unreadable input, 3 jsonschema is not installed."""
import json
import os
import re
import sys

try:
    import jsonschema
except ImportError:
    print("validate_sarif.py: needs python3-jsonschema (apt-get install python3-jsonschema)", file=sys.stderr)
    sys.exit(3)

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sarif", "sarif-schema-2.1.0.json")


def github_field_errors(log):
    errs = []
    for r, run in enumerate(log.get("runs") or []):
        rules = ((run.get("tool") or {}).get("driver") or {}).get("rules") or []
        ids = {x.get("id") for x in rules}
        for i, rule in enumerate(rules):
            at = f"runs[{r}].tool.driver.rules[{i}] ({rule.get('id')})"
            for k in ("shortDescription", "fullDescription"):
                text = (rule.get(k) or {}).get("text")
                if not text:
                    errs.append(f"{at}: {k}.text missing")
                elif len(text) > 1024:
                    errs.append(f"{at}: {k}.text longer than 1024 characters")
            if not (rule.get("help") or {}).get("text"):
                errs.append(f"{at}: help.text missing")
        for i, res in enumerate(run.get("results") or []):
            at = f"runs[{r}].results[{i}]"
            if not (res.get("message") or {}).get("text"):
                errs.append(f"{at}: message.text missing")
            rid = res.get("ruleId")
            if not rid:
                errs.append(f"{at}: ruleId missing")
            elif rules and rid not in ids:
                errs.append(f"{at}: ruleId {rid} not in tool.driver.rules")
            idx = res.get("ruleIndex")
            if idx is not None and (idx >= len(rules) or rules[idx].get("id") != rid):
                errs.append(f"{at}: ruleIndex {idx} does not point at rule {rid}")
            locs = res.get("locations") or [{}]
            loc = locs[0].get("physicalLocation")
            if not loc:
                errs.append(f"{at}: no physicalLocation")
                continue
            uri = (loc.get("artifactLocation") or {}).get("uri") or ""
            if not uri:
                errs.append(f"{at}: artifactLocation.uri missing")
            if re.match(r"^[a-zA-Z]:|^/", uri):
                errs.append(f'{at}: uri "{uri}" is an absolute path (GitHub wants it relative to the repository)')
            region = loc.get("region") or {}
            start = region.get("startLine")
            if not isinstance(start, int) or start < 1:
                errs.append(f"{at}: region.startLine missing or < 1")
            elif "endLine" in region and region["endLine"] < start:
                errs.append(f"{at}: region.endLine before startLine")
    return errs


def main(paths):
    if not paths:
        print("usage: validate_sarif.py FILE...", file=sys.stderr)
        return 2
    with open(SCHEMA, encoding="utf-8") as f:
        validator = jsonschema.Draft4Validator(json.load(f))
    bad = 0
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                log = json.load(f)
        except (OSError, ValueError) as e:
            print(f"{path}: cannot read or parse JSON: {e}", file=sys.stderr)
            return 2
        errs = [f"official schema: /{'/'.join(map(str, e.absolute_path))} {e.message}"
                for e in validator.iter_errors(log)]
        errs += [f"github fields: {e}" for e in github_field_errors(log)]
        if errs:
            bad += 1
            print(f"{path}: INVALID")
            for e in errs[:50]:
                print(f"  - {e}")
        else:
            print(f"{path}: valid")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
