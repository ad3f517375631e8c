//! What a name says: a job's, step's, workflow's or runner's name read
//! as evidence that it runs benchmarks, or that it does a chore around them
//! (prepares, builds, cleans up, warms up) and so is not evidence. Split
//! from [`super::evidence`], which reads commands and actions. Pure.

use super::workflow::Job;

/// The words of a name, lower-cased.
pub fn words(name: &str) -> impl Iterator<Item = String> + '_ {
    name.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
}

/// Whether a step's name says it warms up or smoke-tests ("warm up",
/// "Warmup", "smoke test", "sanity check").
pub fn warms_up(name: &str) -> bool {
    let w: Vec<String> = words(name).collect();
    w.iter()
        .any(|x| ["warmup", "smoke", "sanity"].contains(&x.as_str()))
        || w.windows(2)
            .any(|p| matches!(p, [a, b] if a == "warm" && b == "up"))
}

/// Whether a job's own name (its id or `name:`) says it does a chore
/// around the benchmarks rather than running them ("Prepare pinned
/// benchmark environment", `cleanup`, "Build benchmarks"): neither its
/// name nor its workflow's then makes it a benchmark job; a known harness
/// among its commands still does. Read on pytorch/rl's environment job on
/// its GPU runner and neon's project clean-up in its "Benchmarking"
/// workflow.
pub fn job_does_chores(job: &Job<'_>) -> bool {
    let said: Vec<String> = words(&written(&job.title())).collect();
    // A chore and then the running (tt-llk's `setup-and-test-wormhole`,
    // "Build and run"): more than the chore.
    if said.windows(2).any(|p| {
        matches!(p, [and, then] if and == "and"
            && (["run", "runs", "test", "tests", "measure"].contains(&then.as_str())
                || bench_or_perf_word(then)))
    }) || says_running(&shown_words(job))
    {
        return false;
    }
    // "Compile" unless it is what is timed: a compile-time benchmark
    // measures compiling (cccl's "Compile-time" GPU job), while openxla's
    // `compile_models_for_android` makes what another job measures.
    // Publishing or summing up what was measured is a chore too ("Process
    // ASV Results", asv-runner's `asv publish` job, smg's
    // `summarize-benchmarks`).
    let timed = said.iter().any(|w| w == "time" || w == "times");
    said.iter().any(|w| {
        (w != "compile" || !timed) && chore(w)
            || HANDLES.contains(&w.as_str())
            || SUMS_UP.contains(&w.as_str())
    }) || provisions(&said)
}

/// Whether a step's name says it cleans up after the benchmarks ("Perform
/// teardown", "Cleanup all machines", "Tear down", "Remove ..."): it makes, reads or
/// compares no results, so its `continue-on-error` hides none (read on
/// qdrant's benchmark machines, torn down on any outcome).
pub fn step_cleans_up(name: &str) -> bool {
    let said: Vec<String> = words(&written(name)).collect();
    // Or begins by removing ("Remove generated secrets and mounts":
    // azure-storage-fuse unmounts both sides' file systems on any outcome)
    // or clearing ("Clear Bench State": xtdb empties the cluster the last
    // run left before it deploys the next).
    let removes = said.first().is_some_and(|w| {
        [
            "remove",
            "delete",
            "unmount",
            "umount",
            "uninstall",
            "clear",
        ]
        .contains(&w.as_str())
    });
    removes
        || said
            .iter()
            .any(|w| ["teardown", "cleanup"].contains(&w.as_str()))
        || said.windows(2).any(
            |p| matches!(p, [a, b] if (a == "tear" && b == "down") || (a == "clean" && b == "up")),
        )
        || provisions(&said)
}

/// Whether a step's name says it only draws what was measured: a chart,
/// plot, badge or dashboard ("Generate Charts", "Update performance
/// badge", "Generate performance dashboard"). Such a step reads stored
/// results and compares none, so its `continue-on-error` hides no
/// comparison; one that also names comparing ("Plot the comparison")
/// may still compare.
pub fn step_renders(name: &str) -> bool {
    let said: Vec<String> = words(&written(name)).collect();
    said.iter().any(|w| DRAWN.contains(&w.as_str()))
        && !said.iter().any(|w| {
            w.starts_with("compar") || w.starts_with("regress") || w == "diff" || w == "check"
        })
}

