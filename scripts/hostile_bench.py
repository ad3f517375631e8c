"""Issue 46's attacks on `bench` and `lint --fix`, run by scripts/hostile-check
through dist/launch.sh: a stranger's selection, resolution, harness and
checked-in tree try to pass an option to the harness, block the step, outlive
it, or steer a write outside the workspace. Each says what it must do now."""

import json
import os
import pathlib
import signal
import subprocess
import time


def project(work, name, script):
    """A git repository with run.sh (the harness) at one commit; returns
    (path, sha, git)."""
    repo = work / name
    repo.mkdir()
    git = lambda *a: subprocess.run(["git", "-C", str(repo), *a], check=True,
                                    capture_output=True, text=True).stdout.strip()
    git("init", "-q", "-b", "main")
    (repo / "run.sh").write_text(script)
    git("add", "-A")
    git("-c", "user.name=h", "-c", "user.email=h@x", "commit", "-qm", "base")
    return repo, git("rev-parse", "HEAD"), git


ROWS = 'echo op,shape,dtype,tflops > "$1"; echo gemm,1,bf16,1 >> "$1"\n'


def option_injection(c, work):
    """15: a group and a tag written to reach the harness as options."""
    repo, sha, _ = project(work, "inject", ROWS)
    env = {"GITHUB_WORKSPACE": str(repo), "RUNNER_TEMP": str(work)}
    elsewhere = work / "elsewhere.csv"
    group = json.dumps({"selection": "some", "groups": [f"--output_csv={elsewhere}"]})
    res = json.dumps({"base_sha": sha, "base_available": True})
    code, _, err, _, _ = c.run(["bench", "--resolution", res, "--selection", group, "--command",
                                "bash run.sh {out} {groups}", "--out-dir", str(work / "inject-out")], env)
    tagged = json.dumps({"base_sha": sha, "base_available": True, "tag": "--index-url=http://x",
                         "tag_sha": sha})
    code2, _, err2, _, _ = c.run(["bench", "--resolution", tagged, "--tag", "--command",
                                  "bash run.sh {out} {label}", "--out-dir", str(work / "inject-out")], env)
    ran = (work / "inject-out").exists() or elsewhere.exists()
    c.say(15, "a group and a tag that start with -",
          code == 1 and code2 == 1 and "--output_csv" in err and "--index-url" in err2 and not ran,
          f"group: exit {code}; tag: exit {code2}; {'a side ran' if ran else 'nothing ran'}")


def fifos(c, work):
    """16: a harness that leaves a FIFO at {out}, and a FIFO as the
    downloaded result: neither may block the step."""
    repo, sha, _ = project(work, "fifo", ROWS)
    env = {"GITHUB_WORKSPACE": str(repo), "RUNNER_TEMP": str(work)}
    code, out, _, took, _ = c.run(["bench", "--side", "current", "--command", "mkfifo {out}; exit 0",
                                   "--out-dir", str(work / "fifo-out"), "--format", "json"], env, timeout=60)
    j = json.loads(out or "{}")
    fifo = work / "main-results.csv"
    os.mkfifo(fifo)
    code2, out2, _, took2, _ = c.run(["bench", "--side", "baseline", "--baseline-result", str(fifo),
                                      "--resolution", json.dumps({"base_sha": sha, "base_available": True}),
                                      "--command", "bash run.sh {out}", "--out-dir", str(work / "fifo-out"),
                                      "--format", "json"], env, timeout=60)
    j2 = json.loads(out2 or "{}")
    c.say(16, "a FIFO at {out} and as --baseline-result",
          code == 0 and code2 == 0 and took < 30 and took2 < 30 and j.get("current", {}).get("rows") == 0
          and j2.get("baseline", {}).get("status") == "ok",
          f"{{out}}: exit {code} after {took:.1f} s; downloaded: exit {code2} after {took2:.1f} s, "
          f"baseline {j2.get('baseline', {}).get('status')}")


