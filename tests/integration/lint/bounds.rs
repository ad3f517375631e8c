//! `lint` on hostile workflows whose shape once made its work grow with
//! the square of their size: each must finish with the findings the
//! documented bound gives (SECURITY.md, `lint`). Work is never timed here;
//! before each bound these runs did not end.

use crate::support::harness::Bin;

use super::calls::findings;

/// `lint --format json` on `text` as `.github/workflows/w.yml` of a fresh
/// checkout: its findings as (file, rule, line), the exit asserted.
fn lint_one(text: &str, code: i32) -> Vec<(String, String, u64)> {
    lint_with(text, &[], code)
}

/// [`lint_one`] with `others` (path from the checkout's root, text)
/// written beside it.
fn lint_with(text: &str, others: &[(&str, String)], code: i32) -> Vec<(String, String, u64)> {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join(".github/workflows");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("w.yml"), text).unwrap();
    for (path, other) in others {
        let at = tmp.path().join(path);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::fs::write(at, other).unwrap();
    }
    let (_, v) = Bin::new()
        .in_dir(tmp.path())
        .args(["lint", ".github/workflows/w.yml", "--fail-on", "note"])
        .json_code(code);
    findings(&v)
}

fn found(rules: &[(&str, u64)]) -> Vec<(String, String, u64)> {
    rules
        .iter()
        .map(|(r, l)| ("w.yml".to_owned(), (*r).to_owned(), *l))
        .collect()
}

#[test]
fn a_listing_of_800_kib_of_ranges_counted_back_is_read_as_a_walk() {
    // 200,000 `~a..` in one `git rev-list` word: each `..` is read only
    // within 256 bytes, and only the first 64, so the loop is judged (a
    // walk back, every side counted back) rather than never finishing.
    let text = format!(
        "on: push\njobs:\n  bench:\n    runs-on: [self-hosted, gpu]\n    steps:\n      - run: |\n          for c in $(git rev-list {}HEAD); do git checkout $c && cargo bench || continue; break; done\n",
        "~a..".repeat(200_000)
    );
    assert_eq!(
        lint_one(&text, 4),
        found(&[("long-timeout", 3), ("baseline-walk", 7)])
    );
}

#[test]
fn a_runner_label_of_a_million_needs_is_read_once() {
    // 500,000 `needs.` with no `.outputs.`: each is read up to its job id
    // (GitHub's id characters), and the jobs that start a runner are found
    // once per workflow, so the label beside it is still judged: bench runs
    // on the EC2 runner start-runner starts.
    let text = format!(
        "on: push\njobs:\n  start-runner:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: machulav/ec2-github-runner@v2\n        with:\n          mode: start\n  bench:\n    needs: start-runner\n    runs-on: [\"{}\", \"${{{{ needs.start-runner.outputs.label }}}}\"]\n    steps:\n      - run: cargo bench\n",
        "needs.".repeat(500_000)
    );
    assert_eq!(lint_one(&text, 4), found(&[("long-timeout", 9)]));
}

#[test]
fn an_action_line_of_200_000_inputs_is_read_within_256_bytes_of_each() {
    // The repository's action runs one line of 200,000 `${{ inputs.a }}`:
    // each is read back at most 256 bytes for the command it stands in,
    // not to the line's start, so the step that uses it is linted.
    let action = format!(
        "runs:\n  using: composite\n  steps:\n    - shell: bash\n      run: |\n        {}\n        ${{{{ inputs.cmd }}}}\n",
        "${{ inputs.a }}".repeat(200_000)
    );
    let text = "on: push\njobs:\n  perf:\n    runs-on: [self-hosted, gpu]\n    steps:\n      - uses: ./.github/actions/x\n        with:\n          cmd: cargo bench\n";
    assert_eq!(
        lint_with(text, &[(".github/actions/x/action.yml", action)], 4),
        found(&[("long-timeout", 3)])
    );
}

