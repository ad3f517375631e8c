//! Version parsing never panics, and the ordering is a total order:
//! antisymmetric and transitive on any three parsed versions.
#![no_main]

use std::cmp::Ordering;

use baseline_resolver::resolve::tags::Version;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (String, String, String)| {
    let (a, b, c) = input;
    let (Some(a), Some(b), Some(c)) = (Version::parse(&a), Version::parse(&b), Version::parse(&c)) else {
        return;
    };
    assert_eq!(a.cmp(&b), b.cmp(&a).reverse());
    assert_eq!(a.cmp(&a), Ordering::Equal);
    if a <= b && b <= c {
        assert!(a <= c);
    }
    assert_eq!(a == b, a.cmp(&b) == Ordering::Equal);
});
