//! `comment` against the HTTPS mock of the GitHub API, which keeps the
//! pull request's comments as GitHub would (pages of 100 with `Link`
//! headers, each comment with its author): created then updated in place,
//! one per marker, a stranger's comment left alone, every page read,
//! failures as warnings, the request count; and the body as a reviewer
//! sees it, from a hostile report and from a 100,000-row one.

mod issue;
mod paired;

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use wiremock::matchers::path_regex;
use wiremock::{Mock, Request, Respond, ResponseTemplate};

use crate::support::harness::{Bin, Run};
use crate::support::mock_github::{MockGitHub, error, ok_json, pull_json};
use crate::support::workflow_commands::commands;

pub const REPO: &str = "ROCm/FlyDSL";
pub const PR: u64 = 801;
const BOT: &str = "github-actions[bot]";

#[derive(Clone)]
pub struct Stored {
    pub id: u64,
    pub login: String,
    pub body: String,
}

/// The issue-comment endpoints of one repository, with state.
#[derive(Clone)]
pub struct Comments {
    store: Arc<Mutex<Vec<Stored>>>,
    base: String,
}

impl Comments {
    pub fn all(&self) -> Vec<Stored> {
        self.store.lock().unwrap().clone()
    }

    pub fn add(&self, login: &str, body: &str) {
        let mut s = self.store.lock().unwrap();
        let id = 5000 + s.len() as u64;
        s.push(Stored {
            id,
            login: login.to_owned(),
            body: body.to_owned(),
        });
    }
}

fn as_json(c: &Stored) -> Value {
    json!({"id": c.id, "node_id": "IC_x", "body": c.body,
        "user": {"login": c.login, "id": 41898282, "type": "Bot"},
        "created_at": "2026-11-30T00:00:00Z", "author_association": "NONE",
        "html_url": format!("https://github.com/{REPO}/pull/{PR}#issuecomment-{}", c.id)})
}

impl Respond for Comments {
    fn respond(&self, r: &Request) -> ResponseTemplate {
        let path = r.url.path().to_owned();
        let list = format!("/repos/{REPO}/issues/{PR}/comments");
        let body: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
        let mut store = self.store.lock().unwrap();
        match (r.method.as_str(), path.as_str()) {
            ("GET", p) if p == list => {
                let page: usize = r
                    .url
                    .query_pairs()
                    .find(|(k, _)| k == "page")
                    .and_then(|(_, v)| v.parse().ok())
                    .unwrap_or(1);
                let items: Vec<Value> = store
                    .iter()
                    .skip((page - 1) * 100)
                    .take(100)
                    .map(as_json)
                    .collect();
                let mut answer = ok_json(json!(items));
                if store.len() > page * 100 {
                    answer = answer.insert_header(
                        "link",
                        format!(
                            "<{}{list}?per_page=100&page={}>; rel=\"next\"",
                            self.base,
                            page + 1
                        ),
                    );
                }
                answer
            }
            ("POST", p) if p == list => {
                let id = 9000 + store.len() as u64;
                let c = Stored {
                    id,
                    login: BOT.to_owned(),
                    body: body["body"].as_str().unwrap_or_default().to_owned(),
                };
                store.push(c.clone());
                ResponseTemplate::new(201)
                    .insert_header("x-ratelimit-remaining", "4998")
                    .set_body_json(as_json(&c))
            }
            ("PATCH", p) => {
                let id: u64 = p.rsplit('/').next().unwrap().parse().unwrap();
                match store.iter_mut().find(|c| c.id == id) {
                    Some(c) => {
                        c.body = body["body"].as_str().unwrap_or_default().to_owned();
                        ok_json(as_json(c))
                    }
                    None => error(404, "Not Found"),
                }
            }
            _ => error(404, "Not Found"),
        }
    }
}

