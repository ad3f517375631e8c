//! A workflow file as a tree whose every node knows its line and column.
//!
//! Built from yaml-rust2's event parser (not a serde model): a finding must
//! point at the node, and inside a block scalar at the line of the script,
//! which needs the scalar's style and the marker of its first character.
//! Every scalar stays a string (`on:` is a key, not `true`). Aliases are
//! expanded, with the expansion counted, so a "billion laughs" file is an
//! error rather than a full memory.

use std::collections::HashMap;

use thiserror::Error;
use yaml_rust2::parser::{Event, MarkedEventReceiver, Parser};
use yaml_rust2::scanner::{Marker, TScalarStyle};

/// Nodes a file may expand to, every copy counted (each alias, and the
/// copy an anchor keeps): a workflow of 1,500 lines has about 5,000, so
/// this is 50 times the largest real one, about 40 MB of tree at most.
pub const MAX_NODES: usize = 250_000;
/// Collections open at once: a real workflow nests about 8 deep. Deeper
/// is refused, so nothing that walks the tree (or drops it) can exhaust
/// the stack.
pub const MAX_DEPTH: usize = 64;

/// A place in the file: line and column, both from 1 (columns in
/// characters), as editors and SARIF count them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Pos {
    pub line: usize,
    pub column: usize,
}

impl Pos {
    fn from_marker(m: Marker) -> Pos {
        Pos {
            line: m.line(),
            column: m.col().saturating_add(1),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Plain,
    Quoted,
    /// `|`: each line of the value is a line of the file.
    Literal,
    /// `>`: lines folded into one; positions past the first are approximate.
    Folded,
}

#[derive(Debug, Clone)]
pub struct Scalar {
    pub text: String,
    pub style: Style,
    /// Where the value's first character is (for a block scalar, the first
    /// character of its first line, not the `|`).
    pub at: Pos,
}

impl Scalar {
    /// Where byte `offset` of the value is in the file.
    pub fn pos_of(&self, offset: usize) -> Pos {
        let before = self.text.get(..offset).unwrap_or(&self.text);
        let line_start = before.rfind('\n').map_or(0, |i| i.saturating_add(1));
        let column = before.get(line_start..).unwrap_or("").chars().count();
        match self.style {
            Style::Literal => Pos {
                line: self.at.line.saturating_add(before.matches('\n').count()),
                column: self.at.column.saturating_add(column),
            },
            Style::Quoted => Pos {
                line: self.at.line,
                column: self.at.column.saturating_add(column).saturating_add(1),
            },
            Style::Plain | Style::Folded => Pos {
                line: self.at.line,
                column: self.at.column.saturating_add(column),
            },
        }
    }
}

#[derive(Debug, Clone)]
pub enum Value {
    Scalar(Scalar),
    Seq(Vec<Node>),
    Map(Vec<(Scalar, Node)>),
}

#[derive(Debug, Clone)]
pub struct Node {
    /// A scalar's first character; a mapping's first key; a sequence's
    /// first item (or its opening bracket when empty).
    pub at: Pos,
    pub value: Value,
}

impl Node {
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entries()
            .iter()
            .find(|(k, _)| k.text == key)
            .map(|(_, v)| v)
    }

    /// The key scalar of `key` (where a finding about the entry points).
    pub fn key(&self, key: &str) -> Option<&Scalar> {
        self.entries()
            .iter()
            .find(|(k, _)| k.text == key)
            .map(|(k, _)| k)
    }

    pub fn entries(&self) -> &[(Scalar, Node)] {
        match &self.value {
            Value::Map(entries) => entries,
            _ => &[],
        }
    }

    pub fn items(&self) -> &[Node] {
        match &self.value {
            Value::Seq(items) => items,
            _ => &[],
        }
    }

    pub fn scalar(&self) -> Option<&Scalar> {
        match &self.value {
            Value::Scalar(s) => Some(s),
            _ => None,
        }
    }

    pub fn str(&self) -> Option<&str> {
        self.scalar().map(|s| s.text.as_str())
    }

    /// Every scalar below this node, keys excluded, in file order.
    pub fn scalars<'a>(&'a self, out: &mut Vec<&'a Scalar>) {
        match &self.value {
            Value::Scalar(s) => out.push(s),
            Value::Seq(items) => items.iter().for_each(|n| n.scalars(out)),
            Value::Map(entries) => entries.iter().for_each(|(_, n)| n.scalars(out)),
        }
    }
}

