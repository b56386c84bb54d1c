//! The parameters read from a device file, and typed access to them for the
//! conversions of the table (each access is recorded, so every emitted key can name the
//! parameters and values it came from).

use super::error::{ImportError, Loc};
use super::Simulator;

/// One `name = value` of the file.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    /// The parameter's name as the simulator spells it.
    pub name: String,
    /// Its value as written (trimmed; SSDsim's `;` and comment removed).
    pub value: String,
    /// Where it is.
    pub loc: Loc,
}

/// A parameter as a conversion saw it: from the file or the simulator's default.
#[derive(Debug, Clone, PartialEq)]
pub struct Read {
    /// The parameter.
    pub name: String,
    /// The value used.
    pub value: String,
    /// True when the file does not give it and the simulator's default was used.
    pub defaulted: bool,
}

/// Every parameter of one file, with which of them the conversions used.
#[derive(Debug)]
pub struct Params {
    sim: Simulator,
    file: String,
    items: Vec<Param>,
    used: Vec<bool>,
    defaults: &'static [(&'static str, &'static str)],
    reads: Vec<Read>,
}

impl Params {
    /// `items` of `file`; `defaults` are the simulator's built-in values for parameters
    /// that may be absent (any other absent parameter that a conversion needs is an error).
    pub(crate) fn new(
        sim: Simulator,
        file: &str,
        items: Vec<Param>,
        defaults: &'static [(&'static str, &'static str)],
    ) -> Result<Self, ImportError> {
        for (i, p) in items.iter().enumerate() {
            if let Some(first) = items[..i].iter().find(|q| q.name == p.name) {
                return Err(ImportError::Malformed {
                    file: file.to_string(),
                    loc: Box::new(p.loc.clone()),
                    message: format!("`{}` is given twice (first at {})", p.name, first.loc),
                });
            }
        }
        let used = vec![false; items.len()];
        Ok(Params {
            sim,
            file: file.to_string(),
            items,
            used,
            defaults,
            reads: Vec::new(),
        })
    }

    /// The file name errors are reported under.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// The simulator the file belongs to.
    pub fn simulator(&self) -> Simulator {
        self.sim
    }

    /// The parameters in file order, each with whether a conversion used it.
    pub fn items(&self) -> impl Iterator<Item = (&Param, bool)> {
        self.items.iter().zip(self.used.iter().copied())
    }

    /// The value of `name` in the file (not recorded, default ignored).
    pub fn peek(&self, name: &str) -> Option<&Param> {
        self.items.iter().find(|p| p.name == name)
    }

    /// Takes the reads recorded since the last call.
    pub(crate) fn take_reads(&mut self) -> Vec<Read> {
        std::mem::take(&mut self.reads)
    }

    /// Marks `name` as used without recording it among the reads shown in a comment.
    pub(crate) fn mark_used(&mut self, name: &str) {
        if let Some(i) = self.items.iter().position(|p| p.name == name) {
            self.used[i] = true;
        }
    }

    /// The value of `name`: from the file, else the simulator's default, else `None`.
    pub(crate) fn opt(&mut self, name: &str) -> Option<(String, Loc)> {
        if let Some(i) = self.items.iter().position(|p| p.name == name) {
            self.used[i] = true;
            let p = &self.items[i];
            self.reads.push(Read {
                name: name.to_string(),
                value: p.value.clone(),
                defaulted: false,
            });
            return Some((p.value.clone(), p.loc.clone()));
        }
        let (_, v) = self.defaults.iter().find(|(n, _)| *n == name)?;
        self.reads.push(Read {
            name: name.to_string(),
            value: v.to_string(),
            defaulted: true,
        });
        Some((v.to_string(), Loc::Default))
    }

    /// The value of `name`, or a [`ImportError::Missing`].
    pub(crate) fn get(&mut self, name: &str) -> Result<(String, Loc), ImportError> {
        self.opt(name).ok_or_else(|| ImportError::Missing {
            file: self.file.clone(),
            simulator: self.sim.name(),
            name: name.to_string(),
        })
    }

    /// A [`ImportError::BadValue`] for `name` (its value and place looked up again).
    pub(crate) fn bad(&self, name: &str, expected: impl Into<String>) -> ImportError {
        let (value, loc) = match self.peek(name) {
            Some(p) => (p.value.clone(), p.loc.clone()),
            None => {
                let v = self.defaults.iter().find(|(n, _)| *n == name);
                (v.map_or("", |(_, v)| v).to_string(), Loc::Default)
            }
        };
        ImportError::BadValue {
            file: self.file.clone(),
            loc: Box::new(loc),
            name: name.to_string(),
            value,
            expected: expected.into(),
        }
    }

    /// A whole number in `lo..=hi`.
    pub(crate) fn int(&mut self, name: &str, lo: i64, hi: i64) -> Result<i64, ImportError> {
        let (v, _) = self.get(name)?;
        match v.trim().parse::<i64>() {
            Ok(n) if (lo..=hi).contains(&n) => Ok(n),
            Ok(_) => Err(self.bad(name, format!("must be a whole number in {lo}..={hi}"))),
            Err(_) => Err(self.bad(name, "expected a whole number")),
        }
    }

    /// A number in `lo..hi` (`hi` included when `hi_inclusive`).
    pub(crate) fn float(
        &mut self,
        name: &str,
        lo: f64,
        hi: f64,
        hi_inclusive: bool,
    ) -> Result<f64, ImportError> {
        let (v, _) = self.get(name)?;
        let x: f64 = v
            .trim()
            .parse()
            .map_err(|_| self.bad(name, "expected a number"))?;
        let below = if hi_inclusive { x <= hi } else { x < hi };
        if x.is_finite() && x >= lo && below {
            Ok(x)
        } else {
            let close = if hi_inclusive { "]" } else { ")" };
            Err(self.bad(name, format!("must be in [{lo}, {hi}{close}")))
        }
    }

    /// One of `words` (compared without case, as MQSim does); returned in upper case.
    pub(crate) fn word(&mut self, name: &str, words: &[&str]) -> Result<String, ImportError> {
        let (v, _) = self.get(name)?;
        let up = v.trim().to_ascii_uppercase();
        if words.iter().any(|w| w.eq_ignore_ascii_case(&up)) {
            Ok(up)
        } else {
            Err(self.bad(name, format!("expected one of {}", words.join(", "))))
        }
    }

    /// MQSim's `true` / `false` (any case).
    pub(crate) fn boolean(&mut self, name: &str) -> Result<bool, ImportError> {
        Ok(self.word(name, &["TRUE", "FALSE"])? == "TRUE")
    }
}
