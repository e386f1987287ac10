#!/usr/bin/env python3
# gen-inputs.py - writes the inputs of the compare golden tests (base/, head/).
# Run from this directory; the outputs are reviewed and committed, like the
# golden reports themselves.
import json, os

HOST = {"arch": "x86_64", "cpu": "Test CPU", "cpus": 2, "exclude_kernel": False,
        "kernel": "6.18.44", "perf_event_paranoid": 2, "pmu": [], "virtualized": True}

def result(name, tc_ms, stacks=None, extra=None):
    r = {"schema": "perfgate/result/1", "name": name, "command": ["bench/" + name],
         "created": "2026-11-29T10:00:00Z", "machine": "default", "host": HOST,
         "counters": "software", "repeat": len(tc_ms), "warmup": 1,
         "metrics": {"task-clock": {"unit": "ns", "values": [round(v * 1e6) for v in tc_ms]},
                     "instructions": {"unit": "count", "status": "not-supported",
                                      "reason": "ENOENT: no PMU"}}}
    if extra:
        r["metrics"].update(extra)
    if stacks is not None:
        r["profile"] = {"event": "cpu-clock", "frequency_hz": 999, "call_graph": "fp",
                        "samples": sum(stacks.values()), "lost": 0, "runs": 1,
                        "stacks": stacks}
    return r

def write(side, r):
    os.makedirs(side, exist_ok=True)
    fn = "".join(c if c.isalnum() or c in "-_" else "_" for c in r["name"]) + ".json"
    with open(os.path.join(side, fn), "w") as f:
        json.dump(r, f, indent=2, sort_keys=True)
        f.write("\n")

evil_fn = "evil|fn<script>alert(1)</script>\n`x` *y* [z](http://e)"
evil_bench = "pipe|<img src=x onerror=alert(1)>`code`*em*"

base_parse = {"parse;main;parse_request;copy_field": 800, "parse;main;parse_request;tokenize": 900,
              "parse;main;write_out": 300}
head_parse = {"parse;main;parse_request;copy_field": 1400, "parse;main;parse_request;tokenize": 900,
              "parse;main;write_out": 300}
base = [
    result("parse", [100.0, 101.0, 99.5, 100.4, 100.9], base_parse,
           {"max-rss": {"unit": "bytes", "values": [4194304, 4194304, 4198400, 4194304, 4194304]}}),
    result(evil_bench, [50.0, 50.2, 49.9, 50.1, 50.3],
           {"x;main;" + evil_fn: 100, "x;main;ok": 900}),
    result("render", [200.0, 201.0, 199.0, 200.5, 202.0]),
    result("noisy", [100.0, 140.0, 95.0, 130.0, 98.0]),
    result("checksum", [80.0, 80.5, 79.8, 80.2, 80.1]),
    result("oldbench", [10.0, 10.1, 10.0, 9.9, 10.2]),
]
head = [
    result("parse", [125.0, 126.2, 124.8, 125.5, 127.0], head_parse,
           {"max-rss": {"unit": "bytes", "values": [4194304, 4194304, 4194304, 4194304, 4194304]}}),
    result(evil_bench, [65.0, 65.3, 64.9, 65.1, 65.6],
           {"x;main;" + evil_fn: 400, "x;main;ok": 900}),
    result("render", [140.0, 141.0, 139.5, 140.2, 140.8]),
    result("noisy", [120.0, 96.0, 150.0, 99.0, 135.0]),
    result("checksum", [80.3, 80.0, 80.4, 79.9, 80.6]),
    result("compress", [30.0, 30.1, 29.9, 30.2, 30.0]),
]
for r in base:
    write("base", r)
for r in head:
    write("head", r)
