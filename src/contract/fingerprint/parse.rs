//! The GPU and system tools' own output read into a [`Fingerprint`]'s
//! fields. Pure: text in, fields out; `bench` runs the tools (bounded) and
//! hands their output here. Each parser takes what it recognises and
//! leaves the rest: a field the tool does not report (`[N/A]`,
//! `[Not Supported]`, an older version's missing key) is absent, and
//! output that is not the tool's at all gives nothing, never an error.

use serde_json::Value;

use super::{Gpu, MAX_GPUS, clean};

/// The fields asked of `nvidia-smi --query-gpu=... --format=csv,noheader,nounits`,
/// in this order. The `clocks_throttle_reasons.*` names are the ones every
/// driver since 2013 accepts (newer drivers call them `clocks_event_reasons`
/// and keep the old names); one unknown name would fail the whole query.
pub const NVIDIA_QUERY: &str = "name,uuid,driver_version,clocks.sm,clocks.mem,power.limit,clocks_throttle_reasons.active,clocks_throttle_reasons.applications_clocks_setting,mig.mode.current,ecc.mode.current";

/// `nvidia-smi --query-gpu=NVIDIA_QUERY --format=csv,noheader,nounits`:
/// one line per GPU; the driver from the first. A line that does not have
/// the fields asked for is not read.
pub fn nvidia_query(text: &str) -> (Vec<Gpu>, Option<String>) {
    let mut gpus = Vec::new();
    let mut driver = None;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let cells: Vec<&str> = line.split(',').map(str::trim).collect();
        let [name, uuid, drv, sm, mem, power, active, apps, mig, ecc] = cells[..] else {
            continue;
        };
        let Some(model) = known(name) else { continue };
        if driver.is_none() {
            driver = known(drv);
        }
        if gpus.len() < MAX_GPUS {
            gpus.push(Gpu {
                vendor: "nvidia".to_owned(),
                model,
                uuid: known(uuid),
                sm_clock_mhz: number(sm),
                memory_clock_mhz: number(mem),
                clocks_locked: known(apps).map(|a| a.eq_ignore_ascii_case("Active")),
                power_limit_w: number(power),
                throttle_reasons: known(active),
                mig: known(mig),
                ecc: known(ecc),
            });
        }
    }
    (gpus, driver)
}

/// The CUDA version the driver offers, from plain `nvidia-smi`'s header
/// (`| NVIDIA-SMI 550.54.15  Driver Version: 550.54.15  CUDA Version: 12.4 |`):
/// `CUDA 12.4`.
pub fn nvidia_cuda(text: &str) -> Option<String> {
    let (_, after) = text.split_once("CUDA Version:")?;
    let version = after.split_whitespace().next()?;
    version
        .chars()
        .all(|c| c.is_ascii_digit() || c == '.')
        .then(|| format!("CUDA {}", clean(version)))
        .filter(|_| !version.is_empty())
}

/// `rocm-smi --showproductname --showdriverversion --showmaxpower
/// --showperflevel --showuniqueid --json`: one object per `cardN`, the
/// driver under `system`. Key names changed case between ROCm versions
/// (`Card series`, `Card Series`): they are matched without case.
pub fn rocm_json(text: &str) -> (Vec<Gpu>, Option<String>) {
    let Ok(Value::Object(top)) = serde_json::from_str::<Value>(text) else {
        return (Vec::new(), None);
    };
    let mut driver = None;
    let mut cards: Vec<(u64, Gpu)> = Vec::new();
    for (name, value) in &top {
        let Value::Object(fields) = value else {
            continue;
        };
        let get = |key: &str| {
            fields
                .iter()
                .find(|(k, _)| k.trim_end_matches(':').eq_ignore_ascii_case(key))
                .and_then(|(_, v)| v.as_str())
                .and_then(known)
        };
        if name == "system" {
            driver = get("Driver version");
            continue;
        }
        let Some(index) = name
            .strip_prefix("card")
            .and_then(|n| n.parse::<u64>().ok())
        else {
            continue;
        };
        let Some(model) = get("Card Series")
            .or_else(|| get("Device Name"))
            .or_else(|| get("Card Model"))
        else {
            continue;
        };
        cards.push((
            index,
            Gpu {
                vendor: "amd".to_owned(),
                model,
                uuid: get("Unique ID"),
                clocks_locked: get("Performance Level").map(|l| !l.eq_ignore_ascii_case("auto")),
                power_limit_w: get("Max Graphics Package Power (W)").and_then(|p| number(&p)),
                ..Gpu::default()
            },
        ));
    }
    cards.sort_by_key(|(i, _)| *i);
    let gpus = cards.into_iter().take(MAX_GPUS).map(|(_, g)| g).collect();
    (gpus, driver)
}

/// ROCm's installed version from `/opt/rocm/.info/version` (`6.2.1-112`):
/// `ROCm 6.2.1`.
pub fn rocm_version(text: &str) -> Option<String> {
    let line = text.lines().next()?.trim();
    let version = line.split('-').next()?;
    (!version.is_empty() && version.chars().all(|c| c.is_ascii_digit() || c == '.'))
        .then(|| format!("ROCm {version}"))
}

/// `/proc/cpuinfo`: the first `model name` and how many processors.
pub fn cpuinfo(text: &str) -> (Option<String>, Option<u32>) {
    let mut model = None;
    let mut count: u32 = 0;
    for line in text.lines() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        match key.trim() {
            "processor" => count = count.saturating_add(1),
            "model name" if model.is_none() => model = known(value),
            _ => {}
        }
    }
    (model, (count > 0).then_some(count))
}

/// A value a tool reported, or `None` for its ways of saying it has none.
fn known(value: &str) -> Option<String> {
    let v = value.trim();
    let none = v.is_empty()
        || v.starts_with('[')
        || v.eq_ignore_ascii_case("N/A")
        || v.eq_ignore_ascii_case("unknown");
    (!none).then(|| clean(v))
}

/// A number a tool reported (`1980`, `700.00`, `(1200Mhz)`: the digits).
fn number(value: &str) -> Option<f64> {
    let v = known(value)?;
    let digits: String = v
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    digits.parse::<f64>().ok().filter(|n| n.is_finite())
}
