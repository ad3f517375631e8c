//! Each input of a command declared once: its flag, the `INPUT_*` (or
//! `GITHUB_*`) variables that may carry it, how it takes values, its
//! default and its help. From that one [`Input`] come the clap argument
//! (and so `--help`, with its `[default: ...]` and `[env: ...]` notes), the
//! environment lookup ([`super::Reader`]) and, in the tests, the check of
//! each command's `action.yml` and docs table.
//!
//! Why not clap's own `env` attribute: clap hands an empty variable to the
//! parser as the value `""` (clap_builder's `add_env`), while a composite
//! action passes every input, given or not, so an empty variable must count
//! as unset; clap reads the process environment itself (the commands read
//! it through [`super::Env`], which tests replace by a map); it takes one
//! variable per argument (`--token` reads `INPUT_TOKEN` then
//! `GITHUB_TOKEN`), no list one per line, and its errors do not name the
//! variable a bad value came from. So clap parses the command line, and
//! [`super::Reader`] merges it with the environment.

use std::ffi::OsString;
use std::fmt;
use std::marker::PhantomData;

use clap::{Arg, ArgAction, ArgMatches, Command, FromArgMatches};

/// How an input takes values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// One value: `--gate main`, `INPUT_GATE: main`.
    One,
    /// Several: the flag repeated, or the variable's lines (how an action
    /// passes several files in one `with:` value).
    Many,
    /// A switch: `--strict`, or `true`/`false` in the variable.
    Switch,
}

/// The default an input's help states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Default {
    None,
    /// A value, parsed like a given one, and the action input's default.
    Value(&'static str),
    /// Words for what happens when it is not given (`the first
    /// --baseline`): the action input's default is then empty.
    Said(&'static str),
}

/// One input, declared once. `flag` is empty for a value read only from the
/// environment (`GITHUB_SHA`): no clap argument is made for it.
#[derive(Debug, Clone, Copy)]
pub struct Input {
    pub flag: &'static str,
    pub vars: &'static [&'static str],
    pub shape: Shape,
    pub value_name: &'static str,
    pub default: Default,
    pub help: &'static str,
    /// A path: any bytes on the command line (shown lossily), where another
    /// value must be UTF-8.
    pub path: bool,
    /// Given without a flag name (`lint PATH...`).
    pub positional: bool,
    /// The flag this one only makes sense with (`--dry-run` needs `--fix`).
    pub requires: Option<&'static str>,
    /// The flag this one cannot be given with (`--issue`, `--pr`).
    pub conflicts: Option<&'static str>,
    /// clap refuses the command line without it (`convert FILE`).
    pub required: bool,
}

impl Input {
    /// A value read from these variables only, or an input not yet given
    /// its help.
    pub const fn new(flag: &'static str, vars: &'static [&'static str]) -> Input {
        Input {
            flag,
            vars,
            shape: Shape::One,
            value_name: "",
            default: Default::None,
            help: "",
            path: false,
            positional: false,
            requires: None,
            conflicts: None,
            required: false,
        }
    }

    /// `--flag VALUE_NAME`, described by `help`.
    pub const fn one(
        flag: &'static str,
        vars: &'static [&'static str],
        value_name: &'static str,
        help: &'static str,
    ) -> Input {
        Input {
            value_name,
            help,
            ..Input::new(flag, vars)
        }
    }

