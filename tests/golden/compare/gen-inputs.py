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


# Field cases (tests/data/cases), carried from their draft layout into
# perfgate/result/1 with five repetitions spread +-0.5% around each value.
def reps(v, n=5):
    return [v * f for f in (1.0, 1.005, 0.995, 1.002, 0.998)][:n]

def res(name, metrics, stacks=None):
    r = {"schema": "perfgate/result/1", "name": name, "machine": "default", "host": HOST,
         "counters": "hardware", "repeat": 5, "warmup": 1, "metrics": metrics}
    if stacks is not None:
        r["profile"] = {"event": "cpu-clock", "samples": sum(stacks.values()), "stacks": stacks}
    return r

def m(unit, v):
    return {"unit": unit, "values": reps(v) if v else [0, 0, 0, 0, 0]}

def case(num, side, results):
    d = os.path.join("cases", num, side)
    for r in results:
        write(d, r)

# 26: zero denominators
case("26", "base", [res("tiny_kernel", {
    "task-clock": m("ns", 0), "cycles": m("count", 0), "instructions": m("count", 1200),
    "branches": m("count", 0), "branch-misses": m("count", 0),
    "LLC-loads": m("count", 0), "LLC-load-misses": m("count", 0)})])
case("26", "head", [res("tiny_kernel", {
    "task-clock": m("ns", 800000), "cycles": m("count", 2400000),
    "instructions": m("count", 3600000), "branches": m("count", 400000),
    "branch-misses": m("count", 4000), "LLC-loads": m("count", 0),
    "LLC-load-misses": m("count", 0), "ipc": m("ratio", 1.5),
    "branch-miss-rate": m("ratio", 0.01)})])

# 32: benchmarks and metrics present on one side only
def b32(tc_ms, ipc, row_share):
    mm = {"task-clock": m("ns", tc_ms * 1e6)}
    if ipc is not None:
        mm["ipc"] = m("ratio", ipc)
    return mm
case("32", "base", [
    res("parse_small", b32(12.0, 2.10, 0.62), {"app;main;parse_row": 620, "app;main;other": 380}),
    res("parse_large", b32(480.0, 1.80, 0.70), {"app;main;parse_row": 700, "app;main;other": 300}),
    res("checksum", b32(95.0, 3.00, 0.91), {"app;main;crc32": 910, "app;main;other": 90})])
case("32", "head", [
    res("parse_small", b32(12.1, 2.08, 0.61), {"app;main;parse_row": 610, "app;main;other": 390}),
    res("parse_large", b32(479.0, None, 0.69), {"app;main;parse_row": 690, "app;main;other": 310}),
    res("compress", b32(210.0, 1.20, 0.80), {"app;main;deflate": 800, "app;main;other": 200})])

# 34: direction of better per metric
def b34(ipc, llc, br, tc_ms):
    return {"ipc": m("ratio", ipc), "LLC-miss-rate": m("ratio", llc),
            "branch-miss-rate": m("ratio", br), "task-clock": m("ns", tc_ms * 1e6)}
case("34", "base", [res("A", b34(2.00, 0.100, 0.010, 100.0)),
                    res("B", b34(2.00, 0.100, 0.010, 100.0))])
case("34", "head", [res("A", b34(1.80, 0.120, 0.0104, 111.0)),
                    res("B", b34(2.60, 0.050, 0.005, 70.0))])
os.makedirs("cases/34", exist_ok=True)
with open("cases/34/perfgate.json", "w") as f:
    f.write("""{
  // case 34: every metric gates, thresholds are relative changes in the bad direction
  "compare": {
    "gate": ["ipc", "LLC-miss-rate", "branch-miss-rate", "task-clock"],
    "metrics": {
      "ipc": {"threshold": "5%"},
      "LLC-miss-rate": {"threshold": "5%"},
      "branch-miss-rate": {"threshold": "5%"},
      "task-clock": {"threshold": "5%"}
    }
  }
}
""")
