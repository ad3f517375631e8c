//! Whether a job measures the baseline and the change in one run: one
//! command that does (`asv continuous`, a bisection, a runner given each
//! side's built program), or one of the job's own programs run once per
//! side. A tool cloned at a moving branch then serves both sides alike:
//! no drift between them. Split from [`super::programs`]. Pure.

use super::programs::{SAYS, invoked, own_program};
use super::shell::{Command, file_name};

/// Words that name the baseline's side, and the change's.
const BASELINE: &[&str] = &["baseline", "base", "old", "before", "reference"];
const CHANGE: &[&str] = &[
    "feature",
    "head",
    "pr",
    "candidate",
    "contender",
    "new",
    "after",
    "comparison",
    // kt-speed-tests' `build-kurtosis.sh "${BASELINE_BRANCH}" ...` and
    // `... "${PATCHED_BRANCH}" ...`.
    "patched",
    // checkstyle's `execute_benchmark patch-all.jar`.
    "patch",
];

/// Extensions of a built program or package, which is run, not read: a
/// file so named is a side's build (checkstyle's `execute_benchmark
/// base-all.jar` and `execute_benchmark patch-all.jar`), not its results
/// (not `.bin`, as often a profile or a dump as a program).
const PROGRAMS: &[&str] = &[".jar", ".exe", ".wasm"];

/// Whether `c` measures the baseline and the change in one run with one
/// checkout of the suite (`asv continuous BASE HEAD`): a suite cloned at a
/// moving ref then measures both sides alike.
pub fn measures_both_sides(c: &Command) -> bool {
    bisects(c)
        || invoked(c).is_some_and(|(base, words)| {
            (base == "asv" && words.get(1) == Some(&"continuous"))
                // Plumbing given two folders (`cp -r base/ head/`) measures
                // nothing.
                || own_program(base)
                    && (given_each_sides_program(c)
                        || given_a_copy_and_its_baseline(&words)
                        || given_each_sides_commit(&words))
        })
}

/// Whether a project's own program is given the base's commit or branch
/// in one word and the change's in another (bandit's `mix benchmark
/// bandit@URL@${{ github.event.pull_request.base.ref }}
/// bandit@URL@${{ github.event.pull_request.head.sha }}`, as `asv
/// continuous BASE HEAD` is): it builds and measures each in one run. A
/// flag's word is a setting, not a side.
fn given_each_sides_commit(words: &[&str]) -> bool {
    const BASE: &[&str] = &[
        "pull_request.base.sha",
        "pull_request.base.ref",
        "github.base_ref",
    ];
    const HEAD: &[&str] = &[
        "pull_request.head.sha",
        "pull_request.head.ref",
        "github.head_ref",
        "github.sha",
    ];
    let given = |names: &[&str]| {
        words
            .iter()
            .skip(1)
            .take(64)
            .position(|w| !w.starts_with('-') && names.iter().any(|n| w.contains(n)))
    };
    matches!((given(BASE), given(HEAD)), (Some(b), Some(h)) if b != h)
}

/// Whether a project's own program is given one path and the same path
/// with a baseline's word after it (sycamore's `npm run bench --
/// --framework keyed/sycamore keyed/sycamore-baseline`: the change's build
/// and the base branch's copy beside it): it measures both in one run.
fn given_a_copy_and_its_baseline(words: &[&str]) -> bool {
    let paths: Vec<&str> = words
        .iter()
        .skip(1)
        .take(64)
        .map(|w| w.trim_end_matches('/'))
        .filter(|w| !w.starts_with('-') && !w.contains('.') && !w.contains('$'))
        .collect();
    paths.iter().any(|p| {
        p.rsplit_once(['-', '_']).is_some_and(|(copy, side)| {
            BASELINE.contains(&side.to_ascii_lowercase().as_str()) && paths.contains(&copy)
        })
    })
}

/// Whether one command is given a built program of each side to run, each
/// argument's program in a directory named for its side (`cbdr sample
/// "main:main/build/aspect-release in.prm" "feature:feature/build/...`,
/// aspect's performance job; `hyperfine ./base/app ./head/app`, or the
/// programs themselves so named, `./base` and `./head`): it measures both
/// in one run. A file with an extension (`baseline.json`,
/// results) is no program.
fn given_each_sides_program(c: &Command) -> bool {
    let (mut baseline, mut change) = (false, false);
    for w in c.words.iter().skip(1) {
        let program = w.text.split_whitespace().next().unwrap_or("");
        if let Some(tree) = program.strip_suffix('/') {
            let (b, ch) = tree_sides(tree);
            baseline |= b && !ch;
            change |= ch && !b;
            continue;
        }
        let file = file_name(program);
        if program.starts_with('-') || program.contains("://") || file.contains('.') {
            continue;
        }
        let Some(dirs) = program.strip_suffix(file) else {
            continue;
        };
        let mut dirs: Vec<String> = dirs.split('/').map(str::to_ascii_lowercase).collect();
        // Or the program itself named for its side, run by its path:
        // chisel's `hyperfine "./base info ..." "./head info ..."`.
        if program.starts_with("./") {
            dirs.push(file.to_ascii_lowercase());
        }
        let named = |words: &[&str]| dirs.iter().any(|d| words.contains(&d.as_str()));
        // A program's directory may also be named for the branch built.
        match (
            named(BASELINE) || named(&["main", "master"]),
            named(CHANGE) || named(&["pr"]),
        ) {
            (true, false) => baseline = true,
            (false, true) => change = true,
            _ => {}
        }
    }
    baseline && change
}

