//! [`SyntheticConfig::describe`]: a workload in one line.

use super::{AddressPattern, Arrival, SizeDist, SyntheticConfig};
use crate::request::Op;

impl SyntheticConfig {
    /// A short human description of the workload.
    pub fn describe(&self) -> String {
        let arrival = match self.arrival {
            Arrival::Poisson { iops } => format!("poisson {iops} IOPS"),
            Arrival::Fixed { interval_ns } => format!("every {interval_ns} ns"),
        };
        let mut per_op = String::new();
        for (op, name, own) in [
            (Op::Read, "reads", (&self.read_size, &self.read_address)),
            (Op::Write, "writes", (&self.write_size, &self.write_address)),
        ] {
            if own.0.is_some() || own.1.is_some() {
                per_op += &format!(
                    ", {name} {} {}",
                    describe_size(self.size_of(op)),
                    describe_address(self.address_of(op))
                );
            }
        }
        let reads = if self.read_content {
            " (reads with content)"
        } else {
            ""
        };
        let mut durability = String::new();
        if self.flush_every > 0 {
            durability += &format!(", a flush every {} requests", self.flush_every);
        }
        if self.fua_ratio > 0.0 {
            durability += &format!(", {:.0}% FUA writes", self.fua_ratio * 100.0);
        }
        if self.trim_ratio > 0.0 {
            durability += &format!(", {:.0}% of writes trims", self.trim_ratio * 100.0);
        }
        format!(
            "{} requests, {:.0}% reads, {}, {} over {} B, {arrival}{per_op}, {:.0}% duplicate writes{reads}{durability}, seed {}",
            self.requests,
            self.read_ratio * 100.0,
            describe_size(&self.size),
            describe_address(&self.address),
            self.footprint_bytes,
            self.duplicate_ratio * 100.0,
            self.seed
        )
    }
}

fn describe_size(size: &SizeDist) -> String {
    match size {
        SizeDist::Fixed { bytes } => format!("{bytes} B"),
        SizeDist::Uniform {
            min_bytes,
            max_bytes,
        } => format!("{min_bytes}-{max_bytes} B"),
        SizeDist::Choice { bytes, .. } => format!("sizes {bytes:?} B"),
    }
}

fn describe_address(address: &AddressPattern) -> String {
    match *address {
        AddressPattern::Uniform => "uniform".to_string(),
        AddressPattern::Sequential => "sequential".to_string(),
        AddressPattern::Zipf { theta } => format!("zipf {theta}"),
        AddressPattern::HotCold {
            hot_fraction,
            hot_access,
        } => format!("hot/cold {hot_fraction}/{hot_access}"),
    }
}
