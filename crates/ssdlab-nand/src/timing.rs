//! NAND timing parameters.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A timing value that cannot describe a real device.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TimingError {
    /// An array latency is zero.
    #[error("timing.{key} must be greater than 0")]
    Zero {
        /// The offending key.
        key: &'static str,
    },
}

/// When a host-visible program (a host page, its mirror copy, its stripe's parity)
/// counts as done for the request that waits for it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum WriteAck {
    /// When the page is programmed: its transfer, then `t_prog` in the array.
    #[default]
    Program,
    /// When its data has crossed the channel bus into the die's register (SSDsim, the
    /// CR5M and DS-FTL papers' simulator); the die stays busy for `t_prog` afterwards.
    Transfer,
}

/// What a host request moves over the channel bus.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Transfer {
    /// Whole pages, whatever part of a page a request touches.
    #[default]
    Page,
    /// A host read moves only the 512-byte sectors it asks for of each page (ONFI's
    /// Change Read Column, SSDsim's sub-page transfer; the array still reads the whole
    /// page); with a DRAM stage, the host-DRAM transfer counts only the bytes a request
    /// moves. Programs move whole pages: a write of part of a page that holds other
    /// written sectors on flash reads the page first and merges it (a merge read),
    /// unless the controller holds a newer version of it.
    Sectors,
}

impl Transfer {
    /// The default, left out of the resolved configuration (and so of its hash).
    #[inline]
    pub fn is_page(&self) -> bool {
        *self == Transfer::Page
    }
}

/// Array and bus timing of one flash die and its channel.
///
/// Array times are per operation; `bus_ps_per_byte` is the channel's transfer time
/// per byte in picoseconds (25 ns/byte = 25 000 ps; a 400 MB/s bus = 2 500 ps), so
/// that the clock stays integer. `t_cmd_ns` is the command/address cycle time paid on
/// the bus before every operation (0 to ignore, as the papers do).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct NandTiming {
    /// Page read, array → register.
    #[schemars(range(min = 1))]
    pub t_read_ns: u64,
    /// Page program, register → array.
    #[schemars(range(min = 1))]
    pub t_prog_ns: u64,
    /// Block erase.
    #[schemars(range(min = 1))]
    pub t_erase_ns: u64,
    /// Channel transfer time per byte, in picoseconds.
    pub bus_ps_per_byte: u64,
    /// Command and address cycles on the bus per operation.
    pub t_cmd_ns: u64,
    /// When a write's page counts as done for its request.
    pub write_ack: WriteAck,
    /// What a host request moves over the channel bus.
    ///
    /// Written out in the resolved configuration (and so part of its hash) only when it
    /// is not the default.
    #[serde(skip_serializing_if = "Transfer::is_page")]
    #[schemars(extend("default" = "page"))]
    pub transfer: Transfer,
}

impl Default for NandTiming {
    /// MLC-class timing as in the BRR and DGC papers (25 µs / 200 µs / 1.5 ms) with a
    /// 400 MB/s channel.
    fn default() -> Self {
        NandTiming {
            t_read_ns: 25_000,
            t_prog_ns: 200_000,
            t_erase_ns: 1_500_000,
            bus_ps_per_byte: 2_500,
            t_cmd_ns: 0,
            write_ack: WriteAck::Program,
            transfer: Transfer::Page,
        }
    }
}

impl NandTiming {
    /// Checks every field; returns all problems, each naming its key.
    pub fn validate(&self) -> Vec<TimingError> {
        let mut errs = Vec::new();
        for (key, v) in [
            ("t_read_ns", self.t_read_ns),
            ("t_prog_ns", self.t_prog_ns),
            ("t_erase_ns", self.t_erase_ns),
        ] {
            if v == 0 {
                errs.push(TimingError::Zero { key });
            }
        }
        errs
    }

    /// Bus time of one page of `page_size_bytes`, command cycles included.
    #[inline]
    pub fn page_transfer_ns(&self, page_size_bytes: u32) -> u64 {
        self.bytes_transfer_ns(u64::from(page_size_bytes))
    }

    /// Bus time of `bytes` of one page, command cycles included (a read that moves part
    /// of its page, `transfer = "sectors"`).
    #[inline]
    pub fn bytes_transfer_ns(&self, bytes: u64) -> u64 {
        crate::Geometry::transfer_ns(bytes, self.bus_ps_per_byte) + self.t_cmd_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_validate_and_zero_is_named() {
        assert!(NandTiming::default().validate().is_empty());
        let t = NandTiming {
            t_prog_ns: 0,
            ..NandTiming::default()
        };
        assert_eq!(t.validate(), vec![TimingError::Zero { key: "t_prog_ns" }]);
        assert_eq!(NandTiming::default().page_transfer_ns(4096), 10_240);
        let t = NandTiming {
            t_cmd_ns: 100,
            ..NandTiming::default()
        };
        assert_eq!(t.bytes_transfer_ns(512), 1_280 + 100);
        assert_eq!(t.bytes_transfer_ns(16_384), t.page_transfer_ns(16_384));
    }
}
