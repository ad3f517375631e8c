//! What the later steps of a job do with an `actions/checkout` of another
//! repository at a moving ref: pin it (`git checkout "$sha"` run inside
//! it), or only send results with it (a results sender's scripts). Either
//! way the benchmark does not measure a moving tip, so `unpinned-clone`
//! does not apply (read on asv-runner, which checks out pandas
//! and then the commit it chose to measure, and on tfhe-rs, which checks
//! out its results sender before its GPU benchmarks). Pure.

use super::{pinned_ref, positionals};
use crate::lint::places;
use crate::lint::shell::{Command, file_name};
use crate::lint::workflow::{Job, Step};

/// Whether the checkout at step `position` of `job` is settled by what
/// comes after it: pinned to a commit inside its directory, pushed to (a
/// target, as a clone pushed to is), or used only to send results.
pub fn settled(job: &Job<'_>, position: usize) -> bool {
    let Some(step) = job.steps.get(position) else {
        return false;
    };
    step.action().as_deref() == Some("actions/checkout")
        && (inside_later(job, step, position, pins)
            || inside_later(job, step, position, pushes)
            || pushed_by_action(job, step, position)
            || only_sends(job, step, position))
}

/// Whether a later step's action named for pushing or deploying what the
/// job made is given the checkout's folder (`ad-m/github-push-action` with
/// `directory: geocat-comp-asv`, the results repository geocat-comp's
/// benchmarks commit to): a target the job writes to, as one `git push`ed
/// is. Not `docker/build-push-action`: an image built from it is measured.
fn pushed_by_action(job: &Job<'_>, step: &Step<'_>, position: usize) -> bool {
    let path = step.with_text("path").unwrap_or_default();
    let path = path.trim().trim_start_matches("./").trim_end_matches('/');
    if path.is_empty() || path.contains("${{") {
        return false;
    }
    job.steps
        .iter()
        .skip(position.saturating_add(1))
        .any(|later| {
            let action = later.action().unwrap_or_default();
            let pushes = crate::lint::names::pushes_what_it_made(&action);
            let given = later.node.get("with").is_some_and(|with| {
                let mut values = Vec::new();
                with.scalars(&mut values);
                values.iter().any(|v| refers(&v.text, path))
            });
            pushes && given
        })
}

/// Whether a later step runs a command `does` inside the checkout: a `git
/// checkout|switch|reset <commit>` (a full SHA, or a variable holding the
/// commit chosen) pins it; a `git push` makes it a target the job
/// writes to (test-infra's weekly job checks out pytorch/pytorch, updates
/// its expected-accuracy files from CI results and pushes a branch for a
/// pull request).
fn inside_later(
    job: &Job<'_>,
    step: &Step<'_>,
    position: usize,
    does: fn(&Command) -> bool,
) -> bool {
    let Some(name) = step.with_text("repository") else {
        return false;
    };
    // Where the checkouts of this repository lie, command by command
    // (`path:`, `working-directory:`, `cd`, `git -C`, containers).
    let inside = places::inside_head(job, |r| r == name);
    job.steps
        .iter()
        .zip(&inside)
        .skip(position.saturating_add(1))
        .any(|(later, inside)| {
            later.script.as_ref().is_some_and(|script| {
                script
                    .commands
                    .iter()
                    .zip(inside)
                    .any(|(c, here)| *here && does(c))
            })
        })
}

fn pushes(c: &Command) -> bool {
    c.git("push")
}

fn pins(c: &Command) -> bool {
    (c.git("checkout") || c.git("switch") || c.git("reset"))
        && positionals(c).iter().any(|r| pinned_ref(r))
}

/// The checkout has a `path:` of its own, a later step uses it, and every
/// use is a sender: a command naming a file under it whose program or
/// script is named for sending (`python3 slab/scripts/data_sender.py`),
/// or an action named so given a path under it. A `cd` into it, or any
/// other use, is not.
fn only_sends(job: &Job<'_>, step: &Step<'_>, position: usize) -> bool {
    let path = step.with_text("path").unwrap_or_default();
    let path = path.trim().trim_start_matches("./").trim_end_matches('/');
    if path.is_empty() || path.contains("${{") {
        return false;
    }
    let mut used = false;
    for later in job.steps.iter().skip(position.saturating_add(1)) {
        if let Some(script) = &later.script {
            let in_dir = later
                .text("working-directory")
                .is_some_and(|w| refers(w, path));
            for c in &script.commands {
                if in_dir || c.words.iter().any(|w| refers(&w.text, path)) {
                    used = true;
                    if !sends(c.words.iter().map(|w| w.text.as_str())) {
                        return false;
                    }
                }
            }
        } else if let Some(with) = later.node.get("with") {
            let mut values = Vec::new();
            with.scalars(&mut values);
            if values
                .iter()
                .any(|v| v.text.lines().any(|l| refers(l, path)))
            {
                used = true;
                let action = later.action().unwrap_or_default();
                let image = crate::lint::names::builds_an_image(&action);
                if image || !sends(std::iter::once(action.as_str())) {
                    return false;
                }
            }
        }
    }
    used
}

/// Whether `text` is a path under `dir`, relative to the workspace.
fn refers(text: &str, dir: &str) -> bool {
    let t = text.trim().trim_matches(|c| c == '"' || c == '\'');
    let t = [
        "${GITHUB_WORKSPACE}/",
        "$GITHUB_WORKSPACE/",
        "${{ github.workspace }}/",
        "./",
    ]
    .iter()
    .find_map(|p| t.strip_prefix(p))
    .unwrap_or(t);
    t.strip_prefix(dir)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// Whether the first words of a command (its program, and the script a
/// launcher runs) are named for sending; options and their values are
/// not read.
fn sends<'w>(words: impl Iterator<Item = &'w str>) -> bool {
    words.filter(|w| !w.starts_with('-')).take(3).any(|w| {
        crate::lint::names::words(file_name(w)).any(|x| crate::lint::names::sends_word(&x))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_under_the_checkout_is_a_use_and_a_sender_is_named_so() {
        assert!(refers("slab/scripts/data_sender.py", "slab"));
        assert!(refers("$GITHUB_WORKSPACE/slab", "slab"));
        assert!(!refers("slabs/x", "slab"));
        assert!(sends(
            ["python3", "slab/scripts/data_sender.py", "r.json"].into_iter()
        ));
        assert!(sends(["actions/upload-artifact"].into_iter()));
        assert!(!sends(
            ["python3", "slab/run_bench.py", "--upload"].into_iter()
        ));
        assert!(!sends(["cd", "slab"].into_iter()));
    }
}
