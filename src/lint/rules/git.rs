//! Rules on what scripts do with git (and pip): `fork-remote`,
//! `baseline-walk`, `shallow-merge-base`, `tag-sort`, `unpinned-clone`
//! (in jobs that run benchmarks: a dependency at a moving ref changes what
//! baseline and current measure; elsewhere it is a choice).

use std::cell::OnceCell;

use rustc_hash::FxHashMap;

use super::checkouts;
use super::later::{Act, Later, last_segment};
use super::{clone_dir, hit, pinned_ref, positionals};
use crate::lint::evidence::{
    Benchmarks, benchmark_command, measures_both_sides, runs_each_side, step_runs_benchmarks,
};
use crate::lint::finding::Hit;
use crate::lint::places;
use crate::lint::shell::{Command, Sep, file_name};
use crate::lint::workflow::{Job, Script, Step, Workflow};
use crate::lint::yaml::Node;

pub fn check(w: &Workflow<'_>, bench: &Benchmarks, hits: &mut Vec<Hit>) {
    // A reusable workflow runs for its callers, whose repository is the
    // run's: a checkout of its own by name is another project to them.
    let own = w.repository.as_deref().filter(|_| !w.on("workflow_call"));
    for (index, job) in w.jobs.iter().enumerate() {
        if w.on_pull_request() {
            fork_remote(job, hits);
        }
        shallow_merge_base(job, hits);
        let benchmarks = bench.job(index);
        // A job that measures both sides in one run measures them with the
        // same clones: no drift between baseline and change.
        let drifts = benchmarks && !measures_both_sides_in(job);
        // Only a job whose clones can drift asks where its measuring ends.
        let last = drifts.then(|| last_measuring_step(job)).flatten();
        // Where the job's steps push (for clones) and what they give a path
        // to (for checkouts), each read once for the job when first asked.
        let (pushes, uses) = (OnceCell::new(), OnceCell::new());
        for (position, step) in job.steps.iter().enumerate() {
            // A step after the job's last measurement fetches nothing it
            // measured: a results repository checked out to publish to.
            let measures_later = last.is_none_or(|l| l > position);
            // A checkout pinned or only sent with later is no drift.
            if drifts && measures_later && !checkouts::settled(job, position, &uses) {
                checkout_dependency(job, step, own, hits);
            }
            let Some(script) = &step.script else {
                continue;
            };
            // In the job's last measuring step, what follows its last
            // benchmark command measures nothing either (found once: a
            // script is a stranger's, of any length). A step that measures
            // by its name alone ("Run Benchmarks": a `docker run` whose
            // shell installs the harness, then runs it; optimum-amd) has no such command:
            // all of it may measure.
            let last_command = (last == Some(position)).then(|| {
                script
                    .commands
                    .iter()
                    .rposition(benchmark_command)
                    .unwrap_or(script.commands.len())
            });
            // Where the script pins and pushes, found at its first clone.
            let later = OnceCell::new();
            // The loops already reported as walks: one finding a loop.
            let mut walked = Vec::new();
            for (i, c) in script.commands.iter().enumerate() {
                let mut found = Vec::new();
                if let Some(at) = walks(&script.commands, i) {
                    let one = super::loops::loop_of(&script.commands, i);
                    if !walked.contains(&one) {
                        walked.push(one);
                        found.push(("baseline-walk", at));
                    }
                }
                if benchmarks && version_sorts_tags(&script.commands, i) {
                    found.push(("tag-sort", c.at()));
                }
                let measured = measures_later
                    || last_command.is_some_and(|l| l > i || runs_inside(&script.commands, i, l));
                if drifts
                    && measured
                    && unpinned(&script.commands, &later, i)
                    && !pushed_by_a_later_step(
                        pushes.get_or_init(|| last_push_per_directory(job)),
                        position,
                        &script.commands,
                        i,
                    )
                {
                    found.push(("unpinned-clone", c.at()));
                }
                for (rule, at) in found {
                    hits.push(hit(rule, script.scalar.pos_of(at), job, Some(step)));
                }
            }
        }
    }
}

