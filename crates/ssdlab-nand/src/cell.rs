//! Cell types and page types: how many bits a cell holds, which page of a wordline a
//! page is, and what its array operations cost (docs/NAND.md).
//!
//! A cell of `n` bits stores `n` pages on one wordline: the LSB (lower), for TLC the
//! CSB (centre), the MSB (upper) and for QLC the TSB (top). Reading the LSB page senses
//! fewer thresholds than the others, so read latency grows with the page type; a
//! program is either per page (each page type its own program time, MQSim's model) or
//! one shot per wordline (3D TLC/QLC: the wordline's pages are programmed together once
//! all of them are in the page buffer).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Bits stored per cell.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CellType {
    /// One bit per cell: one page type (`timing.t_read_ns`, `t_prog_ns`).
    #[default]
    Slc,
    /// Two bits: LSB and MSB pages.
    Mlc,
    /// Three bits: LSB, CSB and MSB pages.
    Tlc,
    /// Four bits: LSB, CSB, MSB and TSB pages.
    Qlc,
}

impl CellType {
    /// Bits per cell: the number of page types, and of pages per wordline.
    #[inline]
    pub fn bits(self) -> u32 {
        match self {
            CellType::Slc => 1,
            CellType::Mlc => 2,
            CellType::Tlc => 3,
            CellType::Qlc => 4,
        }
    }

    /// The configuration name.
    pub fn name(self) -> &'static str {
        match self {
            CellType::Slc => "slc",
            CellType::Mlc => "mlc",
            CellType::Tlc => "tlc",
            CellType::Qlc => "qlc",
        }
    }

    /// The names of its page types, in page-type order.
    pub fn page_type_names(self) -> &'static [&'static str] {
        match self {
            CellType::Slc => &["slc"],
            CellType::Mlc => &["lsb", "msb"],
            CellType::Tlc => &["lsb", "csb", "msb"],
            CellType::Qlc => &["lsb", "csb", "msb", "tsb"],
        }
    }
}

/// How a page's index in its block gives its page type and wordline.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum PageOrder {
    /// Consecutive pages fill one wordline: page `p` is type `p % bits` of wordline
    /// `p / bits`, the order of one-shot programmed 3D TLC/QLC parts.
    #[default]
    Wordline,
    /// MQSim's order (`Flash_Chip::Get_command_execution_latency`): MLC `p % 2`; TLC
    /// after Yaakobi et al. (ICNC 2012) pages 0-5 LSB, 6-7 CSB, then
    /// `((p - 8) / 2) % 3`, the shadow order of 2D parts. Per-page programs only; not
    /// defined for QLC.
    Mqsim,
}

/// How a program is timed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ProgramModel {
    /// Each page is programmed on its own, in its page type's time (MQSim, FEMU).
    #[default]
    PerPage,
    /// A wordline's pages wait in the die's page buffer until its last page has
    /// arrived; one program of `t_prog_ns_by_type`'s last entry then writes them all,
    /// and they complete together (needs `page_order = "wordline"`).
    OneShot,
}

/// The NAND section (`[nand]`): cell type, page order, program model, the
/// per-page-type latencies and the suspend capability. The default is SLC with `timing`'s read, program and erase
/// times, exactly the model without this section.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct NandConfig {
    /// Bits per cell.
    pub cell: CellType,
    /// Which page type and wordline a page is, from its index in the block.
    pub page_order: PageOrder,
    /// Per page, or one shot per wordline.
    pub program: ProgramModel,
    /// Read time per page type (LSB first), ns; empty: `timing.t_read_ns` for every
    /// type. Its length must be the cell type's bits per cell.
    pub t_read_ns_by_type: Vec<u64>,
    /// Program time per page type (LSB first), ns; one-shot: the wordline's program
    /// time is the last entry. Empty: `timing.t_prog_ns` for every type.
    pub t_prog_ns_by_type: Vec<u64>,
    /// Block erase time of this cell type, ns; 0: `timing.t_erase_ns`.
    pub t_erase_ns: u64,
    /// Program/erase suspend, used when `scheduler.suspend` is not `"off"`.
    pub suspend: crate::SuspendConfig,
    /// The SLC cache: blocks used in SLC mode for host writes, folded later. Written out
    /// only when a key is set, so that a configuration without it keeps its text.
    #[serde(skip_serializing_if = "crate::SlcCacheConfig::is_default")]
    pub slc_cache: crate::SlcCacheConfig,
    /// ONFI cache operations: `"off"`, `"read"` (READ CACHE 31h/3Fh: the next read's
    /// array time overlaps the previous page's transfer), `"program"` (PAGE PROGRAM
    /// CACHE 15h: the next page's transfer overlaps the current program) or `"both"`.
    /// Refused with `scheduler.suspend` for programs, and with the `sync-fifo`, `vaq`
    /// and `paq` schedulers. Written out only when not `"off"`.
    #[serde(skip_serializing_if = "crate::CacheMode::is_off")]
    #[schemars(extend("default" = "off"))]
    pub cache_mode: crate::CacheMode,
    /// Time a read page takes to move from the data register into the cache register
    /// with cache read (ONFI's tDCBSYR), ns; 0: no time. Written out only when set.
    #[serde(skip_serializing_if = "crate::cache::is_zero")]
    #[schemars(extend("default" = 0))]
    pub t_cache_read_ns: u64,
    /// Time a page's data takes to move from the cache register into the data register
    /// when a cache program starts after the previous one (ONFI's tCBSY), ns; 0: no
    /// time. Written out only when set.
    #[serde(skip_serializing_if = "crate::cache::is_zero")]
    #[schemars(extend("default" = 0))]
    pub t_cache_prog_ns: u64,
}

