//! Online resolution against a local mock of the GitHub API: one test per
//! online case of the rules, then the release tags.

use serde_json::json;

use crate::support::harness::Bin;
use crate::support::mock_github::{MockGitHub, ok, pull_json};

pub const BASE: &str = "fa4f8ae2d93c1a7e5b06f2c8e4d1b3a9c7e05f16";
pub const HEAD: &str = "3c9d2e7a1f5b8c4d6e0a2b9f7c1d3e5a8b6f4c20";
pub const STALE: &str = "c1b52184e7a9d03f6b2c8e5a1d4f7b9c3e6a0d28";
pub const TIP: &str = "0123456789abcdef0123456789abcdef01234567";
pub const TAG_COMMIT: &str = "89abcdef0123456789abcdef0123456789abcdef";
pub const REPO: &str = "ROCm/FlyDSL";

pub fn repo_json() -> serde_json::Value {
    json!({"id": 700001, "full_name": REPO, "default_branch": "main"})
}

/// A resolver on `mock`. The git server is a refused loopback port, so a
/// git fallback can never reach out to github.com from a test.
pub fn online(mock: &MockGitHub, payload: &serde_json::Value, event: &str) -> Bin {
    Bin::new()
        .payload(&payload.to_string(), event)
        .api(&mock.url())
        .env("GITHUB_SERVER_URL", "git://127.0.0.1:1")
        .env("INPUT_TIMEOUT", "10")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dispatch_resolves_the_default_branch_tip_once() {
    let mock = MockGitHub::start().await;
    mock.commit_sha(REPO, "main", TIP).await;
    for event in ["workflow_dispatch", "repository_dispatch"] {
        let payload = json!({"ref": "refs/heads/main", "repository": repo_json()});
        let (_, j) = online(&mock, &payload, event)
            .arg("--no-tag")
            .json_async()
            .await;
        assert_eq!(j["base_sha"], TIP, "{event}");
        assert_eq!(j["base_source"], "default-branch");
        assert_eq!(j["base_available"], true);
        assert_eq!(j["warnings"], json!([]));
    }
    assert_eq!(mock.requests().await.len(), 2, "one request per resolution");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schedule_without_repository_asks_the_api_for_the_default_branch() {
    let mock = MockGitHub::start().await;
    mock.repository(REPO, "trunk").await;
    mock.commit_sha(REPO, "HEAD", TIP).await;
    let (_, j) = online(&mock, &json!({"schedule": "0 3 * * *"}), "schedule")
        .env("GITHUB_REPOSITORY", REPO)
        .arg("--no-tag")
        .json_async()
        .await;
    assert_eq!(j["base_sha"], TIP);
    assert_eq!(j["base_ref"], "trunk");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn base_ref_input_is_resolved_to_a_full_sha() {
    let mock = MockGitHub::start().await;
    mock.commit_sha(REPO, "release/1.x", TIP).await;
    let payload =
        json!({"ref": "refs/heads/main", "before": BASE, "after": HEAD, "repository": repo_json()});
    let (_, j) = online(&mock, &payload, "push")
        .args(["--base-ref", "release/1.x", "--no-tag"])
        .json_async()
        .await;
    assert_eq!(j["base_sha"], TIP);
    assert_eq!(j["base_source"], "input");
    assert_eq!(j["base_ref"], "release/1.x");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forced_push_uses_the_merge_base_of_before_and_after() {
    let mock = MockGitHub::start().await;
    mock.compare(REPO, STALE, HEAD, BASE).await;
    let payload = json!({"ref": "refs/heads/main", "before": STALE, "after": HEAD, "forced": true, "repository": repo_json()});
    let (_, j) = online(&mock, &payload, "push")
        .arg("--no-tag")
        .json_async()
        .await;
    assert_eq!(j["base_sha"], BASE);
    assert_eq!(j["base_source"], "push-merge-base");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_branch_uses_the_branch_point_and_never_the_zero_sha() {
    let mock = MockGitHub::start().await;
    mock.compare(REPO, "main", HEAD, BASE).await;
    let payload = json!({"ref": "refs/heads/feature/x", "before": "0".repeat(40), "after": HEAD,
        "created": true, "repository": repo_json()});
    let (run, j) = online(&mock, &payload, "push")
        .arg("--no-tag")
        .json_async()
        .await;
    assert_eq!(j["base_sha"], BASE);
    assert_eq!(j["base_source"], "branch-point");
    assert!(!run.stdout.contains(&"0".repeat(40)));
    let requests = mock.requests().await;
    assert!(
        requests.iter().all(|r| !r.contains(&"0".repeat(40))),
        "{requests:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn merge_base_mode_compares_with_the_merge_base_not_the_base_tip() {
    let mock = MockGitHub::start().await;
    mock.compare(REPO, BASE, HEAD, STALE).await;
    let payload = json!({"pull_request": {"base": {"ref": "main", "sha": BASE, "repo": repo_json()},
        "head": {"ref": "x", "sha": HEAD, "repo": {"full_name": "jhinpan/FlyDSL-lab"}}}});
    let (_, j) = online(&mock, &payload, "pull_request")
        .args(["--mode", "merge-base", "--no-tag"])
        .json_async()
        .await;
    assert_eq!(j["base_sha"], STALE);
    assert_eq!(j["base_source"], "pr-merge-base");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn issue_comment_on_a_pull_request_reads_the_pull_request() {
    let mock = MockGitHub::start().await;
    mock.pull(
        REPO,
        801,
        pull_json(801, REPO, BASE, Some("jhinpan/FlyDSL-lab"), HEAD),
    )
    .await;
    let payload =
        json!({"issue": {"number": 801, "pull_request": {"url": "u"}}, "repository": repo_json()});
    let (_, j) = online(&mock, &payload, "issue_comment")
        .arg("--no-tag")
        .json_async()
        .await;
    assert_eq!(j["base_sha"], BASE);
    assert_eq!(j["base_source"], "pr-base");
    assert_eq!(j["head_repo"], "jhinpan/FlyDSL-lab");
    assert_eq!(j["head_sha"], HEAD);
    assert_eq!(j["is_fork"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workflow_run_of_a_fork_pull_request_finds_it_by_head() {
    let mock = MockGitHub::start().await;
    let other = pull_json(700, "someone/else", STALE, Some("jhinpan/FlyDSL-lab"), HEAD);
    let stale_head = pull_json(799, REPO, STALE, Some("jhinpan/FlyDSL-lab"), STALE);
    let this = pull_json(801, REPO, BASE, Some("jhinpan/FlyDSL-lab"), HEAD);
    mock.pulls_with_head(REPO, "jhinpan:mla-kernel", json!([other, stale_head, this]))
        .await;
    let payload = json!({"workflow_run": {"event": "pull_request", "head_sha": HEAD, "head_branch": "mla-kernel",
        "repository": repo_json(), "head_repository": {"id": 2, "full_name": "jhinpan/FlyDSL-lab"},
        "pull_requests": []}});
    let (_, j) = online(&mock, &payload, "workflow_run")
        .arg("--no-tag")
        .json_async()
        .await;
    assert_eq!(j["base_sha"], BASE, "{j}");
    assert_eq!(j["base_source"], "workflow-run-pr");
    assert_eq!(j["is_fork"], true);
}

/// The same fork head in two open pull requests into different branches:
/// the one into the default branch, and a warning that names both; neither
/// into it: unavailable, nothing guessed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workflow_run_of_a_fork_head_in_two_pull_requests_takes_the_default_branch_one() {
    let pull = |number: u64, into: &str, base: &str| {
        let mut p = pull_json(number, REPO, base, Some("jhinpan/FlyDSL-lab"), HEAD);
        p["base"]["ref"] = json!(into);
        p
    };
    let payload = json!({"workflow_run": {"event": "pull_request", "head_sha": HEAD, "head_branch": "mla-kernel",
        "repository": {"id": 1, "full_name": REPO}, "head_repository": {"id": 2, "full_name": "jhinpan/FlyDSL-lab"},
        "pull_requests": []}, "repository": repo_json()});
    for (listed, want) in [
        (
            json!([pull(810, "release/1.x", STALE), pull(801, "main", BASE)]),
            Some(BASE),
        ),
        (
            json!([pull(810, "release/1.x", STALE), pull(811, "next", BASE)]),
            None,
        ),
    ] {
        let mock = MockGitHub::start().await;
        mock.pulls_with_head(REPO, "jhinpan:mla-kernel", listed)
            .await;
        let (_, j) = online(&mock, &payload, "workflow_run")
            .arg("--no-tag")
            .json_async()
            .await;
        let warnings = j["warnings"].to_string();
        assert!(warnings.contains("#810 into release/1.x"), "{warnings}");
        match want {
            Some(sha) => {
                assert_eq!(j["base_sha"], sha, "{j}");
                assert!(
                    warnings.contains("#801, into the default branch main, is the baseline"),
                    "{warnings}"
                );
            }
            None => {
                assert_eq!(j["base_available"], false, "{j}");
                assert!(
                    warnings.contains("none is into the default branch main"),
                    "{warnings}"
                );
            }
        }
    }
}

/// A `workflow_run` of a push: the first parent of the run's head, from
/// the API (offline: unavailable with a warning that says what would answer).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workflow_run_of_a_push_compares_with_the_first_parent() {
    let mock = MockGitHub::start().await;
    wiremock::Mock::given(wiremock::matchers::path(format!(
        "/repos/{REPO}/commits/{HEAD}"
    )))
    .and(wiremock::matchers::query_param("per_page", "1"))
    .respond_with(ok().set_body_json(
        json!({"sha": HEAD, "parents": [{"sha": STALE}, {"sha": BASE}],
            "commit": {"message": "merge"}, "files": []}),
    ))
    .mount(&mock.server)
    .await;
    let payload = json!({"workflow_run": {"event": "push", "head_sha": HEAD, "head_branch": "main",
        "repository": repo_json(), "head_repository": repo_json(), "pull_requests": []}});
    let (_, j) = online(&mock, &payload, "workflow_run")
        .arg("--no-tag")
        .json_async()
        .await;
    assert_eq!(j["base_sha"], STALE, "the first parent: {j}");
    assert_eq!(j["base_source"], "workflow-run-parent");
    assert_eq!(j["base_ref"], "main");
    assert_eq!(j["skip"], false);
    assert_eq!(j["warnings"], json!([]));

    let (_, j) = online(&mock, &payload, "workflow_run")
        .arg("--offline")
        .json_async()
        .await;
    assert_eq!(j["base_available"], false);
    assert!(
        j["warnings"].to_string().contains("the first parent of"),
        "{j}"
    );
}

fn tag(name: &str, sha: &str, kind: &'static str) -> (String, String, &'static str) {
    (name.to_owned(), sha.to_owned(), kind)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn latest_release_tag_of_the_base_repo_ordered_as_versions() {
    let mock = MockGitHub::start().await;
    let annotated = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    mock.tags(
        REPO,
        &[
            tag("v0.3.0", STALE, "commit"),
            tag("v0.3.1", BASE, "commit"),
            tag("v0.3.2.dev838", annotated, "tag"),
            tag("v0.10.0rc1", HEAD, "commit"),
            tag("vnext", HEAD, "commit"),
        ],
    )
    .await;
    mock.tag_object(REPO, annotated, "v0.3.2.dev838", TAG_COMMIT)
        .await;
    let payload = json!({"pull_request": {"base": {"ref": "main", "sha": BASE, "repo": repo_json()},
        "head": {"ref": "x", "sha": HEAD, "repo": {"full_name": "jhinpan/FlyDSL-lab"}}}});

    // Default: pre-releases (.devN, rcN) are left out.
    let (_, j) = online(&mock, &payload, "pull_request").json_async().await;
    assert_eq!(j["tag"], "v0.3.1");
    assert_eq!(j["tag_sha"], BASE);
    assert_eq!(j["tag_version"], "0.3.1");
    assert_eq!(j["tag_available"], true);
    assert_eq!(j["base_sha"], BASE, "the PR baseline is untouched");

    // With pre-releases, the highest version wins (0.10.0rc1 > 0.3.2.dev838).
    let (_, j) = online(&mock, &payload, "pull_request")
        .arg("--tag-prereleases")
        .json_async()
        .await;
    assert_eq!(j["tag"], "v0.10.0rc1");

    // Annotated tags are peeled to their commit.
    let (_, j) = online(&mock, &payload, "pull_request")
        .args(["--tag-prereleases", "--tag-pattern", "v0.3.*"])
        .json_async()
        .await;
    assert_eq!(j["tag"], "v0.3.2.dev838");
    assert_eq!(j["tag_sha"], TAG_COMMIT);
    assert_eq!(j["tag_version"], "0.3.2.dev838");

    // No matching tag: a warning, not an error.
    let (run, j) = Bin::new()
        .payload(&payload.to_string(), "pull_request")
        .api(&mock.url())
        .args(["--tag-pattern", "v9.*"])
        .on_runner()
        .json_async()
        .await;
    assert_eq!(j["tag_available"], false);
    assert!(j["tag"].is_null());
    let warnings = j["warnings"].to_string();
    assert!(
        warnings.contains("no release tag of ROCm/FlyDSL matches \\\"v9.*\\\""),
        "{warnings}"
    );
    assert_eq!(run.code, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tag_push_and_release_use_the_previous_release_tag() {
    let mock = MockGitHub::start().await;
    let annotated = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
    mock.tags(
        REPO,
        &[
            tag("v1.9.3", annotated, "tag"),
            tag("v1.10.0", HEAD, "commit"),
            tag("v1.10.0-rc.1", STALE, "commit"),
            tag("v1.2.0", BASE, "commit"),
        ],
    )
    .await;
    mock.tag_object(REPO, annotated, "v1.9.3", TAG_COMMIT).await;
    let push = json!({"ref": "refs/tags/v1.10.0", "before": "0".repeat(40), "after": HEAD, "created": true, "repository": repo_json()});
    let (_, j) = online(&mock, &push, "push").json_async().await;
    assert_eq!(j["base_source"], "previous-tag");
    assert_eq!(j["base_sha"], TAG_COMMIT, "v1.9.3, peeled: {j}");
    assert_eq!(j["tag"], "v1.10.0", "the latest tag is the one just pushed");

    let release = json!({"release": {"tag_name": "v1.10.0"}, "repository": repo_json()});
    let (_, j) = online(&mock, &release, "release")
        .arg("--no-tag")
        .json_async()
        .await;
    assert_eq!(j["base_sha"], TAG_COMMIT);
    assert!(j["tag"].is_null(), "--no-tag");

    let first = json!({"release": {"tag_name": "v1.2.0"}, "repository": repo_json()});
    let (_, j) = online(&mock, &first, "release")
        .arg("--no-tag")
        .json_async()
        .await;
    assert_eq!(j["base_available"], false);
    assert!(
        j["warnings"].to_string().contains("comes before v1.2.0"),
        "{j}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_do_not_grow_with_the_number_of_tags() {
    let mut counts = Vec::new();
    for n in [10usize, 10_000] {
        let mock = MockGitHub::start().await;
        let tags: Vec<_> = (0..n)
            .map(|i| {
                let kind = if i % 2 == 0 { "commit" } else { "tag" };
                let name = if i % 3 == 0 {
                    format!("v0.{}.{}", i / 100, i % 100)
                } else {
                    format!("v0.{}.{}.dev{i}", i / 100, i % 100)
                };
                (name, format!("{:040x}", i + 1), kind)
            })
            .collect();
        mock.tags(REPO, &tags).await;
        // Every annotated tag object peels to TAG_COMMIT.
        wiremock::Mock::given(wiremock::matchers::path_regex(format!(
            "^/repos/{REPO}/git/tags/[0-9a-f]{{40}}$"
        )))
        .respond_with(
            ok().set_body_json(
                json!({"sha": "x", "object": {"type": "commit", "sha": TAG_COMMIT}}),
            ),
        )
        .mount(&mock.server)
        .await;
        let payload = json!({"pull_request": {"base": {"ref": "main", "sha": BASE, "repo": repo_json()},
            "head": {"ref": "x", "sha": HEAD, "repo": repo_json()}}});
        let (_, j) = online(&mock, &payload, "pull_request").json_async().await;
        assert_eq!(j["tag_available"], true, "{n} tags: {j}");
        counts.push(mock.requests().await.len());
    }
    assert_eq!(
        counts[0], counts[1],
        "requests for 10 and 10,000 tags: {counts:?}"
    );
    assert!(counts[0] <= 2, "{counts:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_token_is_sent_and_never_printed() {
    let mock = MockGitHub::start().await;
    let token = "ghs_R3cognisableT0ken1234567890abcdef";
    wiremock::Mock::given(wiremock::matchers::header(
        "authorization",
        format!("Bearer {token}").as_str(),
    ))
    .and(wiremock::matchers::path(format!(
        "/repos/{REPO}/commits/main"
    )))
    .respond_with(ok().set_body_string(TIP))
    .mount(&mock.server)
    .await;
    let payload = json!({"repository": repo_json()});
    let run = online(&mock, &payload, "workflow_dispatch")
        .env("INPUT_TOKEN", token)
        .env("RUNNER_DEBUG", "1")
        .on_runner()
        .run_async()
        .await;
    run.assert_code(0);
    assert_eq!(
        run.outputs()["base-sha"],
        TIP,
        "authorized request answered"
    );
    for text in [&run.stdout, &run.stderr, &run.summary, &run.output_file] {
        assert!(!text.contains(token), "token leaked");
    }
    assert!(run.stdout.contains("::debug::"), "debug was on");
}

/// Tag names an attacker (or a broken server) could put in an API answer:
/// none of them parses as a version, so none can become the `tag` output,
/// and the output file still holds exactly the declared outputs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_tag_names_from_the_api_are_never_chosen() {
    let mock = MockGitHub::start().await;
    let hostile = [
        "v9$(id)".to_owned(),
        "v9`id`".to_owned(),
        "v9;id".to_owned(),
        "v9.0.0::warning::owned".to_owned(),
        "v9.0.0%0Ainjected=1".to_owned(),
        "v9.0.0\ninjected=1".to_owned(),
        "v9.0.0\r\n::error::x".to_owned(),
        format!("v9.{}", "9".repeat(10_000)),
        format!("v{}", "a".repeat(10_000)),
    ];
    let mut tags: Vec<_> = hostile.iter().map(|n| tag(n, HEAD, "commit")).collect();
    tags.push(tag("v1.0.0", BASE, "commit"));
    mock.tags(REPO, &tags).await;
    let payload =
        json!({"ref": "refs/heads/main", "before": BASE, "after": HEAD, "repository": repo_json()});
    let run = online(&mock, &payload, "push")
        .on_runner()
        .run_async()
        .await;
    run.assert_code(0);
    let outputs = run.outputs();
    assert_eq!(outputs["tag"], "v1.0.0");
    assert_eq!(outputs["tag-sha"], BASE);
    let declared = crate::action::output_names();
    assert_eq!(outputs.keys().collect::<Vec<_>>(), {
        let mut d = declared.iter().collect::<Vec<_>>();
        d.sort();
        d
    });
    for line in run.stdout.lines() {
        assert!(
            !line.starts_with("::error") && !line.contains("injected=1\n"),
            "{line}"
        );
    }
}
