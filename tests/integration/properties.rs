//! Property tests: the output encoder round-trips anything it accepts; the
//! version order is a total order that agrees with PEP 440 (`pep440_rs`) and
//! semver (`semver`) on generated versions; ref validation never accepts what
//! `git check-ref-format` rejects.

use std::cmp::Ordering;
use std::process::Command;

use baseline_resolver::resolve::tags::Version;
use baseline_resolver::runner::file_command;
use baseline_resolver::validate::RefName;
use proptest::prelude::*;

fn pep440() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(0u64..20, 1..4),
        prop::option::of((prop::sample::select(vec!["a", "b", "rc"]), 0u64..6)),
        prop::option::of(0u64..4),
        prop::option::of(0u64..6),
    )
        .prop_map(|(release, pre, post, dev)| {
            let mut s = release
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(".");
            if let Some((label, n)) = pre {
                s.push_str(&format!("{label}{n}"));
            }
            if let Some(n) = post {
                s.push_str(&format!(".post{n}"));
            }
            if let Some(n) = dev {
                s.push_str(&format!(".dev{n}"));
            }
            s
        })
}

fn semver_text() -> impl Strategy<Value = String> {
    let label = prop_oneof![
        (prop::sample::select(vec!["alpha", "beta", "rc"]), 0u64..12)
            .prop_map(|(l, n)| format!("{l}.{n}")),
        "[x-z]{1,4}",
        ("[x-z]{1,4}", 0u64..12).prop_map(|(w, n)| format!("{w}.{n}")),
    ];
    (0u64..5, 0u64..12, 0u64..12, prop::option::of(label)).prop_map(|(a, b, c, pre)| match pre {
        Some(pre) => format!("{a}.{b}.{c}-{pre}"),
        None => format!("{a}.{b}.{c}"),
    })
}

