//! Tiny geometries and helpers for unit tests.

use ssdlab_engine::SimRng;
use ssdlab_nand::{Geometry, Lpn, PlaneId, Ppn};

use crate::{token_for, Ftl, FtlConfig};

/// 2 channels × 2 chips × 1 die × 2 planes × 8 blocks × 4 pages (8 planes, 256 pages).
pub fn tiny() -> Geometry {
    Geometry {
        channels: 2,
        chips_per_channel: 2,
        dies_per_chip: 1,
        planes_per_die: 2,
        blocks_per_plane: 8,
        pages_per_block: 4,
        page_size_bytes: 4096,
    }
}

/// One plane of 8 blocks × 4 pages.
pub fn one_plane() -> Geometry {
    Geometry {
        channels: 1,
        chips_per_channel: 1,
        planes_per_die: 1,
        ..tiny()
    }
}

/// Defaults with 45 % over-provisioning, which tiny planes need beside the reserve.
pub fn small_cfg() -> FtlConfig {
    FtlConfig {
        over_provisioning: 0.45,
        ..FtlConfig::default()
    }
}

/// An FTL on [`one_plane`] holding 16 LPNs.
pub fn ftl_one_plane(cfg: FtlConfig) -> Ftl {
    Ftl::new(&cfg, &one_plane(), 16, SimRng::new(9)).unwrap()
}

/// Writes LPN `lpn` (version `v`) to plane 0 and completes the program at once.
pub fn write_done(f: &mut Ftl, lpn: u32, v: u32) -> Ppn {
    let ppn = f
        .host_write(Lpn(lpn), PlaneId(0), token_for(Lpn(lpn), v))
        .unwrap();
    f.program_done(ppn);
    ppn
}
