//! What this machine is, read once per bench run and written beside every
//! results file as `<file>.fingerprint.json` (`contract::fingerprint`):
//! compare and trend need it to tell a slower machine from slower code.
//!
//! The GPU tools are strangers' programs on a stranger's runner: each runs
//! through [`process::run`] (its own process group, stopped after
//! [`TOOL_TIMEOUT`], at most [`process::MAX_LISTED`] bytes of output kept,
//! bytes that are not UTF-8 replaced), and a tool that is absent, fails or
//! hangs leaves its fields absent and a note, never an error: a benchmark
//! without a GPU is still a benchmark.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;
use std::time::Duration;

use super::process::{self, Ended};
use crate::contract::fingerprint::{
    FINGERPRINT_SCHEMA, Fingerprint, MAX_EXTRA, MAX_FIELD_CHARS, Runner, clean, parse,
};
use crate::runner::read::bounded;

/// The longest one tool (or `--fingerprint-command`) may take: nvidia-smi
/// answers in well under a second once the driver is loaded, a few seconds
/// when it must load it first.
pub const TOOL_TIMEOUT: Duration = Duration::from_secs(10);
/// The most read of a small system file (`/proc/cpuinfo` of 256 cores is
/// ~300 KiB).
const MAX_SYSTEM_FILE: u64 = 1024 * 1024;

/// The machine, read on first use: every results file of this run gets the
/// same one, and a tool that hangs costs its timeout once, not per round.
pub fn machine(dir: &Path, command: Option<&str>) -> &'static Fingerprint {
    static MACHINE: OnceLock<Fingerprint> = OnceLock::new();
    MACHINE.get_or_init(|| read(dir, command))
}

/// Writes the fingerprint beside `out`; the error is for a warning.
pub fn write(out: &Path, fingerprint: &Fingerprint) -> Result<(), String> {
    let path = Fingerprint::path_for(out);
    let text = serde_json::to_string_pretty(fingerprint).map_err(|e| e.to_string())?;
    std::fs::write(&path, text).map_err(|e| {
        format!(
            "cannot write {}: {e}; compare will not know what this side was measured on",
            crate::runner::shown(&path.to_string_lossy())
        )
    })
}

/// Removes an earlier run's fingerprint beside `out` (a self-hosted
/// runner keeps its workspace): it must never speak for this run's file.
pub fn clear(out: &Path) {
    let _ = std::fs::remove_file(Fingerprint::path_for(out));
}

/// Reads every tool there is, in `dir` (the repository).
pub fn read(dir: &Path, command: Option<&str>) -> Fingerprint {
    let mut fp = Fingerprint {
        schema: FINGERPRINT_SCHEMA,
        runner: runner(),
        ..Fingerprint::default()
    };
    let mut notes = Vec::new();
    let query = format!(
        "nvidia-smi --query-gpu={} --format=csv,noheader,nounits",
        parse::NVIDIA_QUERY
    );
    if let Some(text) = tool("nvidia-smi", &query, dir, &mut notes) {
        (fp.gpus, fp.driver) = parse::nvidia_query(&text);
        fp.runtime =
            tool("nvidia-smi", "nvidia-smi", dir, &mut notes).and_then(|t| parse::nvidia_cuda(&t));
    } else if let Some(text) = tool(
        "rocm-smi",
        "rocm-smi --showproductname --showdriverversion --showmaxpower --showperflevel --showuniqueid --json",
        dir,
        &mut notes,
    ) {
        (fp.gpus, fp.driver) = parse::rocm_json(&text);
        fp.runtime = system_file("/opt/rocm/.info/version").and_then(|t| parse::rocm_version(&t));
    }
    if let Some(text) = system_file("/proc/cpuinfo") {
        (fp.cpu, fp.cpus) = parse::cpuinfo(&text);
    }
    fp.kernel = system_file("/proc/sys/kernel/osrelease").map(|t| clean(&t));
    if let Some(command) = command {
        fp.extra = extra(command, dir, &mut notes);
    }
    fp.notes = notes;
    fp.cleaned()
}