#[test]
fn an_anchored_value_copied_by_a_thousand_aliases_is_refused_by_name() {
    // 100 KB of text anchored once and named 1,000 times: 100 MB once
    // expanded, past the 64 MiB of text a file may hold (20,000 aliases,
    // 2 GB, aborted lint under a memory limit before the bound).
    let text = format!(
        "on: push\nx: &a \"{}\"\ny:\n{}jobs: {{}}\n",
        "a".repeat(100_000),
        "  - *a\n".repeat(1_000)
    );
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("aliased.yml");
    std::fs::write(&file, text).unwrap();
    let run = Bin::new()
        .in_dir(tmp.path())
        .args(["lint", "aliased.yml"])
        .run();
    run.assert_code(1);
    assert!(
        run.stderr.contains("aliased.yml")
            && run
                .stderr
                .contains("too large once aliases are expanded: more than 64 MiB of text"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
}

#[test]
fn a_flow_sequence_of_100_000_plain_items_on_one_line_is_read_once() {
    // 1.7 MB on one line: each plain item's line breaks are looked for only
    // within its own text, not on to the line's end (quadratic before).
    let items: Vec<String> = (0..100_000).map(|i| format!("i{i:014}")).collect();
    let text = format!(
        "on: push\nenv:\n  X: [{}]\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo\n",
        items.join(", ")
    );
    assert!(text.len() > 1_700_000, "{}", text.len());
    assert_eq!(lint_one(&text, 0), found(&[]));
}

#[test]
fn five_hundred_calls_of_one_long_reusable_workflow_read_it_once() {
    // 500 jobs call one reusable workflow of 5,000 steps: it is read and
    // judged once for the linted file, not twice for each call.
    let mut called = String::from(
        "on:\n  workflow_call:\n    inputs:\n      minutes:\n        type: number\n        default: 30\njobs:\n  bench:\n    runs-on: ${{ inputs.runner }}\n    timeout-minutes: ${{ inputs.minutes }}\n    steps:\n",
    );
    for i in 0..5_000 {
        called.push_str(&format!("      - run: cargo bench --bench b{i}\n"));
    }
    let mut text = String::from("on: push\njobs:\n");
    for i in 0..500 {
        text.push_str(&format!(
            "  bench{i}:\n    uses: ./.github/workflows/called.yml\n    with:\n      minutes: 240\n"
        ));
    }
    let lines: Vec<u64> = (0..500).map(|i| 3 + 4 * i).collect();
    let got = lint_with(&text, &[(".github/workflows/called.yml", called)], 4);
    let want: Vec<(String, String, u64)> = lines
        .iter()
        .map(|l| ("w.yml".to_owned(), "long-timeout".to_owned(), *l))
        .collect();
    assert_eq!(got, want);
}

/// A workflow whose job `a` runs `./x.sh` (256 KiB) `runs` times, and whose
/// job `b` passes `bash ./y.sh` (a walk back through history) to a
/// reusable workflow that runs it.
fn spliced_then_called(runs: usize) -> Vec<(String, String, u64)> {
    let mut text = String::from("on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n");
    text.push_str(&"      - run: bash ./x.sh\n".repeat(runs));
    text.push_str("  b:\n    uses: ./.github/workflows/r.yml\n    with:\n      cmd: bash ./y.sh\n");
    let called = "on:\n  workflow_call:\n    inputs:\n      cmd:\n        type: string\njobs:\n  r:\n    runs-on: [self-hosted, gpu]\n    timeout-minutes: 30\n    steps:\n      - run: ${{ inputs.cmd }}\n";
    // Exactly 256 KiB: 64 runs of it are the whole 16 MiB.
    let mut pad = "# pad\n".repeat(256 * 1024 / 6);
    pad.insert_str(0, &"#".repeat(256 * 1024 - pad.len() - 1));
    pad.insert(0, '\n');
    let walk = "for c in $(git rev-list HEAD~8..HEAD); do git checkout $c && cargo bench || continue; break; done\n";
    lint_with(
        &text,
        &[
            (".github/workflows/r.yml", called.to_owned()),
            ("x.sh", pad),
            ("y.sh", walk.to_owned()),
        ],
        if runs < 64 { 4 } else { 0 },
    )
}

#[test]
fn a_called_jobs_scripts_spend_the_files_one_splice_budget() {
    // 63 runs of a 256 KiB script leave room for `y.sh` in the call: its
    // walk back is found. 64 spend the file's 16 MiB, and the call's
    // script adds nothing (it had a fresh 16 MiB of its own before).
    let line = 5 + 63 + 4;
    assert_eq!(
        spliced_then_called(63),
        [("w.yml".to_owned(), "baseline-walk".to_owned(), line)]
    );
    assert_eq!(spliced_then_called(64), found(&[]));
}

#[test]
fn clones_before_a_thousand_pushing_steps_read_the_pushes_once() {
    // 2,000 clones in one benchmark step, then 1,000 steps of 10 pushes
    // each: where the job pushes is read once for the job, not once per
    // clone (each clone read every later step again before: 2,000 x
    // 10,000 commands).
    let mut text = String::from(
        "on: push\njobs:\n  bench:\n    runs-on: [self-hosted, gpu]\n    timeout-minutes: 60\n    steps:\n      - name: Run benchmarks\n        run: |\n",
    );
    for i in 0..2_000 {
        text.push_str(&format!(
            "          git clone https://github.com/x/h{i}.git d{i}\n"
        ));
    }
    text.push_str("          python benchmarks/run_benchmarks.py\n");
    for s in 0..1_000 {
        text.push_str(&format!("      - name: Later {s}\n        run: |\n"));
        for k in 0..10 {
            text.push_str(&format!(
                "          cd dir{s}_{k} && git push origin main\n"
            ));
        }
    }
    let expected: Vec<(&str, u64)> = (9..2_009).map(|l| ("unpinned-clone", l)).collect();
    assert_eq!(lint_one(&text, 4), found(&expected));
}

#[test]
fn thousands_of_steps_allowed_to_fail_read_the_later_steps_once() {
    // 2,000 comparisons allowed to fail, each writing its status to
    // $GITHUB_ENV, then two steps acting on the first two: whether a later
    // step reads a step's outcome, outputs or variables is read once for
    // the job, not once per step (each step read every later step again
    // before: 2,000 x 2,000 steps).
    let mut text = String::from(
        "on: push\njobs:\n  bench:\n    runs-on: [self-hosted, gpu]\n    timeout-minutes: 60\n    steps:\n",
    );
    for i in 0..2_000 {
        text.push_str(&format!(
            "      - id: c{i}\n        continue-on-error: true\n        run: |\n          python compare.py baseline.json head{i}.json\n          echo \"st{i}=$?\" >> $GITHUB_ENV\n"
        ));
    }
    text.push_str("      - if: steps.c0.outcome == 'failure'\n        run: exit 1\n");
    text.push_str("      - run: |\n          echo \"::error::$st1\"\n");
    // Every step's continue-on-error but the two acted on.
    let expected: Vec<(&str, u64)> = (2..2_000).map(|i| ("silent-baseline", 8 + 5 * i)).collect();
    assert_eq!(lint_one(&text, 4), found(&expected));
}

#[test]
fn a_picking_jobs_steps_using_one_large_action_read_it_once() {
    // 2,000 steps of the job that picks the benchmark's runner use one
    // 1 MB action of the repository: its text is read once for the job,
    // not once per step (2 GB of text before).
    let action = format!(
        "runs:\n  using: composite\n  steps:\n    - shell: bash\n      run: |\n{}        echo \"os=ubuntu-latest\" >> \"$GITHUB_OUTPUT\"\n",
        "        echo 'a line of the matrix generator, long enough to weigh'\n".repeat(16_000)
    );
    let mut text = String::from(
        "on: push\njobs:\n  pick:\n    runs-on: ubuntu-latest\n    outputs:\n      os: ${{ steps.p.outputs.os }}\n    steps:\n",
    );
    for _ in 0..2_000 {
        text.push_str("      - uses: ./.github/actions/matrix\n");
    }
    text.push_str(
        "  bench:\n    needs: pick\n    runs-on: ${{ needs.pick.outputs.os }}\n    steps:\n      - run: cargo bench\n",
    );
    let found = lint_with(&text, &[(".github/actions/matrix/action.yml", action)], 0);
    // Hosted images only: the benchmark job's missing timeout is no finding.
    assert_eq!(found, Vec::<(String, String, u64)>::new());
}

#[test]
fn thousands_of_outcomes_kept_in_variables_read_the_script_once() {
    // A later step keeps one step's outcome in 6,000 variables and compares
    // the last: the script's comparisons are read once for the step, and
    // a comparison only within its first characters after a read.
    let mut text = String::from(
        "on: push\njobs:\n  bench:\n    runs-on: ubuntu-latest\n    timeout-minutes: 60\n    steps:\n      - id: a\n        continue-on-error: true\n        run: python3 benchmarks/run_benchmarks.py\n      - run: |\n",
    );
    for i in 0..6_000 {
        text.push_str(&format!("          X{i}=\"${{{{ steps.a.outcome }}}}\"\n"));
    }
    text.push_str("          [ \"${X5999}\" == \"success\" ] || exit 1\n");
    assert_eq!(lint_one(&text, 0), Vec::<(String, String, u64)>::new());
}

#[test]
fn a_script_file_run_eight_thousand_times_is_read_per_run_once() {
    // One step runs a script with a swallowing `set +e` 8,000 times: each
    // run's commands are grouped in one pass, and what the step runs after
    // each is known from one pass backwards; one finding, at the first.
    let script = "#!/bin/bash\nset +e\nRscript ./launcher/launch.R\nLAUNCH_EXIT=$?\nset -e\necho \"exit $LAUNCH_EXIT\"\n";
    let mut text = String::from(
        "name: Regression\non: pull_request\njobs:\n  solo:\n    runs-on: ubuntu-latest\n    steps:\n      - name: Run mini benchmark\n        run: |\n",
    );
    for _ in 0..8_000 {
        text.push_str("          TEST_RUN=true ./run.sh\n");
    }
    let seen = lint_with(&text, &[("run.sh", script.to_owned())], 4);
    assert_eq!(seen, found(&[("silent-baseline", 9)]));
}

#[test]
fn checkouts_before_a_thousand_uploads_read_the_later_steps_once() {
    // 1,500 checkouts of other repositories, each into a folder, then a
    // benchmark and 1,500 uploads: what the later steps give a path to is
    // read once for the job, not once per checkout. Each checkout drifts.
    let mut text = String::from(
        "on: push\njobs:\n  bench:\n    runs-on: [self-hosted, gpu]\n    timeout-minutes: 60\n    steps:\n",
    );
    for i in 0..1_500 {
        text.push_str(&format!(
            "      - uses: actions/checkout@v4\n        with:\n          repository: x/r{i}\n          ref: main\n          path: d{i}\n"
        ));
    }
    text.push_str("      - run: python3 benchmarks/run_benchmarks.py\n");
    for i in 0..1_500 {
        text.push_str(&format!(
            "      - uses: actions/upload-artifact@v4\n        with:\n          name: a{i}\n          path: out{i}\n"
        ));
    }
    let expected: Vec<(&str, u64)> = (0..1_500).map(|i| ("unpinned-clone", 10 + 5 * i)).collect();
    assert_eq!(lint_one(&text, 4), found(&expected));
}

#[test]
fn thousands_of_measured_scripts_and_kept_statuses_are_looked_up_once() {
    // 3,000 steps each rerunning a measured script with 20 more commands:
    // the measured scripts are a set, looked up once per command (a list
    // searched per command was 3,000 x 63,000). Then one `set +e` step
    // keeping its status in 4,000 files, and 3,000 later steps: only the
    // first few files are looked for in each later step's text.
    let mut text = String::from(
        "on: push\njobs:\n  bench:\n    runs-on: [self-hosted, gpu]\n    timeout-minutes: 60\n    steps:\n      - name: Run benchmarks\n        run: python3 micro/driver.py suite --out a.json\n",
    );
    for i in 0..3_000 {
        text.push_str(&format!(
            "      - name: Fallback {i}\n        continue-on-error: true\n        run: |\n          python3 micro/driver.py suite --out f{i}.json\n"
        ));
        for j in 0..20 {
            text.push_str(&format!("          python3 tools/t{j}.py {i}\n"));
        }
    }
    text.push_str("      - run: |\n          set +e\n          python3 micro/compare.py baseline.json head.json\n");
    for i in 0..4_000 {
        text.push_str(&format!("          echo $? > /tmp/status{i}\n"));
    }
    for i in 0..3_000 {
        text.push_str(&format!("      - run: echo step{i}\n"));
    }
    let found_now = lint_one(&text, 4);
    assert_eq!(
        found_now
            .iter()
            .filter(|(_, rule, _)| rule == "silent-baseline")
            .count(),
        3_001,
        "every fallback, and the set +e whose status no later step reads"
    );
}

#[test]
fn a_word_of_300_000_listings_of_one_commit_is_read_near_each() {
    // 300,000 `git log -1` with no separator in one `for` word: each
    // listing's options are read within 256 bytes of it, and only the
    // first 64 listings, so the loop is judged (one commit each, no walk)
    // rather than each read to the word's end.
    let text = format!(
        "on: push\njobs:\n  bench:\n    runs-on: [self-hosted, gpu]\n    timeout-minutes: 30\n    steps:\n      - run: |\n          for c in $(echo {}); do cargo bench; done\n",
        "git log -1 ".repeat(300_000)
    );
    assert_eq!(lint_one(&text, 0), found(&[]));
}

#[test]
fn thousands_of_steps_relaying_outputs_to_a_later_job_are_read_once() {
    // 3,000 benchmark steps allowed to fail, each writing on the last
    // one's output, the job's output the last of them, and a later job
    // that fails on it: every step's outputs are handed on and acted on.
    // Which steps are is found once for the job, reading each text once
    // (asked step by step, each step read every later one again and
    // searched it for every relay: eight minutes in a release build).
    let mut text = String::from(
        "on: push\njobs:\n  bench:\n    runs-on: ubuntu-latest\n    outputs:\n      o: ${{ steps.s2999.outputs.x }}\n    steps:\n",
    );
    for i in 0..3_000 {
        let last = if i == 0 {
            "1".to_owned()
        } else {
            format!("${{{{ steps.s{}.outputs.x }}}}", i - 1)
        };
        text.push_str(&format!(
            "      - id: s{i}\n        continue-on-error: true\n        run: cargo bench && echo \"x={last}\" >> $GITHUB_OUTPUT\n"
        ));
    }
    // One more, whose outputs nothing reads.
    text.push_str("      - id: lone\n        continue-on-error: true\n        run: cargo bench\n");
    text.push_str("  check:\n    needs: bench\n    runs-on: ubuntu-latest\n    steps:\n      - run: |\n          if [ \"${{ needs.bench.outputs.o }}\" != 1 ]; then exit 1; fi\n");
    assert_eq!(lint_one(&text, 4), found(&[("silent-baseline", 9_009)]));
}

#[test]
fn thousands_of_outcomes_handed_to_a_later_job_are_read_once() {
    // 2,000 benchmark steps allowed to fail, each one's outcome a job
    // output that a later job's step tests for the failure: every one is
    // acted on. Which outcomes are is found once for the job (asked step
    // by step, each step read the other jobs' steps again: 12,000 such
    // steps took 28 s in a release build).
    let mut text =
        String::from("on: push\njobs:\n  bench:\n    runs-on: ubuntu-latest\n    outputs:\n");
    for i in 0..2_000 {
        text.push_str(&format!("      o{i}: ${{{{ steps.s{i}.outcome }}}}\n"));
    }
    text.push_str("    steps:\n");
    for i in 0..2_000 {
        text.push_str(&format!(
            "      - id: s{i}\n        continue-on-error: true\n        run: cargo bench\n"
        ));
    }
    // One more, whose outcome nothing reads.
    text.push_str("      - id: lone\n        continue-on-error: true\n        run: cargo bench\n");
    text.push_str("  check:\n    needs: bench\n    runs-on: ubuntu-latest\n    steps:\n");
    for i in 0..2_000 {
        text.push_str(&format!(
            "      - if: needs.bench.outputs.o{i} == 'failure'\n        run: exit 1\n"
        ));
    }
    assert_eq!(lint_one(&text, 4), found(&[("silent-baseline", 8_008)]));
}

/// `n` matrix entries of CPU machines, each its own runner list.
fn push_cpu_runners(text: &mut String, n: usize) {
    for i in 0..n {
        text.push_str(&format!(
            "          - runner: [self-hosted, linux, cpu, m{i}]\n"
        ));
    }
}

#[test]
fn a_matrix_of_twenty_thousand_runner_entries_is_read_entry_by_entry_once() {
    // Each matrix entry's labels are one machine: 20,000 CPU entries and,
    // last, one GPU machine that main's cancelled pushes lose. Each entry
    // is read once per question, its labels apart from the others'.
    let mut text = String::from(
        "on:\n  push:\n    branches: [main]\nconcurrency:\n  group: ${{ github.ref }}\n  cancel-in-progress: true\njobs:\n  bench:\n    strategy:\n      matrix:\n        svc:\n",
    );
    push_cpu_runners(&mut text, 20_000);
    text.push_str("          - runner: [self-hosted, linux, a100]\n");
    text.push_str("    runs-on: ${{ matrix.svc.runner }}\n    steps:\n      - run: ./bench.sh\n");
    assert_eq!(
        lint_one(&text, 4),
        found(&[("cancel-main", 6), ("long-timeout", 8)])
    );
}

#[test]
fn a_fallback_chain_of_200_000_operands_is_read_once() {
    // A commit, 200,000 inputs and a branch in one `||` chain (2.4 MB):
    // what the chain holds so far is kept as it is read, each operand
    // looked at once (asked again at each `||`, the chain before it was
    // split anew each time: over two minutes in a release build).
    let text = format!(
        "on: pull_request\njobs:\n  bench:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n        with:\n          ref: ${{{{ github.event.pull_request.base.sha || {}'main' }}}}\n      - run: cargo bench\n",
        "inputs.x || ".repeat(200_000)
    );
    assert_eq!(lint_one(&text, 4), found(&[("moving-fallback", 8)]));
}

#[test]
fn a_powershell_script_of_50_000_nested_blocks_is_read_in_one_pass() {
    // 50,000 `if (-not (Test-Path x)) {` nested, an `exit 0` in the
    // innermost: PowerShell's blocks are a stack read once, so the exit is
    // found in the 1.3 MB script rather than each block read again.
    let text = format!(
        "on: push\njobs:\n  bench:\n    runs-on: windows-latest\n    timeout-minutes: 30\n    steps:\n      - run: dotnet run -c Release --project bench/App.Benchmarks\n      - name: Compare results\n        shell: pwsh\n        run: |\n          {}exit 0{}\n",
        "if (-not (Test-Path x)) { ".repeat(50_000),
        " }".repeat(50_000)
    );
    assert_eq!(lint_one(&text, 4), found(&[("silent-baseline", 11)]));
}

#[test]
fn a_matrix_of_twenty_thousand_runners_is_read_once_for_two_thousand_steps_shells() {
    // Whether each step runs PowerShell asks, where no `shell:` is
    // given, whether the job runs on Windows: its 20,000 runner entries
    // are read once for the job, not once per step (2,000 steps took 17
    // s, release, when each asked anew).
    let mut text = String::from(
        "on:\n  push:\n    branches: [main]\njobs:\n  bench:\n    strategy:\n      matrix:\n        svc:\n",
    );
    push_cpu_runners(&mut text, 20_000);
    text.push_str("    runs-on: ${{ matrix.svc.runner }}\n    steps:\n");
    for i in 0..2_000 {
        text.push_str(&format!("      - run: ./bench.sh {i}\n"));
    }
    assert_eq!(lint_one(&text, 4), found(&[("long-timeout", 5)]));
}
