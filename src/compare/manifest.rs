//! `--manifest`: bench's rounds (the contract in
//! [`crate::contract::rounds`]) as compare's inputs: the change's files
//! and the baseline's, paired in round order, the baseline's label as the
//! gate, and the look schedule bench followed, so that compare decides at
//! the same looks bench did and gives the same verdict.

use super::inputs::{BaselineFiles, Inputs};
use crate::contract::rounds::{Manifest, ManifestError};
use crate::paired::Schedule;
use crate::runner::shown;
use crate::validate::Label;

/// The inputs with the manifest's rounds in them (unchanged without
/// `--manifest`).
pub fn with_manifest(mut inputs: Inputs) -> Result<Inputs, ManifestError> {
    let Some(path) = inputs.manifest.clone() else {
        return Ok(inputs);
    };
    let manifest = Manifest::load(&path)?;
    let invalid = |message: String| ManifestError::Invalid {
        origin: shown(&path.to_string_lossy()),
        message,
    };
    let label = Label::parse(&manifest.label).map_err(|e| invalid(format!("its label: {e}")))?;
    if inputs.baselines.iter().any(|b| b.label == label) {
        return Err(invalid(format!(
            "it holds the rounds of {label}, and --baseline names {label} too: give that label's files once"
        )));
    }
    if inputs.gate_given && inputs.gate != label {
        return Err(invalid(format!(
            "its rounds pair with {label}, and --gate names {}: the paired baseline is the gate",
            inputs.gate
        )));
    }
    if manifest.rounds.is_empty() {
        return Err(invalid("it lists no round".to_owned()));
    }
    let (current, baseline) = manifest.files();
    inputs.current = current;
    inputs.baselines.insert(
        0,
        BaselineFiles {
            label: label.clone(),
            files: baseline,
        },
    );
    inputs.gate = label;
    let (rounds, max_rounds) = inputs.schedule_given;
    inputs.paired = Some(Schedule {
        rounds: rounds.unwrap_or(manifest.first_look),
        max_rounds: max_rounds.unwrap_or(manifest.max_rounds),
    });
    Ok(inputs)
}
