"""The public benchmark histories of scripts/noise-real and scripts/trend-real,
read from a clone or a bare snapshot with `git show` (nothing is copied into
this repository), as runs: each a name, a commit and its values, keyed
(benchmark, params, env), lower is better.

Each loader returns (runs, changed, documented): the runs in their order,
per run the paths its pair changed (pvlib only: False when none of the
measured code changed; None when not known) and the documented slowdowns
by commit (sha -> (reference, benchmark)).
"""

import collections
import csv
import itertools
import json
import math
import pathlib
import statistics
import subprocess
import sys

MEASURED = ("pvlib/", "benchmarks/", "setup.py", "setup.cfg", "pyproject.toml", "requirements")
# What each of pvlib's benchmark modules measures (read from its imports,
# widely): a change elsewhere cannot slow it.
USES = {
    "detect_clearsky": {"clearsky"},
    "irradiance": {"irradiance", "solarposition", "spa", "atmosphere", "clearsky", "location"},
    "location": {"location", "solarposition", "spa", "clearsky", "atmosphere", "irradiance"},
    "solarposition": {"solarposition", "spa", "location"},
    "solarposition_numba": {"solarposition", "spa", "location"},
    "temperature": {"temperature"},
    "tracking": {"tracking", "irradiance", "solarposition", "spa"},
    "scaling": {"scaling"},
    "infinite_sheds": {"bifacial", "irradiance", "shading", "iam", "solarposition"},
}
SHARED = ("pvlib/__init__.py", "pvlib/tools.py", "pvlib/_deprecation.py", "setup.py", "setup.cfg",
          "pyproject.toml", "requirements", "benchmarks/asv.conf.json", "benchmarks/benchmarks/__init__.py")


def affects(paths, benchmark):
    """Whether changed `paths` can slow pvlib's `benchmark` (module.Class.method)."""
    module = benchmark.split(".", 1)[0]
    uses = USES.get(module)
    for path in paths:
        if path.startswith("pvlib/tests/") or not path.startswith(MEASURED):
            continue
        if uses is None or path.startswith(SHARED) or path == f"benchmarks/benchmarks/{module}.py":
            return True
        stem = path.removeprefix("pvlib/").split("/", 1)[0].removesuffix(".py")
        if stem in uses:
            return True
    return False


def git(repo, *args):
    """git's output, or an exit naming the command and what git said (a
    snapshot of another repository lacks the folders a loader reads)."""
    done = subprocess.run(["git", "--git-dir", str(repo), *args], capture_output=True)
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip().splitlines()
        sys.exit(f"{pathlib.Path(sys.argv[0]).name}: git {' '.join(args)} in {repo} failed: "
                 f"{said[0] if said else 'exit ' + str(done.returncode)}; "
                 "is it a clone or snapshot of the repository this dataset names?")
    return done.stdout


def git_dir(path):
    """The git directory of a clone or a bare snapshot, or an exit saying
    that PATH is neither."""
    p = pathlib.Path(path)
    d = p / ".git" if (p / ".git").exists() else p
    if subprocess.run(["git", "--git-dir", str(d), "rev-parse", "--git-dir"],
                      capture_output=True).returncode != 0:
        sys.exit(f"{pathlib.Path(sys.argv[0]).name}: {path} is not a git clone or snapshot")
    return d


def show_json(repo, rev, path):
    return json.loads(git(repo, "show", f"{rev}:{path}"))


def finite(v):
    return isinstance(v, (int, float)) and math.isfinite(v) and v > 0


class Run:
    def __init__(self, name, sha, values):
        self.name, self.sha, self.values = name, sha, values


