//! Who shares a concurrency group, read per event.
//!
//! A group is text with `${{ }}` expressions, and which runs meet in it
//! depends on the event that started each run: `${{ github.head_ref ||
//! github.run_id }}` is one group for every run of a pull request (its
//! head branch) but a group of its own for each push (no head branch, so
//! the run id). Looking for a per-run word anywhere in the text took both
//! kinds of run for unique: on real workflows four
//! cancelling groups were missed that way, two of them ROCm GPU builds a
//! label cancels, one Intel's GPU wheel build that main's pushes cancel.
//! So each expression is evaluated, as GitHub would, for one kind of run
//! (a pull request, a push to the default branch, a schedule, a comment),
//! with `a || b` taking `b` when `a` is empty and `a && b` taking `a` when
//! `a` is false; what the group then holds says who shares it.
//!
//! What cannot be known here (a `contains()` of labels, an unknown
//! context compared with a literal) may be true or false: both are
//! followed, and a group that may hold a per-run part is taken as per run,
//! so a cancel the file does not show is not reported.

use crate::lint::candidates::Cursor;

/// The run whose group is asked about.
#[derive(Clone, Copy)]
pub struct Event<'a> {
    /// `pull_request`, `pull_request_target`, `push`, `schedule`, ...
    pub name: &'a str,
    /// `github.event.action` (`labeled`); empty for pushes.
    pub action: &'a str,
    /// The repository's default branch when known (`--default-branch`):
    /// a literal naming it (`github.ref_name == 'trunk'`) names the branch
    /// a push to the default branch runs on, as `main` and `master` do.
    pub default: Option<&'a str>,
}

impl Event<'_> {
    fn pull(&self) -> bool {
        self.name.starts_with("pull_request")
    }
}

/// Who shares the group the text gives a run of `event`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sharing {
    /// A per-run part (`run_id`, `github.sha`): no two runs meet.
    Run,
    /// The branch's runs (`github.ref`): main's pushes meet each other.
    Branch,
    /// One pull request's runs (its number, its head branch).
    Pull,
    /// No per-run, per-branch or per-pull-request part: every run of this
    /// kind meets every other.
    All,
}

/// Who shares the group `text` for runs of `event`.
pub fn sharing(text: &str, event: Event<'_>) -> Sharing {
    let mut kinds = Vec::new();
    for part in text.split("${{").skip(1) {
        let inner = part.split("}}").next().unwrap_or("");
        let mut p = Parser {
            cur: Cursor::new(inner),
            event,
        };
        kinds.extend(p.or());
    }
    let has = |f: fn(&Value) -> bool| kinds.iter().any(f);
    if has(|v| matches!(v, Value::Run)) {
        Sharing::Run
    } else if has(|v| matches!(v, Value::Branch(_))) {
        Sharing::Branch
    } else if has(|v| matches!(v, Value::Pull)) {
        Sharing::Pull
    } else {
        Sharing::All
    }
}

/// Whether `text`, a `cancel-in-progress:` value, cancels every run of
/// `event` that GitHub could start: `true`, or one `${{ }}` expression
/// true however what is not known here reads. `${{ github.ref_name !=
/// github.event.repository.default_branch || github.ref != 'refs/tags/v*'
/// }}` looks like it spares the default branch, but `!=` compares text
/// (no glob): a push to main is not the tag pattern, so it cancels.
pub fn cancels(text: &str, event: Event<'_>) -> bool {
    let text = text.trim();
    if text.eq_ignore_ascii_case("true") {
        return true;
    }
    let Some(inner) = text.strip_prefix("${{").and_then(|r| r.strip_suffix("}}")) else {
        return false;
    };
    // A variable, an input or a matrix value may be false: only what the
    // event decides is read as certain.
    only_event_contexts(inner)
        && read_whole(inner, event).is_some_and(|v| v.iter().all(Value::truthy))
}

