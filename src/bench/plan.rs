//! What `bench` will do, decided before anything runs (pure: facts in, a
//! plan out): which side runs on which tree, which is reused, skipped or
//! unavailable, and the command line each run gets. Benchmark workflows'
//! bugs live in this glue (a retry walking older commits, a side that quietly did
//! nothing), so it is decided here, once, and tested without a process.

use std::path::PathBuf;

pub use super::values::plain_word;
use super::values::{self, Refused, value_word};
use crate::contract::resolution::Provenance;
use crate::contract::selection::Chosen;
use crate::validate::{RepoName, Sha};

/// A side of the comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Current,
    Baseline,
}

impl Side {
    pub fn name(self) -> &'static str {
        match self {
            Side::Current => "current",
            Side::Baseline => "baseline",
        }
    }
}

/// Which sides' harness output `--print-log` prints again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PrintLog {
    #[default]
    None,
    Current,
    Baseline,
    Both,
}

impl PrintLog {
    pub fn parse(text: &str) -> Result<PrintLog, &'static str> {
        match text.trim() {
            "" | "none" => Ok(PrintLog::None),
            "current" => Ok(PrintLog::Current),
            "baseline" => Ok(PrintLog::Baseline),
            "both" => Ok(PrintLog::Both),
            _ => Err("expected current, baseline, both or none"),
        }
    }

    /// Whether `side`'s log is printed.
    pub fn wants(self, side: Side) -> bool {
        matches!(
            (self, side),
            (PrintLog::Both, _)
                | (PrintLog::Current, Side::Current)
                | (PrintLog::Baseline, Side::Baseline)
        )
    }
}

/// Which sides `--side` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sides {
    Current,
    Baseline,
    Both,
}

impl Sides {
    pub fn parse(text: &str) -> Option<Sides> {
        match text {
            "current" => Some(Sides::Current),
            "baseline" => Some(Sides::Baseline),
            "both" => Some(Sides::Both),
            _ => None,
        }
    }

    pub fn has(self, side: Side) -> bool {
        matches!(
            (self, side),
            (Sides::Both, _) | (Sides::Current, Side::Current) | (Sides::Baseline, Side::Baseline)
        )
    }
}

/// The tree a run measures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tree {
    /// The checkout as it is (the change).
    Checkout,
    /// A detached worktree at this commit, fetched when absent from the
    /// base repository (`owner/name`; `None`: the checkout's origin).
    Commit { sha: Sha, repo: Option<RepoName> },
}

/// What happens to one side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Run(Tree),
    /// A downloaded result stands for the side: not run.
    Reuse(PathBuf),
    /// The side would have run but cannot: said as a warning.
    Unavailable(String),
    /// Nothing to do, on purpose (said as a notice).
    Skipped(String),
}

/// What the sides are, before anything ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub current: Action,
    pub baseline: Action,
    /// The groups asked for; `None` is the whole suite.
    pub groups: Option<Vec<String>>,
    /// `{label}` of the baseline side: the tag with `--tag`, else the
    /// resolution's label (`baseline` when it is not a plain word).
    pub label: String,
}

/// What the plan is made from.
#[derive(Debug, Clone, Copy)]
pub struct Facts<'a> {
    pub sides: Sides,
    pub resolution: Option<&'a Provenance>,
    pub selection: Option<&'a Chosen>,
    /// `--baseline-result` when the file is there and holds rows.
    pub reusable: Option<&'a PathBuf>,
    /// `--tag`: the baseline is the release tag's commit.
    pub tag: bool,
}

/// The plan. A selection of `none` and a resolution that says skip run
/// nothing; a downloaded result stands for the baseline; otherwise the
/// baseline is the resolution's one commit or it is unavailable, never
/// another commit.
pub fn plan(facts: &Facts<'_>) -> Plan {
    let groups = facts
        .selection
        .filter(|s| s.selection == "some")
        .map(|s| s.groups.clone());
    let nothing = facts.selection.and_then(|s| {
        (s.selection == "none" || (s.selection == "some" && s.groups.is_empty()))
            .then(|| "select chose no benchmark group for this change".to_owned())
    });
    let skip = nothing.or_else(|| {
        facts.resolution.filter(|r| r.skip == Some(true)).map(|r| {
            let why = r.skip_reason.as_deref().unwrap_or("no reason given");
            format!("the resolution says there is nothing to benchmark ({why})")
        })
    });
    let label =
        values::label(facts.resolution, facts.tag).unwrap_or_else(|_| "baseline".to_owned());
    if let Some(why) = skip {
        return Plan {
            current: Action::Skipped(why.clone()),
            baseline: Action::Skipped(why),
            groups,
            label,
        };
    }
    let current = if facts.sides.has(Side::Current) {
        Action::Run(Tree::Checkout)
    } else {
        Action::Skipped("--side baseline".to_owned())
    };
    Plan {
        current,
        baseline: baseline(facts),
        groups,
        label,
    }
}

