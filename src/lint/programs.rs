//! What a command runs: the program it invokes (past variable
//! assignments and `python -m`), whether that is the job's own program or
//! plumbing and reports (`cd`, `git`, `pip`, `echo`), and whether it runs
//! a benchmark harness or compares two builds' results. Split from
//! [`super::evidence`], which reads jobs, steps and actions. Pure.

mod harnesses;

use super::names::{named_for_benchmarks, prepares_benchmarks};
use super::shell::{Command, assignment, file_name};

/// Whether a program (by its file name) is one of the job's own, neither
/// a report ([`SAYS`]) nor set-up ([`PLUMBING`]).
pub fn own_program(name: &str) -> bool {
    !SAYS.contains(&name)
        && !PLUMBING.contains(&name)
        && !SYNTAX.contains(&name)
        && !redirection(name)
}

/// A redirection where a command's name would stand: a group's output
/// sent on, `{ echo a=1; echo b=2; } >> "$GITHUB_OUTPUT"` (its `}` is
/// the shell's, `>>` no program), also `2>`, `&>`, `>|`.
fn redirection(word: &str) -> bool {
    let rest = word.trim_start_matches(|c: char| c.is_ascii_digit() || c == '&');
    rest.starts_with(['<', '>'])
}

/// The shell's own words where a command's would stand (`for p in ...`,
/// `done < <(...)`'s redirection): no program.
const SYNTAX: &[&str] = &["for", "select", "case", "in", "esac", ";;", "<", ">", "<<<"];

/// Commands that prepare or report, not the program a job is for.
const PLUMBING: &[&str] = &[
    "cd",
    "pushd",
    "popd",
    "export",
    "set",
    "shopt",
    "unset",
    "source",
    ".",
    "mkdir",
    "ls",
    "rm",
    "cp",
    "mv",
    "ln",
    "pwd",
    "sleep",
    "exit",
    "env",
    "chmod",
    "chown",
    "touch",
    "mktemp",
    "git",
    "gh",
    "curl",
    "wget",
    "pip",
    "pip3",
    "apt",
    "apt-get",
    "yum",
    "dnf",
    "brew",
    "sudo",
    "nvidia-smi",
    "rocm-smi",
    "df",
    "du",
    "uname",
    "whoami",
    "date",
    "tar",
    "unzip",
    "sed",
    "grep",
    "awk",
    "jq",
    "head",
    "tail",
    "wc",
    "find",
    // Text tools a listing is made with (csp-benchmarks' `detect-crates`:
    // `sort -u`, `cut -d' ' -f2-`, `while IFS= read -r d`).
    "sort",
    "uniq",
    "cut",
    "tr",
    "xargs",
    "basename",
    "dirname",
    "read",
    "which",
    "rustup",
    // A compiler cache's statistics ("Ccache performance": `ccache -s`).
    "ccache",
    "sccache",
    "conda",
    "uv",
    "return",
    "shift",
    "continue",
    "break",
];

/// Commands that only say something: their words are a message.
pub(super) const SAYS: &[&str] = &[
    "echo", "printf", ":", "cat", "tee", "true", "false", "test", "[", "[[",
];

/// Environment managers (Python's, and pixi's of conda packages) whose
/// `run` runs a program in the project's environment.
const ENV_RUNNERS: &[&str] = &["uv", "poetry", "pipenv", "pdm", "hatch", "rye", "pixi"];

/// The program a command runs, by its file name, and its words from that
/// program on: `python -m asv continuous` runs `asv` as `asv continuous`
/// does, and so does `uv run asv continuous`.
pub fn invoked(c: &Command) -> Option<(&str, Vec<&str>)> {
    let mut words: Vec<&str> = c
        .words
        .iter()
        .map(|w| w.text.as_str())
        .skip_while(|w| assignment(w))
        .collect();
    // An environment manager's `run` runs the program after it in the
    // project's environment (`uv run memray run ...`, `poetry run pytest`):
    // that program is what the command runs. With an option first
    // (`uv run --with x ...`) the program is not read.
    let manager = words
        .first()
        .is_some_and(|w| ENV_RUNNERS.contains(&file_name(w)));
    if manager && words.get(1) == Some(&"run") && words.get(2).is_some_and(|w| !w.starts_with('-'))
    {
        words.drain(..2);
    }
    let python = words
        .first()
        .is_some_and(|w| file_name(w).starts_with("python"));
    if python && words.get(1) == Some(&"-m") && words.len() > 2 {
        words.drain(..2);
    }
    let name = *words.first()?;
    Some((file_name(name), words))
}

