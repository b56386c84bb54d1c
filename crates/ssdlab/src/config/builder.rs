//! Layering partial TOML documents (defaults, preset or file, `--set` overrides) into
//! one validated [`SimConfig`].

use super::{ConfigError, ConfigErrors, SimConfig};
use crate::presets;
use ssdlab_ftl::PreconditionConfig;
use std::path::Path;

/// A partial configuration document, kept as TOML until every layer is applied.
///
/// A key of `[ftl.precondition]` that is read only while preconditioning is on
/// ([`PreconditionConfig::KEYS_READ_WHEN_ENABLED`]) is refused when the configuration ends
/// with `enabled = false`, unless the layer that sets it, or a later one, says `enabled =
/// false` itself: a document that states both (a preset, `ssdlab config show`'s output)
/// knows the key is idle, whereas `--set ftl.precondition.overwrite_ratio=0.5` on a
/// configuration that does not precondition would be silently ignored.
#[derive(Clone, Debug, Default)]
pub struct ConfigBuilder {
    doc: toml::Table,
    sources: Vec<String>,
    /// The keys of `[ftl.precondition]` read only while it is enabled, each with the
    /// layer that set it, since the last layer that said `enabled = false`.
    precondition_keys: Vec<(String, String)>,
}

impl ConfigBuilder {
    /// Starts from the built-in defaults.
    pub fn new() -> Self {
        ConfigBuilder::default()
    }

    /// Layers a preset over what is there (a preset with a base, [`presets::base`], layers
    /// the base first).
    pub fn preset(mut self, name: &str) -> Result<Self, ConfigError> {
        if let Some(base) = presets::base(name) {
            self = self.preset(base)?;
        }
        let text = presets::text(name).ok_or_else(|| ConfigError::UnknownPreset {
            name: name.to_string(),
        })?;
        self.layer_text(text, &format!("preset `{name}`"))?;
        Ok(self)
    }

    /// Layers a TOML file over what is there.
    pub fn file(mut self, path: &Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        self.layer_text(&text, &path.display().to_string())?;
        Ok(self)
    }

    /// Layers TOML text over what is there; `name` is used in error messages.
    pub fn text(mut self, text: &str, name: &str) -> Result<Self, ConfigError> {
        self.layer_text(text, name)?;
        Ok(self)
    }

    fn layer_text(&mut self, text: &str, name: &str) -> Result<(), ConfigError> {
        let table: toml::Table =
            text.parse()
                .map_err(|e: toml::de::Error| ConfigError::Syntax {
                    source_name: name.to_string(),
                    message: e.to_string(),
                })?;
        self.note_precondition(&table, name);
        merge(&mut self.doc, table);
        self.sources.push(name.to_string());
        Ok(())
    }

    /// Records the keys of the switched sections ([`SWITCHED`]) that `layer` sets (see
    /// [`ConfigBuilder`]).
    fn note_precondition(&mut self, layer: &toml::Table, name: &str) {
        for sw in SWITCHED {
            let mut section = Some(layer);
            for part in sw.path {
                section = section
                    .and_then(|t| t.get(*part))
                    .and_then(toml::Value::as_table);
            }
            let Some(section) = section else {
                continue;
            };
            let prefix = sw.path.join(".");
            if section.get(sw.switch).is_some_and(sw.is_off) {
                self.precondition_keys
                    .retain(|(k, _)| !k.starts_with(&format!("{prefix}.")));
                continue;
            }
            for key in section.keys() {
                if key != sw.switch && (sw.keys)().contains(&key.as_str()) {
                    let key = format!("{prefix}.{key}");
                    self.precondition_keys.retain(|(k, _)| *k != key);
                    self.precondition_keys.push((key, name.to_string()));
                }
            }
        }
    }

    /// The keys set while their section ends up off, as errors naming them.
    fn ignored_precondition_keys(&self, cfg: &SimConfig) -> Vec<ConfigError> {
        let off = |prefix: &str| match prefix {
            "ftl.precondition" => !cfg.ftl.precondition.enabled,
            "cache" => !cfg.cache.is_on(),
            _ => false,
        };
        self.precondition_keys
            .iter()
            .filter_map(|(key, source)| {
                let sw = SWITCHED
                    .iter()
                    .find(|sw| key.starts_with(&format!("{}.", sw.path.join("."))))?;
                off(&sw.path.join(".")).then(|| ConfigError::Key {
                    source_name: source.clone(),
                    key: key.clone(),
                    message: sw.why.into(),
                })
            })
            .collect()
    }