/// Whether a name's words say it starts or stops the machines the
/// benchmarks run on: a verb of provisioning and a machine
/// (`create-runners`, `stop-g5-runners`, "Terminate EC2 machines").
/// Such a job holds a small scheduler while it asks a cloud for GPU
/// machines or gives them back; in a workflow named for performance it
/// measures nothing (read on a model server's performance workflows,
/// whose jobs start EC2 instances with `./start_instance.sh`).
fn provisions(said: &[String]) -> bool {
    let verb = said.iter().any(|w| {
        [
            "create",
            "start",
            "launch",
            "spawn",
            "provision",
            "stop",
            "terminate",
            "teardown",
            "destroy",
            "delete",
            "shutdown",
            // Or a tool or verb that stands machines up (chainflip's
            // `terraform-benchmarks-runner`, "Deploy/Destroy Benchmarks
            // Runner").
            "terraform",
            "deploy",
        ]
        .contains(&w.as_str())
    });
    let machine = said.iter().any(|w| {
        [
            "runner",
            "runners",
            "instance",
            "instances",
            "machine",
            "machines",
            "vm",
            "vms",
            "ec2",
        ]
        .contains(&w.as_str())
    });
    verb && machine
}

/// A name without its `${{ ... }}` expressions: what it writes out. The
/// words of an expression are its contexts' paths, not what the job does
/// (snmalloc's Morello job, named `${{ matrix.os }} ${{ matrix.build-type
/// }} ${{ matrix.caps }}`, builds and runs on a runner labelled
/// `benchmark`).
pub fn written(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(at) = rest.find("${{") {
        out.push_str(rest.get(..at).unwrap_or(""));
        let after = rest.get(at..).unwrap_or("");
        rest = after
            .find("}}")
            .map_or("", |end| after.get(end.saturating_add(2)..).unwrap_or(""));
        out.push(' ');
    }
    out.push_str(rest);
    out
}

/// Whether a step's name says it builds or checks the benchmarks rather
/// than running them ("build benchmarks", "Check benchmarks": a test job
/// keeping the suite working; read on scikit-image and torchao), or
/// handles results measured elsewhere ("Publish ASV Benchmarks": `asv
/// publish` renders them; "Process ASV results": read on asv-runner's
/// publishing job). Its commands are still read: a harness
/// among them is evidence whatever the name.
pub fn prepares_benchmarks(name: &str) -> bool {
    // What the name writes out, not its expressions' paths: rally-tracks'
    // "Run tests${{ needs.determine-es-build.outputs.release_build }}"
    // builds nothing.
    let said: Vec<String> = words(&written(name)).collect();
    if says_running(&said) {
        return false;
    }
    said.iter().any(|w| {
        chore(w)
            // Or looks at the machine or the work first (typeberry-testing's
            // `detect-perf` action says whether it runs on perf hardware;
            // kreuzberg's `ensure-benchmark-harness-exists.sh`).
            || ["check", "validate", "detect", "ensure"].contains(&w.as_str())
            // Or makes their inputs ("Generate TPC-H Data": SparkCyclone's
            // `dbgen`, before its tests); a job so named may still measure
            // what it made (ion-python's "Generate Data" job).
            || ["generate", "generating", "generates"].contains(&w.as_str())
            || HANDLES.contains(&w.as_str())
            || names_results(w)
    }) || sets_up(&said)
}

/// The words of the name a job shows (its `name:`, else its id): lvgl's
/// `run_benchmark` job shows "Hardware Build Test", a build.
fn shown_words(job: &Job<'_>) -> Vec<String> {
    let shown = job.text("name").unwrap_or(job.id.text.as_str());
    words(&written(shown)).collect()
}

