//! Issue 47, the examples that run: every workflow of examples/workflows
//! run by its jobs as a runner would ([`crate::support::workflow`]), on the
//! seed-shaped world of [`crate::docs_blocks`], for each case it is
//! triggered by: a push to main first (what it uploads, a pull request may
//! download), then a pull request from a fork. An example that is not run
//! says why in its own comments (`# not-run: ...`).

use std::path::{Path, PathBuf};

use serde_json::json;
use serde_yaml_ng::Value as Yaml;

use crate::docs_blocks::{World, assert_all_ran, check_jobs};
use crate::support::harness::repo_root;
use crate::support::workflow;

/// Every example workflow runs for each case it is triggered by (a push to
/// main before a pull request from a fork), or says why not.
#[test]
fn every_example_workflow_runs_for_a_push_and_a_fork_pull_request() {
    let dir = repo_root().join("examples/workflows");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    let mut results = Vec::new();
    for path in names {
        results.extend(run_example(&path));
    }
    assert_all_ran(&results);
}

fn run_example(path: &Path) -> Vec<(String, Result<(), String>)> {
    let text = std::fs::read_to_string(path).unwrap();
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    if let Some(why) = text.lines().find_map(|l| l.strip_prefix("# not-run:")) {
        // An example that is not run says why, in its own comments.
        assert!(!why.trim().is_empty(), "{name}: not-run says why");
        return vec![];
    }
    let doc: Yaml = serde_yaml_ng::from_str(&text).unwrap();
    let on = &doc["on"];
    let mut world = World::new(".");
    let mut out = Vec::new();
    for event in ["push", "pull_request"] {
        if on.get(event).is_none() {
            continue;
        }
        let mut run = world.run(event);
        let got = workflow::run_workflow_with(&mut run, &doc, json!({}));
        world.log.push_str(&run.log);
        out.push((
            format!("{name} ({event})"),
            got.and_then(|n| check_jobs(n, &run.log)),
        ));
    }
    assert!(
        !out.is_empty(),
        "{name}: runs on neither push nor pull_request"
    );
    out
}

/// reuse-main-baseline.yml on a push to main: each runner uploads its
/// results under the name a pull request based on the pushed commit looks
/// up (`artifact-name` rendered for that commit: resolve's `upload-name`),
/// the template typed once.
#[test]
fn a_push_to_main_uploads_under_the_names_pull_requests_look_up() {
    let path = repo_root().join("examples/workflows/reuse-main-baseline.yml");
    let doc: Yaml = serde_yaml_ng::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let mut world = World::new(".");
    let mut run = world.run("push");
    let got = workflow::run_workflow_with(&mut run, &doc, json!({}));
    check_jobs(got.unwrap(), &run.log).unwrap();
    let mut stored: Vec<String> = std::fs::read_dir(&run.store)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    stored.sort();
    let head = &run.checkout_sha;
    let want: Vec<String> = ["mi325", "mi355", "navi"]
        .iter()
        .map(|gpu| format!("bench-{gpu}-{head}"))
        .collect();
    assert_eq!(stored, want, "{}", run.log);
    let csv = run.store.join(&want[1]).join("current.csv");
    assert!(
        std::fs::read_to_string(&csv)
            .unwrap()
            .starts_with("op,shape,dtype,tbps,tflops"),
        "main's results themselves"
    );
    for name in &want {
        let fp = run.store.join(name).join("current.csv.fingerprint.json");
        let text = std::fs::read_to_string(&fp)
            .unwrap_or_else(|e| panic!("{name} holds bench's fingerprint beside the results: {e}"));
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["schema"], 1, "{text}");
        let gpu = name.split('-').nth(1).unwrap();
        assert_eq!(
            value["extra"]["runner_labels"],
            format!("self-hosted linux-{gpu}-gpu-1"),
            "the runs-on labels, by --fingerprint-command: {text}"
        );
    }
}

