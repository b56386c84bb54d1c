//! `[scheduler.merge]`: merging a new host read into an identical read already waiting
//! in its chip's queue (DS-FTL §4.3.2: "if there is a sub-request in the selected chip
//! queue that reads similar data, DS-FTL can merge the two sub-requests"). Off by
//! default. The mechanism is the controller's (`sim/merge.rs`); the settings are here so
//! that every scheduler, the baselines' included, can use it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Which waiting read a new read may join (`scheduler.merge.reads`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum MergeReads {
    /// Never: every read page is a flash read.
    #[default]
    Off,
    /// A read of the same physical page waiting in the same chip queue (SSDsim's
    /// built-in behaviour, `flash.c` `creat_sub_request`).
    SamePpn,
    /// A read of a page with the same content waiting in the same chip queue (DS-FTL's
    /// "similar data").
    SameContent,
}

/// When a merged read completes (`scheduler.merge.completion`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum MergeCompletion {
    /// With the read it joined, when that read's data has crossed the bus.
    #[default]
    WithLeader,
    /// `fixed_ns` after its admission, whatever the read it joined does (SSDsim
    /// completes such a read at `current_time + 1000` ns).
    FixedNs,
}

/// `[scheduler.merge]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct MergeConfig {
    /// Which waiting read a new read may join.
    pub reads: MergeReads,
    /// When a merged read completes.
    pub completion: MergeCompletion,
    /// `completion = "fixed-ns"`: its delay.
    pub fixed_ns: u64,
}

impl Default for MergeConfig {
    fn default() -> Self {
        MergeConfig {
            reads: MergeReads::Off,
            completion: MergeCompletion::WithLeader,
            fixed_ns: 1_000,
        }
    }
}
