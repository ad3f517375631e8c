//! The rules' identities (id, severity, what is wrong, the fix) and what a
//! rule reports: one table, read by the checks, every output form, SARIF's
//! rule metadata, `--help` and the agreement test with docs/lint.md.

use super::yaml::Pos;

/// Ordered: `--fail-on warning` fails on warnings and errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Note,
    Warning,
    Error,
}

impl Severity {
    pub fn parse(text: &str) -> Option<Severity> {
        match text {
            "note" => Some(Severity::Note),
            "warning" => Some(Severity::Warning),
            "error" => Some(Severity::Error),
            _ => None,
        }
    }

    /// Also SARIF's `level` and the workflow command's name.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

#[derive(Debug)]
pub struct Rule {
    pub id: &'static str,
    pub severity: Severity,
    /// What is wrong, one line.
    pub message: &'static str,
    pub fix: &'static str,
}

pub const RULES: &[Rule] = &[
    Rule {
        id: "job-always",
        severity: Severity::Error,
        message: "job-level always() on a long or self-hosted job: cancelling the run cannot stop it",
        fix: "use `!cancelled()` (with the same other conditions) so a cancelled run frees the runner",
    },
    Rule {
        id: "fork-remote",
        severity: Severity::Error,
        message: "the baseline is fetched from the fork: `origin` (or this URL) is the head repository here",
        fix: "fetch the base from the base repository (github.event.pull_request.base.repo.clone_url), or let baseline-resolver resolve and fetch it",
    },
    Rule {
        id: "baseline-walk",
        severity: Severity::Error,
        message: "a loop over older commits as baseline candidates: a failed baseline is retried against each",
        fix: "benchmark exactly one baseline (the resolved base SHA) and say loudly when it fails",
    },
    Rule {
        id: "moving-fallback",
        severity: Severity::Error,
        message: "a commit that falls back to a branch name: the baseline silently becomes whatever that branch is now",
        fix: "fail or skip with a warning when the commit is missing; never compare against a moving branch",
    },
    Rule {
        id: "unchecked-before",
        severity: Severity::Warning,
        message: "github.event.before used as a commit without handling a new branch (all zeros) or a force-push (unreachable)",
        fix: "check for the zero SHA and that the commit exists (git cat-file -e), or let baseline-resolver decide",
    },
    Rule {
        id: "silent-baseline",
        severity: Severity::Error,
        message: "a baseline or comparison that can fail silently: the job goes green with no comparison",
        fix: "let the step fail, or emit a ::warning:: and fail the gate as inconclusive (baseline-resolver compare --strict)",
    },
    Rule {
        id: "long-timeout",
        severity: Severity::Warning,
        message: "a benchmark allowed 120 minutes or more (or no timeout on a self-hosted runner: 360)",
        fix: "set timeout-minutes near twice the usual run time",
    },
    Rule {
        id: "unpinned-clone",
        severity: Severity::Warning,
        message: "a dependency cloned or installed at a moving ref: baseline and current measure different code",
        fix: "check out or install a full commit SHA (git checkout <sha>, pip install git+URL@<sha>, ref: <sha>)",
    },
    Rule {
        id: "cache-discipline",
        severity: Severity::Note,
        message: "a cache that pull requests save, or whose key hashes the workflow file",
        fix: "restore only on pull requests (actions/cache/restore) and save on the default branch; key on what the cache holds",
    },
    Rule {
        id: "tag-sort",
        severity: Severity::Warning,
        message: "the latest release picked by version sort: pre-releases (-rc1, .dev804) rank above the release",
        fix: "pick the release with a version parser that orders pre-releases first (baseline-resolver's release-tag)",
    },
    Rule {
        id: "cancel-main",
        severity: Severity::Warning,
        message: "cancel-in-progress on a group the default branch's runs share: consecutive main runs cancel each other's baselines",
        fix: "cancel-in-progress: ${{ github.event_name == 'pull_request' }}",
    },
    Rule {
        id: "discard-partial",
        severity: Severity::Error,
        message: "benchmark results are used only when the whole suite exited 0: one failed benchmark throws every good row away",
        fix: "keep the rows that were written (compare the valid rows, warn with the exit status), e.g. `baseline-resolver bench`",
    },
    Rule {
        id: "label-cancel",
        severity: Severity::Warning,
        message: "a `labeled` trigger in a cancelling per-pull-request group: adding any label cancels the running benchmark jobs",
        fix: "leave labeled runs out of the cancel: cancel-in-progress: ${{ github.event.action != 'labeled' }}, or put github.event.action in the group",
    },
    Rule {
        id: "shallow-merge-base",
        severity: Severity::Warning,
        message: "git merge-base after a depth-1 fetch: the commits are grafted, the merge base wrong or missing",
        fix: "fetch enough history (fetch-depth: 0, or git fetch --deepen) or use the event's base SHA",
    },
];

pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

/// What a check reports: the rule, where, and the lines of the nodes that
/// hold it (a suppression comment there applies too).
#[derive(Debug, Clone)]
pub struct Hit {
    pub rule: &'static str,
    pub at: Pos,
    /// The message when the rule's own needs a detail.
    pub detail: Option<String>,
    pub parents: Vec<usize>,
}

#[derive(Debug, Clone)]
pub struct Finding {
    pub rule: &'static Rule,
    pub file: String,
    pub at: Pos,
    pub message: String,
}
