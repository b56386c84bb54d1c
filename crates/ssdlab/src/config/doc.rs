//! The configuration reference, read from the configuration types themselves.
//!
//! Every section and key of [`SimConfig`] comes with its doc comment, type, default and
//! allowed values through its JSON Schema: the types derive `schemars::JsonSchema`, which
//! takes each description from the doc comment and honours serde's renames, defaults and
//! enums; the two types with serde impls of their own (`raid.level`, `ftl.static_order`)
//! state their TOML form by hand beside those impls. Ranges come from `range(...)`
//! attributes on the fields that `validate()` bounds (a test checks that the value just
//! outside each is refused with its key named), units from an `x-unit` note or else the
//! name's suffix (`_ns`, `_bytes`, ...). Nothing here is typed twice, so the reference
//! cannot drift from the code: `ssdlab config doc` and docs/CONFIG.md print it.

use super::SimConfig;
use serde_json::{Map, Value};

/// One section (`[ftl.gc]`) or key (`ftl.gc.victim`) of the configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyDoc {
    /// The full dotted path.
    pub key: String,
    /// True for a section (a TOML table), false for a key that takes a value.
    pub section: bool,
    /// What it means: the doc comment, one string per paragraph.
    pub description: Vec<String>,
    /// The TOML type (`integer`, `float`, `boolean`, `string`, ...); empty for a section.
    pub ty: String,
    /// The built-in default as a TOML value (`"greedy"`, `0.05`); none for a section.
    pub default: Option<String>,
    /// The unit of a number, if it has one.
    pub unit: Option<String>,
    /// The bounds `validate()` enforces, in words (`[0, 1)`, `>= 1`), if bounded.
    pub range: Option<String>,
    /// A further rule `validate()` enforces (`a power of two`, `>= threshold_free_ratio`).
    pub constraint: Option<String>,
    /// The lower bound of a number, if it has one beyond its type's.
    pub min: Option<Bound>,
    /// The upper bound of a number, if it has one beyond its type's.
    pub max: Option<Bound>,
    /// The allowed values with their meanings, for a key that takes one of a list.
    pub values: Vec<ValueDoc>,
}

/// A bound of a number.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bound {
    /// The bound (an integer's above 2^53 rounded: see [`Bound::exact`]).
    pub value: f64,
    /// The bound when it is an integer, exactly.
    pub exact: Option<i128>,
    /// Whether the bound itself is allowed.
    pub inclusive: bool,
}

impl std::fmt::Display for Bound {
    /// An integer as an integer (`1`, `9223372036854775807`), a fraction as itself.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.exact {
            Some(n) => write!(f, "{n}"),
            None => write!(f, "{}", self.value),
        }
    }
}

/// One allowed value of a key and what it means.
#[derive(Clone, Debug, PartialEq)]
pub struct ValueDoc {
    /// The value as TOML (`"greedy"`, `5`).
    pub value: String,
    /// Its doc comment, one string per paragraph (empty when it has none).
    pub description: Vec<String>,
}

impl KeyDoc {
    /// The first sentence of the description: the key's meaning in one line.
    pub fn summary(&self) -> String {
        let first = self.description.first().map_or("", String::as_str);
        match first.find(". ") {
            Some(i) => first[..=i].to_string(),
            None => first.to_string(),
        }
    }
}

/// Units of names that end in them; an `x-unit` note in the schema wins.
const SUFFIX_UNITS: &[(&str, &str)] = &[
    ("_ps_per_byte", "ps per byte"),
    ("_bits_per_page", "bits per page"),
    ("_mib_s", "MiB/s"),
    ("_ns", "ns"),
    ("_bytes", "bytes"),
    ("_blocks", "blocks"),
    ("_chips", "chips"),
    ("_planes", "planes"),
    ("_txns", "transactions"),
    ("_writes", "writes"),
    ("_ratio", "fraction"),
];

