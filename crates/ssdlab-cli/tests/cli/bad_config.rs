//! Bad configurations: exit code 2 and a message naming the key (and the file).

use crate::{ssdlab, tmp_dir, tmp_file, trace};

/// `ssdlab run --trace hm_0-head200 ARGS...`
fn run_with(args: &[&str]) -> crate::Run {
    let t = trace("msr/hm_0-head200.csv.gz");
    let mut all = vec!["run", "--trace", &t];
    all.extend_from_slice(args);
    ssdlab(all)
}

#[test]
fn unknown_key_in_config_file() {
    let cfg = tmp_file("bc-unknown-key.toml", "[scheduler]\nqueue_dpeth = 4\n");
    run_with(&["--config", &cfg]).assert_input_error(&["scheduler.queue_dpeth", &cfg]);
}

#[test]
fn unknown_top_level_key_in_config_file() {
    let cfg = tmp_file("bc-unknown-top.toml", "sed = 3\n");
    run_with(&["--preset", "default", "--config", &cfg]).assert_input_error(&["`sed`", &cfg]);
}

#[test]
fn wrong_type_in_config_file() {
    let cfg = tmp_file(
        "bc-wrong-type.toml",
        "[scheduler]\nchip_queue_depth = \"deep\"\n",
    );
    run_with(&["--config", &cfg]).assert_input_error(&["scheduler.chip_queue_depth", &cfg]);
}

#[test]
fn config_file_syntax_error() {
    let cfg = tmp_file("bc-syntax.toml", "[scheduler\nname = \"async-fifo\"\n");
    run_with(&["--config", &cfg]).assert_input_error(&[&cfg]);
}

#[test]
fn missing_config_file() {
    let cfg = tmp_dir().join("bc-does-not-exist.toml");
    let cfg = cfg.display().to_string();
    run_with(&["--config", &cfg]).assert_input_error(&[&cfg]);
}

#[test]
fn unknown_key_via_set() {
    run_with(&["--preset", "default", "--set", "scheduler.queue_dpeth=4"])
        .assert_input_error(&["scheduler.queue_dpeth", "--set"]);
}

#[test]
fn wrong_type_via_set() {
    run_with(&[
        "--preset",
        "default",
        "--set",
        "scheduler.chip_queue_depth=deep",
    ])
    .assert_input_error(&["scheduler.chip_queue_depth"]);
}

#[test]
fn set_into_a_value_that_is_not_a_section() {
    run_with(&["--preset", "default", "--set", "seed.x=1"]).assert_input_error(&["seed.x"]);
}

#[test]
fn zero_pages_per_block() {
    run_with(&["--preset", "default", "--set", "geometry.pages_per_block=0"])
        .assert_input_error(&["pages_per_block"]);
}

#[test]
fn zero_channels() {
    run_with(&["--preset", "default", "--set", "geometry.channels=0"])
        .assert_input_error(&["channels"]);
}

#[test]
fn page_size_not_a_power_of_two() {
    run_with(&[
        "--preset",
        "default",
        "--set",
        "geometry.page_size_bytes=3000",
    ])
    .assert_input_error(&["page_size_bytes"]);
}

#[test]
fn too_few_blocks_for_the_reserve() {
    run_with(&[
        "--preset",
        "default",
        "--set",
        "geometry.blocks_per_plane=2",
    ])
    .assert_input_error(&["reserve_blocks", "blocks_per_plane"]);
}

#[test]
fn over_provisioning_of_one() {
    run_with(&["--preset", "default", "--set", "ftl.over_provisioning=1.0"])
        .assert_input_error(&["over_provisioning"]);
}

#[test]
fn every_inconsistent_value_is_reported() {
    run_with(&[
        "--preset",
        "default",
        "--set",
        "scheduler.chip_queue_depth=0",
        "--set",
        "host.device_queue_depth=0",
    ])
    .assert_input_error(&["scheduler.chip_queue_depth", "host.device_queue_depth"]);
}