/// A container tool's commands that fetch, name or describe an image
/// (`docker pull`, `docker inspect`: prime-rl's "Get image digest" job on
/// a GPU runner) run no program of the job's own.
fn handles_images(n: &str, words: &[&str]) -> bool {
    ["docker", "podman"].contains(&n)
        && words.get(1).is_some_and(|s| {
            [
                "pull", "load", "inspect", "login", "logout", "images", "tag", "push", "version",
                "info",
            ]
            .contains(s)
        })
}

/// Whether a command (its program `n`, its `words`) only signs in to a
/// cloud or its registry (`gcloud auth configure-docker`, `aws ecr
/// get-login-password`, `az login`): a chore before the job's work, as
/// `docker login` is, no program of the job's own.
fn signs_in(n: &str, words: &[&str]) -> bool {
    let sub = words.get(1).copied().unwrap_or("");
    match n {
        "gcloud" => ["auth", "config"].contains(&sub),
        "az" => ["login", "logout", "account"].contains(&sub),
        "aws" => {
            sub == "configure"
                || (sub == "ecr" && words.get(2).is_some_and(|w| w.starts_with("get-login")))
        }
        _ => false,
    }
}

/// Whether `c` runs a program of the job's own ([`own_program`]) that
/// does more than a chore around it: not a compile alone
/// ([`compiles_only`]), an image fetched or named (`docker pull`), nor a
/// sign-in (`gcloud auth`). The command's words are read once.
pub fn own_work(c: &Command) -> bool {
    invoked(c).is_some_and(|(n, words)| {
        own_program(n)
            && !compiling_only(n, &words)
            && !handles_images(n, &words)
            && !signs_in(n, &words)
    })
}

/// Whether `c` only compiles the benchmarks and runs nothing: `cargo bench
/// --no-run` (xet-core's "Check benchmarks compile"), `cargo criterion
/// --no-run`, `cargo check --benches`. In a job named for benchmarking it is no program run, so
/// no evidence that the job measures.
pub fn compiles_only(c: &Command) -> bool {
    invoked(c).is_some_and(|(base, words)| compiling_only(base, &words))
}

/// [`compiles_only`] of a command's program and words.
fn compiling_only(base: &str, words: &[&str]) -> bool {
    base == "cargo"
        && match words.get(1) {
            Some(&("bench" | "test" | "criterion")) => words.contains(&"--no-run"),
            Some(&"check") => true,
            _ => false,
        }
}

/// A regression or comparison script given both sides
/// (`regression_runner.py --old=old/runner --new=build/runner`, or two
/// result files: `compare.py base.json head.json`), or any program given
/// a baseline and the build compared with it (`smp job submit
/// --baseline-image A --comparison-image B`: vector's regression
/// experiment): a performance comparison of two builds.
fn compares_two_builds(words: &[&str]) -> bool {
    // The script stands within the launcher's first words (`uv run
    // --no-project python scripts/query-regression-run.py`).
    let named = words.iter().skip(1).take(5).any(|w| {
        let f = file_name(w).to_lowercase();
        !w.starts_with('-') && (f.contains("regress") || f.contains("compar"))
    });
    let sides = |prefixes: &[&str]| {
        words
            .iter()
            .any(|w| prefixes.iter().any(|p| w.to_lowercase().starts_with(p)))
    };
    let results = words
        .iter()
        .skip(1)
        .filter(|w| !w.starts_with('-') && [".json", ".csv"].iter().any(|e| w.ends_with(e)))
        .count();
    named
        && (sides(&["--old", "--base"]) && sides(&["--new", "--head", "--current", "--candidate"])
            || results >= 2)
}

/// Any program given a baseline and what is compared with it, by flags
/// that say so (`--baseline-image`, `--comparison-image`; `--candidate`,
/// `--contender`): not `--base`/`--head`, which name branches (`gh pr
/// create --base main --head x`).
fn baseline_and_comparison(words: &[&str]) -> bool {
    let sides = |prefixes: &[&str]| {
        words
            .iter()
            .any(|w| prefixes.iter().any(|p| w.to_lowercase().starts_with(p)))
    };
    sides(&["--baseline"]) && sides(&["--comparison", "--candidate", "--contender"])
}

