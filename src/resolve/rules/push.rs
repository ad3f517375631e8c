//! Pushes: a deleted ref is skipped; a tag is compared with the release
//! before it; a branch with its previous tip (fast-forward), the merge-base
//! of the old and new tips (forced), or where it branched off (new branch).

use super::{
    BaseSource, Baseline, Commitish, Head, Lookup, Notes, Outcome, PayloadError, Settings,
    SkipReason, default_branch_of, own_repo, ref_field, required, sha_field,
};
use crate::github::event::Payload;
use crate::validate::{RefName, Sha};

pub(super) fn push(
    payload: &Payload,
    settings: &Settings,
    b: &mut Notes,
) -> Result<Outcome, PayloadError> {
    let repository = payload.repository.as_ref();
    let repo = own_repo(repository, "repository.full_name", settings)?;
    b.note(format!("base repo: {repo} (repository.full_name)"));
    let git_ref = ref_field(required(payload.git_ref.as_ref(), "ref")?, "ref")?;
    let before = required(payload.before.as_ref(), "before")?;
    let after = required(payload.after.as_ref(), "after")?;
    let default_branch = default_branch_of(repository, "repository.default_branch")?;
    let branch = match git_ref.branch() {
        Some(name) => Some(ref_field(name, "ref")?),
        None => None,
    };
    let mut outcome = Outcome {
        base_ref: branch.clone().or_else(|| default_branch.clone()),
        head: Head {
            repo: Some(repo.clone()),
            sha: None,
            is_fork: false,
        },
        base_repo: repo,
        baseline: Baseline::Skip {
            reason: SkipReason::RefDeleted,
        },
    };
    if payload.deleted == Some(true) || (Sha::is_zero(after) && !Sha::is_zero(before)) {
        b.note(format!("push deleted {git_ref}: nothing to benchmark"));
        return Ok(outcome);
    }
    let after = sha_field(after, "after")?;
    outcome.head.sha = Some(after.clone());
    outcome.baseline = match (git_ref.tag(), &branch) {
        (Some(tag), _) => {
            outcome.base_ref = default_branch;
            tag_push(tag, &outcome, b)
        }
        (None, None) => {
            b.note(format!(
                "push of {git_ref}, which is neither a branch nor a tag"
            ));
            Baseline::Skip {
                reason: SkipReason::UnsupportedRef,
            }
        }
        (None, Some(_)) => branch_push(payload, &git_ref, before, after, default_branch, b)?,
    };
    Ok(outcome)
}

/// A tag: the release before it.
fn tag_push(tag: &str, outcome: &Outcome, b: &mut Notes) -> Baseline {
    b.note(format!(
        "push of tag {tag}: the baseline is the previous release tag of {}",
        outcome.base_repo
    ));
    Baseline::Lookup {
        source: BaseSource::PreviousTag,
        lookup: Lookup::PreviousTag {
            current: tag.to_owned(),
        },
    }
}

/// A branch: new, forced or fast-forward.
fn branch_push(
    payload: &Payload,
    git_ref: &RefName,
    before: &str,
    after: Sha,
    default_branch: Option<RefName>,
    b: &mut Notes,
) -> Result<Baseline, PayloadError> {
    if Sha::is_zero(before) || payload.created == Some(true) {
        b.note(format!(
            "push created {git_ref} (before is the zero SHA): the baseline is where it branched from the default branch; the zero SHA is never fetched"
        ));
        return Ok(Baseline::Lookup {
            source: BaseSource::BranchPoint,
            lookup: Lookup::MergeBase {
                base: Commitish::BranchTip(default_branch),
                head: after,
            },
        });
    }
    let before = sha_field(before, "before")?;
    if payload.forced == Some(true) {
        b.note(format!(
            "forced push to {git_ref}: `before` {before} may not be an ancestor of `after`, so the baseline is their merge-base"
        ));
        return Ok(Baseline::Lookup {
            source: BaseSource::PushMergeBase,
            lookup: Lookup::MergeBase {
                base: Commitish::Sha(before),
                head: after,
            },
        });
    }
    b.note(format!(
        "fast-forward push to {git_ref}: the baseline is the previous tip"
    ));
    Ok(Baseline::Known {
        sha: before,
        source: BaseSource::PushBefore,
        origin: "before".to_owned(),
    })
}