fn baseline(facts: &Facts<'_>) -> Action {
    if !facts.sides.has(Side::Baseline) {
        return Action::Skipped("--side current".to_owned());
    }
    if let Some(path) = facts.reusable {
        return Action::Reuse(path.clone());
    }
    let Some(resolution) = facts.resolution else {
        return Action::Unavailable(
            "no downloaded result, and no resolution to say which commit to run".to_owned(),
        );
    };
    if facts.tag {
        return match resolution.tag_sha.as_deref() {
            Some(sha) => commit(sha, "tag_sha", resolution),
            None => Action::Unavailable("the resolution names no release tag".to_owned()),
        };
    }
    if let Some(why) = resolution.no_baseline() {
        return Action::Unavailable(why);
    }
    match resolution.base_sha.as_deref() {
        Some(sha) => commit(sha, "base_sha", resolution),
        None => Action::Unavailable("the resolution names no base commit".to_owned()),
    }
}

/// A commit the resolution names, run only when it is a full SHA: the
/// resolution may come from a fork's run, and git takes the value as an
/// argument (`--upload-pack=...` is not a commit).
fn commit(sha: &str, field: &str, resolution: &Provenance) -> Action {
    let sha = match Sha::parse(sha) {
        Ok(sha) => sha,
        Err(e) => return Action::Unavailable(format!("the resolution's {field}: {e}")),
    };
    match resolution
        .base_repo
        .as_deref()
        .map(RepoName::parse)
        .transpose()
    {
        Ok(repo) => Action::Run(Tree::Commit { sha, repo }),
        Err(e) => Action::Unavailable(format!("the resolution's base_repo: {e}")),
    }
}

/// How `{groups}` is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GroupsFormat {
    /// `a,b`
    Comma,
    /// `a b`
    Space,
    /// `--only a --only b`
    Flag(String),
}

impl GroupsFormat {
    pub fn parse(text: &str) -> Result<GroupsFormat, String> {
        match text {
            "comma" => Ok(GroupsFormat::Comma),
            "space" => Ok(GroupsFormat::Space),
            _ => match text.strip_prefix("flag:") {
                Some(flag) if plain_word(flag) && !flag.contains(',') => {
                    Ok(GroupsFormat::Flag(flag.to_owned()))
                }
                _ => Err(
                    "expected comma, space or flag:NAME (NAME a plain word, e.g. flag:--only)"
                        .to_owned(),
                ),
            },
        }
    }

    /// The groups as the command gets them; nothing for the whole suite.
    pub fn write(&self, groups: Option<&[String]>) -> String {
        let Some(groups) = groups else {
            return String::new();
        };
        match self {
            GroupsFormat::Comma => groups.join(","),
            GroupsFormat::Space => groups.join(" "),
            GroupsFormat::Flag(flag) => groups
                .iter()
                .map(|g| format!("{flag} {g}"))
                .collect::<Vec<_>>()
                .join(" "),
        }
    }
}

/// What the placeholders of a template stand for on one side.
#[derive(Debug, Clone, Copy)]
pub struct Fill<'a> {
    pub out: &'a str,
    pub groups: &'a str,
    pub tree: &'a str,
    pub side: &'a str,
    pub sha: &'a str,
    pub label: &'a str,
}

/// The placeholders this command knows; any other `{...}` is the shell's.
pub const PLACEHOLDERS: [&str; 6] = ["{out}", "{groups}", "{tree}", "{side}", "{sha}", "{label}"];

impl Fill<'_> {
    /// Every value but `{groups}` (checked group by group, and a
    /// `flag:--only` form starts with `-` on purpose) is a
    /// [`value_word`] or empty: the last check before a command runs,
    /// whatever path the value came by.
    pub fn check(&self) -> Result<(), Refused> {
        [
            ("{out}", self.out),
            ("{tree}", self.tree),
            ("{side}", self.side),
            ("{sha}", self.sha),
            ("{label}", self.label),
        ]
        .into_iter()
        .find(|(_, value)| !value.is_empty() && !value_word(value))
        .map_or(Ok(()), |(name, value)| {
            Err(Refused {
                what: format!("the value of {name}"),
                value: value.to_owned(),
            })
        })
    }
}

