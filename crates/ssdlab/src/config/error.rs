//! Configuration errors: one problem, or all of them at once.

use crate::presets;
use std::fmt;

/// A configuration problem, naming the key (or file) it concerns.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The TOML could not be parsed.
    #[error("{source_name}: {message}")]
    Syntax {
        /// File name or preset name.
        source_name: String,
        /// The parser's message.
        message: String,
    },
    /// A key is unknown or has the wrong type.
    #[error("{source_name}: key `{key}`: {message}")]
    Key {
        /// File name or preset name.
        source_name: String,
        /// Full dotted path of the key.
        key: String,
        /// What is wrong.
        message: String,
    },
    /// A value is inconsistent with the rest of the configuration.
    #[error("key `{key}`: {message}")]
    Invalid {
        /// Full dotted path of the key.
        key: String,
        /// What is wrong.
        message: String,
    },
    /// No preset by that name.
    #[error("unknown preset `{name}`; presets: {}", presets::NAMES.join(", "))]
    UnknownPreset {
        /// The requested name.
        name: String,
    },
    /// A `--set` argument is not `key=value`.
    #[error("--set `{arg}`: expected KEY=VALUE, e.g. --set scheduler.chip_queue_depth=32")]
    BadOverride {
        /// The argument as given.
        arg: String,
    },
    /// The configuration file could not be read.
    #[error("{path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// The OS error.
        message: String,
    },
}

/// Several configuration problems at once (all of them, so a user fixes them in one go).
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigErrors(pub Vec<ConfigError>);

impl fmt::Display for ConfigErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ConfigErrors {}

impl From<ConfigError> for ConfigErrors {
    fn from(e: ConfigError) -> Self {
        ConfigErrors(vec![e])
    }
}
