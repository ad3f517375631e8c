//! A workflow file as a tree whose every node knows its line and column.
//!
//! Built from libyaml's event parser, in its safe Rust port
//! (`libyaml-safer`), not from a serde model: a finding must point at the
//! node, and inside a block scalar at the line of the script, which needs
//! the scalar's style and where its first line starts. libyaml is what
//! PyYAML and Ruby read YAML with, and it reads what GitHub runs: a
//! multi-line flow sequence whose closing `]` sits at its key's
//! indentation (`runners: [` ... `]`), which yaml-rust2 and saphyr refuse
//! as "invalid indentation" (their issues #30 and #69, saphyr #55; the fix,
//! saphyr PR #108, is in no release). Every scalar stays a string (`on:` is
//! a key, not `true`). Aliases are expanded, every copy counted, so a
//! "billion laughs" file is an error rather than a full memory.

use std::collections::HashMap;
use std::sync::OnceLock;

use libyaml_safer::{EventData, Mark, Parser, ScalarStyle};
use thiserror::Error;

mod folds;

/// Nodes a file may expand to, every copy counted (each alias, and the
/// copy an anchor keeps): a workflow of 1,500 lines has about 5,000, so
/// this is 50 times the largest real one, about 40 MB of tree at most.
pub const MAX_NODES: usize = 250_000;
/// Collections open at once: a real workflow nests about 8 deep. Deeper
/// is refused, so nothing that walks the tree (or drops it) can exhaust
/// the stack.
pub const MAX_DEPTH: usize = 64;
/// Bytes of scalar text (and its line table) a file may expand to, every
/// copy counted: an alias copies its node's text, so a 160 KB file of one
/// 100 KB anchored value and 20,000 aliases to it would hold 2 GB (it
/// aborted lint on a memory limit). The largest real workflow holds about
/// 200 KB of text, so this is 300 times that.
pub const MAX_BYTES: usize = 64 << 20;

/// A place in the file: line and column, both from 1 (columns in
/// characters), as editors and SARIF count them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Pos {
    pub line: usize,
    pub column: usize,
}