/// Whether a name's words say it runs the benchmarks ("Run benchmarks
/// and publish", pylcm's GPU job and its step): a chore said after the
/// running does not undo it, nor one said before it ("Build CPython and
/// run pyperformance benchmarks"). The benchmarks may be named up to
/// two words after the running ("run the benchmarks", "run pyperformance
/// benchmarks"), not negated ("run non-perf tests") nor past a
/// preposition ("Detect if running on perf hardware" runs what it runs
/// on a machine named so) or a chore ("Run build benches" builds them).
fn says_running(said: &[String]) -> bool {
    const PLACES: &[&str] = &[
        "on", "in", "at", "with", "for", "against", "under", "inside", "over", "via", "from",
    ];
    said.iter().enumerate().any(|(i, run)| {
        let after = said.get(i.saturating_add(1)..).unwrap_or_default();
        ["run", "runs", "running"].contains(&run.as_str())
            && after
                .iter()
                .take(3)
                .take_while(|w| !PLACES.contains(&w.as_str()) && !chore(w))
                .enumerate()
                .any(|(j, w)| {
                    let negated = j
                        .checked_sub(1)
                        .and_then(|k| after.get(k))
                        .is_some_and(|p| ["non", "no", "not"].contains(&p.as_str()));
                    !negated && (bench_or_perf_word(w) || named_benchmark_program(w))
                })
    })
}

/// Whether a name's words say "set up", as two words ("Set up perf
/// (Linux)", which installs Linux's profiler: read on a benchmark
/// harness's own test job), the chore "setup" says as one.
fn sets_up(said: &[String]) -> bool {
    said.windows(2)
        .any(|p| matches!(p, [a, b] if a == "set" && b == "up"))
}

/// Whether a name's words say it handles results already measured
/// (`write-bench-results`, `bench_report`, `plot_benchmarks`): results,
/// reports, a summary or a plot. Not deploying: multipy's built
/// `deploy_benchmark` times its runtime's deploy path.
pub fn handles_results(name: &str) -> bool {
    words(name).any(|w| names_results(&w) || w == "reports")
}

/// Whether a script's name (its stem) says it makes what the benchmarks
/// read or tells what they are, not measuring: a version printed
/// (`benchmark/version.py`, run for a string in a build job), a dataset
/// serialized or generated, a download. Read on kuzu's build-and-test
/// jobs, whose only tie to benchmarking was such scripts of its
/// `benchmark/` directory.
pub fn makes_inputs(stem: &str) -> bool {
    words(stem).any(|w| {
        ["version", "gen", "dataset", "datasets"].contains(&w.as_str())
            || ["serializ", "generat", "download"]
                .iter()
                .any(|p| w.starts_with(p))
    })
}

/// Words of a step's name that say it handles results, not measures
/// them. Not "compare" or "upload": a comparison or an upload of results
/// is benchmark evidence of its own (docs/lint.md).
const HANDLES: &[&str] = &["publish", "deploy", "process"];

/// Words that name results already measured, or where they are kept and
/// shown (a step or a script about them handles them, it does not
/// measure: mlir-air's "Append perf history", dynoxide's
/// `update_readme_benchmarks.py`).
const RESULTS: &[&str] = &[
    "history", "readme", "result", "results", "report", "summary",
];

/// Words of summing up what was measured: a step, a script or a job so
/// named handles results (smg's `summarize-benchmarks` and its
/// `summarize.py`).
const SUMS_UP: &[&str] = &["summarize", "summarise"];

/// Whether a word names results measured before or summing them up.
fn names_results(word: &str) -> bool {
    RESULTS.contains(&word) || DRAWN.contains(&word) || SUMS_UP.contains(&word)
}

/// Words that name a drawing of what was measured: a chart, plot, badge
/// or dashboard (`update_performance_badge.py`, "Generate perf charts").
/// Not "graph": a graph library's benchmarks are named for graphs.
const DRAWN: &[&str] = &[
    "chart",
    "charts",
    "plot",
    "plots",
    "badge",
    "badges",
    "dashboard",
    "dashboards",
];

/// Whether a word names a chore, also as its `-ing` or `-s` form
/// ("Installing benchmark": skyhookdm's clone-and-install job; "Building").
pub fn chore(word: &str) -> bool {
    CHORES.iter().any(|c| {
        let stem = c.strip_suffix('e').unwrap_or(c);
        word == *c || word.strip_suffix("ing") == Some(stem) || word.strip_suffix('s') == Some(*c)
    })
}

