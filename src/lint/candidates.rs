//! The strings an expression may give: a runner chosen by a condition
//! (`runs-on: ${{ matrix.gpu == 'a100' && 'linux-gpu-a100' ||
//! 'ubuntu-latest' }}`) runs on one of its quoted results, so each is a
//! candidate runner and any expensive one makes the job expensive. Read on
//! stablehlo's `${{ github.repository == 'openxla/stablehlo' &&
//! 'linux-x86-n2-16' || 'ubuntu-22.04' }}`,
//! where the custom 16-core runner was not seen.
//!
//! Only what the expression can evaluate to counts: the operands of a
//! comparison (`'openxla/stablehlo'`, `'a100'`) and the arguments of a
//! test (`contains(labels, 'gpu')`) are not results. `fromJSON('["a",
//! "b"]')` gives its strings (a list of labels is one runner asking for
//! all of them), `format('{0}-gpu', x)` its template with each `{N}` read
//! as its argument when that is one literal, else left as written. A
//! context (`matrix.runner`, `inputs.runner`) gives nothing here: what it
//! holds is read elsewhere (the matrix, the call's inputs). Pure.

/// Longest expression read: `runs-on` and `with:` values are short; a
/// stranger's file may hold anything.
const MAX_LEN: usize = 4096;

/// The strings `value` may evaluate to when it is one `${{ ... }}`
/// expression; empty for plain text, a template with text around an
/// expression, or an expression of contexts alone.
pub fn candidates(value: &str) -> Vec<String> {
    let Some(inner) = value
        .trim()
        .strip_prefix("${{")
        .and_then(|r| r.strip_suffix("}}"))
    else {
        return Vec::new();
    };
    if inner.contains("${{") || inner.len() > MAX_LEN {
        return Vec::new();
    }
    let mut reader = Reader {
        cur: Cursor::new(inner),
    };
    let mut out = reader.or();
    out.retain(|s| !s.trim().is_empty());
    out.dedup();
    out
}

/// A place in an expression's text, for the readers of its syntax (this
/// one, and `rules::group`'s, which evaluates a concurrency group).
pub struct Cursor<'s> {
    pub src: &'s [u8],
    pub at: usize,
    /// How many operands are open (parentheses, arguments, negations).
    depth: usize,
}

/// Operands nested deeper than this are not read: each level is a call of
/// the reader, and a stranger's group or runner may nest `((((...` past
/// any stack (200,000 levels crashed lint before this bound).
pub const MAX_DEPTH: usize = 64;

impl<'s> Cursor<'s> {
    pub fn new(text: &'s str) -> Self {
        Cursor {
            src: text.as_bytes(),
            at: 0,
            depth: 0,
        }
    }

    /// Opens an operand; `false` past [`MAX_DEPTH`], when the rest of the
    /// text is skipped (and the operand must not be read).
    pub fn enter(&mut self) -> bool {
        if self.depth >= MAX_DEPTH {
            self.at = self.src.len();
            return false;
        }
        self.depth = self.depth.saturating_add(1);
        true
    }

    /// Closes the operand [`Cursor::enter`] opened.
    pub fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    pub fn step(&mut self, n: usize) {
        self.at = self.at.saturating_add(n);
    }

    pub fn done(&self) -> bool {
        self.at >= self.src.len()
    }

    pub fn rest(&self) -> &[u8] {
        self.src.get(self.at..).unwrap_or_default()
    }

    /// The text from `start` to here.
    pub fn since(&self, start: usize) -> String {
        String::from_utf8_lossy(self.src.get(start..self.at).unwrap_or_default()).into_owned()
    }

    pub fn skip_space(&mut self) {
        while self.src.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.step(1);
        }
    }

    /// Reads `token` (after any spaces) when it comes next.
    pub fn eat(&mut self, token: &str) -> bool {
        self.skip_space();
        let ok = self.rest().starts_with(token.as_bytes());
        if ok {
            self.step(token.len());
        }
        ok
    }

    /// A name, a context's path or a function's (`github.event.action`,
    /// `labels.*.name`); empty when none comes next.
    pub fn name(&mut self) -> String {
        let start = self.at;
        while self
            .src
            .get(self.at)
            .is_some_and(|&c| c.is_ascii_alphanumeric() || b"._-*[]".contains(&c))
        {
            self.step(1);
        }
        self.since(start)
    }
}

/// What an operand may be: the strings it may give, or a test (a
/// comparison, a negation, a function's answer) that gives no string.
struct Reader<'s> {
    cur: Cursor<'s>,
}