/// A cell-type setting that cannot describe a device.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("nand.{key}: {message}")]
pub struct CellError {
    /// The offending key under `nand.`.
    pub key: &'static str,
    /// What is wrong.
    pub message: String,
}

impl NandConfig {
    /// Every key at its default: left out of the resolved configuration (and so of its
    /// hash).
    pub fn is_default(&self) -> bool {
        *self == NandConfig::default()
    }

    /// True when the section changes nothing: SLC, per-page programs and the `timing`
    /// times (a list of one entry equal to them included is not "nothing": it is read).
    pub fn is_default_slc(&self) -> bool {
        self.cell == CellType::Slc
            && self.program == ProgramModel::PerPage
            && self.t_read_ns_by_type.is_empty()
            && self.t_prog_ns_by_type.is_empty()
            && self.t_erase_ns == 0
            && !self.slc_cache.is_on()
    }

    /// Checks the section against `pages_per_block`; returns every problem.
    pub fn validate(&self, pages_per_block: u32) -> Vec<CellError> {
        let mut errs = Vec::new();
        let bits = self.cell.bits();
        for (key, list) in [
            ("t_read_ns_by_type", &self.t_read_ns_by_type),
            ("t_prog_ns_by_type", &self.t_prog_ns_by_type),
        ] {
            if !list.is_empty() && list.len() != bits as usize {
                errs.push(CellError {
                    key,
                    message: format!(
                        "{} holds {} values, but a {} cell has {bits} page types ({}): give one per page type or none",
                        key,
                        list.len(),
                        self.cell.name(),
                        self.cell.page_type_names().join(", ")
                    ),
                });
            }
            if list.contains(&0) {
                errs.push(CellError {
                    key,
                    message: "every value must be greater than 0".into(),
                });
            }
        }
        if !pages_per_block.is_multiple_of(bits) {
            errs.push(CellError {
                key: "cell",
                message: format!(
                    "a {} block holds whole wordlines of {bits} pages: geometry.pages_per_block = {pages_per_block} is not a multiple of {bits}",
                    self.cell.name()
                ),
            });
        }
        if self.page_order == PageOrder::Mqsim && self.cell == CellType::Qlc {
            errs.push(CellError {
                key: "page_order",
                message: "MQSim's order is defined for MLC and TLC only: use \"wordline\"".into(),
            });
        }
        if self.program == ProgramModel::OneShot && self.page_order != PageOrder::Wordline {
            errs.push(CellError {
                key: "program",
                message: "\"one-shot\" programs whole wordlines of consecutive pages: set nand.page_order = \"wordline\"".into(),
            });
        }
        self.validate_cache(&mut errs);
        errs
    }

    /// The page type (0 = LSB) of the page at `page` in its block.
    #[inline]
    pub fn page_type(&self, page: u32) -> u32 {
        let bits = self.cell.bits();
        match (self.page_order, self.cell) {
            (_, CellType::Slc) => 0,
            (PageOrder::Wordline, _) | (PageOrder::Mqsim, CellType::Qlc) => page % bits,
            (PageOrder::Mqsim, CellType::Mlc) => page % 2,
            (PageOrder::Mqsim, CellType::Tlc) => match page {
                0..=5 => 0,
                6..=7 => 1,
                p => ((p - 8) >> 1) % 3,
            },
        }
    }

    /// True when the page at `page` is the last of its wordline to arrive (one-shot
    /// programs start with it): its type is the highest.
    #[inline]
    pub fn closes_wordline(&self, page: u32) -> bool {
        page % self.cell.bits() == self.cell.bits() - 1
    }

