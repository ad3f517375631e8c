//! What `comment` keeps of a report's strings: each cut to one more
//! character than the body shows (so the body still knows it was cut), as
//! soon as it is read: a stranger's report may hold a megabyte in one cell.

use crate::contract::comparison::Row;

/// A key cell is cut to this many characters (the body shows fewer), and
/// a key's cells are kept while their joined text is within it.
pub const CELL: usize = 121;
/// A baseline's label.
pub const LABEL: usize = 61;
/// A reason, an unavailable baseline's why, a warning.
pub const TEXT: usize = 301;
/// A unit.
pub const UNIT: usize = 13;
/// A class or verdict name.
pub const CLASS: usize = 21;

/// At most `n` characters of `s`.
pub fn cut(mut s: String, n: usize) -> String {
    if let Some((at, _)) = s.char_indices().nth(n) {
        s.truncate(at);
    }
    s
}

/// A row as the body keeps it: its key's cells while their joined text is
/// within [`CELL`] (each cut to it), its class, unit and reason cut; its
/// samples dropped (the body shows medians).
pub fn cut_row(mut row: Row<'static>) -> Row<'static> {
    let mut shown = 0usize;
    row.key.0 = std::mem::take(&mut row.key.0)
        .into_iter()
        .take_while(|(_, v)| {
            let keep = shown <= CELL;
            shown = shown
                .saturating_add(v.chars().count().min(CELL))
                .saturating_add(1);
            keep
        })
        .map(|(k, v)| (cut(k, CELL), cut(v, CELL)))
        .collect();
    row.class = cut(row.class.into_owned(), CLASS).into();
    row.unit = row.unit.map(|u| cut(u.into_owned(), UNIT).into());
    row.reason = row.reason.map(|r| cut(r.into_owned(), TEXT).into());
    for side in [&mut row.baseline, &mut row.current].into_iter().flatten() {
        side.samples = Vec::new().into();
    }
    row
}
