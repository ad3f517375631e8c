//! GitHub Actions expressions (`${{ ... }}`) as the runner evaluates them,
//! for what the docs and examples write: literals, context paths
//! (`needs.resolve.outputs.json`, `fromJSON(x).tag_sha`, `a[b]`), `!`,
//! `==`/`!=` (strings compared ignoring case, as the runner does), `&&`
//! and `||` (which return an operand, not a boolean), parentheses, and the
//! functions `fromJSON`, `toJSON`, `format`, `contains`, `startsWith`,
//! `endsWith`, `join`, `hashFiles` and the status checks. Anything else
//! is an error naming it, so a doc cannot use what the test cannot check.

use serde_json::Value;

/// What an expression may read besides its contexts: the job's status for
/// `success()`/`failure()`/`cancelled()`, and `hashFiles` in the workspace.
pub trait Host {
    fn context(&self, name: &str) -> Value;
    fn failed(&self) -> bool;
    fn hash_files(&self, patterns: &[String]) -> String;
}

/// Evaluates one expression (the text between `${{` and `}}`).
pub fn eval(text: &str, host: &dyn Host) -> Result<Value, String> {
    let tokens = lex(text)?;
    let mut p = Parser {
        tokens: &tokens,
        at: 0,
        host,
    };
    let value = p.or()?;
    if p.at != tokens.len() {
        return Err(format!("{text:?}: unexpected {:?}", tokens[p.at]));
    }
    Ok(value)
}

/// Fills every `${{ ... }}` of `text` with its value as text.
pub fn interpolate(text: &str, host: &dyn Host) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("${{") {
        out.push_str(&rest[..start]);
        let end = rest[start..]
            .find("}}")
            .ok_or_else(|| format!("unclosed expression in {text:?}"))?
            + start;
        out.push_str(&as_text(&eval(&rest[start + 3..end], host)?));
        rest = &rest[end + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

/// An `if:` condition: an expression with or without `${{ }}`; empty is
/// `success()`. A condition that names no status function gets
/// `success() &&` in front, as the runner adds it.
pub fn condition(text: &str, host: &dyn Host) -> Result<bool, String> {
    let inner = text.trim();
    let inner = inner
        .strip_prefix("${{")
        .and_then(|t| t.strip_suffix("}}"))
        .unwrap_or(inner)
        .trim();
    if inner.is_empty() {
        return Ok(!host.failed());
    }
    let status = ["success()", "failure()", "cancelled()", "always()"]
        .iter()
        .any(|f| inner.contains(f));
    let value = truthy(&eval(inner, host)?);
    Ok(if status {
        value
    } else {
        value && !host.failed()
    })
}

pub fn as_text(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        other => serde_json::to_string_pretty(other).unwrap(),
    }
}

pub fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0 && !f.is_nan()),
        Value::String(s) => !s.is_empty(),
        _ => true,
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Str(String),
    Num(f64),
    Ident(String),
    Op(&'static str),
}

fn lex(text: &str) -> Result<Vec<Token>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c == '\'' {
            let mut s = String::new();
            i += 1;
            loop {
                match chars.get(i) {
                    None => return Err(format!("{text:?}: unclosed string")),
                    Some('\'') if chars.get(i + 1) == Some(&'\'') => {
                        s.push('\'');
                        i += 2;
                    }
                    Some('\'') => break,
                    Some(&c) => {
                        s.push(c);
                        i += 1;
                    }
                }
            }
            i += 1;
            out.push(Token::Str(s));
        } else if c.is_ascii_digit() {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                i += 1;
            }
            let n: String = chars[start..i].iter().collect();
            out.push(Token::Num(
                n.parse().map_err(|_| format!("bad number {n}"))?,
            ));
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || "_-".contains(chars[i])) {
                i += 1;
            }
            out.push(Token::Ident(chars[start..i].iter().collect()));
        } else {
            let two: String = chars[i..(i + 2).min(chars.len())].iter().collect();
            let op = ["==", "!=", "&&", "||", "<=", ">="]
                .into_iter()
                .find(|o| *o == two)
                .or_else(|| {
                    ["!", "(", ")", "[", "]", ".", ",", "<", ">", "*"]
                        .into_iter()
                        .find(|o| o.starts_with(c))
                })
                .ok_or_else(|| format!("{text:?}: unexpected {c:?}"))?;
            i += op.len();
            out.push(Token::Op(op));
        }
    }
    Ok(out)
}