    /// `--flag`, on or off.
    pub const fn switch(
        flag: &'static str,
        vars: &'static [&'static str],
        help: &'static str,
    ) -> Input {
        Input {
            shape: Shape::Switch,
            help,
            ..Input::new(flag, vars)
        }
    }

    /// Repeatable; one value a line in the variable.
    pub const fn many(self) -> Input {
        Input {
            shape: Shape::Many,
            ..self
        }
    }

    /// A path (see [`Input::path`]).
    pub const fn path(self) -> Input {
        Input { path: true, ..self }
    }

    /// Given without a flag name, after the flags.
    pub const fn positional(self) -> Input {
        Input {
            positional: true,
            ..self
        }
    }

    /// Refused (a usage error) without `flag`.
    pub const fn requires(self, flag: &'static str) -> Input {
        Input {
            requires: Some(flag),
            ..self
        }
    }

    /// Refused (a usage error) when not given on the command line.
    pub const fn required(self) -> Input {
        Input {
            required: true,
            ..self
        }
    }

    /// Refused (a usage error) together with `flag`.
    pub const fn conflicts(self, flag: &'static str) -> Input {
        Input {
            conflicts: Some(flag),
            ..self
        }
    }

    /// The default value, stated in `--help` and parsed when unset.
    pub const fn default(self, value: &'static str) -> Input {
        Input {
            default: Default::Value(value),
            ..self
        }
    }

    /// What happens when unset, in words, for `--help`.
    pub const fn said(self, words: &'static str) -> Input {
        Input {
            default: Default::Said(words),
            ..self
        }
    }

    /// `--flag / VAR` for messages about the input as a whole.
    pub fn both(&self) -> String {
        match self.vars.first() {
            Some(var) if self.flag.is_empty() => (*var).to_owned(),
            Some(var) => format!("--{} / {var}", self.flag),
            None => format!("--{}", self.flag),
        }
    }

    /// The `action.yml` input name: the first `INPUT_*` variable, lower
    /// case, `_` as `-`.
    pub fn action_input(&self) -> Option<String> {
        self.vars
            .iter()
            .find_map(|v| v.strip_prefix("INPUT_"))
            .map(|name| name.to_ascii_lowercase().replace('_', "-"))
    }

    /// The help line: the words, then the default and the variables.
    pub fn help_text(&self) -> String {
        let mut text = self.help.to_owned();
        match self.default {
            Default::Value(v) | Default::Said(v) => text.push_str(&format!(" [default: {v}]")),
            Default::None => {}
        }
        if !self.vars.is_empty() {
            let lines = if self.shape == Shape::Many {
                ", one per line"
            } else {
                ""
            };
            text.push_str(&format!(" [env: {}{lines}]", self.vars.join(", then ")));
        }
        text
    }

    /// The clap argument. No clap default and no clap `env`: whether a
    /// value was given at all is the [`super::Reader`]'s to know.
    pub fn arg(&self) -> Arg {
        let mut arg = Arg::new(self.flag)
            .help(self.help_text())
            .required(self.required);
        if !self.positional {
            arg = arg.long(self.flag);
        }
        if let Some(flag) = self.requires {
            arg = arg.requires(flag);
        }
        if let Some(flag) = self.conflicts {
            arg = arg.conflicts_with(flag);
        }
        match self.shape {
            Shape::Switch => arg.action(ArgAction::SetTrue),
            Shape::One | Shape::Many => {
                let arg = arg.value_name(self.value_name).action(match self.shape {
                    Shape::Many => ArgAction::Append,
                    _ => ArgAction::Set,
                });
                if self.path {
                    arg.value_parser(clap::value_parser!(OsString))
                } else {
                    arg.value_parser(clap::value_parser!(String))
                }
            }
        }
    }
}

/// An input whose text becomes a `T`: the parser's message is named by
/// where the value came from.
#[derive(Debug, Clone, Copy)]
pub struct Typed<T> {
    pub input: Input,
    pub parse: fn(&str) -> Result<T, String>,
}

/// A command's declared inputs, in `--help` order.
pub trait Declared {
    const INPUTS: &'static [Input];
}

/// What the command line gave: each flag's values (lossy for paths) and
/// the switches that were on.
#[derive(Debug, Clone, std::default::Default)]
pub struct Flags {
    values: Vec<(&'static str, Vec<String>)>,
    on: Vec<&'static str>,
}

/// No flag given (a lookup in the environment alone).
pub static NONE: Flags = Flags {
    values: Vec::new(),
    on: Vec::new(),
};

impl Flags {
    /// A flag's values as typed; empty when not given.
    pub fn flag(&self, flag: &str) -> &[String] {
        self.values
            .iter()
            .find(|(f, _)| *f == flag)
            .map_or(&[], |(_, v)| v.as_slice())
    }