impl Pos {
    /// libyaml counts lines and columns from 0.
    fn from_mark(m: Mark) -> Pos {
        let one = |n: u64| usize::try_from(n).unwrap_or(usize::MAX).saturating_add(1);
        Pos {
            line: one(m.line),
            column: one(m.column),
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
    /// Its lines and characters, found once when a position is first
    /// asked: a stranger's script of 100,000 commands has a finding on
    /// each, and counting the lines and columns before every one was
    /// quadratic (a 4 MiB workflow took minutes).
    lines: OnceLock<Lines>,
    /// For a plain or folded value over several lines of the file: where
    /// each later line starts in the value, and its place (see
    /// [`folds::line_starts`]).
    folds: Vec<(usize, Pos)>,
}

/// Bytes between two counts of a value's characters in [`Lines`]: a
/// position costs at most this much counting past a search.
const STRIDE: usize = 4096;

/// Where a value's line feeds are, and how many characters come before a
/// char boundary at every [`STRIDE`] bytes.
#[derive(Debug, Clone, Default)]
struct Lines {
    newlines: Vec<usize>,
    /// (byte offset, characters before it), ascending.
    marks: Vec<(usize, usize)>,
}

impl Lines {
    fn of(text: &str) -> Lines {
        let newlines = memchr::memchr_iter(b'\n', text.as_bytes()).collect();
        let mut marks = vec![(0, 0)];
        let (mut at, mut chars) = (0usize, 0usize);
        while at < text.len() {
            let mut next = at.saturating_add(STRIDE).min(text.len());
            while !text.is_char_boundary(next) {
                next = next.saturating_add(1);
            }
            let counted = text.get(at..next).map_or(0, |s| s.chars().count());
            chars = chars.saturating_add(counted);
            marks.push((next, chars));
            at = next;
        }
        Lines { newlines, marks }
    }

    /// The characters of `text` before byte `offset`, a char boundary.
    fn chars_before(&self, text: &str, offset: usize) -> usize {
        let mark = self.marks.partition_point(|&(byte, _)| byte <= offset);
        let (byte, chars) = mark
            .checked_sub(1)
            .and_then(|m| self.marks.get(m))
            .copied()
            .unwrap_or_default();
        let rest = text.get(byte..offset).map_or(0, |s| s.chars().count());
        chars.saturating_add(rest)
    }
}

impl Scalar {
    pub fn new(text: String, style: Style, at: Pos) -> Scalar {
        Scalar {
            text,
            style,
            at,
            lines: OnceLock::new(),
            folds: Vec::new(),
        }
    }

    /// Where byte `offset` of the value is in the file.
    pub fn pos_of(&self, offset: usize) -> Pos {
        let end = self.text.get(..offset).map_or(self.text.len(), str::len);
        let index = self.lines.get_or_init(|| Lines::of(&self.text));
        // The line feeds before `offset`, and the line it is on.
        let lines = index.newlines.partition_point(|&n| n < end);
        let line_start = lines
            .checked_sub(1)
            .and_then(|last| index.newlines.get(last))
            .map_or(0, |n| n.saturating_add(1));
        let column = index
            .chars_before(&self.text, end)
            .saturating_sub(index.chars_before(&self.text, line_start));
        match self.style {
            Style::Literal => Pos {
                line: self.at.line.saturating_add(lines),
                column: self.at.column.saturating_add(column),
            },
            Style::Quoted => Pos {
                line: self.at.line,
                column: self.at.column.saturating_add(column).saturating_add(1),
            },
            Style::Plain | Style::Folded => {
                let fold = self.folds.partition_point(|&(start, _)| start <= end);
                match fold.checked_sub(1).and_then(|f| self.folds.get(f)) {
                    Some(&(start, at)) => Pos {
                        line: at.line,
                        column: at.column.saturating_add(
                            index
                                .chars_before(&self.text, end)
                                .saturating_sub(index.chars_before(&self.text, start)),
                        ),
                    },
                    None => Pos {
                        line: self.at.line,
                        column: self.at.column.saturating_add(column),
                    },
                }
            }
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
    #[error("too large once aliases are expanded: more than {} MiB of text", MAX_BYTES >> 20)]
    TooLong,
    #[error("line {line}: nested more than {MAX_DEPTH} levels deep")]
    TooDeep { line: usize },
    #[error("the file holds no YAML document")]
    Empty,
    /// The parser failed inside (a panic it was contained from): a fault
    /// of the reader, which GitHub's may not share, so the text says so.
    #[error(
        "the YAML reader (libyaml-safer) failed inside on it, so it is not linted; GitHub's reader may still accept it: {message}"
    )]
    Reader { message: String },
}

/// Parses the first document of `text`; events are pulled one at a time
/// and the parse stops at the first document's end or a limit. The parser
/// is a port that can panic on input libyaml itself reads (a block scalar
/// at the very end without a line break, a tag before a `,` in a flow):
/// the text is given a final line break, as GitHub's reader needs none,
/// and any other panic is contained and said as this file's error.
pub fn parse(text: &str) -> Result<Node, YamlError> {
    let ended;
    let text = if text.ends_with('\n') {
        text
    } else {
        ended = format!("{text}\n");
        ended.as_str()
    };
    crate::runner::panic::contain(|| parse_ended(text)).unwrap_or_else(|message| {
        Err(YamlError::Reader {
            message: from_crate(&message).into_owned(),
        })
    })
}

/// A panic's message with its place from the crate's own folder on
/// (`libyaml-safer-0.3.0/src/scanner.rs:1112:13`), not the builder's
/// registry path.
fn from_crate(message: &str) -> std::borrow::Cow<'_, str> {
    match (message.find("(at /"), message.find("/libyaml-safer-")) {
        (Some(at), Some(name)) if name > at => {
            let (head, _) = message.split_at(at);
            let (_, tail) = message.split_at(name.saturating_add(1));
            format!("{head}(at {tail}").into()
        }
        _ => message.into(),
    }
}

fn parse_ended(text: &str) -> Result<Node, YamlError> {
    let mut builder = Builder {
        text,
        ..Builder::default()
    };
    let mut input = text.as_bytes();
    let mut parser = Parser::new();
    parser.set_input_string(&mut input);
    loop {
        let event = parser.parse().map_err(|e| {
            let at = e.problem_mark().map(Pos::from_mark).unwrap_or_default();
            let message = match e.context() {
                Some(context) => format!("{} {context}", e.problem()),
                None => e.problem().to_owned(),
            };
            YamlError::Syntax {
                line: at.line,
                column: at.column,
                message,
            }
        })?;
        match event.data {
            EventData::StreamEnd | EventData::DocumentEnd { .. } => break,
            data => builder.on_event(data, event.start_mark, event.end_mark),
        }
        if let Some(line) = builder.too_deep {
            return Err(YamlError::TooDeep { line });
        }
        if builder.too_large {
            return Err(if builder.held.bytes > MAX_BYTES {
                YamlError::TooLong
            } else {
                YamlError::TooLarge
            });
        }
    }
    builder.root.ok_or(YamlError::Empty)
}

enum Open {
    Seq(Pos, Option<String>, Vec<Node>),
    Map(Pos, Option<String>, Vec<(Scalar, Node)>, Option<Scalar>),
}

/// A collection being built, with the nodes below it so far (every copy).
struct Frame {
    open: Open,
    size: Size,
}

/// What a node holds in memory, every copy counted: its nodes, and the
/// bytes of its scalars' text and line tables.
#[derive(Clone, Copy, Default)]
struct Size {
    nodes: usize,
    bytes: usize,
}

impl Size {
    const ONE: Size = Size { nodes: 1, bytes: 0 };

    fn plus(self, other: Size) -> Size {
        Size {
            nodes: self.nodes.saturating_add(other.nodes),
            bytes: self.bytes.saturating_add(other.bytes),
        }
    }
}

#[derive(Default)]
struct Builder<'t> {
    /// The file, for where a block scalar's first line starts.
    text: &'t str,
    stack: Vec<Frame>,
    /// Each anchor's node and its size.
    anchors: HashMap<String, (Node, Size)>,
    root: Option<Node>,
    held: Size,
    too_large: bool,
    too_deep: Option<usize>,
}

