//! The checks: pure functions from a [`Workflow`] (and which of its jobs
//! run benchmarks, [`Benchmarks`]) to [`Hit`]s. [`jobs`] reads job and step
//! settings (conditions, timeouts, concurrency, caches), [`results`] what
//! happens to results (`continue-on-error`, an exit 0 when they are
//! missing, a partial file thrown away), [`git`] the git commands of
//! scripts (with [`later`], where a script pins and pushes, found once,
//! and [`checkouts`], what later steps do with a checkout),
//! [`expressions`] the `${{ }}` expressions and the shell defaults that
//! stand for commits.

pub mod acted;
pub mod cache;
pub mod checkouts;
pub mod expressions;
pub mod git;
pub mod group;
pub mod handed;
pub mod jobs;
pub mod later;
pub mod loops;
pub mod pwsh;
pub mod results;
pub mod status;

use super::evidence::{Benchmarks, runs_benchmarks, step_runs_a_program, step_runs_benchmarks};
use super::finding::Hit;
use super::names::{self, prepares_benchmarks};
use super::shell::Command;
use super::workflow::{Job, Step, Workflow};
use super::yaml::Pos;

pub fn check(w: &Workflow<'_>, bench: &Benchmarks) -> Vec<Hit> {
    let mut hits = Vec::new();
    jobs::check(w, bench, &mut hits);
    results::check(w, bench, &mut hits);
    git::check(w, bench, &mut hits);
    expressions::check(w, bench, &mut hits);
    hits
}

/// A hit outside any job (the workflow's `env:` or `concurrency:`).
fn hit_at(rule: &'static str, at: Pos) -> Hit {
    Hit {
        rule,
        at,
        detail: None,
        parents: Vec::new(),
    }
}

/// A hit inside `job` (and `step`): a suppression on their lines applies.
fn hit(rule: &'static str, at: Pos, job: &Job<'_>, step: Option<&Step<'_>>) -> Hit {
    let mut parents = vec![job.id.at.line];
    if let Some(s) = step {
        parents.push(s.node.at.line);
    }
    Hit {
        rule,
        at,
        detail: None,
        parents,
    }
}

/// Whether `text` names a benchmark baseline or a comparison of results.
fn about_baseline(text: &str) -> bool {
    ["baseline", "compar", "regress"]
        .iter()
        .any(|k| text.contains(k))
}

