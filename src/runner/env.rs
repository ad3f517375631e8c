//! Values from flags and the environment, each with the name of where it came
//! from, so a bad value's message points at the line of the workflow (or the
//! command line) that set it.
//!
//! A flag wins over its environment variables; an empty variable counts as
//! unset, because a composite action passes every input, given or not, as an
//! `INPUT_*` variable; surrounding whitespace is dropped from every value
//! (YAML block scalars end in a line break).

use std::fmt;
use std::path::PathBuf;

use thiserror::Error;

use super::declare::{self, Default, Flags, Input, Shape, Typed};
use super::text::shown;

/// Reads a variable of the process environment (or a test's map).
pub type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

/// A value that was refused, and where it came from.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{origin}: {message}")]
pub struct InputError {
    /// e.g. `--base-sha`, `INPUT_BASE_SHA` or `--strict / INPUT_STRICT`.
    pub origin: String,
    pub message: String,
}

/// A value as given, trimmed, with its origin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Value {
    pub text: String,
    pub origin: String,
}

impl Value {
    pub fn invalid(&self, message: impl fmt::Display) -> InputError {
        InputError {
            origin: self.origin.clone(),
            message: message.to_string(),
        }
    }
}

/// Reads inputs from flags and an environment.
pub struct Reader<'a> {
    env: Env<'a>,
    flags: &'a Flags,
}

impl<'a> Reader<'a> {
    /// The environment alone: no flag given.
    pub fn new(env: Env<'a>) -> Reader<'a> {
        Reader {
            env,
            flags: &declare::NONE,
        }
    }

    /// The command line's flags over the environment.
    pub fn given(env: Env<'a>, flags: &'a Flags) -> Reader<'a> {
        Reader { env, flags }
    }

    /// One value: the flag's (the last given), else the first non-empty
    /// variable's, trimmed.
    pub fn text(&self, input: &Input) -> Option<Value> {
        self.value(
            input,
            self.flags.flag(input.flag).last().map(String::as_str),
        )
    }

    /// Every value: the flag's, each its own, else the variable's lines.
    pub fn list(&self, input: &Input) -> Vec<Value> {
        self.values(input, self.flags.flag(input.flag))
    }

    /// A path: the value as given.
    pub fn path(&self, input: &Input) -> Option<PathBuf> {
        self.text(input).map(|v| PathBuf::from(v.text))
    }

    /// Every path given (a repeated flag, or the variable's lines).
    pub fn paths(&self, input: &Input) -> Vec<PathBuf> {
        self.list(input)
            .into_iter()
            .map(|v| PathBuf::from(v.text))
            .collect()
    }

    /// A switch: on when the flag is given, else `true`/`false` from the
    /// variable, off when unset.
    pub fn on(&self, input: &Input) -> Result<bool, InputError> {
        self.on_or(input, false)
    }

    /// A switch that is on when unset, when `default` is (the action's
    /// `tag: true`).
    pub fn on_or(&self, input: &Input, default: bool) -> Result<bool, InputError> {
        debug_assert_eq!(input.shape, Shape::Switch);
        self.switch(input, self.flags.is_on(input.flag), default)
    }

    /// The value parsed by the input's parser; `None` when unset.
    pub fn typed<T>(&self, typed: &Typed<T>) -> Result<Option<T>, InputError> {
        self.parsed(&typed.input, typed.parse)
    }

    /// The value parsed by `parse` (a variable read where no flag is
    /// declared: `GITHUB_SHA`); its error is named by the origin.
    pub fn parsed<T, E: fmt::Display>(
        &self,
        input: &Input,
        parse: impl FnOnce(&str) -> Result<T, E>,
    ) -> Result<Option<T>, InputError> {
        match self.text(input) {
            Some(value) => parse(&value.text).map(Some).map_err(|e| value.invalid(e)),
            None => Ok(None),
        }
    }

