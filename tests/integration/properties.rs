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

    #[test]
    fn output_round_trip(pairs in prop::collection::vec((".{0,12}", ".{0,40}"), 0..8)) {
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