    /// Applies one `key=value` override. The value is read as a TOML value (number,
    /// boolean, quoted string, array); anything else is taken as a bare string.
    pub fn set(mut self, arg: &str) -> Result<Self, ConfigError> {
        let (key, raw) = arg
            .split_once('=')
            .ok_or_else(|| ConfigError::BadOverride {
                arg: arg.to_string(),
            })?;
        let key = key.trim();
        if key.is_empty() || key.split('.').any(str::is_empty) {
            return Err(ConfigError::BadOverride {
                arg: arg.to_string(),
            });
        }
        let raw = raw.trim();
        let value = format!("v = {raw}")
            .parse::<toml::Table>()
            .ok()
            .and_then(|mut t| t.remove("v"))
            .unwrap_or_else(|| toml::Value::String(raw.to_string()));
        let mut layer = value.clone();
        for part in key.rsplit('.') {
            layer = toml::Value::Table(toml::Table::from_iter([(part.to_string(), layer)]));
        }
        if let toml::Value::Table(layer) = layer {
            self.note_precondition(&layer, &format!("--set {key}"));
        }
        let mut table = &mut self.doc;
        let parts: Vec<&str> = key.split('.').collect();
        for part in &parts[..parts.len() - 1] {
            let entry = table
                .entry(part.to_string())
                .or_insert_with(|| toml::Value::Table(toml::Table::new()));
            table = match entry {
                toml::Value::Table(t) => t,
                _ => {
                    return Err(ConfigError::Key {
                        source_name: "--set".into(),
                        key: key.to_string(),
                        message: format!("`{part}` is not a section"),
                    })
                }
            };
        }
        table.insert(parts[parts.len() - 1].to_string(), value);
        self.sources.push(format!("--set {key}"));
        Ok(self)
    }

    /// Resolves the layers into a validated configuration.
    pub fn build(mut self) -> Result<SimConfig, ConfigErrors> {
        let source_name = if self.sources.is_empty() {
            "defaults".to_string()
        } else {
            self.sources.join(" + ")
        };
        let value = toml::Value::Table(std::mem::take(&mut self.doc));
        let cfg: SimConfig = serde_path_to_error::deserialize(value).map_err(|e| {
            ConfigErrors(vec![ConfigError::Key {
                source_name,
                key: e.path().to_string(),
                message: e.inner().to_string(),
            }])
        })?;
        let mut errs = self.ignored_precondition_keys(&cfg);
        if let Err(e) = cfg.validate() {
            errs.extend(e.0);
        }
        if errs.is_empty() {
            Ok(cfg)
        } else {
            Err(ConfigErrors(errs))
        }
    }
}

/// A section whose keys are read only while its switch is on: such a key set while the
/// configuration ends with the switch off would be silently ignored, and is refused.
struct Switched {
    /// The section's path.
    path: &'static [&'static str],
    /// Its switch key, and whether a value of it turns the section off.
    switch: &'static str,
    is_off: fn(&toml::Value) -> bool,
    /// The keys read only while it is on.
    keys: fn() -> &'static [&'static str],
    /// What the refusal says.
    why: &'static str,
}

/// The switched sections: preconditioning and the DRAM stage.
const SWITCHED: [Switched; 2] = [
    Switched {
        path: &["ftl", "precondition"],
        switch: "enabled",
        is_off: |v| v.as_bool() == Some(false),
        keys: || PreconditionConfig::KEYS_READ_WHEN_ENABLED,
        why: "is read only when preconditioning is on, and ftl.precondition.enabled = false: set ftl.precondition.enabled = true as well, or leave the key out",
    },
    Switched {
        path: &["cache"],
        switch: "mode",
        is_off: |v| v.as_str() == Some("off"),
        keys: || ssdlab_dram::CacheConfig::KEYS_READ_WHEN_ON,
        why: "is read only when the DRAM stage is on, and cache.mode = \"off\": set cache.mode = \"write-buffer\" or \"read-write\" as well, or leave the key out",
    },
];

