//! What a conversion produces: an ssdlab value with its notes (import), or simulator
//! parameters (export).

use std::fmt;

/// An ssdlab configuration value.
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    /// A whole number.
    Int(i64),
    /// A real number.
    Float(f64),
    /// A switch.
    Bool(bool),
    /// A word (an enum variant or an order).
    Str(String),
}

impl fmt::Display for Val {
    /// The value as a TOML literal.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Val::Int(n) => write!(f, "{n}"),
            // `{:?}` keeps the shortest text that reads back to the same f64, with a `.0`.
            Val::Float(x) => write!(f, "{x:?}"),
            Val::Bool(b) => write!(f, "{b}"),
            Val::Str(s) => write!(f, "\"{s}\""),
        }
    }
}

impl Val {
    /// The value of a TOML literal as [`Val`] (integers, floats, booleans, strings).
    pub fn from_toml(v: &toml::Value) -> Option<Val> {
        match v {
            toml::Value::Integer(n) => Some(Val::Int(*n)),
            toml::Value::Float(x) => Some(Val::Float(*x)),
            toml::Value::Boolean(b) => Some(Val::Bool(*b)),
            toml::Value::String(s) => Some(Val::Str(s.clone())),
            _ => None,
        }
    }
}

/// The result of importing one key.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The key takes `value`.
    Value {
        /// The ssdlab value.
        value: Val,
        /// How it was computed when that is more than a copy (a unit change, a rounding).
        note: Option<String>,
        /// What the value does not carry over: each is a behaviour of the source device
        /// that ssdlab cannot represent exactly (listed as not imported; `--strict` refuses it).
        approx: Vec<String>,
    },
    /// The key is not set (it does not apply to this device); why.
    Skip(String),
}

impl Outcome {
    /// An exact value.
    pub fn exact(value: Val) -> Self {
        Outcome::Value {
            value,
            note: None,
            approx: Vec::new(),
        }
    }

    /// An exact value computed as `note` says.
    pub fn noted(value: Val, note: impl Into<String>) -> Self {
        Outcome::Value {
            value,
            note: Some(note.into()),
            approx: Vec::new(),
        }
    }

    /// A value that leaves out what `why` says.
    pub fn approx(value: Val, why: impl Into<String>) -> Self {
        Outcome::Value {
            value,
            note: None,
            approx: vec![why.into()],
        }
    }

    /// Adds a behaviour the value leaves out.
    pub fn and_approx(mut self, why: impl Into<String>) -> Self {
        if let Outcome::Value { approx, .. } = &mut self {
            approx.push(why.into());
        }
        self
    }
}

/// The result of exporting one key: the simulator's parameters and their values.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Exported {
    /// `(parameter, value)` in the simulator's own syntax.
    pub params: Vec<(String, String)>,
    /// How the values were computed when that is more than a copy.
    pub note: Option<String>,
}

impl Exported {
    /// One parameter.
    pub fn one(name: &str, value: impl fmt::Display) -> Self {
        Exported {
            params: vec![(name.to_string(), value.to_string())],
            note: None,
        }
    }

    /// Several parameters.
    pub fn many<I: IntoIterator<Item = (String, String)>>(params: I) -> Self {
        Exported {
            params: params.into_iter().collect(),
            note: None,
        }
    }

    /// With a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.note = Some(note.into());
        self
    }
}

/// The value at dotted `key` of a configuration serialized as TOML.
pub fn lookup<'a>(cfg: &'a toml::Table, key: &str) -> Option<&'a toml::Value> {
    let mut parts = key.split('.');
    let mut v = cfg.get(parts.next()?)?;
    for p in parts {
        v = v.as_table()?.get(p)?;
    }
    Some(v)
}

/// The integer at `key`, or why not.
pub fn int_at(cfg: &toml::Table, key: &str) -> Result<i64, String> {
    lookup(cfg, key)
        .and_then(toml::Value::as_integer)
        .ok_or_else(|| format!("`{key}` is not an integer in the configuration"))
}

/// The number at `key`, or why not.
pub fn float_at(cfg: &toml::Table, key: &str) -> Result<f64, String> {
    lookup(cfg, key)
        .and_then(toml::Value::as_float)
        .ok_or_else(|| format!("`{key}` is not a number in the configuration"))
}

/// The boolean at `key`, or why not.
pub fn bool_at(cfg: &toml::Table, key: &str) -> Result<bool, String> {
    lookup(cfg, key)
        .and_then(toml::Value::as_bool)
        .ok_or_else(|| format!("`{key}` is not a boolean in the configuration"))
}

/// The string at `key`, or why not.
pub fn str_at<'a>(cfg: &'a toml::Table, key: &str) -> Result<&'a str, String> {
    lookup(cfg, key)
        .and_then(toml::Value::as_str)
        .ok_or_else(|| format!("`{key}` is not a string in the configuration"))
}
