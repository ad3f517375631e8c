//! Validated inputs of `gate`: the inputs [`super::args`] declares, flags
//! merged with `INPUT_*` variables through the runner's [`Reader`], each
//! named by where it came from when it is wrong.

use super::args::*;
use crate::runner::format::FORMAT;
use crate::runner::write::RunnerFiles;
use crate::runner::{Env, Format, InputError, Reader};

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

pub fn validate(args: &GateArgs, env: Env<'_>) -> Result<Inputs, InputError> {
    let r = Reader::given(env, &args.flags);
    let reports: Vec<String> = r.list(&REPORTS).into_iter().map(|v| v.text).collect();
    if reports.is_empty() {
        return Err(InputError {
            origin: REPORTS.both(),
            message: "no reports: pass --reports 'reports/**/report.json' (the downloaded artifacts of every benchmark job)".to_owned(),
        });
    }
    Ok(Inputs {
        reports,
        name_from: r.typed_or_default(&JOB_NAME_FROM)?,
        expect_jobs: r.typed_or_default(&EXPECT_JOBS)?,
        strict: r.on(&STRICT)?,
        format: Format::choose(r.text(&FORMAT), crate::runner::on_runner(env))?,
        files: RunnerFiles::from_env(&r),
    })
}
