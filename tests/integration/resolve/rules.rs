//! The pure rules, without a process or a network: payload in, decision out.

use std::path::Path;

use baseline_resolver::github::event::{self, EventName};
use baseline_resolver::resolve::rules::{
    BaseSource, Baseline, Commitish, Lookup, PayloadError, Settings, SkipReason, decide,
};
use baseline_resolver::validate::{RefName, Sha};
use serde_json::{Value, json};

const BASE: &str = "fa4f8ae2d93c1a7e5b06f2c8e4d1b3a9c7e05f16";
const HEAD: &str = "3c9d2e7a1f5b8c4d6e0a2b9f7c1d3e5a8b6f4c20";
const STALE: &str = "c1b52184e7a9d03f6b2c8e5a1d4f7b9c3e6a0d28";
const ZERO: &str = "0000000000000000000000000000000000000000";

fn sha(s: &str) -> Sha {
    Sha::parse(s).unwrap()
}

fn decide_json(
    event: &str,
    payload: Value,
    settings: &Settings,
) -> Result<baseline_resolver::resolve::rules::Decision, PayloadError> {
    let payload = event::parse(Path::new("e.json"), payload.to_string().as_bytes()).unwrap();
    decide(&EventName::parse(event).unwrap(), &payload, settings)
}

fn repo(full: &str, id: u64) -> Value {
    json!({"id": id, "full_name": full, "default_branch": "main"})
}

fn fork_pr(head_repo: Value) -> Value {
    json!({"pull_request": {"number": 801,
        "base": {"ref": "main", "sha": BASE, "repo": repo("ROCm/FlyDSL", 1)},
        "head": {"ref": "x", "sha": HEAD, "repo": head_repo}},
        "before": STALE, "repository": repo("ROCm/FlyDSL", 1)})
}

fn push(before: &str, after: &str, extra: Value) -> Value {
    let mut p = json!({"ref": "refs/heads/main", "before": before, "after": after,
        "created": false, "deleted": false, "forced": false, "repository": repo("ROCm/FlyDSL", 1)});
    for (k, v) in extra.as_object().unwrap() {
        p[k] = v.clone();
    }
    p
}

#[test]
fn fork_pull_request_uses_the_base_repo_and_base_sha_not_the_fork() {
    let d = decide_json(
        "pull_request",
        fork_pr(repo("jhinpan/FlyDSL-lab", 2)),
        &Settings::default(),
    )
    .unwrap();
    assert_eq!(d.base_repo.as_str(), "ROCm/FlyDSL");
    assert_eq!(d.head.repo.unwrap().as_str(), "jhinpan/FlyDSL-lab");
    assert!(d.head.is_fork);
    assert_eq!(
        d.baseline,
        Baseline::Known {
            sha: sha(BASE),
            source: BaseSource::PrBase,
            origin: "pull_request.base.sha".into()
        }
    );
    assert!(d.trace.iter().any(|l| l.contains("never the fork")));
}

#[test]
fn deleted_fork_is_a_fork_with_no_head_repo() {
    let d = decide_json(
        "pull_request_target",
        fork_pr(Value::Null),
        &Settings::default(),
    )
    .unwrap();
    assert!(d.head.repo.is_none());
    assert!(d.head.is_fork);
    assert_eq!(d.head.sha, Some(sha(HEAD)));
    assert!(matches!(
        d.baseline,
        Baseline::Known {
            source: BaseSource::PrBase,
            ..
        }
    ));
}

#[test]
fn merge_base_mode_asks_for_the_merge_base_of_base_and_head() {
    let settings = Settings {
        merge_base: true,
        ..Default::default()
    };
    let d = decide_json(
        "pull_request",
        fork_pr(repo("jhinpan/FlyDSL-lab", 2)),
        &settings,
    )
    .unwrap();
    assert_eq!(
        d.baseline,
        Baseline::Lookup {
            source: BaseSource::PrMergeBase,
            lookup: Lookup::MergeBase {
                base: Commitish::Sha(sha(BASE)),
                head: sha(HEAD)
            }
        }
    );
}

