//! Who calls a reusable workflow of the same repository: a file with
//! `on: workflow_call` runs when its callers' events do, so its
//! `concurrency:` group is met by their runs. XNNPACK's `build.yml` has
//! only `workflow_call` and a cancelling group of `head_ref || ref`; its
//! caller `on-pr-merge-to-master.yml` calls it on every push to master,
//! so consecutive pushes cancel each other's builds on 8- and 16-core
//! runners. Read among the files linted:
//! each caller's `on:` is kept, at most [`MAX_CALLERS`] per called file,
//! each caller a file lint reads anyway (its size bound); a caller that
//! is called in turn brings its own callers' triggers, up to
//! [`MAX_CALLER_DEPTH`] calls up (Torch-TensorRT's `linux-test.yml` is
//! called by `_test-linux.yml`, which the push workflows call).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::calls::{local_file, workflows_dir};
use super::rules::group::{Event, never};
use super::yaml::{Node, Scalar, Style, Value};

/// The called file's path (as a caller beside it names it) to its
/// callers' triggers, each a mapping of the caller's `on:` alone, with the
/// path of the file whose `on:` it is and how many calls up it stands (1:
/// it calls the file itself). The direct callers come first.
pub type Callers = BTreeMap<PathBuf, Vec<(PathBuf, Node, usize)>>;

/// At most this many callers' triggers are kept for one called workflow.
pub const MAX_CALLERS: usize = 16;

/// Callers of callers are followed at most this many calls up from the
/// called file (as calls are followed down: `calls::MAX_CALL_DEPTH`).
pub const MAX_CALLER_DEPTH: usize = 4;

/// The file at `path`, added to `out` as a caller of each workflow of
/// its own repository it calls (`uses: ./.github/workflows/x.yml`).
pub fn add(path: &Path, root: &Node, out: &mut Callers) {
    let Some(on) = root.get("on") else {
        return;
    };
    for (name, condition) in called(root) {
        let callers = out.entry(workflows_dir(path).join(name)).or_default();
        if callers.len() < MAX_CALLERS {
            callers.push((path.to_path_buf(), triggers(on, condition), 1));
        }
    }
}

/// Adds to each called file the triggers of its callers' callers, and so
/// on up to [`MAX_CALLER_DEPTH`] calls up, each file's triggers once, at
/// most [`MAX_CALLERS`] per called file: a reusable workflow runs when
/// the workflow that calls its caller does.
pub fn deepen(callers: &mut Callers) {
    for _ in 1..MAX_CALLER_DEPTH {
        let before = callers.clone();
        let mut grew = false;
        for (called, list) in callers.iter_mut() {
            let known: Vec<(PathBuf, usize)> =
                list.iter().map(|(p, _, d)| (p.clone(), *d)).collect();
            for (caller, depth) in known.iter().filter(|(c, _)| c != called) {
                let theirs = before.get(caller).map(Vec::as_slice).unwrap_or_default();
                for (origin, on, up) in theirs {
                    let seen = origin == called || list.iter().any(|(p, _, _)| p == origin);
                    let far = depth.saturating_add(*up);
                    if !seen && far <= MAX_CALLER_DEPTH && list.len() < MAX_CALLERS {
                        list.push((origin.clone(), on.clone(), far));
                        grew = true;
                    }
                }
            }
        }
        if !grew {
            break;
        }
    }
}

/// The local workflows a file's jobs call, each once, with the calling
/// job's `if:` when it has one (the first job's, when several call it).
fn called(root: &Node) -> BTreeMap<&str, Option<&str>> {
    let mut out = BTreeMap::new();
    for (_, job) in root.get("jobs").map(Node::entries).unwrap_or_default() {
        if let Some(name) = job.get("uses").and_then(Node::str).and_then(local_file) {
            out.entry(name)
                .or_insert_with(|| job.get("if").and_then(Node::str));
        }
    }
    out
}

/// A workflow of `on:` alone, what [`super::workflow::triggers_only`]
/// reads; without `push` when the calling job's `if:` never holds for a
/// push to the default branch (faiss's GPU wheels, called on pushes of
/// release tags and on pull requests only): main's pushes never reach
/// the called file then.
fn triggers(on: &Node, condition: Option<&str>) -> Node {
    let push = Event {
        name: "push",
        action: "",
        default: None,
    };
    let kept = |value: Value| Node { at: on.at, value };
    let on = match (&on.value, condition) {
        (_, Some(c)) if !never(c, push) => on.clone(),
        (Value::Map(entries), Some(_)) => kept(Value::Map(
            entries
                .iter()
                .filter(|(k, _)| k.text != "push")
                .cloned()
                .collect(),
        )),
        (Value::Seq(items), Some(_)) => kept(Value::Seq(
            items
                .iter()
                .filter(|n| n.str() != Some("push"))
                .cloned()
                .collect(),
        )),
        (Value::Scalar(one), Some(_)) if one.text == "push" => kept(Value::Map(Vec::new())),
        _ => on.clone(),
    };
    let key = Scalar::new("on".to_owned(), Style::Plain, on.at);
    Node {
        at: on.at,
        value: Value::Map(vec![(key, on)]),
    }
}

/// The triggers of the callers of the workflow at `path`, each with
/// whether it calls that workflow itself (the direct ones first).
pub fn of<'c>(callers: &'c Callers, path: &Path) -> impl Iterator<Item = (&'c Node, bool)> {
    callers
        .get(path)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|(_, on, depth)| (on, *depth == 1))
}