/// The last step of `job` seen to run or compare benchmarks (evidence's
/// steps), or `None` when none is seen (a job named one by the config's
/// globs): then every step may measure. A step whose name begins with a
/// word of sending ("Send data to Slab", "Upload results") hands on what
/// was measured, even when a program of it reads a file named for the
/// benchmarks (`hmac_calculator.sh parsed_benchmark_results.json`).
fn last_measuring_step(job: &Job<'_>) -> Option<usize> {
    job.steps
        .iter()
        .rposition(|s| step_runs_benchmarks(s) && !named_for_sending(s))
}

/// Whether a step's `name:` begins with a word of sending.
fn named_for_sending(step: &Step<'_>) -> bool {
    step.text("name")
        .is_some_and(crate::lint::names::begins_with_sending)
}

/// Whether command `i` runs inside command `l` (its script read beside
/// the step, its `bash -c` body, a substitution): part of what `l` runs,
/// so measured when `l` measures (BladeDISC's `torch_bench_gpu.sh`
/// clones its suite and then measures it).
fn runs_inside(commands: &[Command], i: usize, l: usize) -> bool {
    let mut at = commands.get(i).and_then(|c| c.parent);
    // A parent always stands before its child, so the walk ends.
    while let Some(p) = at.filter(|&p| p >= l) {
        if p == l {
            return true;
        }
        at = commands.get(p).and_then(|c| c.parent);
    }
    false
}

/// Whether `job` measures the baseline and the change in one run: a
/// command does (`asv continuous`), or one of its programs is run once for
/// each side (reth's `bench-txgen-build.sh baseline ...` and `...
/// feature ...`; [`runs_each_side`]).
fn measures_both_sides_in(job: &Job<'_>) -> bool {
    let commands = || {
        job.steps
            .iter()
            .filter_map(|s| s.script.as_ref())
            .flat_map(|s| s.commands.iter())
    };
    commands().any(measures_both_sides) || runs_each_side(commands())
}

fn head_repo(text: &str) -> bool {
    text.contains("head.repo")
}

/// `git fetch origin`, `ls-remote` or `pull` run inside a checkout of the
/// head repository (a pull request's fork), wherever it lands (`path:`, a
/// container's mount, `cd`; see [`places`]): there `origin` is the fork.
/// Or from a URL built from `head.repo`.
fn fork_remote(job: &Job<'_>, hits: &mut Vec<Hit>) {
    let inside = places::inside_head(job, head_repo);
    for (step, inside) in job.steps.iter().zip(&inside) {
        let Some(script) = &step.script else {
            continue;
        };
        for (c, in_head) in script.commands.iter().zip(inside) {
            if !(c.git("fetch") || c.git("ls-remote") || c.git("pull")) {
                continue;
            }
            let args = positionals(c);
            let from_origin =
                args.first() == Some(&"origin") || (args.is_empty() && c.has("--tags"));
            // The head's own commit fetched from its URL (`git fetch
            // "https://github.com/${pr_head_repo}.git" "${pr_head_sha}"`,
            // SpacetimeDB's merge-queue check), or its own branch (`git
            // fetch https://github.com/${PR_HEAD_REPO} ${PR_HEAD_REF}:refs/
            // remotes/contrib/head`, opendal's mirror of a contributor's
            // pull request), is the code under test, as a clone of the head
            // repository is: no baseline comes from it.
            let head_commit = args.len() > 1
                && args.iter().skip(1).all(|a| {
                    let source = a.trim_start_matches('+').split(':').next().unwrap_or("");
                    source.contains("head.sha") || source.contains("head.ref")
                });
            let from_head_url = args.first().is_some_and(|a| head_repo(a)) && !head_commit;
            if (*in_head && from_origin) || from_head_url {
                hits.push(hit("fork-remote", script.pos(c), job, Some(step)));
            }
        }
    }
}