struct Parser<'a> {
    tokens: &'a [Token],
    at: usize,
    host: &'a dyn Host,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at)
    }

    fn eat(&mut self, op: &str) -> bool {
        if matches!(self.peek(), Some(Token::Op(o)) if *o == op) {
            self.at += 1;
            return true;
        }
        false
    }

    fn expect(&mut self, op: &str) -> Result<(), String> {
        if self.eat(op) {
            Ok(())
        } else {
            Err(format!("expected {op} at {:?}", self.peek()))
        }
    }

    fn or(&mut self) -> Result<Value, String> {
        let mut left = self.and()?;
        while self.eat("||") {
            let right = self.and()?;
            if !truthy(&left) {
                left = right;
            }
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<Value, String> {
        let mut left = self.equality()?;
        while self.eat("&&") {
            let right = self.equality()?;
            if truthy(&left) {
                left = right;
            }
        }
        Ok(left)
    }

    fn equality(&mut self) -> Result<Value, String> {
        let left = self.unary()?;
        if self.eat("==") {
            return Ok(Value::Bool(equal(&left, &self.unary()?)));
        }
        if self.eat("!=") {
            return Ok(Value::Bool(!equal(&left, &self.unary()?)));
        }
        Ok(left)
    }

    fn unary(&mut self) -> Result<Value, String> {
        if self.eat("!") {
            return Ok(Value::Bool(!truthy(&self.unary()?)));
        }
        let mut value = self.primary()?;
        loop {
            if self.eat(".") {
                // `.*`: the object filter, every element (or value).
                if self.eat("*") {
                    value = match value {
                        Value::Object(map) => Value::Array(map.into_values().collect()),
                        Value::Array(items) => Value::Array(items),
                        _ => Value::Array(vec![]),
                    };
                    continue;
                }
                let Some(Token::Ident(name)) = self.peek().cloned() else {
                    return Err("a name after `.`".into());
                };
                self.at += 1;
                value = member(&value, &name);
            } else if self.eat("[") {
                let key = self.or()?;
                self.expect("]")?;
                value = member(&value, &as_text(&key));
            } else {
                return Ok(value);
            }
        }
    }

    fn primary(&mut self) -> Result<Value, String> {
        let token = self.peek().cloned().ok_or("an operand")?;
        self.at += 1;
        Ok(match token {
            Token::Str(s) => Value::String(s),
            Token::Num(n) => serde_json::json!(n),
            Token::Op("(") => {
                let v = self.or()?;
                self.expect(")")?;
                v
            }
            Token::Ident(name) if self.eat("(") => {
                let mut args = Vec::new();
                if !self.eat(")") {
                    loop {
                        args.push(self.or()?);
                        if self.eat(")") {
                            break;
                        }
                        self.expect(",")?;
                    }
                }
                self.call(&name, &args)?
            }
            Token::Ident(name) => match name.as_str() {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                "null" => Value::Null,
                _ => self.host.context(&name),
            },
            other => return Err(format!("unexpected {other:?}")),
        })
    }

    fn call(&self, name: &str, args: &[Value]) -> Result<Value, String> {
        let text = |i: usize| args.get(i).map(as_text).unwrap_or_default();
        Ok(match name.to_ascii_lowercase().as_str() {
            "fromjson" => serde_json::from_str(&text(0))
                .map_err(|e| format!("fromJSON({:?}): {e}", text(0)))?,
            "tojson" => Value::String(as_text(&args[0])),
            "format" => {
                let mut out = text(0);
                for i in 1..args.len() {
                    out = out.replace(&format!("{{{}}}", i - 1), &text(i));
                }
                Value::String(out)
            }
            "contains" => Value::Bool(match &args[0] {
                Value::Array(items) => items.iter().any(|v| equal(v, &args[1])),
                v => as_text(v).to_lowercase().contains(&text(1).to_lowercase()),
            }),
            "startswith" => {
                Value::Bool(text(0).to_lowercase().starts_with(&text(1).to_lowercase()))
            }
            "endswith" => Value::Bool(text(0).to_lowercase().ends_with(&text(1).to_lowercase())),
            "join" => Value::String(match &args[0] {
                Value::Array(items) => items
                    .iter()
                    .map(as_text)
                    .collect::<Vec<_>>()
                    .join(&args.get(1).map_or(",".into(), as_text)),
                v => as_text(v),
            }),
            "hashfiles" => Value::String(
                self.host
                    .hash_files(&args.iter().map(as_text).collect::<Vec<_>>()),
            ),
            "success" => Value::Bool(!self.host.failed()),
            "failure" => Value::Bool(self.host.failed()),
            "cancelled" => Value::Bool(false),
            "always" => Value::Bool(true),
            other => return Err(format!("unsupported function {other}()")),
        })
    }
}

/// A property; of a filtered array (`labels.*.name`), each element's.
fn member(value: &Value, name: &str) -> Value {
    match value {
        Value::Array(items) => Value::Array(items.iter().map(|v| member(v, name)).collect()),
        Value::Object(map) => map
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
            .unwrap_or(Value::Null),
        _ => Value::Null,
    }
}

/// `==` as the runner does it: strings ignoring case; values of other
/// types compared as numbers (null and '' are 0, so `null == ''`).
fn equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::String(x), Value::String(y)) => x.eq_ignore_ascii_case(y),
        (Value::Object(_) | Value::Array(_), _) | (_, Value::Object(_) | Value::Array(_)) => a == b,
        _ => number(a) == number(b) && !number(a).is_nan(),
    }
}

fn number(value: &Value) -> f64 {
    match value {
        Value::Null => 0.0,
        Value::Bool(b) => f64::from(u8::from(*b)),
        Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
        Value::String(s) if s.trim().is_empty() => 0.0,
        Value::String(s) => s.trim().parse().unwrap_or(f64::NAN),
        _ => f64::NAN,
    }
}