/// The template with its placeholders filled, in one pass (a value that
/// holds `{tree}` is not filled again).
pub fn expand(template: &str, fill: &Fill<'_>) -> String {
    let mut out = String::with_capacity(template.len().saturating_add(256));
    let mut rest = template;
    while let Some(at) = rest.find('{') {
        let (head, tail) = rest.split_at(at);
        out.push_str(head);
        let value = [
            ("{out}", fill.out),
            ("{groups}", fill.groups),
            ("{tree}", fill.tree),
            ("{side}", fill.side),
            ("{sha}", fill.sha),
            ("{label}", fill.label),
        ]
        .into_iter()
        .find(|(name, _)| tail.starts_with(name));
        match value {
            Some((name, value)) => {
                out.push_str(value);
                rest = tail.get(name.len()..).unwrap_or_default();
            }
            None => {
                out.push('{');
                rest = tail.get(1..).unwrap_or_default();
            }
        }
    }
    out.push_str(rest);
    out
}

/// A directory the harness sees under another name (`docker run -v
/// HOST:INSIDE`): paths given to the command are its names inside.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Volume {
    pub host: String,
    pub inside: String,
}

impl Volume {
    /// `path` as the harness sees it, when it is under the volume.
    pub fn inside(&self, path: &str) -> Option<String> {
        let host = self.host.trim_end_matches('/');
        let rest = path.strip_prefix(host)?;
        (rest.is_empty() || rest.starts_with('/'))
            .then(|| format!("{}{rest}", self.inside.trim_end_matches('/')))
    }
}