impl Builder<'_> {
    /// Counts `size` more held in memory; false once over a limit.
    fn hold(&mut self, size: Size) -> bool {
        self.held = self.held.plus(size);
        if self.held.nodes > MAX_NODES || self.held.bytes > MAX_BYTES {
            self.too_large = true;
            self.stack.clear();
            self.anchors.clear();
        }
        !self.too_large
    }

    /// Places a finished node of `size` nodes into its parent.
    fn finish(&mut self, node: Node, size: Size, anchor: Option<String>) {
        if let Some(anchor) = anchor {
            // The anchor keeps a copy: it counts as much as the node.
            if !self.hold(size) {
                return;
            }
            self.anchors.insert(anchor, (node.clone(), size));
        }
        if let Some(frame) = self.stack.last_mut() {
            frame.size = frame.size.plus(size);
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
                        _ => Scalar::new(String::new(), Style::Plain, node.at),
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

impl Builder<'_> {
    fn open(&mut self, open: Open, at: Pos) {
        if self.stack.len() >= MAX_DEPTH {
            self.too_deep = Some(at.line);
            self.stack.clear();
            return;
        }
        self.stack.push(Frame {
            open,
            size: Size::ONE,
        });
    }
}

impl Builder<'_> {
    /// Where a block scalar's value starts: the first character of its
    /// first non-blank line after the `|` or `>` line at `mark`.
    /// Also its byte in the file (the text from `mark` on when not found).
    fn block_start(&self, mark: Mark) -> (Pos, usize) {
        let from = usize::try_from(mark.index).unwrap_or(usize::MAX);
        let rest = self.text.get(from..).unwrap_or("");
        let mut line = Pos::from_mark(mark).line;
        let mut byte = from;
        for (i, l) in rest.split('\n').enumerate() {
            let content = l.trim_start_matches(' ');
            let indent = l.len().saturating_sub(content.len());
            if i > 0 && !content.trim().is_empty() {
                let at = Pos {
                    line,
                    column: indent.saturating_add(1),
                };
                return (at, byte.saturating_add(indent));
            }
            line = line.saturating_add(1);
            byte = byte.saturating_add(l.len()).saturating_add(1);
        }
        (Pos::from_mark(mark), from)
    }

    /// A scalar read: its style, where its text starts in the file (a block
    /// scalar's first line, not its indicator), where each line of a plain
    /// or folded one begins, and its bytes counted before it is kept.
    fn on_scalar(
        &mut self,
        value: String,
        style: ScalarStyle,
        anchor: Option<String>,
        (mark, end): (Mark, Mark),
    ) {
        let at = Pos::from_mark(mark);
        let index = usize::try_from(mark.index).unwrap_or(usize::MAX);
        let (style, (at, from)) = match style {
            ScalarStyle::Literal => (Style::Literal, self.block_start(mark)),
            ScalarStyle::Folded => (Style::Folded, self.block_start(mark)),
            ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted => (Style::Quoted, (at, index)),
            _ => (Style::Plain, (at, index)),
        };
        let mut scalar = Scalar::new(value, style, at);
        if matches!(style, Style::Plain | Style::Folded) {
            let end = usize::try_from(end.index).unwrap_or(usize::MAX);
            scalar.folds = folds::line_starts(self.text, (from, end), at, &scalar.text);
        }
        let bytes = scalar
            .text
            .len()
            .saturating_add(std::mem::size_of_val(scalar.folds.as_slice()));
        if !self.hold(Size { nodes: 0, bytes }) {
            return;
        }
        let value = Value::Scalar(scalar);
        self.finish(Node { at, value }, Size { nodes: 1, bytes }, anchor);
    }

    fn on_event(&mut self, event: EventData, mark: Mark, end: Mark) {
        if self.too_large || self.too_deep.is_some() || !self.hold(Size::ONE) {
            return;
        }
        let at = Pos::from_mark(mark);
        match event {
            EventData::Scalar {
                value,
                style,
                anchor,
                ..
            } => self.on_scalar(value, style, anchor, (mark, end)),
            EventData::SequenceStart { anchor, .. } => {
                self.open(Open::Seq(at, anchor, Vec::new()), at);
            }
            EventData::MappingStart { anchor, .. } => {
                self.open(Open::Map(at, anchor, Vec::new(), None), at);
            }
            EventData::SequenceEnd | EventData::MappingEnd => {
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
            EventData::Alias { anchor } => {
                let Some(size) = self.anchors.get(&anchor).map(|(_, size)| *size) else {
                    return;
                };
                // Counted before it is copied: a copy past the limit is
                // never made.
                if !self.hold(size) {
                    return;
                }
                if let Some((node, _)) = self.anchors.get(&anchor) {
                    let node = node.clone();
                    self.finish(node, size, None);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests;
