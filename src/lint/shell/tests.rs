use super::*;

fn names(script: &str) -> Vec<(Vec<String>, usize, bool)> {
    commands(script)
        .unwrap()
        .into_iter()
        .map(|c| {
            (
                c.words.iter().map(|w| w.text.clone()).collect(),
                c.loops,
                c.nested,
            )
        })
        .collect()
}

#[test]
fn comments_quotes_continuations_and_expressions() {
    let c = names(
        "# git fetch origin\necho 'a # b' \"c d\" # tail\ngit \\\n  fetch origin ${{ github.base_ref }}\n",
    );
    assert_eq!(c[0].0, ["echo", "a # b", "c d"]);
    assert_eq!(c[1].0, ["git", "fetch", "origin", "${{ github.base_ref }}"]);
    assert_eq!(c.len(), 2);
}

#[test]
fn loops_across_lines_substitutions_and_bash_c() {
    let script = "for i in $(seq 0 7); do\n  git checkout main~$i && ./bench\ndone\ndocker exec box bash -c \"git fetch origin; ls\"\n";
    let c = names(script);
    let checkout = c
        .iter()
        .find(|c| c.0.first().is_some_and(|w| w == "git"))
        .unwrap();
    assert_eq!(checkout.1, 1, "inside the loop: {c:?}");
    assert!(c.iter().any(|c| c.0 == ["seq", "0", "7"] && c.2));
    let fetch = c
        .iter()
        .find(|c| c.0.get(1).is_some_and(|w| w == "fetch"))
        .unwrap();
    assert_eq!((fetch.1, fetch.2), (0, true));
    let all = commands(script).unwrap();
    let at = all.iter().find(|c| c.git("fetch")).unwrap().at();
    assert_eq!(script.get(at..at + 9), Some("git fetch"));
}

#[test]
fn here_documents_fed_to_a_shell_are_read_others_skipped() {
    let c = names(
        "bash <<'EOF'\ngit fetch origin main\nEOF\ncat <<EOF > notes\ngit fetch it's text\nEOF\necho done\n",
    );
    assert!(
        c.iter()
            .any(|c| c.0 == ["git", "fetch", "origin", "main"] && c.2)
    );
    assert!(!c.iter().any(|c| c.0.contains(&"text".to_owned())));
    assert!(c.iter().any(|c| c.0 == ["echo", "done"]));
}

/// A here-string (`<<<`) feeds its word to the command: the lines after
/// it are the script's, not a heredoc's body (charon's benchmark loop
/// clones each crate after `read -r url dir <<< "..."`).
#[test]
fn a_here_string_opens_no_here_document() {
    let c = names("read -r url dir <<< \"$x\"\ngit clone \"$url\" d\necho done\n");
    assert!(
        c.iter()
            .any(|c| c.0.first().is_some_and(|w| w == "git") && c.0.len() == 4),
        "{c:?}"
    );
    assert!(c.iter().any(|c| c.0 == ["echo", "done"]));
}

/// Issue 26: 40 KB of 20,000 nested `$(` overflowed the stack (and
/// copied every body at every level). Deeper than the limit is an
/// error that says where.
#[test]
fn nesting_past_the_limit_is_refused_never_a_crash() {
    let deep = format!("echo {}x{}", "$(".repeat(20_000), ")".repeat(20_000));
    assert_eq!(commands(&deep).unwrap_err().at, 5 + 2 * (MAX_NESTING + 1));
    let ok = format!(
        "echo {}git fetch origin main{}",
        "$(".repeat(MAX_NESTING),
        ")".repeat(MAX_NESTING)
    );
    let c = commands(&ok).unwrap();
    assert!(
        c.iter().any(|c| c.git("fetch")),
        "the deepest level allowed is read"
    );
    let bash = format!("{}git fetch{}", "bash -c \"".repeat(3), "\"".repeat(3));
    assert!(commands(&bash).is_ok());
}

/// Found by the property test: a `bash -c` body whose text is not its
/// source placed its commands past the end of the script.
#[test]
fn a_shell_body_stays_inside_its_script() {
    let script = "\"$(bash -c $(}\n\\";
    for c in commands(script).unwrap() {
        assert!(c.at() <= script.len(), "{c:?}");
    }
}

#[test]
fn variables_a_script_sets_are_expanded_in_later_words() {
    let c = names(
        "for i in 0 1 2; do\n  BASE=\"main~$i\"\n  git checkout \"$BASE\"\ndone\nexport R=origin B=${BASE}\ngit fetch $R ${B}x $UNSET\n",
    );
    assert!(
        c.iter()
            .any(|c| c.0 == ["git", "checkout", "main~$i"] && c.1 == 1),
        "{c:?}"
    );
    assert!(
        c.iter()
            .any(|c| c.0 == ["git", "fetch", "origin", "main~$ix", "$UNSET"]),
        "{c:?}"
    );
    let doubling = "X=ab\n".to_owned() + &"X=$X$X\n".repeat(40) + "echo $X\n";
    let all = commands(&doubling).unwrap();
    assert!(
        all.iter()
            .all(|c| c.words.iter().all(|w| w.text.len() <= 2 * MAX_EXPANDED))
    );
}