fn is_sha(text: &str) -> bool {
    text.len() == 40 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// A SHA of 7 hex digits or more, as `git log --oneline` prints it: git
/// resolves it to one commit (or refuses it as ambiguous), so it does not
/// move. A digit among them tells it from a word (`deadbeef`, `facade`).
fn abbreviated_sha(text: &str) -> bool {
    (7..=40).contains(&text.len())
        && text.bytes().all(|b| b.is_ascii_hexdigit())
        && text.bytes().any(|b| b.is_ascii_digit())
}

/// A ref that names a fixed commit, or cannot be told: a SHA, a
/// variable or expression (assumed resolved), a version tag (`v1.2`).
/// Not an expression or a shell default that falls back to a branch
/// written out: `${{ inputs.ref || 'main' }}`, `${REF:-master}`, nor one
/// whose fallback is any literal that names no fixed commit
/// (timefold's `... && 'main' || '1.x'`, the maintenance line).
fn pinned_ref(text: &str) -> bool {
    let t = text.trim();
    !falls_back_to_a_branch(t) && (t.contains('$') || fixed_literal(t))
}

/// Whether a literal ref names a fixed commit: a SHA, full or
/// abbreviated (`git checkout b3612ef`), or a version tag (`v1.2`,
/// `1.2.3`, `r1.16.0`), not a maintenance line (`7.2`, `1.x`).
fn fixed_literal(t: &str) -> bool {
    abbreviated_sha(t)
        || t.strip_prefix('v')
            .unwrap_or(t)
            .starts_with(|c: char| c.is_ascii_digit())
            && !maintenance_branch(t)
        || prefixed_release(t)
}

/// The variable and its default in the text after a `${`: `BASE_SHA:-main}`
/// (or `-`, `:=`, which also assigns it, `=`) gives `BASE_SHA` and
/// `main`; `None` when it sets no default (`${SHA:0:7}`, `${X#y}`).
fn shell_default(after_open: &str) -> Option<(&str, &str)> {
    let inner = after_open.get(..after_open.find('}')?)?;
    let (name, rest) = inner.split_at(inner.find([':', '-', '='])?);
    let rest = rest.strip_prefix(':').unwrap_or(rest);
    let default = rest.strip_prefix(['-', '='])?;
    let plain = !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    plain.then_some((name, default))
}

/// Whether `t` falls back to a moving literal when what comes first is
/// empty: `|| 'x'` in an expression, `${NAME:-x}` (or `-`, `:=`, `=`) in
/// the shell, `x` not empty and no fixed commit.
fn falls_back_to_a_branch(t: &str) -> bool {
    let moving = |lit: &str| !lit.is_empty() && !lit.contains('$') && !fixed_literal(lit);
    let expression = t.match_indices("||").any(|(at, _)| {
        let rest = t.get(at.saturating_add(2)..).unwrap_or("").trim_start();
        let Some(quote) = rest.chars().next().filter(|c| matches!(c, '\'' | '"')) else {
            return false;
        };
        rest.get(1..)
            .and_then(|r| r.split_once(quote))
            .is_some_and(|(lit, _)| moving(lit))
    });
    let shell = t.match_indices("${").any(|(at, _)| {
        shell_default(t.get(at.saturating_add(2)..).unwrap_or(""))
            .is_some_and(|(_, d)| moving(d.trim_matches(['"', '\''])))
    });
    expression || shell
}

/// Two numbers alone (`7.2`, `1.16`), or a number and `x` (`1.x`, a
/// maintenance line): redis's `7.2` is a branch that takes each fix, its
/// releases are `7.2.4`. With a `v` (`v1.2`) it is read as a tag, as
/// actions' `v4` is.
fn maintenance_branch(t: &str) -> bool {
    let number = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    let line = t.strip_prefix('v').unwrap_or(t);
    matches!(t.split('.').collect::<Vec<_>>().as_slice(), [major, minor] if number(major) && number(minor))
        || matches!(line.split('.').collect::<Vec<_>>().as_slice(), [.., last] if *last == "x" || *last == "X")
}

/// A release tag whose version follows a word: `r1.16.0` (nvc),
/// `llvmorg-17.0.1`, `jq-1.7.1`, `lts_2022_06_23`. Three numbers are
/// asked for, since a word and two numbers is as often a maintenance
/// branch (`release-1.2`, `stable-2.0`) that moves.
fn prefixed_release(t: &str) -> bool {
    let rest = t.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let word = rest.len() < t.len();
    let rest = rest
        .strip_prefix('-')
        .or_else(|| rest.strip_prefix('_'))
        .unwrap_or(rest);
    let number = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
    let parts: Vec<&str> = rest.splitn(3, '.').collect();
    let dotted = matches!(parts.as_slice(), [major, minor, patch]
            if number(major) && number(minor) && patch.starts_with(|c: char| c.is_ascii_digit())
                && !forks_line(patch));
    // Some projects write their numbers apart with `_`: Abseil's dated
    // LTS tags (`lts_2022_06_23`), Boost's old `Boost_1_84_0`.
    let underscored = matches!(rest.splitn(4, '_').collect::<Vec<_>>().as_slice(),
            [major, minor, patch] if number(major) && number(minor) && number(patch));
    word && (dotted || underscored)
}

/// Whether a version's last part ends in a word that names a line of
/// work, not a release's stage: gazelle_plugin's `arrow-4.0.0-oap`, the
/// branch its fork of Arrow moves on. A stage (`-rc1`, `-beta`, `.post1`,
/// `+build`) is still a tag.
fn forks_line(patch: &str) -> bool {
    let after = patch.trim_start_matches(|c: char| c.is_ascii_digit());
    let Some(word) = after.strip_prefix('-') else {
        return false;
    };
    let stage = [
        "rc", "alpha", "beta", "a", "b", "dev", "post", "pre", "final", "release",
    ];
    let letters = word.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    !word.is_empty()
        && !word.starts_with(|c: char| c.is_ascii_digit())
        && !stage.contains(&letters.to_ascii_lowercase().as_str())
}

/// Options of git's subcommands (`fetch`, `pull`, `clone`, `ls-remote`,
/// `checkout`, `switch`, `reset`, `merge-base`, `worktree`) that take their
/// value as the next word: `git fetch --depth 1 origin main` fetches
/// `main` from `origin`, not from `1`. Written `--depth=1` the value is in
/// the word itself.
const TAKES_VALUE: &[&str] = &[
    "--depth",
    "--deepen",
    "--shallow-since",
    "--shallow-exclude",
    "--jobs",
    "-j",
    "--upload-pack",
    "-u",
    "--refmap",
    "--server-option",
    "-o",
    "--origin",
    "--negotiation-tip",
    "--filter",
    "--recurse-submodules-default",
    "--submodule-prefix",
    "--branch",
    "-b",
    "-B",
    "--orphan",
    "--reference",
    "--reference-if-able",
    "--separate-git-dir",
    "--config",
    "--template",
    "--bundle-uri",
    "--strategy",
    "-s",
    "--strategy-option",
    "-X",
    "--sort",
    "--create",
    "-c",
    "--force-create",
    "-C",
];

/// The words after `git [-C dir] <sub>` that are neither options nor the
/// values of options.
fn positionals(c: &Command) -> Vec<&str> {
    let mut seen_sub = false;
    let mut skip = false;
    let mut out = Vec::new();
    for w in c.words.iter().skip(1) {
        let t = w.text.as_str();
        if skip {
            skip = false;
        } else if !seen_sub && (t == "-C" || t == "-c") {
            skip = true;
        } else if t.starts_with('-') {
            skip = seen_sub && TAKES_VALUE.contains(&t);
        } else if !seen_sub {
            seen_sub = true;
        } else {
            out.push(t);
        }
    }
    out
}

/// The directory a `git clone` makes: its second argument, else the
/// URL's last segment without `.git`.
pub(super) fn clone_dir(c: &Command) -> Option<&str> {
    let args = positionals(c);
    let url = args.first().copied()?;
    Some(args.get(1).copied().unwrap_or_else(|| {
        let last = url
            .trim_end_matches('/')
            .rsplit(['/', ':'])
            .next()
            .unwrap_or(url);
        last.strip_suffix(".git").unwrap_or(last)
    }))
}

/// Which of `job`'s steps measure: those seen to run benchmarks; in a
/// benchmark job none of whose steps is seen to (one by its name, its
/// workflow's or its runner's), those that run a program and are not
/// named for a chore, as the job's evidence says they do: sglang-jax's
/// `pallas-kernel-benchmark` runs
/// `run_suite.py --suite kernel-performance-test-...` in a step named
/// "Run test", allowed 120 minutes.
pub(super) fn measuring_steps(job: &Job<'_>) -> fn(&Step<'_>) -> bool {
    // An upload of results is evidence that the job measured, not a step
    // that measures: when it is the only evidence, the program steps
    // measured what it uploads (rally's "Run tests", allowed 160 minutes,
    // whose races' logs under `benchmarks/` are uploaded).
    let measures = |s: &Step<'_>| {
        step_runs_benchmarks(s) && s.action().as_deref() != Some("actions/upload-artifact")
    };
    if runs_benchmarks(job) && job.steps.iter().any(measures) {
        step_runs_benchmarks
    } else {
        program_not_chore
    }
}

