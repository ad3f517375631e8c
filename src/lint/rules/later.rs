//! Where the commands of one script check out a fixed commit and run `git
//! push`, and in which directory, found in one pass, so that "is this
//! clone pinned, or pushed to, later?" is a lookup. Asking it by scanning
//! every later command for every clone was quadratic: with the positions'
//! own counting (since indexed, `yaml::Scalar`), a stranger's 4 MiB
//! workflow of 98,000 clones took two minutes to lint.
//!
//! The directory of a command is its `-C` argument, else the last `cd` or
//! `pushd` since the clone (none: the clone's own working directory, `""`),
//! each read as its last path segment. A `cd` sets the directory whatever
//! came before it, so after the first `cd` that follows a clone, the
//! directory is the one a pass from the script's start sees; before it,
//! only `-C` names one.

use rustc_hash::FxHashMap;

use super::{pinned_ref, positionals};
use crate::lint::shell::Command;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Act {
    /// `git checkout|reset|switch|fetch <full SHA>`.
    Pin,
    Push,
    /// `git pull`: the clone moves to its branch's tip, whatever was
    /// pinned on another path of the script.
    Pull,
}

#[derive(Debug, Default)]
pub struct Later {
    /// Per command, the index of the next `cd`/`pushd` after it (the
    /// number of commands when there is none).
    next_cd: Vec<usize>,
    /// (directory, act) to the last command that does it, its directory
    /// read from the script's start.
    from_start: FxHashMap<(String, Act), usize>,
    /// (the `cd` that ends its stretch, directory, act) to the last command
    /// of that stretch that does it, its directory read with no `cd`
    /// since (`-C`, else `""`).
    in_stretch: FxHashMap<(usize, String, Act), usize>,
}

/// The last segment of a path (`a/b/` is `b`).
pub fn last_segment(p: &str) -> String {
    p.trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or(p)
        .to_owned()
}

fn changes_directory(c: &Command) -> bool {
    matches!(c.name(), Some("cd" | "pushd"))
}

fn act(c: &Command) -> Option<Act> {
    let pins = (c.git("checkout") || c.git("reset") || c.git("switch") || c.git("fetch"))
        && positionals(c).iter().any(|r| pinned_ref(r));
    if pins {
        Some(Act::Pin)
    } else if c.git("pull") {
        Some(Act::Pull)
    } else {
        c.git("push").then_some(Act::Push)
    }
}

impl Later {
    pub fn of(commands: &[Command]) -> Later {
        let mut later = Later {
            next_cd: vec![commands.len(); commands.len()],
            ..Later::default()
        };
        let mut next = commands.len();
        for (i, c) in commands.iter().enumerate().rev() {
            if let Some(slot) = later.next_cd.get_mut(i) {
                *slot = next;
            }
            if changes_directory(c) {
                next = i;
            }
        }
        let mut cwd = String::new();
        for (j, c) in commands.iter().enumerate() {
            if changes_directory(c) {
                cwd = c
                    .words
                    .get(1)
                    .map(|w| last_segment(&w.text))
                    .unwrap_or_default();
                continue;
            }
            let Some(act) = act(c) else { continue };
            let named = c.after("-C").map(last_segment);
            let from_start = named.clone().unwrap_or_else(|| cwd.clone());
            later.from_start.insert((from_start, act), j);
            let stretch = later.next_cd.get(j).copied().unwrap_or(commands.len());
            later
                .in_stretch
                .insert((stretch, named.unwrap_or_default(), act), j);
        }
        later
    }

    /// Whether a command after command `i` does `act` in `dir`, its
    /// directory read from `i` on.
    pub fn after(&self, i: usize, dir: &str, act: Act) -> bool {
        let dir = last_segment(dir);
        let Some(&cd) = self.next_cd.get(i) else {
            return false;
        };
        let before_cd = self.in_stretch.get(&(cd, dir.clone(), act));
        let after_cd = self.from_start.get(&(dir, act));
        before_cd.is_some_and(|&j| j > i) || after_cd.is_some_and(|&j| j > cd)
    }

    /// The directories (last segments) the script runs `git push` in, read
    /// from its start: where a later step pushes a clone an earlier step
    /// made (sgkit's `cd ~/$BENCHMARKS_REPO` then `git push origin main`).
    pub fn pushed_dirs(&self) -> impl Iterator<Item = &str> {
        self.from_start
            .keys()
            .filter(|(_, act)| *act == Act::Push)
            .map(|(dir, _)| dir.as_str())
    }
}
