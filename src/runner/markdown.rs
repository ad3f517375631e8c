//! Text for the job summary's Markdown. Values come from payloads, files and
//! servers: the summary shows them, never interprets them.

/// Text for a Markdown table cell or list item: nothing in it can close the
/// cell, open HTML, start a code span, or become a link, an image or
/// emphasis (`![x](https://evil.example/i.png)` stays text).
pub fn escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '\\' | '!' | '[' | ']' | '(' | ')' | '*' | '_' | '~' | '#' => {
                out.push('\\');
                out.push(c);
            }
            '|' => out.push_str("\\|"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '`' => out.push_str("&#96;"),
            '\r' | '\n' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn markdown_from_servers_stays_text() {
        let hostile =
            "![x](https://evil.example/i.png) [click](javascript:x) **b** <img> `c` a|b\\[";
        let shown = escape(hostile);
        for live in ["![", "](", "[click]", "**", "<img>", "`c`", "a|b"] {
            assert!(!shown.contains(live), "{live} in {shown}");
        }
        assert_eq!(
            escape("ROCm/FlyDSL v0.3.2.dev838"),
            "ROCm/FlyDSL v0.3.2.dev838"
        );
        assert_eq!(escape(r"\["), r"\\\[", "a backslash cannot undo an escape");
    }
}
