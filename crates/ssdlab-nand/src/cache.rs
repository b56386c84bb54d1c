//! ONFI cache read and cache program (docs/NAND.md, "Cache read and cache program"):
//! which cache operations the die uses and how long a page takes to move between its
//! data register and its cache register.
//!
//! A die has a data register, which the array reads into and programs from, and a
//! cache register, which the channel bus fills and drains. With cache read (ONFI READ
//! CACHE SEQUENTIAL 31h, READ CACHE RANDOM 00h-31h, READ CACHE END 3Fh) a read page
//! moves into the cache register and crosses the bus while the array reads the next
//! page; with cache program (PAGE PROGRAM CACHE 80h-15h) the next page crosses the bus
//! into the cache register while the array programs the current one.

use crate::{CellError, NandConfig};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Which ONFI cache operations the die uses (`nand.cache_mode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CacheMode {
    /// None: each read holds the die until its pages have crossed the bus, each program
    /// until its data has (the model without cache operations).
    #[default]
    Off,
    /// Cache read only.
    Read,
    /// Cache program only.
    Program,
    /// Cache read and cache program.
    Both,
}

impl CacheMode {
    /// The default, left out of the resolved configuration (and so of its hash).
    #[inline]
    pub fn is_off(&self) -> bool {
        *self == CacheMode::Off
    }

    /// True when reads use the cache register.
    #[inline]
    pub fn reads(self) -> bool {
        matches!(self, CacheMode::Read | CacheMode::Both)
    }

    /// True when programs use the cache register.
    #[inline]
    pub fn programs(self) -> bool {
        matches!(self, CacheMode::Program | CacheMode::Both)
    }

    /// The configuration name.
    pub fn name(self) -> &'static str {
        match self {
            CacheMode::Off => "off",
            CacheMode::Read => "read",
            CacheMode::Program => "program",
            CacheMode::Both => "both",
        }
    }
}

/// True for a register move time left at its default (0: the move takes no time).
#[inline]
pub(crate) fn is_zero(ns: &u64) -> bool {
    *ns == 0
}

impl NandConfig {
    /// The cache keys' problems: a move time set for a cache operation the die does not
    /// use is configured but never read, and refused.
    pub(crate) fn validate_cache(&self, errs: &mut Vec<CellError>) {
        for (key, set, used, wants) in [
            (
                "t_cache_read_ns",
                self.t_cache_read_ns != 0,
                self.cache_mode.reads(),
                "\"read\" or \"both\"",
            ),
            (
                "t_cache_prog_ns",
                self.t_cache_prog_ns != 0,
                self.cache_mode.programs(),
                "\"program\" or \"both\"",
            ),
        ] {
            if set && !used {
                errs.push(CellError {
                    key,
                    message: format!(
                        "is set while nand.cache_mode = \"{}\", which never uses it: set \
                         nand.cache_mode = {wants}, or leave nand.{key} out",
                        self.cache_mode.name()
                    ),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_name_their_operations() {
        let all = [
            CacheMode::Off,
            CacheMode::Read,
            CacheMode::Program,
            CacheMode::Both,
        ];
        let ops: Vec<(bool, bool)> = all.iter().map(|m| (m.reads(), m.programs())).collect();
        assert_eq!(
            ops,
            [(false, false), (true, false), (false, true), (true, true)]
        );
        let names: Vec<&str> = all.iter().map(|m| m.name()).collect();
        assert_eq!(names, ["off", "read", "program", "both"]);
        assert!(CacheMode::default().is_off());
    }

    #[test]
    fn a_move_time_without_its_operation_is_refused_by_key() {
        let keys = |c: &NandConfig| -> Vec<&str> { c.validate(64).iter().map(|e| e.key).collect() };
        let c = NandConfig {
            t_cache_read_ns: 3_000,
            t_cache_prog_ns: 3_000,
            ..NandConfig::default()
        };
        assert_eq!(keys(&c), ["t_cache_read_ns", "t_cache_prog_ns"]);
        let read = NandConfig {
            cache_mode: CacheMode::Read,
            ..c.clone()
        };
        assert_eq!(keys(&read), ["t_cache_prog_ns"]);
        let e = read.validate(64).remove(0).to_string();
        assert!(
            e.starts_with("nand.t_cache_prog_ns: is set while nand.cache_mode = \"read\""),
            "{e}"
        );
        let both = NandConfig {
            cache_mode: CacheMode::Both,
            ..c
        };
        assert!(keys(&both).is_empty());
    }
}
