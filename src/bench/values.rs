//! The values bench puts into a command, checked before anything runs.
//! A group comes from a selection, the label and the tag from a
//! resolution: earlier jobs that a fork's pull request can steer. Each is
//! a plain word that cannot be read as an option, or the whole step is
//! refused with the value named (issue 46).

use crate::contract::resolution::Provenance;

/// A value bench puts into a command (a group, the label or tag, a SHA):
/// a [`plain_word`] that does not start with `-`, so the harness cannot
/// read it as one of its options (`--output_csv=/elsewhere` as a group,
/// `--index-url=...` as the tag a `pip install "pkg=={label}"` gets).
/// Selections and resolutions are written by earlier jobs a fork's pull
/// request can steer, so this holds for every value, whatever its source.
pub fn value_word(text: &str) -> bool {
    plain_word(text) && !text.starts_with('-')
}

/// Letters, digits and `._+:@%/=-`: a word bash reads as itself, quoted or
/// not, also inside a `bash -c '...'` the template nests (no quote, space,
/// `$`, backquote, glob or separator). Every value put into a command is one.
pub fn plain_word(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._+:@%/=-".contains(&b))
}

/// Why a value cannot go into the command: what it is and the value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub what: String,
    pub value: String,
}

impl std::error::Error for Refused {}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {:?} would go into the command, and it is not a plain word (letters, digits and ._+:@%/=-, not starting with -): nothing was run",
            self.what,
            crate::runner::shown(&self.value)
        )
    }
}

/// The selection's groups, each a [`value_word`] without a comma (the
/// comma form joins them), and, when the config's group names are given,
/// one of those: a selection may only run what the config declares.
pub fn check_groups(groups: &[String], declared: Option<&[String]>) -> Result<(), Refused> {
    for group in groups {
        if !value_word(group) || group.contains(',') {
            return Err(Refused {
                what: "the selection's group".to_owned(),
                value: group.clone(),
            });
        }
        if let Some(declared) = declared.filter(|d| !d.contains(group)) {
            return Err(Refused {
                what: format!(
                    "the selection's group is not one of the config's [[select.group]] names ({}), and",
                    crate::runner::shown(&declared.join(", "))
                ),
                value: group.clone(),
            });
        }
    }
    Ok(())
}

/// The label the baseline side's `{label}` gets, refused before anything
/// runs when it could be an option: the tag with `--tag` (a tag name is
/// chosen by whoever can push one), else the resolution's label; one that
/// is not a plain word otherwise is said as `baseline`.
pub fn label(resolution: Option<&Provenance>, tag: bool) -> Result<String, Refused> {
    let Some(r) = resolution else {
        return Ok("baseline".to_owned());
    };
    let (what, text) = if tag {
        ("the resolution's tag", r.tag.as_deref().unwrap_or(""))
    } else {
        ("the resolution's label", r.label())
    };
    if text.starts_with('-') {
        return Err(Refused {
            what: what.to_owned(),
            value: text.to_owned(),
        });
    }
    Ok(if plain_word(text) { text } else { "baseline" }.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::plan::Fill;

    #[test]
    fn no_substituted_value_can_be_an_option() {
        for bad in ["--output_csv=/elsewhere/x.csv", "-x", "-"] {
            assert!(!value_word(bad), "{bad}");
            let err = check_groups(&[bad.to_owned()], None).unwrap_err();
            assert_eq!(err.value, bad);
        }
        let declared = ["gemm".to_owned(), "softmax".to_owned()];
        assert!(check_groups(&["gemm".to_owned()], Some(&declared)).is_ok());
        let err = check_groups(&["rmsnorm".to_owned()], Some(&declared)).unwrap_err();
        assert!(err.to_string().contains("rmsnorm") && err.to_string().contains("gemm, softmax"));
        let mut r = Provenance {
            tag: Some("--index-url=https://evil/simple".into()),
            label: Some("-main".into()),
            ..Provenance::default()
        };
        assert!(
            label(Some(&r), true)
                .unwrap_err()
                .to_string()
                .contains("--index-url")
        );
        assert!(
            label(Some(&r), false)
                .unwrap_err()
                .to_string()
                .contains("-main")
        );
        r.tag = Some("v0.3.1".into());
        assert_eq!(label(Some(&r), true).unwrap(), "v0.3.1");
        let fill = Fill {
            out: "/o/c.csv",
            groups: "--only a",
            tree: "/t",
            side: "current",
            sha: "-c",
            label: "x",
        };
        assert_eq!(fill.check().unwrap_err().value, "-c");
        assert!(Fill { sha: "", ..fill }.check().is_ok());
    }
}