#[test]
fn fast_forward_push_uses_before() {
    let d = decide_json("push", push(BASE, HEAD, json!({})), &Settings::default()).unwrap();
    assert!(
        matches!(d.baseline, Baseline::Known { ref sha, source: BaseSource::PushBefore, .. } if sha.as_str() == BASE)
    );
    assert_eq!(d.base_ref.unwrap().as_str(), "main");
}

#[test]
fn forced_push_asks_for_the_merge_base_of_before_and_after() {
    let d = decide_json(
        "push",
        push(STALE, HEAD, json!({"forced": true})),
        &Settings::default(),
    )
    .unwrap();
    assert_eq!(
        d.baseline,
        Baseline::Lookup {
            source: BaseSource::PushMergeBase,
            lookup: Lookup::MergeBase {
                base: Commitish::Sha(sha(STALE)),
                head: sha(HEAD)
            }
        }
    );
}

#[test]
fn zero_before_is_a_branch_point_and_never_a_sha() {
    for extra in [json!({"created": true}), json!({})] {
        let p = push(ZERO, HEAD, extra);
        let d = decide_json("push", p, &Settings::default()).unwrap();
        let main = RefName::parse("main").unwrap();
        assert_eq!(
            d.baseline,
            Baseline::Lookup {
                source: BaseSource::BranchPoint,
                lookup: Lookup::MergeBase {
                    base: Commitish::BranchTip(Some(main)),
                    head: sha(HEAD)
                }
            }
        );
    }
}

#[test]
fn deleted_ref_is_skipped() {
    let d = decide_json(
        "push",
        push(BASE, ZERO, json!({"deleted": true})),
        &Settings::default(),
    )
    .unwrap();
    assert_eq!(
        d.baseline,
        Baseline::Skip {
            reason: SkipReason::RefDeleted
        }
    );
    assert!(d.head.sha.is_none());
}

#[test]
fn tag_push_asks_for_the_previous_tag() {
    let p = push(
        ZERO,
        HEAD,
        json!({"ref": "refs/tags/v0.3.2", "created": true}),
    );
    let d = decide_json("push", p, &Settings::default()).unwrap();
    assert_eq!(
        d.baseline,
        Baseline::Lookup {
            source: BaseSource::PreviousTag,
            lookup: Lookup::PreviousTag {
                current: "v0.3.2".into()
            }
        }
    );
    assert_eq!(d.base_ref.unwrap().as_str(), "main");
}

#[test]
fn release_asks_for_the_tag_before_it() {
    let p = json!({"release": {"tag_name": "v0.3.2.dev838", "target_commitish": "main"}, "repository": repo("ROCm/FlyDSL", 1)});
    let d = decide_json("release", p, &Settings::default()).unwrap();
    assert!(
        matches!(d.baseline, Baseline::Lookup { lookup: Lookup::PreviousTag { ref current }, .. } if current == "v0.3.2.dev838")
    );
}

#[test]
fn dispatch_uses_github_sha_as_head_and_the_default_branch_as_base() {
    let settings = Settings {
        github_sha: Some(sha(HEAD)),
        ..Default::default()
    };
    for event in ["workflow_dispatch", "repository_dispatch", "schedule"] {
        let d = decide_json(
            event,
            json!({"repository": repo("ROCm/FlyDSL", 1)}),
            &settings,
        )
        .unwrap();
        assert_eq!(d.head.sha, Some(sha(HEAD)), "{event}");
        let main = RefName::parse("main").unwrap();
        assert_eq!(
            d.baseline,
            Baseline::Lookup {
                source: BaseSource::DefaultBranch,
                lookup: Lookup::Ref(Some(main))
            },
            "{event}"
        );
    }
}