/// reuse-main-baseline.yml on a fork's pull request when main's push run
/// uploaded the base commit's results: resolve (online, against the mock
/// API) finds each runner's artifact in the base repository, the download
/// step takes resolve's `artifact-name` and `artifact-run-id`, and bench
/// does not run the baseline: the downloaded file is the baseline.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pull_request_reuses_mains_uploaded_results_by_resolves_outputs() {
    let log = reuse_on_a_pull_request(None).await;
    assert_eq!(
        log.matches("\nbaseline: reused, 3 rows -> ").count(),
        3,
        "each runner's baseline is main's downloaded result:\n{log}"
    );
    assert!(
        !log.contains("[baseline] "),
        "the baseline never ran:\n{log}"
    );
    assert_eq!(
        log.matches("compare: PASS against main").count(),
        3,
        "{log}"
    );
}

/// Issue 52: main's artifact holds the fingerprint of the machine that
/// measured it, beside the results; the pull request's download puts it
/// where bench's reuse check reads it. Measured on another GPU (an
/// MI300X with another driver; this runner has none of its tools), each
/// runner says so and runs the baseline itself instead of reusing it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pull_request_downloads_mains_fingerprint_and_another_machine_is_not_reused() {
    let other = r#"{"schema":1,"gpus":[{"vendor":"amd","model":"AMD Instinct MI300X","power_limit_w":750.0}],"driver":"6.3.6","runtime":"ROCm 6.1.2","cpu":"AMD EPYC 9654"}"#;
    let log = reuse_on_a_pull_request(Some(other)).await;
    let said = log
        .lines()
        .filter(|l| {
            l.starts_with("::notice ")
                && l.contains("the baseline was measured on AMD Instinct MI300X")
                && l.ends_with("it is not reused: the baseline runs in this job (--reuse-other-machine reuses it)")
        })
        .count();
    assert_eq!(
        said, 3,
        "each runner read main's downloaded fingerprint:\n{log}"
    );
    assert_eq!(
        log.matches("\nbaseline: ok at ").count(),
        3,
        "each runner ran its baseline itself:\n{log}"
    );
    assert!(
        !log.contains("\nbaseline: reused"),
        "another machine's results are not reused:\n{log}"
    );
}

/// reuse-main-baseline.yml on a fork's pull request, main's push run having
/// uploaded each runner's results of the base commit (with `fingerprint`
/// beside them, when given): its log.
async fn reuse_on_a_pull_request(fingerprint: Option<&str>) -> String {
    use crate::support::mock_github::{MockGitHub, ok_json};
    use wiremock::Mock;
    use wiremock::matchers::{method, path, query_param};
    let mock = MockGitHub::start().await;
    let mut world = World::new(".");
    let base = world.seed.base.clone();
    let repo = crate::support::seed::BASE_REPO;
    mock.tags(repo, &[]).await;
    for (i, gpu) in ["mi355", "mi325", "navi"].iter().enumerate() {
        let name = format!("bench-{gpu}-{base}");
        let id = 11 + i as u64;
        let artifact = json!({"id": id, "name": name, "expired": false,
            "created_at": "2026-11-01T10:00:00Z", "updated_at": "2026-11-01T10:00:00Z",
            "workflow_run": {"id": 101, "repository_id": 700001, "head_repository_id": 700001,
                "head_branch": "main", "head_sha": base}});
        Mock::given(method("GET"))
            .and(path(format!("/repos/{repo}/actions/artifacts")))
            .and(query_param("name", name.as_str()))
            .respond_with(ok_json(json!({"total_count": 1, "artifacts": [artifact]})))
            .mount(&mock.server)
            .await;
        // What main's push run uploaded: the base commit's results.
        let dir = world.store.join(&name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("current.csv"),
            "op,shape,dtype,tbps,tflops\nsoftmax,4096x4096,bf16,-,100\ngemm,4096x4096,bf16,-,100\nlayernorm,4096x4096,bf16,-,100\n",
        )
        .unwrap();
        if let Some(fp) = fingerprint {
            std::fs::write(dir.join("current.csv.fingerprint.json"), fp).unwrap();
        }
    }
    let run_json = json!({"id": 101, "name": "benchmark-reuse", "path": ".github/workflows/reuse-main-baseline.yml",
        "head_branch": "main", "head_sha": base, "event": "push", "status": "completed",
        "conclusion": "success", "run_attempt": 1,
        "repository": {"id": 700001, "full_name": repo},
        "head_repository": {"id": 700001, "full_name": repo}});
    Mock::given(method("GET"))
        .and(path(format!(
            "/repos/{repo}/actions/workflows/reuse-main-baseline.yml/runs"
        )))
        .respond_with(ok_json(
            json!({"total_count": 1, "workflow_runs": [run_json]}),
        ))
        .mount(&mock.server)
        .await;
    let path = repo_root().join("examples/workflows/reuse-main-baseline.yml");
    let doc: Yaml = serde_yaml_ng::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let url = mock.url();
    let (got, log) = tokio::task::spawn_blocking(move || {
        let mut run = world.run("pull_request");
        run.env.remove("INPUT_OFFLINE");
        run.env.insert("GITHUB_API_URL".into(), url);
        run.env.insert(
            "SSL_CERT_FILE".into(),
            crate::support::tls::ca_file().display().to_string(),
        );
        let got = workflow::run_workflow_with(&mut run, &doc, json!({}));
        (got, run.log)
    })
    .await
    .unwrap();
    check_jobs(got.unwrap(), &log).unwrap();
    log
}