/// The selected groups a tree's harness knows (its list: words split at
/// white space and commas), and the ones it does not, both in the
/// selection's order.
pub fn known(selected: &[String], listed: &str) -> (Vec<String>, Vec<String>) {
    let listed: std::collections::HashSet<&str> = listed
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .collect();
    selected
        .iter()
        .cloned()
        .partition(|g| listed.contains(g.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolution(base: Option<&str>, available: bool) -> Provenance {
        Provenance {
            base_sha: base.map(str::to_owned),
            base_available: Some(available),
            tag: Some("v1.2.0".into()),
            tag_sha: Some("b".repeat(40)),
            ..Provenance::default()
        }
    }

    fn chosen(selection: &str, groups: &[&str]) -> Chosen {
        Chosen {
            selection: selection.into(),
            groups: groups.iter().map(|g| (*g).to_owned()).collect(),
        }
    }

    fn facts<'a>(r: Option<&'a Provenance>, s: Option<&'a Chosen>) -> Facts<'a> {
        Facts {
            sides: Sides::Both,
            resolution: r,
            selection: s,
            reusable: None,
            tag: false,
        }
    }

    #[test]
    fn the_baseline_is_the_one_base_commit_or_unavailable_never_another() {
        let sha = "a".repeat(40);
        let r = resolution(Some(&sha), true);
        let p = plan(&facts(Some(&r), None));
        assert_eq!(p.current, Action::Run(Tree::Checkout));
        assert_eq!(
            p.baseline,
            Action::Run(Tree::Commit {
                sha: Sha::parse(&sha).unwrap(),
                repo: None
            })
        );
        let mut named = r.clone();
        named.base_repo = Some("ROCm/FlyDSL".into());
        assert_eq!(
            plan(&facts(Some(&named), None)).baseline,
            Action::Run(Tree::Commit {
                sha: Sha::parse(&sha).unwrap(),
                repo: Some(RepoName::parse("ROCm/FlyDSL").unwrap())
            })
        );
        named.base_repo = Some("../../evil --upload-pack=x".into());
        assert!(matches!(
            plan(&facts(Some(&named), None)).baseline,
            Action::Unavailable(_)
        ));
        assert_eq!(p.groups, None);
        let gone = resolution(Some(&sha), false);
        let p = plan(&facts(Some(&gone), None));
        assert_eq!(p.current, Action::Run(Tree::Checkout));
        assert!(
            matches!(&p.baseline, Action::Unavailable(why) if why.contains("base_available: false"))
        );
        let none = resolution(None, true);
        assert!(matches!(
            plan(&facts(Some(&none), None)).baseline,
            Action::Unavailable(_)
        ));
        let smuggled = resolution(Some("--upload-pack=touch /tmp/x"), true);
        assert!(matches!(
            plan(&facts(Some(&smuggled), None)).baseline,
            Action::Unavailable(why) if why.contains("not a full commit SHA")
        ));
    }

    #[test]
    fn a_downloaded_result_stands_for_the_baseline_and_tag_runs_the_tag() {
        let r = resolution(Some(&"a".repeat(40)), true);
        let file = PathBuf::from("main/results.csv");
        let mut f = facts(Some(&r), None);
        f.reusable = Some(&file);
        assert_eq!(plan(&f).baseline, Action::Reuse(file.clone()));
        f.reusable = None;
        f.tag = true;
        assert_eq!(
            plan(&f).baseline,
            Action::Run(Tree::Commit {
                sha: Sha::parse(&"b".repeat(40)).unwrap(),
                repo: None
            })
        );
        let mut untagged = r.clone();
        untagged.tag_sha = None;
        f.resolution = Some(&untagged);
        assert!(matches!(plan(&f).baseline, Action::Unavailable(_)));
    }

    #[test]
    fn none_and_skip_run_nothing_some_runs_its_groups_and_side_limits() {
        let r = resolution(Some(&"a".repeat(40)), true);
        let none = chosen("none", &[]);
        let p = plan(&facts(Some(&r), Some(&none)));
        assert!(matches!(p.current, Action::Skipped(_)));
        assert!(matches!(p.baseline, Action::Skipped(_)));
        let some = chosen("some", &["gemm", "softmax_bwd"]);
        let p = plan(&facts(Some(&r), Some(&some)));
        assert_eq!(p.groups, Some(vec!["gemm".into(), "softmax_bwd".into()]));
        let mut skip = r.clone();
        skip.skip = Some(true);
        assert!(matches!(
            plan(&facts(Some(&skip), None)).current,
            Action::Skipped(_)
        ));
        let mut f = facts(Some(&r), None);
        f.sides = Sides::Current;
        assert!(matches!(plan(&f).baseline, Action::Skipped(_)));
        f.sides = Sides::Baseline;
        assert!(matches!(plan(&f).current, Action::Skipped(_)));
    }

    #[test]
    fn templates_fill_known_placeholders_once_and_leave_the_shells_braces() {
        let fill = Fill {
            out: "/o/current.csv",
            groups: "--only gemm",
            tree: "/w/{tree}",
            side: "current",
            sha: "abc",
            label: "v0.3.1",
        };
        assert_eq!(
            expand(
                "cd {tree} && run {groups} --csv {out} ${HOME} {a,b} {side}@{sha} {label}",
                &fill
            ),
            "cd /w/{tree} && run --only gemm --csv /o/current.csv ${HOME} {a,b} current@abc v0.3.1"
        );
        let v = Volume {
            host: "/home/runner/work/x/flydsl-test".into(),
            inside: "/flydsl-test".into(),
        };
        assert_eq!(
            v.inside("/home/runner/work/x/flydsl-test/.baseline")
                .as_deref(),
            Some("/flydsl-test/.baseline")
        );
        assert_eq!(
            v.inside("/home/runner/work/x/flydsl-test").as_deref(),
            Some("/flydsl-test")
        );
        assert_eq!(v.inside("/home/runner/work/x/flydsl-test2/a"), None);
        let groups = ["a".to_owned(), "b".to_owned()];
        assert_eq!(GroupsFormat::Comma.write(Some(&groups)), "a,b");
        assert_eq!(GroupsFormat::Space.write(Some(&groups)), "a b");
        let flag = GroupsFormat::parse("flag:--only").unwrap();
        assert_eq!(flag.write(Some(&groups)), "--only a --only b");
        assert_eq!(flag.write(None), "");
        assert!(GroupsFormat::parse("flag:--only;rm").is_err());
        assert!(GroupsFormat::parse("csv").is_err());
    }

    #[test]
    fn plain_words_are_what_bash_reads_as_itself() {
        for ok in ["gemm", "softmax_bwd", "/tmp/x-1/out.csv", "a=b", "v1.2+3"] {
            assert!(plain_word(ok), "{ok}");
        }
        for bad in ["", "a b", "a;b", "$(id)", "a'b", "`x`", "*", "a\nb", "é"] {
            assert!(!plain_word(bad), "{bad:?}");
        }
    }

    #[test]
    fn a_trees_list_keeps_the_groups_its_harness_knows() {
        let selected = [
            "gemm".to_owned(),
            "softmax_bwd".to_owned(),
            "rmsnorm".to_owned(),
        ];
        let (kept, dropped) = known(&selected, "rmsnorm\ngemm, layernorm\n");
        assert_eq!(kept, ["gemm", "rmsnorm"]);
        assert_eq!(dropped, ["softmax_bwd"]);
    }
}