pub async fn mock_with_comments() -> (MockGitHub, Comments) {
    let mock = MockGitHub::start().await;
    let comments = Comments {
        store: Arc::default(),
        base: mock.url(),
    };
    Mock::given(path_regex(format!("^/repos/{REPO}/issues/")))
        .respond_with(comments.clone())
        .mount(&mock.server)
        .await;
    (mock, comments)
}

/// A compare report: `rows` rows of which the first `regressed` regressed.
pub fn report(rows: usize, regressed: usize, op: &str) -> Value {
    let rows: Vec<Value> = (0..rows)
        .map(|i| {
            let bad = i < regressed;
            json!({"key": {"op": format!("{op}{i}"), "shape": format!("{i}x8192"), "dtype": "bf16"},
                "class": if bad { "regressed" } else { "unchanged" },
                "change_pct": if bad { -20.0 } else { 0.5 }, "unit": "TB/s",
                "baseline": {"median": 3.9, "samples": [3.9]}, "current": {"median": 3.1, "samples": [3.1]},
                "reason": null, "rerun": false,
                "thresholds": {"fail_pct": 10.0, "warn_pct": 3.0, "floor": 0.0, "rule": null,
                    "source": "default", "history_runs": null, "band_pct": null}})
        })
        .collect();
    json!({"schema": 2, "verdict": if regressed > 0 { "regression" } else { "pass" }, "gate": "main",
        "report_only": false, "warnings": [], "rerun": {"groups": [], "keys": []},
        "provenance": {"label": "main", "base_repo": REPO,
            "base_sha": "fa4f8ae2d93c1a7e5b06f2c8e4d1b3a9c7e05f16", "base_source": "pull_request.base.sha"},
        "baselines": [{"label": "main", "gate": true, "available": true, "unavailable_reason": null,
            "verdict": if regressed > 0 { "regression" } else { "pass" },
            "counts": {"regressed": regressed, "unchanged": rows.len() - regressed},
            "worst": null, "rows_listed": rows.len(), "rows": rows}]})
}

