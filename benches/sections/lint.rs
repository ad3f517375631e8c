//! Section 10: `lint` on a large workflow, whole process: the real-world
//! fixture's jobs (every rule's pattern among their look-alikes) repeated
//! under new ids to 1,500 lines and more; and a stranger's largest
//! workflow (just under the 4 MiB a file may have), one benchmark job whose
//! script is nothing but unpinned clones, a finding each, one per line and
//! all on one line: what must stay linear in the script's length.

use std::fmt::Write as _;

use super::{BIN, command, median, ms, root};

pub fn linting(report: &mut String) {
    let fixture = root().join("tests/fixtures/lint/real-world/gpu-benchmarks.yml");
    let text = std::fs::read_to_string(fixture).unwrap();
    let (head, jobs) = text.split_once("\njobs:\n").unwrap();
    let mut workflow = format!("{head}\njobs:\n");
    let mut copy = 0;
    while workflow.lines().count() < 1500 {
        for line in jobs.lines() {
            let is_job = line.starts_with("  ")
                && !line.starts_with("   ")
                && line.trim_end().ends_with(':');
            if is_job {
                let _ = writeln!(
                    workflow,
                    "{}-{copy}:",
                    line.trim_end().trim_end_matches(':')
                );
            } else {
                let _ = writeln!(workflow, "{line}");
            }
        }
        copy += 1;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("large.yml");
    std::fs::write(&path, &workflow).unwrap();
    let (time, findings) = lint_json(&path, 30);
    let _ = writeln!(
        report,
        "## 10. Linting\n\n`baseline-resolver lint --format json` on a workflow of {} lines ({} KB: the jobs of \
         `tests/fixtures/lint/real-world/gpu-benchmarks.yml` repeated {copy} times under new ids), whole process, \
         median of 30: **{}**, {findings} findings (goal: under 50 ms).\n",
        workflow.lines().count(),
        workflow.len() / 1024,
        ms(time)
    );
    hostile(report);
}

/// `lint --format json` of `path`, whole process: the median of `runs`
/// times, and the findings.
fn lint_json(path: &std::path::Path, runs: usize) -> (std::time::Duration, usize) {
    let args = ["lint", path.to_str().unwrap(), "--format", "json"];
    let mut times = Vec::new();
    let mut findings = 0;
    for _ in 0..runs {
        let started = std::time::Instant::now();
        let out = command(BIN, &args, &[]).output().unwrap();
        times.push(started.elapsed());
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        findings = v["findings"].as_array().map_or(0, Vec::len);
    }
    (median(times), findings)
}

/// A workflow of `clones` unpinned clones in one benchmark script, one
/// per line of a block scalar, or `one_line`, joined by `; `.
fn clones(clones: usize, one_line: bool) -> String {
    let each = (0..clones).map(|i| format!("git clone https://g/r{i}.git"));
    let head = "name: q\non: [pull_request]\njobs:\n  bench:\n    runs-on: ubuntu-latest\n    \
                timeout-minutes: 10\n    steps:\n";
    if one_line {
        let script = each.collect::<Vec<_>>().join("; ");
        format!("{head}      - run: {script}; cargo bench\n")
    } else {
        let lines: String = each.map(|c| format!("          {c}\n")).collect();
        format!("{head}      - run: |\n{lines}          cargo bench\n")
    }
}

fn hostile(report: &mut String) {
    let dir = tempfile::tempdir().unwrap();
    let mut rows = Vec::new();
    for (one_line, count) in [(false, 98_000), (true, 124_000)] {
        let workflow = clones(count, one_line);
        let path = dir.path().join("hostile.yml");
        std::fs::write(&path, &workflow).unwrap();
        let (time, findings) = lint_json(&path, 3);
        let layout = if one_line {
            "all on one line"
        } else {
            "one per line"
        };
        rows.push(format!(
            "{count} clones {layout} ({:.1} MiB): **{}**, {findings} findings",
            workflow.len() as f64 / 1_048_576.0,
            ms(time)
        ));
    }
    let _ = writeln!(
        report,
        "A stranger's largest workflow, one benchmark script of unpinned clones, whole process, median of 3: {}.\n",
        rows.join("; ")
    );
}