def left_in(directory):
    """The processes whose working directory is under `directory`."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.readlink(f"/proc/{pid}/cwd").startswith(str(directory)):
                found.append(pid)
        except OSError:
            pass
    return found


STUBBORN = "(trap '' TERM; exec sleep 300) & echo op,shape,dtype,tflops > {out}; echo gemm,1,bf16,1 >> {out}"


def stubborn_group(c, work):
    """17: a harness whose background member ignores TERM, once past its
    timeout and once after it exits: KILL follows TERM, nothing is left."""
    repo, sha, _ = project(work, "stubborn", ROWS)
    env = {"GITHUB_WORKSPACE": str(repo), "RUNNER_TEMP": str(work)}
    code, out, _, took, _ = c.run(["bench", "--side", "current", "--timeout-minutes", "0.03", "--format", "json",
                                   "--command", STUBBORN + "; sleep 300", "--out-dir", str(work / "st-out")],
                                  env, timeout=90)
    left = left_in(repo)
    code2, _, _, took2, _ = c.run(["bench", "--side", "current", "--command", STUBBORN, "--format", "json",
                                   "--out-dir", str(work / "st-out")], env, timeout=90)
    left2 = left_in(repo)
    for pid in left + left2:
        os.kill(int(pid), signal.SIGKILL)
    c.say(17, "a group member that ignores TERM, after a timeout and after an exit",
          code == 0 and code2 == 0 and not left and not left2 and took < 30 and took2 < 30,
          f"timeout: exit {code} after {took:.1f} s, {len(left)} left; "
          f"exit: {code2} after {took2:.1f} s, {len(left2)} left")


def cancellation(c, work):
    """18: the runner cancels the step (SIGINT, then SIGTERM) while the
    baseline's harness runs, with a member that ignores TERM."""
    repo, sha, _ = project(work, "cancel", ROWS)
    started = work / "cancel-started"
    cmd = [str(c.launcher), "bench", "--side", "baseline", "--format", "json",
           "--resolution", json.dumps({"base_sha": sha, "base_available": True}),
           "--command", f"touch {started}; " + STUBBORN + "; sleep 300", "--out-dir", str(work / "cancel-out")]
    env = dict(c.env, GITHUB_WORKSPACE=str(repo), RUNNER_TEMP=str(work))
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    deadline = time.monotonic() + 60
    while not started.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)
    first = time.monotonic()
    p.send_signal(signal.SIGINT)
    time.sleep(1)
    p.send_signal(signal.SIGTERM)
    try:
        out, _ = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        out, _ = p.communicate()
    took = time.monotonic() - first
    trees = [d for d in work.iterdir() if d.name.startswith(".baseline-resolver-baseline-")]
    listed = subprocess.run(["git", "-C", str(repo), "worktree", "list"], capture_output=True,
                            text=True).stdout.splitlines()
    left = left_in(work)
    for pid in left:
        os.kill(int(pid), signal.SIGKILL)
    status = json.loads(out or "{}").get("baseline", {}).get("status")
    c.say(18, "a cancelled step (SIGINT, then SIGTERM) with a harness that ignores TERM",
          p.returncode == 130 and took < 5 and not trees and len(listed) == 1 and not left and status,
          f"exit {p.returncode} after {took:.1f} s, baseline {status}, {len(trees)} worktrees left "
          f"({len(listed) - 1} registered), {len(left)} processes left")


FIXABLE = """name: bench
on:
  push:
    branches: [main]
  pull_request:
concurrency:
  group: bench-${{ github.ref }}
  cancel-in-progress: true
jobs:
  gpu:
    runs-on: [self-hosted, mi355]
    steps:
      - name: Release baseline
        run: |
          LATEST=$(git tag --list 'v*' | sort -V | tail -1)
          ./run_benchmark.sh --baseline "$LATEST"
"""