/// Every example workflow, by file name, parsed.
fn examples() -> Vec<(String, serde_yaml_ng::Value)> {
    let dir = crate::support::harness::repo_root().join("examples/workflows");
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, serde_yaml_ng::from_str(&text).unwrap())
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Break 5: `artifact-workflow` is the file name of the workflow whose
/// runs uploaded the artifacts (what GitHub looks up), and it is the file
/// these examples ship as, uploading an artifact the lookup names; a
/// `workflow_run` trigger names a shipped workflow's `name:`.
#[test]
fn every_example_names_a_workflow_that_ships_and_uploads_what_it_looks_up() {
    let all = examples();
    // What a workflow uploads: each upload step's name, where resolve's
    // `upload-name` stands for the template its step was given.
    let uploads = |file: &str| -> Vec<String> {
        let doc = &all.iter().find(|(n, _)| n == file).unwrap().1;
        let mut names = Vec::new();
        for job in doc["jobs"].as_mapping().unwrap().values() {
            let steps: Vec<_> = job["steps"].as_sequence().into_iter().flatten().collect();
            for step in &steps {
                if !step["uses"]
                    .as_str()
                    .is_some_and(|u| u.starts_with("actions/upload-artifact@"))
                {
                    continue;
                }
                let name = step["with"]["name"].as_str().unwrap();
                let template = steps.iter().find_map(|s| {
                    let id = s["id"].as_str()?;
                    (name == format!("${{{{ steps.{id}.outputs.upload-name }}}}"))
                        .then(|| s["with"]["artifact-name"].as_str())?
                });
                names.push(template.unwrap_or(name).to_owned());
            }
        }
        names
    };
    let mut checked = 0;
    for (file, doc) in &all {
        for job in doc["jobs"].as_mapping().unwrap().values() {
            for step in job["steps"].as_sequence().into_iter().flatten() {
                let Some(workflow) = step["with"]["artifact-workflow"].as_str() else {
                    continue;
                };
                assert!(
                    all.iter().any(|(n, _)| n == workflow),
                    "{file}: artifact-workflow {workflow} is not a shipped example's file name"
                );
                let prefix = step["with"]["artifact-name"]
                    .as_str()
                    .unwrap()
                    .lines()
                    .next()
                    .unwrap()
                    .trim()
                    .split('{')
                    .next()
                    .unwrap()
                    .split("mi355")
                    .next()
                    .unwrap()
                    .to_owned();
                assert!(
                    uploads(workflow).iter().any(|u| u.starts_with(&prefix)),
                    "{file}: {workflow} uploads no artifact named {prefix}..."
                );
                checked += 1;
            }
        }
        if let Some(names) = doc["on"]["workflow_run"]["workflows"].as_sequence() {
            for name in names {
                assert!(
                    all.iter().any(|(_, d)| d["name"] == *name),
                    "{file}: workflow_run names {name:?}, which no example is called"
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 3, "{checked}");
}
