//! The rounds carried out for real: both sides opened once (the
//! baseline's worktree made once, each tree's groups asked once), each
//! round's run written to its own file, the rounds judged between looks by
//! the same pure decision `compare --paired` makes ([`crate::paired`]), so
//! bench re-runs exactly the rows compare would call undecided.

use std::path::PathBuf;
use std::time::Duration;

use super::BenchError;
use super::inputs::Inputs;
use super::plan::Side;
use super::rounds::{self, Pair, Stop, World};
use super::side::{self, Measured, Opened, SideRun, Status};
use crate::config::Config;
use crate::paired;
use crate::table::{self, Table};

/// The two opened sides, and what the judging between looks needs.
pub struct Live<'a> {
    pub current: &'a mut Opened,
    pub baseline: &'a mut Opened,
    pub inputs: &'a Inputs,
    pub config: &'a Config,
    pub thresholds: crate::config::Thresholds,
    pub settings: paired::Settings,
}

impl Live<'_> {
    fn opened(&mut self, side: Side) -> &mut Opened {
        match side {
            Side::Current => self.current,
            Side::Baseline => self.baseline,
        }
    }
}

/// A round's file read for judging; one that is not there (the command
/// failed before writing) or cannot be read is an empty table: its rows
/// are absent from that round, as compare reads it (as `--results-format`
/// says, when it is given).
fn table_of(
    path: &std::path::Path,
    config: &Config,
    budget: &table::read::Budget,
    named: Option<table::formats::Format>,
) -> Table {
    // bench judges its rounds by the rows and shows no file's identity.
    table::read::read_with(
        path,
        &config.keys,
        &config.metrics,
        budget,
        named,
        table::read::Identity::Unhashed,
    )
    .unwrap_or_else(|_| Table::new(path.to_owned(), config.metrics.len()))
}

impl World for Live<'_> {
    fn measure(
        &mut self,
        side: Side,
        round: usize,
        groups: Option<&[String]>,
        timeout: Duration,
    ) -> Result<Measured, BenchError> {
        let inputs = self.inputs;
        let opened = self.opened(side);
        let out = rounds::round_file(&opened.run.out, round);
        side::remove_earlier(&out)?;
        let groups = kept(groups, opened.groups.as_deref());
        opened.measure(&out, groups.as_deref(), timeout, round, inputs)
    }

    fn undecided(&mut self, pairs: &[Pair]) -> Result<Vec<Vec<String>>, String> {
        let budget = table::read::Budget::new(table::files::MAX_TOTAL_BYTES);
        let named = self.inputs.results_format;
        let (current, baseline): (Vec<Table>, Vec<Table>) = pairs
            .iter()
            .map(|p| {
                (
                    table_of(&p.current.path, self.config, &budget, named),
                    table_of(&p.baseline.path, self.config, &budget, named),
                )
            })
            .unzip();
        let judged = paired::judge(
            &current,
            &baseline,
            self.config,
            &self.thresholds,
            &self.settings,
        );
        // A row the config (or --ignore) ignores is never gated, so never
        // worth another round, however much it moves.
        Ok(judged
            .undecided()
            .map(|key| key.fields().map(|c| c.into_owned()).collect::<Vec<_>>())
            .filter(|cells| !ignored(self.config, cells))
            .collect())
    }

    fn owners(&self, undecided: &[Vec<String>]) -> Option<Vec<String>> {
        rounds::owners(
            undecided,
            self.config.select.as_ref(),
            self.current.groups.as_deref(),
        )
    }
}

/// The groups a side runs this round: the round's, less those this
/// side's harness does not know (`side_groups`, asked once); the side's
/// own when the round runs the whole selection.
/// The first rule that matches the row says ignore.
fn ignored(config: &Config, cells: &[String]) -> bool {
    let refs: Vec<&str> = cells.iter().map(String::as_str).collect();
    config
        .rule_for(&refs)
        .and_then(|i| config.rules.get(i))
        .is_some_and(|r| r.ignore)
}

fn kept(round: Option<&[String]>, side_groups: Option<&[String]>) -> Option<Vec<String>> {
    match (round, side_groups) {
        (None, side) => side.map(<[String]>::to_vec),
        (Some(round), None) => Some(round.to_vec()),
        (Some(round), Some(side)) => {
            Some(round.iter().filter(|g| side.contains(g)).cloned().collect())
        }
    }
}