/// Whether a job's `if:` (with or without `${{ }}`) is false for every
/// run of `event`, however what is not known here reads: a caller's
/// `github.event_name != 'push' || startsWith(github.ref, 'refs/tags/v')`
/// never calls its workflow on a push to the default branch.
pub fn never(condition: &str, event: Event<'_>) -> bool {
    let c = condition.trim();
    let inner = c
        .strip_prefix("${{")
        .and_then(|r| r.strip_suffix("}}"))
        .unwrap_or(c);
    only_event_contexts(inner)
        && read_whole(inner, event).is_some_and(|v| !v.iter().any(Value::truthy))
}

/// Whether an expression reads only what the event decides (its name,
/// ref, branch, repository) besides literals and functions: an input, a
/// variable or a step's output, read here as empty, may hold anything.
fn only_event_contexts(inner: &str) -> bool {
    const KNOWN: &[&str] = &[
        "github.event_name",
        "github.ref",
        "github.ref_name",
        "github.ref_type",
        "github.head_ref",
        "github.base_ref",
        "github.event.repository.default_branch",
        "github.repository",
        "github.repository_owner",
        "true",
        "false",
        "null",
    ];
    let mut unquoted = String::new();
    for (i, part) in inner.split('\'').enumerate() {
        unquoted.push_str(if i % 2 == 0 { part } else { " " });
    }
    let word = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '*');
    // `startsWith(github.ref` is one piece: the words before a `(` are
    // functions, the one after it (or alone) a context or a literal.
    unquoted
        .split(|c: char| !word(c) && c != '(')
        .filter_map(|piece| piece.rsplit('(').next())
        .filter(|w| w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
        .all(|w| KNOWN.contains(&w.to_ascii_lowercase().as_str()))
}

/// Every value one whole expression may have for `event`; none when it
/// is not one expression this reader reads to its end.
fn read_whole(inner: &str, event: Event<'_>) -> Option<Vec<Value>> {
    if inner.contains("${{") {
        return None;
    }
    let mut p = Parser {
        cur: Cursor::new(inner),
        event,
    };
    let values = p.or();
    p.cur.skip_space();
    (p.cur.done() && !values.is_empty()).then_some(values)
}

/// What an expression is worth for the run asked about.
#[derive(Clone, Debug)]
enum Value {
    /// Empty string, null, or what cannot be known (false).
    Empty,
    Bool(bool),
    /// A known string (a literal, the event's name).
    Text(String),
    /// Differs per run.
    Run,
    /// The branch or ref, its text when known.
    Branch(String),
    /// Per pull request.
    Pull,
    /// The same for every run (the workflow's name, a matrix value).
    Same,
    /// This repository (`github.repository`): compared with a literal, it
    /// is that literal (the file runs where it is written).
    Own,
}

impl Value {
    fn truthy(&self) -> bool {
        match self {
            Value::Empty => false,
            Value::Bool(b) => *b,
            Value::Text(t) => !t.is_empty(),
            _ => true,
        }
    }

    fn text(&self) -> Option<&str> {
        match self {
            Value::Text(t) | Value::Branch(t) => Some(t),
            _ => None,
        }
    }
}

/// The branch a push or schedule of the default branch runs on; `master`
/// is read as the same branch.
const DEFAULT_REF: &str = "refs/heads/main";

