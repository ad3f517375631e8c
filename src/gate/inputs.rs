//! Validated inputs of `gate`: flags merged with `INPUT_*` variables
//! through the runner's [`Reader`], each named by where it came from when
//! it is wrong.

use super::args::GateArgs;
use crate::runner::env::Input;
use crate::runner::write::RunnerFiles;
use crate::runner::{Env, Format, InputError, Reader, shown};

const REPORTS: Input = Input::new("reports", &["INPUT_REPORTS"]);
const JOB_NAME_FROM: Input = Input::new("job-name-from", &["INPUT_JOB_NAME_FROM"]);
const EXPECT_JOBS: Input = Input::new("expect-jobs", &["INPUT_EXPECT_JOBS"]);
const STRICT: Input = Input::new("strict", &["INPUT_STRICT"]);
const FORMAT: Input = Input::new("format", &[]);

/// Where a job's name comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameFrom {
    /// The directory the report is in (the artifact's name).
    Dir,
    /// The report's file name without its extension.
    File,
}

#[derive(Debug, Clone)]
pub struct Inputs {
    /// The globs, as given (each also names itself in messages).
    pub reports: Vec<String>,
    pub name_from: NameFrom,
    /// The jobs expected (0: any number).
    pub expect_jobs: usize,
    pub strict: bool,
    pub format: Format,
    pub files: RunnerFiles,
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

pub fn validate(args: &GateArgs, env: Env<'_>) -> Result<Inputs, InputError> {
    let r = Reader::new(env);
    let reports: Vec<String> = r
        .values(&REPORTS, &args.reports)
        .into_iter()
        .map(|v| v.text)
        .collect();
    if reports.is_empty() {
        return Err(InputError {
            origin: REPORTS.both(),
            message: "no reports: pass --reports 'reports/**/report.json' (the downloaded artifacts of every benchmark job)".to_owned(),
        });
    }
    Ok(Inputs {
        reports,
        name_from: r
            .parse(&JOB_NAME_FROM, args.job_name_from.as_deref(), name_from)?
            .unwrap_or(NameFrom::Dir),
        expect_jobs: r
            .parse(&EXPECT_JOBS, args.expect_jobs.as_deref(), jobs)?
            .unwrap_or(0),
        strict: r.switch(&STRICT, args.strict, false)?,
        format: Format::choose(
            r.value(&FORMAT, args.format.as_deref()),
            crate::runner::on_runner(env),
        )?,
        files: RunnerFiles::from_env(&r),
    })
}
