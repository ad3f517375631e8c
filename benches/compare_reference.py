#!/usr/bin/env python3
"""The comparison `baseline-resolver compare --format text` makes, written
plainly with Python's csv module, as a reference for the benchmark (not
used by the action): the same key, metric and validity rules, the same
classes over the union of keys, the same dashboard lines and verdict.

usage: compare_reference.py CURRENT.csv BASELINE.csv [LABEL]
"""
import csv
import math
import sys

FAIL, WARN = 0.10, 0.03
METRICS = (("tflops", "TFLOPS"), ("tbps", "TB/s"))


def read(path):
    rows = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            key = (row["op"].strip(), row["shape"].strip(), row["dtype"].strip())
            if key in rows:
                sys.exit(f"{path}: duplicate key {key}")
            rows[key] = measure(row)
    return rows


def measure(row):
    status = (row.get("status") or "ok").strip()
    if status != "ok":
        return None
    for column, unit in METRICS:
        cell = (row.get(column) or "").strip()
        try:
            value = float(cell)
        except ValueError:
            continue
        return (value, unit) if math.isfinite(value) and value > 0 else None
    return None


def main():
    current, baseline = read(sys.argv[1]), read(sys.argv[2])
    label = sys.argv[3] if len(sys.argv) > 3 else "main"
    counts = {}
    lines = [f"=== Benchmark: current vs {label} ==="]
    for key in list(baseline) + [k for k in current if k not in baseline]:
        base, cur = baseline.get(key), current.get(key)
        if key not in baseline:
            cls = "new" if cur else "not comparable"
        elif base is None:
            cls = "not comparable"
        elif cur is None:
            cls = "lost"
        elif base[1] != cur[1]:
            cls = "not comparable"
        else:
            (b, unit), (c, _) = base, cur
            change = c / b - 1
            cls = ("regressed" if change < -FAIL else "warned" if change < -WARN
                   else "improved" if change > FAIL else "unchanged")
            op, shape, dtype = key
            lines.append(
                f"  {op:>18} {shape:>34} {dtype:>8}  {label}={b:9.3f} {unit:<6}  current={c:9.3f} {unit:<6}"
                f"  ratio={c / b:6.3f}x  delta={c - b:+9.3f} ({change * 100:+6.1f}%)")
        counts[cls] = counts.get(cls, 0) + 1
    failing = counts.get("regressed", 0) + counts.get("lost", 0)
    verdict = "regression" if failing else "pass"
    print(f"compare: {verdict.upper()} against {label}: {counts}")
    print("\n".join(lines))
    return 4 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
