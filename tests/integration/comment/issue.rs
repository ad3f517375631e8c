//! `comment` beyond a pull request's verdict: its action's declared
//! outputs, and trend's report on a tracking issue (`--issue N`), against
//! the same HTTPS mock of the issue-comment endpoints.

use serde_json::{Value, json};

use crate::comment::{PR, REPO, mock_with_comments, report};
use crate::support::harness::Bin;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_comment_action_writes_the_outputs_it_declares() {
    use crate::action::{action_dir, assert_declared, run_step_of};
    let (mock, comments) = mock_with_comments().await;
    let dir = action_dir();
    let event = dir.path().join("event.json");
    std::fs::write(&event, json!({"pull_request": {"number": PR}}).to_string()).unwrap();
    let report_file = dir.path().join("report.json");
    std::fs::write(&report_file, report(3, 1, "topk").to_string()).unwrap();
    let report_path = report_file.display().to_string();
    let ca = crate::support::tls::ca_file().display().to_string();
    let api = mock.url();
    let run = tokio::task::block_in_place(|| {
        run_step_of(
            "comment/action.yml",
            dir.path(),
            &event,
            "pull_request",
            &[("report", &report_path), ("marker", "mi355")],
            &[
                ("GITHUB_API_URL", &api),
                ("GITHUB_REPOSITORY", REPO),
                ("GITHUB_SERVER_URL", "https://github.com"),
                ("SSL_CERT_FILE", &ca),
            ],
        )
    });
    assert_eq!(
        run.code, 0,
        "stdout: {}\nstderr: {}",
        run.stdout, run.stderr
    );
    assert_declared("comment/action.yml", &run);
    assert_eq!(run.outputs["action"], "created");
    assert_eq!(run.outputs["pr"], PR.to_string());
    assert!(
        comments.all()[0]
            .body
            .starts_with("<!-- baseline-resolver:mi355 -->")
    );
}

