//! Change points of a series: where its level changed. A binary
//! segmentation with a two-sample test, as Apache Otava (formerly DataStax
//! Hunter) does it, deterministic, with no permutations, in two passes:
//!
//! 1. Proposals: in a segment, the split that best separates the two sides
//!    (the largest pooled two-sample t statistic) is proposed when its test
//!    is significant at a lenient level and the two levels differ by at
//!    least the smallest change that matters; then each side is split the
//!    same way. Lenient, because a segment that still holds a third level
//!    hides a real step behind its own spread. A thorough search
//!    ([`Test::thorough`], trend's) proposes the strongest split that is
//!    large enough, and when a segment has none, looks in its halves,
//!    quarters, ... (seeded binary segmentation: Kovács, Li, Bühlmann and
//!    Munk, 2023, "Seeded binary segmentation", Biometrika).
//! 2. Pruning: with the noise pooled over every segment, each change point
//!    is tested against its two neighbouring segments; the weakest is
//!    removed while it fails the strict level (Bonferroni-corrected for the
//!    change points left) or the smallest change, and the rest are tested
//!    again.
//!
//! A side is at least [`MIN_LEN`] runs long, so a single odd run is never a
//! level of its own.
//!
//! Matteson and James (2014), "A nonparametric approach for multiple change
//! point analysis of multivariate data", is E-divisive; Otava's
//! `analysis.py` keeps its segmentation and replaces the permutation test
//! with Student's t, as here.

use super::student;

/// The shortest segment: two runs.
pub const MIN_LEN: usize = 2;
/// At most this many change points are looked for in one series.
pub const MAX_POINTS: usize = 64;

/// When a split counts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Test {
    /// The significance after the correction for the splits tried.
    pub alpha: f64,
    /// The smallest difference of levels (in log space) that counts.
    pub min_change: f64,
    /// How a segment is searched for a proposal. `false`: its strongest
    /// split, and the search of that segment stops when that split is not
    /// proposed. `true` (thorough): its strongest split among those whose
    /// levels differ by at least `min_change`, and when there is none, the
    /// strongest of its halves, quarters, ... (overlapping by half, seeded
    /// binary segmentation). Two cases hide a real step from the first
    /// search: the strongest split is a small slow move that does not
    /// count while a large step sits two runs from the edge (a history's
    /// first runs), and a step followed by a second one that undoes it,
    /// whose two sides balance over the whole segment.
    pub thorough: bool,
}

impl Test {
    /// For a row's noise: a level shift of 2% or more, at 1%. At 0.1%,
    /// ten runs of pyperf's `json_loads` (five drifting 12% up, then five
    /// within 1.4%, 16% below) were one level, and its band of 36% let a
    /// 16% slowdown pass; at 1% pvlib's and pyperf's re-run flow catch
    /// three more of 40 real slowdowns with no more false alarms there
    /// (on fresh cloud VMs two more of 150 no-change pull requests fail;
    /// BENCHMARKS.md, "The verdict on real noise").
    pub const NOISE: Test = Test {
        alpha: 0.01,
        min_change: 0.0198,
        thorough: false,
    };
}

/// Prefix sums of values and squares, for any segment's mean and variance
/// in constant time.
struct Sums {
    s: Vec<f64>,
    q: Vec<f64>,
}

impl Sums {
    fn new(values: &[f64]) -> Sums {
        let mut s = Vec::with_capacity(values.len().saturating_add(1));
        let mut q = Vec::with_capacity(values.len().saturating_add(1));
        let (mut a, mut b) = (0.0, 0.0);
        s.push(a);
        q.push(b);
        for v in values {
            a += v;
            b += v * v;
            s.push(a);
            q.push(b);
        }
        Sums { s, q }
    }

