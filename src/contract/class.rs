//! The classes a compared row falls in, and the verdict of a comparison:
//! one spelling of each, used by every output form.

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Class {
    Regressed,
    Warned,
    Improved,
    Unchanged,
    Noisy,
    Lost,
    Skipped,
    New,
    /// In the current results, not in a baseline whose run stopped (failed
    /// or timed out): never measured on the baseline, so not `new`.
    Absent,
    NotComparable,
    Ignored,
    NotSelected,
}

/// How many classes there are.
pub const CLASSES: usize = 12;

impl Class {
    /// Every class, in the order outputs count them.
    pub const ALL: [Class; CLASSES] = [
        Class::Regressed,
        Class::Warned,
        Class::Improved,
        Class::Unchanged,
        Class::Noisy,
        Class::Lost,
        Class::Skipped,
        Class::New,
        Class::Absent,
        Class::NotComparable,
        Class::Ignored,
        Class::NotSelected,
    ];

    /// The one spelling of the class, everywhere it is shown.
    pub fn name(self) -> &'static str {
        match self {
            Class::Regressed => "regressed",
            Class::Warned => "warned",
            Class::Improved => "improved",
            Class::Unchanged => "unchanged",
            Class::Noisy => "noisy",
            Class::Lost => "lost",
            Class::Skipped => "skipped",
            Class::New => "new",
            Class::Absent => "absent",
            Class::NotComparable => "not-comparable",
            Class::Ignored => "ignored",
            Class::NotSelected => "not-selected",
        }
    }

    /// Its position in [`Class::ALL`]: where counts per class keep it.
    pub fn index(self) -> usize {
        Class::ALL.iter().position(|c| *c == self).unwrap_or(0)
    }

    /// Which class indices are among `wanted`.
    pub fn mask(wanted: &[Class]) -> [bool; CLASSES] {
        let mut mask = [false; CLASSES];
        for class in wanted {
            if let Some(m) = mask.get_mut(class.index()) {
                *m = true;
            }
        }
        mask
    }

    /// The classes of rows measured on both sides.
    pub const COMPARED: [Class; 5] = [
        Class::Regressed,
        Class::Warned,
        Class::Improved,
        Class::Unchanged,
        Class::Noisy,
    ];

    /// Every class but `unchanged`: what a short listing shows.
    pub const NOTABLE: [Class; 11] = [
        Class::Regressed,
        Class::Warned,
        Class::Improved,
        Class::Noisy,
        Class::Lost,
        Class::Skipped,
        Class::New,
        Class::Absent,
        Class::NotComparable,
        Class::Ignored,
        Class::NotSelected,
    ];

    /// Both sides measured: a dashboard line.
    pub fn compared(self) -> bool {
        matches!(
            self,
            Class::Regressed | Class::Warned | Class::Improved | Class::Unchanged | Class::Noisy
        )
    }

    /// What fails the gate.
    pub fn fails(self) -> bool {
        matches!(self, Class::Regressed | Class::Lost)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    Regression,
    Inconclusive,
}

impl Verdict {
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Pass => "pass",
            Verdict::Regression => "regression",
            Verdict::Inconclusive => "inconclusive",
        }
    }
}
