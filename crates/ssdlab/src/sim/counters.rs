//! What the simulator counts itself.

/// Counters the simulator keeps itself and hands to the report at the end.
#[derive(Default, Clone, Copy, Debug)]
pub(crate) struct SimCounters {
    pub buffer_hits: u64,
    pub materialized_reads: u64,
    pub zero_reads: u64,
    pub verified_reads: u64,
    pub parked_writes: u64,
    pub gc_starved: u64,
    pub parked_moved: u64,
    pub background_gc_runs: u64,
    /// Folds of SLC-mode blocks started in idle time.
    pub idle_folds: u64,
    pub multi_plane_ops: u64,
    pub multi_plane_pages: u64,
    /// Bus wait spent behind transfers of another die of the same chip (PAQ's
    /// contention; see `Simulation::request_bus`).
    pub package_contention_ns: u64,
    pub redirected_reads: u64,
    pub host_pages_programmed: u64,
    pub trace_requests: u64,
    /// Flush commands completed.
    pub flushes: u64,
    /// Write requests with FUA.
    pub fua_writes: u64,
    /// Trim commands completed.
    pub trims: u64,
    /// Pages they covered whole (each unmapped, mapped or not).
    pub trimmed_pages: u64,
    /// Reads of trimmed pages that verify mode confirmed hold no data.
    pub verified_trimmed_reads: u64,
}
