//! The fenced blocks of a Markdown page, each with the HTML comment
//! markers written just above it: `<!-- not-run: why -->` (the block is not
//! run, and the page says why), `<!-- job: NAME -->` (the job it runs in).

use std::path::Path;

#[derive(Debug, Clone)]
pub struct Block {
    pub page: String,
    /// The line of the opening fence, from 1.
    pub line: usize,
    pub lang: String,
    pub text: String,
    pub markers: Vec<String>,
}

impl Block {
    /// Why the page says this block is not run, if it does.
    pub fn not_run(&self) -> Option<&str> {
        self.markers
            .iter()
            .find_map(|m| m.strip_prefix("not-run:"))
            .map(str::trim)
            .filter(|why| !why.is_empty())
    }

    pub fn at(&self) -> String {
        format!("{}:{}", self.page, self.line)
    }
}

/// Every fenced block of `page` (relative to the repository root).
pub fn of_page(root: &Path, page: &str) -> Vec<Block> {
    let text = std::fs::read_to_string(root.join(page)).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(lang) = lines[i].strip_prefix("```") else {
            i += 1;
            continue;
        };
        let start = i;
        let mut body = Vec::new();
        i += 1;
        while i < lines.len() && !lines[i].starts_with("```") {
            body.push(lines[i]);
            i += 1;
        }
        let mut markers = Vec::new();
        let mut j = start;
        while j > 0 {
            j -= 1;
            let line = lines[j].trim();
            if line.is_empty() {
                continue;
            }
            match line
                .strip_prefix("<!--")
                .and_then(|l| l.strip_suffix("-->"))
            {
                Some(marker) => markers.push(marker.trim().to_owned()),
                None => break,
            }
        }
        out.push(Block {
            page: page.to_owned(),
            line: start + 1,
            lang: lang.trim().to_owned(),
            text: body.join("\n") + "\n",
            markers,
        });
        i += 1;
    }
    out
}

/// The languages a runner would run: shell, and workflow YAML.
pub fn runnable(lang: &str) -> bool {
    matches!(lang, "yaml" | "yml" | "sh" | "bash" | "console")
}
