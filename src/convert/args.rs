//! The inputs of `convert`, each declared once ([`crate::runner::declare`]),
//! and its help text.

use crate::runner::{Declared, Given, Input, Typed};
use crate::table::formats::Format;

pub const ABOUT: &str = "Write a harness's results (Google Benchmark, pytest-benchmark, criterion, asv, pyperf, hyperfine, go test, cargo bench, nvbench, Catch2 XML, JMH, BenchmarkDotNet, the Bencher Metric Format, the peer action's custom JSON) as the CSV: one row per benchmark, the median of its repetitions.";

const EXIT_CODES: &str = "\
Exit codes:
  0  converted
  1  bad input: the file cannot be read, is over 64 MiB, is no known format (the formats
     tried are named), or its reader refuses it (the file and where: a JSON path or a line);
     the output cannot be written
  2  usage: unknown flag, no file, an unknown --results-format";

const EXAMPLES: &str = "\
Examples:
  # Google Benchmark's JSON as the CSV, on stdout:
  baseline-resolver convert bench.json

  # criterion's tree, into a file:
  baseline-resolver convert target/criterion --output results.csv

  # The format named rather than found from the content:
  baseline-resolver convert out.txt --results-format go-test

What it writes:
  A header `benchmark,params,<metrics>,status,samples`, then one row per benchmark: its
  name and parameters, each metric's value (the median of the repetitions the harness
  recorded; empty where it has none), `ok` or `failed`, and how many repetitions the
  headline metric had. One line on stderr says the format found, the rows (and how many
  are valid) and the samples. compare and trend read the harness's files directly; this is for
  dashboards that want one shape. Read it back with a config of
  keys = [\"benchmark\", \"params\"] and the metrics the header names (docs/convert.md).";

pub fn after_long_help() -> String {
    format!("{EXAMPLES}\n\n{EXIT_CODES}")
}

/// What the command line gave `convert`.
pub type ConvertArgs = Given<Convert>;

/// `convert`'s inputs, in `--help` order: flags only (no action runs it).
pub struct Convert;

impl Declared for Convert {
    const INPUTS: &'static [Input] = &[FILE, RESULTS_FORMAT.input, OUTPUT];
}

pub const FILE: Input = Input::one(
    "file",
    &[],
    "FILE",
    "The results file (criterion: its target/criterion directory).",
)
.path()
.positional()
.required();

pub const RESULTS_FORMAT: Typed<Format> = Typed {
    input: Input::one(
        "results-format",
        &[],
        "NAME",
        "The format, where the content does not say it: csv, google-benchmark, \
         pytest-benchmark, asv, criterion, pyperf, hyperfine, go-test, cargo-bench, nvbench, \
         catch2, jmh, benchmarkdotnet, bmf, custom, customBiggerIsBetter, \
         customSmallerIsBetter.",
    )
    .said("found from the content"),
    parse: Format::parse_name,
};

pub const OUTPUT: Input = Input::one(
    "output",
    &[],
    "FILE",
    "Write the CSV here rather than to stdout.",
)
.path();
