//! Paired rounds: the change and the baseline each run once per round, on
//! this runner, the order within each round drawn from a seed; after the
//! first `--rounds`, the rows still in doubt are judged at each look of the
//! schedule, and only the groups that hold them run again, until every row
//! is decided, `--max-rounds` ran, or a side's time is spent.
//!
//! Why rounds: a run of the baseline measured elsewhere (another VM, last
//! night) differs from the change's by the machine as much as by the code;
//! two runs side by side in one round share the machine, so their ratio
//! cancels what moves the whole machine (Laaber, Scheuner and Leitner,
//! EMSE 2019; Abedi and Brecht, ICPE 2017: randomized interleaved trials).
//! The order within a round is random so a drift within the round (a
//! warming machine, a cache) falls on either side alike; it is seeded so a
//! run can be repeated exactly.
//!
//! The loop ([`drive`]) takes the running and the judging as functions,
//! so its schedule, budget and group choice are tested without a process.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::BenchError;
use super::plan::{Side, plain_word};
use super::side::Measured;
use crate::config::Select;

/// splitmix64 (Steele, Lea and Flood, OOPSLA 2014): a whole 64-bit state
/// per step, so one seed and round give the same bit on every platform and
/// version; written here because the order must never change under a
/// dependency's update.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Which side runs first in `round`: random, from the seed.
pub fn first(seed: u64, round: usize) -> Side {
    if mix(seed ^ mix(round as u64)) & 1 == 0 {
        Side::Current
    } else {
        Side::Baseline
    }
}

/// A seed from the system's randomness (the time, if that fails).
pub fn draw_seed() -> u64 {
    let mut bytes = [0u8; 8];
    match getrandom::fill(&mut bytes) {
        Ok(()) => u64::from_le_bytes(bytes) >> 11,
        Err(_) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64 >> 11),
    }
}

/// Where round `round` of a side writes: `current.csv` becomes
/// `current-2.csv`, next to it.
pub fn round_file(out: &Path, round: usize) -> PathBuf {
    let stem = out
        .file_stem()
        .map_or_else(|| "results".into(), |s| s.to_string_lossy().into_owned());
    out.with_file_name(format!("{stem}-{round}.csv"))
}

/// The groups that own the undecided rows (their key cells), in the
/// config's order, kept to those `planned` (the selection) when it names
/// some; `None` (the whole suite, or the whole selection) when a row
/// belongs to no group, when there are no groups, or when a group's name
/// could not go into the command.
pub fn owners(
    undecided: &[Vec<String>],
    select: Option<&Select>,
    planned: Option<&[String]>,
) -> Option<Vec<String>> {
    let select = select?;
    let mut owned = vec![false; select.groups.len()];
    for key in undecided {
        let cells: Vec<&str> = key.iter().map(String::as_str).collect();
        let mut any = false;
        for (i, group) in select.groups.iter().enumerate() {
            if group.owns(&cells) {
                any = true;
                if let Some(slot) = owned.get_mut(i) {
                    *slot = true;
                }
            }
        }
        if !any {
            return None;
        }
    }
    let groups: Vec<String> = select
        .groups
        .iter()
        .zip(owned)
        .filter(|(g, owned)| *owned && planned.is_none_or(|p| p.contains(&g.name)))
        .map(|(g, _)| g.name.clone())
        .collect();
    (!groups.is_empty() && groups.iter().all(|g| plain_word(g) && !g.contains(',')))
        .then_some(groups)
}

/// One round: the two runs, the order they ran in, what they ran.
#[derive(Debug, Clone)]
pub struct Pair {
    pub round: usize,
    pub first: Side,
    /// `None`: the whole suite (or the selection).
    pub groups: Option<Vec<String>>,
    pub current: Measured,
    pub baseline: Measured,
}

/// Why the rounds stopped where they did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// Every row is decided at this look.
    Decided,
    /// `--max-rounds` ran; `undecided` rows were still in doubt.
    Cap { undecided: usize },
    /// A side's `--timeout-minutes` is spent.
    Budget(Side),
    /// The rounds could not be judged (a file compare would refuse too):
    /// said as a warning, no more rounds.
    Unjudged(String),
    /// The step was cancelled (bench received a signal): no more rounds.
    Cancelled,
}

/// What the rounds did.
#[derive(Debug, Clone)]
pub struct Rounds {
    pub seed: u64,
    pub asked: (usize, usize),
    pub pairs: Vec<Pair>,
    pub stop: Stop,
    /// The look schedule the rounds followed (rounds after which the rows
    /// were judged).
    pub looks: Vec<usize>,
}

