//! Section 10: `lint` on a large workflow, whole process: the real-world
//! fixture's jobs (every rule's pattern among their look-alikes) repeated
//! under new ids to 1,500 lines and more.

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
    let args = ["lint", path.to_str().unwrap(), "--format", "json"];
    let mut runs = Vec::new();
    let mut findings = 0;
    for _ in 0..30 {
        let started = std::time::Instant::now();
        let out = command(BIN, &args, &[]).output().unwrap();
        runs.push(started.elapsed());
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        findings = v["findings"].as_array().map_or(0, Vec::len);
    }
    let _ = writeln!(
        report,
        "## 10. Linting\n\n`baseline-resolver lint --format json` on a workflow of {} lines ({} KB: the jobs of \
         `tests/fixtures/lint/real-world/gpu-benchmarks.yml` repeated {copy} times under new ids), whole process, \
         median of 30: **{}**, {findings} findings (goal: under 50 ms).\n",
        workflow.lines().count(),
        workflow.len() / 1024,
        ms(median(runs))
    );
}
