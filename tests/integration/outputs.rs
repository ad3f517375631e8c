//! The runner protocol end to end: `GITHUB_OUTPUT` read back with the
//! runner's parser, the job summary, and the workflow commands on stdout.

use serde_json::{Value, json};

use crate::support::harness::{Bin, repo_root};

const BASE: &str = "fa4f8ae2d93c1a7e5b06f2c8e4d1b3a9c7e05f16";
const HEAD: &str = "3c9d2e7a1f5b8c4d6e0a2b9f7c1d3e5a8b6f4c20";

fn example() -> std::path::PathBuf {
    repo_root().join("examples/events/fork-pull-request.json")
}

#[test]
fn fork_pull_request_outputs_every_value() {
    let run = Bin::new()
        .event(example(), "pull_request")
        .arg("--offline")
        .on_runner()
        .run();
    run.assert_code(0);
    let o = run.outputs();
    let expect = [
        ("event-name", "pull_request"),
        ("base-repo", "ROCm/FlyDSL"),
        ("base-repo-url", "https://github.com/ROCm/FlyDSL"),
        ("base-sha", BASE),
        ("base-ref", "main"),
        ("base-source", "pr-base"),
        ("base-available", "true"),
        ("head-repo", "jhinpan/FlyDSL-lab"),
        ("head-sha", HEAD),
        ("is-fork", "true"),
        ("label", "main"),
        ("skip", "false"),
        ("skip-reason", ""),
        ("tag", ""),
        ("tag-sha", ""),
        ("tag-version", ""),
        ("tag-available", "false"),
        ("base-fetched", "false"),
        ("artifact-available", "false"),
        ("artifact-id", ""),
        ("artifact-run-id", ""),
        ("artifact-event", ""),
        ("artifact-name", ""),
        ("artifacts", "{}"),
        ("upload-name", ""),
    ];
    for (name, value) in expect {
        assert_eq!(
            o.get(name).map(String::as_str),
            Some(value),
            "output {name}"
        );
    }
    assert_eq!(o.len(), expect.len() + 1, "unexpected outputs: {o:?}");
    let json: Value = serde_json::from_str(&o["json"]).unwrap();
    assert_eq!(json["base_sha"], BASE);
    assert_eq!(json["warnings"], json!([]));

    // The log names the exact baseline, outside any group.
    let first = run.stdout.lines().next().unwrap();
    assert_eq!(
        first,
        format!("baseline main = ROCm/FlyDSL@{BASE} (pr-base: pull_request.base.sha)")
    );
    assert!(run.stdout.contains("::group::Baseline decision\n"));
    assert!(run.stdout.contains("::endgroup::\n"));
    assert!(!run.stdout.contains("::warning"), "{}", run.stdout);
    assert!(!run.stdout.contains("::debug::"));

    assert!(
        run.summary.contains("### Benchmark baseline `main`"),
        "{}",
        run.summary
    );
    assert!(
        run.summary
            .contains(&format!("| Baseline | **ROCm/FlyDSL** @ `{BASE}` |"))
    );
    assert!(run.summary.contains("| Head | jhinpan/FlyDSL-lab @ `"));
    assert!(run.summary.contains("(fork)"));
    assert!(run.summary.contains("<summary>Decision trace</summary>"));
}

#[test]
fn a_missing_baseline_is_a_visible_warning_everywhere() {
    let payload = json!({"ref": "refs/heads/main", "before": "0".repeat(40), "after": HEAD,
        "created": true, "repository": {"full_name": "ROCm/FlyDSL", "default_branch": "main"}});
    let run = Bin::new()
        .payload(&payload.to_string(), "push")
        .arg("--offline")
        .on_runner()
        .run();
    run.assert_code(0);
    let o = run.outputs();
    assert_eq!(o["base-sha"], "");
    assert_eq!(o["base-available"], "false");
    assert_eq!(o["base-source"], "branch-point");
    assert_eq!(o["skip"], "false");
    assert!(
        run.stdout.contains(
            "::warning title=Benchmark baseline unavailable::baseline unavailable for ROCm/FlyDSL"
        ),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("baseline main = UNAVAILABLE for ROCm/FlyDSL (branch-point)")
    );
    assert!(run.summary.contains("> [!WARNING]"));
    assert!(run.summary.contains("**unavailable**"));
    assert!(!run.output_file.contains(&"0".repeat(40)));
}

