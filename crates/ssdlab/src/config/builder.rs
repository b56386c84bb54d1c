//! Layering partial TOML documents (defaults, preset or file, `--set` overrides) into
//! one validated [`SimConfig`].

use super::{ConfigError, ConfigErrors, SimConfig};
use crate::presets;
use std::path::Path;

/// A partial configuration document, kept as TOML until every layer is applied.
#[derive(Clone, Debug, Default)]
pub struct ConfigBuilder {
    doc: toml::Table,
    sources: Vec<String>,
}

impl ConfigBuilder {
    /// Starts from the built-in defaults.
    pub fn new() -> Self {
        ConfigBuilder::default()
    }

    /// Layers a preset over what is there.
    pub fn preset(mut self, name: &str) -> Result<Self, ConfigError> {
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
        merge(&mut self.doc, table);
        self.sources.push(name.to_string());
        Ok(())
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
    pub fn build(self) -> Result<SimConfig, ConfigErrors> {
        let source_name = if self.sources.is_empty() {
            "defaults".to_string()
        } else {
            self.sources.join(" + ")
        };
        let value = toml::Value::Table(self.doc);
        let cfg: SimConfig = serde_path_to_error::deserialize(value).map_err(|e| {
            ConfigErrors(vec![ConfigError::Key {
                source_name,
                key: e.path().to_string(),
                message: e.inner().to_string(),
            }])
        })?;
        cfg.validate()?;
        Ok(cfg)
    }
}

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
}