def asv_rows(data, env):
    """(benchmark, params, env) -> seconds, from asv's v1 or v2 results."""
    out = {}
    columns = data.get("result_columns")
    for name, entry in data.get("results", {}).items():
        if columns:
            entry = dict(zip(columns, entry))
        if isinstance(entry, dict):
            result, params = entry.get("result"), entry.get("params") or []
        else:
            result, params = entry, []
        if not isinstance(result, list):
            result = [result]
        combos = list(itertools.product(*params)) if params else [()]
        for combo, value in zip(combos, result):
            if finite(value):
                key = (name, ";".join(str(c) for c in combo).replace(",", " "), env)
                out[key] = float(value)
    return out


def load_pvlib(results, code):
    folder = "results/pvlib-asv.forecasting.energy.arizona.edu"
    names = git(results, "ls-tree", "--name-only", f"HEAD:{folder}").decode().split()
    wanted = {
        "conda-py3.6-ephem3.7.6.0-numba0.36.1-numpy1.12.0-pandas0.22.0-pytables3.6.1-scipy1.2.0": "py3.6",
        "conda-py3.8-ephem-numba-numpy-pandas-pytables-scipy": "py3.8",
    }
    by_commit = {}
    for name in names:
        short, _, env = name.removesuffix(".json").partition("-")
        if env not in wanted:
            continue
        data = show_json(results, "HEAD", f"{folder}/{name}")
        run = by_commit.setdefault(data["commit_hash"], Run(short, data["commit_hash"], {}))
        run.date = data["date"]
        run.values.update(asv_rows(data, wanted[env]))
    # Runs in the order of pvlib's first-parent history.
    order = git(code, "rev-list", "--first-parent", "--reverse", "HEAD").decode().split()
    rank = {sha: i for i, sha in enumerate(order)}
    runs = sorted((r for r in by_commit.values() if r.sha in rank), key=lambda r: rank[r.sha])

    def measured(a, b):
        paths = [p for p in git(code, "diff", "--no-renames", "--name-only", a.sha, b.sha)
                 .decode().split("\n") if p]
        if not any(p.startswith(MEASURED) and not p.startswith("pvlib/tests/") for p in paths):
            return False
        return paths

    changed = [None] + [measured(a, b) for a, b in zip(runs, runs[1:])]
    documented = {}
    for ref, bench in (("#1074", "time_detect_clearsky"), ("#1191", "time_aoi")):
        sha = git(code, "log", "--format=%H", f"--grep=({ref})", "-F", "HEAD").decode().split()
        if sha:
            documented[sha[0]] = (ref, bench)
    return runs, changed, documented


def asv_files(results, rev, folder):
    """The result files of one machine's folder (not its machine.json)."""
    names = git(results, "ls-tree", "--name-only", f"{rev}:{folder}").decode().split()
    return [n for n in names if n.endswith(".json") and n != "machine.json"]


def load_asv_folder(results, rev, folder, names):
    """The asv result files `names` of one machine's folder, as runs in
    commit-date order, unlabelled by code."""
    runs = []
    for name in names:
        data = show_json(results, rev, f"{folder}/{name}")
        run = Run(name[:8], data.get("commit_hash", name), asv_rows(data, data.get("env_name", "")))
        run.date = data.get("date", 0)
        runs.append(run)
    runs.sort(key=lambda r: r.date)
    return runs, [None] * len(runs), {}


def load_asv_runner(results, branch):
    folder = "data/results/asvrunner"
    return load_asv_folder(results, branch, folder, asv_files(results, branch, folder))


# The asv benchmark kinds whose values are lower-is-better.
LOWER = ("time_", "mem_", "peakmem_")


def load_asv(results, folder, env):
    # asv names a result file <commit, 8 digits>-<environment>.json.
    names = [n for n in asv_files(results, "HEAD", folder) if n[8:9] == "-"]
    if not env:
        envs = collections.Counter(n[9:-5] for n in names)
        if not envs:
            sys.exit(f"no asv result files in {folder}")
        env = envs.most_common(1)[0][0]
    names = [n for n in names if n[9:-5] == env]
    runs, changed, documented = load_asv_folder(results, "HEAD", folder, names)
    # Timings and memory, lower is better, as asv-runner's rows are: asv's
    # track_ benchmarks are any number (function evaluations, a score).
    for run in runs:
        run.values = {k: v for k, v in run.values.items() if k[0].rsplit(".", 1)[-1].startswith(LOWER)}
    return runs, changed, documented


