//! What a command runs, read on scripts' own shapes.

use super::*;
use crate::lint::shell::commands;

fn runs(script: &str) -> bool {
    commands(script).unwrap().iter().any(benchmark_command)
}

#[test]
fn the_program_sudo_runs_is_read_once() {
    assert!(runs("sudo -E ./build/bin/bpf_performance_runner -i t.yml"));
    assert!(!runs("sudo -u bench ./build/bin/bpf_performance_runner"));
    assert!(!runs("sudo ldconfig"));
    assert!(!runs("sudo sudo ./build/bin/bpf_performance_runner"));
    assert!(runs("tools/two-machine-perf.ps1 -Config Release"));
    assert!(!runs("tools/perf-setup.ps1 -Config Release"));
}

#[test]
fn a_redirection_where_a_name_would_stand_is_no_program() {
    for word in [">>", ">", "2>", "&>", "<", ">|"] {
        assert!(!own_program(word), "{word}");
    }
    assert!(own_program("solver"));
    assert!(!own_program("mktemp"));
}

#[test]
fn a_script_in_a_folder_named_after_a_harness_runs_no_benchmark() {
    assert!(!runs(
        "python asv-runner/ci/make_issues.py --input-path=asv-runner/data"
    ));
    assert!(runs("python benchmarks/dynamo/huggingface.py"));
    assert!(runs("bash perf/run.sh"));
}

#[test]
fn known_commands_are_evidence_and_words_are_not() {
    for yes in [
        "cargo bench --bench resolver",
        "asv continuous origin/main HEAD",
        "python -m asv continuous $ASV_OPTIONS ${BASE_SHA} ${GITHUB_SHA}",
        "/usr/bin/python3 -m asv run --quick",
        "python -m pytest tests --benchmark-json out.json",
        "go test ./... -bench=. -run=^$",
        "hyperfine 'rg x'",
        "bash scripts/run_benchmark.sh --only softmax",
        "./build/bench --benchmark_format=json",
        "python3 scripts/compare_benchmark.py a.csv b.csv",
        "uv run --no-project python s/query-regression-run.py --base-src a --candidate-src b",
        "docker exec box bash -c 'cd /w && bash scripts/run_benchmark.sh'",
        "${{ runner.temp }}/bin/smp job submit --baseline-image a:1 --comparison-image a:2",
        "python scripts/compare_results.py base.json head.json",
        "python benchmarks/dynamo/huggingface.py --performance",
        "bash perf/run.sh",
        "python3 scripts/run_perf.py --iters 10",
        "./build/bench_compile_time --benchmark_format=json",
        "python3 -u bench_serving.py --data-type random",
        "./igzip_file_perf $in_file",
        "time build/bin/crc_perf",
        "ix bench run --backend zisk --repo base --out base.json",
        "make bench",
        "npm run bench",
        "just benchmark",
    ] {
        assert!(runs(yes), "{yes}");
    }
    for no in [
        "cargo check --benches",
        "cargo bench --no-run --workspace --exclude x",
        "cargo criterion --no-run",
        "echo 'run the benchmarks: cargo bench'",
        "cargo test --all-targets",
        "make bench-docs",
        "pytest tests -k bench",
        "echo Testbench",
        "python -m asv machine --yes",
        "python -m",
        "gh pr create --base main --head fix",
        "echo --baseline-image a --comparison-image b",
        "python scripts/compare_results.py base.json",
        "bash benchmarks/install_deps.sh",
        "python tests/test_perf_counters.py",
        "python perfetto/trace.py",
        "cat benchmarks/run.py",
        "triton-benchmarks-validate",
        "./install_benchmarks.sh",
        "python3 scripts/ci/publish.py --data-type bench --source-dir out",
        "sudo /usr/bin/perf stat -e cycles make check",
        "./test_perf_counters",
        "igzip_file_perf in.gz",
        "changelog/performance",
        "./perf record -g ./app",
        "make bench-docs",
        "npm run build",
        "echo bench",
        "make -C bench",
        "ix bench run --no-run",
    ] {
        assert!(!runs(no), "{no}");
    }
}

#[test]
fn compiling_the_benchmarks_only_is_one_test_for_every_cargo_form() {
    for (line, only) in [
        ("cargo bench --no-run", true),
        ("cargo criterion --no-run", true),
        ("cargo test --no-run", true),
        ("cargo check --benches", true),
        ("cargo criterion", false),
        ("cargo bench", false),
    ] {
        let c = commands(line).unwrap().remove(0);
        assert_eq!(compiles_only(&c), only, "{line}");
        assert_eq!(
            benchmark_command(&c),
            !only && line != "cargo test --no-run",
            "{line}"
        );
    }
}

#[test]
fn a_target_beginning_with_bench_runs_them_unless_it_names_a_chore() {
    for yes in [
        "just bench-iai",
        "just benchmark-json",
        "npm run bench:all",
        "make bench",
    ] {
        assert!(runs(yes), "{yes}");
    }
    for no in ["make bench-docs", "just bench-build", "make build-benches"] {
        assert!(!runs(no), "{no}");
    }
}
