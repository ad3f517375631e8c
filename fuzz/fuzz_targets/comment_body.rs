//! Any text as the report `comment` posts (compare's JSON or trend's): it
//! is refused or read, and the body is at most GitHub's limit, with no
//! HTML but the comment's own `<details>`, no link but the run's, no
//! mention, issue reference or bare URL, and code fences only around the
//! chart.
#![no_main]

use baseline_resolver::comment::Loaded;
use baseline_resolver::comment::body::{Body, Context, LIMIT};
use libfuzzer_sys::fuzz_target;

const RUN: &str = "https://github.com/o/r/actions/runs/1";
/// The HTML the body writes itself.
const TAGS: [&str; 5] = [
    "<!-- baseline-resolver:default -->",
    "<details>",
    "<summary>",
    "</summary>",
    "</details>",
];

fn check(body: &Body) {
    let text = body.text.as_str();
    assert!(text.len() <= LIMIT, "{} bytes", text.len());
    // The chart's labels are cleaned to a few characters, and inside its
    // fence GitHub forms no link: it is checked apart.
    let (mut rest, chart) = outside_and_inside_fences(text);
    for bad in ["`", "<", "{", "}", "@", "#"] {
        assert!(!chart.contains(bad), "{bad:?} in the chart of {text:?}");
    }
    for tag in TAGS {
        rest = rest.replace(tag, "");
    }
    rest = rest.replace(&format!("[the benchmark run]({RUN})"), "");
    for bad in ["<", "](", "://", "www.", "GH-"] {
        assert!(!rest.contains(bad), "{bad:?} in {text:?}");
    }
    // The pull request's own repository keeps its `owner/name@sha` link.
    let rest = rest.to_ascii_lowercase().replace("baseline o/r@", "");
    // `&#96;` is the escape's own entity for a backtick.
    let chars: Vec<char> = std::iter::once(' ').chain(rest.chars()).collect();
    for w in chars.windows(3) {
        let [before, a, b] = [w[0], w[1], w[2]];
        assert!(!(a == '@' && b != '\u{200b}'), "a mention in {text:?}");
        assert!(
            !(a == '#' && b.is_ascii_alphanumeric() && before != '&'),
            "a reference in {text:?}"
        );
    }
}

/// The body's text outside code fences, and inside them; panics on a fence
/// that is not the chart's or is left open.
fn outside_and_inside_fences(text: &str) -> (String, String) {
    let (mut outside, mut inside) = (String::new(), String::new());
    let mut open = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            assert_eq!(line, if open { "```" } else { "```mermaid" }, "in {text:?}");
            open = !open;
            continue;
        }
        let part = if open { &mut inside } else { &mut outside };
        part.push_str(line);
        part.push('\n');
    }
    assert!(!open, "a code fence left open in {text:?}");
    (outside, inside)
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let ctx = Context {
        marker: "default",
        run_url: Some(RUN),
        repo: Some("o/r"),
    };
    if let Ok(report) = Loaded::from_text(&text, "fuzz".to_owned()) {
        check(&report.render(&ctx));
    }
});
