use super::*;

/// Positions read from the index are those counted from the start, in
/// a long value of several-byte characters whose lines straddle the
/// index's strides.
#[test]
fn positions_in_a_long_value_are_counted_as_from_its_start() {
    let line = "é€ git clone 😀 https://x/y.git; ";
    let text: String = (0..2000)
        .map(|i| {
            if i % 7 == 0 {
                format!("{line}\n")
            } else {
                line.to_owned()
            }
        })
        .collect();
    let at = Pos {
        line: 10,
        column: 5,
    };
    for style in [Style::Literal, Style::Plain] {
        let scalar = Scalar::new(text.clone(), style, at);
        for (offset, _) in text.char_indices().step_by(97).chain([(text.len(), ' ')]) {
            let before = &text[..offset];
            let start = before.rfind('\n').map_or(0, |i| i + 1);
            let column = at.column + before[start..].chars().count();
            let line = match style {
                Style::Literal => at.line + before.matches('\n').count(),
                _ => at.line,
            };
            assert_eq!(scalar.pos_of(offset), Pos { line, column }, "{offset}");
        }
    }
}

#[test]
fn positions_point_at_keys_values_and_lines_inside_a_block_scalar() {
    let text = "on:\n  push:\njobs:\n  bench:\n    runs-on: [self-hosted, 'gpu']\n    steps:\n      - run: |\n          echo hi\n            git fetch origin main\n";
    let root = parse(text).unwrap();
    assert_eq!(root.key("on").unwrap().at, Pos { line: 1, column: 1 });
    let job = root.get("jobs").unwrap().get("bench").unwrap();
    assert_eq!(job.at, Pos { line: 5, column: 5 });
    let labels = job.get("runs-on").unwrap().items();
    assert_eq!(
        labels[1].scalar().unwrap().pos_of(0),
        Pos {
            line: 5,
            column: 29
        }
    );
    let run = job.get("steps").unwrap().items()[0].get("run").unwrap();
    let script = run.scalar().unwrap();
    let at = script.text.find("git").unwrap();
    assert_eq!(
        script.pos_of(at),
        Pos {
            line: 9,
            column: 13
        }
    );
}

#[test]
fn anchors_expand_and_a_billion_laughs_is_refused() {
    let root = parse("a: &x {b: 1}\nc: *x\n").unwrap();
    assert_eq!(root.get("c").unwrap().get("b").unwrap().str(), Some("1"));
    let mut laughs = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..9 {
        let prev = format!("*a{}", i - 1);
        laughs.push_str(&format!("a{i}: &a{i} [{}]\n", vec![prev; 10].join(", ")));
    }
    assert!(matches!(parse(&laughs), Err(YamlError::TooLarge)));
    // Issue 26: 1 KB of anchors nested 30 deep, each doubling the last
    // (780,000 nodes expanded, 1.2 GB and an abort before).
    let mut doubling = String::from("a0: &a0 [x]\n");
    for i in 1..30 {
        doubling.push_str(&format!("a{i}: &a{i} [*a{}, *a{}]\n", i - 1, i - 1));
    }
    assert!(doubling.len() < 1_100);
    assert!(matches!(parse(&doubling), Err(YamlError::TooLarge)));
    // What the port panics on (a tag before a `,` in a flow: its
    // issue 7) is an error of this file (its place, which the binary's
    // hook gives, tests/integration/lint.rs checks).
    assert!(matches!(
        parse("a: [!foo,b]\n"),
        Err(YamlError::Reader { .. })
    ));
    let placed = "TODO (at /root/.cargo/registry/src/x/libyaml-safer-0.3.0/src/scanner.rs:1:2)";
    assert_eq!(
        from_crate(placed),
        "TODO (at libyaml-safer-0.3.0/src/scanner.rs:1:2)"
    );
    assert_eq!(from_crate("a panic"), "a panic");
    assert!(parse("run: |\n  echo hi").is_ok(), "no final line break");
    let deep = format!("a: {}x{}\n", "[".repeat(100), "]".repeat(100));
    assert!(
        matches!(parse(&deep), Err(YamlError::TooDeep { line: 1 })),
        "{:?}",
        parse(&deep).map(|_| ())
    );
    assert!(matches!(
        parse("a: [b\n"),
        Err(YamlError::Syntax { line: 2, .. })
    ));
}
