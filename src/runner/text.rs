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

/// A measured value with its unit, as every output but the dashboard block
/// (whose fixed columns are its own) writes it: three decimals whatever the
/// size, so the baseline and the current of one row, and two rows of one
/// unit, line up and compare by eye (`100.000 TFLOPS`, `50.000 TFLOPS`).
pub fn quantity(value: f64, unit: &str) -> String {
    if unit.is_empty() {
        format!("{value:.3}")
    } else {
        format!("{value:.3} {unit}")
    }
}

/// `n` and its noun, an `s` added for any count but one (`1 run`,
/// `2 runs`): counts read as English in every headline.
pub fn counted(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// `value` with control characters written as `\u{..}`, cut at `max`
/// characters: a cell of a results file as a person should see it (an
/// ordinary one borrowed as it is). Reads no further than it shows.
pub fn visible(value: &str, max: usize) -> std::borrow::Cow<'_, str> {
    let plain_ascii = value.len() <= max && value.bytes().all(|b| (0x20..0x7f).contains(&b));
    if plain_ascii {
        return value.into();
    }
    let mut out = String::new();
    for (count, c) in value.chars().enumerate() {
        if count >= max {
            out.push_str(&format!("... ({} bytes)", value.len()));
            return out.into();
        }
        if c.is_control() {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    if out == value {
        value.into()
    } else {
        out.into()
    }
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
