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


def attacks(c, api_url, work):
    option_injection(c, work)
    fifos(c, work)
