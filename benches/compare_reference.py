#!/usr/bin/env python3
"""The comparison `baseline-resolver compare --format text` makes, written
the way ROCm/FlyDSL's compare_benchmark.py is: Python's csv
module, a dict of rows per file, one print() per row. A reference for the
benchmark only (BENCHMARKS.md, section 7), not used by the action: the same
key, metric and validity rules and the same dashboard lines.

usage: compare_reference.py CURRENT.csv BASELINE.csv [LABEL]
"""
import csv
import math
import sys

FAIL, WARN = 0.10, 0.03
METRICS = (("tflops", "TFLOPS"), ("tbps", "TB/s"))


def load(path):
    rows = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            key = (row["op"].strip(), row["shape"].strip(), row["dtype"].strip())
            if key in rows:
                sys.exit(f"{path}: duplicate key {key}")
            rows[key] = row
    return rows


def value(row, column):
    if row is None or (row.get("status") or "ok").strip() != "ok":
        return None
    try:
        v = float((row.get(column) or "").strip())
    except ValueError:
        return None
    return v if math.isfinite(v) and v > 0 else None


def headline(row):
    """The first metric that holds a number, when it is valid."""
    if row is None or (row.get("status") or "ok").strip() != "ok":
        return None
    for column, unit in METRICS:
        try:
            v = float((row.get(column) or "").strip())
        except ValueError:
            continue
        return (column, unit, v) if math.isfinite(v) and v > 0 else None
    return None


def main():
    current, baseline = load(sys.argv[1]), load(sys.argv[2])
    label = sys.argv[3] if len(sys.argv) > 3 else "main"
    counts = {}
    print(f"=== Benchmark: current vs {label} ===")
    for key in list(baseline) + [k for k in current if k not in baseline]:
        base = headline(baseline.get(key))
        if key not in baseline:
            cls = "new" if headline(current.get(key)) else "not-comparable"
        elif base is None:
            cls = "not-comparable"
        else:
            column, unit, b = base
            c = value(current.get(key), column)
            if c is None:
                cls = "lost"
            else:
                change = c / b - 1
                cls = ("regressed" if change < -FAIL else "warned" if change < -WARN
                       else "improved" if change > FAIL else "unchanged")
                op, shape, dtype = key
                print(f"  {op:>18} {shape:>34} {dtype:>8}  {label}={b:9.3f} {unit:<6}  current={c:9.3f} {unit:<6}"
                      f"  ratio={c / b:6.3f}x  delta={c - b:+9.3f} ({change * 100:+6.1f}%)")
        counts[cls] = counts.get(cls, 0) + 1
    failing = counts.get("regressed", 0) + counts.get("lost", 0)
    print(f"compare: {'REGRESSION' if failing else 'PASS'} against {label}: {counts}")
    return 4 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