/// The sides a source tree given to a project's own program names, by
/// the last word of its folder (mmtk's `jikesrvm-compare.sh
/// mmtk-core-trunk/ mmtk-core-branch/`, which builds and measures each):
/// a side's word, `trunk` for the baseline and `branch` for the change.
fn tree_sides(tree: &str) -> (bool, bool) {
    let folder = file_name(tree).to_ascii_lowercase();
    let last = folder.rsplit(['-', '_']).next().unwrap_or("");
    (
        BASELINE.contains(&last) || ["trunk", "main", "master"].contains(&last),
        CHANGE.contains(&last) || last == "branch",
    )
}

/// Whether `c` bisects: `git bisect`, or a program, or a script a shell or
/// Python runs, whose path has the word `bisect` (`bash
/// .ci/bisect/run.sh`, `./bisect_perf.py`).
/// A bisection measures each commit it tries, the good and the bad, in
/// one run with the same harness: read on TritonBench's bisect job, which
/// checks its harness out at `main` and bisects Triton with it. A word of
/// a message (`echo bisect`) or a flag is not.
fn bisects(c: &Command) -> bool {
    if c.git("bisect") {
        return true;
    }
    let Some((base, words)) = invoked(c) else {
        return false;
    };
    let named = |w: &str| !w.contains("://") && super::names::words(w).any(|x| x == "bisect");
    let launcher = |w: &str| {
        let f = file_name(w);
        f.starts_with("python") || ["bash", "sh", "source", "."].contains(&f)
    };
    // The program itself, or the script a shell or Python runs.
    let program = words.first().is_some_and(|w| w.contains('/') && named(w));
    let script = words.windows(2).any(|pair| match pair {
        [l, w] => launcher(l) && !w.starts_with('-') && named(w),
        _ => false,
    });
    !SAYS.contains(&base) && (program || script || named(base))
}

/// The sides of a comparison one command is given, by words that name
/// them: `(baseline, change)`. A word names a side when it is the side's
/// word (`bench-txgen-build.sh baseline DIR REF`, `run.sh feature`) or a
/// directory on a path says it (`prepare_source_dir ../reth-baseline`),
/// or a variable's name (micropython's `code_size_build_step $REFERENCE
/// ~/size0 true` and `code_size_build_step $COMPARISON ~/size1 false`);
/// a file with an extension (`baseline.json`, results) or a URL
/// (`s3://b/baseline/`, results kept elsewhere) names none, nor does a
/// flag or a long option's value; a built program's file does
/// (`base-all.jar`, [`PROGRAMS`]). See [`runs_each_side`].
pub fn sides(c: &Command) -> (bool, bool) {
    let mut found = (false, false);
    // A long option's value is a setting, not a side: criterion's
    // `--save-baseline baseline` and `--baseline-lenient baseline` name its
    // saved run, whichever build neqo's `"$PR_BENCH"` is.
    let mut option_value = false;
    for w in c.words.iter().skip(1) {
        let value = std::mem::replace(
            &mut option_value,
            w.text.starts_with("--") && w.text.len() > 2 && !w.text.contains('='),
        );
        if !value {
            let (baseline, change) = word_sides(&w.text);
            found.0 |= baseline;
            found.1 |= change;
        }
    }
    found
}

/// The sides one word names: by a variable's name (`$REFERENCE`,
/// `${COMPARISON}`) or a directory on its path; none for a flag, a URL or
/// a file with an extension.
fn word_sides(text: &str) -> (bool, bool) {
    let lower = text.to_ascii_lowercase();
    let lower = lower
        .strip_prefix("${")
        .and_then(|v| v.strip_suffix('}'))
        .or_else(|| lower.strip_prefix('$'))
        .unwrap_or(&lower);
    if lower.starts_with('-') || lower.contains("://") {
        return (false, false);
    }
    let mut found = (false, false);
    // A segment with an extension names a side only as a built program
    // (`base-all.jar`), read without its extension.
    let parts = lower
        .split('/')
        .filter_map(|seg| {
            if seg.contains('.') {
                PROGRAMS.iter().find_map(|e| seg.strip_suffix(e))
            } else {
                Some(seg)
            }
        })
        .flat_map(|seg| seg.split(['-', '_']));
    for part in parts {
        found.0 |= BASELINE.contains(&part);
        found.1 |= CHANGE.contains(&part);
    }
    found
}