fn any_version() -> impl Strategy<Value = Version> {
    prop_oneof![pep440(), semver_text()]
        .prop_map(|s| Version::parse(&s).expect("generated versions parse"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    // Issue 6, item 2: the output write/read round trip for arbitrary names and values.
    #[test]
    fn every_output_reads_back_as_written_so_no_value_forges_another(pairs in prop::collection::vec((".{0,12}", ".{0,40}"), 0..8)) {
        let mut written = String::new();
        let mut expected = Vec::new();
        for (name, value) in pairs {
            if file_command::encode(&mut written, &name, &value).is_ok() {
                expected.push((name, value));
            }
        }
        prop_assert_eq!(file_command::read(&written).unwrap(), expected);
    }

    #[test]
    fn version_order_is_total(a in any_version(), b in any_version(), c in any_version()) {
        prop_assert_eq!(a.cmp(&b), b.cmp(&a).reverse());
        prop_assert_eq!(a == b, a.cmp(&b) == Ordering::Equal);
        if a <= b && b <= c {
            prop_assert!(a <= c);
        }
    }

    #[test]
    fn agrees_with_pep440(a in pep440(), b in pep440()) {
        let ours = Version::parse(&a).unwrap().cmp(&Version::parse(&b).unwrap());
        let theirs = a.parse::<pep440_rs::Version>().unwrap().cmp(&b.parse::<pep440_rs::Version>().unwrap());
        prop_assert_eq!(ours, theirs, "{} vs {}", a, b);
    }

    /// Where semver refuses (a number with a leading zero, semver 2.0.0
    /// items 2 and 9), so do we: such a tag is not a version, never the
    /// release (the semver crate reads them since issue 50).
    #[test]
    fn a_leading_zero_in_a_semver_number_is_not_a_version(
        (a, b, c) in (0u64..5, 0u64..12, 0u64..12),
        at in 0usize..4,
        label in "(nightly|x|y)",
    ) {
        let mut parts = [a.to_string(), b.to_string(), c.to_string(), "1".to_owned()];
        parts[at] = format!("0{}", parts[at]);
        let [a, b, c, n] = parts;
        let text = format!("v{a}.{b}.{c}-{label}.{n}");
        prop_assert!(Version::parse(&text).is_none(), "{} parsed", text);
    }

    #[test]
    fn agrees_with_semver(a in semver_text(), b in semver_text()) {
        let ours = Version::parse(&a).unwrap().cmp(&Version::parse(&b).unwrap());
        let theirs = semver::Version::parse(&a).unwrap().cmp_precedence(&semver::Version::parse(&b).unwrap());
        prop_assert_eq!(ours, theirs, "{} vs {}", a, b);
    }
}

proptest! {
    // Each case runs git: fewer cases.
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn ref_validation_never_accepts_what_git_rejects(name in "[a-z0-9./@{}^~:?*\\[\\\\ -]{1,16}") {
        if RefName::parse(&name).is_ok() {
            let status = Command::new("git")
                .args(["check-ref-format", "--allow-onelevel", &name])
                .status()
                .unwrap();
            prop_assert!(status.success(), "we accept {:?}, git rejects it", name);
        }
    }
}

mod comparing {
    //! `compare`'s decision, on generated result tables: row order never
    //! changes the verdict; scaling every current value by f changes every
    //! row by f - 1; a row worse than the fail threshold always fails the gate.

    use std::path::Path;

    use baseline_resolver::compare::verdict::{Class, Comparison, Sides, Verdict, compare};
    use baseline_resolver::config::{Config, Thresholds};
    use baseline_resolver::table::Table;
    use baseline_resolver::table::read::parse;
    use proptest::prelude::*;

    /// Compares `cur` with `base` (default thresholds) and hands the
    /// comparison to `check`.
    fn with<R>(
        cur: &[(usize, Option<f64>)],
        base: &[(usize, Option<f64>)],
        check: impl FnOnce(&Comparison<'_>) -> R,
    ) -> R {
        let (c, b) = ([table(cur)], [table(base)]);
        let config = Config::default();
        let sides = Sides {
            label: "main".to_owned(),
            baseline: &b,
            current: &c,
            history: &[],
            unselected: &[],
            unavailable: None,
            paired: None,
        };
        check(&compare(sides, &config, Thresholds::default()))
    }

    /// `(value in the baseline, value in current)`; `None` is a failed row.
    fn rows() -> impl Strategy<Value = Vec<(Option<f64>, Option<f64>)>> {
        prop::collection::vec(
            (
                prop::option::weighted(0.9, 0.5f64..5000.0),
                prop::option::weighted(0.9, 0.5f64..5000.0),
            ),
            1..40,
        )
    }

    /// `(row number, value)` of one side; `None` is a failed row.
    type Side = Vec<(usize, Option<f64>)>;

    fn table(values: &[(usize, Option<f64>)]) -> Table {
        let mut text = "op,shape,dtype,tflops,status\n".to_owned();
        for (i, v) in values {
            match v {
                Some(v) => text.push_str(&format!("op{i},{i}x1,bf16,{v},ok\n")),
                None => text.push_str(&format!("op{i},{i}x1,bf16,-,missing\n")),
            }
        }
        let c = Config::default();
        parse(Path::new("t.csv"), text.as_bytes(), &c.keys, &c.metrics).unwrap()
    }

    fn sides(rows: &[(Option<f64>, Option<f64>)]) -> (Side, Side) {
        let base = rows.iter().enumerate().map(|(i, (b, _))| (i, *b)).collect();
        let cur = rows.iter().enumerate().map(|(i, (_, c))| (i, *c)).collect();
        (base, cur)
    }

    proptest! {
        /// Whatever a results file holds, reading it gives a table or a
        /// named error, never a panic (with `panic = "abort"`, a panic would
        /// lose every output of the step).
        #[test]
        fn any_bytes_are_a_table_or_an_error(
            bytes in prop::collection::vec(
                prop::sample::select(b"op,shape,dtype,tflops,tbps,status\n\r\" -.0123456789xokmissingskip\xff\x1f".to_vec()),
                0..400,
            ),
        ) {
            let c = Config::default();
            let _ = parse(Path::new("t.csv"), &bytes, &c.keys, &c.metrics);
        }

        #[test]
        fn row_order_never_changes_the_verdict(rows in rows(), seed in any::<u64>()) {
            let (base, cur) = sides(&rows);
            let verdict = with(&cur, &base, |c| c.verdict());
            let mut shuffled_base = base.clone();
            let mut shuffled_cur = cur.clone();
            // A deterministic shuffle from the seed.
            let n = shuffled_base.len();
            for i in (1..n).rev() {
                let j = (seed.wrapping_mul(6364136223846793005).wrapping_add(i as u64) % (i as u64 + 1)) as usize;
                shuffled_base.swap(i, j);
                shuffled_cur.swap(n - 1 - i, n - 1 - j);
            }
            let again = with(&shuffled_cur, &shuffled_base, |c| c.verdict());
            prop_assert_eq!(verdict, again);
        }

        #[test]
        fn scaling_current_by_f_changes_every_row_by_f_minus_1(
            values in prop::collection::vec(1.0f64..5000.0, 1..30),
            f in 0.25f64..4.0,
        ) {
            let base: Vec<(usize, Option<f64>)> = values.iter().copied().map(Some).enumerate().collect();
            // Printed with enough digits that the CSV round trip keeps them.
            let cur: Vec<(usize, Option<f64>)> = values.iter().map(|v| Some(v * f)).enumerate().collect();
            let changes: Vec<f64> = with(&cur, &base, |c| c.rows().map(|r| r.change.unwrap()).collect());
            for change in changes {
                prop_assert!((change - (f - 1.0)).abs() < 1e-9, "{} vs {}", change, f - 1.0);
            }
        }

        #[test]
        fn a_row_worse_than_the_threshold_always_fails_the_gate(
            rows in rows(),
            worse in 0.101f64..0.95,
            which in any::<prop::sample::Index>(),
        ) {
            let (mut base, mut cur) = sides(&rows);
            let i = which.index(base.len());
            base[i].1 = Some(1000.0);
            cur[i].1 = Some(1000.0 * (1.0 - worse));
            let (class, verdict) = with(&cur, &base, |c| (c.rows().nth(i).unwrap().class, c.verdict()));
            prop_assert_eq!(class, Class::Regressed);
            prop_assert_eq!(verdict, Verdict::Regression);
        }
    }
}

/// Path globs against a plain recursive definition, and in bounded work
/// (issue 26: nested `**` took exponential time).
mod path_globs {
    use baseline_resolver::glob::{PathGlob, glob_match, star_match};
    use proptest::prelude::*;

    /// The definition: `**` any number of segments, any other segment one.
    fn reference(pattern: &[&str], path: &[&str]) -> bool {
        match pattern.split_first() {
            None => path.is_empty(),
            Some((&"**", rest)) => (0..=path.len()).any(|k| reference(rest, &path[k..])),
            Some((seg, rest)) => match path.split_first() {
                Some((first, tail)) => glob_match(seg, first) && reference(rest, tail),
                None => false,
            },
        }
    }

    fn segments(
        choices: &'static [&'static str],
        max: usize,
    ) -> impl Strategy<Value = Vec<&'static str>> {
        prop::collection::vec(prop::sample::select(choices), 0..max)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn a_path_glob_matches_as_defined(
            pattern in segments(&["**", "*", "a", "b", "a*", "?", "*b"], 7),
            path in segments(&["a", "b", "ab", "ba"], 7),
        ) {
            let glob = PathGlob::new(&pattern.join("/"));
            let expected = reference(&pattern, &path);
            prop_assert_eq!(glob.matches(&path.join("/")), expected, "{:?} {:?}", pattern, path);
        }

        /// Whatever the pattern and the path (up to 200 segments each), a
        /// match tests at most (pattern + 1) x (path + 1) segment pairs.
        #[test]
        fn matching_is_bounded_by_pattern_times_path(
            pattern in segments(&["**", "*", "d", "x*", "?"], 200),
            path in segments(&["d", "x", "dd"], 200),
        ) {
            let mut calls = 0usize;
            star_match(
                pattern.len(),
                path.len(),
                |p| pattern[p] == "**",
                |p, s| { calls += 1; glob_match(pattern[p], path[s]) },
            );
            prop_assert!(calls <= (pattern.len() + 1) * (path.len() + 1), "{calls}");
        }
    }
}
