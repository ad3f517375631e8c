//! `--with-tag`: the latest release tag measured in the same step, once,
//! after the change and the base commit, into `tag.csv`. Workflows that
//! report the release beside main wrote a second bench step for it that
//! repeated every input of the first (the container, the volume, the
//! command, the timeout) to change one thing; here it is one input. The
//! tag runs as `--tag` runs it (its `tag_sha` in a worktree, one run, no
//! rounds, its own setup with `{label}` the tag), reported beside: its
//! rows never gate anything.

use super::inputs::Inputs;
use super::outcome::SideRun;
use super::plan::{self, Facts, Sides};
use super::{BenchError, live, values};
use crate::contract::resolution::Provenance;
use crate::contract::selection::Chosen;

/// The tag's side, carried out: unavailable (with the warning saying why)
/// when the resolution names no tag or its commit cannot be had.
pub fn run(
    inputs: &Inputs,
    resolution: Option<&Provenance>,
    chosen: Option<&Chosen>,
) -> Result<SideRun, BenchError> {
    values::label(resolution, true)?;
    let mut tag = inputs.clone();
    tag.sides = Sides::Baseline;
    tag.tag = true;
    tag.baseline_result = None;
    tag.rounds.rounds = 1;
    tag.rounds.max_rounds = 1;
    if inputs.tag_setup_command.is_some() {
        tag.setup_command.clone_from(&inputs.tag_setup_command);
    }
    let plan = plan::plan(&Facts {
        sides: Sides::Baseline,
        resolution,
        selection: chosen,
        reusable: None,
        tag: true,
    });
    let (_, mut run, _) = live::sides(&plan, &tag)?;
    if resolution.and_then(|r| r.tag.as_deref()).is_none() {
        run.label = "release".to_owned();
    }
    Ok(run)
}