/// A script whose path or name says bench or perf
/// (`python benchmarks/dynamo/huggingface.py`, `bash perf/run.sh`,
/// `python run_perf.py`), run by a launcher: not a test (`test_*`), not
/// a chore around the benchmarks (`benchmarks/install_deps.sh`), and not
/// one that makes their inputs or says what they are
/// (`benchmark/version.py`, `benchmark/serializer.py`: [`names::makes_inputs`]).
fn script_named_for_benchmarks(word: &str) -> bool {
    const SCRIPTS: &[&str] = &[".py", ".sh", ".bash", ".jl", ".js", ".rb", ".lua"];
    let lower = word.to_lowercase();
    let file = file_name(&lower);
    let stem = file.rsplit_once('.').map_or(file, |(s, _)| s);
    let dirs = lower.strip_suffix(file).unwrap_or("");
    !lower.starts_with('-')
        && !lower.contains("${{")
        && SCRIPTS.iter().any(|e| file.ends_with(e))
        && !file.starts_with("test")
        && !prepares_benchmarks(stem)
        && !super::names::makes_inputs(stem)
        && (named_for_benchmarks(stem) || dirs.split('/').any(says_bench_or_perf))
}

/// The options after which an interpreter (not a shell) takes its code
/// inline, not a file's path: `python -c "import pytest_benchmark"`
/// checks a module is installed, it runs no script named for
/// benchmarking (mlsdm's "Verify test dependencies").
const INLINE_CODE: &[&str] = &["-c", "-e", "--eval", "--command"];

/// The words after a launcher that may name the script it runs (its
/// first three), less the value of a long option (`publish.py --data-type
/// bench`: the kind of data a publisher sends, not a script named for
/// benchmarking; read on sglang-jax's accuracy evaluations). A short flag's
/// next word stays (`python -u
/// bench.py`), nor inline code after `-c`.
fn scripts<'w>(words: &'w [&'w str]) -> impl Iterator<Item = &'w str> + 'w {
    let tail = words.get(1..).unwrap_or(&[]);
    // A shell's `-c` is a command line, whose programs are read (`bash -c
    // "./build/deploy_benchmark"` in a container).
    let shell = words
        .first()
        .is_some_and(|w| ["bash", "sh", "zsh", "dash", "ksh"].contains(&file_name(w)));
    tail.iter()
        .take(3)
        .enumerate()
        .filter(move |&(i, _)| {
            i.checked_sub(1)
                .and_then(|p| tail.get(p))
                .is_none_or(|prev| {
                    (!prev.starts_with("--") || prev.contains('='))
                        && (shell || !INLINE_CODE.contains(prev))
                })
        })
        .map(|(_, w)| *w)
}

/// A directory on a script's path that says bench or perf (`benchmarks/`,
/// `perf/`). A harness's name alone does not: `asv-runner/ci/make_issues.py`
/// lives in a repository named after asv and files issues.
fn says_bench_or_perf(dir: &str) -> bool {
    super::names::words(dir).any(|w| super::names::bench_or_perf_word(&w))
}

/// Programs that run another command given in their words: a container
/// (`docker run IMAGE CMD`), a cluster's scheduler (`srun`, `mpirun`),
/// or a limit on the command (`timeout`, `numactl`).
const WRAPPERS: &[&str] = &[
    "docker",
    "podman",
    "singularity",
    "apptainer",
    "srun",
    "salloc",
    "mpirun",
    "mpiexec",
    "timeout",
    "numactl",
    "nohup",
    "nice",
    "stdbuf",
    "time",
    "sudo",
];

/// Whether a wrapper's command is a launcher running a script named for
/// benchmarking (`docker run ... hidet-ci python
/// hidet/tests/benchmarks/run_tests.py`, read on hidet's regression job
/// inside `srun ... bash -c`): the script, not the wrapper, is
/// what runs.
fn wrapped_script(base: &str, words: &[&str]) -> bool {
    let launcher = |w: &str| {
        let f = file_name(w).to_lowercase();
        f.starts_with("python") || ["bash", "sh", "torchrun"].contains(&f.as_str())
    };
    // A relative path runs in the container's working directory
    // (`docker exec -w /src/onediff_comfy_nodes/benchmarks box bash
    // scripts/run_all_tests.sh`: onediff's CUDA job).
    let workdir = super::places::container_workdir(words);
    let named = |script: &str| {
        script_named_for_benchmarks(script)
            || !script.starts_with('/')
                && workdir
                    .as_deref()
                    .is_some_and(|d| script_named_for_benchmarks(&format!("{d}/{script}")))
    };
    WRAPPERS.contains(&base)
        && words.windows(2).skip(1).any(|pair| match pair {
            [l, script] => launcher(l) && named(script),
            _ => false,
        })
}

