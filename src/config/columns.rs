//! `--keys`, `--metric`, `--ignore` and `--floor`: a results file's columns given as
//! inputs instead of a config file. A job whose CSV has its own columns
//! (FlyDSL's allreduce: `rank,shape,dtype` and `avg_time_us`, lower is
//! better) and needs nothing else a config says then needs no file in the
//! repository at all. Declared once here, on the ground floor, because
//! compare and bench (which judges its rounds as compare does) both read
//! them.

use super::load::key_pattern;
use super::{Config, Direction, Metric, Rule};
use crate::runner::{Input, InputError, Reader, Typed, Value, shown};

/// The most key columns `--keys` names, and the most `--ignore` patterns:
/// a results file's key is a handful of columns, and every pattern is
/// tried against every row.
pub const MAX_KEYS: usize = 16;
pub const MAX_IGNORE: usize = 100;
/// The longest column name `--keys` or `--metric` takes (bytes).
pub const MAX_NAME: usize = 64;

pub const KEYS: Typed<Vec<String>> = Typed {
    input: Input::one(
        "keys",
        &["INPUT_KEYS"],
        "COL,COL,...",
        "The key columns that name a row, instead of the config's (a config with rules or \
         [select] groups keeps its own: give both and the run is refused).",
    )
    .said("the config's, else op,shape,dtype"),
    parse: keys,
};

pub const METRIC: Typed<Metric> = Typed {
    input: Input::one(
        "metric",
        &["INPUT_METRIC"],
        "COL[:higher|lower]",
        "The one metric column compared, instead of the config's metrics; higher is better \
         unless it says lower (a time). The log block dashboards parse shows the column's name as its unit.",
    )
    .said("the config's, else tflops then tbps"),
    parse: metric,
};

pub const IGNORE: Input = Input::one(
    "ignore",
    &["INPUT_IGNORE"],
    "KEY=GLOB",
    "Rows whose key column KEY matches GLOB (`*`, `?`) are counted ignored, never compared or \
     gated, where no config rule matched them first. Repeat, or one a line; every pattern of \
     one value must match (rank=?,dtype=fp8).",
)
.many();

pub const FLOOR: Typed<f64> = Typed {
    input: Input::one(
        "floor",
        &["INPUT_FLOOR"],
        "N",
        "A change smaller than N, in the metric's unit, is no change (10 with avg_time_us: a \
         3 us swing of a 20 us kernel is not a regression), for rows no config rule matched.",
    )
    .said("none"),
    parse: floor,
};

/// What the inputs gave; `None` and empty where they were not given.
#[derive(Debug, Clone, Default)]
pub struct Columns {
    pub keys: Option<Value>,
    pub metric: Option<Metric>,
    pub ignore: Vec<Value>,
    pub floor: Option<f64>,
}

/// Reads the three inputs, each checked where it is given.
pub fn read(r: &Reader<'_>) -> Result<Columns, InputError> {
    let keys = r.text(&KEYS.input);
    if let Some(v) = &keys {
        (KEYS.parse)(&v.text).map_err(|e| v.invalid(e))?;
    }
    let ignore = r.list(&IGNORE);
    if ignore.len() > MAX_IGNORE {
        return Err(InputError {
            origin: IGNORE.both(),
            message: format!("{} patterns, at most {MAX_IGNORE}", ignore.len()),
        });
    }
    Ok(Columns {
        keys,
        metric: r.typed(&METRIC)?,
        ignore,
        floor: r.typed(&FLOOR)?,
    })
}

/// The config with the inputs applied: the keys and the metric replaced,
/// the ignore patterns compiled against the keys and added after the
/// config's rules, and the floor last, for every row no rule matched.
pub fn apply(config: &mut Config, columns: &Columns) -> Result<(), InputError> {
    if let Some(v) = &columns.keys {
        if !config.rules.is_empty() || config.select.is_some() {
            return Err(v.invalid(
                "the config has rules or [select] groups written for its own keys: set keys in the config, or drop --keys",
            ));
        }
        config.keys = keys(&v.text).map_err(|e| v.invalid(e))?;
    }
    if let Some(m) = &columns.metric {
        config.metrics = vec![m.clone()];
    }
    for v in &columns.ignore {
        let patterns = v
            .text
            .split(',')
            .map(|p| key_pattern(&config.keys, "ignore", p.trim().to_owned()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| v.invalid(e))?;
        config.rules.push(Rule {
            patterns,
            ignore: true,
            ..Rule::default()
        });
    }
    // After every other rule: a rule without patterns matches every row.
    if let Some(floor) = columns.floor {
        config.rules.push(Rule {
            floor: Some(floor),
            ..Rule::default()
        });
    }
    Ok(())
}

/// `--floor`: a finite amount, zero or more.
fn floor(text: &str) -> Result<f64, String> {
    text.trim()
        .parse::<f64>()
        .map_err(|_| floor_expected(text))
        .and_then(|n| floor_value(n).map_err(|_| floor_expected(text)))
}

/// A floor a file holds (bench's manifest) where `--floor` would have
/// given it: the same range, the same words.
pub fn floor_value(n: f64) -> Result<f64, String> {
    if n.is_finite() && n >= 0.0 {
        Ok(n)
    } else {
        Err(floor_expected(&n.to_string()))
    }
}

fn floor_expected(text: &str) -> String {
    format!("expected a number of 0 or more, got {:?}", shown(text))
}

/// A column name: not empty, printable, no comma, bounded.
fn name(text: &str) -> Result<String, String> {
    let t = text.trim();
    if t.is_empty() || t.len() > MAX_NAME || t.chars().any(|c| c.is_control() || c == ',') {
        return Err(format!(
            "a column name is 1 to {MAX_NAME} printable characters, got {:?}",
            shown(t)
        ));
    }
    Ok(t.to_owned())
}

/// `--keys`: column names, comma-separated, each once.
fn keys(text: &str) -> Result<Vec<String>, String> {
    let names = text.split(',').map(name).collect::<Result<Vec<_>, _>>()?;
    if names.len() > MAX_KEYS {
        return Err(format!("{} key columns, at most {MAX_KEYS}", names.len()));
    }
    if let Some(twice) = names
        .iter()
        .enumerate()
        .find_map(|(i, n)| names.iter().take(i).any(|m| m == n).then_some(n))
    {
        return Err(format!("the key column {twice:?} is named twice"));
    }
    Ok(names)
}

/// `--metric`: a column, and which way is better.
fn metric(text: &str) -> Result<Metric, String> {
    let (column, direction) = match text.rsplit_once(':') {
        Some((c, "higher")) => (c, Direction::Higher),
        Some((c, "lower")) => (c, Direction::Lower),
        Some((_, other)) => {
            return Err(format!(
                "expected COLUMN:higher or COLUMN:lower, got {:?} after the colon",
                shown(other)
            ));
        }
        None => (text, Direction::Higher),
    };
    let column = name(column)?;
    Ok(Metric {
        unit: column.clone(),
        column,
        direction,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_metrics_are_checked() {
        assert_eq!(
            keys("rank, shape,dtype").unwrap(),
            ["rank", "shape", "dtype"]
        );
        assert!(keys("rank,,dtype").is_err());
        assert!(keys("rank,rank").unwrap_err().contains("twice"));
        let m = metric("avg_time_us:lower").unwrap();
        assert_eq!(
            (m.column.as_str(), m.direction),
            ("avg_time_us", Direction::Lower)
        );
        assert_eq!(metric("tflops").unwrap().direction, Direction::Higher);
        assert!(metric("t:faster").unwrap_err().contains("faster"));
    }
}
