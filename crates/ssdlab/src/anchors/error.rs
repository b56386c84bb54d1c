//! Import errors: each names the file, where in it (an SSDsim line, an MQSim element)
//! and the parameter.

use std::fmt;

/// Where a parameter sits in its file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Loc {
    /// A line of an SSDsim `page.parameters` (1-based).
    Line(u32),
    /// An element of an MQSim XML file: its path from the root and its line.
    Element {
        /// `Device_Parameter_Set/Flash_Parameter_Set/Page_Capacity`.
        path: String,
        /// 1-based line of the element's start tag.
        line: u32,
    },
    /// Not in the file: the simulator's built-in default was used.
    Default,
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Loc::Line(n) => write!(f, "line {n}"),
            Loc::Element { path, line } => write!(f, "line {line}, element <{path}>"),
            Loc::Default => write!(f, "(absent: the simulator's default)"),
        }
    }
}

/// Why a device file could not be imported.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    /// Neither an MQSim device file nor an SSDsim `page.parameters`.
    #[error("{file}: unknown format: {why} (expected an MQSim device file, XML with <Execution_Parameter_Set>, or an SSDsim page.parameters, lines `name = value;`)")]
    UnknownFormat {
        /// The file.
        file: String,
        /// What was found instead.
        why: String,
    },
    /// The file's syntax is broken (XML error, a line that is not `name = value;`,
    /// a parameter given twice, an element in the wrong section).
    #[error("{file}: {loc}: {message}")]
    Malformed {
        /// The file.
        file: String,
        /// Where.
        loc: Box<Loc>,
        /// What is wrong.
        message: String,
    },
    /// A parameter the device cannot be described without is absent.
    #[error("{file}: missing parameter `{name}` ({simulator} has no usable default for it)")]
    Missing {
        /// The file.
        file: String,
        /// `MQSim` or `SSDsim`.
        simulator: &'static str,
        /// The parameter.
        name: String,
    },
    /// A value that is not a number, not one of the allowed words, or out of range.
    #[error("{file}: {loc}: `{name}` = {value:?}: {expected}")]
    BadValue {
        /// The file.
        file: String,
        /// Where.
        loc: Box<Loc>,
        /// The parameter.
        name: String,
        /// The value as written.
        value: String,
        /// What was expected.
        expected: String,
    },
    /// The imported configuration fails ssdlab's own validation.
    #[error("{file}: the imported configuration is invalid: {message} (from {sources})")]
    Invalid {
        /// The file.
        file: String,
        /// ssdlab's message, naming its key.
        message: String,
        /// The source parameters of that key.
        sources: String,
    },
    /// `--strict`: parameters with no ssdlab counterpart that change the device's
    /// behaviour.
    #[error("{file}: --strict: {} parameter(s) change the device's behaviour and have no exact ssdlab counterpart:\n  {}", params.len(), params.join("\n  "))]
    Strict {
        /// The file.
        file: String,
        /// `NAME = VALUE — why`, one per parameter.
        params: Vec<String>,
    },
}
