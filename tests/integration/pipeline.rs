//! Issue 47: the pipeline as the docs assemble it. Each numbered break a
//! maintainer hit migrating the seed's workflow, run here as the page or
//! the help wrote it.

use crate::bench::{Project, quiet};

/// A resolution that also names the release tag (at the base commit).
fn with_tag(p: &Project) -> String {
    format!(
        r#"{{"label":"main","base_sha":"{0}","base_available":true,"tag":"v0.3.1","tag_sha":"{0}"}}"#,
        p.base
    )
}

/// Break 1: docs/migrating.md's second bench step (`side: baseline`,
/// `tag: "true"`, the same out-dir) kept the current.csv the first wrote.
#[test]
fn a_baseline_only_step_keeps_the_current_csv_an_earlier_step_wrote() {
    let p = Project::new(&quiet("100", "gemm"), &quiet("90", "gemm"));
    let first = p.bench(&with_tag(&p)).run();
    first.assert_code(0);
    let current = first.outputs()["current"].clone();
    assert!(std::path::Path::new(&current).is_file());
    let second = p
        .bench(&with_tag(&p))
        .args(["--side", "baseline", "--tag"])
        .run();
    second.assert_code(0);
    let out = second.outputs();
    assert_eq!(out["baseline-status"], "ok", "{}", second.stdout);
    assert_eq!(out["current"], current);
    assert_eq!(
        crate::bench::csv(&current),
        "op,shape,dtype,tflops\ngemm,4096,bf16,90\n",
        "the first step's current.csv is still there for compare"
    );
}