    /// The value parsed, else the declared default parsed the same way.
    pub fn typed_or_default<T>(&self, typed: &Typed<T>) -> Result<T, InputError> {
        if let Some(value) = self.typed(typed)? {
            return Ok(value);
        }
        let Default::Value(default) = typed.input.default else {
            return Err(InputError {
                origin: typed.input.both(),
                message: "has no default: give a value".to_owned(),
            });
        };
        (typed.parse)(default).map_err(|e| InputError {
            origin: format!("the default of {}", typed.input.both()),
            message: e,
        })
    }

    /// An input that must be there: `missing` says how to give it.
    pub fn needed(&self, input: &Input, missing: &str) -> Result<Value, InputError> {
        self.text(input).ok_or_else(|| InputError {
            origin: input.both(),
            message: missing.to_owned(),
        })
    }

    /// A variable, `None` when unset or empty.
    pub fn var(&self, name: &str) -> Option<String> {
        (self.env)(name).filter(|v| !v.is_empty())
    }

    /// The flag's value, else the first non-empty variable, trimmed.
    fn value(&self, input: &Input, flag: Option<&str>) -> Option<Value> {
        if let Some(text) = flag {
            return Some(Value {
                text: text.trim().to_owned(),
                origin: format!("--{}", input.flag),
            });
        }
        input.vars.iter().find_map(|var| {
            let text = self.var(var)?;
            Some(Value {
                text: text.trim().to_owned(),
                origin: (*var).to_owned(),
            })
        })
    }

    /// A list input: the flags when any were given (each its own value),
    /// else the first variable's lines, trimmed, blank ones dropped (how an
    /// action passes several files in one `with:` value).
    fn values(&self, input: &Input, flags: &[String]) -> Vec<Value> {
        if !flags.is_empty() {
            return flags
                .iter()
                .filter_map(|f| self.value(input, Some(f)))
                .collect();
        }
        let Some(all) = self.value(input, None) else {
            return Vec::new();
        };
        all.text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(|line| Value {
                text: line.to_owned(),
                origin: all.origin.clone(),
            })
            .collect()
    }

    /// A switch: `true` when the flag is given, else `true`/`false` from the
    /// first variable, `default` when it is unset.
    fn switch(&self, input: &Input, flag: bool, default: bool) -> Result<bool, InputError> {
        if flag {
            return Ok(true);
        }
        let Some(value) = self.value(input, None) else {
            return Ok(default);
        };
        match value.text.to_ascii_lowercase().as_str() {
            "" => Ok(default),
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(InputError {
                origin: input.both(),
                message: format!("expected true or false, got {:?}", shown(&value.text)),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::declare::Given;

    const LABEL: Input = Input::new("label", &["INPUT_LABEL"]);
    const STRICT: Input = Input::switch("strict", &["INPUT_STRICT"], "");

    #[test]
    fn a_flag_wins_an_empty_variable_is_unset_and_values_are_trimmed() {
        let env = |name: &str| match name {
            "INPUT_LABEL" => Some(" main-mi355\n".to_owned()),
            "INPUT_STRICT" => Some(String::new()),
            _ => None,
        };
        let reader = Reader::new(&env);
        let v = reader.text(&LABEL).unwrap();
        assert_eq!(
            (v.text.as_str(), v.origin.as_str()),
            ("main-mi355", "INPUT_LABEL")
        );
        let given = Given::<()>::default().with("label", "x");
        let v = Reader::given(&env, &given.flags).text(&LABEL).unwrap();
        assert_eq!(v.origin, "--label");
        assert!(!reader.on(&STRICT).unwrap());
        let err = reader.parsed(&LABEL, |_| Err::<(), _>("bad")).unwrap_err();
        assert_eq!(err.to_string(), "INPUT_LABEL: bad");
    }

    #[test]
    fn a_switch_names_flag_and_variable() {
        let env = |name: &str| (name == "INPUT_STRICT").then(|| "yes".to_owned());
        let err = Reader::new(&env).on(&STRICT).unwrap_err();
        assert_eq!(err.origin, "--strict / INPUT_STRICT");
    }
}