impl Rounds {
    /// Rounds each group got, in `names`' order; with no group names, one
    /// entry for the whole suite (`None`).
    pub fn by_group(&self, names: &[String]) -> Vec<(Option<String>, usize)> {
        if names.is_empty() {
            return vec![(None, self.pairs.len())];
        }
        names
            .iter()
            .map(|name| {
                let got = self
                    .pairs
                    .iter()
                    .filter(|p| p.groups.as_ref().is_none_or(|g| g.contains(name)))
                    .count();
                (Some(name.clone()), got)
            })
            .collect()
    }
}

/// What [`drive`] needs of the world: run one side once, judge the rounds
/// so far (the key cells of the rows still in doubt).
pub trait World {
    fn measure(
        &mut self,
        side: Side,
        round: usize,
        groups: Option<&[String]>,
        timeout: Duration,
    ) -> Result<Measured, BenchError>;
    fn undecided(&mut self, pairs: &[Pair]) -> Result<Vec<Vec<String>>, String>;
    /// The groups that own these rows (see [`owners`]).
    fn owners(&self, undecided: &[Vec<String>]) -> Option<Vec<String>>;
}

/// The rounds: each look's rounds run (each side once per round, in the
/// seeded order, within what is left of its `timeout`), then the rows are
/// judged; only the groups of undecided rows run to the next look.
pub fn drive(
    world: &mut dyn World,
    seed: u64,
    looks: &[usize],
    timeout: Duration,
    planned: Option<&[String]>,
) -> Result<Rounds, BenchError> {
    let mut pairs: Vec<Pair> = Vec::new();
    let mut budget = Budget {
        timeout,
        used: [Duration::ZERO; 2],
    };
    let mut groups: Option<Vec<String>> = planned.map(<[String]>::to_vec);
    let mut stop = Stop::Decided;
    'looks: for (n, &look) in looks.iter().enumerate() {
        while pairs.len() < look {
            let round = pairs.len().saturating_add(1);
            let (pair, spent) = one_round(world, seed, round, groups.as_ref(), &mut budget)?;
            pairs.extend(pair);
            if super::signals::caught().is_some() {
                stop = Stop::Cancelled;
                break 'looks;
            }
            if let Some(side) = spent {
                stop = Stop::Budget(side);
                break 'looks;
            }
        }
        let undecided = match world.undecided(&pairs) {
            Ok(rows) => rows,
            Err(why) => {
                stop = Stop::Unjudged(why);
                break;
            }
        };
        if undecided.is_empty() {
            stop = Stop::Decided;
            break;
        }
        if n.saturating_add(1) == looks.len() {
            stop = Stop::Cap {
                undecided: undecided.len(),
            };
            break;
        }
        groups = world
            .owners(&undecided)
            .or_else(|| planned.map(<[String]>::to_vec));
    }
    Ok(Rounds {
        seed,
        asked: (
            looks.first().copied().unwrap_or(0),
            looks.last().copied().unwrap_or(0),
        ),
        pairs,
        stop,
        looks: looks.to_vec(),
    })
}

/// Each side's `--timeout-minutes`, and what its rounds used of it.
struct Budget {
    timeout: Duration,
    /// Current, baseline.
    used: [Duration; 2],
}

/// One round: both sides, the one the seed draws first; the pair when
/// both ran, and the side whose time ran out, if one did (that round is
/// the last).
fn one_round(
    world: &mut dyn World,
    seed: u64,
    round: usize,
    groups: Option<&Vec<String>>,
    budget: &mut Budget,
) -> Result<(Option<Pair>, Option<Side>), BenchError> {
    let lead = first(seed, round);
    let order = match lead {
        Side::Current => [Side::Current, Side::Baseline],
        Side::Baseline => [Side::Baseline, Side::Current],
    };
    let mut ran: Vec<Measured> = Vec::with_capacity(2);
    let mut spent = None;
    for side in order {
        if super::signals::caught().is_some() {
            break;
        }
        let slot = usize::from(side == Side::Baseline);
        let used = budget.used.get(slot).copied().unwrap_or_default();
        let left = budget.timeout.saturating_sub(used);
        if left.is_zero() {
            spent = Some(side);
            break;
        }
        let done = world.measure(side, round, groups.map(Vec::as_slice), left)?;
        if let Some(u) = budget.used.get_mut(slot) {
            *u = u.saturating_add(done.duration);
        }
        if done.ended == super::process::Ended::TimedOut {
            spent.get_or_insert(side);
        }
        ran.push(done);
    }
    let pair = match ran.as_slice() {
        [a, b] => {
            let (current, baseline) = match lead {
                Side::Current => (a.clone(), b.clone()),
                Side::Baseline => (b.clone(), a.clone()),
            };
            Some(Pair {
                round,
                first: lead,
                groups: groups.cloned(),
                current,
                baseline,
            })
        }
        _ => None,
    };
    Ok((pair, spent))
}

#[cfg(test)]
mod tests;