impl Reader<'_> {
    fn eat(&mut self, token: &str) -> bool {
        self.cur.eat(token)
    }

    /// `a || b`: either side's strings.
    fn or(&mut self) -> Vec<String> {
        let mut out = self.and();
        while self.eat("||") {
            out.extend(self.and());
        }
        out
    }

    /// `a && b`: `b` when `a` holds; when it does not, `a` is false or
    /// empty, no runner.
    fn and(&mut self) -> Vec<String> {
        let mut out = self.compare();
        while self.eat("&&") {
            out = self.compare();
        }
        out
    }

    /// One operand, its nesting bounded ([`Cursor::enter`]).
    fn compare(&mut self) -> Vec<String> {
        if !self.cur.enter() {
            return Vec::new();
        }
        let v = self.operand();
        self.cur.leave();
        v
    }

    /// A comparison or a negation gives true or false, not a string.
    fn operand(&mut self) -> Vec<String> {
        if self.eat("!") && !self.cur.rest().starts_with(b"=") {
            self.compare();
            return Vec::new();
        }
        let left = self.primary();
        for op in ["==", "!=", "<=", ">=", "<", ">"] {
            if self.eat(op) {
                self.primary();
                return Vec::new();
            }
        }
        left
    }

    fn primary(&mut self) -> Vec<String> {
        self.cur.skip_space();
        if self.eat("(") {
            let inner = self.or();
            self.eat(")");
            return inner;
        }
        if self.cur.rest().first() == Some(&b'\'') {
            return vec![self.quoted()];
        }
        let word = self.cur.name().to_ascii_lowercase();
        if word.is_empty() {
            // Not syntax this reader knows: stop reading.
            self.cur.at = self.cur.src.len();
            return Vec::new();
        }
        if !self.eat("(") {
            return Vec::new();
        }
        let mut args = Vec::new();
        while !self.eat(")") && !self.cur.done() {
            args.push(self.or());
            self.eat(",");
        }
        match word.as_str() {
            "fromjson" => args.first().map(|a| from_json(a)).unwrap_or_default(),
            "format" => format(&args),
            _ => Vec::new(),
        }
    }

    /// A `'...'` literal, its `''` read as `'`.
    fn quoted(&mut self) -> String {
        self.cur.step(1);
        let mut text = Vec::new();
        while let Some(&c) = self.cur.src.get(self.cur.at) {
            self.cur.step(1);
            if c == b'\'' {
                if self.cur.src.get(self.cur.at) == Some(&b'\'') {
                    self.cur.step(1);
                } else {
                    break;
                }
            }
            text.push(c);
        }
        String::from_utf8_lossy(&text).into_owned()
    }
}

/// The strings of JSON texts: a string, or a list's strings.
fn from_json(texts: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for text in texts {
        match serde_json::from_str::<serde_json::Value>(text) {
            Ok(serde_json::Value::String(s)) => out.push(s),
            Ok(serde_json::Value::Array(items)) => out.extend(
                items
                    .into_iter()
                    .filter_map(|i| i.as_str().map(str::to_owned)),
            ),
            _ => {}
        }
    }
    out
}

/// `format(template, args...)`: each template with `{N}` read as argument
/// N when that is one literal.
fn format(args: &[Vec<String>]) -> Vec<String> {
    let Some((templates, rest)) = args.split_first() else {
        return Vec::new();
    };
    templates
        .iter()
        .map(|t| {
            let mut s = t.clone();
            for (n, arg) in rest.iter().enumerate() {
                if let [one] = arg.as_slice() {
                    s = s.replace(&format!("{{{n}}}"), one);
                }
            }
            s
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_candidates_and_operands_are_not() {
        let c = |v: &str| candidates(v);
        assert_eq!(
            c(
                "${{ github.repository == 'openxla/stablehlo' && 'linux-x86-n2-16' || 'ubuntu-22.04' }}"
            ),
            ["linux-x86-n2-16", "ubuntu-22.04"]
        );
        assert_eq!(
            c("${{ matrix.gpu == 'a100' && 'linux-gpu-a100' || 'ubuntu-latest' }}"),
            ["linux-gpu-a100", "ubuntu-latest"]
        );
        assert_eq!(
            c(r#"${{ fromJSON('["self-hosted", "mi300"]') }}"#),
            ["self-hosted", "mi300"]
        );
        assert_eq!(
            c("${{ format('linux-{0}-gpu', 'mi325') }}"),
            ["linux-mi325-gpu"]
        );
        assert_eq!(c("${{ format('linux-{0}', matrix.arch) }}"), ["linux-{0}"]);
        assert_eq!(c("${{ inputs.runner || 'it''s' }}"), ["it's"]);
        assert_eq!(
            c(
                "${{ !contains(github.event.pull_request.labels.*.name, 'gpu') && 'ubuntu-latest' || 'gpu-box' }}"
            ),
            ["ubuntu-latest", "gpu-box"]
        );
        assert!(c("${{ matrix.runner }}").is_empty());
        assert!(c("ubuntu-latest").is_empty());
        assert!(c("x-${{ 'a' }}").is_empty());
        assert!(c("${{ 'unclosed }}").len() <= 1);
        assert!(c("${{ (((( }}").is_empty());
        let deep = format!("${{{{ {}'gpu'{} }}}}", "(".repeat(2000), ")".repeat(2000));
        assert!(c(&deep).is_empty());
        let shallow = format!("${{{{ {}'gpu'{} }}}}", "(".repeat(20), ")".repeat(20));
        assert_eq!(c(&shallow), ["gpu"]);
    }
}