/// Recursively merges `over` into `base`: tables merge key by key, other values replace.
fn merge(base: &mut toml::Table, over: toml::Table) {
    for (k, v) in over {
        match (base.get_mut(&k), v) {
            (Some(toml::Value::Table(b)), toml::Value::Table(o)) => merge(b, o),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SchedulerKind;
    use ssdlab_nand::{Geometry, NandTiming};

    #[test]
    fn unknown_key_is_named_with_its_path() {
        let err = ConfigBuilder::new()
            .text("[scheduler]\nqueue_dpeth = 3\n", "x.toml")
            .unwrap()
            .build();
        let msg = err.unwrap_err().to_string();
        assert!(msg.contains("scheduler.queue_dpeth"), "{msg}");
        assert!(msg.contains("x.toml"), "{msg}");
    }

    #[test]
    fn a_partial_section_keeps_the_other_defaults() {
        let cfg = ConfigBuilder::new()
            .set("geometry.channels=9")
            .unwrap()
            .build()
            .unwrap();
        assert_eq!(cfg.geometry.channels, 9);
        assert_eq!(
            cfg.geometry.pages_per_block,
            Geometry::default().pages_per_block
        );
        let cfg = ConfigBuilder::new()
            .text("[timing]\nt_read_ns = 50000\n", "t")
            .unwrap()
            .build()
            .unwrap();
        assert_eq!(cfg.timing.t_prog_ns, NandTiming::default().t_prog_ns);
    }

    #[test]
    fn set_overrides_and_types() {
        let cfg = ConfigBuilder::new()
            .set("scheduler.chip_queue_depth=8")
            .unwrap()
            .set("scheduler.name=sync-fifo")
            .unwrap()
            .set("host.time_scale=0.5")
            .unwrap()
            .build()
            .unwrap();
        assert_eq!(cfg.scheduler.chip_queue_depth, 8);
        assert_eq!(cfg.scheduler.name, SchedulerKind::SyncFifo);
        assert_eq!(cfg.host.time_scale, 0.5);
    }

    #[test]
    fn bad_override_syntax_and_bad_value() {
        assert!(matches!(
            ConfigBuilder::new().set("novalue"),
            Err(ConfigError::BadOverride { .. })
        ));
        let err = ConfigBuilder::new()
            .set("scheduler.name=lifo")
            .unwrap()
            .build()
            .unwrap_err();
        assert!(err.to_string().contains("scheduler.name"), "{err}");
    }

    fn layered(preset: Option<&str>, text: Option<&str>, sets: &[&str]) -> Result<(), String> {
        let mut b = ConfigBuilder::new();
        if let Some(p) = preset {
            b = b.preset(p).unwrap();
        }
        if let Some(t) = text {
            b = b.text(t, "file.toml").unwrap();
        }
        for s in sets {
            b = b.set(s).unwrap();
        }
        b.build().map(|_| ()).map_err(|e| e.to_string())
    }

    #[test]
    fn precondition_keys_without_preconditioning_are_refused() {
        let e = layered(None, None, &["ftl.precondition.overwrite_ratio=0.5"]).unwrap_err();
        assert!(
            e.contains(
                "--set ftl.precondition.overwrite_ratio: key `ftl.precondition.overwrite_ratio`"
            ),
            "{e}"
        );
        assert!(e.contains("ftl.precondition.enabled = true"), "{e}");
        // Set after a preset that turns preconditioning off: every such key is named.
        let e = layered(
            Some("dsftl"),
            None,
            &[
                "ftl.precondition.aging=\"sampled\"",
                "ftl.precondition.sample_planes=2",
                "ftl.precondition.fill_ratio=0.5",
            ],
        )
        .unwrap_err();
        for key in ["aging", "sample_planes", "fill_ratio"] {
            assert!(
                e.contains(&format!("`ftl.precondition.{key}`")),
                "{key}: {e}"
            );
        }
        // Turned off, then set.
        let sets = [
            "ftl.precondition.enabled=false",
            "ftl.precondition.fill_ratio=0.5",
        ];
        assert!(layered(None, None, &sets).is_err());
        // A file that sets a key beside a preset that does not precondition.
        let e = layered(
            Some("default"),
            Some("[ftl.precondition]\noverwrite_ratio = 0.2\n"),
            &[],
        )
        .unwrap_err();
        assert!(
            e.contains("file.toml: key `ftl.precondition.overwrite_ratio`"),
            "{e}"
        );
    }

    #[test]
    fn precondition_keys_with_preconditioning_or_stated_off_are_accepted() {
        // The README's aged brr: the preset enables preconditioning.
        let aged = [
            "ftl.precondition.overwrite_ratio=0.5",
            "ftl.precondition.aging=sampled",
        ];
        layered(Some("brr"), None, &aged).unwrap();
        // Enabled before or after the key.
        let on = "ftl.precondition.enabled=true";
        layered(None, None, &[on, "ftl.precondition.overwrite_ratio=0.2"]).unwrap();
        layered(None, None, &["ftl.precondition.overwrite_ratio=0.2", on]).unwrap();
        // Turned off after a preset that preconditions.
        layered(Some("brr"), None, &["ftl.precondition.enabled=false"]).unwrap();
        layered(
            Some("paq"),
            Some("[ftl.precondition]\nenabled = false\n"),
            &[],
        )
        .unwrap();
        // A document that states enabled = false beside the keys knows they are idle.
        let text = "[ftl.precondition]\nenabled = false\nfill_ratio = 1.0\noverwrite_ratio = 0.7\n";
        layered(None, Some(text), &[]).unwrap();
        // The warm-up runs with or without preconditioning.
        layered(
            Some("default"),
            None,
            &["ftl.precondition.warmup=\"trace\""],
        )
        .unwrap();
    }
}