/// A revision counted back from a ref by a variable: `main~$i`,
/// `HEAD~${n}`, `main~$((i+1))`, `main~{0..7}`, `main^$i` (the `~` or `^`
/// right after a ref's character, not `"^$name"` of a grep pattern). The
/// `$` must start an expansion: in `/^$/`, awk's or sed's empty line
/// (also inside a variable that holds such a program), it is a regular
/// expression's end of line, not a count (read on VectorChord's licence
/// check).
fn relative_ref(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.windows(3).enumerate().any(|(at, w)| match w {
        // `^{` is `rev^{commit}`, a peel, not a count.
        [_, b'^', b'{'] => false,
        [before, b'~' | b'^', next @ (b'$' | b'{')] => {
            let expands = *next == b'{'
                || bytes
                    .get(at.saturating_add(3))
                    .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'{' | b'('));
            expands
                && (before.is_ascii_alphanumeric()
                    || matches!(before, b'_' | b'}' | b')' | b'/' | b'-' | b'.'))
        }
        _ => false,
    })
}

/// Programs whose arguments are patterns or text programs (`grep
/// "^$v"`, `sed "s/^$x//"`, `awk '/^$/'`): a `^` or `~` there is regular
/// expression syntax, never a revision.
const PATTERN_PROGRAMS: &[&str] = &[
    "grep", "egrep", "fgrep", "rg", "sed", "awk", "gawk", "mawk", "perl", "jq",
];

/// A listing of commits (`git rev-list`, `git log`) that a loop could
/// walk back through, not the commits of a range: a range with two sides
/// (`origin/master..HEAD`, `"$BASE_SHA".."$HEAD_SHA"`, `base...`, up to
/// the change; `"${last_tag}..${current_tag}"`, a release's) lists the
/// commits one change or one release adds, each checked or commented on in
/// turn (MNN's commit-message check, redb's trailer check, OLMo-core's
/// release comments), never older commits tried as baselines. A side
/// counted back (`HEAD~8..HEAD`) is still a walk.
fn rev_list(text: &str) -> bool {
    let listing = ["git rev-list", "git log"].iter().any(|p| {
        text.match_indices(p)
            .take(MAX_RANGES_READ)
            .any(|(at, _)| !one_commit(text.get(at..).unwrap_or("")))
    });
    listing && !lists_a_range(text)
}

/// Whether the listing that `text` begins with gives one commit (`git log
/// -1 --format='%H'`, `-n 1`, `--max-count=1`): the newest, no walk back
/// (opea's `merged_commit=$(git log -1 ...)`, whose name then stands in
/// a `git diff --name-only` of changed files a loop goes over).
fn one_commit(text: &str) -> bool {
    // Its options stand near it: at most [`RANGE_SIDE_LIMIT`] bytes are
    // read, however long the stranger's word.
    let (_, near) = around(text, 0);
    let command = near.split([')', '|', ';', '\n']).next().unwrap_or("");
    let words: Vec<&str> = command.split_whitespace().take(16).collect();
    words
        .iter()
        .any(|w| ["-1", "-n1", "--max-count=1"].contains(w))
        || words.windows(2).any(|p| p == ["-n", "1"])
}

/// At most this many `..` of one word are read as ranges, each side at
/// most [`RANGE_SIDE_LIMIT`] bytes from it: the word is a stranger's, and
/// read whole around every `..`, a 4 MiB `~a..a..a...` takes 10^12 steps.
/// A real listing names one range, of two short revisions.
const MAX_RANGES_READ: usize = 64;
/// The longest side of a range read (`"$(git merge-base origin/main
/// HEAD)"` is 36 bytes); a longer one is read as its nearest bytes.
const RANGE_SIDE_LIMIT: usize = 256;

fn lists_a_range(text: &str) -> bool {
    let quote = |c: char| matches!(c, '"' | '\'');
    text.match_indices("..")
        .take(MAX_RANGES_READ)
        .any(|(at, _)| {
            let (before, after) = around(text, at);
            let after = after.trim_start_matches('.');
            let from = side(before.chars().rev(), [')', '}'], ['(', '{']);
            let from = before
                .get(before.len().saturating_sub(from)..)
                .unwrap_or("");
            let to = after
                .get(..side(after.chars(), ['(', '{'], [')', '}']))
                .unwrap_or("");
            let (from, to) = (from.trim_matches(quote), to.trim_matches(quote));
            let plain = |s: &str| !s.ends_with('.') && !s.contains(['~', '^']);
            !from.is_empty() && plain(from) && plain(to)
        })
}

