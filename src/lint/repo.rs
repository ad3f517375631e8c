//! What lint reads of the repository beyond the file it lints: the
//! workflows another one's `workflow_run` reads, and the `with:` of the
//! calls into each reusable workflow. Reads the files (bounded as the
//! linted ones are); the judgements on them are in [`super::calls`].

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::{FILE_LIMIT, calls, yaml};
use crate::runner::read;

/// The workflow names the files' `workflow_run` triggers name; a file that
/// cannot be read here is said when it is linted.
pub fn consumed(paths: &[PathBuf]) -> Vec<String> {
    let mut names = Vec::new();
    for path in paths {
        let Ok(text) = read::bounded_text("workflow", path, FILE_LIMIT) else {
            continue;
        };
        let Ok(root) = yaml::parse(&text) else {
            continue;
        };
        let runs = root.get("on").and_then(|on| on.get("workflow_run"));
        if let Some(list) = runs.and_then(|r| r.get("workflows")) {
            match list.str() {
                Some(one) => names.push(one.to_owned()),
                None => names.extend(
                    list.items()
                        .iter()
                        .filter_map(|n| n.str().map(str::to_owned)),
                ),
            }
        }
    }
    names
}

/// The calls of the files into reusable workflows of their own
/// repository, by called file: each calling job's `with:`.
pub fn calls_with(paths: &[PathBuf]) -> BTreeMap<PathBuf, Vec<Option<yaml::Node>>> {
    let mut out: BTreeMap<_, Vec<_>> = BTreeMap::new();
    for path in paths {
        let Some(root) = read::bounded_text("workflow", path, FILE_LIMIT)
            .ok()
            .and_then(|text| yaml::parse(&text).ok())
        else {
            continue;
        };
        let jobs = root
            .get("jobs")
            .map(yaml::Node::entries)
            .unwrap_or_default();
        for (_, job) in jobs {
            let Some(name) = job
                .get("uses")
                .and_then(yaml::Node::str)
                .and_then(calls::local_file)
            else {
                continue;
            };
            let called = calls::workflows_dir(path).join(name);
            out.entry(called)
                .or_default()
                .push(job.get("with").cloned());
        }
    }
    out
}