#[test]
fn strict_fails_on_a_missing_baseline_but_not_on_a_skip() {
    let payload = json!({"repository": {"full_name": "ROCm/FlyDSL", "default_branch": "main"}});
    let run = Bin::new()
        .payload(&payload.to_string(), "workflow_dispatch")
        .args(["--offline", "--strict"])
        .on_runner()
        .run();
    run.assert_code(3);
    assert_eq!(
        run.outputs()["base-available"],
        "false",
        "outputs are still written"
    );
    assert!(
        run.stdout
            .contains("::warning title=Benchmark baseline unavailable::")
    );

    let run = Bin::new()
        .payload(&payload.to_string(), "create")
        .args(["--offline"])
        .env("INPUT_STRICT", "true")
        .on_runner()
        .run();
    run.assert_code(0);
    assert_eq!(run.outputs()["skip-reason"], "unsupported-event:create");
}

#[test]
fn base_equal_to_head_is_a_warning() {
    let run = Bin::new()
        .event(example(), "pull_request")
        .args(["--offline", "--base-sha", HEAD])
        .on_runner()
        .run();
    run.assert_code(0);
    let o = run.outputs();
    assert_eq!(o["base-source"], "input");
    assert_eq!(o["base-sha"], HEAD);
    assert!(
        run.stdout
            .contains("::warning title=Baseline is the head commit::"),
        "{}",
        run.stdout
    );
}

/// Hostile but valid git ref names reach the outputs as data, not commands,
/// and cannot add an output: `$(id)`, backticks, `%0A`, `;`, and a name that
/// is itself a would-be heredoc delimiter.
#[test]
fn hostile_branch_names_stay_data() {
    for branch in [
        "v1$(id)",
        "v1`id`",
        "v1;id",
        "feat%0Ainjected=1",
        "ghadelimiter_0123456789abcdef0123456789abcdef",
        "x<<EOF",
        // Found by the fuzzer (a false alarm of its first oracle): a branch
        // name full of zeros is data; only SHA fields are never the zero SHA.
        &format!("ss{}ss", "0".repeat(60)),
    ] {
        let payload = json!({"ref": format!("refs/heads/{branch}"), "before": BASE, "after": HEAD,
            "repository": {"full_name": "ROCm/FlyDSL", "default_branch": "main"}});
        let run = Bin::new()
            .payload(&payload.to_string(), "push")
            .arg("--offline")
            .on_runner()
            .run();
        run.assert_code(0);
        let o = run.outputs();
        assert_eq!(o["base-ref"], branch);
        assert_eq!(o["base-sha"], BASE);
        assert_eq!(o["head-sha"], HEAD);
        assert_eq!(
            o.len(),
            crate::action::output_names().len(),
            "{branch}: {o:?}"
        );
        assert!(!run.summary.contains("<<EOF"), "summary escapes HTML");
        for line in run.stdout.lines() {
            assert!(
                !line.starts_with("::")
                    || line.starts_with("::group::")
                    || line.starts_with("::endgroup::"),
                "{branch}: unexpected command line {line:?}"
            );
        }
    }
}

#[test]
fn runner_debug_prints_debug_lines() {
    let run = Bin::new()
        .event(example(), "pull_request")
        .arg("--offline")
        .on_runner()
        .env("RUNNER_DEBUG", "1")
        .run();
    run.assert_code(0);
    assert!(
        run.stdout.contains("::debug::event name: pull_request"),
        "{}",
        run.stdout
    );
}