/// The at most [`RANGE_SIDE_LIMIT`] bytes of `text` before byte `at`, and
/// those from it on, each cut at a character's boundary.
fn around(text: &str, at: usize) -> (&str, &str) {
    let mut start = at.saturating_sub(RANGE_SIDE_LIMIT);
    while !text.is_char_boundary(start) {
        start = start.saturating_add(1);
    }
    let mut end = at.saturating_add(RANGE_SIDE_LIMIT).min(text.len());
    while !text.is_char_boundary(end) {
        end = end.saturating_sub(1);
    }
    (
        text.get(start..at).unwrap_or(""),
        text.get(at..end).unwrap_or(""),
    )
}

/// The length in bytes of one side of a range read from `..` outwards:
/// up to a space or `=` outside any `$(...)` or `${...}` (a variable
/// expanded into its command keeps its spaces), or to the bracket that
/// encloses the range itself. Read backwards, `)` opens and `(` closes.
fn side(chars: impl Iterator<Item = char>, opens: [char; 2], closes: [char; 2]) -> usize {
    let (mut depth, mut taken) = (0usize, 0usize);
    for c in chars {
        if opens.contains(&c) {
            depth = depth.saturating_add(1);
        } else if closes.contains(&c) {
            match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => break,
            }
        } else if depth == 0 && (c.is_whitespace() || c == '=') {
            break;
        }
        taken = taken.saturating_add(c.len_utf8());
    }
    taken
}

/// A loop over older commits: `main~$i` in a loop, `main~{0..7}`, a loop
/// over `git rev-list` / `git log` output.
fn walks(commands: &[Command], i: usize) -> Option<usize> {
    let c = commands.get(i)?;
    let relative = |t: &str| relative_ref(t);
    // A pattern's `^` is a regular expression's; a message's is text:
    // `echo "Running with 2^$npow points"` (Expander's sizes loop).
    let patterns = c.name().is_some_and(|n| {
        PATTERN_PROGRAMS.contains(&file_name(n)) || ["echo", "printf"].contains(&file_name(n))
    });
    let in_loop = c.loops > 0 && !patterns && c.words.iter().skip(1).any(|w| relative(&w.text));
    let over_rev_list = c.name() == Some("for")
        && c.words.iter().any(|w| rev_list(&w.text))
        && !super::loops::reads_only(commands, i);
    if in_loop || over_rev_list {
        return Some(c.at());
    }
    if c.keywords.iter().any(|k| k == "done")
        && c.words
            .iter()
            .any(|w| w.text.starts_with("<(") && rev_list(&w.text))
    {
        return Some(c.start);
    }
    let feeds_loop = commands
        .get(i.saturating_add(1))
        .is_some_and(|n| n.before == Sep::Pipe && n.keywords.iter().any(|k| k == "while"));
    (feeds_loop && (c.git("rev-list") || c.git("log"))).then(|| c.at())
}

fn version_sorts_tags(commands: &[Command], i: usize) -> bool {
    let Some(c) = commands.get(i) else {
        return false;
    };
    if c.name() == Some("git")
        && c.words.iter().any(|w| {
            w.text.starts_with("--sort")
                && (w.text.contains("v:refname") || w.text.contains("version:refname"))
        })
    {
        return true;
    }
    let version_sort = c.name() == Some("sort")
        && c.words.iter().skip(1).any(|w| {
            w.text == "--version-sort"
                || (w.text.starts_with('-') && !w.text.starts_with("--") && w.text.contains('V'))
        });
    if !version_sort {
        return false;
    }
    // Earlier commands of the same pipeline list tags.
    let mut j = i;
    while commands.get(j).is_some_and(|c| c.before == Sep::Pipe) && j > 0 {
        j = j.saturating_sub(1);
        if commands.get(j).is_some_and(|p| {
            p.git("tag") || p.git("ls-remote") || p.git("for-each-ref") || p.git("describe")
        }) {
            return true;
        }
    }
    false
}

