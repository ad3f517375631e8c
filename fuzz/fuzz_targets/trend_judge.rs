//! Any numbers as one row's history: `trend` judges it without a panic,
//! every change it reports lies inside the history, and every size is a
//! finite number.
#![no_main]

use baseline_resolver::trend::changes::judge;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (bool, u8, Vec<f64>)| {
    let (higher, min, values) = input;
    let values: Vec<(usize, f64)> = values.into_iter().take(2_000).enumerate().collect();
    let sign = if higher { 1.0 } else { -1.0 };
    let judged = judge(&values, sign, f64::from(min) / 100.0);
    assert!(judged.runs <= values.len());
    for c in &judged.changes {
        assert!(c.run < values.len(), "{c:?}");
        let sizes = [c.before, c.after, c.before_spread, c.after_spread, c.change];
        assert!(sizes.iter().all(|v| v.is_finite()), "{c:?}");
    }
    for at in &judged.outliers {
        assert!(*at < values.len());
    }
});
