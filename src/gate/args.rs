//! The inputs of `gate`, each declared once (flag, `INPUT_*` variable,
//! parser, default, help: [`crate::runner::declare`]), and its help text.
//! Several globs in one variable go one per line.

use crate::runner::{Declared, Given, Input, Typed, shown};

pub const ABOUT: &str = "Read every benchmark job's compare report (downloaded artifacts) and give one verdict: fail when any job regressed, lost rows or left a report that cannot be read.";

const EXIT_CODES: &str = "\
Exit codes:
  0  every job passed; or, without --strict, some were inconclusive (a warning names them)
  1  bad input: a report that cannot be read or is not compare's report (its path is named,
     its job is in the table as failed; the other jobs are still judged); fewer reports than
     --expect-jobs; a job summary or output file that cannot be written
  2  usage: unknown flag, or an invalid flag / INPUT_* value; no --reports; no file matches
     the globs (the message names them: a gate with nothing to judge never passes); over
     256 reports, or over 100,000 directory entries walked
  3  --strict and a job is inconclusive: its baseline unavailable, nothing compared, less of
     the suite compared than compare's --min-coverage, a baseline from another machine
     under compare's --fingerprint strict, or (paired) rows still undecided
  4  a job regressed or lost rows against its gate baseline (whatever else failed)";

const EXAMPLES: &str = "\
Examples:
  # The gate job of a matrix: every runner's report, downloaded by
  # actions/download-artifact (pattern: benchmark-report-*, path: reports):
  baseline-resolver gate --reports 'reports/**/report.json'

  # Reports named after their job instead (reports/mi355.json, reports/mi325.json):
  baseline-resolver gate --reports 'reports/*.json' --job-name-from file

  # A matrix of two runners: one that left no report fails the gate too:
  baseline-resolver gate --reports 'reports/**/report.json' --expect-jobs 2

  # Inconclusive jobs fail too; the table as JSON for a script:
  baseline-resolver gate --reports 'reports/**/report.json' --strict --format json

How it judges:
  Each file is one job's report (compare --report FILE, or compare --format json). Its
  job's name is the directory the file is in (an artifact downloaded by
  actions/download-artifact lands in a directory named after the artifact), or with
  --job-name-from file the file's name without its extension. A job fails when it
  regressed or lost rows against its gate baseline (the one compare's --gate names; its
  verdict regression, whether or not compare ran with --no-gate: the dashboard pattern
  compares report-only and gates here), or when its report cannot be read. A job is inconclusive when compare said so (no baseline,
  nothing compared, coverage below --min-coverage, a baseline from another machine under
  compare's --fingerprint strict) or, with --paired, rows are still undecided: a warning,
  and --strict fails it. The table has one line per job: its verdict, its worst rows, the
  share of its suite compared, its rounds when paired, and what both its sides were
  measured on when its report knew (bench's fingerprints): a baseline from another
  machine is marked there, counted in the headline and a warning on a runner.
  A glob is matched against paths from the working directory: `*` and `?` within one
  directory, `**` any number of directories; symbolic links are not followed.";

pub fn after_long_help() -> String {
    format!("{EXAMPLES}\n\n{EXIT_CODES}")
}

/// What the command line gave `gate`.
pub type GateArgs = Given<Gate>;

/// `gate`'s inputs, in `--help` order.
pub struct Gate;

impl Declared for Gate {
    const INPUTS: &'static [Input] = &[
        REPORTS,
        JOB_NAME_FROM.input,
        EXPECT_JOBS.input,
        STRICT,
        crate::runner::format::FORMAT,
    ];
}

pub const REPORTS: Input = Input::one(
    "reports",
    &["INPUT_REPORTS"],
    "GLOB",
    "The jobs' compare reports: files or globs (`reports/**/report.json`). Repeatable.",
)
.many();

pub const JOB_NAME_FROM: Typed<NameFrom> = Typed {
    input: Input::one(
        "job-name-from",
        &["INPUT_JOB_NAME_FROM"],
        "dir|file",
        "Where a job's name comes from: `dir` (the directory the report is in: the artifact's \
         name) or `file` (the report's file name without its extension).",
    )
    .default("dir"),
    parse: name_from,
};

pub const EXPECT_JOBS: Typed<usize> = Typed {
    input: Input::one(
        "expect-jobs",
        &["INPUT_EXPECT_JOBS"],
        "N",
        "The jobs the matrix runs: fewer reports found fails the gate (a runner that left no \
         report); 0 takes any number.",
    )
    .default("0"),
    parse: jobs,
};

pub const STRICT: Input = Input::switch(
    "strict",
    &["INPUT_STRICT"],
    "Exit 3 when a job is inconclusive.",
);

/// Where a job's name comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameFrom {
    /// The directory the report is in (the artifact's name).
    Dir,
    /// The report's file name without its extension.
    File,
}

fn name_from(text: &str) -> Result<NameFrom, String> {
    match text.trim() {
        "dir" => Ok(NameFrom::Dir),
        "file" => Ok(NameFrom::File),
        other => Err(format!("expected dir or file, got {:?}", shown(other))),
    }
}

fn jobs(text: &str) -> Result<usize, String> {
    match text.trim().parse::<usize>() {
        Ok(n) if n <= super::find::MAX_REPORTS => Ok(n),
        _ => Err(format!(
            "expected a number of jobs from 0 to {}, got {:?}",
            super::find::MAX_REPORTS,
            shown(text)
        )),
    }
}