/// Every section and key of the configuration, in the order of `ssdlab config show`: a
/// table's own keys first, then its sub-tables, each followed by its keys.
pub fn reference() -> Vec<KeyDoc> {
    let schema = schemars::schema_for!(SimConfig);
    let root = schema.as_value();
    let defs = root
        .get("$defs")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut out = Vec::new();
    walk("", root, &defs, &mut out);
    out
}

/// The entry of one key or section, if there is one.
pub fn lookup(key: &str) -> Option<KeyDoc> {
    reference().into_iter().find(|d| d.key == key)
}

fn walk(prefix: &str, table: &Value, defs: &Map<String, Value>, out: &mut Vec<KeyDoc>) {
    let Some(props) = table.get("properties").and_then(Value::as_object) else {
        return;
    };
    let path = |name: &str| {
        if prefix.is_empty() {
            name.to_string()
        } else {
            format!("{prefix}.{name}")
        }
    };
    let mut sections = Vec::new();
    for (name, prop) in props {
        let target = resolve(prop, defs);
        if target.get("properties").is_some() {
            sections.push((name, prop, target));
        } else {
            out.push(value_doc(&path(name), name, prop, target));
        }
    }
    for (name, prop, target) in sections {
        let key = path(name);
        let mut description = paragraphs(prop.get("description"));
        for p in paragraphs(target.get("description")) {
            let p = without_table_name(&p);
            let same = |d: &String| {
                d.trim_end_matches('.')
                    .eq_ignore_ascii_case(p.trim_end_matches('.'))
            };
            if !p.is_empty() && !description.iter().any(same) {
                description.push(p);
            }
        }
        out.push(KeyDoc {
            key: key.clone(),
            section: true,
            description,
            ty: String::new(),
            default: None,
            unit: None,
            range: None,
            constraint: None,
            min: None,
            max: None,
            values: Vec::new(),
        });
        walk(&key, target, defs, out);
    }
}

/// The schema a property stands for: its `$ref` target, or itself.
fn resolve<'a>(prop: &'a Value, defs: &'a Map<String, Value>) -> &'a Value {
    prop.get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/$defs/"))
        .and_then(|name| defs.get(name))
        .unwrap_or(prop)
}

