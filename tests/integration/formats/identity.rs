//! compare's report gives every results file its identity, the SHA-256 of
//! the bytes read, as `sha256sum` computes it, whatever the file's format
//! (issue 51: the hash is computed where a read reports it, and only
//! there; convert, which shows no identity, leaves it out).

use serde_json::Value;

use crate::support::harness::{Bin, repo_root};

/// Every format whose results are one file, and that file's two sides.
const FORMATS: [&str; 13] = [
    "asv",
    "benchmarkdotnet",
    "bmf",
    "cargo-bench",
    "catch2",
    "custom",
    "go-test",
    "google-benchmark",
    "hyperfine",
    "jmh",
    "nvbench",
    "pyperf",
    "pytest-benchmark",
];

fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn compare_reports_each_harness_files_sha256_as_sha256sum_gives_it() {
    for format in FORMATS {
        let dir = repo_root().join("tests/fixtures/formats").join(format);
        let mut sides: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        sides.sort();
        let [base, head] = [0, 1].map(|i| sides[i].clone());
        let run = Bin::new()
            .arg("compare")
            .arg("--current")
            .arg(&head)
            .arg("--baseline")
            .arg(format!("main={}", base.display()))
            .args(["--format", "json"])
            .run();
        let json: Value = serde_json::from_str(&run.stdout)
            .unwrap_or_else(|e| panic!("{format}: not JSON ({e}): {}", run.stderr));
        let inputs = json["inputs"].as_array().unwrap();
        for side in [&base, &head] {
            let want = hex(&openssl::sha::sha256(&std::fs::read(side).unwrap()));
            let input = inputs
                .iter()
                .find(|i| i["path"].as_str() == Some(&side.display().to_string()))
                .unwrap_or_else(|| panic!("{format}: no input {}: {inputs:?}", side.display()));
            assert_eq!(input["sha256"], want, "{format}: {}", side.display());
        }
    }
}

/// criterion's tree has one identity: the SHA-256 of the files read, one
/// after the other; the two sides' trees differ, and so do theirs.
#[test]
fn compare_reports_a_criterion_trees_sha256() {
    let dir = repo_root().join("tests/fixtures/formats/criterion");
    let run = Bin::new()
        .arg("compare")
        .arg("--current")
        .arg(dir.join("head"))
        .arg("--baseline")
        .arg(format!("main={}", dir.join("base").display()))
        .args(["--format", "json"])
        .run();
    let json: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", run.stderr));
    let digests: Vec<&str> = json["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["sha256"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(digests.len(), 2, "{digests:?}");
    for d in &digests {
        assert!(
            d.len() == 64 && d.bytes().all(|b| b.is_ascii_hexdigit()),
            "{d}"
        );
    }
    assert_ne!(digests[0], digests[1]);
}