#[derive(Debug, Error)]
pub enum YamlError {
    #[error("line {line}, column {column}: not YAML: {message}")]
    Syntax {
        line: usize,
        column: usize,
        message: String,
    },
    #[error("more than {MAX_NODES} nodes once aliases are expanded")]
    TooLarge,
    #[error("line {line}: nested more than {MAX_DEPTH} levels deep")]
    TooDeep { line: usize },
    #[error("the file holds no YAML document")]
    Empty,
}

/// Parses the first document of `text`.
pub fn parse(text: &str) -> Result<Node, YamlError> {
    let mut builder = Builder::default();
    Parser::new_from_str(text)
        .load(&mut builder, false)
        .map_err(|e| YamlError::Syntax {
            line: e.marker().line(),
            column: e.marker().col().saturating_add(1),
            message: e.info().to_owned(),
        })?;
    if let Some(line) = builder.too_deep {
        return Err(YamlError::TooDeep { line });
    }
    if builder.too_large {
        return Err(YamlError::TooLarge);
    }
    builder.root.ok_or(YamlError::Empty)
}

enum Open {
    Seq(Pos, usize, Vec<Node>),
    Map(Pos, usize, Vec<(Scalar, Node)>, Option<Scalar>),
}

/// A collection being built, with the nodes below it so far (every copy).
struct Frame {
    open: Open,
    size: usize,
}

#[derive(Default)]
struct Builder {
    stack: Vec<Frame>,
    /// Each anchor's node and its size in nodes.
    anchors: HashMap<usize, (Node, usize)>,
    root: Option<Node>,
    nodes: usize,
    too_large: bool,
    too_deep: Option<usize>,
}

impl Builder {
    /// Counts `size` more nodes held in memory; false once over the limit.
    fn hold(&mut self, size: usize) -> bool {
        self.nodes = self.nodes.saturating_add(size);
        if self.nodes > MAX_NODES {
            self.too_large = true;
            self.stack.clear();
            self.anchors.clear();
        }
        !self.too_large
    }

    /// Places a finished node of `size` nodes into its parent.
    fn finish(&mut self, node: Node, size: usize, anchor: usize) {
        if anchor > 0 {
            // The anchor keeps a copy: it counts as much as the node.
            if !self.hold(size) {
                return;
            }
            self.anchors.insert(anchor, (node.clone(), size));
        }
        if let Some(frame) = self.stack.last_mut() {
            frame.size = frame.size.saturating_add(size);
        }
        let open = self.stack.last_mut().map(|f| &mut f.open);
        match open {
            None => {
                if self.root.is_none() {
                    self.root = Some(node);
                }
            }
            Some(Open::Seq(at, _, items)) => {
                if items.is_empty() {
                    *at = node.at;
                }
                items.push(node);
            }
            Some(Open::Map(at, _, entries, key)) => match key.take() {
                Some(k) => entries.push((k, node)),
                None => {
                    // A key that is not a scalar: kept as its text-less
                    // position (workflows never use one).
                    let k = match node.value {
                        Value::Scalar(s) => s,
                        _ => Scalar {
                            text: String::new(),
                            style: Style::Plain,
                            at: node.at,
                        },
                    };
                    if entries.is_empty() {
                        *at = k.at;
                    }
                    *key = Some(k);
                }
            },
        }
    }
}

impl Builder {
    fn open(&mut self, open: Open, at: Pos) {
        if self.stack.len() >= MAX_DEPTH {
            self.too_deep = Some(at.line);
            self.stack.clear();
            return;
        }
        self.stack.push(Frame { open, size: 1 });
    }
}

