//! `lint` on the shapes behind the seventh held-out set's wrong findings
//! and misses (issue 49; BENCHMARKS.md, "Mends after held-out 7"). Each
//! fixture in `tests/fixtures/lint/heldout7/` is a real workflow's shape
//! cut down, with look-alikes beside it that must still be found (or
//! stay silent).

use super::calls::findings;
use super::heldout5::lint_in;
use crate::support::harness::{Bin, repo_root};

/// The findings of linting one fixture file, as (rule, line), from the
/// fixture repository's root as a user runs it (so its local actions and
/// called workflows are read beside it).
fn lint(file: &str) -> Vec<(String, u64)> {
    lint_in("heldout7", file)
}

fn at(rule: &str, line: u64) -> (String, u64) {
    (rule.to_owned(), line)
}

/// axolotl's base image build: `ubuntu-latest-m` starts like GitHub's
/// `ubuntu-latest` but is none of GitHub's labels, a custom (larger)
/// runner, so the group main's pushes share cancels a paid build;
/// GitHub's own labels, written exactly, are no such runner.
#[test]
fn a_label_shaped_like_a_github_image_but_not_one_is_custom() {
    assert_eq!(lint("custom-image-label.yml"), [at("cancel-main", 12)]);
    assert_eq!(lint("standard-images.yml"), []);
}

/// nats-server's MQTT benchmarks: `${{ vars.GHA_WORKER_SMALL ||
/// 'ubuntu-latest' }}`, whose only written label is GitHub's and whose
/// variable says small, is a hosted job (no timeout is no finding); a
/// custom label among the results, an expression with none, or a
/// variable that says nothing (RediSearch's `vars.RUNS_ON`, its
/// benchmark EC2 runner) is still unknown.
#[test]
fn an_expression_whose_only_labels_are_hosted_is_hosted() {
    assert_eq!(
        lint("hosted-expression.yml"),
        [
            at("long-timeout", 17),
            at("long-timeout", 23),
            at("long-timeout", 29)
        ]
    );
}

/// sp1's suite: RunsOn's labels are a provider's machine, freed when the
/// job ends; only a GPU instance family makes it expensive.
#[test]
fn a_providers_machine_is_expensive_only_when_it_names_a_gpu() {
    assert_eq!(
        lint("runs-on-provider.yml"),
        [at("long-timeout", 14), at("long-timeout", 19)]
    );
}

/// hidet's regression run: a script under `benchmarks/` launched inside
/// `docker run` inside `srun ... bash -c` makes a benchmark job, whose
/// job and step allowances of 2,880 minutes are one finding; the same
/// wrapper around a unit test makes none.
#[test]
fn a_benchmark_script_inside_a_wrapper_makes_a_benchmark_job() {
    let found = lint("regression.yml");
    assert!(found.contains(&at("long-timeout", 13)), "{found:?}");
    assert!(
        !found
            .iter()
            .any(|(rule, line)| rule == "long-timeout" && *line != 13),
        "one allowance, one finding; the unit tests none: {found:?}"
    );
}

/// hidet's models: `actions/checkout` of a repository a secret names at a
/// branch written out (`ref: ci`) is another project at a moving branch,
/// found at the repository; the code under test (`github.repository` in
/// the expression), a secret's repository at an input's ref, and a job
/// that runs no benchmark are no finding.
#[test]
fn a_repository_from_an_expression_at_a_written_branch_is_unpinned() {
    let found: Vec<_> = lint("regression.yml")
        .into_iter()
        .filter(|(rule, _)| rule == "unpinned-clone")
        .collect();
    assert_eq!(found, [at("unpinned-clone", 27)]);
}

/// SpacetimeDB's merge-queue check: the pull request's head commit
/// fetched from its head repository's URL is the code under test; a
/// branch fetched from that URL is still the fork's remote.
#[test]
fn fetching_the_heads_own_commit_from_its_url_is_the_code_under_test() {
    assert_eq!(lint("head-commit-fetch.yml"), [at("fork-remote", 27)]);
}

/// fluent-bit's packaging tests: a `pull_request_target` labelled run
/// cancels, in its number's group, a called build whose runner comes
/// from a matrix of maps (`matrix.config.runner`), one of them a larger
/// runner (`macos-14-large`); the same calls into GitHub's standard
/// images only are no finding.
#[test]
fn a_called_workflows_runner_from_a_matrix_of_maps_is_read() {
    assert_eq!(lint("package-tests.yml"), [at("label-cancel", 13)]);
    assert_eq!(lint("package-tests-standard.yml"), []);
}

/// The findings of linting several fixture files at once, as (file,
/// rule, line): the calls among them are read.
fn lint_together(files: &[&str]) -> Vec<(String, String, u64)> {
    let root = repo_root().join("tests/fixtures/lint/heldout7");
    let paths: Vec<String> = files
        .iter()
        .map(|f| format!(".github/workflows/{f}"))
        .collect();
    let run = Bin::new()
        .in_dir(&root)
        .arg("lint")
        .args(&paths)
        .args(["--format", "json"])
        .run();
    let v: serde_json::Value = serde_json::from_str(run.stdout.trim())
        .unwrap_or_else(|e| panic!("one JSON object ({e}): {}", run.stdout));
    findings(&v)
}

/// bbolt's benchmark template: `runs-on: ${{ fromJson(inputs.runs-on) }}`
/// is its default, `['ubuntu-latest']`, when its caller passes no
/// runner (a hosted job: no finding), and what the caller passes when it
/// does (`['self-hosted', 'bench']`: a benchmark job with no timeout on
/// a self-hosted runner). Alone, each template is its default.
#[test]
fn a_reusable_workflows_runner_input_is_what_its_callers_give() {
    let files = [
        "template-hosted.yml",
        "template-called-big.yml",
        "bench-callers.yml",
    ];
    let found = lint_together(&files);
    assert_eq!(found.len(), 1, "{found:?}");
    let (file, rule, line) = &found[0];
    assert!(file.ends_with("template-called-big.yml"), "{found:?}");
    assert_eq!((rule.as_str(), *line), ("long-timeout", 12));
    assert_eq!(lint("template-hosted.yml"), []);
    assert_eq!(lint("template-called-big.yml"), []);
}

/// JAX-Toolbox's EKS jobs: a benchmark program given as an input the
/// repository's own action runs (`CMD="${{ inputs.COMMAND }}"` in its
/// `run:`) is what the step runs, so the job on the custom `eks` runner
/// with no timeout is found; a test as that input, or the program in an
/// input the action only passes as an argument, is no benchmark.
#[test]
fn a_command_given_to_the_repositorys_own_action_that_runs_it_is_evidence() {
    assert_eq!(lint("eks-jobs.yml"), [at("long-timeout", 9)]);
}
