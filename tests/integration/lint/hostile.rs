//! `lint` on files written to turn its output into workflow commands:
//! names and contents that hold `::error::`, `##[add-mask]` or a carriage
//! return stay data, and each finding is one annotation, nothing else.

use super::fixture;
use crate::support::harness::Bin;
use crate::support::workflow_commands::commands;

#[test]
fn hostile_file_names_and_contents_stay_data() {
    let bin = Bin::new().on_runner();
    let dir = bin.dir().join("wf");
    std::fs::create_dir(&dir).unwrap();
    let names = [
        "::error::x.yml",
        "a ##[add-mask]b.yml",
        "c\r::warning::d.yml",
        "e,line=1::f.yml",
    ];
    let body = std::fs::read_to_string(fixture("tag-sort.yml"))
        .unwrap()
        .replace(
            "ls results",
            "echo '::error::from the file' ##[error]x; ls results",
        );
    for name in names {
        std::fs::write(dir.join(name), &body).unwrap();
    }
    let run = bin.arg("lint").arg(&dir).run();
    run.assert_code(4);
    let mut cmds = commands(&run.stdout);
    cmds.extend(commands(&run.stderr));
    assert_eq!(
        cmds.len(),
        12,
        "one annotation per finding, nothing else: {cmds:?}"
    );
    assert!(cmds.iter().all(|c| c == "warning"), "{cmds:?}");
}