def load_pyperf(results, machine):
    names = git(results, "ls-tree", "-r", "--name-only", "HEAD:results").decode().split("\n")
    runs = []
    for name in names:
        folder, _, file = name.partition("/")
        if len(folder.split("-")) != 4 or not file.startswith(f"bm-") or f"-{machine}-python-" not in file:
            continue
        if not file.endswith(".json") or "pystats" in file or "-vs-" in file:
            continue
        # Main's own line: an alpha version (3.13.0a6+, 3.14.0a0); betas,
        # release candidates and releases were built from release branches.
        version = folder.split("-")[2]
        if "a" not in version:
            continue
        data = show_json(results, "HEAD", f"results/{name}")
        meta = data.get("metadata", {})
        values = {}
        for bench in data.get("benchmarks", []):
            bench_name = bench.get("metadata", {}).get("name") or meta.get("name")
            samples = [v for r in bench.get("runs", []) for v in r.get("values", []) if finite(v)]
            if bench_name and samples:
                values[(bench_name, "", machine)] = statistics.fmean(samples)
        run = Run(meta.get("commit_id", "")[:8], meta.get("commit_id", ""), values)
        run.date = meta.get("commit_date", "")
        runs.append(run)
    runs.sort(key=lambda r: r.date)
    # The documented one: telco 20 times slower (and fixed a few runs later).
    documented = {}
    telco = ("telco", "", machine)
    for a, b in zip(runs, runs[1:]):
        if telco in a.values and telco in b.values and b.values[telco] > 10 * a.values[telco]:
            documented[b.sha] = ("telco x20", "telco")
    return runs, [None] * len(runs), documented


def load_gab(results, branch, path):
    """A github-action-benchmark history (the `data.js` its gh-pages branch
    keeps: one entry per run of each suite, in the order they ran). Rows
    are keyed (benchmark, "", suite); a higher-is-better value (pytest's
    iter/sec, customBiggerIsBetter) becomes its inverse, so that every row
    is lower-is-better, as CONFIG says (a ratio inverted is the same step)."""
    text = git(results, "show", f"{branch}:{path}").decode()
    start = text.find("{")
    if start < 0:
        sys.exit(f"{path} in {results} holds no BENCHMARK_DATA object")
    data = json.loads(text[start:].rstrip().rstrip(";"))
    by_commit = {}
    for suite, entries in data.get("entries", {}).items():
        for entry in entries:
            sha = entry.get("commit", {}).get("id", "")
            higher = entry.get("tool") in ("pytest", "customBiggerIsBetter", "benchmarkjs")
            key = (sha, entry.get("date", 0) // 3_600_000)  # a run: one commit, one hour
            run = by_commit.setdefault(key, Run(sha[:8], sha, {}))
            run.date = min(getattr(run, "date", entry.get("date", 0)), entry.get("date", 0))
            for bench in entry.get("benches", []):
                value = bench.get("value")
                if finite(value):
                    run.values[(bench.get("name", ""), "", suite)] = 1.0 / value if higher else float(value)
    runs = sorted(by_commit.values(), key=lambda r: r.date)
    return runs, [None] * len(runs), {}


# The project's config for the CSVs `write` makes: key columns benchmark,
# params and env; one metric, seconds, lower is better.
CONFIG = ('keys = ["benchmark", "params", "env"]\n\n[[metrics]]\ncolumn = "seconds"\n'
          'unit = "s"\ndirection = "lower"\n')


def write(path, rows):
    """One run's values as the project's CSV (see CONFIG)."""
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["benchmark", "params", "env", "seconds"])
        for (b, p, e), v in sorted(rows.items()):
            w.writerow([b, p, e, repr(v)])
