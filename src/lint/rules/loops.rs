//! What a loop over a listing of commits does with each one. A baseline
//! walk checks each older commit out to build or measure it (`for c in
//! $(git rev-list -8 main); do git checkout "$c" && ./bench; done`); a
//! loop that only reads each commit's history (its message, its diff, a
//! rebase that drops it to see whether the change still applies) tries
//! no baseline. Read on pytorch/test-infra's dependency check, which
//! loops over `git log HEAD~101..HEAD~1` and rebases each commit out.
//! Pure.

use crate::lint::shell::{Command, file_name};

/// git's subcommands that read or rewrite history without checking a
/// commit out to build: a loop whose every use of its commit is one of
/// these (or a message, or a variable set) measures none.
const READS: &[&str] = &[
    "log",
    "show",
    "rebase",
    "cherry-pick",
    "notes",
    "diff",
    "rev-parse",
    "cat-file",
    "describe",
    "name-rev",
    "merge-base",
    "rev-list",
    "interpret-trailers",
];

/// Commands that only say something.
const SAYS: &[&str] = &["echo", "printf", ":", "true", "test", "[", "[["];

/// Whether the `for VAR in ...` loop at `commands[i]` uses its variable
/// only to read history: a [`READS`] git command of its body uses it, and
/// each other command that does is a message or an assignment. A body
/// that gives it to no git command (none that names it, or only `echo
/// "$c"`) is not read as either, and stays a walk.
pub fn reads_only(commands: &[Command], i: usize) -> bool {
    let Some(head) = commands.get(i) else {
        return false;
    };
    let Some(var) = head.words.get(1).map(|w| w.text.as_str()) else {
        return false;
    };
    if var.is_empty() || !var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return false;
    }
    // The scripts nested in the loop's own words (`$(git log ...)`) come
    // first, then its body, inside one more loop.
    let body = commands
        .iter()
        .skip(i.saturating_add(1))
        .skip_while(|c| c.script != head.script && c.loops <= head.loops)
        .take_while(|c| c.loops > head.loops);
    let mut git_reads = false;
    for c in body {
        if !c.words.iter().any(|w| names(&w.text, var)) {
            continue;
        }
        match reads(c) {
            Use::History => git_reads = true,
            Use::Says => {}
            Use::Other => return false,
        }
    }
    git_reads
}

/// The loop that command `i` runs in, as one index per loop: the
/// outermost loop's first command in the script holding it (`i` itself
/// when it runs in no loop). A walk is one loop, however many of its
/// lines name the commit it tries (`HEAD_SHA=$(git rev-parse HEAD~${i})`
/// then `docker manifest inspect "$IMAGE:$HEAD_SHA"`): its finding is
/// reported once, at the first (read on a loop looking back for the
/// newest commit with an image, whose every probe named the commit).
pub fn loop_of(commands: &[Command], i: usize) -> usize {
    let mut top = i;
    // Up from a substitution or `bash -c` body inside the loop to the
    // command holding it, while that is still inside a loop.
    while let Some(p) = commands.get(top).and_then(|c| c.parent) {
        match commands.get(p) {
            Some(parent) if parent.loops > 0 && p < top => top = p,
            _ => break,
        }
    }
    let Some(c) = commands.get(top) else {
        return i;
    };
    // `done < <(git log ...)` closes the loop it feeds: its loop is the
    // one before it.
    let closes = c.keywords.iter().any(|k| k == "done");
    if c.loops == 0 && !closes {
        return top;
    }
    commands
        .iter()
        .enumerate()
        .take(top)
        .rev()
        .find(|(_, o)| o.script == c.script && o.loops == 0)
        .map_or(top, |(j, _)| j)
}

/// What a command that names the loop's commit does with it.
enum Use {
    /// A [`READS`] git command.
    History,
    /// A message or a variable set.
    Says,
    /// Anything else: a checkout, a build, a benchmark.
    Other,
}

/// Whether `text` expands `var` (`$var`, `${var}`, `${var}^`).
fn names(text: &str, var: &str) -> bool {
    text.match_indices('$').any(|(at, _)| {
        let rest = text.get(at.saturating_add(1)..).unwrap_or("");
        let rest = rest.strip_prefix('{').unwrap_or(rest);
        rest.strip_prefix(var).is_some_and(|after| {
            !after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
        })
    })
}

/// How a command uses a commit: a history read, a message or a variable
/// set (`DEPS+=("$c")`), or otherwise.
fn reads(c: &Command) -> Use {
    let Some(name) = c.name() else {
        return Use::Says;
    };
    if SAYS.contains(&file_name(name)) || name.contains('=') {
        return Use::Says;
    }
    let sub = c
        .words
        .iter()
        .skip(1)
        .map(|w| w.text.as_str())
        .find(|w| !w.starts_with('-'));
    match sub {
        Some(sub) if name == "git" && READS.contains(&sub) => Use::History,
        _ => Use::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::shell::commands;

    fn first_for(script: &str) -> bool {
        let cs = commands(script).unwrap();
        let i = cs.iter().position(|c| c.name() == Some("for")).unwrap();
        reads_only(&cs, i)
    }

    #[test]
    fn a_loop_that_only_reads_each_commit_tries_no_baseline() {
        let rebase = "for C in $(git log HEAD~9..HEAD~1); do\n  echo \"$C\"\n  if ! git rebase --onto \"${C}^\" \"$C\"; then DEPS+=(\"$C\"); fi\ndone\n";
        assert!(first_for(rebase));
        let builds =
            "for C in $(git rev-list -8 main); do\n  git checkout \"$C\" && ./bench\ndone\n";
        assert!(!first_for(builds));
        let measures = "for C in $(git rev-list -8 main); do\n  git log -1 \"$C\"\n  ./bench.sh \"$C\"\ndone\n";
        assert!(!first_for(measures));
        let unnamed = "for C in $(git rev-list -8 main); do\n  ./bench.sh\ndone\n";
        assert!(!first_for(unnamed));
        let said = "for C in $(git rev-list -8 main); do\n  echo \"$C\"\ndone\n";
        assert!(!first_for(said));
        assert!(!names("$CS", "C"));
        assert!(names("${C}^", "C"));
    }

    #[test]
    fn every_line_of_one_loop_is_in_the_same_loop() {
        let script = "for i in {0..9}; do\n  SHA=$(git rev-parse HEAD~${i})\n  docker pull \"x:$SHA\"\ndone\nfor c in 1 2; do\n  git checkout main~$c\ndone\nwhile read -r c; do\n  git checkout \"$c~1\"\ndone < <(git log -n 8)\n";
        let cs = commands(script).unwrap();
        let of = |word: &str| {
            let i = cs
                .iter()
                .position(|c| c.words.iter().any(|w| w.text.contains(word)))
                .unwrap();
            loop_of(&cs, i)
        };
        assert_eq!(of("rev-parse"), of("docker"));
        assert_ne!(of("docker"), of("main~"));
        let done = cs
            .iter()
            .rposition(|c| c.keywords.iter().any(|k| k == "done"))
            .unwrap();
        assert_eq!(of("$c~1"), loop_of(&cs, done));
    }
}