fn context(path: &str, event: Event<'_>) -> Value {
    let path = path.to_ascii_lowercase();
    let pull = event.pull();
    let per_pull = |v: Value| if pull { v } else { Value::Empty };
    match path.as_str() {
        "github.sha"
        | "github.run_id"
        | "github.run_number"
        | "github.run_attempt"
        | "github.event.after"
        | "github.event.head_commit.id" => Value::Run,
        "github.event.pull_request.head.sha" => per_pull(Value::Run),
        "github.ref" => Value::Branch(if pull && event.name == "pull_request" {
            "refs/pull/1/merge".to_owned()
        } else {
            DEFAULT_REF.to_owned()
        }),
        "github.ref_name" => Value::Branch(if pull { "1/merge" } else { "main" }.to_owned()),
        // A pull request's merge ref is never a protected branch: tt-llk's
        // `github.ref_protected && github.run_id || ...number` keys its
        // pull requests by number. Another event's ref may be protected.
        "github.ref_protected" if event.name == "pull_request" => Value::Bool(false),
        "github.head_ref"
        | "github.event.pull_request.head.ref"
        | "github.event.pull_request.number"
        | "github.event.number" => per_pull(Value::Pull),
        "github.event.issue.number" => {
            if event.name == "issue_comment" {
                Value::Pull
            } else {
                Value::Empty
            }
        }
        "github.event_name" => Value::Text(event.name.to_owned()),
        "github.ref_type" => per_pull_not(Value::Text("branch".to_owned()), pull),
        "github.event.action" => Value::Text(event.action.to_owned()),
        "github.base_ref" => per_pull(Value::Text("main".to_owned())),
        // The default branch by name: `main` stands for it (same_text).
        "github.event.repository.default_branch" => Value::Text("main".to_owned()),
        "github.repository" | "github.repository_owner" => Value::Own,
        p if p.starts_with("inputs.") || p.starts_with("github.event.") => Value::Empty,
        _ => Value::Same,
    }
}

/// `v` for the runs that are not a pull request's.
fn per_pull_not(v: Value, pull: bool) -> Value {
    if pull { Value::Empty } else { v }
}

/// Case-insensitive equality, the default branch's names as one: `main`,
/// `master`, and the branch known as the default (`trunk`, alone or as
/// `refs/heads/trunk`; spiceai's groups key trunk's pushes by their SHA).
fn same_text(a: &str, b: &str, default: Option<&str>) -> bool {
    norm(a, default) == norm(b, default)
}

/// A text lower-cased, the default branch's names read as `main`:
/// `master` too, unless the default branch is known to be `main`, when it
/// is another branch (zksync-os keeps `refs/heads/master`'s runs, while
/// its pushes go to `main`: cancelled).
fn norm(s: &str, default: Option<&str>) -> String {
    let s = s.to_ascii_lowercase();
    let known = default.map(str::to_ascii_lowercase);
    let main_known = known.as_deref() == Some("main");
    let s = match known {
        Some(d) if s == d => "main".to_owned(),
        Some(d) if s.strip_prefix("refs/heads/") == Some(d.as_str()) => {
            "refs/heads/main".to_owned()
        }
        _ => s,
    };
    if main_known {
        s
    } else {
        s.replace("master", "main")
    }
}

/// `a == b` when it can be known.
fn equal(a: &Value, b: &Value, default: Option<&str>) -> Option<bool> {
    match (a, b) {
        (Value::Own, Value::Text(_)) | (Value::Text(_), Value::Own) => Some(true),
        (Value::Empty, Value::Text(t)) | (Value::Text(t), Value::Empty) => Some(t.is_empty()),
        _ => match (a.text(), b.text()) {
            (Some(x), Some(y)) => Some(same_text(x, y, default)),
            _ => None,
        },
    }
}

/// A function's value over every value its arguments may have; one not
/// known here may be true or false. Texts are compared as [`norm`] reads
/// them: `contains(github.ref, 'master')` holds for a push to the default
/// branch, whichever of its names the file uses.
fn call(name: &str, args: &[Vec<Value>], default: Option<&str>) -> Vec<Value> {
    let name = name.to_ascii_lowercase();
    let first = |i: usize| args.get(i).and_then(|a| a.first()).and_then(Value::text);
    let test = |f: fn(&str, &str) -> bool| match (first(0), first(1)) {
        (Some(a), Some(b)) => vec![Value::Bool(f(&norm(a, default), &norm(b, default)))],
        _ => vec![Value::Bool(true), Value::Bool(false)],
    };
    match name.as_str() {
        "startswith" => test(|a, b| a.starts_with(b)),
        "endswith" => test(|a, b| a.ends_with(b)),
        "contains" => test(|a, b| a.contains(b)),
        // format() and friends hold what their arguments hold.
        "format" | "tojson" | "fromjson" | "join" => args.concat(),
        _ => vec![Value::Bool(true), Value::Bool(false)],
    }
}