#[test]
fn a_variable_set_on_a_condition_keeps_the_value_set_before() {
    // neqo: the baseline's build, or nothing when it is missing.
    let c = names(
        "B=\"../dist/neqo-baseline/$N\"\n[ -f \"$B\" ] || B=\"\"\nrun \"$B\" --bench\nA=1\nA=2\nrun $A\n[ -z \"$C\" ] && C=x\nrun $C\n",
    );
    assert!(
        c.iter()
            .any(|c| c.0 == ["run", "../dist/neqo-baseline/$N", "--bench"]),
        "{c:?}"
    );
    assert!(c.iter().any(|c| c.0 == ["run", "2"]), "{c:?}");
    assert!(c.iter().any(|c| c.0 == ["run", "x"]), "{c:?}");
}

#[test]
fn a_function_that_runs_its_arguments_is_read_as_the_command_it_is_given() {
    let s = "run_command() {\n  local output status=0\n  output=$(eval \"$@\" 2>&1) || status=$?\n  if [ \"$status\" -ne 0 ]; then\n    exit 1\n  fi\n}\nfunction quiet {\n  \"$@\" > /dev/null\n}\nlog() {\n  echo \"$@\"\n}\nrun_command git clone https://x/y.git y\nquiet git fetch origin\nlog git push\n";
    let names: Vec<String> = commands(s)
        .unwrap()
        .iter()
        .rev()
        .take(3)
        .map(|c| {
            c.words
                .iter()
                .map(|w| w.text.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    assert_eq!(
        names,
        [
            "log git push",
            "git fetch origin",
            "git clone https://x/y.git y"
        ],
        "echo \"$@\" prints its arguments: it runs nothing"
    );
}

#[test]
fn a_regex_in_double_brackets_is_one_word() {
    // csp-benchmarks: `|` and parentheses of `=~`'s regex are no pipeline.
    let c = names(
        "if [[ ! \"$d\" =~ ^(openvm|jolt|sp1)(/|$) ]]; then filtered+=(\"$d\"); fi\nfoo | bar\n",
    );
    assert_eq!(
        c.first().map(|c| c.0.clone()),
        Some(
            ["[[", "!", "$d", "=~", "^(openvm|jolt|sp1)(/|$)", "]]"]
                .map(String::from)
                .to_vec()
        )
    );
    assert!(c.iter().any(|c| c.0 == ["bar"]), "{c:?}");
}

#[test]
fn an_array_over_lines_is_one_assignment() {
    // csp-benchmarks' folders to watch: no program named `ligetron`.
    let c = names(
        "FOLDERS=(\n  ligetron\n  \"bar (x)\"\n)\nfor d in \"${FOLDERS[@]}\"; do\n  run \"$d\"\ndone\n",
    );
    assert!(
        !c.iter()
            .any(|c| c.0.first().is_some_and(|w| w == "ligetron")),
        "{c:?}"
    );
    assert!(
        c.iter().any(|c| c.0.first().is_some_and(|w| w == "run")),
        "{c:?}"
    );
}

#[test]
fn a_comment_among_an_arrays_items_ends_nothing() {
    // pineapple's stress fixtures: a comment with `)` and `'` between
    // two items; the item after it is no program.
    let c = names(
        "HIGH=(\n  a.json:50:8   # 4 roots\n  # the run's transforms (copy/lua)\n  benchmarks:large.json:5:4\n)\necho done\n",
    );
    assert!(
        !c.iter()
            .any(|c| c.0.first().is_some_and(|w| w.starts_with("benchmarks"))),
        "{c:?}"
    );
    assert!(
        c.iter().any(|c| c.0.first().is_some_and(|w| w == "echo")),
        "{c:?}"
    );
}

#[test]
fn a_shells_c_among_other_flags_is_its_script() {
    let c = names(
        "$ENGINE exec box bash -lc \"git clone https://x/y.git y\"\nsh -ec 'make bench'\nls -lc\n",
    );
    assert!(
        c.iter()
            .any(|c| c.0 == ["git", "clone", "https://x/y.git", "y"] && c.2),
        "{c:?}"
    );
    assert!(c.iter().any(|c| c.0 == ["make", "bench"] && c.2), "{c:?}");
}

#[test]
fn a_long_regex_and_a_long_command_are_read_once() {
    // 100,000 words, then 100,000 parentheses: no word is read again per
    // character.
    let many = "w ".repeat(100_000) + &"(|)".repeat(100_000) + "\n";
    assert!(commands(&many).is_ok());
    let regex = format!("[[ $x =~ {} ]]\n", "(a|b)".repeat(100_000));
    let c = names(&regex);
    assert_eq!(c.len(), 1, "one test");
}

#[test]
fn a_double_bracket_tests_or_and_parentheses_are_its_own() {
    // gemini-cli's status check: one test over continued lines, then the
    // `then` branch; `||` after `]]` still ends the test's command.
    let c = names(
        "if [[ (${A} != 'success' && ${A} != 'skipped') || \\\n     (${B} != 'success') ]]; then\n  exit 1\nfi\n[[ -f x ]] || exit 1\n",
    );
    assert_eq!(
        c.first().map(|c| c.0.clone()),
        Some(
            [
                "[[", "(", "${A}", "!=", "success", "&&", "${A}", "!=", "skipped", ")", "||", "(",
                "${B}", "!=", "success", ")", "]]"
            ]
            .map(String::from)
            .to_vec()
        )
    );
    assert!(c.iter().any(|c| c.0 == ["exit", "1"]), "{c:?}");
    assert!(c.iter().any(|c| c.0 == ["[[", "-f", "x", "]]"]), "{c:?}");
}