/// Whether a clone's URL names the repository the workflow runs in: its
/// name from the event, or the checkout's own remote (db-benchmark's
/// `git clone $(git remote get-url origin) $MOUNT_POINT/db-benchmark-metal`
/// copies itself onto a faster disk).
fn own_repository(url: &str) -> bool {
    [
        "github.repository",
        "GITHUB_REPOSITORY",
        "head.repo",
        "base.repo",
        "event.repository",
        "remote get-url origin",
        "remote.origin.url",
    ]
    .iter()
    .any(|m| url.contains(m))
}

/// Whether a repository's name says it keeps reports or results
/// (`nod-ai/amdshark-ai-reports`, `x/benchmark-results`): where a project
/// stores what it measured, read to publish beside or to find the day's
/// lists, not code that is measured (read on shark-ai's conv timing job,
/// which checks out its reports repository at `main`).
fn results_store(url: &str) -> bool {
    let name = url
        .trim_end_matches('/')
        .rsplit(['/', ':'])
        .next()
        .unwrap_or(url);
    let name = name.strip_suffix(".git").unwrap_or(name);
    crate::lint::names::words(name)
        .any(|w| ["report", "reports", "result", "results"].contains(&w.as_str()))
}

/// Each directory (its last segment) a step of `job` runs `git push` in,
/// to the last step that does: read from each step's start.
fn last_push_per_directory(job: &Job<'_>) -> FxHashMap<String, usize> {
    let mut last = FxHashMap::default();
    for (position, step) in job.steps.iter().enumerate() {
        if let Some(script) = &step.script {
            for dir in Later::of(&script.commands).pushed_dirs() {
                last.insert(dir.to_owned(), position);
            }
        }
    }
    last
}

/// Whether a later step of the job runs `git push` in the directory the
/// clone at command `i` makes (`pushes`: [`last_push_per_directory`]): a
/// results repository the job publishes to, not a dependency.
fn pushed_by_a_later_step(
    pushes: &FxHashMap<String, usize>,
    position: usize,
    commands: &[Command],
    i: usize,
) -> bool {
    commands
        .get(i)
        .filter(|c| c.git("clone"))
        .and_then(clone_dir)
        .and_then(|dir| pushes.get(&last_segment(dir)))
        .is_some_and(|&at| at > position)
}

/// `git clone` of another project with no commit checked out after it, at
/// a branch; `pip install git+URL` without `@<sha>`.
fn unpinned(commands: &[Command], later: &OnceCell<Later>, i: usize) -> bool {
    let Some(c) = commands.get(i) else {
        return false;
    };
    if c.git("clone") {
        let Some(url) = positionals(c).first().copied() else {
            return false;
        };
        if own_repository(url) || results_store(url) {
            return false;
        }
        let branch = c.after("--branch").or_else(|| c.after("-b"));
        if branch.is_some_and(pinned_ref) {
            return false;
        }
        let Some(dir) = clone_dir(c) else {
            return false;
        };
        // A clone that is pushed to (a docs or gh-pages repository) is a
        // target, not a dependency. A commit checked out on one path and
        // the branch pulled on another (delta-rs-benchmarking's
        // `prepare_delta_rs.sh`: `DELTA_RS_REF` when set, else
        // `git pull origin main`) still measures main's tip.
        let later = later.get_or_init(|| Later::of(commands));
        return (!later.after(i, dir, Act::Pin) || later.after(i, dir, Act::Pull))
            && !later.after(i, dir, Act::Push);
    }
    let pip = c.has("install")
        && c.words.iter().take(4).any(|w| {
            let t = file_name(&w.text);
            t == "pip" || t == "pip3"
        });
    pip && c.words.iter().any(|w| match w.text.find("git+") {
        Some(at) => {
            let url = w.text.get(at..).unwrap_or("");
            let url = url.split('#').next().unwrap_or(url);
            // The ref follows the last `@` past the host (an ssh user's
            // `git@` comes before it).
            let path = url.splitn(4, '/').nth(3).unwrap_or("");
            match path.rsplit_once('@') {
                Some((_, r)) => !pinned_ref(r),
                None => true,
            }
        }
        None => false,
    })
}

