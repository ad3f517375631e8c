//! Every reader on every prefix of the tests' files, and on those files
//! with bytes flipped: a table or a named error, never a panic.

use std::path::Path;

use super::{Format, detect, parse};

const FILES: [(&str, Format); 14] = [
    ("nvbench/base.json", Format::Nvbench),
    ("catch2/base.xml", Format::Catch2),
    ("jmh/base.json", Format::Jmh),
    ("benchmarkdotnet/base.json", Format::BenchmarkDotNet),
    ("bmf/base.json", Format::Bmf),
    ("custom/base.json", Format::Custom),
    ("google-benchmark/base.json", Format::GoogleBenchmark),
    ("pytest-benchmark/base.json", Format::PytestBenchmark),
    ("asv/base.json", Format::Asv),
    ("pyperf/base.json", Format::Pyperf),
    ("hyperfine/base.json", Format::Hyperfine),
    ("go-test/base.txt", Format::GoTest),
    ("cargo-bench/base.txt", Format::CargoBench),
    ("google-benchmark/head.json", Format::GoogleBenchmark),
];

fn fixture(name: &str) -> Vec<u8> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/formats");
    std::fs::read(root.join(name)).unwrap()
}

#[test]
fn each_file_is_detected_as_its_format() {
    for (name, format) in FILES {
        assert_eq!(detect(&fixture(name)), Some(format), "{name}");
    }
    assert_eq!(detect(b"op,shape,dtype,tflops\nsoftmax,1x1,bf16,3\n"), None);
}

#[test]
fn no_prefix_and_no_flipped_byte_makes_a_reader_panic() {
    let path = Path::new("x");
    for (name, format) in FILES {
        let bytes = fixture(name);
        for cut in (0..bytes.len()).step_by(7) {
            let _ = parse(path, bytes.get(..cut).unwrap_or_default(), format);
        }
        for at in (0..bytes.len()).step_by(13) {
            let mut flipped = bytes.clone();
            if let Some(b) = flipped.get_mut(at) {
                *b ^= 0x5a;
            }
            let _ = parse(path, &flipped, format);
            let _ = detect(&flipped);
        }
    }
}

#[test]
fn python_nan_outside_strings_is_null_and_inside_strings_is_kept() {
    let text = br#"{"a": NaN, "b": "NaN and Infinity", "c": [-Infinity, Infinity], "d": "\"NaN"}"#;
    let out = super::json::python_json(text);
    assert_eq!(
        std::str::from_utf8(&out).unwrap(),
        r#"{"a": null, "b": "NaN and Infinity", "c": [null, null], "d": "\"NaN"}"#
    );
}

#[test]
fn python_nan_after_escaped_backslashes_is_null_and_an_unclosed_string_is_kept() {
    let text = br#"{"a": "x\\", "b": NaN, "c": "\\\"NaN", "d": -Infinity, "e": [Infinity]}"#;
    let out = super::json::python_json(text);
    assert_eq!(
        std::str::from_utf8(&out).unwrap(),
        r#"{"a": "x\\", "b": null, "c": "\\\"NaN", "d": null, "e": [null]}"#
    );
    let open = br#"{"a": 1, "b": "NaN and then no quote"#;
    assert_eq!(&*super::json::python_json(open), &open[..]);
    let none = br#"{"a": "NaN only in a string"}"#;
    assert!(matches!(
        super::json::python_json(none),
        std::borrow::Cow::Borrowed(_)
    ));
}