impl MarkedEventReceiver for Builder {
    fn on_event(&mut self, event: Event, mark: Marker) {
        if self.too_large || self.too_deep.is_some() {
            return;
        }
        if !self.hold(1) {
            return;
        }
        let at = Pos::from_marker(mark);
        match event {
            Event::Scalar(text, style, anchor, _) => {
                let style = match style {
                    TScalarStyle::Plain => Style::Plain,
                    TScalarStyle::Literal => Style::Literal,
                    TScalarStyle::Folded => Style::Folded,
                    _ => Style::Quoted,
                };
                let value = Value::Scalar(Scalar { text, style, at });
                self.finish(Node { at, value }, 1, anchor);
            }
            Event::SequenceStart(anchor, _) => self.open(Open::Seq(at, anchor, Vec::new()), at),
            Event::MappingStart(anchor, _) => {
                self.open(Open::Map(at, anchor, Vec::new(), None), at);
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let Some(Frame { open, size }) = self.stack.pop() else {
                    return;
                };
                let (node, anchor) = match open {
                    Open::Seq(at, anchor, items) => (
                        Node {
                            at,
                            value: Value::Seq(items),
                        },
                        anchor,
                    ),
                    Open::Map(at, anchor, entries, _) => (
                        Node {
                            at,
                            value: Value::Map(entries),
                        },
                        anchor,
                    ),
                };
                self.finish(node, size, anchor);
            }
            Event::Alias(id) => {
                let Some(size) = self.anchors.get(&id).map(|(_, size)| *size) else {
                    return;
                };
                // Counted before it is copied: a copy past the limit is
                // never made.
                if !self.hold(size) {
                    return;
                }
                if let Some((node, _)) = self.anchors.get(&id) {
                    let node = node.clone();
                    self.finish(node, size, 0);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_point_at_keys_values_and_lines_inside_a_block_scalar() {
        let text = "on:\n  push:\njobs:\n  bench:\n    runs-on: [self-hosted, 'gpu']\n    steps:\n      - run: |\n          echo hi\n            git fetch origin main\n";
        let root = parse(text).unwrap();
        assert_eq!(root.key("on").unwrap().at, Pos { line: 1, column: 1 });
        let job = root.get("jobs").unwrap().get("bench").unwrap();
        assert_eq!(job.at, Pos { line: 5, column: 5 });
        let labels = job.get("runs-on").unwrap().items();
        assert_eq!(
            labels[1].scalar().unwrap().pos_of(0),
            Pos {
                line: 5,
                column: 29
            }
        );
        let run = job.get("steps").unwrap().items()[0].get("run").unwrap();
        let script = run.scalar().unwrap();
        let at = script.text.find("git").unwrap();
        assert_eq!(
            script.pos_of(at),
            Pos {
                line: 9,
                column: 13
            }
        );
    }

    #[test]
    fn anchors_expand_and_a_billion_laughs_is_refused() {
        let root = parse("a: &x {b: 1}\nc: *x\n").unwrap();
        assert_eq!(root.get("c").unwrap().get("b").unwrap().str(), Some("1"));
        let mut laughs = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..9 {
            let prev = format!("*a{}", i - 1);
            laughs.push_str(&format!("a{i}: &a{i} [{}]\n", vec![prev; 10].join(", ")));
        }
        assert!(matches!(parse(&laughs), Err(YamlError::TooLarge)));
        // Issue 26: 1 KB of anchors nested 30 deep, each doubling the last
        // (780,000 nodes expanded, 1.2 GB and an abort before).
        let mut doubling = String::from("a0: &a0 [x]\n");
        for i in 1..30 {
            doubling.push_str(&format!("a{i}: &a{i} [*a{}, *a{}]\n", i - 1, i - 1));
        }
        assert!(doubling.len() < 1_100);
        assert!(matches!(parse(&doubling), Err(YamlError::TooLarge)));
        let deep = format!("a: {}x{}\n", "[".repeat(100), "]".repeat(100));
        assert!(
            matches!(parse(&deep), Err(YamlError::TooDeep { line: 1 })),
            "{:?}",
            parse(&deep).map(|_| ())
        );
        assert!(matches!(
            parse("a: [b\n"),
            Err(YamlError::Syntax { line: 2, .. })
        ));
    }
}