/// A recursive-descent reader of GitHub's expression syntax, evaluating
/// as it reads; anything it cannot read is [`Value::Empty`].
struct Parser<'s, 'e> {
    cur: Cursor<'s>,
    event: Event<'e>,
}

impl Parser<'_, '_> {
    fn eat(&mut self, token: &str) -> bool {
        self.cur.eat(token)
    }

    fn or(&mut self) -> Vec<Value> {
        let mut left = self.and();
        while self.eat("||") {
            let right = self.and();
            left = pick(left, &right, |v| !v.truthy());
        }
        left
    }

    fn and(&mut self) -> Vec<Value> {
        let mut left = self.unary();
        while self.eat("&&") {
            let right = self.unary();
            left = pick(left, &right, Value::truthy);
        }
        left
    }

    /// One operand, its nesting bounded ([`Cursor::enter`]): past the
    /// bound the rest is not read, and counts as empty.
    fn unary(&mut self) -> Vec<Value> {
        if !self.cur.enter() {
            return vec![Value::Empty];
        }
        let v = self.operand();
        self.cur.leave();
        v
    }

    fn operand(&mut self) -> Vec<Value> {
        if self.eat("!") {
            return self
                .unary()
                .iter()
                .map(|v| Value::Bool(!v.truthy()))
                .collect();
        }
        let left = self.primary();
        let negate = if self.eat("==") {
            false
        } else if self.eat("!=") {
            true
        } else {
            return left;
        };
        let right = self.primary();
        let mut out = Vec::new();
        for a in &left {
            for b in &right {
                match equal(a, b, self.event.default) {
                    Some(eq) => out.push(Value::Bool(eq != negate)),
                    None => out.extend([Value::Bool(true), Value::Bool(false)]),
                }
            }
        }
        out
    }

    fn primary(&mut self) -> Vec<Value> {
        self.cur.skip_space();
        if self.eat("(") {
            let v = self.or();
            self.eat(")");
            return v;
        }
        if self.eat("'") {
            let start = self.cur.at;
            while self.cur.src.get(self.cur.at).is_some_and(|&c| c != b'\'') {
                self.cur.step(1);
            }
            let text = self.cur.since(start);
            self.cur.step(1);
            return vec![Value::Text(text)];
        }
        let word = self.cur.name();
        if word.is_empty() {
            // Not an expression this reader knows: stop reading it.
            self.cur.at = self.cur.src.len();
            return vec![Value::Empty];
        }
        if self.eat("(") {
            let mut args = Vec::new();
            while !self.eat(")") && !self.cur.done() {
                args.push(self.or());
                self.eat(",");
            }
            return call(&word, &args, self.event.default);
        }
        vec![match word.as_str() {
            "true" => Value::Bool(true),
            "false" | "null" => Value::Bool(false),
            w if w.bytes().all(|c| c.is_ascii_digit()) => Value::Text(word),
            _ => context(&word, self.event),
        }]
    }
}

