//! What a result was measured on: the machine's fingerprint, written by
//! `bench` beside each results file (`<file>.fingerprint.json`) and read by
//! `compare` (is the baseline from the same machine? which history runs
//! are?) and `trend` (where along main's history did the machine change?).
//!
//! A benchmark measures the code and the machine together: a GPU model, a
//! driver or runtime upgrade, locked clocks or a lower power cap move every
//! row at once, and no threshold can tell that from a regression. So the
//! fields that move performance ([`Fingerprint::differences`]) are kept
//! apart from those that only identify (the GPU's UUID, the runner's
//! name). A fork's run may have written the file: it is bounded
//! ([`MAX_FINGERPRINT_BYTES`]), every string in it is cut and its control
//! characters made visible ([`Fingerprint::cleaned`]), and a file that
//! cannot be read says nothing (the machine is unknown, never an error).

pub mod parse;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// A fingerprint is a few kilobytes even with eight GPUs; anything larger
/// is not one.
pub const MAX_FINGERPRINT_BYTES: u64 = 64 * 1024;
/// The fingerprint's schema.
pub const FINGERPRINT_SCHEMA: u32 = 1;
/// The longest string kept from a tool or a file (a GPU's name is ~40).
pub const MAX_FIELD_CHARS: usize = 200;
/// At most this many GPUs and this many `--fingerprint-command` fields.
pub const MAX_GPUS: usize = 64;
pub const MAX_EXTRA: usize = 32;

/// One GPU as its vendor's tool reports it; a field the tool does not
/// report (`[N/A]`, an older driver) is absent.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Gpu {
    /// `nvidia` or `amd`.
    pub vendor: String,
    pub model: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uuid: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sm_clock_mhz: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_clock_mhz: Option<f64>,
    /// Whether its clocks were held (NVIDIA: limited by the applications
    /// clock setting, as `nvidia-smi -lgc`/`-ac` leave them; AMD: a
    /// performance level other than `auto`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clocks_locked: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub power_limit_w: Option<f64>,
    /// What held the clocks down when it was read (NVIDIA's bit mask).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub throttle_reasons: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mig: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ecc: Option<String>,
}

/// The runner as the Actions environment names it (`RUNNER_NAME`, ...):
/// it identifies, it does not move performance.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Runner {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub os: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arch: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub environment: Option<String>,
}

/// The machine one results file was measured on.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Fingerprint {
    pub schema: u32,
    pub gpus: Vec<Gpu>,
    /// The GPU kernel driver (NVIDIA's driver, amdgpu's version).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub driver: Option<String>,
    /// `CUDA 12.4` or `ROCm 6.2.1`: the runtime the driver offers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpu: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cpus: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel: Option<String>,
    pub runner: Runner,
    /// `--fingerprint-command`'s fields (a string each). Each one counts
    /// as a field that moves performance: the command was written to say
    /// what does (a container image's digest, a BIOS setting).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, String>,
    /// What could not be read, and why (a tool that timed out).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// One field that moves performance and differs between two machines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Difference {
    pub field: String,
    pub baseline: String,
    pub current: String,
}

impl Fingerprint {
    /// Where the fingerprint of the results file `file` is.
    pub fn path_for(file: &Path) -> PathBuf {
        let mut name = file.as_os_str().to_owned();
        name.push(".fingerprint.json");
        PathBuf::from(name)
    }

    /// The fingerprint beside `file`, when there is a readable one.
    pub fn beside(file: &Path) -> Option<Fingerprint> {
        Self::load(&Self::path_for(file)).ok()
    }

    /// The fingerprint at `path`, or why it cannot be read.
    pub fn load(path: &Path) -> Result<Fingerprint, String> {
        let meta = std::fs::metadata(path).map_err(|e| e.to_string())?;
        if !meta.is_file() {
            return Err("not a regular file".to_owned());
        }
        if meta.len() > MAX_FINGERPRINT_BYTES {
            return Err(format!(
                "{} bytes; a fingerprint is at most {MAX_FINGERPRINT_BYTES}",
                meta.len()
            ));
        }
        let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
        let fp: Fingerprint = serde_json::from_slice(&bytes).map_err(|e| e.to_string())?;
        if fp.schema != FINGERPRINT_SCHEMA {
            return Err(format!(
                "schema {}; this version reads {FINGERPRINT_SCHEMA}",
                fp.schema
            ));
        }
        Ok(fp.cleaned())
    }