#[test]
fn sampled_aging_where_planes_do_not_age_alone() {
    let aged = [
        "--set",
        "ftl.precondition.enabled=true",
        "--set",
        "ftl.precondition.overwrite_ratio=0.5",
        "--set",
        "ftl.precondition.aging=sampled",
    ];
    // CR5's semi-dynamic allocation picks a page's chip by the device's state.
    let mut args = vec!["--preset", "cr5m-ssd1"];
    args.extend_from_slice(&aged);
    run_with(&args).assert_input_error(&[
        "ftl.precondition.aging",
        "raid.chip_in_channel",
        "replay",
    ]);
    // CR5M's mirror chips keep controller slots outside the planes' own LPNs.
    let mut args = vec![
        "--preset",
        "cr5m-ssd2",
        "--set",
        "raid.chip_in_channel=static",
        "--set",
        "raid.mirror_chips=true",
    ];
    args.extend_from_slice(&aged);
    run_with(&args).assert_input_error(&["ftl.precondition.aging", "raid.mirror_chips"]);
    // Dynamic allocation places by the device's state, not by the LPN.
    let mut args = vec!["--preset", "default", "--set", "ftl.allocation=dynamic"];
    args.extend_from_slice(&aged);
    run_with(&args).assert_input_error(&["ftl.precondition.aging", "ftl.allocation"]);
}

#[test]
fn unknown_preset() {
    run_with(&["--preset", "nosuch"]).assert_input_error(&["nosuch", "default", "brr"]);
}

#[test]
fn unknown_scheduler() {
    run_with(&["--preset", "default", "--scheduler", "lifo"])
        .assert_input_error(&["scheduler.name", "lifo"]);
}

#[test]
fn set_without_equals() {
    run_with(&["--preset", "default", "--set", "geometry.pages_per_block"]).assert_input_error(&[
        "--set",
        "geometry.pages_per_block",
        "KEY=VALUE",
    ]);
}

#[test]
fn set_with_empty_key() {
    run_with(&["--preset", "default", "--set", "=3"]).assert_input_error(&["--set", "KEY=VALUE"]);
}

#[test]
fn missing_trace_file() {
    let t = tmp_dir().join("bc-no-such-trace.csv");
    let t = t.display().to_string();
    ssdlab(["run", "--preset", "default", "--trace", &t]).assert_input_error(&[&t]);
}

#[test]
fn trace_that_is_a_directory() {
    let d = tmp_dir().display().to_string();
    ssdlab(["run", "--preset", "default", "--trace", &d]).assert_input_error(&[&d]);
}

#[test]
fn address_beyond_capacity_with_fold_error() {
    // wdev_3 addresses about 36 GB; the default device holds about 29 GB.
    let t = trace("msr/wdev_3.csv.gz");
    ssdlab([
        "run",
        "--preset",
        "default",
        "--trace",
        &t,
        "--set",
        "ftl.address_fold=\"error\"",
    ])
    .assert_input_error(&["beyond the logical capacity", "address_fold"]);
}

#[test]
fn nand_settings_that_cannot_describe_a_part_name_their_key() {
    let tlc = [
        "--set",
        "nand.cell=\"tlc\"",
        "--set",
        "geometry.pages_per_block=96",
    ];
    let mut args = tlc.to_vec();
    args.extend(["--set", "nand.t_read_ns_by_type=[50000, 70000]"]);
    run_with(&args).assert_input_error(&["nand.t_read_ns_by_type", "3 page types"]);
    run_with(&["--set", "nand.cell=\"tlc\""]).assert_input_error(&["nand.cell", "multiple of 3"]);
    run_with(&[
        "--set",
        "scheduler.suspend=\"reads\"",
        "--set",
        "nand.suspend.max_per_op=0",
    ])
    .assert_input_error(&["nand.suspend.max_per_op"]);
    // Suspend settings with suspend off: configured but never used.
    run_with(&["--set", "nand.suspend.t_suspend_ns=1000"])
        .assert_input_error(&["nand.suspend", "scheduler.suspend"]);
    run_with(&["--set", "nand.cell=\"penta\""]).assert_input_error(&["nand.cell"]);
}

#[test]
fn a_pcie_link_of_no_generation_or_lane_count() {
    run_with(&["--set", "host.pcie.generation=7"]).assert_input_error(&["host.pcie.generation"]);
    run_with(&[
        "--set",
        "host.pcie.generation=3",
        "--set",
        "host.pcie.lanes=5",
    ])
    .assert_input_error(&["host.pcie.lanes"]);
}
