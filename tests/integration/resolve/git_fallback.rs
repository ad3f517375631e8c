//! Git answers what the API cannot: the tag listing and branch tips by
//! ls-remote (over HTTPS as GitHub serves git, and over `file://` and
//! `git daemon` for mirrors), a merge-base from the local clone, and
//! `--fetch` of exactly one commit.

use std::path::Path;

use serde_json::{Value, json};

use crate::resolve::online::{REPO, repo_json};
use crate::support::git_https::GitHttps;
use crate::support::gitrepo::{BareRepo, GitDaemon, git};
use crate::support::harness::{Bin, Run};
use crate::support::mock_github::{MockGitHub, error};

fn tags(names: &[(&str, bool)]) -> Vec<(String, bool)> {
    names.iter().map(|(n, a)| (n.to_string(), *a)).collect()
}

/// An API that answers every request 503, so git must answer.
pub async fn api_down() -> MockGitHub {
    let mock = MockGitHub::start().await;
    wiremock::Mock::given(wiremock::matchers::any())
        .respond_with(error(503, "Service Unavailable"))
        .mount(&mock.server)
        .await;
    mock
}

/// A `workflow_dispatch` of REPO against `api`, with git served at
/// `server` (`GITHUB_SERVER_URL`) and `token` as the job's token.
pub fn dispatch_with_git(api: &MockGitHub, server: &str, token: &str) -> Bin {
    Bin::new()
        .payload(
            &json!({"repository": repo_json()}).to_string(),
            "workflow_dispatch",
        )
        .api(&api.url())
        .env("GITHUB_SERVER_URL", server)
        .env("INPUT_TOKEN", token)
        .args(["--timeout", "20"])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tags_and_default_branch_come_from_git_when_the_api_is_down() {
    let repo = BareRepo::new(
        REPO,
        &tags(&[("v1.9.3", true), ("v1.10.0", false), ("v2.0.0rc1", true)]),
        0,
    );
    let daemon = GitDaemon::start(repo.root.path());
    let https = GitHttps::start(repo.root.path()).await;
    let mock = api_down().await;
    for server in [https.url(), repo.file_url(), daemon.url()] {
        let (_, j) = dispatch_with_git(&mock, &server, "ghs_gittoken")
            .json_async()
            .await;
        assert_eq!(j["base_sha"], repo.commits[2], "{server}: main's tip: {j}");
        assert_eq!(j["tag"], "v1.10.0", "{server}");
        assert_eq!(j["tag_sha"], repo.commits[1], "{server}: lightweight tag");
        let w = j["warnings"].to_string();
        assert!(w.contains("answered by git ls-remote"), "{server}: {w}");
        assert!(
            j["trace"]
                .to_string()
                .contains("git ls-remote, because the API failed"),
            "{j}"
        );
    }
    let seen = https.requests();
    assert_eq!(
        seen.len(),
        1,
        "one ls-remote conversation over HTTPS: {seen:?}"
    );
    assert_eq!(
        seen[0].target,
        format!("/{REPO}.git/info/refs?service=git-upload-pack")
    );
}

/// A private repository: git answers 401 until the job's token comes, as
/// `x-access-token` in Basic auth (what actions/checkout sends).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_token_answers_a_private_repositorys_challenge() {
    let repo = BareRepo::new(REPO, &tags(&[("v1.0.0", false)]), 0);
    let https = GitHttps::start(repo.root.path()).await;
    https.make_private();
    let mock = api_down().await;
    let (_, j) = dispatch_with_git(&mock, &https.url(), "ghs_gittoken")
        .json_async()
        .await;
    assert_eq!(j["tag"], "v1.0.0", "{j}");
    let basic = format!(
        "Basic {}",
        openssl::base64::encode_block(b"x-access-token:ghs_gittoken")
    );
    let seen = https.requests();
    assert_eq!(seen[0].authorization, None, "challenged first: {seen:?}");
    assert_eq!(
        seen.last().unwrap().authorization.as_deref(),
        Some(basic.as_str())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn annotated_tags_are_peeled_by_git_and_ten_thousand_tags_work() {
    let mut names: Vec<(String, bool)> = (0..10_000)
        .map(|i| (format!("v0.{}.{}", i / 100, i % 100), i % 2 == 1))
        .collect();
    names.push(("v1.0.0".into(), true));
    let repo = BareRepo::new(REPO, &names, 0);
    let mock = api_down().await;
    let payload = pull_request(&repo.commits[0], &repo.commits[2], repo_json());
    let (_, j) = Bin::new()
        .payload(&payload.to_string(), "pull_request")
        .api(&mock.url())
        .env("GITHUB_SERVER_URL", repo.file_url())
        .args(["--timeout", "30"])
        .json_async()
        .await;
    assert_eq!(j["tag"], "v1.0.0");
    assert_eq!(
        j["tag_sha"], repo.commits[1],
        "annotated tag peeled to its commit: {j}"
    );
    assert!(
        j["trace"]
            .to_string()
            .contains("10001 tags of ROCm/FlyDSL listed"),
        "{j}"
    );
    let warnings = j["warnings"].to_string();
    assert!(
        warnings.contains("the release tags of ROCm/FlyDSL were listed by git ls-remote instead"),
        "git answering for the API is a visible warning: {warnings}"
    );
}

#[test]
fn merge_base_from_the_local_clone_needs_no_network() {
    let repo = BareRepo::new(REPO, &[], 0);
    let clone = full_clone(&repo);
    let payload = json!({"ref": "refs/heads/main", "before": repo.commits[2], "after": repo.commits[1],
        "forced": true, "repository": repo_json()});
    let (_, j) = Bin::new()
        .payload(&payload.to_string(), "push")
        .env("GITHUB_WORKSPACE", clone.path())
        .arg("--offline")
        .json();
    assert_eq!(j["base_sha"], repo.commits[1], "{j}");
    assert_eq!(j["base_source"], "push-merge-base");
    assert!(j["trace"].to_string().contains("from the local clone"));

    // A workflow_run of a push: the first parent, from the clone too.
    let payload = json!({"workflow_run": {"event": "push", "head_sha": repo.commits[2], "head_branch": "main",
        "repository": repo_json(), "head_repository": repo_json(), "pull_requests": []}});
    let (_, j) = Bin::new()
        .payload(&payload.to_string(), "workflow_run")
        .env("GITHUB_WORKSPACE", clone.path())
        .arg("--offline")
        .json();
    assert_eq!(j["base_sha"], repo.commits[1], "{j}");
    assert_eq!(j["base_source"], "workflow-run-parent");
    assert_eq!(j["warnings"], json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fetch_brings_exactly_the_base_commit_at_depth_one() {
    let repo = BareRepo::new(REPO, &tags(&[("v1.0.0", true)]), 3);
    let daemon = GitDaemon::start(repo.root.path());
    let https = GitHttps::start(repo.root.path()).await;
    for server in [https.url(), daemon.url()] {
        fetch_into_a_new_clone(&repo, &server).await;
    }
    assert!(
        https.requests().iter().any(|r| r.method == "POST"),
        "the HTTPS fetch negotiated a pack"
    );
}

async fn fetch_into_a_new_clone(repo: &BareRepo, server: &str) {
    let target = tempfile::tempdir().unwrap();
    git(target.path(), &["init", "--quiet"]);
    let base = &repo.commits[1];
    let fork = json!({"full_name": "jhinpan/FlyDSL-lab"});
    let payload = pull_request(base, &repo.commits[2], fork);
    let run = fetching(&payload, server, "20", target.path())
        .run_async()
        .await;
    run.assert_code(0);
    assert_eq!(
        run.outputs()["base-fetched"],
        "true",
        "{server}: {}",
        run.stdout
    );
    let dir = target.path();
    assert_eq!(fetched_ref(dir), *base);
    assert_eq!(git(dir, &["cat-file", "-t", base]), "commit");
    assert_eq!(
        git(dir, &["rev-list", "--count", "refs/baseline-resolver/base"]),
        "1",
        "depth 1"
    );
    assert_eq!(git(dir, &["tag", "--list"]), "", "no tags");
    assert_eq!(
        git(dir, &["for-each-ref", "--format=%(refname)"]),
        "refs/baseline-resolver/base"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_fetch_is_a_warning_and_nothing_older_is_tried() {
    let target = tempfile::tempdir().unwrap();
    git(target.path(), &["init", "--quiet"]);
    let payload = pull_request(&"a".repeat(40), &"b".repeat(40), repo_json());
    let run = fetching(&payload, "git://127.0.0.1:1", "10", target.path())
        .run_async()
        .await;
    assert_not_fetched(&run);
    assert_eq!(
        run.outputs()["base-sha"],
        "a".repeat(40),
        "the answer stands"
    );
    assert!(run.stdout.contains("nothing older is tried"));
}

/// A clone that already holds the base commit is left as it is: only the
/// ref is set, with no network (the server here is unreachable), and the
/// clone does not become shallow.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fetch_into_a_clone_that_has_the_commit_needs_no_network() {
    let repo = BareRepo::new(REPO, &[], 0);
    let clone = full_clone(&repo);
    let base = &repo.commits[1];
    let payload = pull_request(base, &repo.commits[2], repo_json());
    let run = fetching(&payload, "https://127.0.0.1:1", "10", clone.path())
        .run_async()
        .await;
    run.assert_code(0);
    assert_eq!(run.outputs()["base-fetched"], "true", "{}", run.stdout);
    assert!(
        run.stdout
            .contains("pointed refs/baseline-resolver/base at it, no network")
    );
    let dir = clone.path();
    assert_eq!(fetched_ref(dir), *base);
    assert!(
        !dir.join(".git/shallow").exists(),
        "the clone stays complete"
    );
    assert_eq!(git(dir, &["rev-list", "--count", "HEAD"]), "3");
}

/// What a fetch that fails must leave behind: the checkout exactly as it
/// was (no `.git/shallow` naming a missing commit, no ref), so every git
/// command still works there.
fn assert_checkout_intact(dir: &Path, head: &str) {
    assert!(!dir.join(".git/shallow").exists(), "no shallow file left");
    assert_eq!(git(dir, &["rev-parse", "HEAD"]), head);
    assert_eq!(
        git(dir, &["log", "--format=%H", "-1"]),
        head,
        "git log still works"
    );
    assert_eq!(
        git(
            dir,
            &[
                "for-each-ref",
                "--format=%(refname)",
                "refs/baseline-resolver"
            ]
        ),
        "",
        "no ref written"
    );
    let fsck = std::process::Command::new("git")
        .args(["fsck", "--no-progress"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        fsck.status.success(),
        "{}",
        String::from_utf8_lossy(&fsck.stderr)
    );
}

/// A fetch that receives the commit (and writes `.git/shallow`) but then
/// cannot write its ref: the shallow file once stayed behind, naming a
/// commit of a ref that was never written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fetch_that_fails_after_the_pack_puts_shallow_back() {
    let repo = BareRepo::new(REPO, &[], 0);
    let https = GitHttps::start(repo.root.path()).await;
    let target = tempfile::tempdir().unwrap();
    let dir = target.path();
    let head = one_commit(dir);
    // A file where the ref's directory would go: the ref cannot be written.
    std::fs::write(dir.join(".git/refs/baseline-resolver"), "not a directory").unwrap();
    let run = fetch_run(&https.url(), &repo.commits[1], &repo.commits[2], dir)
        .run_async()
        .await;
    assert_not_fetched(&run);
    assert!(
        !dir.join(".git/shallow").exists(),
        "shallow put back: {}",
        run.stdout
    );
    assert_eq!(git(dir, &["rev-parse", "HEAD"]), head);
    assert_eq!(git(dir, &["log", "--format=%H", "-1"]), head);
}

/// A checkout of loose objects whose empty `objects/pack` (and `info`) a
/// copy dropped, as a runner emulator's copy does: returns its HEAD.
fn checkout_without_empty_dirs(dir: &Path) -> String {
    let head = one_commit(dir);
    for sub in ["objects/pack", "objects/info", "refs/tags"] {
        let _ = std::fs::remove_dir_all(dir.join(".git").join(sub));
    }
    head
}

/// A new repository in `dir` holding one commit of its own (none of
/// REPO's): a checkout a fetch adds to. Returns its HEAD.
fn one_commit(dir: &Path) -> String {
    git(dir, &["init", "--quiet"]);
    std::fs::write(dir.join("a.txt"), "a").unwrap();
    git(dir, &["add", "a.txt"]);
    git(
        dir,
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "--quiet",
            "-m",
            "local",
        ],
    );
    git(dir, &["rev-parse", "HEAD"])
}

/// A clone of `repo` with its whole history: the base commit is local.
fn full_clone(repo: &BareRepo) -> tempfile::TempDir {
    let clone = tempfile::tempdir().unwrap();
    git(
        clone.path(),
        &["clone", "--quiet", &repo.path.display().to_string(), "."],
    );
    clone
}

/// A pull request into REPO from `base` to `head`, the head in
/// `head_repo` (REPO's own, or a fork's).
fn pull_request(base: &str, head: &str, head_repo: Value) -> Value {
    json!({"pull_request": {"base": {"ref": "main", "sha": base, "repo": repo_json()},
        "head": {"ref": "x", "sha": head, "repo": head_repo}}})
}

/// resolve on `payload` with `--fetch` into `target`: git served at
/// `server`, the API unreachable, `timeout` seconds.
fn fetching(payload: &Value, server: &str, timeout: &str, target: &Path) -> Bin {
    Bin::new()
        .payload(&payload.to_string(), "pull_request")
        .api("https://127.0.0.1:1")
        .env("GITHUB_SERVER_URL", server)
        .args(["--no-tag", "--timeout", timeout, "--fetch"])
        .arg(target)
        .on_runner()
}

fn fetch_run(server: &str, base: &str, head: &str, target: &Path) -> Bin {
    fetching(&pull_request(base, head, repo_json()), server, "20", target)
}

/// The commit `--fetch` pointed `refs/baseline-resolver/base` at.
fn fetched_ref(dir: &Path) -> String {
    git(dir, &["rev-parse", "refs/baseline-resolver/base"])
}

/// A fetch that did not happen: the step succeeds, `base-fetched` is
/// false and a warning says so.
fn assert_not_fetched(run: &Run) {
    run.assert_code(0);
    assert_eq!(run.outputs()["base-fetched"], "false", "{}", run.stdout);
    assert!(
        run.stdout
            .contains("::warning title=Baseline not fetched::"),
        "{}",
        run.stdout
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fetch_into_a_checkout_copied_without_its_empty_directories() {
    let repo = BareRepo::new(REPO, &[], 0);
    let https = GitHttps::start(repo.root.path()).await;
    let target = tempfile::tempdir().unwrap();
    let head = checkout_without_empty_dirs(target.path());
    let base = &repo.commits[1];
    let run = fetch_run(&https.url(), base, &repo.commits[2], target.path())
        .run_async()
        .await;
    run.assert_code(0);
    assert_eq!(run.outputs()["base-fetched"], "true", "{}", run.stdout);
    let dir = target.path();
    assert_eq!(fetched_ref(dir), *base);
    assert_eq!(
        git(dir, &["rev-parse", "HEAD"]),
        head,
        "the checkout's own commit is untouched"
    );
    assert_eq!(git(dir, &["log", "--format=%H", "-1", base]), *base);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fetch_cut_off_mid_pack_leaves_the_checkout_as_it_was() {
    let repo = BareRepo::new(REPO, &[], 0);
    let https = GitHttps::start(repo.root.path()).await;
    https.cut_packs_short_by(30);
    for prepared in [true, false] {
        let target = tempfile::tempdir().unwrap();
        let head = if prepared {
            one_commit(target.path())
        } else {
            checkout_without_empty_dirs(target.path())
        };
        let run = fetch_run(
            &https.url(),
            &repo.commits[1],
            &repo.commits[2],
            target.path(),
        )
        .run_async()
        .await;
        assert_not_fetched(&run);
        assert_checkout_intact(target.path(), &head);
    }
}

/// `--offline --fetch`: a commit the clone already holds is used (the ref
/// set, no network at all); one it lacks is a warning naming why, and
/// nothing is fetched.
#[test]
fn offline_fetch_uses_a_commit_that_is_already_local() {
    let repo = BareRepo::new(REPO, &[], 0);
    let clone = full_clone(&repo);
    for (base, fetched) in [
        (repo.commits[1].clone(), "true"),
        ("ab".repeat(20), "false"),
    ] {
        let payload = pull_request(&base, &repo.commits[2], repo_json());
        let run = Bin::new()
            .payload(&payload.to_string(), "pull_request")
            .args(["--offline", "--no-tag", "--fetch"])
            .arg(clone.path())
            .on_runner()
            .run();
        run.assert_code(0);
        assert_eq!(run.outputs()["base-fetched"], fetched, "{}", run.stdout);
        if fetched == "true" {
            assert!(
                run.stdout.contains("(offline, no network)"),
                "{}",
                run.stdout
            );
            assert_eq!(fetched_ref(clone.path()), base);
        } else {
            assert!(
                run.stdout
                    .contains("::warning title=Baseline not fetched::--fetch offline:")
                    && run.stdout.contains("needs the network"),
                "{}",
                run.stdout
            );
        }
    }
}