    pub fn is_on(&self, flag: &str) -> bool {
        self.on.contains(&flag)
    }
}

/// What the command line gave, for the inputs command `C` declares (its
/// clap arguments: `C::INPUTS`).
pub struct Given<C> {
    pub flags: Flags,
    command: PhantomData<C>,
}

impl<C> Given<C> {
    /// The same, with `--flag value` added (tests build command lines so).
    pub fn with(mut self, flag: &'static str, value: &str) -> Given<C> {
        let values = &mut self.flags.values;
        match values.iter_mut().find(|(f, _)| *f == flag) {
            Some((_, v)) => v.push(value.to_owned()),
            None => values.push((flag, vec![value.to_owned()])),
        }
        self
    }
}

impl<C> std::default::Default for Given<C> {
    fn default() -> Self {
        Given {
            flags: Flags::default(),
            command: PhantomData,
        }
    }
}

impl<C> Clone for Given<C> {
    fn clone(&self) -> Self {
        Given {
            flags: self.flags.clone(),
            command: PhantomData,
        }
    }
}

impl<C> fmt::Debug for Given<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.flags.fmt(f)
    }
}

impl<C: Declared> FromArgMatches for Given<C> {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut given = Given::default();
        for input in C::INPUTS.iter().filter(|i| !i.flag.is_empty()) {
            if input.shape == Shape::Switch {
                if m.try_get_one::<bool>(input.flag).ok().flatten() == Some(&true) {
                    given.flags.on.push(input.flag);
                }
                continue;
            }
            let Ok(Some(raw)) = m.try_get_raw(input.flag) else {
                continue;
            };
            let values = raw.map(|v| v.to_string_lossy().into_owned()).collect();
            given.flags.values.push((input.flag, values));
        }
        Ok(given)
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl<C: Declared> clap::Args for Given<C> {
    fn augment_args(cmd: Command) -> Command {
        cmd.args(
            C::INPUTS
                .iter()
                .filter(|i| !i.flag.is_empty())
                .map(Input::arg),
        )
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Demo;
    impl Declared for Demo {
        const INPUTS: &'static [Input] = &[
            Input::one("gate", &["INPUT_GATE"], "LABEL", "The gate.").said("the first"),
            Input::one("file", &["INPUT_FILE"], "FILE", "Files.")
                .many()
                .path(),
            Input::switch("strict", &["INPUT_STRICT"], "Strict."),
            Input::new("", &["GITHUB_SHA"]),
        ];
    }

    fn parse(args: &[&str]) -> Result<Given<Demo>, clap::Error> {
        use clap::Args as _;
        let cmd = Given::<Demo>::augment_args(Command::new("demo"));
        Given::from_arg_matches(&cmd.try_get_matches_from(args)?)
    }

    #[test]
    fn the_declaration_makes_the_argument_and_its_help() {
        let given = parse(&["demo", "--file", "a", "--file", "b", "--strict"]).unwrap();
        assert_eq!(given.flags.flag("file"), ["a", "b"]);
        assert!(given.flags.is_on("strict"));
        assert!(given.flags.flag("gate").is_empty());
        let help = Demo::INPUTS[0].help_text();
        assert_eq!(help, "The gate. [default: the first] [env: INPUT_GATE]");
        assert!(
            Demo::INPUTS[1]
                .help_text()
                .ends_with("[env: INPUT_FILE, one per line]")
        );
        assert_eq!(Demo::INPUTS[1].action_input().as_deref(), Some("file"));
        assert!(
            parse(&["demo", "--sha", "x"]).is_err(),
            "no flag for GITHUB_SHA"
        );
    }
}
