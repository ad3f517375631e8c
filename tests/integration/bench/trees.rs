//! Issue 32: where the baseline's tree comes from and where the harness
//! sees it: the base repository (not a fork's origin), a container's
//! volume, the release tag.

use std::path::Path;

use crate::bench::{Project, csv, quiet};
use crate::support::gitrepo::git;
use crate::support::harness::Bin;

/// A harness in a container that mounts the checkout elsewhere (`docker
/// run -v checkout:/inside`, played by a symlink): the command gets the
/// paths as the container sees them, the worktree is made inside the
/// volume, and `--tag` measures the tag's commit as `{label}`.
#[test]
fn a_volume_gives_the_command_its_inside_paths_and_tag_runs_the_release() {
    let p = Project::new(&quiet("100", "gemm"), &quiet("90", "gemm"));
    let inside = p.root.path().join("inside");
    std::os::unix::fs::symlink(&p.checkout, &inside).unwrap();
    let tagged = format!(
        r#"{{"label":"main","base_sha":"{}","base_available":true,"tag":"v1.0.0","tag_sha":"{}"}}"#,
        p.head, p.base
    );
    let bin = Bin::new();
    let res = bin.dir().join("resolution.json");
    std::fs::write(&res, tagged).unwrap();
    let run = bin
        .on_runner()
        .env("GITHUB_WORKSPACE", &p.checkout)
        .args(["bench", "--rounds", "1", "--tag", "--resolution"])
        .arg(&res)
        .arg("--volume")
        .arg(format!("{}:{}", p.checkout.display(), inside.display()))
        .arg("--out-dir")
        .arg(p.checkout.join("results"))
        .args([
            "--command",
            "cd {tree} && bash bench.sh {out} && echo '{side} {label} {tree} {out}' > {out}.seen",
        ])
        .run();
    run.assert_code(0);
    let out = run.outputs();
    assert!(
        out["baseline"].ends_with("results/tag.csv"),
        "{}",
        out["baseline"]
    );
    assert_eq!(
        csv(&out["baseline"]),
        "op,shape,dtype,tflops\ngemm,4096,bf16,100\n",
        "the tag's tree"
    );
    let seen = std::fs::read_to_string(format!("{}.seen", out["baseline"])).unwrap();
    let inside = inside.display().to_string();
    let mut words = seen.split_whitespace();
    assert_eq!(words.next(), Some("baseline"));
    assert_eq!(words.next(), Some("v1.0.0"));
    let tree = words.next().unwrap();
    assert!(
        tree.starts_with(&format!("{inside}/.baseline-resolver-baseline-")),
        "{seen}"
    );
    assert_eq!(
        words.next(),
        Some(format!("{inside}/results/tag.csv").as_str())
    );
    assert_eq!(p.worktrees(), 1);
    assert!(!Path::new(&tree.replace(&inside, &p.checkout.display().to_string())).exists());
    let current = std::fs::read_to_string(format!("{}.seen", out["current"])).unwrap();
    assert_eq!(
        current.trim(),
        format!("current current {inside} {inside}/results/current.csv")
    );
    // An out dir the container cannot see is refused before anything runs.
    let run = Bin::new()
        .args([
            "bench",
            "--side",
            "current",
            "--command",
            "x {out}",
            "--volume",
        ])
        .arg(format!("{}:/inside", p.checkout.display()))
        .args(["--out-dir", "/tmp/elsewhere"])
        .run();
    run.assert_code(2);
    assert!(
        run.stderr.contains("not under the volume"),
        "{}",
        run.stderr
    );
}

/// Points the checkout's `origin` at `fork`, a repository that is not there.
fn origin_gone(p: &Project, fork: &Path) {
    let url = format!("file://{}", fork.display());
    git(&p.checkout, &["remote", "set-url", "origin", &url]);
}

