//! `cache-discipline`: caches a pull request saves under a key of its
//! own (the default branch's copy is then never the one restored), and
//! keys that hash the workflow file (every edit of it throws the cache
//! away).

use super::group::{Event, never};
use super::hit;
use crate::lint::finding::Hit;
use crate::lint::workflow::{Job, Step, Workflow};
use crate::lint::yaml::Node;

/// `cache-discipline`: a key hashing the workflow file (`hashed`: in any
/// job of a workflow that runs benchmarks or holds expensive runners), and
/// a key per run or pull request saved from pull requests (`holds`: in a
/// job that runs benchmarks or holds an expensive runner).
pub fn check(w: &Workflow<'_>, job: &Job<'_>, holds: bool, hits: &mut Vec<Hit>) {
    let job_guarded = job.text("if").is_some_and(keeps_pull_requests_out);
    for step in &job.steps {
        let guarded = job_guarded || step.text("if").is_some_and(keeps_pull_requests_out);
        // The repository's own action that saves a cache saves it here.
        let in_action = step.cache_saves.iter().find_map(|k| per_pull_key(k));
        if let Some(whose) = in_action
            && holds
            && w.pull_requests_run()
            && !guarded
            && let Some(uses) = step.node.get("uses").and_then(Node::scalar)
        {
            hits.push(saved_per_pull(whose, uses.at, job, step));
        }
        let Some(action) = step.action() else {
            continue;
        };
        // A cache step switched off by the workflow's own `env:` never
        // saves.
        if !action.starts_with("actions/cache")
            || step.text("if").is_some_and(|c| step.env.rules_out(c))
        {
            continue;
        }
        if let Some(key) = step.with("key").and_then(Node::scalar)
            && key.text.contains("hashFiles(")
            && let Some(at) = key.text.find(".github/workflows")
            && !(action == "actions/cache/restore" && saved_under(job, &key.text))
        {
            let mut h = hit("cache-discipline", key.pos_of(at), job, Some(step));
            h.detail = Some(
                "the cache key hashes the workflow file: every workflow edit throws the cache away"
                    .to_owned(),
            );
            hits.push(h);
        }
        let saves = action == "actions/cache" || action == "actions/cache/save";
        let whose = step.with_text("key").and_then(|k| per_pull_key(&k));
        if saves
            && holds
            && w.pull_requests_run()
            && !guarded
            && let Some(whose) = whose
            && let Some(uses) = step.node.get("uses").and_then(Node::scalar)
        {
            hits.push(saved_per_pull(whose, uses.at, job, step));
        }
    }
}

/// Who saves a cache of its own under `key`, when someone does: a stable
/// key that the default branch saved is only restored by a pull request
/// (actions/cache saves on a miss); only a key that differs per pull
/// request or run, or hashes the sources a pull request changes, makes
/// each one save its own.
fn per_pull_key(key: &str) -> Option<&'static str> {
    let per_run = [
        "github.sha",
        "run_id",
        "run_number",
        "head_ref",
        "github.ref",
        "pull_request",
        "event.number",
    ]
    .iter()
    .any(|v| key.contains(v));
    if per_run || reads_a_clock(key) {
        Some("every pull request")
    } else {
        hashes_sources(key)
            .then_some("the key hashes the sources: every pull request that changes them")
    }
}

/// Whether an `if:` limits a step to events that are no pull request's:
/// `github.event_name == 'push'` (any event but a pull request's),
/// `github.event_name != 'pull_request'`, `github.ref == 'refs/heads/main'`,
/// `startsWith(github.ref, 'refs/tags/')`. One that names the event only
/// to leave out another (openvdb's `github.event_name != 'workflow_dispatch'
/// || ...`), or keeps pull requests in (`== 'pull_request'`), limits
/// nothing a pull request runs, and so does one that names a pull
/// request's event as one it runs on (`github.event_name == 'push' ||
/// (github.event_name == 'pull_request' && !draft)`). Read by its
/// structure: an `||` keeps them out only when each of its sides does
/// (`github.event_name == 'schedule' || contains(labels, 'x')` lets a
/// labelled pull request in: bionemo's notebook job, `changed &&
/// (schedule || merge_group || a label)`), an `&&` when one of its sides
/// does. A comparison that reads only what the event decides is evaluated
/// for a pull request's run; one that also reads an input or a variable
/// is read by its comparisons, as a guard when it compares the event with
/// another.
fn keeps_pull_requests_out(cond: &str) -> bool {
    let inner = cond.trim();
    let inner = inner
        .strip_prefix("${{")
        .and_then(|r| r.strip_suffix("}}"))
        .unwrap_or(inner);
    keeps_out(inner, 0)
}