/// Words of a step's name that say it fetches, moves or starts what the
/// benchmark needs ("Download Models", "Pull base image", "Start CI
/// container"), a chore however long it is allowed: ROCm/aiter's
/// `atom_benchmark` allows its model download 150 minutes.
const FETCHES: &[&str] = &[
    "download", "pull", "fetch", "upload", "login", "start", "stop", "wait", "copy", "cache",
    "restore", "save", "checkout",
];

/// A step that runs a program and whose name says no chore around the
/// benchmark (neither [`prepares_benchmarks`] nor [`FETCHES`]).
fn program_not_chore(step: &Step<'_>) -> bool {
    let chore = step.text("name").is_some_and(|n| {
        prepares_benchmarks(n)
            || names::words(&names::written(n)).any(|w| FETCHES.contains(&w.as_str()))
    });
    step_runs_a_program(step) && !chore
}

#[cfg(test)]
mod tests {
    use super::pinned_ref;

    #[test]
    fn a_release_tag_after_a_word_is_pinned_and_a_branch_is_not() {
        for pinned in [
            "r1.16.0",
            "llvmorg-17.0.1",
            "jq-1.7.1",
            "v2.1",
            "1.2.0",
            "7",
            "release_3.4.5rc1",
            // Numbers apart with `_`: Abseil's dated LTS tag.
            "lts_2022_06_23",
            "Boost_1_84_0",
            // An abbreviated SHA: QuantLib-Forge's `git checkout b3612ef`.
            "b3612ef",
        ] {
            assert!(pinned_ref(pinned), "{pinned}");
        }
        for moving in [
            "release-1.2",
            "stable-2.0",
            "main",
            "r1.16",
            "release/1.2.3",
            "lts_2022_06",
            "feature_1_2_x",
            // Two numbers alone: redis's maintenance branch `7.2`.
            "7.2",
            "1.2",
            // A maintenance line.
            "1.x",
            "v2.x",
            // Hex letters alone are a word, and six digits too few.
            "deadbeef",
            "b3612e",
        ] {
            assert!(!pinned_ref(moving), "{moving}");
        }
    }

    #[test]
    fn a_fallback_to_any_branch_written_out_moves() {
        for moving in [
            "${{ inputs.ref || 'main' }}",
            "${{ inputs.version == '2.x' && 'main' || '1.x' }}",
            "${{ inputs.ref || \"development\" }}",
            "${REF:-master}",
            "${REF:=dev}",
        ] {
            assert!(!pinned_ref(moving), "{moving}");
        }
        for pinned in [
            "${{ inputs.ref }}",
            "${{ inputs.ref || 'v1.9.3' }}",
            "${{ inputs.sha || github.sha }}",
            "${{ inputs.ref || '' }}",
            "${REF:-$DEFAULT}",
            "${SHA:0:7}",
        ] {
            assert!(pinned_ref(pinned), "{pinned}");
        }
    }
}