    /// Every string cut to [`MAX_FIELD_CHARS`] with its control characters
    /// visible, at most [`MAX_GPUS`] GPUs and [`MAX_EXTRA`] extra fields:
    /// what any reader may show as it is.
    pub fn cleaned(mut self) -> Fingerprint {
        let c = |s: &mut String| *s = clean(s);
        let o = |s: &mut Option<String>| {
            if let Some(v) = s {
                *v = clean(v)
            }
        };
        self.gpus.truncate(MAX_GPUS);
        for g in &mut self.gpus {
            c(&mut g.vendor);
            c(&mut g.model);
            for f in [&mut g.uuid, &mut g.throttle_reasons, &mut g.mig, &mut g.ecc] {
                o(f);
            }
        }
        for f in [
            &mut self.driver,
            &mut self.runtime,
            &mut self.cpu,
            &mut self.kernel,
        ] {
            o(f);
        }
        let r = &mut self.runner;
        for f in [&mut r.name, &mut r.os, &mut r.arch, &mut r.environment] {
            o(f);
        }
        self.extra = std::mem::take(&mut self.extra)
            .into_iter()
            .take(MAX_EXTRA)
            .map(|(k, v)| (clean(&k), clean(&v)))
            .collect();
        self.notes.truncate(MAX_EXTRA);
        self.notes.iter_mut().for_each(c);
        self
    }

    /// The GPU models, `2 × NVIDIA H100` when they repeat; none without a
    /// GPU.
    pub fn gpu_models(&self) -> Option<String> {
        let mut groups: Vec<(&str, usize)> = Vec::new();
        for g in &self.gpus {
            match groups.iter_mut().find(|(m, _)| *m == g.model) {
                Some((_, n)) => *n = n.saturating_add(1),
                None => groups.push((&g.model, 1)),
            }
        }
        let parts: Vec<String> = groups
            .iter()
            .map(|(m, n)| match n {
                1 => (*m).to_owned(),
                n => format!("{n} × {m}"),
            })
            .collect();
        (!parts.is_empty()).then(|| parts.join(" + "))
    }

    /// One line: what it was measured on, as a person reads it
    /// (`NVIDIA H100 80GB HBM3 / driver 550.54.15 / CUDA 12.4 / clocks
    /// locked / 700 W`); the CPU when there is no GPU.
    pub fn measured_on(&self) -> String {
        let mut parts = Vec::new();
        match self.gpu_models() {
            Some(models) => parts.push(models),
            None => parts.push(
                self.cpu
                    .clone()
                    .unwrap_or_else(|| "an unknown machine".to_owned()),
            ),
        }
        if let Some(d) = &self.driver {
            parts.push(format!("driver {d}"));
        }
        if let Some(r) = &self.runtime {
            parts.push(r.clone());
        }
        match self.locked() {
            Some(true) => parts.push("clocks locked".to_owned()),
            Some(false) if !self.gpus.is_empty() => parts.push("clocks free".to_owned()),
            _ => {}
        }
        if let Some(w) = self.power_limits() {
            parts.push(w);
        }
        parts.join(" / ")
    }

    /// Whether every GPU's clocks were locked (`None`: not known).
    fn locked(&self) -> Option<bool> {
        let known: Vec<bool> = self.gpus.iter().filter_map(|g| g.clocks_locked).collect();
        (!known.is_empty()).then(|| known.iter().all(|l| *l))
    }

    /// The power caps, `700 W` (each distinct one once).
    fn power_limits(&self) -> Option<String> {
        let mut caps: Vec<String> = self
            .gpus
            .iter()
            .filter_map(|g| g.power_limit_w)
            .map(|w| format!("{} W", w.round()))
            .collect();
        caps.dedup();
        (!caps.is_empty()).then(|| caps.join(", "))
    }

