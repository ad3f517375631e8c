//! Every key of a comparison once, with the row each table has for it.
//!
//! The tables come in groups (the baseline's samples, current's samples,
//! the history runs). Keys are taken from the groups that define the
//! comparison (baseline first, then current) in the order first seen;
//! other groups (history) are only looked up, never add a key. One hash
//! table of slot numbers, each key hashed once when it was read. Pure: no
//! I/O.

use hashbrown::HashTable;

use crate::table::{Key, RowView, Table};

/// "Absent" in the row grid.
const ABSENT: u32 = u32::MAX;

pub struct Join<'t> {
    tables: Vec<&'t Table>,
    /// Where each group's tables start in `tables`, and how many.
    groups: Vec<(usize, usize)>,
    /// Each key's first table and row.
    firsts: Vec<(u32, u32)>,
    /// `keys x tables` row numbers.
    grid: Vec<u32>,
}

impl<'t> Join<'t> {
    /// Joins `groups`; the first `defining` groups add keys, the rest are
    /// only looked up.
    pub fn new(groups: &[&'t [Table]], defining: usize) -> Join<'t> {
        let tables: Vec<&Table> = groups.iter().flat_map(|g| g.iter()).collect();
        let mut starts = Vec::with_capacity(groups.len());
        let mut at = 0usize;
        for g in groups {
            starts.push((at, g.len()));
            at = at.saturating_add(g.len());
        }
        let mut join = Join {
            groups: starts,
            firsts: Vec::new(),
            grid: Vec::new(),
            tables,
        };
        let defining_tables = join
            .groups
            .get(..defining.min(join.groups.len()))
            .map_or(0, |g| g.iter().map(|(_, n)| n).sum());
        let width = join.tables.len();
        let largest = join.tables.iter().map(|t| t.len()).max().unwrap_or(0);
        let mut index: HashTable<u32> = HashTable::with_capacity(largest);
        for t in 0..width {
            let Some(table) = join.tables.get(t).copied() else {
                continue;
            };
            for (r, row) in table.rows().enumerate() {
                let key = row.key();
                let slot = match index.find(row.hash(), |s| join.key_eq(*s, key)) {
                    Some(slot) => *slot,
                    None if t < defining_tables => {
                        let slot = u32::try_from(join.firsts.len()).unwrap_or(ABSENT);
                        join.firsts
                            .push((u32::try_from(t).unwrap_or(0), u32::try_from(r).unwrap_or(0)));
                        join.grid
                            .resize(join.grid.len().saturating_add(width), ABSENT);
                        let firsts = &join.firsts;
                        let tables = &join.tables;
                        index.insert_unique(row.hash(), slot, |s| hash_of(tables, firsts, *s));
                        slot
                    }
                    None => continue,
                };
                let cell = usize::try_from(slot)
                    .unwrap_or(usize::MAX)
                    .saturating_mul(width)
                    .saturating_add(t);
                if let Some(cell) = join.grid.get_mut(cell) {
                    *cell = u32::try_from(r).unwrap_or(ABSENT);
                }
            }
        }
        join
    }

    fn first(&self, slot: u32) -> Option<RowView<'t>> {
        let (t, r) = *self.firsts.get(usize::try_from(slot).ok()?)?;
        self.tables
            .get(usize::try_from(t).ok()?)?
            .row(usize::try_from(r).ok()?)
    }

    fn key_eq(&self, slot: u32, key: Key<'_>) -> bool {
        self.first(slot)
            .is_some_and(|r| r.key().joined() == key.joined())
    }

    /// How many keys.
    pub fn len(&self) -> usize {
        self.firsts.len()
    }

    pub fn is_empty(&self) -> bool {
        self.firsts.is_empty()
    }

    /// The key of `slot`.
    pub fn key(&self, slot: usize) -> Option<Key<'t>> {
        let (t, r) = *self.firsts.get(slot)?;
        self.tables
            .get(usize::try_from(t).ok()?)?
            .key(usize::try_from(r).ok()?)
    }

    /// Each table of group `group`, in order, with its row for the key in
    /// `slot` or `None`: a run that lacks the row keeps its place.
    pub fn cells(
        &self,
        slot: usize,
        group: usize,
    ) -> impl Iterator<Item = Option<RowView<'t>>> + '_ {
        let (start, n) = self.groups.get(group).copied().unwrap_or((0, 0));
        let width = self.tables.len();
        (start..start.saturating_add(n)).map(move |t| {
            let r = *self
                .grid
                .get(slot.saturating_mul(width).saturating_add(t))?;
            if r == ABSENT {
                return None;
            }
            self.tables.get(t)?.row(usize::try_from(r).ok()?)
        })
    }

    /// The rows group `group` has for the key in `slot`, one per table
    /// that has it, in table order.
    pub fn rows(&self, slot: usize, group: usize) -> impl Iterator<Item = RowView<'t>> + '_ {
        self.cells(slot, group).flatten()
    }
}

fn hash_of(tables: &[&Table], firsts: &[(u32, u32)], slot: u32) -> u64 {
    usize::try_from(slot)
        .ok()
        .and_then(|s| firsts.get(s))
        .and_then(|(t, r)| {
            Some(
                tables
                    .get(usize::try_from(*t).ok()?)?
                    .hash(usize::try_from(*r).ok()?),
            )
        })
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::table::read::parse;
    use std::path::Path;

    fn t(rows: &str) -> Table {
        let c = Config::default();
        parse(
            Path::new("t.csv"),
            format!("op,shape,dtype,tflops\n{rows}").as_bytes(),
            &c.keys,
            &c.metrics,
        )
        .unwrap()
    }

    #[test]
    fn keys_in_order_first_seen_and_history_only_looked_up() {
        let base = [t("a,1,b,1\nb,1,b,2\n")];
        let cur = [t("c,1,b,3\na,1,b,4\n")];
        let history = [t("a,1,b,5\nz,1,b,6\n"), t("a,1,b,7\n")];
        let join = Join::new(&[&base, &cur, &history], 2);
        let keys: Vec<String> = (0..join.len())
            .map(|s| join.key(s).unwrap().first().into_owned())
            .collect();
        assert_eq!(keys, ["a", "b", "c"]);
        let values = |slot, group| -> Vec<f64> {
            join.rows(slot, group)
                .filter_map(|r| r.measure().map(|m| m.1))
                .collect()
        };
        assert_eq!(values(0, 0), [1.0]);
        assert_eq!(values(0, 1), [4.0]);
        assert_eq!(values(0, 2), [5.0, 7.0]);
        assert_eq!(values(2, 0), Vec::<f64>::new());
    }
}
