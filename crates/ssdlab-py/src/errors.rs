//! Rust errors as one Python exception, `NativeError(kind, message, details)`, where
//! `details` holds the key / file / line / field the Rust error names. The Python side
//! (`ssdlab/_errors.py`) raises the public class for `kind` from it.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use ssdlab::config::{ConfigError, ConfigErrors};
use ssdlab::SimError;
use ssdlab_trace::TraceError;

create_exception!(
    _native,
    NativeError,
    PyException,
    "An error of the simulator: (kind, message, details)."
);

/// A failed call: what kind, the message the command line would print, and where.
#[derive(Debug)]
pub struct RunError {
    kind: &'static str,
    message: String,
    /// Every configuration key at fault, in order.
    keys: Vec<String>,
    /// The file at fault (a trace, or a configuration file).
    file: Option<String>,
    /// 1-based line in `file`.
    line: Option<u64>,
    /// The trace field at fault.
    field: Option<&'static str>,
}

impl RunError {
    fn new(kind: &'static str, message: String) -> Self {
        RunError {
            kind,
            message,
            keys: Vec::new(),
            file: None,
            line: None,
            field: None,
        }
    }

    /// The Python exception.
    pub fn into_py(self) -> PyErr {
        Python::with_gil(|py| {
            let details = PyDict::new(py);
            let set = |k: &str, v: PyObject| details.set_item(k, v);
            let r = (|| -> PyResult<()> {
                set(
                    "key",
                    self.keys.first().cloned().into_pyobject(py)?.unbind(),
                )?;
                set("keys", self.keys.clone().into_pyobject(py)?.unbind())?;
                set("file", self.file.clone().into_pyobject(py)?.unbind())?;
                set("line", self.line.into_pyobject(py)?.unbind())?;
                set("field", self.field.into_pyobject(py)?.unbind())?;
                Ok(())
            })();
            match r {
                Ok(()) => NativeError::new_err((self.kind, self.message, details.unbind())),
                Err(e) => e,
            }
        })
    }
}

/// A bad argument (not a configuration key): `ValueError` on the Python side.
pub fn argument(message: &str) -> RunError {
    RunError::new("argument", message.to_string())
}

/// Something went wrong inside.
pub fn internal(message: &str) -> RunError {
    RunError::new("internal", message.to_string())
}

impl From<ConfigErrors> for RunError {
    fn from(errs: ConfigErrors) -> Self {
        let mut e = RunError::new("config", errs.to_string());
        for err in &errs.0 {
            match err {
                ConfigError::Key { key, .. } | ConfigError::Invalid { key, .. } => {
                    e.keys.push(key.clone())
                }
                ConfigError::Io { path, .. } => {
                    e.file.get_or_insert_with(|| path.clone());
                }
                ConfigError::BadOverride { arg } => {
                    let key = arg.split_once('=').map_or(arg.as_str(), |(k, _)| k);
                    e.keys.push(key.trim().to_string())
                }
                _ => {}
            }
        }
        e
    }
}

impl From<ConfigError> for RunError {
    fn from(err: ConfigError) -> Self {
        ConfigErrors::from(err).into()
    }
}

impl From<TraceError> for RunError {
    fn from(err: TraceError) -> Self {
        let mut e = RunError::new("trace", err.to_string());
        e.file = Some(err.path.display().to_string());
        e.line = (err.line > 0).then_some(err.line);
        e.field = err.field();
        e
    }
}

impl From<SimError> for RunError {
    fn from(err: SimError) -> Self {
        match err {
            SimError::Config(c) => c.into(),
            SimError::Trace(t) => t.into(),
            other => {
                let kind = if other.is_bad_input() {
                    "input"
                } else {
                    "simulation"
                };
                RunError::new(kind, other.to_string())
            }
        }
    }
}