/// Whether one of the job's own programs (not plumbing, not a report) is
/// run once for the baseline and once for the change, each command
/// naming one side: reth's benchmark builds `bench-txgen-build.sh
/// baseline DIR REF` and `bench-txgen-build.sh feature DIR REF` in the
/// job that then measures them in turns (B-F-F-B), so a tool cloned at a
/// moving branch serves both sides alike.
/// A command naming both sides (`compare.py baseline.json head.json`)
/// compares results, which a job measuring one side does too.
pub fn runs_each_side<'a>(commands: impl Iterator<Item = &'a Command>) -> bool {
    let mut baseline = std::collections::BTreeSet::new();
    let mut change = std::collections::BTreeSet::new();
    for c in commands {
        let Some((base, words)) = invoked(c) else {
            continue;
        };
        if !own_program(base) {
            continue;
        }
        // Each side's build run in turn (neqo's `"$BASELINE_BENCH" --bench`
        // and `"$PR_BENCH" --bench`): the program itself names its side.
        let built = words.first().map_or((false, false), |p| word_sides(p));
        let (base, named) = match built {
            (true, false) | (false, true) => ("\0each side's build", built),
            _ => (base, sides(c)),
        };
        match named {
            (true, false) => baseline.insert(base),
            (false, true) => change.insert(base),
            _ => continue,
        };
    }
    !baseline.is_disjoint(&change)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::shell::commands;

    #[test]
    fn a_program_run_once_per_side_measures_both() {
        let each = |script: &str| runs_each_side(commands(script).unwrap().iter());
        assert!(each("./build.sh baseline a\n./build.sh feature b"));
        assert!(each("prep ../reth-baseline x\nprep ../reth-feature y"));
        assert!(!each("python cmp.py baseline.json head.json"));
        assert!(!each(
            "aws s3 cp s3://b/baseline/ .\naws s3 cp o s3://b/head/"
        ));
        assert!(!each("git checkout base\ngit checkout head"));
        assert!(!each("./build.sh baseline a\n./run.sh feature b"));
        // Each side's built package, run by one of the script's functions.
        assert!(each("run base-all.jar\nrun patch-all.jar"));
        assert!(!each("run base-all.json\nrun patch-all.json"));
        assert!(!each(
            "memray flamegraph base.bin\nmemray flamegraph head.bin"
        ));
        // neqo's `bench_exec "$BASELINE_BENCH"` and `bench_exec "$PR_BENCH"`.
        assert!(each(
            "bench_exec \"$BASELINE_BENCH\" -- --bench --save-baseline baseline\nbench_exec \"$PR_BENCH\" -- --bench --baseline-lenient baseline"
        ));
        assert!(each(
            "\"$BASELINE_BENCH\" --bench --save-baseline baseline\n\"$PR_BENCH\" --bench --baseline-lenient baseline"
        ));
        assert!(!each(
            "./run.sh --save-baseline baseline\n./run.sh --baseline-lenient baseline"
        ));
    }

    #[test]
    fn a_command_given_each_sides_program_measures_both() {
        let one = |script: &str| commands(script).unwrap().iter().any(measures_both_sides);
        assert!(one(
            "cargo run sample \"main:$W/main/build/aspect-release in.prm\" \"feature:$W/feature/build/aspect-release in.prm\""
        ));
        assert!(one("hyperfine ./base/app ./head/app"));
        assert!(!one(
            "python cmp.py results/base/out.json results/head/out.json"
        ));
        assert!(!one("hyperfine ./head/app ./head/app2"));
        // Each side's source tree, given to the project's own comparison.
        assert!(one(
            "./ci-perf-kit/scripts/jikesrvm-compare.sh mmtk-jikesrvm-trunk/ mmtk-core-trunk/ mmtk-jikesrvm-branch/ mmtk-core-branch/ report.md"
        ));
        assert!(!one("cp -r base/ head/"));
        // The change's build beside the base branch's copy of it.
        assert!(one(
            "npm run bench -- --headless --framework keyed/sycamore keyed/sycamore-baseline keyed/wasm-bindgen"
        ));
        assert!(!one("npm run bench -- --framework keyed/sycamore-baseline"));
        assert!(!one("cp -r app app-baseline"));
        assert!(!one("./compare.sh mmtk-core-trunk/ other-tree/"));
        assert!(one("asv continuous origin/main HEAD"));
    }
}