    /// The fields that move performance where `baseline` (self) and
    /// `current` differ, in the order a person should read them. A field
    /// one side does not know is not a difference: an older bench wrote
    /// no fingerprint, a tool was missing; that is said elsewhere, not
    /// taken for another machine.
    pub fn differences(&self, current: &Fingerprint) -> Vec<Difference> {
        let mut out = Vec::new();
        let mut field = |name: &str, b: Option<String>, c: Option<String>| {
            if let (Some(b), Some(c)) = (b, c)
                && b != c
            {
                out.push(Difference {
                    field: name.to_owned(),
                    baseline: b,
                    current: c,
                });
            }
        };
        let gpus = |f: &Fingerprint| {
            Some(f.gpu_models().unwrap_or_else(|| "no GPU".to_owned()))
                .filter(|_| !f.gpus.is_empty() || f.cpu.is_some())
        };
        field("GPU", gpus(self), gpus(current));
        field(
            "driver",
            self.driver.as_deref().map(major),
            current.driver.as_deref().map(major),
        );
        field(
            "runtime",
            self.runtime.as_deref().map(runtime_major),
            current.runtime.as_deref().map(runtime_major),
        );
        let locked = |f: &Fingerprint| {
            f.locked()
                .map(|l| if l { "locked" } else { "free" }.to_owned())
        };
        field("clocks", locked(self), locked(current));
        field("power limit", self.power_limits(), current.power_limits());
        if self.gpus.is_empty() && current.gpus.is_empty() {
            field("CPU", self.cpu.clone(), current.cpu.clone());
        }
        for (k, v) in &self.extra {
            field(k, Some(v.clone()), current.extra.get(k).cloned());
        }
        out
    }

    /// Whether `other` was measured on the same machine as far as
    /// performance goes.
    pub fn same_machine(&self, other: &Fingerprint) -> bool {
        self.differences(other).is_empty()
    }
}

/// The sentence every report leads with when two sides' machines differ:
/// `the baseline was measured on X; this run on Y (driver 535 → 550)`.
pub fn mismatch_sentence(
    baseline: &Fingerprint,
    current: &Fingerprint,
    differences: &[Difference],
) -> String {
    let what: Vec<String> = differences
        .iter()
        .map(|d| format!("{} {} → {}", d.field, d.baseline, d.current))
        .collect();
    format!(
        "the baseline was measured on {}; this run on {} ({}): a change between them may be the machine's, not the code's",
        baseline.measured_on(),
        current.measured_on(),
        what.join(", ")
    )
}

/// The one line comment (and gate) show for both sides: `measured on
/// NVIDIA H100 / driver 550.54.15 / CUDA 12.4; the baseline on NVIDIA A100
/// / ...`; `None` when neither side's machine is known.
pub fn measured_on_line(current: Option<&str>, baseline: Option<&str>) -> Option<String> {
    let unknown = "unknown";
    match (current, baseline) {
        (None, None) => None,
        (Some(c), Some(b)) if c == b => Some(format!("both sides measured on {c}")),
        (c, b) => Some(format!(
            "measured on {}; the baseline on {}",
            c.unwrap_or(unknown),
            b.unwrap_or(unknown)
        )),
    }
}

/// The part of a version before its first dot (`550.54.15` → `550`).
fn major(version: &str) -> String {
    version.split('.').next().unwrap_or(version).to_owned()
}

/// `ROCm 6.2.1` → `ROCm 6.2`: a runtime's release with its name. Its
/// minor version counts (ROCm 6.2 and 6.4 ship different compilers and
/// libraries); its patch level does not.
fn runtime_major(runtime: &str) -> String {
    let release = |v: &str| v.splitn(3, '.').take(2).collect::<Vec<_>>().join(".");
    match runtime.split_once(' ') {
        Some((name, version)) => format!("{name} {}", release(version)),
        None => release(runtime),
    }
}

/// A stranger's string as it may be kept and shown.
pub fn clean(value: &str) -> String {
    crate::runner::text::visible(value.trim(), MAX_FIELD_CHARS).into_owned()
}

#[cfg(test)]
mod tests;