/// How deep [`keeps_out`] follows parentheses: an `if:` is a line or two,
/// and a stranger's thousand nested parentheses must not spend the stack.
const MAX_DEPTH: usize = 32;

fn keeps_out(expr: &str, depth: usize) -> bool {
    const PULL: Event<'static> = Event {
        name: "pull_request",
        action: "",
        default: None,
    };
    let expr = expr.trim();
    if depth < MAX_DEPTH {
        let either = split_top(expr, "||");
        if either.len() > 1 {
            return either
                .iter()
                .all(|side| keeps_out(side, depth.saturating_add(1)));
        }
        let both = split_top(expr, "&&");
        if both.len() > 1 {
            return both
                .iter()
                .any(|side| keeps_out(side, depth.saturating_add(1)));
        }
        if let Some(inside) = expr.strip_prefix('(').and_then(|r| r.strip_suffix(')'))
            && balanced(inside)
        {
            return keeps_out(inside, depth.saturating_add(1));
        }
    }
    never(expr, PULL) || compares_out(expr)
}

/// The sides of `expr`'s outermost `op` (`||` or `&&`), outside quotes and
/// parentheses; `expr` alone when it has none there.
fn split_top<'e>(expr: &'e str, op: &str) -> Vec<&'e str> {
    let mut sides = Vec::new();
    let (mut depth, mut quoted, mut start) = (0usize, false, 0usize);
    for (i, c) in expr.char_indices() {
        match c {
            '\'' => quoted = !quoted,
            '(' if !quoted => depth = depth.saturating_add(1),
            ')' if !quoted => depth = depth.saturating_sub(1),
            _ if !quoted
                && depth == 0
                && i >= start
                && expr.get(i..).is_some_and(|r| r.starts_with(op)) =>
            {
                sides.push(expr.get(start..i).unwrap_or("").trim());
                start = i.saturating_add(op.len());
            }
            _ => {}
        }
    }
    sides.push(expr.get(start..).unwrap_or("").trim());
    sides
}

/// Whether every `(` of `text` closes inside it: `(a) && (b)` stripped of
/// its outer pair is not one expression in parentheses.
fn balanced(text: &str) -> bool {
    let mut depth = 0usize;
    let mut quoted = false;
    for b in text.bytes() {
        match b {
            b'\'' => quoted = !quoted,
            b'(' if !quoted => depth = depth.saturating_add(1),
            b')' if !quoted => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return false,
            },
            _ => {}
        }
    }
    depth == 0
}

/// One side of an `if:` read by its comparisons, not evaluated: a
/// comparison of the event that leaves pull requests out, of the ref with
/// a branch or tag, or a `startsWith(github.ref`, and no comparison that
/// keeps a pull request's event in.
fn compares_out(cond: &str) -> bool {
    let c = cond.to_ascii_lowercase().replace('"', "'");
    let compared = |subject: &str| -> Vec<(bool, String)> {
        c.split(subject)
            .skip(1)
            .filter_map(|rest| {
                let rest = rest.trim_start();
                let (equal, rest) = match rest.strip_prefix("==") {
                    Some(r) => (true, r),
                    None => (false, rest.strip_prefix("!=")?),
                };
                let value = rest.trim_start().strip_prefix('\'')?;
                Some((equal, value.split('\'').next()?.to_owned()))
            })
            .collect()
    };
    let pull = |v: &str| v.starts_with("pull_request");
    let events = compared("event_name");
    if events.iter().any(|(equal, v)| *equal && pull(v)) {
        return false;
    }
    events.iter().any(|(equal, v)| *equal != pull(v))
        || compared("github.ref")
            .iter()
            .chain(compared("github.ref_name").iter())
            .any(|(equal, _)| *equal)
        || c.contains("startswith(github.ref")
}

/// Whether a key reads a step's output named for the time of the run
/// (`${{ steps.timestamp.outputs.timestamp }}`, `steps.t.outputs.build-time`,
/// `epoch`; a word of the name, so `runtime-version` is none): a new key
/// every run, as `run_id` is. openvdb's ccache keys
/// end in one, written by `date -u +%Y-%m-%dT%H:%M:%SZ`. A date alone
/// (`outputs.date`) changes once a day and is not read as per run.
fn reads_a_clock(key: &str) -> bool {
    key.split("outputs.").skip(1).any(|rest| {
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
            .collect::<String>()
            .to_ascii_lowercase();
        name.split(['_', '-'])
            .any(|w| matches!(w, "time" | "timestamp" | "epoch" | "now"))
    })
}