    /// (n, mean, sum of squared deviations) of `lo..hi`.
    fn stats(&self, lo: usize, hi: usize) -> (f64, f64, f64) {
        let get = |v: &Vec<f64>, i: usize| v.get(i).copied().unwrap_or(0.0);
        let n = hi.saturating_sub(lo) as f64;
        let sum = get(&self.s, hi) - get(&self.s, lo);
        let sq = get(&self.q, hi) - get(&self.q, lo);
        let mean = if n > 0.0 { sum / n } else { 0.0 };
        (n, mean, (sq - n * mean * mean).max(0.0))
    }
}

/// The best split of `lo..hi`: its position, p-value (two-sided, for
/// that split alone) and level difference; only among splits whose levels
/// differ by at least `floor` (0 for any).
fn best_split(sums: &Sums, lo: usize, hi: usize, floor: f64) -> Option<(usize, f64, f64)> {
    best_split_of(sums, lo, hi, floor, MIN_LEN)
}

/// [`best_split`] with sides of at least `side` runs.
fn best_split_of(
    sums: &Sums,
    lo: usize,
    hi: usize,
    floor: f64,
    side: usize,
) -> Option<(usize, f64, f64)> {
    let first = lo.checked_add(side)?;
    let last = hi.checked_sub(side)?;
    if first > last {
        return None;
    }
    let mut best: Option<(usize, f64, f64, f64)> = None;
    for k in first..=last {
        let (n1, m1, ss1) = sums.stats(lo, k);
        let (n2, m2, ss2) = sums.stats(k, hi);
        let dof = n1 + n2 - 2.0;
        let var = (ss1 + ss2) / dof.max(1.0);
        let se = (var * (1.0 / n1 + 1.0 / n2)).sqrt();
        let diff = m2 - m1;
        if diff.abs() < floor {
            continue;
        }
        let t = if se > 1e-12 {
            diff.abs() / se
        } else if diff.abs() > 1e-12 {
            f64::INFINITY
        } else {
            0.0
        };
        if best.is_none_or(|(_, bt, _, _)| t > bt) {
            best = Some((k, t, diff, dof));
        }
    }
    let (k, t, diff, dof) = best?;
    Some((k, 2.0 * student::upper_tail(t, dof), diff))
}

/// The shortest side of a split in a seeded interval: a level that held
/// five runs. Shorter excursions are left to the whole segment's search,
/// as before: with two-run sides the seeded search found every two-run
/// blip of a noisy machine (pvlib's history: 3.4 change points per 1,000
/// row-runs on runs that changed no code, where five-run sides give 2.4,
/// most of them level shifts the values show).
const SEED_SIDE: usize = 5;

/// The proposal of a thorough search of `lo..hi`: its strongest split of
/// at least `floor`, when that is proposed; else the most significant
/// proposed split of its seeded intervals (halves, quarters, ... down to
/// two sides of [`SEED_SIDE`], each step half an interval), so that a
/// segment costs O(n log n) whatever it holds.
fn seeded_split(sums: &Sums, lo: usize, hi: usize, floor: f64) -> Option<(usize, f64, f64)> {
    let proposed = |s: &(usize, f64, f64)| s.1 < PROPOSE && s.2.abs() >= floor;
    let whole = best_split(sums, lo, hi, floor);
    if whole.as_ref().is_some_and(proposed) {
        return whole;
    }
    let mut best: Option<(usize, f64, f64)> = None;
    let mut len = hi.saturating_sub(lo) / 2;
    while len >= 2 * SEED_SIDE {
        let step = (len / 2).max(1);
        let last = hi.saturating_sub(len);
        // lo, lo + step, ..., and the interval that ends at hi.
        let starts = (lo..last).step_by(step).chain(std::iter::once(last));
        for start in starts {
            let end = start.saturating_add(len);
            if let Some(s) = best_split_of(sums, start, end, floor, SEED_SIDE)
                && proposed(&s)
                && best.is_none_or(|b| s.1 < b.1)
            {
                best = Some(s);
            }
        }
        len /= 2;
    }
    best.or(whole)
}

/// The level of the proposals (for the best split alone: pruning makes
/// the strict test).
const PROPOSE: f64 = 0.05;