/// A side's line after the rounds: the first round's file and rows (what
/// the `current`/`baseline` outputs name), the seconds of all rounds, the
/// worst status, each round's warning.
pub fn summed(run: &mut SideRun, side: Side, pairs: &[Pair]) {
    let mut total = Duration::ZERO;
    let mut first: Option<(PathBuf, u64)> = None;
    for pair in pairs {
        let done = match side {
            Side::Current => &pair.current,
            Side::Baseline => &pair.baseline,
        };
        let mut scratch = run.clone();
        scratch.notes.clear();
        scratch.status = Status::Ok;
        side::record(&mut scratch, done, None, Some(pair.round));
        run.notes.extend(scratch.notes);
        run.status = worst(run.status, scratch.status);
        if run.exit.is_none_or(|c| c == 0) && run.status != Status::TimedOut {
            run.exit = scratch.exit;
        }
        total = total.saturating_add(done.duration);
        first.get_or_insert((done.path.clone(), done.rows));
    }
    if run.status == Status::TimedOut {
        run.exit = None;
    }
    run.duration = Some(total);
    if let Some((path, rows)) = first {
        run.path = Some(path.clone());
        run.out = path;
        run.rows = Some(rows);
    }
}

fn worst(a: Status, b: Status) -> Status {
    let rank = |s: Status| match s {
        Status::TimedOut => 2,
        Status::Failed => 1,
        _ => 0,
    };
    if rank(b) > rank(a) { b } else { a }
}

/// Both sides carried out: with several rounds asked and both sides to
/// run, the paired rounds (the manifest's path named; `measure` writes it); otherwise each side
/// once, as [`side::carry_out`] does.
pub fn sides(
    plan: &super::plan::Plan,
    inputs: &Inputs,
) -> Result<(SideRun, SideRun, Option<super::manifest::Done>), BenchError> {
    let groups = plan.groups.as_deref();
    let asked = &inputs.rounds;
    let paired = asked.rounds > 1
        && matches!(plan.current, super::plan::Action::Run(_))
        && matches!(plan.baseline, super::plan::Action::Run(_));
    if !paired {
        let current = side::carry_out(Side::Current, &plan.current, groups, "current", inputs)?;
        let baseline =
            side::carry_out(Side::Baseline, &plan.baseline, groups, &plan.label, inputs)?;
        return Ok((current, baseline, None));
    }
    let config = inputs.config.judging(&inputs.columns)?;
    let mut current = side::open(Side::Current, &plan.current, groups, "current", inputs)?;
    let mut baseline = side::open(Side::Baseline, &plan.baseline, groups, &plan.label, inputs)?;
    if !(current.runs() && baseline.runs()) {
        let current = side::once(current, inputs)?;
        let baseline = side::once(baseline, inputs)?;
        return Ok((current, baseline, None));
    }
    let seed = asked.seed.unwrap_or_else(rounds::draw_seed);
    let mut log = crate::runner::log::LogText::new();
    log.push_line(&format!(
        "bench: paired rounds, {} to {}, seed {seed} (--seed {seed} repeats this order)",
        asked.rounds, asked.max_rounds
    ));
    crate::runner::write::stderr(&log);
    let schedule = paired::Schedule {
        rounds: asked.rounds,
        max_rounds: asked.max_rounds,
    };
    let settings = paired::Settings {
        false_alarms: asked.false_alarms,
        schedule,
    };
    let thresholds = crate::config::Thresholds {
        fail: crate::config::FailThreshold::Fixed(asked.fail),
        warn: asked.warn,
        fail_given: asked.fail_given,
        false_alarms: asked.false_alarms,
    };
    let looks = schedule.looks();
    let driven = {
        let mut live = Live {
            current: &mut current,
            baseline: &mut baseline,
            inputs,
            config: &config,
            thresholds,
            settings,
        };
        rounds::drive(&mut live, seed, &looks, inputs.timeout, groups)
    };
    let (mut current_run, mut baseline_run) = (current.close(), baseline.close());
    let done = driven?;
    summed(&mut current_run, Side::Current, &done.pairs);
    summed(&mut baseline_run, Side::Baseline, &done.pairs);
    let names = match (groups, &config.select) {
        (Some(g), _) => g.to_vec(),
        (None, Some(select)) => select.groups.iter().map(|g| g.name.clone()).collect(),
        (None, None) => Vec::new(),
    };
    let done = super::manifest::Done {
        rounds: done,
        names,
        label: plan.label.clone(),
    };
    if !matches!(done.rounds.stop, Stop::Decided) {
        current_run.notice(format!("paired rounds: {}", done.stopped()));
    }
    Ok((current_run, baseline_run, Some(done)))
}
