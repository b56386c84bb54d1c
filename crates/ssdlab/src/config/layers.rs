//! The layers of one run's configuration as a front end gives them: a preset and/or a
//! file, `--set` overrides, and the shorthand flags (`--scheduler`, `--verify`, `--dgc`,
//! `--seed`, `--fail`). The command line and the Python bindings both resolve through
//! [`ConfigLayers::build`], so the two agree on order and on every error message.

use super::{ConfigBuilder, ConfigErrors, SimConfig};
use std::path::PathBuf;

/// What a front end asks for; [`ConfigLayers::build`] turns it into a validated config.
///
/// Order of application: built-in defaults, `preset`, `config` (a file, layered over
/// the preset when both are given), `config_text`, then the shorthands as overrides
/// (`scheduler` → `scheduler.name`, `verify` → `verify`, `dgc` → `dgc.enabled`), then
/// `set` in order, then `seed` and `fail` (checked by validation with the key named).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConfigLayers {
    /// A named preset.
    pub preset: Option<String>,
    /// A TOML configuration file.
    pub config: Option<PathBuf>,
    /// TOML text and the name it is reported under (e.g. a document built in memory).
    pub config_text: Option<(String, String)>,
    /// Scheduler name (sets `scheduler.name`).
    pub scheduler: Option<String>,
    /// `key=value` overrides, applied in order.
    pub set: Vec<String>,
    /// The run's seed (sets `seed`).
    pub seed: Option<u64>,
    /// Check every host read (sets `verify = true`).
    pub verify: bool,
    /// Enable DGC (sets `dgc.enabled = true`).
    pub dgc: bool,
    /// Failures to inject, appended to `raid.fail`.
    pub fail: Vec<String>,
}

impl ConfigLayers {
    /// Resolves the layers, with `extra` overrides applied after [`ConfigLayers::set`].
    ///
    /// # Errors
    /// Every configuration problem, each naming its key (or the file or preset).
    pub fn build(&self, extra: &[String]) -> Result<SimConfig, ConfigErrors> {
        let mut b = ConfigBuilder::new();
        if let Some(p) = &self.preset {
            b = b.preset(p)?;
        }
        if let Some(f) = &self.config {
            b = b.file(f)?;
        }
        if let Some((text, name)) = &self.config_text {
            b = b.text(text, name)?;
        }
        let mut sets: Vec<String> = Vec::new();
        if let Some(s) = &self.scheduler {
            sets.push(format!("scheduler.name=\"{s}\""));
        }
        if self.verify {
            sets.push("verify=true".into());
        }
        if self.dgc {
            sets.push("dgc.enabled=true".into());
        }
        sets.extend(self.set.iter().cloned());
        sets.extend(extra.iter().cloned());
        for s in &sets {
            b = b.set(s)?;
        }
        let mut cfg = b.build()?;
        // Applied after the layers so that the whole range is checked by `validate`, with
        // a message naming the key, rather than failing as a TOML literal.
        if let Some(seed) = self.seed {
            cfg.seed = seed;
        }
        cfg.raid.fail.extend(self.fail.iter().cloned());
        if self.seed.is_some() || !self.fail.is_empty() {
            cfg.validate()?;
        }
        Ok(cfg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SchedulerKind;

    #[test]
    fn shorthands_then_sets_then_seed() {
        let layers = ConfigLayers {
            preset: Some("brr".into()),
            scheduler: Some("sync-fifo".into()),
            set: vec!["scheduler.chip_queue_depth=3".into()],
            seed: Some(42),
            verify: true,
            ..ConfigLayers::default()
        };
        let cfg = layers.build(&[]).unwrap();
        assert_eq!(cfg.scheduler.name, SchedulerKind::SyncFifo);
        assert_eq!(cfg.scheduler.chip_queue_depth, 3);
        assert_eq!(cfg.seed, 42);
        assert!(cfg.verify);
        // A later --set wins over the shorthand.
        let layers = ConfigLayers {
            scheduler: Some("sync-fifo".into()),
            set: vec!["scheduler.name=async-fifo".into()],
            ..ConfigLayers::default()
        };
        assert_eq!(
            layers.build(&[]).unwrap().scheduler.name,
            SchedulerKind::AsyncFifo
        );
    }

    #[test]
    fn errors_name_the_key_or_the_preset() {
        let unknown = ConfigLayers {
            preset: Some("nope".into()),
            ..ConfigLayers::default()
        };
        assert!(unknown.build(&[]).unwrap_err().to_string().contains("nope"));
        let bad_key = ConfigLayers {
            set: vec!["scheduler.queue_dpeth=3".into()],
            ..ConfigLayers::default()
        };
        let msg = bad_key.build(&[]).unwrap_err().to_string();
        assert!(msg.contains("scheduler.queue_dpeth"), "{msg}");
        let text = ConfigLayers {
            config_text: Some(("[geometry]\nchannels = \"x\"\n".into(), "<dict>".into())),
            ..ConfigLayers::default()
        };
        let msg = text.build(&[]).unwrap_err().to_string();
        assert!(
            msg.contains("<dict>") && msg.contains("geometry.channels"),
            "{msg}"
        );
    }
}