fn comment(mock: &MockGitHub, report: &Value, extra: &[&str]) -> (Run, Value) {
    let bin = Bin::new();
    let file = bin.dir().join("report.json");
    std::fs::write(&file, report.to_string()).unwrap();
    let run = bin
        .api(&mock.url())
        .env("GITHUB_TOKEN", "ghs_test")
        .env("GITHUB_REPOSITORY", REPO)
        .env("GITHUB_RUN_ID", "29366839827")
        .env("INPUT_TIMEOUT", "10")
        .args([
            "comment",
            "--pr",
            &PR.to_string(),
            "--format",
            "json",
            "--report",
        ])
        .arg(&file)
        .args(extra)
        .run();
    let v: Value = serde_json::from_str(run.stdout.trim())
        .unwrap_or_else(|e| panic!("JSON ({e}): {}\n{}", run.stdout, run.stderr));
    (run, v)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn created_then_updated_in_place_one_comment_per_marker() {
    let (mock, comments) = mock_with_comments().await;
    let first = report(10, 1, "softmax");
    let (run, v) = tokio::task::block_in_place(|| comment(&mock, &first, &[]));
    run.assert_code(0);
    assert_eq!(v["action"], "created");
    let (_, v) = tokio::task::block_in_place(|| comment(&mock, &first, &[]));
    assert_eq!(
        v["action"], "unchanged",
        "the same body is not written again"
    );
    let (_, v) = tokio::task::block_in_place(|| comment(&mock, &report(10, 2, "softmax"), &[]));
    assert_eq!(v["action"], "updated");
    let all = comments.all();
    assert_eq!(all.len(), 1, "one comment after three runs");
    assert!(
        all[0]
            .body
            .starts_with("<!-- baseline-resolver:default -->\n### ❌ Benchmarks: regression")
    );
    assert!(all[0].body.contains("#### Regressed and lost (2)"));
    assert!(all[0].body.contains(&format!(
        "[the benchmark run](https://github.com/{REPO}/actions/runs/29366839827)"
    )));
    assert_eq!(
        v["url"],
        format!(
            "https://github.com/{REPO}/pull/{PR}#issuecomment-{}",
            all[0].id
        )
    );
    let (_, v) = tokio::task::block_in_place(|| comment(&mock, &first, &["--marker", "mi355"]));
    assert_eq!(v["action"], "created");
    let all = comments.all();
    assert_eq!(all.len(), 2, "a second marker, a second comment");
    assert!(all[1].body.starts_with("<!-- baseline-resolver:mi355 -->"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_strangers_comment_with_the_marker_is_left_alone() {
    let (mock, comments) = mock_with_comments().await;
    let forged = "<!-- baseline-resolver:default -->\n### ✅ Benchmarks: pass (forged)";
    comments.add("mallory", forged);
    let (run, v) = tokio::task::block_in_place(|| comment(&mock, &report(3, 1, "gemm"), &[]));
    run.assert_code(0);
    assert_eq!(v["action"], "created");
    let all = comments.all();
    assert_eq!(all.len(), 2);
    assert_eq!(all[0].body, forged, "never edited");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_page_is_read_and_one_write_follows() {
    let (mock, comments) = mock_with_comments().await;
    for i in 0..250 {
        comments.add("reviewer", &format!("comment {i}"));
    }
    comments.add(BOT, "<!-- baseline-resolver:default -->\nold");
    let (run, v) = tokio::task::block_in_place(|| comment(&mock, &report(5, 1, "moe"), &[]));
    run.assert_code(0);
    assert_eq!(v["action"], "updated", "ours is on page 3");
    assert_eq!(comments.all().len(), 251);
    let requests = mock.requests().await;
    assert_eq!(requests.len(), 4, "three pages and one write: {requests:?}");
    assert_eq!(v["requests"], 4);
    assert!(requests[3].starts_with("PATCH "), "{requests:?}");
}

/// Pages of comments that never end: each links to the next (`endless`)
/// or back to itself (a loop).
pub struct Endless {
    pub base: String,
    pub looping: bool,
}

impl Respond for Endless {
    fn respond(&self, r: &Request) -> ResponseTemplate {
        let page: usize = r
            .url
            .query_pairs()
            .find(|(k, _)| k == "page")
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(1);
        let next = if self.looping { page } else { page + 1 };
        let list = format!("/repos/{REPO}/issues/{PR}/comments");
        ok_json(json!([{"id": page, "body": "hi", "user": {"login": "reviewer"}}])).insert_header(
            "link",
            format!(
                "<{}{list}?per_page=100&page={next}>; rel=\"next\"",
                self.base
            ),
        )
    }
}

/// Issue 26: a pagination loop, or pages past the cap, never lead to a
/// second comment: the comments were not all seen, so nothing is written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn comments_not_read_to_their_end_are_a_warning_and_no_write() {
    for looping in [true, false] {
        let mock = MockGitHub::start().await;
        Mock::given(wiremock::matchers::method("GET"))
            .and(path_regex(format!("^/repos/{REPO}/issues/{PR}/comments")))
            .respond_with(Endless {
                base: mock.url(),
                looping,
            })
            .mount(&mock.server)
            .await;
        let (run, v) = tokio::task::block_in_place(|| comment(&mock, &report(2, 1, "a"), &[]));
        run.assert_code(0);
        assert_eq!(v["action"], "failed", "{v}");
        let w = v["warning"].as_str().unwrap();
        let why = if looping {
            "the pages loop"
        } else {
            "more than 100 pages"
        };
        assert!(w.contains(why), "{w}");
        let requests = mock.requests().await;
        assert!(
            requests.iter().all(|r| r.starts_with("GET ")),
            "no write: {requests:?}"
        );
        assert_eq!(requests.len(), if looping { 2 } else { 100 });
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hostile_report_renders_inert() {
    let (mock, comments) = mock_with_comments().await;
    let mut hostile = report(2, 2, "x");
    hostile["baselines"][0]["rows"][0]["key"] = json!({
        "op": "@org/team #1 <img src=x onerror=alert(1)>",
        "shape": "[x](https://elsewhere) ![i](https://evil.test/i.png)",
        "dtype": "`code` a|b\n### heading\r\n<!-- baseline-resolver:default -->",
    });
    hostile["baselines"][0]["rows"][1]["reason"] =
        json!("<script>alert(1)</script> @everyone www.evil.test");
    hostile["gate"] = json!("main](https://evil.test)");
    hostile["baselines"][0]["label"] = json!("<b>main</b>");
    hostile["warnings"] = json!(["::error::from the report @admins"]);
    hostile["provenance"]["base_repo"] = json!("evil/@repo");
    hostile["provenance"]["base_sha"] = json!("not a sha <img>");
    let (run, _) = tokio::task::block_in_place(|| comment(&mock, &hostile, &[]));
    run.assert_code(0);
    let body = comments.all()[0].body.clone();
    for bad in [
        "<img",
        "<script",
        "<b>",
        "](https://evil",
        "![",
        "@org",
        "@everyone",
        "@admins",
        "#1",
        "https://elsewhere",
        "www.evil",
        "`code`",
        "\n### heading",
    ] {
        assert!(!body.contains(bad), "{bad:?} in the body:\n{body}");
    }
    assert_eq!(
        body.matches("<!--").count(),
        1,
        "only the marker is an HTML comment"
    );
    let links: Vec<&str> = body.match_indices("](").map(|(i, _)| &body[i..]).collect();
    assert_eq!(links.len(), 1, "the run's link only: {links:?}");
    assert!(links[0].starts_with("](https://github.com/ROCm/FlyDSL/actions/runs/"));
    // Two tables, each a header and two rows (separators start `|-`).
    let table_rows = body.lines().filter(|l| l.starts_with("| ")).count();
    assert_eq!(table_rows, 6, "a cell cannot add a row:\n{body}");
    for line in body.lines().filter(|l| l.starts_with("| ")) {
        let cells = line.replace("\\|", "").matches('|').count();
        assert!(
            cells == 6 || cells == 7,
            "a cell cannot add a column: {line}"
        );
    }
    assert!(commands(&run.stdout).is_empty() && commands(&run.stderr).is_empty());
}

#[test]
fn a_100000_row_report_stays_under_the_limit_and_says_what_was_left_out() {
    let bin = Bin::new();
    let file = bin.dir().join("report.json");
    std::fs::write(&file, report(100_000, 3_000, "softmax").to_string()).unwrap();
    let run = bin
        .env("GITHUB_REPOSITORY", REPO)
        .env("GITHUB_RUN_ID", "7")
        .args(["comment", "--dry-run", "--format", "json", "--report"])
        .arg(&file)
        .run();
    run.assert_code(0);
    let v: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    let body = v["body"].as_str().unwrap();
    let chars = body.chars().count();
    assert!(chars <= 65_536, "{chars} characters");
    assert!(chars > 60_000, "the room is used: {chars}");
    let left = v["rows_left_out"].as_u64().unwrap();
    assert!(left > 90_000, "{left}");
    assert!(body.contains(&format!("*{left} rows are left out to keep this comment under GitHub's limit of 65,536 characters; the whole report is in the job summary and the report artifact of [the benchmark run](https://github.com/{REPO}/actions/runs/7).*")));
    assert!(body.contains("```mermaid"), "the chart is kept");
    assert_eq!(
        body.matches("<details>").count(),
        body.matches("</details>").count()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_permission_and_no_pull_request_are_warnings_strict_fails() {
    let mock = MockGitHub::start().await;
    Mock::given(path_regex(format!("^/repos/{REPO}/issues/{PR}/comments")))
        .respond_with(error(403, "Resource not accessible by integration"))
        .mount(&mock.server)
        .await;
    let (run, v) = tokio::task::block_in_place(|| comment(&mock, &report(2, 1, "a"), &[]));
    run.assert_code(0);
    assert_eq!(v["action"], "failed");
    let w = v["warning"].as_str().unwrap();
    assert!(
        w.contains("pull-requests: read") && w.contains("workflow_run"),
        "{w}"
    );
    assert!(
        !run.stdout.contains("ghs_test") && !run.stderr.contains("ghs_test"),
        "the token is never shown"
    );
    let (run, _) =
        tokio::task::block_in_place(|| comment(&mock, &report(2, 1, "a"), &["--strict"]));
    run.assert_code(1);
    let bin_run = tokio::task::block_in_place(|| {
        let bin = Bin::new().on_runner();
        let file = bin.dir().join("r.json");
        std::fs::write(&file, report(2, 1, "a").to_string()).unwrap();
        bin.api(&mock.url())
            .env("GITHUB_TOKEN", "ghs_test")
            .env("GITHUB_REPOSITORY", REPO)
            .args(["comment", "--pr", "802", "--report"])
            .arg(&file)
            .run()
    });
    bin_run.assert_code(0);
    assert!(
        bin_run
            .stdout
            .contains("::warning title=Benchmark comment not posted::"),
        "{}",
        bin_run.stdout
    );
    assert!(
        bin_run.stdout.contains("not found (HTTP 404)"),
        "{}",
        bin_run.stdout
    );
    assert_eq!(bin_run.outputs()["action"], "failed");
    // A write refused: the permission the write needs is named.
    let mock = MockGitHub::start().await;
    Mock::given(wiremock::matchers::method("GET"))
        .and(path_regex(format!("^/repos/{REPO}/issues/{PR}/comments")))
        .respond_with(ok_json(json!([])))
        .mount(&mock.server)
        .await;
    Mock::given(wiremock::matchers::method("POST"))
        .respond_with(error(403, "Resource not accessible by integration"))
        .mount(&mock.server)
        .await;
    let (run, v) = tokio::task::block_in_place(|| comment(&mock, &report(2, 1, "a"), &[]));
    run.assert_code(0);
    assert!(
        v["warning"]
            .as_str()
            .unwrap()
            .contains("pull-requests: write"),
        "{v}"
    );
}

/// `comment --dry-run` on a report written to a file: the JSON outcome.
fn dry_run(report: &str) -> Value {
    let bin = Bin::new();
    let file = bin.dir().join("report.json");
    std::fs::write(&file, report).unwrap();
    let run = bin
        .env("GITHUB_REPOSITORY", REPO)
        .env("GITHUB_RUN_ID", "7")
        .args(["comment", "--dry-run", "--format", "json", "--report"])
        .arg(&file)
        .run();
    run.assert_code(0);
    serde_json::from_str(run.stdout.trim()).unwrap()
}

/// Issue 26: every part of the body counts toward GitHub's limit, not only
/// the tables: a 200,000-character key in `counts` gave a body of 200,660
/// characters, 2,000 unavailable baselines one of 3,065,193.
#[test]
fn every_part_of_the_body_counts_toward_the_limit() {
    let long = "a".repeat(200_000);
    let mut r = report(3, 1, "x");
    r["baselines"][0]["counts"][&long] = json!(5);
    r["warnings"] = json!(vec![long.clone(); 40]);
    let v = dry_run(&r.to_string());
    let body = v["body"].as_str().unwrap();
    assert!(body.chars().count() <= 65_536, "{}", body.chars().count());
    assert!(
        !body.contains(&"a".repeat(400)),
        "a stranger's count name is not shown"
    );
    assert!(body.contains("1 regressed"), "compare's own counts are");

    let mut r = report(3, 1, "x");
    let why = "the baseline run failed: ".to_owned() + &"b".repeat(5_000);
    for i in 0..2_000 {
        r["baselines"].as_array_mut().unwrap().push(json!({
            "label": format!("tag-{i}"), "gate": false, "available": false,
            "unavailable_reason": why, "counts": {}, "rows": []}));
    }
    let v = dry_run(&r.to_string());
    let body = v["body"].as_str().unwrap();
    let chars = body.chars().count();
    assert!(chars <= 65_536 && chars > 60_000, "{chars}");
    assert!(
        body.contains("parts of the report are left out"),
        "{}",
        &body[body.len() - 400..]
    );
    assert!(
        body.contains("#### Regressed and lost (1)"),
        "the gate comes first"
    );
}

/// Issue 26: `evil/phish@fa4f8ae2d93c` in the provenance is a link to that
/// repository's commit; only the pull request's own repository keeps it.
#[test]
fn a_baseline_of_another_repository_is_not_linked() {
    let mut r = report(2, 0, "x");
    r["provenance"]["base_repo"] = json!("evil/phish");
    let body = dry_run(&r.to_string())["body"].as_str().unwrap().to_owned();
    assert!(!body.contains("evil/phish@fa4f8ae2d93c"), "{body}");
    assert!(body.contains("phish@\u{200b}fa4f8ae2d93c"), "{body}");
    let own = dry_run(&report(2, 0, "x").to_string())["body"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(own.contains("baseline ROCm/FlyDSL@fa4f8ae2d93c"), "{own}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forks_workflow_run_finds_its_pull_request_and_links_its_run() {
    let (mock, comments) = mock_with_comments().await;
    let head = "3c9d2e7a1f5b8c4d6e0a2b9f7c1d3e5a8b6f4c20";
    mock.pulls_with_head(
        REPO,
        "jhinpan:feature",
        json!([pull_json(
            PR,
            REPO,
            "fa4f8ae2d93c1a7e5b06f2c8e4d1b3a9c7e05f16",
            Some("jhinpan/FlyDSL-lab"),
            head
        )]),
    )
    .await;
    let payload = json!({"action": "completed", "repository": {"id": 1, "full_name": REPO},
        "workflow_run": {"id": 29366839827u64, "event": "pull_request", "head_sha": head,
            "head_branch": "feature", "pull_requests": [],
            "repository": {"id": 1, "full_name": REPO},
            "head_repository": {"id": 2, "full_name": "jhinpan/FlyDSL-lab"}}});
    let run = tokio::task::block_in_place(|| {
        let bin = Bin::new();
        let file = bin.dir().join("report.json");
        std::fs::write(&file, report(4, 1, "mla").to_string()).unwrap();
        let event = bin.dir().join("event.json");
        std::fs::write(&event, payload.to_string()).unwrap();
        bin.api(&mock.url())
            .env("GITHUB_EVENT_PATH", &event)
            .env("GITHUB_EVENT_NAME", "workflow_run")
            .env("GITHUB_TOKEN", "ghs_test")
            .env("GITHUB_REPOSITORY", REPO)
            .env("GITHUB_RUN_ID", "1")
            .args(["comment", "--format", "json", "--report"])
            .arg(&file)
            .run()
    });
    run.assert_code(0);
    let v: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(v["action"], "created", "{v}");
    assert_eq!(v["pr"], PR);
    let body = &comments.all()[0].body;
    assert!(
        body.contains("actions/runs/29366839827)"),
        "the run that wrote the report:\n{body}"
    );
}

/// The body a reviewer reads, made from compare's own report of a failed
/// baseline row, a regression and a new benchmark (`comment --dry-run`).
#[test]
fn body_of_a_compare_regression() {
    let run = crate::compare::compare_seed()
        .args(["--format", "json"])
        .run();
    run.assert_code(4);
    let v = dry_run(&run.stdout);
    insta::assert_snapshot!(
        "comment_body_compare_regression",
        v["body"].as_str().unwrap()
    );
}
