//! Integration tests of ssdlab-raid: layout properties and the tables in `docs/RAID.md`.

mod docs;
mod props;