fn saved_per_pull(whose: &str, at: crate::lint::yaml::Pos, job: &Job<'_>, step: &Step<'_>) -> Hit {
    let mut h = hit("cache-discipline", at, job, Some(step));
    h.detail = Some(format!(
        "{whose} saves this cache under its own key: restore only on pull requests (actions/cache/restore), save on the default branch"
    ));
    h
}

/// Source files whose hash in a cache key changes with nearly every pull
/// request (a lockfile's or a manifest's does not).
const SOURCES: &[&str] = &[
    "c", "cc", "cpp", "cxx", "h", "hh", "hpp", "hxx", "cu", "cuh", "rs", "py", "pyx", "go", "java",
    "kt", "scala", "js", "ts", "swift", "m", "mm", "f90", "jl", "zig",
];

/// Whether a cache key hashes a tree of sources (`hashFiles('cpp/**')`,
/// `'src/**/*.rs'`), not a lockfile or manifest (`'**/Cargo.lock'`,
/// `'requirements*.txt'`): the key of a pull request that changes the
/// sources is its own, so it saves its own copy (apache/arrow's CUDA
/// builds' Docker volumes on a GPU machine).
/// The repository's workflows (`.github/**`) are the other finding.
fn hashes_sources(key: &str) -> bool {
    key.match_indices("hashFiles(").any(|(at, call)| {
        let args = key.get(at.saturating_add(call.len())..).unwrap_or("");
        let args = args.split(')').next().unwrap_or("");
        args.split(',').any(|arg| {
            let pattern = arg.trim().trim_matches(['\'', '"']);
            let last = pattern.rsplit('/').next().unwrap_or(pattern);
            let tree = last == "**" || last == "*";
            let ext = last
                .strip_prefix("*.")
                .is_some_and(|e| SOURCES.contains(&e));
            !pattern.starts_with(['!', '.']) && (tree || ext)
        })
    })
}

/// Whether a step of `job` saves a cache under `key` (`actions/cache/save`
/// with the same key text): a restore and a save of one key are one cache,
/// and its key's cost is reported once, at the save (read on
/// onnxruntime-genai's Windows CUDA build).
fn saved_under(job: &Job<'_>, key: &str) -> bool {
    job.steps.iter().any(|s| {
        s.action().as_deref() == Some("actions/cache/save")
            && s.with("key").and_then(Node::str) == Some(key)
    })
}

#[cfg(test)]
mod tests {
    use super::keeps_pull_requests_out as out;

    #[test]
    fn guards_that_leave_pull_requests_out() {
        for c in [
            "github.event_name == 'push'",
            "${{ github.event_name != 'pull_request' }}",
            "github.ref == 'refs/heads/main'",
            "startsWith(github.ref, 'refs/tags/')",
            "github.event_name == 'schedule' || github.event_name == 'merge_group'",
            "github.event_name == 'push' && inputs.save",
            "(github.event_name == 'push' || github.event_name == 'schedule')",
            "github.event_name == 'push' || (github.ref == 'refs/heads/main' && inputs.x)",
            "contains(needs.a.outputs.dirs, 'x') && (github.event_name == 'schedule' || github.event_name == 'merge_group')",
            "!(github.event_name == 'pull_request')",
        ] {
            assert!(out(c), "{c}");
        }
    }

    #[test]
    fn guards_a_pull_request_passes() {
        for c in [
            "github.event_name == 'pull_request'",
            "github.event_name != 'workflow_dispatch' || inputs.cache",
            "github.event_name == 'push' || (github.event_name == 'pull_request' && !github.event.pull_request.draft)",
            // An `||` with a side that lets a labelled pull request in.
            "github.event_name == 'schedule' || github.event_name == 'merge_group' || contains(github.event.pull_request.labels.*.name, 'run-cache')",
            "github.ref == 'refs/heads/main' || inputs.save",
            "contains(needs.a.outputs.dirs, 'x') && ((github.event_name == 'schedule') || contains(fromJSON(needs.a.outputs.labels || '[]'), 'ci:all'))",
            "success()",
            "always()",
        ] {
            assert!(!out(c), "{c}");
        }
    }

    #[test]
    fn deep_parentheses_are_read_to_a_bound() {
        let deep = format!(
            "{}github.event_name == 'push'{}",
            "(".repeat(5_000),
            ")".repeat(5_000)
        );
        // Past the bound the rest is read by its comparisons: still a guard.
        assert!(out(&deep));
        let shallow = format!(
            "{}github.event_name == 'push'{}",
            "(".repeat(8),
            ")".repeat(8)
        );
        assert!(out(&shallow));
    }
}
