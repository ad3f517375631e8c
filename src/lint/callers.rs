//! Who calls a reusable workflow of the same repository: a file with
//! `on: workflow_call` runs when its callers' events do, so its
//! `concurrency:` group is met by their runs. XNNPACK's `build.yml` has
//! only `workflow_call` and a cancelling group of `head_ref || ref`; its
//! caller `on-pr-merge-to-master.yml` calls it on every push to master,
//! so consecutive pushes cancel each other's builds on 8- and 16-core
//! runners (issue 49, sixth held-out set). Read among the files linted,
//! one call deep: each caller's `on:` is kept, at most [`MAX_CALLERS`]
//! per called file, each caller a file lint reads anyway (its size bound).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::calls::{local_file, workflows_dir};
use super::yaml::{Node, Scalar, Style, Value};

/// The called file's path (as a caller beside it names it) to its
/// callers' triggers, each a mapping of the caller's `on:` alone.
pub type Callers = BTreeMap<PathBuf, Vec<Node>>;

/// At most this many callers' triggers are kept for one called workflow.
pub const MAX_CALLERS: usize = 16;

/// The file at `path`, added to `out` as a caller of each workflow of
/// its own repository it calls (`uses: ./.github/workflows/x.yml`).
pub fn add(path: &Path, root: &Node, out: &mut Callers) {
    let Some(on) = root.get("on") else {
        return;
    };
    for name in called(root) {
        let callers = out.entry(workflows_dir(path).join(name)).or_default();
        if callers.len() < MAX_CALLERS {
            callers.push(triggers(on));
        }
    }
}

/// The local workflows a file's jobs call, each once.
fn called(root: &Node) -> std::collections::BTreeSet<&str> {
    root.get("jobs")
        .map(Node::entries)
        .unwrap_or_default()
        .iter()
        .filter_map(|(_, job)| job.get("uses").and_then(Node::str).and_then(local_file))
        .collect()
}

/// A workflow of `on:` alone, what [`super::workflow::triggers_only`]
/// reads.
fn triggers(on: &Node) -> Node {
    let key = Scalar::new("on".to_owned(), Style::Plain, on.at);
    Node {
        at: on.at,
        value: Value::Map(vec![(key, on.clone())]),
    }
}

/// The triggers of the callers of the workflow at `path`.
pub fn of<'c>(callers: &'c Callers, path: &Path) -> &'c [Node] {
    callers.get(path).map(Vec::as_slice).unwrap_or_default()
}