/// `actions/checkout` of another repository at a branch or its default
/// tip.
fn checkout_dependency(job: &Job<'_>, step: &Step<'_>, known: Option<&str>, hits: &mut Vec<Hit>) {
    if step.action().as_deref() != Some("actions/checkout") {
        return;
    }
    let Some(repo) = step.with("repository").and_then(Node::scalar) else {
        return;
    };
    // `${{ env.X }}` read as X's value; any other expression is not told,
    // unless it is checked out at a branch written out: another project
    // (`repository: ${{ secrets.MODEL_REPO }}` with `ref: ci`, hidet's
    // models) at a moving branch, whatever its name.
    let name = step.with_text("repository").unwrap_or_default();
    // The ref read through `env:` too (`ref: ${{ env.HARNESS_REF }}`).
    let written = step.with_text("ref");
    let branch = written.as_deref().is_some_and(|r| !pinned_ref(r));
    let expression = name.contains("${{");
    // The repository itself named (`--repository`) is its own code, not
    // another project's: with no `ref:` at the event's commit, as
    // actions/checkout documents (SHARK-TestSuite's `repository:
    // nod-ai/SHARK-TestSuite`), or at its own branch as the workspace's
    // checkout, no `path:` (uxarray's `repository: UXARRAY/uxarray` with
    // `ref: main`, in a job run on pushes to main). Its branch checked
    // out beside the workspace (wasmtime's baseline at `ref: main`,
    // `path: baseline`) still moves.
    let itself = known.is_some_and(|own| own.eq_ignore_ascii_case(name.trim()))
        && (step.with("ref").is_none() || step.with("path").is_none());
    // A store named by its variable (`${{ env.PERF_RESULTS_REPO }}`,
    // slang's `shader-slang/slang-compile-perf`) says what it keeps there.
    let store = results_store(&name) || (repo.text.contains("${{") && results_store(&repo.text));
    // An empty name (`repository: ${{ env.JAX_REPO }}` with `JAX_REPO:
    // ''`, rocm-jax's switched-off jaxlib build) takes actions/checkout's
    // default, the workflow's own repository.
    let default = name.trim().is_empty();
    if itself || default || own_repository(&name) || store || (expression && !branch) {
        return;
    }
    match step.with("ref") {
        // Found at the repository, the question its reader must answer:
        // which project that expression names.
        Some(_) if expression => hits.push(hit("unpinned-clone", repo.at, job, Some(step))),
        Some(_) if written.as_deref().is_none_or(pinned_ref) => {}
        Some(r) => hits.push(hit("unpinned-clone", r.at, job, Some(step))),
        None => hits.push(hit("unpinned-clone", repo.at, job, Some(step))),
    }
}

/// A depth-1 history, then `git merge-base` with nothing fetched between.
fn shallow_merge_base(job: &Job<'_>, hits: &mut Vec<Hit>) {
    let mut shallow = false;
    for step in &job.steps {
        if step.action().as_deref() == Some("actions/checkout") && step.with("path").is_none() {
            shallow = step
                .with("fetch-depth")
                .and_then(Node::str)
                .is_none_or(|d| d.trim() == "1");
        }
        let Some(script) = &step.script else {
            continue;
        };
        shallow = merge_base_in(script, shallow, &mut |c| {
            hits.push(hit("shallow-merge-base", script.pos(c), job, Some(step)));
        });
    }
}

fn merge_base_in(script: &Script<'_>, mut shallow: bool, report: &mut dyn FnMut(&Command)) -> bool {
    for c in &script.commands {
        if c.git("fetch") {
            let depth_one = c.after("--depth") == Some("1") || c.has("--depth=1");
            shallow = depth_one;
        } else if c.git("merge-base") && shallow {
            report(c);
        }
    }
    shallow
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_first_64_ranges_of_a_listing_are_read() {
        assert!(lists_a_range("git log origin/main..HEAD"));
        let counted_back = "HEAD~1..".repeat(MAX_RANGES_READ);
        assert!(!lists_a_range(&format!("git log {counted_back}main..HEAD")));
        let long_side = format!("git log ~{}..HEAD", "a".repeat(RANGE_SIDE_LIMIT));
        assert!(
            lists_a_range(&long_side),
            "a side is read as its nearest 256 bytes"
        );
    }
}
