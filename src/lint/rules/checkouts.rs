//! What the later steps of a job do with an `actions/checkout` of another
//! repository at a moving ref: pin it (`git checkout "$sha"` run inside
//! it), or only send results with it (a results sender's scripts). Either
//! way the benchmark does not measure a moving tip, so `unpinned-clone`
//! does not apply (read on asv-runner, which checks out pandas
//! and then the commit it chose to measure, and on tfhe-rs, which checks
//! out its results sender before its GPU benchmarks). Pure.

use std::cell::OnceCell;
use std::collections::BTreeMap;

use super::later::last_segment;
use super::{clone_dir, pinned_ref, positionals};
use crate::lint::places;
use crate::lint::shell::{Command, file_name};
use crate::lint::workflow::{Job, Step};

/// Whether the checkout at step `position` of `job` is settled by what
/// comes after it: pinned to a commit inside its directory, pushed to (a
/// target, as a clone pushed to is), or used only to send results.
pub fn settled(job: &Job<'_>, position: usize, uses: &OnceCell<Uses>) -> bool {
    let Some(step) = job.steps.get(position) else {
        return false;
    };
    if step.action().as_deref() != Some("actions/checkout") {
        return false;
    }
    let uses = uses.get_or_init(|| Uses::of(job));
    let path = step.with_text("path").unwrap_or_default();
    let path = path.trim().trim_start_matches("./").trim_end_matches('/');
    let by_path = !path.is_empty() && !path.contains("${{") && {
        let later: Vec<&Use> = uses.under(path).filter(|u| u.position > position).collect();
        // Pushed by an action given its folder, or used only to send.
        later.iter().any(|u| u.pushes) || !later.is_empty() && later.iter().all(|u| u.sends)
    };
    // Where the checkout lies is followed only when a later step pins or
    // pushes at all: following it reads the whole job again.
    let after = |last: Option<usize>| last.is_some_and(|l| l > position);
    by_path
        || after(uses.last_pin) && inside_later(job, step, position, pins)
        || after(uses.last_push) && inside_later(job, step, position, pushes)
}

/// One use of a path by a step of the job: a command word or the
/// `working-directory:` a command runs in, or a line of a `with:` value
/// an action is given. Read once per job, so that a checkout's question
/// is a lookup, not a reading of every later step again.
pub struct Use {
    position: usize,
    /// The use only sends results (its program, script or action is
    /// named for sending, and builds no image).
    sends: bool,
    /// An action named for pushing what the job made is given the path
    /// (`ad-m/github-push-action` with `directory: geocat-comp-asv`, the
    /// results repository geocat-comp's benchmarks commit to): a target
    /// the job writes to, as one `git push`ed is. Not
    /// `docker/build-push-action`: an image built from it is measured.
    pushes: bool,
}

/// Every use of a path by the job's steps, by the path as written
/// (workspace prefixes and `./` taken off), and the last steps that pin a
/// commit or push.
pub struct Uses {
    by_text: BTreeMap<String, Vec<Use>>,
    last_pin: Option<usize>,
    last_push: Option<usize>,
}

impl Uses {
    fn of(job: &Job<'_>) -> Uses {
        let mut by_text: BTreeMap<String, Vec<Use>> = BTreeMap::new();
        let mut add =
            |text: &str, u: Use| by_text.entry(normal(text).to_owned()).or_default().push(u);
        let (mut last_pin, mut last_push) = (None, None);
        for (position, later) in job.steps.iter().enumerate() {
            if let Some(script) = &later.script {
                let wd = later.text("working-directory");
                for c in &script.commands {
                    if pins(c) {
                        last_pin = Some(position);
                    }
                    if pushes(c) {
                        last_push = Some(position);
                    }
                    let sends = sends(c.words.iter().map(|w| w.text.as_str()));
                    let u = || Use {
                        position,
                        sends,
                        pushes: false,
                    };
                    if let Some(wd) = wd {
                        add(wd, u());
                    }
                    for w in &c.words {
                        add(&w.text, u());
                    }
                }
            } else if let Some(with) = later.node.get("with") {
                let action = later.action().unwrap_or_default();
                let image = crate::lint::names::builds_an_image(&action);
                let sends = !image && sends(std::iter::once(action.as_str()));
                let pushes = crate::lint::names::pushes_what_it_made(&action);
                let mut values = Vec::new();
                with.scalars(&mut values);
                for v in &values {
                    for line in v.text.lines() {
                        add(
                            line,
                            Use {
                                position,
                                sends,
                                pushes,
                            },
                        );
                    }
                }
            }
        }
        Uses {
            by_text,
            last_pin,
            last_push,
        }
    }