/// trend's report, as `trend --format json` writes it, of the history of
/// the trend tests (gemm 20% slower from run 27 of `runs`); a run named by
/// a stranger, to show it inert.
fn trend_report(runs: usize) -> String {
    let bin = Bin::new();
    crate::trend::history(bin.dir(), runs);
    let h = bin.dir().join("history");
    let named = h.join(format!("0027-{}.csv", crate::trend::sha(27)));
    let hostile = h.join(format!(
        "0027-@evil #1 https:x.example-{}.csv",
        crate::trend::sha(27)
    ));
    std::fs::rename(named, hostile).unwrap();
    let run = bin
        .args(["trend", "--history", "history/*.csv", "--format", "json"])
        .run();
    run.assert_code(0);
    run.stdout
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trends_report_goes_on_a_tracking_issue_updated_in_place() {
    let (mock, comments) = mock_with_comments().await;
    let post = |report: &str| {
        let bin = Bin::new();
        let file = bin.dir().join("trend.json");
        std::fs::write(&file, report).unwrap();
        let run = bin
            .api(&mock.url())
            .env("GITHUB_TOKEN", "ghs_test")
            .env("GITHUB_REPOSITORY", REPO)
            .env("INPUT_TIMEOUT", "10")
            .args([
                "comment",
                "--issue",
                &PR.to_string(),
                "--marker",
                "trend",
                "--format",
                "json",
            ])
            .arg("--report")
            .arg(&file)
            .run();
        run.assert_code(0);
        serde_json::from_str::<Value>(run.stdout.trim()).unwrap()
    };
    let v = tokio::task::block_in_place(|| post(&trend_report(30)));
    assert_eq!(v["action"], "created");
    assert_eq!((v["issue"].as_u64(), v["pr"].as_u64()), (Some(PR), None));
    assert!(
        v["url"]
            .as_str()
            .unwrap()
            .contains(&format!("/issues/{PR}#issuecomment-")),
        "{v}"
    );
    let body = comments.all()[0].body.clone();
    assert!(body.starts_with("<!-- baseline-resolver:trend -->\n### Benchmark trend on main: 1 persistent regression (1 new"), "{body}");
    let regressions = body.find("#### Persistent regressions").unwrap();
    let improvements = body.find("#### Persistent improvements").unwrap();
    assert!(regressions < improvements, "{body}");
    // The key in the config's column order, the change, the run, the commit, the levels.
    let gemm = body
        .lines()
        .find(|l| l.starts_with("- op=gemm,shape=4096x4096,dtype=bf16: -"))
        .unwrap_or_else(|| panic!("{body}"));
    assert!(
        gemm.contains("% at run 0027-") && gemm.ends_with("TFLOPS **(new)**"),
        "{gemm}"
    );
    assert!(
        body.contains(&format!("commit {}", &crate::trend::sha(27)[..12])),
        "{body}"
    );
    assert!(gemm.contains("100.0") && gemm.contains(" -> 80."), "{gemm}");
    assert!(
        !body.contains("@evil") && !body.contains("#1 ") && !body.contains("https://x"),
        "inert: {body}"
    );
    // The next push: the same marker's comment is updated, not a second one.
    let v = tokio::task::block_in_place(|| post(&trend_report(31)));
    assert_eq!(v["action"], "updated");
    assert_eq!(comments.all().len(), 1);
}

#[test]
fn a_pull_request_and_an_issue_together_are_refused() {
    let run = Bin::new()
        .env("INPUT_ISSUE", "7")
        .args(["comment", "--report", "{}", "--pr", "3", "--dry-run"])
        .run();
    run.assert_code(2);
    assert!(run.stderr.contains("not both"), "{}", run.stderr);
}

/// `comment --issue` with trend's report of 30 runs against `mock`: the
/// JSON outcome (the step itself always exits 0 without `--strict`).
fn post_on_the_issue(mock: &crate::support::mock_github::MockGitHub) -> Value {
    let bin = Bin::new();
    let file = bin.dir().join("trend.json");
    std::fs::write(&file, trend_report(30)).unwrap();
    let run = bin
        .api(&mock.url())
        .env("GITHUB_TOKEN", "ghs_test")
        .env("GITHUB_REPOSITORY", REPO)
        .env("INPUT_TIMEOUT", "10")
        .args(["comment", "--issue", &PR.to_string(), "--marker", "trend"])
        .args(["--format", "json", "--report"])
        .arg(&file)
        .run();
    run.assert_code(0);
    serde_json::from_str::<Value>(run.stdout.trim()).unwrap()
}

/// Issue 46's review of `--issue`: the same guarantees as on a pull
/// request. A stranger's comment that carries the marker is never edited
/// (a comment of ours is created beside it), and comments not read to
/// their end (pages that loop, or more than the cap) mean no write at all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_an_issue_a_strangers_marker_is_left_alone_and_unread_pages_write_nothing() {
    let post = post_on_the_issue;
    let (mock, comments) = mock_with_comments().await;
    let forged =
        "<!-- baseline-resolver:trend -->\n### Benchmark trend on main: no change (forged)";
    comments.add("mallory", forged);
    let v = tokio::task::block_in_place(|| post(&mock));
    assert_eq!(v["action"], "created", "{v}");
    let all = comments.all();
    assert_eq!(all.len(), 2);
    assert_eq!(
        all[0].body, forged,
        "the stranger's comment is never edited"
    );
    let v = tokio::task::block_in_place(|| post(&mock));
    assert_eq!(
        v["action"], "unchanged",
        "ours is found, the stranger's is not taken for it"
    );

    for looping in [true, false] {
        let mock = crate::support::mock_github::MockGitHub::start().await;
        wiremock::Mock::given(wiremock::matchers::method("GET"))
            .and(wiremock::matchers::path_regex(format!(
                "^/repos/{REPO}/issues/{PR}/comments"
            )))
            .respond_with(crate::comment::Endless {
                base: mock.url(),
                looping,
            })
            .mount(&mock.server)
            .await;
        let v = tokio::task::block_in_place(|| post(&mock));
        assert_eq!(v["action"], "failed", "{v}");
        let requests = mock.requests().await;
        assert!(
            requests.iter().all(|r| r.starts_with("GET ")),
            "no write: {requests:?}"
        );
        assert_eq!(requests.len(), if looping { 2 } else { 100 });
    }
}

/// Issue 46's review of `--issue`: a token that may not write to an issue
/// is told to get `issues: write` (an issue's comments need it; the
/// `pull-requests` permission a pull request's verdict needs does not
/// reach an issue), and the message names the issue, not a pull request
/// nor the fork's `workflow_run` advice that fits only a pull request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_an_issue_a_refused_token_is_told_the_issues_permission() {
    use crate::support::mock_github::{MockGitHub, error, ok_json};
    use wiremock::matchers::{method, path};
    let issue_comments = format!("/repos/{REPO}/issues/{PR}/comments");
    for (read_refused, needed) in [(true, "issues: read"), (false, "issues: write")] {
        let mock = MockGitHub::start().await;
        let read = if read_refused {
            error(403, "Resource not accessible by integration")
        } else {
            ok_json(json!([]))
        };
        wiremock::Mock::given(method("GET"))
            .and(path(issue_comments.clone()))
            .respond_with(read)
            .mount(&mock.server)
            .await;
        wiremock::Mock::given(method("POST"))
            .and(path(issue_comments.clone()))
            .respond_with(error(403, "Resource not accessible by integration"))
            .mount(&mock.server)
            .await;
        let v = tokio::task::block_in_place(|| post_on_the_issue(&mock));
        assert_eq!(v["action"], "failed", "{v}");
        let w = v["warning"].as_str().unwrap();
        assert!(w.contains(&format!("permissions: {needed}")), "{w}");
        assert!(w.contains(&format!("issue #{PR}")), "{w}");
        assert!(
            !w.contains("pull request")
                && !w.contains("pull-requests")
                && !w.contains("workflow_run"),
            "{w}"
        );
    }
}
