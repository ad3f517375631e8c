//! The token goes to the configured hosts only: git's credentials only to
//! the scheme, host and port of `GITHUB_SERVER_URL` (not after a redirect,
//! not to an `insteadOf` rewrite), the API's `Authorization` only to
//! `GITHUB_API_URL`'s host (dropped when a redirect leaves it).

use serde_json::json;
use wiremock::matchers::{method, path};
use wiremock::{Mock, ResponseTemplate};

use crate::resolve::git_fallback::{api_down, dispatch_with_git};
use crate::resolve::online::{REPO, repo_json};
use crate::support::git_https::GitHttps;
use crate::support::gitrepo::{BareRepo, git};
use crate::support::harness::Bin;
use crate::support::mock_github::{MockGitHub, ok_json};

const TOKEN: &str = "ghs_onlyforthehost";

fn never_saw_the_token(server: &GitHttps) {
    for seen in server.requests() {
        assert_eq!(seen.authorization, None, "{seen:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_git_redirect_to_another_host_is_not_followed() {
    let repo = BareRepo::new(REPO, &[("v1.0.0".to_owned(), false)], 0);
    let server = GitHttps::start(repo.root.path()).await;
    let elsewhere = GitHttps::start(repo.root.path()).await;
    elsewhere.make_private();
    server.redirect_to(&format!("https://localhost:{}", elsewhere.front.port));
    let mock = api_down().await;
    let (_, j) = dispatch_with_git(&mock, &server.url(), TOKEN)
        .json_async()
        .await;
    assert_eq!(j["base_available"], false, "{j}");
    assert_eq!(j["tag_available"], false, "{j}");
    let warnings = j["warnings"].to_string();
    assert!(
        warnings.contains("redirect away from the server's host is not followed"),
        "{warnings}"
    );
    assert!(
        elsewhere.requests().is_empty(),
        "the other host was never asked"
    );
    never_saw_the_token(&server);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_instead_of_rewrite_in_the_fetch_clone_gets_no_token() {
    let repo = BareRepo::new(REPO, &[], 0);
    let server = GitHttps::start(repo.root.path()).await;
    server.make_private();
    let elsewhere = GitHttps::start(repo.root.path()).await;
    elsewhere.make_private();
    let clone = tempfile::tempdir().unwrap();
    git(clone.path(), &["init", "--quiet"]);
    let other = format!("https://localhost:{}/", elsewhere.front.port);
    let ours = format!("{}/", server.url());
    git(
        clone.path(),
        &["config", &format!("url.{other}.insteadOf"), &ours],
    );
    let payload = json!({"pull_request": {"base": {"ref": "main", "sha": repo.commits[1], "repo": repo_json()},
        "head": {"ref": "x", "sha": repo.commits[2], "repo": repo_json()}}});
    let run = Bin::new()
        .payload(&payload.to_string(), "pull_request")
        .api("https://127.0.0.1:1")
        .env("GITHUB_SERVER_URL", server.url())
        .env("INPUT_TOKEN", TOKEN)
        .args(["--no-tag", "--timeout", "20", "--fetch"])
        .arg(clone.path())
        .on_runner()
        .run_async()
        .await;
    run.assert_code(0);
    assert_eq!(run.outputs()["base-fetched"], "false");
    assert!(!elsewhere.requests().is_empty(), "the rewrite was followed");
    never_saw_the_token(&elsewhere);
    assert!(server.requests().is_empty());
    let warning = run
        .stdout
        .lines()
        .find(|l| l.starts_with("::warning title=Baseline not fetched::"))
        .unwrap_or_else(|| panic!("{}", run.stdout));
    assert!(
        warning.contains(&format!("localhost%3A{}", elsewhere.front.port))
            || warning.contains(&format!("localhost:{}", elsewhere.front.port)),
        "names the URL actually asked: {warning}"
    );
    assert!(
        warning.contains("the token was not sent there"),
        "{warning}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_drops_the_token_when_a_redirect_leaves_its_host() {
    let api = MockGitHub::start().await;
    let elsewhere = MockGitHub::start().await;
    let moved = format!(
        "https://localhost:{}/repos/{REPO}/git/matching-refs/tags/v",
        elsewhere.front.port
    );
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(302).insert_header("location", moved.as_str()))
        .mount(&api.server)
        .await;
    Mock::given(path(format!("/repos/{REPO}/git/matching-refs/tags/v")))
        .respond_with(ok_json(json!([{"ref": "refs/tags/v1.0.0",
            "object": {"sha": "89abcdef0123456789abcdef0123456789abcdef", "type": "commit"}}])))
        .mount(&elsewhere.server)
        .await;
    let payload = json!({"pull_request": {"base": {"ref": "main", "sha": "a".repeat(40), "repo": repo_json()},
        "head": {"ref": "x", "sha": "b".repeat(40), "repo": repo_json()}}});
    let (_, j) = Bin::new()
        .payload(&payload.to_string(), "pull_request")
        .api(&api.url())
        .env("GITHUB_SERVER_URL", "git://127.0.0.1:1")
        .env("INPUT_TOKEN", TOKEN)
        .json_async()
        .await;
    assert_eq!(j["tag"], "v1.0.0", "{j}");
    let first = api.server.received_requests().await.unwrap();
    assert_eq!(
        first[0].headers.get("authorization").unwrap(),
        &format!("Bearer {TOKEN}")
    );
    let second = elsewhere.server.received_requests().await.unwrap();
    assert_eq!(second.len(), 1);
    assert!(
        second[0].headers.get("authorization").is_none(),
        "the token stayed with the API host: {:?}",
        second[0].headers
    );
}