    /// The wordline of the page at `page` in its block (`page_order = "wordline"`).
    #[inline]
    pub fn wordline(&self, page: u32) -> u32 {
        page / self.cell.bits()
    }

    /// Read time per page type, ns, with `t_read_ns` standing in for an empty list.
    pub fn read_ns(&self, t_read_ns: u64) -> Vec<u64> {
        self.by_type(&self.t_read_ns_by_type, t_read_ns)
    }

    /// Program time per page type, ns, with `t_prog_ns` standing in for an empty list.
    pub fn prog_ns(&self, t_prog_ns: u64) -> Vec<u64> {
        self.by_type(&self.t_prog_ns_by_type, t_prog_ns)
    }

    /// The erase time, ns, with `t_erase_ns` standing in for 0.
    pub fn erase_ns(&self, t_erase_ns: u64) -> u64 {
        if self.t_erase_ns == 0 {
            t_erase_ns
        } else {
            self.t_erase_ns
        }
    }

    fn by_type(&self, list: &[u64], uniform: u64) -> Vec<u64> {
        if list.is_empty() {
            vec![uniform; self.cell.bits() as usize]
        } else {
            list.to_vec()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(cell: CellType, page_order: PageOrder) -> NandConfig {
        NandConfig {
            cell,
            page_order,
            ..NandConfig::default()
        }
    }

    #[test]
    fn wordline_order_cycles_through_the_page_types() {
        let c = cfg(CellType::Tlc, PageOrder::Wordline);
        let types: Vec<u32> = (0..9).map(|p| c.page_type(p)).collect();
        assert_eq!(types, [0, 1, 2, 0, 1, 2, 0, 1, 2]);
        assert_eq!((c.wordline(5), c.wordline(6)), (1, 2));
        assert!(c.closes_wordline(2) && c.closes_wordline(5) && !c.closes_wordline(4));
        let q = cfg(CellType::Qlc, PageOrder::Wordline);
        assert_eq!(q.page_type(7), 3);
        assert_eq!(cfg(CellType::Slc, PageOrder::Mqsim).page_type(7), 0);
        assert!(cfg(CellType::Slc, PageOrder::Wordline).closes_wordline(5));
    }

    #[test]
    fn mqsim_order_is_its_tlc_shadow_order() {
        let c = cfg(CellType::Tlc, PageOrder::Mqsim);
        let types: Vec<u32> = (0..16).map(|p| c.page_type(p)).collect();
        assert_eq!(types, [0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 0, 0]);
        let m = cfg(CellType::Mlc, PageOrder::Mqsim);
        assert_eq!((m.page_type(4), m.page_type(5)), (0, 1));
    }

    #[test]
    fn empty_lists_take_the_timing_values() {
        let c = cfg(CellType::Tlc, PageOrder::Wordline);
        assert_eq!(c.read_ns(25_000), vec![25_000; 3]);
        assert_eq!(c.erase_ns(1_500_000), 1_500_000);
        let c = NandConfig {
            t_read_ns_by_type: vec![1, 2, 3],
            t_erase_ns: 9,
            ..c
        };
        assert_eq!(c.read_ns(25_000), vec![1, 2, 3]);
        assert_eq!(c.erase_ns(1_500_000), 9);
        assert!(NandConfig::default().is_default_slc());
        assert!(!c.is_default_slc());
    }

    #[test]
    fn a_list_of_the_wrong_length_is_named() {
        let c = NandConfig {
            cell: CellType::Tlc,
            t_read_ns_by_type: vec![50_000, 70_000],
            t_prog_ns_by_type: vec![1, 0, 3],
            ..NandConfig::default()
        };
        let errs = c.validate(384);
        assert_eq!(errs.len(), 2, "{errs:?}");
        assert_eq!(errs[0].key, "t_read_ns_by_type");
        assert!(errs[0].to_string().contains("lsb, csb, msb"), "{}", errs[0]);
        assert_eq!(errs[1].key, "t_prog_ns_by_type");
        let keys =
            |c: &NandConfig, ppb| -> Vec<&str> { c.validate(ppb).iter().map(|e| e.key).collect() };
        let tlc = cfg(CellType::Tlc, PageOrder::Wordline);
        assert_eq!(keys(&tlc, 64), ["cell"]);
        assert!(keys(&tlc, 63).is_empty());
        assert_eq!(
            keys(&cfg(CellType::Qlc, PageOrder::Mqsim), 64),
            ["page_order"]
        );
        let shadow = NandConfig {
            program: ProgramModel::OneShot,
            ..cfg(CellType::Tlc, PageOrder::Mqsim)
        };
        assert_eq!(keys(&shadow, 63), ["program"]);
    }
}