/// A program the job built, run by its path, whose name has a word
/// starting with `perf` (`./igzip_file_perf`, `build/bin/crc_perf`:
/// isa-l's extended tests run its performance programs), as a file named for benchmarking is
/// (`./build/bench_gemm`). Run from the working directory or a build's
/// `bin/` or `build/`, or a script run by its path (netperf's
/// `tools/two-machine-perf.ps1 -Config Release`), not any word with a `/`
/// (vortex's `"changelog/performance"`, a label in a shell array); a name of
/// several words (`perf` alone is Linux's profiler, which times whatever
/// it is given); not a test (`test_*`) nor `perfetto`.
fn built_perf_program(base: &str, words: &[&str]) -> bool {
    let lower = base.to_lowercase();
    let stem = lower.rsplit_once('.').map_or(lower.as_str(), |(s, _)| s);
    let script = script_file(&lower);
    let built = words.first().is_some_and(|w| {
        (w.starts_with("./")
            || w.contains("bin/")
            || w.contains("build/")
            || script && w.contains('/'))
            && !w.contains('$')
            && !w.contains("://")
    });
    let parts: Vec<String> = super::names::words(stem).collect();
    // A script named for drawing or handling what was measured
    // (`update_performance_badge.py`) measures nothing.
    built
        && !stem.starts_with("test")
        && !super::names::handles_results(stem)
        && parts.len() > 1
        && parts
            .iter()
            .any(|w| w.starts_with("perf") && !w.starts_with("perfetto"))
}

/// The command `sudo` runs, its flags (`-E`, `--preserve-env`) left
/// out: `None` when `c` is no `sudo`, or a flag may take a value.
fn under_sudo(c: &Command) -> Option<Command> {
    let first = c.words.iter().position(|w| !assignment(&w.text))?;
    if c.words.get(first)?.text != "sudo" {
        return None;
    }
    let rest = c.words.get(first.saturating_add(1)..)?;
    let flags = rest.iter().take_while(|w| w.text.starts_with('-')).count();
    let bare = |w: &str| {
        w.starts_with("--")
            || w.len() == 2
                && !["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T"].contains(&w)
    };
    if !rest.iter().take(flags).all(|w| bare(&w.text)) || flags == rest.len() {
        return None;
    }
    let mut run = c.clone();
    run.words = rest.get(flags..)?.to_vec();
    Some(run)
}

/// Extensions of a script a shell runs by its path.
const SCRIPT_EXTENSIONS: &[&str] = &["sh", "ps1", "py", "pl", "rb", "bash"];

/// Whether `path` names a script by its extension (`perf_measure.sh`,
/// `two-machine-perf.ps1`).
pub fn script_file(path: &str) -> bool {
    path.rsplit_once('.')
        .is_some_and(|(_, ext)| SCRIPT_EXTENSIONS.contains(&ext))
}

/// Whether a program is one the job built, run from its build's folder
/// (`build/`, `bin/`; no extension): a binary is named for what it
/// measures, not for a chore (multipy's
/// `./multipy/runtime/build/deploy_benchmark` times torch::deploy).
fn built_binary(base: &str, words: &[&str]) -> bool {
    words.first().is_some_and(|w| {
        (w.contains("build/") || w.contains("bin/")) && !w.contains('$') && !base.contains('.')
    })
}

/// A program or script (`python benchmarks/bench_serving.py`, `python
/// -m sglang.bench_serving`, `./build/bench_gemm`, `nvbench_compare.py`)
/// named for benchmarking; a word of a flag or a message is not.
fn file_named_for_benchmarks(w: &str) -> bool {
    let f = file_name(w).to_lowercase();
    // `test_cuda_bench.sh` tests a benchmark library: a test. A
    // script named for handling results measured before
    // (`write-bench-results.mjs`, `bench_report.py`) measures nothing.
    let stem = f.rsplit_once('.').map_or(f.as_str(), |(s, _)| s);
    let named = f.starts_with("run_benchmark")
        || f.starts_with("run-benchmark")
        || f.starts_with("bench")
        || f.contains("_bench")
        || f.contains(".bench")
        || f.contains("-bench")
        || f.contains("benchmark");
    // A script named for a chore does one (`ensure-benchmark-harness-exists.sh`);
    // a binary is named for what it measures ([`built_binary`]). Asked
    // last: most words name no benchmark at all.
    let chore_script = || script_file(&f) && prepares_benchmarks(stem);
    named
        && !w.starts_with('-')
        && !f.starts_with("test")
        && !super::names::handles_results(stem)
        && !chore_script()
}

/// Whether `word` is an option of a benchmark harness (google benchmark's
/// `--benchmark_filter`, pytest-benchmark's `--benchmark-json`), not one
/// that turns the benchmarks off (pytest-benchmark's `--benchmark-skip`
/// and `--benchmark-disable` run the tests without them).
fn benchmark_option(word: &str) -> bool {
    let off = ["--benchmark-skip", "--benchmark-disable"]
        .iter()
        .any(|o| word == *o || word.starts_with(&format!("{o}=")));
    (word.starts_with("--benchmark-") || word.starts_with("--benchmark_")) && !off
}