def symlinks(c, work):
    """19: lint --fix on a workflow that is a symlink out of the repository;
    20: bench with a checked-out bench-results that is a symlink out, and a
    dangling symlink at {out}."""
    repo = work / "linkrepo"
    (repo / ".github/workflows").mkdir(parents=True)
    victim = work / "victim.yml"
    victim.write_text(FIXABLE)
    (repo / ".github/workflows/ci.yml").symlink_to("../../../victim.yml")
    code, out, _, _, _ = subprocess_in(c, repo, ["lint", ".github/workflows/ci.yml", "--fix"])
    c.say(19, "lint --fix on a workflow that is a symlink out of the repository",
          victim.read_text() == FIXABLE and "symbolic link" in out,
          f"exit {code}, target {'unchanged' if victim.read_text() == FIXABLE else 'REWRITTEN'}")
    proj, sha, git = project(work, "linkbench", ROWS)
    outside = work.parent / (work.name + "-outside")
    outside.mkdir()
    (outside / "current.csv").write_text("keep")
    (proj / "bench-results").symlink_to(outside)
    env = {"GITHUB_WORKSPACE": str(proj), "RUNNER_TEMP": str(proj / ".tmp")}
    code, _, err, _, _ = subprocess_in(c, proj, ["bench", "--side", "current", "--command", "bash run.sh {out}"],
                                       env)
    kept = (outside / "current.csv").read_text() == "keep"
    (proj / "bench-results").unlink()
    (proj / "bench-results").mkdir()
    target = outside / "made.csv"
    (proj / "bench-results/current.csv").symlink_to(target)
    code2, _, _, _, _ = subprocess_in(c, proj, ["bench", "--side", "current", "--command", "bash run.sh {out}"],
                                      env)
    made = target.exists()
    for f in outside.iterdir():
        f.unlink()
    outside.rmdir()
    c.say(20, "bench-results a symlink out of the workspace, and a dangling symlink at {out}",
          code == 1 and kept and code2 == 0 and not made,
          f"linked dir: exit {code}, the file outside {'kept' if kept else 'REMOVED'}; "
          f"dangling: exit {code2}, its target {'CREATED' if made else 'not created'}")


def open_list(c, work):
    """21: a list command whose helper leaves the group and keeps stdout
    open: the selection must run as it is, not be dropped whole."""
    repo, sha, _ = project(work, "openlist", 'echo op,shape,dtype,tflops > "$1"; for g in ${2//,/ }; do '
                           'echo $g,1,bf16,1 >> "$1"; done\n')
    env = {"GITHUB_WORKSPACE": str(repo), "RUNNER_TEMP": str(work)}
    code, out, _, took, _ = c.run(["bench", "--side", "current", "--format", "json", "--selection",
                                   json.dumps({"selection": "some", "groups": ["gemm", "softmax"]}),
                                   "--list-command", "setsid sleep 8 & echo gemm",
                                   "--command", "bash run.sh {out} {groups}", "--out-dir", str(work / "ol-out")],
                                  env, timeout=60)
    j = json.loads(out or "{}").get("current", {})
    c.say(21, "a list command whose helper keeps its stdout open",
          code == 0 and j.get("status") == "ok" and j.get("rows") == 2,
          f"exit {code} after {took:.1f} s, {j.get('status')}, {j.get('rows')} rows")


def sarif_names(c, work):
    """22: workflow files whose names would move or hide a code-scanning
    alert once read as URIs."""
    from urllib.parse import unquote, urljoin, urlparse
    repo = work / "sarifrepo"
    (repo / "wf").mkdir(parents=True)
    names = ["%2e%2e%2fci.yml", "a#b.yml", "c?d.yml", "with space.yml", "naïve.yml"]
    for name in names:
        (repo / "wf" / name).write_text(FIXABLE)
    code, out, _, _, _ = subprocess_in(c, repo, ["lint", "wf", "--format", "sarif"])
    base = "https://github.com/o/r/blob/main/"
    seen = set()
    for r in json.loads(out or "{}").get("runs", [{}])[0].get("results", []):
        u = urlparse(urljoin(base, r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]))
        seen.add(unquote(u.path[len("/o/r/blob/main/"):]) + ("#" if u.fragment else "") + ("?" if u.query else ""))
    c.say(22, "workflow names with %, #, ?, spaces and non-ASCII in SARIF",
          code == 4 and seen == {f"wf/{n}" for n in names},
          f"exit {code}, {len(seen & {f'wf/{n}' for n in names})} of {len(names)} names resolve to their file")


