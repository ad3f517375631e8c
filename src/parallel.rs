//! Work shared among at most one thread per core, results in order. A
//! thread the system refuses (a low limit on threads or address space) is
//! work the calling thread does itself: never a panic, never more threads
//! than cores, whatever the input.

use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Threads to use: the cores, at least one.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// `work` on each of `items`, pulled one at a time by the workers (for
/// items of very different cost: files). Results in item order.
pub fn each<I: Sync, T: Send>(items: &[I], work: impl Fn(&I) -> T + Sync) -> Vec<T> {
    let workers = cores().min(items.len()).max(1);
    let next = AtomicUsize::new(0);
    let take = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else { break };
            done.push((i, work(item)));
        }
        done
    };
    let take = &take;
    let mut all: Vec<(usize, T)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (1..workers)
            .map_while(|_| std::thread::Builder::new().spawn_scoped(scope, take).ok())
            .collect();
        let mut all = take();
        for handle in handles {
            // A worker's panic goes on here (and to the panic hook).
            all.extend(
                handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            );
        }
        all
    });
    all.sort_by_key(|(i, _)| *i);
    all.into_iter().map(|(_, t)| t).collect()
}

/// `work` on `0..len` cut into one contiguous range per worker (for items
/// of about equal cost: rows). Results in range order.
pub fn ranges<T: Send>(len: usize, work: impl Fn(Range<usize>) -> T + Sync) -> Vec<T> {
    // Below this, a thread costs more than it saves.
    const SMALL: usize = 4096;
    let workers = if len < SMALL { 1 } else { cores() };
    let size = len.div_ceil(workers.max(1)).max(1);
    let cuts: Vec<Range<usize>> = (0..len)
        .step_by(size)
        .map(|start| start..start.saturating_add(size).min(len))
        .collect();
    if cuts.len() <= 1 {
        return vec![work(0..len)];
    }
    std::thread::scope(|scope| {
        let work = &work;
        let mut pending = Vec::new();
        let mut results = Vec::new();
        for (i, cut) in cuts.iter().enumerate() {
            if i == 0 {
                continue;
            }
            let cut = cut.clone();
            match std::thread::Builder::new().spawn_scoped(scope, move || work(cut.clone())) {
                Ok(handle) => pending.push((i, Some(handle))),
                Err(_) => pending.push((i, None)),
            }
        }
        results.push(work(cuts.first().cloned().unwrap_or(0..0)));
        for (i, handle) in pending {
            let result = match handle {
                Some(h) => h
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                None => work(cuts.get(i).cloned().unwrap_or(0..0)),
            };
            results.push(result);
        }
        results
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_order() {
        let items: Vec<usize> = (0..100).collect();
        assert_eq!(
            each(&items, |i| i * 2),
            items.iter().map(|i| i * 2).collect::<Vec<_>>()
        );
        let sums = ranges(10_000, |r| r.sum::<usize>());
        assert_eq!(sums.iter().sum::<usize>(), (0..10_000).sum::<usize>());
        let firsts = ranges(10_000, |r| r.start);
        assert!(firsts.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(ranges(10, |r| r.len()), vec![10]);
    }
}
