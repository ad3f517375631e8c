//! `exit 0` where a results file is missing, in a PowerShell script:
//! `if (-not (Test-Path $baselineDir)) { Write-Host "..."; exit 0 }`
//! passes a comparison that never ran (pacx's BenchmarkDotNet comparison
//! on `windows-latest`). The shell reader reads POSIX shells; this reads
//! the same shape in PowerShell, in one pass over the script's characters
//! (nested blocks are a stack, never read again), whatever its size.

use std::cell::OnceCell;

use crate::lint::workflow::{Job, Step, Workflow};
use crate::lint::yaml::{Node, Pos};

/// Which of a job's steps run PowerShell: a step's `shell:` (or the
/// job's or the workflow's `defaults.run.shell`) says `pwsh` or
/// `powershell`, or none is given and the job runs on Windows, whose
/// default it is. The job's runner labels are read once, on the first
/// step that asks: read per step, a matrix of 20,000 runner entries and
/// 2,000 steps took 17 s.
pub(super) struct Shells<'a, 'j> {
    w: &'a Workflow<'j>,
    job: &'a Job<'j>,
    windows: OnceCell<bool>,
}

impl<'a, 'j> Shells<'a, 'j> {
    pub(super) fn of(w: &'a Workflow<'j>, job: &'a Job<'j>) -> Self {
        Shells {
            w,
            job,
            windows: OnceCell::new(),
        }
    }

    pub(super) fn powershell(&self, step: &Step<'_>) -> bool {
        let shell = step
            .text("shell")
            .or_else(|| default_shell(self.job.node))
            .or_else(|| default_shell(self.w.root));
        match shell {
            Some(s) => ["pwsh", "powershell"].contains(&s.split_whitespace().next().unwrap_or("")),
            None => *self.windows.get_or_init(|| {
                self.job
                    .runner_labels()
                    .iter()
                    .any(|l| l.to_ascii_lowercase().starts_with("windows"))
            }),
        }
    }
}

/// A job's or workflow's `defaults.run.shell`.
fn default_shell(node: &Node) -> Option<&str> {
    node.get("defaults")
        .and_then(|d| d.get("run"))
        .and_then(|r| r.get("shell"))
        .and_then(Node::str)
}

/// Where a PowerShell step's `run:` says `exit 0` inside a block that runs
/// when a file is missing, with no warning or error said in it before.
pub(super) fn exits_when_missing(step: &Step<'_>) -> Vec<Pos> {
    let Some(run) = step.node.get("run").and_then(Node::scalar) else {
        return Vec::new();
    };
    missing_exits(&run.text)
        .into_iter()
        .map(|at| run.pos_of(at))
        .collect()
}

/// Words that say a warning or an error where the run is read.
const LOUD: &[&str] = &[
    "write-warning",
    "write-error",
    "::warning",
    "::error",
    "throw",
];

/// An open `{ ... }` block: whether it runs when a file is missing,
/// whether a warning was said in it (or a block inside it) so far, and
/// whether an `exit 0` in it now would pass silently (it is, or lies
/// within, a missing file's block with no warning said since): kept per
/// block so an exit is judged in one step, however deep the nesting.
struct Block {
    missing: bool,
    warned: bool,
    quiet: bool,
}

/// The reading of one script: its open blocks and the `if` being read.
#[derive(Default)]
struct Reader {
    found: Vec<usize>,
    blocks: Vec<Block>,
    /// The condition of an `if (` being read: where it began, its depth.
    condition: Option<(usize, usize)>,
    parens: usize,
    /// Whether the `{` next opens the block of a missing file's test.
    pending: bool,
}

impl Reader {
    fn warn(&mut self) {
        if let Some(b) = self.blocks.last_mut() {
            b.warned = true;
            b.quiet = false;
        }
    }

    fn open(&mut self) {
        let missing = std::mem::take(&mut self.pending);
        let quiet = missing || self.blocks.last().is_some_and(|b| b.quiet);
        self.blocks.push(Block {
            missing,
            warned: false,
            quiet,
        });
    }

    fn close(&mut self) {
        let closed = self.blocks.pop();
        if closed.is_some_and(|c| c.warned && !c.missing) {
            self.warn();
        }
    }

    /// A `)`: it may end the condition being read.
    fn close_paren(&mut self, lower: &str, at: usize) {
        if let Some((start, depth)) = self.condition
            && depth == self.parens
        {
            self.pending = negated_file_test(lower.get(start..at).unwrap_or(""));
            self.condition = None;
        }
        self.parens = self.parens.saturating_sub(1);
    }

    /// A word at `at`: an `if (` begins a condition, an `exit 0` in a
    /// quiet block is found.
    fn word(&mut self, rest: &str, at: usize) {
        if let Some(after) = rest.strip_prefix("if").map(str::trim_start)
            && after.starts_with('(')
        {
            let open = at.saturating_add(rest.len().saturating_sub(after.len()));
            self.condition = Some((open.saturating_add(1), self.parens.saturating_add(1)));
        } else if exits_zero(rest) && self.blocks.last().is_some_and(|b| b.quiet) {
            self.found.push(at);
        }
    }
}

