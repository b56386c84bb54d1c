//! The `[nand]` section's checks that need the rest of the configuration: the SLC
//! cache against the geometry and the FTL, ONFI cache mode against the scheduler, and
//! one-shot programs against the DRAM stage's destage limit.

use super::*;

impl SimConfig {
    /// With one-shot programs, an explicit DRAM destage limit must fill a wordline in
    /// every plane.
    pub(super) fn validate_one_shot_destage(&self, errs: &mut Vec<ConfigError>) {
        let bits = self.nand.cell.bits();
        let wordlines = self.geometry.planes().saturating_mul(bits);
        let limit = self.cache.max_destage_in_flight;
        if self.cache.is_on()
            && self.nand.program == ssdlab_nand::ProgramModel::OneShot
            && limit > 0
            && limit < wordlines
        {
            errs.push(ConfigError::Invalid {
                key: "cache.max_destage_in_flight".into(),
                message: format!(
                    "{limit} destages in flight cannot fill a one-shot wordline ({bits} pages) in each of the {} planes: every destage could wait in its die's page buffer for pages no further destage brings; give at least {wordlines}, or 0 (a wordline per plane)",
                    self.geometry.planes()
                ),
            });
        }
    }

    /// `[nand.slc_cache]`: its own keys, the room a static region leaves for the
    /// native side's data, and the designs it does not combine with.
    pub(super) fn validate_slc_cache(&self, errs: &mut Vec<ConfigError>) {
        let c = &self.nand.slc_cache;
        let g = &self.geometry;
        let kept = self.ftl.gc_threshold_blocks(g);
        let mut invalid = |key: &str, message: String| {
            errs.push(ConfigError::Invalid {
                key: format!("nand.slc_cache.{key}"),
                message,
            })
        };
        let own = c.validate(self.nand.cell.bits(), g.blocks_per_plane, kept);
        let ok = own.is_empty();
        for (key, message) in own {
            invalid(key, message);
        }
        if !c.is_on() || !ok {
            return;
        }
        if c.mode == ssdlab_nand::SlcMode::Static {
            // The native side holds every logical page in the blocks the region leaves.
            let native = Geometry {
                blocks_per_plane: g.blocks_per_plane - c.blocks_per_plane,
                ..*g
            };
            let need = u64::from(self.ftl.logical_pages(g));
            let room = self.ftl.max_map_entries(&native);
            if need > room {
                invalid(
                    "blocks_per_plane",
                    format!(
                        "a static region of {} blocks per plane leaves the native side room for {room} logical pages, fewer than the {need} the device exports: no room to fold into; raise ftl.over_provisioning or shrink the region",
                        c.blocks_per_plane
                    ),
                );
            }
        }
        let other = if self.raid.level != RaidLevel::None {
            Some("raid.level")
        } else if self.dgc.enabled {
            Some("dgc.enabled")
        } else if self.content_index() {
            Some("the DS-FTL content index")
        } else {
            None
        };
        if let Some(other) = other {
            invalid(
                "mode",
                format!(
                    "the SLC cache is not modelled together with {other}: turn one of them off"
                ),
            );
        }
    }

    /// `nand.cache_mode` against the scheduler (docs/NAND.md, "Cache read and cache
    /// program").
    pub(super) fn validate_cache_mode(&self, errs: &mut Vec<ConfigError>) {
        let mode = self.nand.cache_mode;
        let name = self.scheduler.name;
        let held = matches!(
            name,
            SchedulerKind::SyncFifo
                | SchedulerKind::Vaq
                | SchedulerKind::Paq0
                | SchedulerKind::Paq1
                | SchedulerKind::Paq2
        );
        if !mode.is_off() && held {
            errs.push(ConfigError::Invalid {
                key: "nand.cache_mode".into(),
                message: format!(
                    "{} commits work for a die only when it is idle (sync-fifo: a request \
                     once every chip it needs is idle; paq: a group it staged), so a busy die finds no next operation to overlap: \
                     use \"off\" or another scheduler",
                    name.name()
                ),
            });
        }
        if mode.programs() && self.scheduler.suspend.is_on() {
            errs.push(ConfigError::Invalid {
                key: "nand.cache_mode".into(),
                message: format!(
                    "\"{}\" keeps the next page's data in the cache register while a program \
                     runs, and a read that suspends the program moves its page out through \
                     that register: use \"off\" or \"read\" with scheduler.suspend = \"{}\", \
                     or scheduler.suspend = \"off\"",
                    mode.name(),
                    self.scheduler.suspend.name()
                ),
            });
        }
    }
}