#[test]
fn workflow_run_matches_only_this_repo_and_this_head() {
    let entry = |base_id: u64, head: &str| {
        json!({"number": 7, "head": {"sha": head, "ref": "x", "repo": {"id": 1}},
        "base": {"sha": BASE, "ref": "main", "repo": {"id": base_id}}})
    };
    let run = |prs: Value| {
        json!({"workflow_run": {"event": "pull_request", "head_sha": HEAD,
        "repository": repo("ROCm/FlyDSL", 1), "head_repository": repo("ROCm/FlyDSL", 1), "pull_requests": prs}})
    };
    let d = decide_json(
        "workflow_run",
        run(json!([entry(9, HEAD), entry(1, HEAD)])),
        &Settings::default(),
    )
    .unwrap();
    assert!(
        matches!(d.baseline, Baseline::Known { source: BaseSource::WorkflowRunPr, ref origin, .. } if origin == "workflow_run.pull_requests[1].base.sha")
    );
    let d = decide_json(
        "workflow_run",
        run(json!([entry(9, HEAD), entry(1, STALE)])),
        &Settings::default(),
    )
    .unwrap();
    assert_eq!(
        d.baseline,
        Baseline::Lookup {
            source: BaseSource::WorkflowRunPr,
            lookup: Lookup::PullRequestForHead {
                head_sha: sha(HEAD),
                head_owner: Some("ROCm".into()),
                head_branch: None,
                default_branch: Some(RefName::parse("main").unwrap()),
            }
        }
    );
}

/// The seed's failure was a benchmark silently not compared; a run of a
/// push (or schedule, dispatch, merge queue) is compared with the commit
/// before its head, never skipped.
#[test]
fn workflow_run_of_a_run_that_is_no_pull_request_compares_with_the_first_parent() {
    for event in ["push", "schedule", "workflow_dispatch", "merge_group"] {
        let p = json!({"workflow_run": {"event": event, "head_sha": HEAD, "head_branch": "main",
            "repository": repo("ROCm/FlyDSL", 1), "head_repository": repo("ROCm/FlyDSL", 1),
            "pull_requests": []}});
        let d = decide_json("workflow_run", p, &Settings::default()).unwrap();
        assert_eq!(
            d.baseline,
            Baseline::Lookup {
                source: BaseSource::WorkflowRunParent,
                lookup: Lookup::FirstParent { commit: sha(HEAD) }
            },
            "{event}"
        );
        assert_eq!(d.base_ref.unwrap().as_str(), "main");
        assert!(d.warnings.is_empty());
    }
}

/// The same head in several pull requests of the base repository: the one
/// into the default branch, with a warning that names them; none of them
/// into it: unavailable, not guessed.
#[test]
fn workflow_run_with_several_pull_requests_prefers_the_default_branch() {
    let entry = |number: u64, into: &str, base: &str| {
        json!({"number": number, "head": {"sha": HEAD, "ref": "x", "repo": {"id": 1}},
        "base": {"sha": base, "ref": into, "repo": {"id": 1}}})
    };
    let run = |prs: Value| {
        json!({"workflow_run": {"event": "pull_request", "head_sha": HEAD,
        "repository": {"id": 1, "full_name": "ROCm/FlyDSL"}, "head_repository": repo("ROCm/FlyDSL", 1),
        "pull_requests": prs}, "repository": repo("ROCm/FlyDSL", 1)})
    };
    let d = decide_json(
        "workflow_run",
        run(json!([
            entry(7, "release/1.x", STALE),
            entry(8, "main", BASE)
        ])),
        &Settings::default(),
    )
    .unwrap();
    assert!(
        matches!(d.baseline, Baseline::Known { ref sha, .. } if sha.as_str() == BASE),
        "{:?}",
        d.baseline
    );
    assert_eq!(d.warnings.len(), 1);
    assert!(
        d.warnings[0].contains("#7 into release/1.x, #8 into main"),
        "{:?}",
        d.warnings
    );
    let d = decide_json(
        "workflow_run",
        run(json!([
            entry(7, "release/1.x", STALE),
            entry(9, "next", BASE)
        ])),
        &Settings::default(),
    )
    .unwrap();
    assert!(
        matches!(d.baseline, Baseline::Unavailable { ref reason, .. } if reason.contains("none is into the default branch (main)")),
        "{:?}",
        d.baseline
    );
}