/// Where the series' level changes: the first run of each new segment, in
/// order (empty for one level). At most [`MAX_POINTS`].
pub fn change_points(values: &[f64], test: Test) -> Vec<usize> {
    let sums = Sums::new(values);
    let mut points = Vec::new();
    let mut todo = vec![(0usize, values.len())];
    while let Some((lo, hi)) = todo.pop() {
        if points.len() >= MAX_POINTS {
            break;
        }
        let found = if test.thorough {
            seeded_split(&sums, lo, hi, test.min_change)
        } else {
            best_split(&sums, lo, hi, 0.0)
        };
        let Some((k, p, diff)) = found else {
            continue;
        };
        if p < PROPOSE && diff.abs() >= test.min_change {
            points.push(k);
            todo.push((lo, k));
            todo.push((k, hi));
        }
    }
    points.sort_unstable();
    prune(&sums, values.len(), points, test)
}

/// Removes the weakest change point while one fails `test` against its
/// neighbouring segments, with the noise pooled over all of them.
fn prune(sums: &Sums, len: usize, mut points: Vec<usize>, test: Test) -> Vec<usize> {
    while !points.is_empty() {
        let parts = segments(len, &points);
        let stats: Vec<(f64, f64, f64)> =
            parts.iter().map(|r| sums.stats(r.start, r.end)).collect();
        let ss: f64 = stats.iter().map(|s| s.2).sum();
        let dof: f64 = stats.iter().map(|s| s.0 - 1.0).sum();
        let var = ss / dof.max(1.0);
        let tried = points.len() as f64;
        let weakest = stats
            .windows(2)
            .enumerate()
            .map(|(i, w)| {
                let (Some(a), Some(b)) = (w.first(), w.get(1)) else {
                    return (i, 1.0);
                };
                let diff = (b.1 - a.1).abs();
                let se = (var * (1.0 / a.0 + 1.0 / b.0)).sqrt();
                let t = if se > 1e-12 {
                    diff / se
                } else if diff > 1e-12 {
                    f64::INFINITY
                } else {
                    0.0
                };
                let p = (2.0 * student::upper_tail(t, dof) * tried).min(1.0);
                let p = if diff < test.min_change { 1.0 } else { p };
                (i, p)
            })
            .max_by(|a, b| a.1.total_cmp(&b.1));
        match weakest {
            Some((i, p)) if p >= test.alpha => {
                points.remove(i);
            }
            _ => break,
        }
    }
    points
}

/// The segments `change_points` makes of `0..len`, as ranges.
pub fn segments(len: usize, points: &[usize]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::with_capacity(points.len().saturating_add(1));
    let mut from = 0usize;
    for &p in points {
        out.push(from..p);
        from = p;
    }
    out.push(from..len);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn noisy(seed: u64, n: usize, sd: f64) -> Vec<f64> {
        let mut state = seed | 1;
        (0..n)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let u = ((state >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
                sd * (u - 0.5) * 3.46
            })
            .collect()
    }

    #[test]
    fn a_step_is_found_at_its_run_and_noise_alone_is_one_level() {
        let mut v = noisy(3, 40, 0.01);
        for x in v.iter_mut().skip(25) {
            *x += 0.2;
        }
        assert_eq!(change_points(&v, Test::NOISE), vec![25]);
        assert_eq!(
            change_points(&noisy(5, 200, 0.02), Test::NOISE),
            Vec::<usize>::new()
        );
        let two = [0.0, 0.0, 0.0, -0.2, -0.2, -0.2, -0.2, 0.1, 0.1, 0.1];
        assert_eq!(change_points(&two, Test::NOISE), vec![3, 7]);
        assert_eq!(segments(10, &[3, 7]), vec![0..3, 3..7, 7..10]);
    }

    #[test]
    fn one_odd_run_is_not_a_level() {
        let mut v = vec![0.0; 12];
        v[6] = 0.5;
        assert_eq!(change_points(&v, Test::NOISE), Vec::<usize>::new());
    }
}
