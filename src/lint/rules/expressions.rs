//! Rules on what stands for a commit: `moving-fallback` (a commit that
//! falls back to a branch name, in a `${{ }}` expression or a shell
//! `${SHA:-main}` or `${SHA:=main}` default) and `unchecked-before` (`github.event.before`
//! used with neither its new-branch zeros nor a force-push handled, in a
//! job that runs benchmarks).

use super::{hit, hit_at, is_sha};
use crate::lint::evidence::Benchmarks;
use crate::lint::finding::Hit;
use crate::lint::workflow::{Job, Workflow};
use crate::lint::yaml::{Node, Scalar, Value};

pub fn check(w: &Workflow<'_>, bench: &Benchmarks, hits: &mut Vec<Hit>) {
    // The workflow's own `env:` (a `BASE_COMMIT_SHA: ${{ ... ||
    // github.event.before || 'main' }}` often stands there, not in a job).
    let mut top = Vec::new();
    if let Some(env) = w.root.get("env") {
        keyed(env, "env", &mut top);
    }
    for (key, s) in top.iter().filter(|_| bench.any) {
        for at in fallbacks(key, s) {
            hits.push(hit_at("moving-fallback", s.pos_of(at)));
        }
    }
    if w.on("push")
        && bench.any
        && let Some(first) = first_before(&top)
        && !handled(w, &[])
    {
        hits.push(hit_at("unchecked-before", first.pos_of(before_at(first))));
    }
    for (index, job) in w.jobs.iter().enumerate() {
        // A fallback costs a benchmark its baseline; elsewhere (a linter's
        // diff base) it is that tool's choice.
        if !bench.job(index) {
            continue;
        }
        let mut scalars = Vec::new();
        keyed(job.node, "", &mut scalars);
        for (key, s) in &scalars {
            for at in fallbacks(key, s) {
                hits.push(hit("moving-fallback", s.pos_of(at), job, step_of(job, s)));
            }
        }
        if w.on("push") {
            unchecked_before(w, job, &scalars, hits);
        }
        for step in &job.steps {
            if let Some(script) = &step.script {
                for c in &script.commands {
                    for word in &c.words {
                        if shell_default(&word.text) {
                            let at = script
                                .scalar
                                .text
                                .get(word.at..)
                                .and_then(|r| r.find("${"))
                                .map_or(word.at, |p| word.at.saturating_add(p));
                            hits.push(hit(
                                "moving-fallback",
                                script.scalar.pos_of(at),
                                job,
                                Some(step),
                            ));
                        }
                    }
                }
            }
        }
    }
}

/// Every scalar below `node` with the key that holds it.
fn keyed<'a>(node: &'a Node, key: &'a str, out: &mut Vec<(&'a str, &'a Scalar)>) {
    match &node.value {
        Value::Scalar(s) => out.push((key, s)),
        Value::Seq(items) => items.iter().for_each(|n| keyed(n, key, out)),
        Value::Map(entries) => entries.iter().for_each(|(k, n)| keyed(n, &k.text, out)),
    }
}

fn step_of<'a>(job: &'a Job<'a>, s: &Scalar) -> Option<&'a crate::lint::workflow::Step<'a>> {
    job.steps.iter().rev().find(|st| st.node.at <= s.at)
}

/// The expressions in a value: `${{ ... }}` spans, or all of an `if:`.
fn expressions(key: &str, text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut from = 0;
    while let Some(open) = text.get(from..).and_then(|r| r.find("${{")) {
        let start = from.saturating_add(open).saturating_add(3);
        let end = text
            .get(start..)
            .and_then(|r| r.find("}}"))
            .map_or(text.len(), |p| start.saturating_add(p));
        spans.push((start, end));
        from = end;
    }
    if spans.is_empty() && key == "if" {
        spans.push((0, text.len()));
    }
    spans
}

fn commit_like(operand: &str) -> bool {
    let o = operand.trim().to_lowercase();
    o.ends_with(".sha")
        || o.ends_with(".before")
        || o.ends_with(".after")
        || o.ends_with("head_commit.id")
        || ([
            "inputs.",
            "github.event.inputs.",
            "env.",
            "steps.",
            "needs.",
        ]
        .iter()
        .any(|p| o.starts_with(p))
            && (o.contains("sha") || o.contains("commit")))
}

fn branch_like(operand: &str) -> bool {
    let o = operand.trim();
    // An input (`inputs.base_ref`) is what the dispatcher or caller chose,
    // a SHA as well as a branch: a choice, not a fallback.
    if o.starts_with("inputs.") || o.starts_with("github.event.inputs.") {
        return false;
    }
    if let Some(lit) = o
        .strip_prefix('\'')
        .and_then(|r| r.strip_suffix('\''))
        .or_else(|| o.strip_prefix('"').and_then(|r| r.strip_suffix('"')))
    {
        // A count or a switch names no branch: valkey's `inputs.max_commits
        // || '1'`, `inputs.commits || 'false'`.
        let setting = lit.bytes().all(|b| b.is_ascii_digit()) || ["true", "false"].contains(&lit);
        return !lit.is_empty() && !is_sha(lit) && !lit.contains("://") && !setting;
    }
    // The run's own ref (`github.ref`, `github.ref_name`) names the branch
    // whose push or schedule started it: ATOM's `inputs.atom_commit ||
    // github.ref` checks out what the run was started on, not another
    // branch's tip, as `|| github.event.repository.default_branch` or a
    // pull request's `base.ref` would.
    if ["github.ref", "github.ref_name"].contains(&o) {
        return false;
    }
    ["default_branch", "ref_name", "base_ref", "head_ref"]
        .iter()
        .any(|b| o.contains(b))
        || o.ends_with(".ref")
}

