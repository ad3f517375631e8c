//! Values in messages: whatever a payload, a file or a server put in a
//! value, a message shows a bounded, visible part of it. Cutting is said
//! (`... (N bytes)`), never silent.

/// Values longer than this are cut in messages: an attacker-sized string
/// should not become an attacker-sized log line.
const SHOWN: usize = 80;

/// A value as a message shows it: whole when short, else its first 80
/// characters and its size.
pub fn shown(value: &str) -> String {
    cut(value, SHOWN)
}

/// At most `max` characters of `value`, then `... (N bytes)` when cut.
pub fn cut(value: &str, max: usize) -> String {
    match value.char_indices().nth(max) {
        None => value.to_owned(),
        Some((end, _)) => format!(
            "{}... ({} bytes)",
            value.get(..end).unwrap_or_default(),
            value.len()
        ),
    }
}

/// `value` with control characters written as `\u{..}`, cut at `max`
/// characters: a cell of a results file as a person should see it (an
/// ordinary one borrowed as it is).
pub fn visible(value: &str, max: usize) -> std::borrow::Cow<'_, str> {
    let clean = value.len() <= max && value.bytes().all(|b| b >= 0x20 && b != 0x7f && b < 0x80)
        || value.chars().all(|c| !c.is_control()) && value.chars().nth(max).is_none();
    if clean {
        return value.into();
    }
    let escaped: String = value
        .chars()
        .map(|c| {
            if c.is_control() {
                format!("\\u{{{:x}}}", u32::from(c))
            } else {
                c.to_string()
            }
        })
        .collect();
    cut(&escaped, max).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_says_so_and_keeps_short_values() {
        assert_eq!(shown("short"), "short");
        let long = "é".repeat(100);
        let s = shown(&long);
        assert!(s.ends_with("... (200 bytes)"), "{s}");
        assert_eq!(s.chars().filter(|c| *c == 'é').count(), 80);
        assert_eq!(visible("a\tb\u{1b}[31m", 100), "a\\u{9}b\\u{1b}[31m");
    }
}