/// A tool's stdout when it is installed and ends well within its time;
/// else `None`, with a note unless it is simply not installed.
fn tool(name: &str, command: &str, dir: &Path, notes: &mut Vec<String>) -> Option<String> {
    let script = format!("command -v {name} >/dev/null 2>&1 || exit 127\n{command}");
    let done = match process::run(&script, dir, TOOL_TIMEOUT, "[fingerprint] ", true) {
        Ok(done) => done,
        Err(e) => {
            notes.push(format!("{name} could not start: {e}"));
            return None;
        }
    };
    match done.ended {
        Ended::Exit(0) => Some(done.kept),
        Ended::Exit(127) => None,
        Ended::Exit(code) => {
            notes.push(format!("{name} failed with exit status {code}"));
            None
        }
        Ended::TimedOut => {
            notes.push(format!(
                "{name} did not answer within {} s",
                TOOL_TIMEOUT.as_secs()
            ));
            None
        }
        Ended::Cancelled(_) => None,
    }
}

/// `--fingerprint-command`'s JSON object, each value a string (a number
/// or a boolean written as one); anything else is a note.
fn extra(command: &str, dir: &Path, notes: &mut Vec<String>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let script = format!("{command}\n");
    let Some(text) = run_command(&script, dir, notes) else {
        return out;
    };
    let Ok(serde_json::Value::Object(fields)) = serde_json::from_str(&text) else {
        notes.push("the fingerprint command did not print one JSON object".to_owned());
        return out;
    };
    for (key, value) in fields {
        let text = match value {
            serde_json::Value::String(s) => s,
            serde_json::Value::Number(n) => n.to_string(),
            serde_json::Value::Bool(b) => b.to_string(),
            _ => {
                notes.push(format!(
                    "the fingerprint command's {} is not a string, number or boolean: left out",
                    clean(&key)
                ));
                continue;
            }
        };
        if out.len() >= MAX_EXTRA || key.chars().count() > MAX_FIELD_CHARS {
            notes.push(format!(
                "the fingerprint command's fields past {MAX_EXTRA} (or names over {MAX_FIELD_CHARS} characters) are left out"
            ));
            break;
        }
        out.insert(key, text);
    }
    out
}

/// The fingerprint command's stdout, when it ended well.
fn run_command(script: &str, dir: &Path, notes: &mut Vec<String>) -> Option<String> {
    match process::run(script, dir, TOOL_TIMEOUT, "[fingerprint] ", true) {
        Ok(done) if done.ended == Ended::Exit(0) && done.complete => Some(done.kept),
        Ok(done) => {
            notes.push(format!(
                "the fingerprint command {}",
                match done.ended {
                    Ended::TimedOut => format!("did not end within {} s", TOOL_TIMEOUT.as_secs()),
                    Ended::Exit(0) => "printed more than is read".to_owned(),
                    Ended::Exit(code) => format!("failed with exit status {code}"),
                    Ended::Cancelled(_) => "was cancelled".to_owned(),
                }
            ));
            None
        }
        Err(e) => {
            notes.push(format!("the fingerprint command could not start: {e}"));
            None
        }
    }
}

/// A small system file, bounded; `None` when it is not there.
fn system_file(path: &str) -> Option<String> {
    let bytes = bounded("system file", Path::new(path), MAX_SYSTEM_FILE).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// The runner as the Actions environment names it.
fn runner() -> Runner {
    let var = |name: &str| {
        std::env::var_os(name)
            .map(|v| clean(&v.to_string_lossy()))
            .filter(|v| !v.is_empty())
    };
    Runner {
        name: var("RUNNER_NAME"),
        os: var("RUNNER_OS"),
        arch: var("RUNNER_ARCH"),
        environment: var("RUNNER_ENVIRONMENT"),
    }
}