/// The byte offsets of each unwarned `exit 0` in a missing file's block.
fn missing_exits(text: &str) -> Vec<usize> {
    let lower = text.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    let mut r = Reader::default();
    let mut quote: Option<u8> = None;
    let mut i = 0;
    while let Some(&c) = bytes.get(i) {
        let rest = lower.get(i..).unwrap_or("");
        if LOUD.iter().any(|w| rest.starts_with(w)) {
            r.warn();
        }
        if let Some(q) = quote {
            quote = (c != q).then_some(q);
            i = i.saturating_add(1);
            continue;
        }
        let word_start = bytes
            .get(i.wrapping_sub(1))
            .is_none_or(|p| !p.is_ascii_alphanumeric() && *p != b'-');
        match c {
            b'"' | b'\'' => quote = Some(c),
            b'#' => {
                i = rest.find('\n').map_or(bytes.len(), |n| i.saturating_add(n));
                continue;
            }
            b'(' => r.parens = r.parens.saturating_add(1),
            b')' => r.close_paren(&lower, i),
            b'{' => r.open(),
            b'}' => r.close(),
            _ if word_start && c.is_ascii_alphabetic() => {
                r.word(rest, i);
                // Only a `{` right after the condition opens its block.
                r.pending &= r.condition.is_some();
            }
            _ if !c.is_ascii_whitespace() && r.condition.is_none() => r.pending = false,
            _ => {}
        }
        i = i.saturating_add(1);
    }
    r.found
}

/// `exit 0` (not `exit 01`, not `exit $code`) at the start of `rest`.
fn exits_zero(rest: &str) -> bool {
    rest.strip_prefix("exit")
        .filter(|r| r.starts_with([' ', '\t']))
        .map(str::trim_start)
        .and_then(|r| r.strip_prefix('0'))
        .is_some_and(|r| !r.starts_with(|c: char| c.is_ascii_alphanumeric()))
}

/// Whether an `if`'s condition (lower case) tests that a path is missing
/// (`-not (test-path $dir)`, `!(test-path x)`), a path that may hold
/// results: not a manifest, a script or a device, as the shell reader
/// judges them (a test of a script asks whether the harness is there on
/// that branch).
fn negated_file_test(condition: &str) -> bool {
    condition.match_indices("test-path").any(|(at, m)| {
        let before = condition
            .get(..at)
            .unwrap_or("")
            .trim_end_matches([' ', '(']);
        let negated = before.ends_with("-not") || before.ends_with('!');
        let path = condition
            .get(at.saturating_add(m.len())..)
            .unwrap_or("")
            .split_whitespace()
            .find(|w| !w.starts_with('-'))
            .unwrap_or("")
            .trim_matches(['"', '\'', ')']);
        negated && !super::results::names_no_results(path)
    })
}

#[cfg(test)]
mod tests {
    use super::missing_exits;

    fn lines(text: &str) -> Vec<usize> {
        missing_exits(text)
            .into_iter()
            .map(|at| text.get(..at).unwrap_or("").lines().count().max(1))
            .collect()
    }

    #[test]
    fn an_exit_where_the_results_are_missing_is_found() {
        let text = "$d = \".benchmarks/main\"\nif (-not (Test-Path -LiteralPath $d) -or -not (Test-Path $p)) {\n  Write-Host \"unavailable\"\n  exit 0\n}\n";
        assert_eq!(lines(text), [4]);
        assert_eq!(lines("if (!(Test-Path out.json)) { exit 0 }"), [1]);
    }

    #[test]
    fn a_warning_a_found_file_or_a_script_is_no_finding() {
        assert!(
            lines("if (-not (Test-Path x)) {\n Write-Warning \"no baseline\"\n exit 0\n}")
                .is_empty()
        );
        assert!(
            lines("if (-not (Test-Path x)) { Write-Host \"::warning::no baseline\"; exit 0 }")
                .is_empty()
        );
        assert!(lines("if (Test-Path x) { exit 0 }").is_empty());
        assert!(lines("if (-not (Test-Path scripts/bench.ps1)) { exit 0 }").is_empty());
        assert!(lines("if (-not (Test-Path x)) { exit 1 }").is_empty());
        assert!(lines("if ($x) { exit 0 }").is_empty());
        assert!(lines("# if (-not (Test-Path x)) { exit 0 }").is_empty());
    }

    #[test]
    fn a_deeply_nested_script_is_read_once() {
        let text = "if (-not (Test-Path x)) { ".repeat(50_000) + "exit 0" + &" }".repeat(50_000);
        assert_eq!(missing_exits(&text).len(), 1);
    }
}