def subprocess_in(c, cwd, args, extra_env=None):
    """c.run, in `cwd` (a repository's root, as a workflow step runs)."""
    env = dict(c.env, **(extra_env or {}))
    started = time.monotonic()
    p = subprocess.run([str(c.launcher), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr, time.monotonic() - started, None


def issue_comments(c, api_url, work, api):
    """23: comment --issue on a tracking issue where a stranger's comment
    carries the marker, and on one whose comment pages loop."""
    report = work / "issue-report.json"
    report.write_text(json.dumps({"verdict": "pass", "baselines": [{"label": "main", "gate": True,
                                                                    "available": True, "rows": []}]}))
    env = {"GITHUB_API_URL": api_url, "GITHUB_TOKEN": "ghs_hostile", "GITHUB_REPOSITORY": "ROCm/FlyDSL"}
    api.requests.clear()
    code, out, _, _, _ = c.run(["comment", "--issue", "803", "--marker", "trend", "--format", "json",
                                "--report", str(report)], env)
    j = json.loads(out or "{}")
    edits = [r for r in api.requests if r.startswith("PATCH ")]
    api.requests.clear()
    code2, out2, _, _, _ = c.run(["comment", "--issue", "801", "--format", "json", "--report", str(report)], env)
    j2 = json.loads(out2 or "{}")
    writes = [r for r in api.requests if not r.startswith("GET ")]
    c.say(23, "comment --issue: a stranger's comment with the marker, and looping pages",
          code == 0 and j.get("action") == "created" and not edits and code2 == 0
          and j2.get("action") == "failed" and not writes,
          f"marker: {j.get('action')}, {len(edits)} edits; loop: {j2.get('action')}, {len(writes)} writes")


def hostile_tags(c, api_url, work, api):
    """24: resolve with a {tag_sha} artifact name over a tag listing with
    names and commits a stranger pushed."""
    event = work / "tags-event.json"
    event.write_text(json.dumps({"pull_request": {
        "base": {"ref": "main", "sha": "fa4f8ae2d93c1a7e5b06f2c8e4d1b3a9c7e05f16",
                 "repo": {"id": 700001, "full_name": "ROCm/FlyDSL", "default_branch": "main"}},
        "head": {"ref": "x", "sha": "3c9d2e7a1f5b8c4d6e0a2b9f7c1d3e5a8b6f4c20",
                 "repo": {"full_name": "jhinpan/FlyDSL-lab"}}}}))
    out_file = work / "tags-output"
    api.requests.clear()
    code, out, err, _, _ = c.run(["--event", str(event), "--event-name", "pull_request",
                                  "--artifact-name", "bench-release-{tag_sha}"],
                                 {"GITHUB_API_URL": api_url, "GITHUB_ACTIONS": "true",
                                  "GITHUB_OUTPUT": str(out_file), "GITHUB_STEP_SUMMARY": str(work / "tags-s")})
    lines = [l for l in (out + err).splitlines() if l.startswith("::") and ("pwned" in l or l.startswith("::warning::x"))]
    outputs = out_file.read_text() if out_file.exists() else ""
    smuggled = [r for r in api.requests if "upload-pack" in r]
    c.say(24, "hostile tag names and a tag commit that is not a SHA, with a {tag_sha} artifact",
          code == 0 and not lines and not smuggled and "v0.3.1" in outputs and "pwned" not in outputs,
          f"exit {code}, {len(lines)} lines read as commands, {len(smuggled)} requests carrying a smuggled value, "
          f"tag {'v0.3.1' if 'v0.3.1' in outputs else 'NOT v0.3.1'}")


def rewritten_manifest(c, work):
    """25: bench's manifest rewritten after the run (the fork's code runs in
    the same workspace) to name FIFOs as the config and as a results file,
    a label that is an option, and a 5 MB label: compare ends at once on
    each, with an error or a verdict, never a hang."""
    repo, sha, _ = project(work, "manifest", ROWS)
    env = {"GITHUB_WORKSPACE": str(repo), "RUNNER_TEMP": str(work)}
    out_dir = work / "manifest-out"
    c.run(["bench", "--resolution", json.dumps({"base_sha": sha, "base_available": True}), "--rounds", "1",
           "--command", "bash run.sh {out}", "--out-dir", str(out_dir)], env)
    path = out_dir / "rounds.json"
    written = json.loads(path.read_text()) if path.exists() else {}
    fifo = work / "manifest.fifo"
    os.mkfifo(fifo)
    edits = [("config", lambda m: m["judged"].__setitem__("config", str(fifo))),
             ("results", lambda m: m["once"].__setitem__("current", str(fifo))),
             ("label", lambda m: m.__setitem__("label", "--upload-pack=x")),
             ("huge", lambda m: m.__setitem__("label", "a" * 5_000_000))]
    said, slowest, commands = [], 0.0, 0
    for name, edit in edits:
        hostile = json.loads(json.dumps(written))
        try:
            edit(hostile)
        except (KeyError, TypeError):
            said.append(f"{name}: no manifest")
            continue
        path.write_text(json.dumps(hostile))
        code, out, err, took, _ = c.run(["compare", "--manifest", str(path)],
                                        dict(env, GITHUB_ACTIONS="true"), timeout=60)
        slowest = max(slowest, took)
        commands += sum(1 for l in (out + err).splitlines()
                        if l.startswith("::") and "title=" not in l)
        said.append(f"{name}: exit {code}")
    c.say(25, "a rewritten manifest naming FIFOs, an option as label, a 5 MB label",
          bool(written) and slowest < 30 and commands == 0 and all(s.endswith(("exit 0", "exit 1")) for s in said),
          f"{', '.join(said)}; slowest {slowest:.1f} s; {commands} lines read as commands")


def failure_output(c, work):
    """26: a failing harness whose log, printed by --failure-command, is
    full of workflow commands: none of it becomes one, and the step's exit
    is the harness's failure as bench reports it, not the command's."""
    repo, sha, _ = project(work, "failing", 'printf "::set-output name=current::/etc/passwd\\n'
                           '::add-mask::x\\n##[error]x\\n::stop-commands::t\\n" > /tmp/hostile-failing.log; exit 3\n')
    env = {"GITHUB_WORKSPACE": str(repo), "RUNNER_TEMP": str(work), "GITHUB_ACTIONS": "true",
           "GITHUB_OUTPUT": str(work / "failing-outputs"), "GITHUB_STEP_SUMMARY": str(work / "failing-summary")}
    code, out, err, took, _ = c.run(["bench", "--side", "current", "--command", "bash run.sh {out}",
                                     "--failure-command", "cat /tmp/hostile-failing.log; exit 7",
                                     "--out-dir", str(work / "failing-out")], env, timeout=60)
    lines = (out + err).splitlines()
    commands = [l for l in lines if l.lstrip().startswith("::") and "title=" not in l]
    legacy = [l for l in lines if l.lstrip().startswith("##[")]
    shown = any("set-output" in l for l in lines)
    outputs = (work / "failing-outputs").read_text() if (work / "failing-outputs").exists() else ""
    c.say(26, "a failing harness's log, full of workflow commands, printed by --failure-command",
          code == 0 and shown and not commands and not legacy and "/etc/passwd" not in outputs,
          f"exit {code}, log {'shown' if shown else 'NOT shown'}, {len(commands) + len(legacy)} lines read as commands")


def attacks(c, api_url, work, api):
    option_injection(c, work)
    fifos(c, work)
    stubborn_group(c, work)
    cancellation(c, work)
    symlinks(c, work)
    open_list(c, work)
    sarif_names(c, work)
    issue_comments(c, api_url, work, api)
    hostile_tags(c, api_url, work, api)
    rewritten_manifest(c, work)
    failure_output(c, work)
