//! The macro behind the one list of schedulers in [`super`]: from one line per policy
//! (variant, config name, constructor, with the variant's doc comment above it) it
//! derives the [`super::SchedulerKind`] enum with its serde names, `ALL`, `NAMES` and
//! `name()`, and the [`super::build`] dispatch. Adding a policy is its file plus one line
//! (and a variant of [`super::Scheduler`] for a new type).

/// `schedulers! { /// doc … \n Variant = "config-name" => constructor, … }`, where each
/// constructor is a `fn(&SchedulerConfig, &Geometry, &NandTiming) -> P` with
/// `P: IoScheduler` and `Scheduler: From<P>` (a variant of [`super::Scheduler`]).
macro_rules! schedulers {
    ($( $(#[$doc:meta])* $variant:ident = $name:literal => $ctor:path, )+) => {
        /// Scheduler names accepted by `scheduler.name` and `--scheduler`.
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
        )]
        pub enum SchedulerKind {
            $( $(#[$doc])* #[serde(rename = $name)] $variant, )+
        }

        impl SchedulerKind {
            /// Every scheduler, in registration order.
            pub const ALL: &'static [SchedulerKind] = &[$(SchedulerKind::$variant),+];

            /// The names `--scheduler` accepts, in registration order.
            pub const NAMES: &'static [&'static str] = &[$($name),+];

            /// The config name.
            pub fn name(self) -> &'static str {
                match self {
                    $(SchedulerKind::$variant => $name,)+
                }
            }
        }

        /// Builds the policy named in `cfg` (BRR reads its latencies `L_r`, `L_w` from
        /// `timing`).
        pub fn build(
            cfg: &SchedulerConfig,
            geom: &Geometry,
            timing: &NandTiming,
        ) -> Scheduler {
            match cfg.name {
                $(SchedulerKind::$variant => Scheduler::from($ctor(cfg, geom, timing)),)+
            }
        }
    };
}

pub(super) use schedulers;

#[cfg(test)]
mod tests {
    use crate::config::{SchedulerConfig, SchedulerKind};
    use crate::sched::{build, IoScheduler};
    use ssdlab_nand::{Geometry, NandTiming};

    #[test]
    fn names_are_the_serde_names_in_registration_order() {
        assert_eq!(
            SchedulerKind::NAMES,
            &[
                "sync-fifo",
                "async-fifo",
                "piq",
                "brr",
                "vaq",
                "paq0",
                "paq1",
                "paq2"
            ]
        );
        let names: Vec<&str> = SchedulerKind::ALL.iter().map(|k| k.name()).collect();
        assert_eq!(names, SchedulerKind::NAMES);
        for &kind in SchedulerKind::ALL {
            let json = serde_json::to_string(&kind).unwrap();
            assert_eq!(json, format!("\"{}\"", kind.name()));
            let back: SchedulerKind = serde_json::from_str(&json).unwrap();
            assert_eq!(back, kind);
        }
        assert!(serde_json::from_str::<SchedulerKind>("\"SyncFifo\"").is_err());
    }

    #[test]
    fn build_makes_the_named_scheduler() {
        let geom = Geometry::default();
        for &kind in SchedulerKind::ALL {
            let cfg = SchedulerConfig {
                name: kind,
                ..SchedulerConfig::default()
            };
            let s = build(&cfg, &geom, &NandTiming::default());
            assert_eq!(s.name(), kind.name());
            assert_eq!(s.held(), 0);
        }
    }
}
