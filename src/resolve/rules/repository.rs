//! Events about the repository itself: the merge queue, runs on the default
//! branch (dispatch, schedule), releases, and events without a rule.

use super::{
    BaseSource, Baseline, Lookup, Notes, Outcome, PayloadError, Settings, SkipReason, ref_field,
    repository_side, required, sha_field,
};
use crate::github::event::Payload;

pub(super) fn merge_group(
    payload: &Payload,
    settings: &Settings,
    b: &mut Notes,
) -> Result<Outcome, PayloadError> {
    let mut side = repository_side(payload, settings, b)?;
    let group = required(payload.merge_group.as_ref(), "merge_group")?;
    let sha = sha_field(
        required(group.base_sha.as_ref(), "merge_group.base_sha")?,
        "merge_group.base_sha",
    )?;
    if let Some(head_sha) = &group.head_sha {
        side.head.sha = Some(sha_field(head_sha, "merge_group.head_sha")?);
    }
    if let Some(name) = group.base_ref.as_deref() {
        let full = ref_field(name, "merge_group.base_ref")?;
        side.base_ref = Some(ref_field(full.short(), "merge_group.base_ref")?);
    }
    b.note("merge queue: the baseline is the queue's base commit");
    Ok(side.decided(Baseline::Known {
        sha,
        source: BaseSource::MergeGroupBase,
        origin: "merge_group.base_sha".to_owned(),
    }))
}

pub(super) fn default_branch(
    payload: &Payload,
    settings: &Settings,
    b: &mut Notes,
) -> Result<Outcome, PayloadError> {
    let side = repository_side(payload, settings, b)?;
    match &side.base_ref {
        Some(branch) => b.note(format!(
            "no base commit in the payload: the baseline is the tip of the default branch {branch}, resolved once"
        )),
        None => b.note(
            "no base commit in the payload: the baseline is the tip of the default branch, resolved once",
        ),
    }
    let lookup = Lookup::Ref(side.base_ref.clone());
    let source = BaseSource::DefaultBranch;
    Ok(side.decided(Baseline::Lookup { source, lookup }))
}

pub(super) fn release(
    payload: &Payload,
    settings: &Settings,
    b: &mut Notes,
) -> Result<Outcome, PayloadError> {
    let side = repository_side(payload, settings, b)?;
    let release = required(payload.release.as_ref(), "release")?;
    let tag = required(release.tag_name.as_ref(), "release.tag_name")?;
    let tag = ref_field(tag, "release.tag_name")?;
    b.note(format!(
        "release {tag}: the baseline is the previous release tag of {}",
        side.repo
    ));
    let lookup = Lookup::PreviousTag {
        current: tag.as_str().to_owned(),
    };
    let source = BaseSource::PreviousTag;
    Ok(side.decided(Baseline::Lookup { source, lookup }))
}

/// An event without a rule: a skip that names it.
pub(super) fn unsupported(
    name: &str,
    payload: &Payload,
    settings: &Settings,
    b: &mut Notes,
) -> Result<Outcome, PayloadError> {
    let side = repository_side(payload, settings, b)?;
    b.note(format!("no baseline rule for the `{name}` event"));
    let reason = SkipReason::UnsupportedEvent(name.to_owned());
    Ok(side.decided(Baseline::Skip { reason }))
}