/// Words that name a chore around the benchmarks, not running them.
const CHORES: &[&str] = &[
    "prepare",
    "setup",
    "install",
    "build",
    "compile",
    "cleanup",
    "clean",
    "lint",
    "configure",
    // Filing results away (zq2's "Archive closed PR branch", `bencher
    // archive` in its pull-request benchmarks' workflow) measures nothing.
    "archive",
];

/// Whether a name (a job's id and name, a workflow's name or file name)
/// is about benchmarking or performance: a word starting with `bench` or
/// `perf` (`benchmarks`, `perf-nightly`, `Performance`), not a word that
/// only contains it (`testbench`).
pub fn named_for_benchmarks(name: &str) -> bool {
    // Not a word negated before it: typeberry-testing's `non-perf` runner
    // label marks the machines kept off performance work. Nor one "high"
    // comes before: `matterlabs-ci-runner-high-performance` names a large
    // machine, which runs matter-labs' lints, builds and releases.
    let mut previous = String::new();
    words(name).any(|w| {
        let negated = ["non", "no", "not", "high"].contains(&previous.as_str());
        // The TPC's suites written as two words ("TPC-H", "TPC-DS").
        let tpc = previous == "tpc" && ["h", "ds", "c", "e", "x"].contains(&w.as_str());
        let named = !negated && (bench_or_perf_word(&w) || named_benchmark_program(&w) || tpc);
        previous = w;
        named
    })
}

/// Whether an action of another repository sits in a folder named for
/// benchmarking and for no chore around them
/// (`Oneflow-Inc/get-oneflow/pytest-benchmark`, which runs a test suite's
/// benchmarks in the job's container): it runs them, as the repository's
/// own action so named does. An action at a repository's root names the
/// repository, not what it does; `setup-benchmark` is a chore.
pub fn remote_benchmark_folder(action: &str) -> bool {
    if action.starts_with("./") || action.starts_with("docker://") {
        return false;
    }
    let Some(path) = action.splitn(3, '/').nth(2) else {
        return false;
    };
    let path = path.trim_end_matches('/');
    let folder = path.rsplit('/').next().unwrap_or(path);
    named_for_benchmarks(folder) && !prepares_benchmarks(folder) && !warms_up(folder)
}

/// A word that says bench or perf (`benchmarks`, `perf_test`,
/// `performance`), not perfetto (a tracing tool), nor the verb "perform"
/// or "perfect": aws-lc's "Perform libcrypto ABI Diff" compares
/// interfaces, it measures nothing.
pub fn bench_or_perf_word(word: &str) -> bool {
    let verb = (word.starts_with("perform") && !word.starts_with("performance"))
        || word.starts_with("perfect");
    word.starts_with("bench")
        || (word.starts_with("perf") && !word.starts_with("perfetto") && !verb)
}

/// A word naming a known benchmark program (`pgbench`, `sysbench`, ...):
/// "pgbench with custom-scripts" names what the step runs. Not any word
/// ending in `bench`: `TorchBench` names a project whose test job is a
/// test (read on pytorch/benchmark), `testbench` a hardware test rig.
fn named_benchmark_program(word: &str) -> bool {
    // SPEC's CPU suites by their year (XiangShan's "SPEC06 Test - astar"
    // steps, `spec2017`), not "spec" alone: a specification's tests.
    let spec = word
        .strip_prefix("spec")
        .is_some_and(|y| matches!(y, "06" | "2006" | "17" | "2017" | "cpu" | "int" | "fp"));
    spec || [
        "pgbench",
        "sysbench",
        "pagebench",
        "clickbench",
        "jsonbench",
        "ycsb",
        "memtier",
        "nvbench",
        "hyperfine",
        "pyperf",
        "pyperformance",
        "asv",
        // The TPC's decision-support and transaction suites (gazelle_plugin's
        // "Native SQL Engine TPC-H Suite").
        "tpch",
        "tpcds",
        "tpcc",
        // MLCommons' benchmark suite, run by its own `mlcr run-mlperf`
        // (mlperf-automations' jobs on self-hosted GPU machines with no
        // timeout).
        "mlperf",
        // Storage, system and network benchmarks known by a name that
        // only ends in `bench` or `perf` (Western Digital's `zbdbench` for
        // zoned block devices, run by zenfs's nightly job).
        "zbdbench",
        "filebench",
        "lmbench",
        "unixbench",
        "geekbench",
        "iperf",
        "iperf3",
        // Network benchmarks: msquic's `secnetperf` (microsoft/netperf's
        // lab jobs run `./scripts/secnetperf.ps1`), `sockperf`, `qperf`,
        // `uperf`. Not `netperf` itself: Microsoft's lab of that name also
        // runs msquic's kernel build-verification tests ("Netperf Kernel
        // BVT"), no benchmark.
        "secnetperf",
        "sockperf",
        "qperf",
        "uperf",
        "coremark",
    ]
    .contains(&word)
}

