#!/usr/bin/env python3
"""The result files other tools read, from real runs of this build.

usage: result_formats_check.py OMPREF SOURCE_DIR

- `ompref check` (every workload) with --device all writes --json, --csv,
  --junit and --benchmark-json: the JSON validates against
  schema/result.schema.json (and the schema refuses a document without
  schema_version, of another version, or with a run missing `valid`); the
  JUnit has one <testsuite> per workload with the build's properties, test
  cases named <workload>.<variant>, and, on a build whose target regions fall
  back to the host, those runs <skipped> (a device was asked for); the
  benchmark file is github-action-benchmark's customSmallerIsBetter list.
- `ompref run stream --variant host_simd,target_simd` (one workload): its CSV
  has the header of `check`'s (every workload), and without --device its
  fallback runs pass in JUnit.
"""
import csv
import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

import jsonschema

OMPREF, SOURCE = sys.argv[1], sys.argv[2]
failures = []


def expect(ok, what):
    if not ok:
        failures.append(what)


def run(*args):
    p = subprocess.run([OMPREF, *args], capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        sys.exit(f"FAIL: ompref {' '.join(args)}: exit {p.returncode}\n{p.stdout}\n{p.stderr}")
    return p


def header(path):
    with open(path, newline="") as f:
        return next(csv.reader(f))


with open(os.path.join(SOURCE, "schema", "result.schema.json")) as f:
    schema = json.load(f)
validator = jsonschema.Draft202012Validator(schema)
jsonschema.Draft202012Validator.check_schema(schema)

with tempfile.TemporaryDirectory() as tmp:
    out = {ext: os.path.join(tmp, "check." + ext) for ext in ("json", "csv", "xml", "bench.json")}
    run("check", "--quiet", "--save", "none", "--device", "all", "--json", out["json"], "--csv", out["csv"],
        "--junit", out["xml"], "--benchmark-json", out["bench.json"])
    with open(out["json"]) as f:
        doc = json.load(f)
    errors = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(doc)]
    expect(not errors, "the result file does not follow schema/result.schema.json:\n  " + "\n  ".join(errors[:10]))
    expect(doc.get("schema_version") == schema["properties"]["schema_version"]["const"],
           f"schema_version {doc.get('schema_version')} is not the schema's")
    # The schema is not vacuous: each of these breaks it.
    broken = {"without schema_version": {k: v for k, v in doc.items() if k != "schema_version"},
              "of another schema_version": dict(doc, schema_version=schema["properties"]["schema_version"]["const"] + 1),
              "with a run missing `valid`": dict(doc, runs=[{k: v for k, v in doc["runs"][0].items() if k != "valid"}]),
              "with a failed run without `failure`": dict(doc, runs=[dict(doc["runs"][0], valid=False)])}
    for what, bad in broken.items():
        expect(not validator.is_valid(bad), f"the schema accepts a document {what}")

    workloads = list(dict.fromkeys(r["workload"] for r in doc["runs"]))
    expect(len(workloads) >= 2, f"check ran {workloads}")
    root = ET.parse(out["xml"]).getroot()
    suites = root.findall("testsuite")
    expect([s.get("name") for s in suites] == workloads,
           f"junit: suites {[s.get('name') for s in suites]}, expected one per workload {workloads}")
    names = []
    for s in suites:
        props = {p.get("name"): p.get("value") for p in s.findall("properties/property")}
        for key in ("compiler", "device", "size"):
            expect(props.get(key), f"junit: suite {s.get('name')} has no property {key}: {props}")
        expect(props.get("compiler") == doc["compiler"], f"junit: compiler {props.get('compiler')} vs {doc['compiler']}")
        for case in s.findall("testcase"):
            names.append(case.get("name"))
            expect(case.get("name").startswith(s.get("name") + "."), f"junit: {case.get('name')} in {s.get('name')}")
    expect(names == [f"{r['workload']}.{r['variant']}" for r in doc["runs"]],
           f"junit: test names {names[:4]}..., expected <workload>.<variant> in the order of the runs")
    fell_back = [f"{r['workload']}.{r['variant']}" for r in doc["runs"] if r["ran_on"] == "host (fallback)"]
    skipped = [c.get("name") for c in root.iter("testcase") if c.find("skipped") is not None]
    expect(skipped == fell_back, f"junit with --device all: skipped {skipped}, expected the fallback runs {fell_back}")
    expect(root.get("skipped") == str(len(fell_back)), f"junit: skipped={root.get('skipped')}")

    with open(out["bench.json"]) as f:
        bench = json.load(f)
    expect(isinstance(bench, list) and len(bench) == sum(r["valid"] for r in doc["runs"]),
           f"benchmark json: {len(bench)} entries for {len(doc['runs'])} runs")
    for entry, r in zip(bench, [r for r in doc["runs"] if r["valid"]]):
        expect(set(entry) >= {"name", "unit", "value"} and entry["unit"] == "s", f"benchmark json entry {entry}")
        expect(entry["name"] == f"{r['workload']}.{r['variant']}" and entry["value"] == r["time_s"]["median"],
               f"benchmark json entry {entry} for {r['workload']} {r['variant']}")

    # One workload: the same CSV columns as every workload's; a fallback passes without --device.
    one = {ext: os.path.join(tmp, "one." + ext) for ext in ("csv", "xml")}
    run("run", "stream", "--size", "tiny", "--variant", "host_simd,target_simd", "--reps", "1", "--no-ceiling",
        "--quiet", "--save", "none", "--csv", one["csv"], "--junit", one["xml"])
    expect(header(one["csv"]) == header(out["csv"]),
           f"CSV header of stream alone ({len(header(one['csv']))} columns) differs from check's "
           f"({len(header(out['csv']))} columns)")
    expect(ET.parse(one["xml"]).getroot().find(".//skipped") is None, "junit without --device: a fallback is skipped")

if failures:
    sys.exit("FAIL: " + "\nFAIL: ".join(failures))
print(f"result formats: schema, CSV columns, JUnit ({len(names)} cases, {len(skipped)} skipped), benchmark json: ok")
