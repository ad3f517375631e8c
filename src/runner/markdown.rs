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

/// A label from data as a chart may show it: letters, digits and a few
/// separators, the rest `_`, at most `max` characters (nothing can end the
/// string or the block).
fn clean_to(text: &str, max: usize) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || " _.=-/:x+%(),".contains(c) {
                c
            } else {
                '_'
            }
        })
        .take(max)
        .collect()
}

/// One bar of a chart: its label, its value and the line's value there.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    pub label: String,
    pub value: f64,
    pub line: f64,
}

/// The most bars a chart shows.
pub const CHART_BARS: usize = 20;

/// A Mermaid `xychart-beta` (GitHub renders Mermaid 11 in summaries and
/// comments; xy charts exist since 10.5): bars, and a line over them, for
/// at most [`CHART_BARS`] bars. Labels come from data: only letters,
/// digits and a few separators pass, the rest become `_`, each label at
/// most 40 characters, so nothing can end the block or the string.
pub fn xychart(title: &str, y_label: &str, bars: &[Bar]) -> String {
    let clean = |text: &str| clean_to(text, 40);
    let bars = bars.get(..bars.len().min(CHART_BARS)).unwrap_or_default();
    let top = bars
        .iter()
        .flat_map(|b| [b.value, b.line])
        .filter(|v| v.is_finite())
        .fold(1.0f64, f64::max);
    let number = |v: f64| {
        if v.is_finite() {
            format!("{v:.1}")
        } else {
            "0".to_owned()
        }
    };
    let labels: Vec<String> = bars
        .iter()
        .map(|b| format!("\"{}\"", clean(&b.label)))
        .collect();
    let values: Vec<String> = bars.iter().map(|b| number(b.value)).collect();
    let lines: Vec<String> = bars.iter().map(|b| number(b.line)).collect();
    format!(
        "```mermaid\nxychart-beta\n    title \"{}\"\n    x-axis [{}]\n    y-axis \"{}\" 0 --> {}\n    bar [{}]\n    line [{}]\n```\n",
        clean_to(title, 80),
        labels.join(", "),
        clean_to(y_label, 80),
        number((top * 1.1).ceil()),
        values.join(", "),
        lines.join(", ")
    )
}

/// The most points a line chart shows (the last ones).
pub const LINE_POINTS: usize = 100;

/// A Mermaid `xychart-beta` line: `values` in order (the last
/// [`LINE_POINTS`]), with a bar at position `mark` (a change point) so the
/// eye finds where it starts. The title and axis label are cleaned as
/// [`xychart`]'s; the points are numbers only, so no label from data
/// reaches the chart but the title.
pub fn line_chart(title: &str, y_label: &str, values: &[f64], mark: Option<usize>) -> String {
    let skip = values.len().saturating_sub(LINE_POINTS);
    let shown = values.get(skip..).unwrap_or_default();
    let number = |v: f64| {
        if v.is_finite() {
            format!("{v:.4}")
        } else {
            "0".to_owned()
        }
    };
    let top = shown
        .iter()
        .copied()
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max);
    let line: Vec<String> = shown.iter().map(|v| number(*v)).collect();
    let bar: Vec<String> = shown
        .iter()
        .enumerate()
        .map(|(i, v)| {
            if mark.and_then(|m| m.checked_sub(skip)) == Some(i) {
                number(*v)
            } else {
                "0".to_owned()
            }
        })
        .collect();
    let axis: Vec<String> = (0..shown.len())
        .map(|i| format!("\"{}\"", i.saturating_add(skip).saturating_add(1)))
        .collect();
    format!(
        "```mermaid\nxychart-beta\n    title \"{}\"\n    x-axis [{}]\n    y-axis \"{}\" 0 --> {}\n    bar [{}]\n    line [{}]\n```\n",
        clean_to(title, 80),
        axis.join(", "),
        clean_to(y_label, 80),
        number(top * 1.1),
        bar.join(", "),
        line.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_chart_shows_the_last_points_and_marks_one() {
        let values: Vec<f64> = (0..150).map(f64::from).collect();
        let chart = line_chart("a\"]\n```<b>", "TFLOPS", &values, Some(120));
        assert_eq!(chart.matches("```").count(), 2, "{chart}");
        assert!(
            !chart.contains('<') && chart.lines().count() == 8,
            "{chart}"
        );
        let bar = chart
            .lines()
            .find(|l| l.trim_start().starts_with("bar"))
            .unwrap();
        assert_eq!(bar.matches("120.0000").count(), 1, "{bar}");
        assert!(chart.contains("\"51\", \"52\""), "{chart}");
    }

    #[test]
    fn a_chart_from_hostile_labels_stays_one_chart() {
        let bars = vec![
            Bar {
                label: "x\"]\n```\n<img src=x>".to_owned(),
                value: 20.0,
                line: 10.0,
            };
            30
        ];
        let chart = xychart("t", "worse by (%)", &bars);
        assert_eq!(chart.matches("```").count(), 2, "{chart}");
        assert!(!chart.contains('<'), "{chart}");
        assert_eq!(chart.lines().count(), 8, "{chart}");
        assert!(
            chart.contains("y-axis \"worse by (%)\" 0 --> 22.0"),
            "{chart}"
        );
    }

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