/// Words of a name that say it sends what was measured somewhere
/// (`data_sender.py`, `upload_results.sh`, "Uploading results", `git
/// push`).
const SENDS: &[&str] = &[
    "send",
    "sender",
    "sending",
    "upload",
    "uploader",
    "uploading",
    "publish",
    "publisher",
    "publishing",
    "deploy",
    "push",
    "post",
    "notify",
    "export",
    "exporter",
    "report",
    "reports",
    "reporter",
    // Put into a database (js2il's "Ingest Benchmark Results to Supabase").
    "ingest",
    "ingesting",
    // Committed to the repository (bielu's "Commit baseline to
    // repository", which copies the results and pushes them).
    "commit",
    "committing",
];

/// Whether a step's name begins with a word of sending ("Upload
/// results", "Ingest ... to Supabase"): it hands on what was measured.
pub fn begins_with_sending(name: &str) -> bool {
    words(name).next().is_some_and(|w| sends_word(&w))
}

/// Whether an action (`owner/name`, lower case) is named for pushing,
/// deploying or committing what the job made (`ad-m/github-push-action`,
/// `JamesIves/github-pages-deploy-action`, `actions-js/push`,
/// `stefanzweifel/git-auto-commit-action`), not an image built and pushed
/// to a registry (`docker/build-push-action`: what it builds is measured
/// code).
pub fn pushes_what_it_made(action: &str) -> bool {
    let name = action.rsplit('/').next().unwrap_or(action);
    !builds_an_image(action)
        && words(name).any(|w| ["push", "deploy", "commit"].contains(&w.as_str()))
}

/// Whether an action (`owner/name`) builds or moves a container image
/// (`docker/build-push-action`, `redhat-actions/push-to-registry`): what
/// it is given is built into what is measured, not sent away.
pub fn builds_an_image(action: &str) -> bool {
    let name = action.rsplit('/').next().unwrap_or(action);
    words(name).any(|w| ["docker", "image", "container", "build", "registry"].contains(&w.as_str()))
}

/// Whether a word (lower case, as [`words`] gives it) says sending.
pub fn sends_word(word: &str) -> bool {
    SENDS.contains(&word)
}

#[cfg(test)]
mod tests {
    use super::{pushes_what_it_made, says_running, words};

    #[test]
    fn running_the_benchmarks_is_said_a_few_words_on_not_past_a_chore_or_a_place() {
        let said = |n: &str| says_running(&words(n).collect::<Vec<_>>());
        for yes in [
            "Run benchmarks and publish",
            "Build CPython and run pyperformance benchmarks",
            "run the benchmarks",
            "Run ZBDBench",
        ] {
            assert!(said(yes), "{yes}");
        }
        for no in [
            "Detect if running on perf hardware",
            "Run build benches",
            "run non-perf tests",
            "Run unit tests",
        ] {
            assert!(!said(no), "{no}");
        }
    }

    #[test]
    fn an_action_pushing_what_the_job_made_is_not_an_image_push() {
        for yes in [
            "ad-m/github-push-action",
            "jamesives/github-pages-deploy-action",
            "actions-js/push",
            "stefanzweifel/git-auto-commit-action",
        ] {
            assert!(pushes_what_it_made(yes), "{yes}");
        }
        for no in [
            "docker/build-push-action",
            "redhat-actions/push-to-registry",
            "actions/upload-artifact",
        ] {
            assert!(!pushes_what_it_made(no), "{no}");
        }
    }
}
