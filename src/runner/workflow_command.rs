//! The syntax of a workflow command, `::warning title=...::message`.
//! Escaping follows `@actions/core` (`command.ts`): in data, `%`, CR and
//! LF; in properties also `:` and `,`. Without it a message with a line
//! break would end the command and start a line the runner reads as a new
//! command. Only [`super::log`] formats commands: it also breaks any `##[`
//! the data holds.

use std::fmt::Write as _;

pub fn escape_data(value: &str) -> String {
    value
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

pub fn escape_property(value: &str) -> String {
    escape_data(value).replace(':', "%3A").replace(',', "%2C")
}

/// `::name key=value,...::message` and a newline, escaped.
pub(super) fn format(out: &mut String, name: &str, properties: &[(&str, &str)], message: &str) {
    out.push_str("::");
    out.push_str(name);
    for (i, (key, value)) in properties.iter().enumerate() {
        out.push(if i == 0 { ' ' } else { ',' });
        let _ = write!(out, "{key}={}", escape_property(value));
    }
    out.push_str("::");
    out.push_str(&escape_data(message));
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_like_the_toolkit() {
        let mut out = String::new();
        format(
            &mut out,
            "warning",
            &[("title", "a:b,c%\n")],
            "100%\r\n::error::x",
        );
        assert_eq!(
            out,
            "::warning title=a%3Ab%2Cc%25%0A::100%25%0D%0A::error::x\n"
        );
    }
}
