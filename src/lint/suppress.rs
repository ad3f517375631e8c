//! `# baseline-resolver: ignore[rule-id, ...]` comments. Read from the
//! text (YAML parsers drop comments): a comment applies to its own line
//! and, when it stands alone on a line, to the next line; a finding is
//! suppressed when its line or the line of its step or job is covered.

use std::collections::HashMap;

const MARK: &str = "baseline-resolver: ignore[";

#[derive(Debug, Default)]
pub struct Ignores {
    /// Line (from 1) to the rule ids ignored there.
    lines: HashMap<usize, Vec<String>>,
}

impl Ignores {
    pub fn read(text: &str) -> Ignores {
        let mut ignores = Ignores::default();
        for (i, line) in text.lines().enumerate() {
            let Some(hash) = line.find('#') else {
                continue;
            };
            let comment = line.get(hash..).unwrap_or("");
            let Some(start) = comment.find(MARK) else {
                continue;
            };
            let rest = comment
                .get(start.saturating_add(MARK.len())..)
                .unwrap_or("");
            let Some(end) = rest.find(']') else {
                continue;
            };
            let ids: Vec<String> = rest
                .get(..end)
                .unwrap_or("")
                .split(',')
                .map(|id| id.trim().to_owned())
                .filter(|id| !id.is_empty())
                .collect();
            let number = i.saturating_add(1);
            let alone = line.get(..hash).is_some_and(|b| b.trim().is_empty());
            let mut lines = vec![number];
            if alone {
                lines.push(number.saturating_add(1));
            }
            for l in lines {
                ignores
                    .lines
                    .entry(l)
                    .or_default()
                    .extend(ids.iter().cloned());
            }
        }
        ignores
    }

    pub fn covers(&self, rule: &str, line: usize, parents: &[usize]) -> bool {
        std::iter::once(&line).chain(parents).any(|l| {
            self.lines
                .get(l)
                .is_some_and(|ids| ids.iter().any(|id| id == rule))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_comment_covers_its_line_and_alone_the_next() {
        let text = "a: 1 # baseline-resolver: ignore[job-always, tag-sort]\n# baseline-resolver: ignore[cancel-main]\nb: 2\nc: 3\n";
        let i = Ignores::read(text);
        assert!(i.covers("tag-sort", 1, &[]));
        assert!(i.covers("cancel-main", 3, &[]));
        assert!(!i.covers("cancel-main", 4, &[]));
        assert!(i.covers("job-always", 9, &[1]));
        assert!(!i.covers("fork-remote", 1, &[]));
    }
}