    /// The uses of `dir` or of a path under it.
    fn under<'u>(&'u self, dir: &str) -> impl Iterator<Item = &'u Use> {
        let exact = self.by_text.get(dir).into_iter().flatten();
        // Between `dir/` and `dir0`: every path under it (`0` follows `/`).
        let below = self
            .by_text
            .range(format!("{dir}/")..format!("{dir}0"))
            .flat_map(|(_, v)| v.iter());
        exact.chain(below)
    }
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
                let other = other_repository(&script.commands);
                script
                    .commands
                    .iter()
                    .zip(inside)
                    .zip(other)
                    .any(|((c, here), other)| *here && !other && does(c))
            })
        })
}

/// Per command, whether it runs in another repository made inside the
/// checkout: after a `git init`, or after a `cd` into a directory a `git
/// clone` of the script made. zio-http's benchmark step goes into its
/// FrameworkBenchmarks checkout, `git init`s a folder there, clones its
/// own pull request into it and checks that clone out at the pull
/// request's commit: the checkout itself stays at its tip.
fn other_repository(commands: &[Command]) -> Vec<bool> {
    let mut clones: Vec<String> = Vec::new();
    let mut left = false;
    commands
        .iter()
        .map(|c| {
            let here = left;
            if c.git("init") {
                left = true;
            } else if c.git("clone") {
                clones.extend(clone_dir(c).map(last_segment));
            } else if c.name() == Some("cd")
                && c.words
                    .get(1)
                    .is_some_and(|w| clones.contains(&last_segment(&w.text)))
            {
                left = true;
            }
            here
        })
        .collect()
}

fn pushes(c: &Command) -> bool {
    c.git("push")
}

fn pins(c: &Command) -> bool {
    (c.git("checkout") || c.git("switch") || c.git("reset"))
        && positionals(c).iter().any(|r| pinned_ref(r))
}

/// A path as written, relative to the workspace: quotes, the workspace's
/// own prefix (`$GITHUB_WORKSPACE/`, `${{ github.workspace }}/`) and `./`
/// taken off; `dir/x` is then under `dir`.
fn normal(text: &str) -> &str {
    let t = text.trim().trim_matches(|c| c == '"' || c == '\'');
    [
        "${GITHUB_WORKSPACE}/",
        "$GITHUB_WORKSPACE/",
        "${{ github.workspace }}/",
        "./",
    ]
    .iter()
    .find_map(|p| t.strip_prefix(p))
    .unwrap_or(t)
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
        // Paths under the checkout are found by the index; a sibling is not.
        let mut by_text: BTreeMap<String, Vec<Use>> = BTreeMap::new();
        for (position, text) in [
            "slab/scripts/data_sender.py",
            "$GITHUB_WORKSPACE/slab",
            "slabs/x",
            "slab0",
        ]
        .into_iter()
        .enumerate()
        {
            let u = Use {
                position,
                sends: false,
                pushes: false,
            };
            by_text.entry(normal(text).to_owned()).or_default().push(u);
        }
        let uses = Uses {
            by_text,
            last_pin: None,
            last_push: None,
        };
        let under: Vec<usize> = uses.under("slab").map(|u| u.position).collect();
        assert_eq!(under, [1, 0]);
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