/// Offsets of each `||` whose right side is a branch, in a chain a commit
/// begins before it (the first such `||` of the chain).
fn fallbacks(key: &str, s: &Scalar) -> Vec<usize> {
    let text = s.text.as_str();
    let mut found = Vec::new();
    for (start, end) in expressions(key, text) {
        let Some(expr) = text.get(start..end) else {
            continue;
        };
        // The chain read so far (operands between `||`s, begun anew after a
        // `(`, `,`, `!` or `&`): whether a commit stands in it, and a
        // branch at or after that commit. A commit anywhere in the chain
        // falls back to its first branch when what stands between is
        // empty too (`base.sha || inputs.base_ref || 'main'`: a dispatch
        // that blanks the input gets main's tip). Read once, left to
        // right: each operand is looked at once however long the chain.
        let (mut commit, mut branch) = (false, false);
        let mut from = 0;
        while let Some(p) = expr.get(from..).and_then(|r| r.find("||")) {
            let at = from.saturating_add(p);
            let between = expr.get(from..at).unwrap_or("");
            let left = match between.rfind(['(', ',', '!', '&']) {
                Some(b) => {
                    (commit, branch) = (false, false);
                    between.get(b.saturating_add(1)..).unwrap_or("")
                }
                None => between,
            };
            commit |= commit_like(left);
            branch |= commit && branch_like(left);
            let first_branch = commit && !branch;
            let right = expr.get(at.saturating_add(2)..).unwrap_or("");
            let right = right.split([')', ',', '&', '|']).next().unwrap_or(right);
            if first_branch && branch_like(right) {
                found.push(start.saturating_add(at));
            }
            from = at.saturating_add(2);
        }
    }
    found
}

/// Whether a variable's name says SHA as a word of its own (`BASE_SHA`,
/// `baseSha`, `SHA1`), not inside another word: `BC_DL_BIG_SHARE` is a
/// share of downloads, `SHAPE` a shape.
fn names_sha(name: &str) -> bool {
    name.char_indices().any(|(i, _)| {
        let Some(found) = name.get(i..i.saturating_add(3)) else {
            return false;
        };
        let next = name
            .get(i.saturating_add(3)..)
            .and_then(|r| r.chars().next());
        found.eq_ignore_ascii_case("sha")
            && match next {
                None => true,
                Some(c) if !c.is_ascii_alphabetic() => true,
                // `baseShaValue`: a new word begins; `SHARE`: the same goes on.
                Some(c) => found != "SHA" && c.is_ascii_uppercase(),
            }
    })
}

/// `${BASE_SHA:-main}` (or `:=`, which also assigns it, and `-`, `=`): a
/// commit variable whose default is a branch.
fn shell_default(word: &str) -> bool {
    shell_default_at(word).is_some()
}

fn shell_default_at(word: &str) -> Option<usize> {
    let open = word.find("${")?;
    let (name, default) = super::shell_default(word.get(open.saturating_add(2)..)?)?;
    let upper = name.to_uppercase();
    let commit = names_sha(name) || upper.contains("COMMIT") || upper.contains("BEFORE");
    // A placeholder that says the commit is not known (`unknown`, `none`,
    // `n/a`: aas-benchmark-observatory's `${GITHUB_SHA:-unknown}` in the
    // environment it records) names no branch to check out.
    let placeholder = ["unknown", "none", "n/a", "na", "null", "undefined", "unset"].contains(
        &default
            .trim_matches(['"', '\''])
            .to_ascii_lowercase()
            .as_str(),
    );
    let branch =
        !default.is_empty() && !default.starts_with('$') && !is_sha(default) && !placeholder;
    (commit && branch).then_some(open)
}

fn first_before<'a>(scalars: &[(&str, &'a Scalar)]) -> Option<&'a Scalar> {
    scalars
        .iter()
        .find(|(_, s)| s.text.contains("event.before"))
        .map(|(_, s)| *s)
}

/// Where `github.event.before` starts in `s`.
fn before_at(s: &Scalar) -> usize {
    let at = s.text.find("event.before").unwrap_or(0);
    s.text
        .get(..at)
        .and_then(|r| r.rfind("github"))
        .unwrap_or(at)
}

/// Whether the workflow's `env:` or `scalars` check `before` for a new
/// branch (all zeros) or a force-push (the commit's existence); with no
/// job's scalars given, any job's check counts.
fn handled(w: &Workflow<'_>, scalars: &[(&str, &Scalar)]) -> bool {
    let mut everything: Vec<&Scalar> = scalars.iter().map(|(_, s)| *s).collect();
    if let Some(env) = w.root.get("env") {
        env.scalars(&mut everything);
    }
    if scalars.is_empty() {
        w.root.scalars(&mut everything);
    }
    everything.iter().any(|s| {
        let t = &s.text;
        t.contains("0000000000000000000000000000000000000000")
            || t.contains("event.created")
            || t.contains("event.forced")
            || t.contains("cat-file -e")
            || t.contains("cat-file -t")
            || t.contains("rev-parse --verify")
            || t.contains("rev-parse -q --verify")
            || t.contains("merge-base --is-ancestor")
    })
}

fn unchecked_before(
    w: &Workflow<'_>,
    job: &Job<'_>,
    scalars: &[(&str, &Scalar)],
    hits: &mut Vec<Hit>,
) {
    let Some(first) = first_before(scalars) else {
        return;
    };
    if !handled(w, scalars) {
        hits.push(hit(
            "unchecked-before",
            first.pos_of(before_at(first)),
            job,
            step_of(job, first),
        ));
    }
}