fn value_doc(key: &str, name: &str, prop: &Value, target: &Value) -> KeyDoc {
    let values = allowed_values(target);
    let mut description = paragraphs(prop.get("description"));
    // The TOML form of a type with serde impls of its own (the form of an enum is its
    // list of values).
    if values.iter().all(|v| v.description.is_empty()) && prop.get("$ref").is_some() {
        description.extend(paragraphs(target.get("description")));
    }
    let note = |k: &str| {
        prop.get(k)
            .or_else(|| target.get(k))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let ty = type_name(target);
    let number = ty == "integer" || ty == "float";
    let unit = note("x-unit").or_else(|| {
        SUFFIX_UNITS
            .iter()
            .find(|(suffix, _)| number && name.ends_with(suffix))
            .map(|(_, unit)| unit.to_string())
    });
    let (min, max) = bounds(target);
    KeyDoc {
        key: key.to_string(),
        section: false,
        description,
        ty,
        default: prop.get("default").map(toml_literal),
        unit,
        range: range_words(min, max),
        constraint: note("x-constraint"),
        min,
        max,
        values,
    }
}

/// The doc comment as paragraphs, each one line, with rustdoc's link brackets taken off
/// (`` [`Foo`] `` reads `` `Foo` ``).
fn paragraphs(description: Option<&Value>) -> Vec<String> {
    let text = description.and_then(Value::as_str).unwrap_or("");
    text.split("\n\n")
        .map(|p| {
            p.split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .replace("[`", "`")
                .replace("`]", "`")
        })
        .filter(|p| !p.is_empty())
        .collect()
}

/// A table type's description without the `` `[name]`: `` it opens with, capitalized.
fn without_table_name(p: &str) -> String {
    let rest = match p.strip_prefix("`[").and_then(|r| r.split_once("]`")) {
        Some((_, rest)) => rest.trim_start_matches([':', '.']).trim_start(),
        None => p,
    };
    let mut chars = rest.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// A JSON value as the TOML value that means the same.
fn toml_literal(v: &Value) -> String {
    match v {
        Value::String(s) => toml::Value::String(s.clone()).to_string(),
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(toml_literal).collect();
            format!("[{}]", inner.join(", "))
        }
        Value::Number(n) if n.is_f64() => {
            let f = n.as_f64().unwrap_or(f64::NAN);
            toml::Value::Float(f).to_string()
        }
        // An inline table (an entry of an array of tables): `{ key = value, … }`.
        Value::Object(fields) => {
            let inner: Vec<String> = fields
                .iter()
                .map(|(k, v)| format!("{k} = {}", toml_literal(v)))
                .collect();
            format!("{{ {} }}", inner.join(", "))
        }
        other => other.to_string(),
    }
}

fn allowed_values(target: &Value) -> Vec<ValueDoc> {
    if let Some(one_of) = target.get("oneOf").and_then(Value::as_array) {
        return one_of
            .iter()
            .filter_map(|v| {
                Some(ValueDoc {
                    value: toml_literal(v.get("const")?),
                    description: paragraphs(v.get("description")),
                })
            })
            .collect();
    }
    if let Some(list) = target.get("enum").and_then(Value::as_array) {
        return list
            .iter()
            .map(|v| ValueDoc {
                value: toml_literal(v),
                description: Vec::new(),
            })
            .collect();
    }
    Vec::new()
}

fn type_name(target: &Value) -> String {
    let json_type = |v: &Value| -> String {
        match v.get("type").and_then(Value::as_str) {
            Some("number") => "float".to_string(),
            Some("array") => {
                let items = v.get("items").map_or(String::new(), |i| {
                    let t = i.get("type").and_then(Value::as_str).unwrap_or("value");
                    format!(" of {t}s")
                });
                format!("array{items}")
            }
            Some(t) => t.to_string(),
            None => "value".to_string(),
        }
    };
    if let Some(one_of) = target.get("oneOf").and_then(Value::as_array) {
        let mut types: Vec<String> = Vec::new();
        for t in one_of.iter().map(json_type) {
            if !types.contains(&t) {
                types.push(t);
            }
        }
        types.sort();
        return types.join(" or ");
    }
    json_type(target)
}

/// The bounds of a number as `validate()` enforces them, from the schema's `minimum`,
/// `exclusiveMinimum`, `maximum` and `exclusiveMaximum`; an unsigned integer's implied
/// minimum of 0 is left out.
fn bounds(v: &Value) -> (Option<Bound>, Option<Bound>) {
    let num = |k: &str| {
        let n = v.get(k)?;
        let value = n.as_f64()?;
        let whole = value.fract() == 0.0 && value.abs() < 2f64.powi(53);
        let exact = n
            .as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
            .or_else(|| whole.then_some(value as i128));
        Some((value, exact))
    };
    let bound = |inclusive: &str, exclusive: &str| match (num(inclusive), num(exclusive)) {
        (Some((value, exact)), _) => Some(Bound {
            value,
            exact,
            inclusive: true,
        }),
        (None, Some((value, exact))) => Some(Bound {
            value,
            exact,
            inclusive: false,
        }),
        (None, None) => None,
    };
    let unsigned = v
        .get("format")
        .and_then(Value::as_str)
        .is_some_and(|f| f.starts_with("uint"));
    let (min, max) = (
        bound("minimum", "exclusiveMinimum"),
        bound("maximum", "exclusiveMaximum"),
    );
    let implied = min.is_some_and(|b| unsigned && b.value == 0.0 && b.inclusive);
    (if implied && max.is_none() { None } else { min }, max)
}

/// Bounds in words: `[0, 1)`, `>= 1`, `> 0`.
fn range_words(min: Option<Bound>, max: Option<Bound>) -> Option<String> {
    match (min, max) {
        (Some(l), Some(h)) => Some(format!(
            "{}{}, {}{}",
            if l.inclusive { "[" } else { "(" },
            l,
            h,
            if h.inclusive { "]" } else { ")" }
        )),
        (Some(l), None) => Some(format!(
            "{} {}",
            if l.inclusive { ">=" } else { ">" },
            l.value
        )),
        (None, Some(h)) => Some(format!(
            "{} {}",
            if h.inclusive { "<=" } else { "<" },
            h.value
        )),
        (None, None) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{ConfigBuilder, ConfigError};

    /// Every key of a TOML table as dotted paths, sections apart.
    fn paths(prefix: &str, t: &toml::Table, keys: &mut Vec<String>, sections: &mut Vec<String>) {
        for (k, v) in t {
            let path = if prefix.is_empty() {
                k.clone()
            } else {
                format!("{prefix}.{k}")
            };
            match v {
                toml::Value::Table(inner) => {
                    sections.push(path.clone());
                    paths(&path, inner, keys, sections);
                }
                _ => keys.push(path),
            }
        }
    }

    /// The default configuration with every key, those written only when set too (in
    /// their place: written by a configuration that sets each, then given back their
    /// defaults).
    fn default_table() -> toml::Table {
        let plain: toml::Table = SimConfig::default().to_toml().parse().unwrap();
        let mut cfg = SimConfig::default();
        cfg.timing.transfer = ssdlab_nand::Transfer::Sectors;
        cfg.scheduler.suspend = crate::sched::SuspendPolicy::Reads;
        cfg.nand.cell = ssdlab_nand::CellType::Mlc;
        cfg.nand.slc_cache.mode = ssdlab_nand::SlcMode::Dynamic;
        cfg.nand.cache_mode = ssdlab_nand::CacheMode::Both;
        cfg.nand.t_cache_read_ns = 1;
        cfg.nand.t_cache_prog_ns = 1;
        cfg.ftl.mapping = ssdlab_ftl::MapMode::Cached;
        cfg.ftl.cmt.entries = 1;
        cfg.ftl.cmt.sharing = ssdlab_ftl::CmtSharing::Equal;
        cfg.ftl.cmt.group_entries = 1;
        cfg.cache.sharing = ssdlab_dram::CacheSharing::Equal;
        cfg.ftl.precondition.hot_set_ratio = 0.5;
        cfg.host.arbitration = crate::config::Arbitration::WeightedRoundRobin;
        cfg.host.arbitration_burst = 2;
        cfg.host.weights = [2, 1, 1];
        cfg.host.fetch_size = 4;
        cfg.host.tenant = vec![crate::config::TenantConfig::default()];
        cfg.errors.mode = crate::config::ErrorsMode::On;
        cfg.errors.erase_fail_prob = 0.1;
        cfg.errors.program_fail_prob = 0.1;
        cfg.errors.rated_pe = 1;
        cfg.errors.fail_exp = 1.0;
        cfg.errors.refresh_age_s = 1.0;
        cfg.errors.refresh_scan_s = 1.0;
        cfg.host.placement_handles = 1;
        cfg.host.placement_isolation = crate::config::tenants::PlacementIsolation::Initial;
        cfg.host.placement_from = crate::config::tenants::PlacementFrom::Workload;
        cfg.host.pcie.generation = 3;
        cfg.raid.mirror_channel = ssdlab_raid::MirrorChannel::Next;
        cfg.scheduler.vaq.lookahead = 1;
        cfg.scheduler.gc_first = true;
        let mut t: toml::Table = cfg.to_toml().parse().unwrap();
        for (key, value) in crate::config::WRITTEN_WHEN_SET {
            let (section, name) = key.rsplit_once('.').unwrap();
            let (mut table, mut at_default) = (&mut t, Some(&plain));
            for part in section.split('.') {
                table = table[part].as_table_mut().unwrap();
                at_default = at_default
                    .and_then(|d| d.get(part))
                    .and_then(|v| v.as_table());
            }
            assert!(
                at_default.is_none_or(|d| !d.contains_key(name)),
                "{key} is written at its default"
            );
            assert!(table.contains_key(name), "{key} is written when set");
            let parsed: toml::Table = format!("v = {value}").parse().unwrap();
            table.insert(name.to_string(), parsed["v"].clone());
        }
        t
    }

    #[test]
    fn every_key_and_section_is_documented_in_the_order_shown() {
        let (mut keys, mut sections) = (Vec::new(), Vec::new());
        paths("", &default_table(), &mut keys, &mut sections);
        let reference = reference();
        let doc_keys: Vec<&str> = reference
            .iter()
            .filter(|d| !d.section)
            .map(|d| d.key.as_str())
            .collect();
        let doc_sections: Vec<&str> = reference
            .iter()
            .filter(|d| d.section)
            .map(|d| d.key.as_str())
            .collect();
        assert_eq!(doc_keys, keys);
        assert_eq!(doc_sections, sections);
        for d in &reference {
            assert!(!d.description.is_empty(), "{} has no description", d.key);
            let described = d.values.iter().filter(|v| v.description.is_empty()).count();
            assert!(
                described == 0 || described == d.values.len(),
                "{}: some values have no description",
                d.key
            );
        }
    }

    #[test]
    fn defaults_are_the_default_configuration() {
        let table = toml::Value::Table(default_table());
        for d in reference().iter().filter(|d| !d.section) {
            let mut v = &table;
            for part in d.key.split('.') {
                v = &v[part];
            }
            let shown = d.default.as_deref().unwrap_or_else(|| panic!("{}", d.key));
            let parsed: toml::Table = format!("v = {shown}").parse().unwrap();
            assert_eq!(&parsed["v"], v, "{}", d.key);
        }
    }

    #[test]
    fn every_listed_value_is_accepted() {
        for d in reference().iter().filter(|d| !d.values.is_empty()) {
            for v in &d.values {
                let set = format!("{}={}", d.key, v.value);
                let result = all_on().set(&set).unwrap().build();
                // Validation may refuse the value beside the other defaults; the parser
                // must not.
                if let Err(errs) = result {
                    for e in errs.0 {
                        assert!(!matches!(e, ConfigError::Key { .. }), "{set}: {e}");
                    }
                }
            }
        }
    }

    /// The values just outside a key's documented bounds and at (or, when a bound is
    /// excluded, just inside) them, as TOML literals of its type.
    fn probes(d: &KeyDoc) -> (Vec<String>, Vec<String>) {
        let (mut outside, mut inside) = (Vec::new(), Vec::new());
        for (b, dir) in [(d.min, -1), (d.max, 1)] {
            let Some(b) = b else { continue };
            if d.ty == "integer" {
                let v = b.exact.expect("an integer bound is exact");
                let (out, at) = if b.inclusive {
                    (v + dir, v)
                } else {
                    (v, v - dir)
                };
                outside.push(out.to_string());
                inside.push(at.to_string());
            } else {
                let step = if dir < 0 { -1e-3 } else { 1e-3 };
                let (out, at) = if b.inclusive {
                    (b.value + step, b.value)
                } else {
                    (b.value, b.value - step)
                };
                outside.push(format!("{out:?}"));
                inside.push(format!("{at:?}"));
            }
        }
        (outside, inside)
    }

    /// The keys each error of `key=literal` names, with preconditioning on (so that its
    /// keys are read).
    /// The switched sections turned on, so that their keys are read.
    fn all_on() -> ConfigBuilder {
        let mut b = ConfigBuilder::new();
        for on in [
            "ftl.precondition.enabled=true",
            "cache.mode=\"write-buffer\"",
            "cache.capacity_mib=1",
        ] {
            b = b.set(on).unwrap();
        }
        b
    }

    fn refused(key: &str, literal: &str) -> Vec<String> {
        let set = format!("{key}={literal}");
        let b = all_on().set(&set).unwrap();
        let Err(errs) = b.build() else {
            return Vec::new();
        };
        // Geometry and timing errors are keyed by their section and name the key in their
        // text.
        errs.0
            .iter()
            .map(|e| match e {
                ConfigError::Key { key: k, .. } | ConfigError::Invalid { key: k, .. } => {
                    let section = key.starts_with(&format!("{k}."));
                    if section && e.to_string().contains(key) {
                        key.to_string()
                    } else {
                        k.clone()
                    }
                }
                other => other.to_string(),
            })
            .collect()
    }

    /// The value just outside each documented bound is refused with the key named, and
    /// the bound (or, if excluded, the value just inside it) is not refused for this key
    /// unless the reference states a further constraint: the documented range is the one
    /// `validate()` enforces.
    #[test]
    fn documented_ranges_are_the_enforced_ones() {
        let mut checked = 0;
        for d in reference()
            .iter()
            .filter(|d| d.min.is_some() || d.max.is_some())
        {
            let (outside, inside) = probes(d);
            for v in outside {
                let keys = refused(&d.key, &v);
                assert!(
                    keys.contains(&d.key),
                    "{} = {v} is not refused: {keys:?}",
                    d.key
                );
                checked += 1;
            }
            for v in inside {
                let keys = refused(&d.key, &v);
                assert!(
                    d.constraint.is_some() || !keys.contains(&d.key),
                    "{} = {v} is inside the documented range but refused",
                    d.key
                );
            }
        }
        assert!(checked >= 25, "only {checked} bounds checked");
    }

    #[test]
    fn units_ranges_and_values_read_from_the_types() {
        let d = lookup("ftl.gc.threshold_free_ratio").unwrap();
        assert_eq!(d.ty, "float");
        assert_eq!(d.default.as_deref(), Some("0.05"));
        assert_eq!(d.range.as_deref(), Some("[0, 1)"));
        assert_eq!(d.unit.as_deref(), Some("fraction of blocks_per_plane"));
        let d = lookup("seed").unwrap();
        assert_eq!(d.range.as_deref(), Some("[0, 9223372036854775807]"));
        let d = lookup("timing.t_read_ns").unwrap();
        assert_eq!(
            (d.unit.as_deref(), d.range.as_deref()),
            (Some("ns"), Some(">= 1"))
        );
        let d = lookup("geometry.page_size_bytes").unwrap();
        assert_eq!(d.range.as_deref(), Some(">= 512"));
        assert_eq!(d.constraint.as_deref(), Some("a power of two"));
        let d = lookup("raid.level").unwrap();
        assert_eq!(d.ty, "integer or string");
        let values: Vec<&str> = d.values.iter().map(|v| v.value.as_str()).collect();
        assert_eq!(values, ["\"none\"", "0", "1", "4", "5"]);
        let d = lookup("scheduler.name").unwrap();
        let names: Vec<String> = crate::config::SchedulerKind::NAMES
            .iter()
            .map(|n| format!("\"{n}\""))
            .collect();
        let values: Vec<&String> = d.values.iter().map(|v| &v.value).collect();
        assert_eq!(values, names.iter().collect::<Vec<_>>());
        assert!(d.values[0].description[0].starts_with("Requests in strict arrival order"));
        let d = lookup("ftl.gc").unwrap();
        assert!(d.section);
        assert_eq!(d.description, ["Garbage collection."]);
        assert_eq!(lookup("ftl.static_order").unwrap().values.len(), 24);
        assert!(lookup("ftl.gc.victm").is_none());
        let d = lookup("scheduler.paq.pack_writes").unwrap();
        assert_eq!(d.unit, None, "a boolean has no unit");
    }
}