#[test]
fn outputs_are_appended_not_replaced() {
    let r = Bin::new()
        .event(example(), "pull_request")
        .arg("--offline")
        .on_runner();
    std::fs::write(r.dir().join("github_output"), "earlier=1\n").unwrap();
    let run = r.run();
    run.assert_code(0);
    assert_eq!(run.outputs()["earlier"], "1");
    assert_eq!(run.outputs()["base-repo"], "ROCm/FlyDSL");
}

/// The outputs matter more than the summary: a summary that cannot be
/// written (a directory, a full disk) is a warning, and the step succeeds
/// with every output in place.
#[test]
fn a_summary_that_cannot_be_written_is_a_warning_not_a_failure() {
    for summary in ["/dev/full", "/"] {
        let run = Bin::new()
            .event(example(), "pull_request")
            .arg("--offline")
            .on_runner()
            .env("GITHUB_STEP_SUMMARY", summary)
            .run();
        run.assert_code(0);
        assert_eq!(run.outputs()["base-sha"], BASE, "{summary}");
        assert!(
            run.stdout.contains(&format!(
                "::warning title=Job summary not written::cannot write GITHUB_STEP_SUMMARY {summary}"
            )),
            "{summary}: {}",
            run.stdout
        );
    }
}

/// A Markdown image or link from a server (here an API error message) is
/// shown as text in the job summary, never rendered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn markdown_from_a_server_stays_text_in_the_summary() {
    let mock = crate::support::mock_github::MockGitHub::start().await;
    wiremock::Mock::given(wiremock::matchers::any())
        .respond_with(crate::support::mock_github::error(
            403,
            "![i](https://evil.example/i.png) [docs](https://evil.example)",
        ))
        .mount(&mock.server)
        .await;
    let run = crate::resolve::online::online(
        &mock,
        &json!({"repository": {"full_name": "ROCm/FlyDSL"}}),
        "workflow_dispatch",
    )
    .on_runner()
    .run_async()
    .await;
    run.assert_code(0);
    assert!(run.summary.contains("evil.example"), "{}", run.summary);
    for live in ["![i](", "[docs](", "](https"] {
        assert!(!run.summary.contains(live), "{live}: {}", run.summary);
    }
}

#[test]
fn enterprise_server_urls_come_from_github_server_url() {
    let run = Bin::new()
        .event(example(), "pull_request")
        .arg("--offline")
        .env("GITHUB_SERVER_URL", "https://ghes.example.com/")
        .on_runner()
        .run();
    run.assert_code(0);
    assert_eq!(
        run.outputs()["base-repo-url"],
        "https://ghes.example.com/ROCm/FlyDSL"
    );
}

// Issue 2, item 2: scripts and tests depend on json's exact set of keys.
#[test]
fn json_holds_every_documented_key_and_text_writes_no_outputs() {
    let run = Bin::new()
        .event(example(), "pull_request")
        .arg("--offline")
        .run();
    run.assert_code(0);
    assert!(
        run.stdout
            .starts_with(&format!("baseline main = ROCm/FlyDSL@{BASE}"))
    );
    assert!(run.stdout.contains("(fork)"));
    assert!(run.output_file.is_empty(), "text format writes no outputs");

    let (_, json) = Bin::new()
        .event(example(), "pull_request")
        .arg("--offline")
        .json();
    let keys: Vec<&str> = json
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    for key in [
        "event_name",
        "base_repo",
        "base_repo_url",
        "base_sha",
        "base_ref",
        "base_source",
        "base_available",
        "head_repo",
        "head_sha",
        "is_fork",
        "label",
        "skip",
        "skip_reason",
        "warnings",
        "tag",
        "tag_sha",
        "tag_version",
        "tag_available",
    ] {
        assert!(keys.contains(&key), "JSON key {key} missing: {keys:?}");
    }
    assert_eq!(json["tag_available"], false);
    assert!(json["tag"].is_null());
}
