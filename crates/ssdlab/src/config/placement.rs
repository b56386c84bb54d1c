//! `[placement]`: when a written page's physical place is fixed.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `[placement]`: the placement seam's settings (see `crate::placement`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct PlacementConfig {
    /// When a host write's page is fixed: at admission (default) or when its die starts
    /// the program.
    pub bind: Bind,
}

/// `placement.bind`: when a host write's physical page is chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Bind {
    /// The placement policy picks the plane when the request is admitted and the FTL
    /// allocates the page at once (every simulator this one is compared with does so).
    #[default]
    Admission,
    /// The policy's choice fixes the die at admission; the plane and the page are chosen
    /// when the scheduler hands the program to that die, so programs queued for one die
    /// can be packed into one multi-plane operation (`scheduler.multi_plane`).
    Dispatch,
}