/// The checkout of a fork's head has the fork as `origin` (FlyDSL's
/// workflow checks out `pull_request.head.repo`): the base commit is
/// fetched from the base repository under GITHUB_SERVER_URL, never from
/// origin; a base_repo that is not `owner/name` is not fetched at all.
#[test]
fn the_base_commit_comes_from_the_base_repository_not_the_forks_origin() {
    let p = Project::new(&quiet("100", "gemm"), &quiet("90", "gemm"));
    let fork = p.root.path().join("fork-that-is-gone.git");
    origin_gone(&p, &fork);
    let resolution = format!(
        r#"{{"label":"main","base_repo":"ROCm/FlyDSL","base_sha":"{}","base_available":true}}"#,
        p.base
    );
    let run = p
        .bench(&resolution)
        .env(
            "GITHUB_SERVER_URL",
            format!("file://{}", p.root.path().display()),
        )
        .run();
    run.assert_code(0);
    let out = run.outputs();
    assert_eq!(out["baseline-status"], "ok", "{}", run.stdout);
    assert_eq!(
        csv(&out["baseline"]),
        "op,shape,dtype,tflops\ngemm,4096,bf16,100\n"
    );
    // Without the base repository's name, origin (the gone fork) is asked: unavailable.
    let p = Project::new(&quiet("100", "gemm"), &quiet("90", "gemm"));
    origin_gone(&p, &fork);
    let run = p.bench(&p.resolution(&p.base)).run();
    assert_eq!(
        run.outputs()["baseline-status"],
        "unavailable",
        "{}",
        run.stdout
    );
}

/// `--with-tag`: the release tag measured in the same step, once, after
/// the change and the base commit, with its own setup (`{label}` the
/// tag): `tag.csv` from the tag's tree, the `tag*` outputs, and its line
/// after main's in `compare-baseline`, which compare takes as it is. No
/// tag in the resolution: unavailable with a warning, the step green, and
/// a `release=` line compare reports as unavailable.
#[test]
fn with_tag_measures_the_release_after_both_sides_in_one_step() {
    let p = Project::new(&quiet("100", "gemm"), &quiet("90", "gemm"));
    let tagged = format!(
        r#"{{"label":"main","base_sha":"{0}","base_available":true,"base_source":"payload","head_sha":"{1}","tag":"v1.0","tag_sha":"{0}","tag_available":true}}"#,
        p.base, p.head
    );
    let run = p
        .bench(&tagged)
        .args(["--rounds", "1", "--with-tag"])
        .args(["--setup-command", "echo setup {side} {label}"])
        .args(["--tag-setup-command", "echo release {label} installed"])
        .run();
    run.assert_code(0);
    let out = run.outputs();
    assert_eq!(out["tag-status"], "ok", "{}", run.stdout);
    assert_eq!(out["tag-label"], "v1.0");
    assert!(out["tag"].ends_with("/tag.csv"), "{}", out["tag"]);
    assert!(csv(&out["tag"]).contains("gemm"));
    assert_eq!(
        out["compare-baseline"],
        format!("main={}\nv1.0={}", out["baseline"], out["tag"])
    );
    assert!(
        run.stderr
            .contains("[baseline setup] release v1.0 installed"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("[baseline setup] setup baseline main"),
        "{}",
        run.stderr
    );
    let mut compare = Bin::new().args(["compare", "--current", &out["current-files"]]);
    for line in out["compare-baseline"].lines() {
        compare = compare.args(["--baseline", line]);
    }
    let compare = compare.run();
    assert!(
        compare.stdout.contains("current vs v1.0"),
        "{}",
        compare.stdout
    );

    let untagged = p
        .bench(&p.resolution(&p.base))
        .args(["--rounds", "1", "--with-tag"])
        .run();
    untagged.assert_code(0);
    let out = untagged.outputs();
    assert_eq!(out["tag-status"], "unavailable");
    assert_eq!(out["tag-label"], "release");
    assert!(out["compare-baseline"].ends_with(&format!("\nrelease={}", out["tag"])));
    assert!(untagged.stdout.contains("::warning"), "{}", untagged.stdout);
}
