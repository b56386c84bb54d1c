//! [`RaidLevel`] and its serde form: the integers 0, 1, 4, 5 or the string `"none"`.

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;

/// The RAID level of the layer (`raid.level`).
///
/// In a config file it is one of the integers `0`, `1`, `4`, `5` or the string `"none"`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum RaidLevel {
    /// No RAID layer at all (the default): the controller places pages as it would without
    /// one.
    #[default]
    None,
    /// RAID-0: striping without redundancy. Placement is the same as [`RaidLevel::None`]
    /// (every member holds data); a failed member loses its data.
    Raid0,
    /// RAID-1: group position `j + G/2` mirrors position `j` (CR1 at channel level).
    Raid1,
    /// RAID-4: one parity chunk per stripe, always on the group's last member (CR4).
    Raid4,
    /// RAID-5: one parity chunk per stripe, rotating over the group's members (BRR, CR5).
    Raid5,
}

impl RaidLevel {
    /// The level's number, `None` for [`RaidLevel::None`].
    pub fn number(self) -> Option<u8> {
        match self {
            RaidLevel::None => None,
            RaidLevel::Raid0 => Some(0),
            RaidLevel::Raid1 => Some(1),
            RaidLevel::Raid4 => Some(4),
            RaidLevel::Raid5 => Some(5),
        }
    }

    /// The level with that number, if it is one we model.
    pub fn from_number(n: u64) -> Option<RaidLevel> {
        match n {
            0 => Some(RaidLevel::Raid0),
            1 => Some(RaidLevel::Raid1),
            4 => Some(RaidLevel::Raid4),
            5 => Some(RaidLevel::Raid5),
            _ => None,
        }
    }

    /// Whether a stripe carries a parity chunk (RAID-4 and RAID-5).
    pub fn has_parity(self) -> bool {
        matches!(self, RaidLevel::Raid4 | RaidLevel::Raid5)
    }

    /// Whether the level survives the loss of one member (RAID-1, 4 and 5).
    pub fn is_redundant(self) -> bool {
        matches!(self, RaidLevel::Raid1 | RaidLevel::Raid4 | RaidLevel::Raid5)
    }
}

impl fmt::Display for RaidLevel {
    /// `none`, `RAID-0`, `RAID-1`, `RAID-4` or `RAID-5`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.number() {
            None => f.write_str("none"),
            Some(n) => write!(f, "RAID-{n}"),
        }
    }
}

impl Serialize for RaidLevel {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.number() {
            None => s.serialize_str("none"),
            Some(n) => s.serialize_u8(n),
        }
    }
}

const EXPECTED: &str = "0, 1, 4, 5 or \"none\"";

struct LevelVisitor;

impl Visitor<'_> for LevelVisitor {
    type Value = RaidLevel;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "raid.level: one of {EXPECTED}")
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<RaidLevel, E> {
        RaidLevel::from_number(v)
            .ok_or_else(|| E::custom(format!("raid.level must be {EXPECTED}, found {v}")))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<RaidLevel, E> {
        match u64::try_from(v) {
            Ok(u) => self.visit_u64(u),
            Err(_) => Err(E::custom(format!(
                "raid.level must be {EXPECTED}, found {v}"
            ))),
        }
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<RaidLevel, E> {
        if v == "none" {
            return Ok(RaidLevel::None);
        }
        match v.parse::<u64>().ok().and_then(RaidLevel::from_number) {
            Some(level) => Ok(level),
            None => Err(E::custom(format!(
                "raid.level must be {EXPECTED}, found {v:?}"
            ))),
        }
    }
}

impl<'de> Deserialize<'de> for RaidLevel {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<RaidLevel, D::Error> {
        d.deserialize_any(LevelVisitor)
    }
}

/// Its TOML form: one of the integers or the string `"none"`, each with its meaning (the
/// variants' documentation above).
impl schemars::JsonSchema for RaidLevel {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "RaidLevel".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "oneOf": [
                { "const": "none", "type": "string",
                  "description": "No RAID layer at all: the controller places pages as it would without one." },
                { "const": 0, "type": "integer",
                  "description": "RAID-0: striping without redundancy; a failed member loses its data." },
                { "const": 1, "type": "integer",
                  "description": "RAID-1: group position j + G/2 mirrors position j (CR1 at channel level)." },
                { "const": 4, "type": "integer",
                  "description": "RAID-4: one parity chunk per stripe, always on the group's last member (CR4)." },
                { "const": 5, "type": "integer",
                  "description": "RAID-5: one parity chunk per stripe, rotating over the group's members (BRR, CR5)." }
            ]
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_round_trip() {
        for level in [
            RaidLevel::Raid0,
            RaidLevel::Raid1,
            RaidLevel::Raid4,
            RaidLevel::Raid5,
        ] {
            let n = level.number().unwrap();
            assert_eq!(RaidLevel::from_number(u64::from(n)), Some(level));
        }
        assert_eq!(RaidLevel::None.number(), None);
        for n in [2, 3, 6, 10] {
            assert_eq!(RaidLevel::from_number(n), None);
        }
    }

    #[test]
    fn display_and_predicates() {
        assert_eq!(RaidLevel::None.to_string(), "none");
        assert_eq!(RaidLevel::Raid5.to_string(), "RAID-5");
        assert!(RaidLevel::Raid4.has_parity());
        assert!(!RaidLevel::Raid1.has_parity());
        assert!(RaidLevel::Raid1.is_redundant());
        assert!(!RaidLevel::Raid0.is_redundant());
        assert!(!RaidLevel::None.is_redundant());
    }

    /// The schema lists every level once, in the form the parser accepts.
    #[test]
    fn the_schema_lists_every_level_in_its_toml_form() {
        let schema = schemars::schema_for!(RaidLevel);
        let consts: Vec<RaidLevel> = schema
            .get("oneOf")
            .and_then(|v| v.as_array())
            .expect("oneOf")
            .iter()
            .map(|v| {
                let c = v.get("const").expect("const").clone();
                RaidLevel::deserialize(c).expect("the parser takes the schema's value")
            })
            .collect();
        assert_eq!(
            consts,
            [
                RaidLevel::None,
                RaidLevel::Raid0,
                RaidLevel::Raid1,
                RaidLevel::Raid4,
                RaidLevel::Raid5
            ]
        );
    }
}