#[test]
fn issue_comment_on_a_pull_request_asks_for_its_base() {
    let p = json!({"issue": {"number": 801, "pull_request": {"url": "u"}}, "repository": repo("ROCm/FlyDSL", 1)});
    let d = decide_json("issue_comment", p, &Settings::default()).unwrap();
    assert_eq!(
        d.baseline,
        Baseline::Lookup {
            source: BaseSource::PrBase,
            lookup: Lookup::PullRequestBase { number: 801 }
        }
    );
    let p = json!({"issue": {"number": 1}, "repository": repo("ROCm/FlyDSL", 1)});
    let d = decide_json("issue_comment", p, &Settings::default()).unwrap();
    assert_eq!(
        d.baseline,
        Baseline::Skip {
            reason: SkipReason::IssueCommentNotOnPullRequest
        }
    );
}

#[test]
fn unknown_events_are_skipped_with_a_reason_naming_them() {
    for event in ["create", "delete", "check_suite", "pull_request_review"] {
        let d = decide_json(
            event,
            json!({"repository": repo("ROCm/FlyDSL", 1)}),
            &Settings::default(),
        )
        .unwrap();
        assert_eq!(
            d.baseline,
            Baseline::Skip {
                reason: SkipReason::UnsupportedEvent(event.to_owned())
            }
        );
    }
}

#[test]
fn inputs_override_every_rule() {
    let settings = Settings {
        base_sha: Some(sha(STALE)),
        ..Default::default()
    };
    let d = decide_json("pull_request", fork_pr(Value::Null), &settings).unwrap();
    assert!(
        matches!(d.baseline, Baseline::Known { source: BaseSource::Input, ref sha, .. } if sha.as_str() == STALE)
    );
    let settings = Settings {
        base_ref: Some(RefName::parse("release/1.x").unwrap()),
        ..Default::default()
    };
    let d = decide_json("push", push(BASE, HEAD, json!({})), &settings).unwrap();
    assert_eq!(
        d.baseline,
        Baseline::Lookup {
            source: BaseSource::Input,
            lookup: Lookup::Ref(Some(RefName::parse("release/1.x").unwrap()))
        }
    );
    assert_eq!(d.base_ref.unwrap().as_str(), "release/1.x");
}

#[test]
fn payload_values_are_validated_where_they_are_read() {
    let mut p = fork_pr(Value::Null);
    p["pull_request"]["base"]["sha"] = json!("fa4f8ae2");
    let err = decide_json("pull_request", p, &Settings::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("`pull_request.base.sha`") && err.contains("not a full commit SHA"),
        "{err}"
    );

    let mut p = fork_pr(Value::Null);
    p["pull_request"]["base"]["sha"] = json!(BASE.to_uppercase());
    let d = decide_json("pull_request", p, &Settings::default()).unwrap();
    assert!(matches!(d.baseline, Baseline::Known { ref sha, .. } if sha.as_str() == BASE));

    let mut p = fork_pr(Value::Null);
    p["pull_request"]["base"]["repo"]["full_name"] = json!("../etc");
    let err = decide_json("pull_request", p, &Settings::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("`pull_request.base.repo.full_name`"), "{err}");

    let mut p = fork_pr(Value::Null);
    p["pull_request"]["base"]["sha"] = json!(ZERO);
    let err = decide_json("pull_request", p, &Settings::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("all-zero"), "{err}");

    let p = push(BASE, HEAD, json!({"ref": "refs/heads/a..b"}));
    let err = decide_json("push", p, &Settings::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("`ref`") && err.contains(".."), "{err}");
}

#[test]
fn an_event_name_that_contradicts_the_payload_is_refused() {
    let err = decide_json("push", fork_pr(Value::Null), &Settings::default()).unwrap_err();
    assert!(matches!(err, PayloadError::Mismatch { .. }), "{err}");
    let err = decide_json(
        "pull_request",
        push(BASE, HEAD, json!({})),
        &Settings::default(),
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("no `pull_request` object"),
        "{err}"
    );
    let err = decide_json(
        "release",
        json!({"repository": repo("a/b", 1)}),
        &Settings::default(),
    )
    .unwrap_err();
    assert!(matches!(err, PayloadError::Mismatch { .. }));
}

#[test]
fn schedule_without_repository_needs_github_repository() {
    let err = decide_json(
        "schedule",
        json!({"schedule": "0 3 * * *"}),
        &Settings::default(),
    )
    .unwrap_err();
    assert_eq!(err, PayloadError::NoRepository);
}
