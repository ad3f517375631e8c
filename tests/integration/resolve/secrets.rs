//! The token never appears in stdout, stderr, the job summary or the step
//! outputs, with `RUNNER_DEBUG=1`, on any path: success, every API failure,
//! the git fallback, a failed fetch, bad input and usage errors.

use std::time::Duration;

use serde_json::json;
use wiremock::matchers::any;
use wiremock::{Mock, ResponseTemplate};

use crate::resolve::online::{TIP, online, repo_json};
use crate::support::harness::Run;
use crate::support::mock_github::{MockGitHub, error, ok};

const TOKEN: &str = "ghs_SeCrEt0TokenValue1234567890ABCDEFGH";

fn assert_hidden(run: &Run, case: &str) {
    for (what, text) in [
        ("stdout", &run.stdout),
        ("stderr", &run.stderr),
        ("summary", &run.summary),
        ("outputs", &run.output_file),
    ] {
        assert!(!text.contains(TOKEN), "{case}: token in {what}");
        assert!(
            !text.contains(&TOKEN[4..20]),
            "{case}: part of the token in {what}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_token_never_appears_on_any_path() {
    let responses = [
        ("401", error(401, "Bad credentials")),
        ("403", error(403, "Resource not accessible by integration")),
        ("404", error(404, "Not Found")),
        ("500", error(500, "Server Error")),
        ("invalid JSON", ok().set_body_string("{not json")),
        (
            "slow",
            ResponseTemplate::new(200).set_delay(Duration::from_secs(10)),
        ),
        ("success", ok().set_body_string(TIP)),
    ];
    let payloads = [
        (json!({"repository": repo_json()}), "workflow_dispatch"),
        (
            json!({"ref": "refs/tags/v2.0.0", "before": "0".repeat(40), "after": TIP, "created": true, "repository": repo_json()}),
            "push",
        ),
    ];
    for (case, response) in responses {
        let mock = MockGitHub::start().await;
        Mock::given(any())
            .respond_with(response)
            .mount(&mock.server)
            .await;
        for (payload, event) in &payloads {
            let target = tempfile::tempdir().unwrap();
            let run = online(&mock, payload, event)
                .args(["--timeout", "2", "--fetch"])
                .arg(target.path())
                .env("INPUT_TOKEN", TOKEN)
                .env("RUNNER_DEBUG", "1")
                .on_runner()
                .run_async()
                .await;
            assert_eq!(run.code, 0, "{case}: {}", run.stderr);
            assert!(
                run.stdout.contains("::debug::token: set"),
                "{case}: debug on"
            );
            assert_hidden(&run, &format!("{case} ({event})"));
        }
    }

    // Bad input and usage errors, with the token given as a flag.
    let mock = MockGitHub::start().await;
    for (payload, args) in [
        ("[]", vec!["--token", TOKEN]),
        ("{\"ref\": 1}", vec!["--token", TOKEN]),
        ("{}", vec!["--token", TOKEN, "--base-sha", "short"]),
        ("{}", vec!["--token", TOKEN, "--timeout", "forever"]),
    ] {
        let run = crate::support::harness::Bin::new()
            .payload(payload, "push")
            .api(&mock.url())
            .args(args)
            .env("RUNNER_DEBUG", "1")
            .on_runner()
            .run_async()
            .await;
        assert_ne!(run.code, 0);
        assert_hidden(&run, payload);
    }
}