/// `a || b` (`skip`: a value that gives way to `b`, the empty ones) or
/// `a && b` (the true ones), over every value each side may have.
fn pick(left: Vec<Value>, right: &[Value], skip: fn(&Value) -> bool) -> Vec<Value> {
    let mut out = Vec::new();
    for v in left {
        if skip(&v) {
            out.extend(right.iter().cloned());
        } else {
            out.push(v);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const PULL: Event<'static> = Event {
        name: "pull_request",
        action: "labeled",
        default: None,
    };
    const PUSH: Event<'static> = Event {
        name: "push",
        action: "",
        default: None,
    };

    #[test]
    fn a_fallback_is_read_for_the_run_it_applies_to() {
        let g = "${{ github.workflow }}-${{ github.head_ref || github.run_id }}";
        assert_eq!(sharing(g, PULL), Sharing::Pull);
        assert_eq!(sharing(g, PUSH), Sharing::Run);
        let g = "${{ github.workflow }}-${{ github.event.pull_request.number || github.sha }}";
        assert_eq!(sharing(g, PULL), Sharing::Pull);
        assert_eq!(sharing(g, PUSH), Sharing::Run);
    }

    #[test]
    fn event_conditions_pick_the_part_of_each_run() {
        let g = "${{ github.workflow }}-${{ github.event_name == 'workflow_dispatch' && github.run_id || github.event_name == 'pull_request' && (contains(github.event.pull_request.labels.*.name, 'keep-going') && github.run_id || github.event.pull_request.number) || github.ref }}";
        // A pull request with the `keep-going` label gets its run id: the
        // labels are not known here, so its runs may not meet.
        assert_eq!(sharing(g, PULL), Sharing::Run);
        assert_eq!(sharing(g, PUSH), Sharing::Branch);
        let g = "${{ github.ref_type == 'branch' && github.sha }}-${{ github.ref_name }}";
        assert_eq!(sharing(g, PUSH), Sharing::Run);
        let g = "${{ github.ref == 'refs/heads/main' && github.run_number || github.ref }}";
        assert_eq!(sharing(g, PUSH), Sharing::Run);
        assert_eq!(sharing(g, PULL), Sharing::Branch);
        let g = "${{ github.workflow }}-${{ startsWith(github.ref, 'refs/heads/pull-request/') && github.ref || github.sha }}";
        assert_eq!(sharing(g, PUSH), Sharing::Run);
    }

    #[test]
    fn a_cancel_is_read_for_the_run_it_applies_to() {
        let c = "${{ github.ref_name != github.event.repository.default_branch || github.ref != 'refs/tags/v*' }}";
        assert!(cancels(c, PUSH));
        let c = "${{ github.ref_name != github.event.repository.default_branch }}";
        assert!(!cancels(c, PUSH));
        assert!(!cancels("${{ github.ref != 'refs/heads/main' }}", PUSH));
        assert!(cancels("${{ github.ref != 'refs/heads/main' }}", PULL));
        // What is not known may be false: no cancel is read into it.
        assert!(!cancels("${{ inputs.cancel }}", PUSH));
        assert!(!cancels(
            "${{ github.event_name == 'push' || inputs.x }}",
            PULL
        ));
        assert!(cancels("true", PUSH));
        assert!(cancels("True", PUSH));
        assert!(!cancels("false", PUSH));
        assert!(!cancels("${{ vars.CANCEL_IN_PROGRESS }}", PUSH));
        assert!(!cancels("${{ matrix.cancel || github.ref != 'x' }}", PUSH));
        // The default branch by either name: `master` is main's push.
        assert!(!cancels("${{ !contains(github.ref, 'master') }}", PUSH));
        assert!(cancels(
            "${{ !startsWith(github.ref, 'refs/tags/v') }}",
            PUSH
        ));
    }

    #[test]
    fn a_condition_that_never_holds_for_a_push() {
        let c = "github.event_name != 'push' || startsWith(github.ref, 'refs/tags/v')";
        assert!(never(c, PUSH));
        assert!(!never(c, PULL));
        assert!(!never("${{ github.ref == 'refs/heads/master' }}", PUSH));
        // Not known here: it may hold.
        assert!(!never("inputs.publish", PUSH));
        assert!(!never(
            "contains(github.event.head_commit.message, 'x')",
            PUSH
        ));
    }

    #[test]
    fn constant_and_branch_groups() {
        assert_eq!(sharing("large-oltp-growth", PUSH), Sharing::All);
        assert_eq!(sharing("${{ github.workflow }}", PUSH), Sharing::All);
        assert_eq!(
            sharing("${{ github.workflow }}-${{ github.ref }}", PUSH),
            Sharing::Branch
        );
        // A head branch a push does not have: every push shares the rest.
        assert_eq!(
            sharing("${{ github.workflow }}-${{ github.head_ref }}", PUSH),
            Sharing::All
        );
        assert_eq!(
            sharing(
                "ci-${{ github.repository == 'o/r' && github.sha || 'x' }}",
                PUSH
            ),
            Sharing::Run
        );
    }
}