/// Whether a program is named for compiling what others measure
/// (openxla's `compile_workloads.py --benchmark_name=...`: its options
/// name the benchmark it builds), not for timing a compile
/// (`bench_compile_time`).
fn compiler_of_benchmarks(base: &str) -> bool {
    let said: Vec<String> = super::names::words(base).collect();
    said.iter().any(|w| w == "compile")
        && !said
            .iter()
            .any(|w| w == "time" || w.contains("bench") || w.contains("perf"))
}

/// Whether `c` runs a benchmark, or compares benchmark results.
pub fn benchmark_command(c: &Command) -> bool {
    // `sudo ./bpf_performance_runner -i tests.yml`: the program after
    // `sudo` and its flags is what runs (netperf's eBPF job measures with
    // root rights). Not with a flag that takes a value (`-u user`). Once:
    // `sudo sudo ...` is read as `sudo`'s own.
    match under_sudo(c) {
        Some(run) => runs_benchmarks(&run),
        None => runs_benchmarks(c),
    }
}

/// [`benchmark_command`], past `sudo`.
fn runs_benchmarks(c: &Command) -> bool {
    let Some((base, words)) = invoked(c) else {
        return false;
    };
    // A program asked only its version or usage (memtier's `./memtier_benchmark
    // --version` after its build) measures nothing.
    let asks = |w: &&str| ["--version", "-V", "--help", "-h"].contains(w);
    if SAYS.contains(&base) || words.len() == 2 && words.get(1).is_some_and(asks) {
        return false;
    }
    // Bencher's command line measures with `run`; its other subcommands
    // (`bencher archive`, zq2's closed pull requests' branches) file
    // results away, though its name begins with `bench`.
    if base == "bencher" {
        return words.get(1) == Some(&"run");
    }
    let has = |w: &str| words.contains(&w);
    let file_like = file_named_for_benchmarks;
    let program = |w: &str| {
        let f = file_name(w).to_lowercase();
        f.contains("python")
            || ["bash", "sh", "julia", "node", "torchrun", "uv", "./"].contains(&f.as_str())
    };
    // Scripts named for benchmarking, wherever they stand (`timeout 3600
    // bash scripts/run_benchmark.sh`).
    let seed_like = |w: &str| {
        let f = file_name(w).to_lowercase();
        f.starts_with("run_benchmark")
            || f.starts_with("run-benchmark")
            || ((f.contains("compare") || f.contains("cmp")) && f.contains("bench"))
    };
    // A program named for a chore around the benchmarks
    // (`triton-benchmarks-validate`, `install_benchmarks.sh`) runs none.
    // Not "compile": a compile-time benchmark measures compiling.
    let compile = super::names::words(base).any(|w| w == "compile");
    if prepares_benchmarks(base) && !compile && !built_binary(base, &words) {
        return false;
    }
    let runs_file = program(base) || words.first().is_some_and(|w| w.contains('/'));
    let harness = ["pyperf", "pyperformance", "nvbench", "criterion"]
        .iter()
        .any(|h| base.starts_with(h));
    (base == "cargo"
        && !compiles_only(c)
        && (words.get(1) == Some(&"bench") || words.get(1) == Some(&"criterion")))
        || (base == "asv" && matches!(words.get(1), Some(&("run" | "continuous" | "compare"))))
        || (base == "go"
            && has("test")
            && words
                .iter()
                .any(|w| *w == "-bench" || w.starts_with("-bench=")))
        || base == "hyperfine"
        || base == "critcmp"
        || base == "benchstat"
        || !compiler_of_benchmarks(base) && words.iter().any(|w| benchmark_option(w))
        || harness
        || (base == "vllm" && words.get(1) == Some(&"bench"))
        || harnesses::bench_subcommand(base, &words)
        || (runs_file && compares_two_builds(&words))
        || (own_program(base) && baseline_and_comparison(&words))
        || has("--codspeed")
        || words.iter().any(|w| seed_like(w))
        || file_like(base)
        || (runs_file && scripts(&words).any(file_like))
        || (runs_file && words.iter().take(4).any(|w| script_named_for_benchmarks(w)))
        || wrapped_script(base, &words)
        || built_perf_program(base, &words)
        || harnesses::load_generator(base, &words)
        || (base.starts_with("baseline-resolver") && has("compare"))
}

#[cfg(test)]
mod tests;
