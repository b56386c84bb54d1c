//! `ssdlab config import`: MQSim and SSDsim device files into a configuration; errors
//! exit 2 naming the file, the place and the parameter.

use crate::{out_path, ssdlab, tmp_file};

/// A device file of the repository's test data (`crates/ssdlab/tests/data/anchors`).
fn data(name: &str) -> String {
    format!(
        "{}/../ssdlab/tests/data/anchors/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn read(name: &str) -> String {
    std::fs::read_to_string(data(name)).expect("the test data is readable")
}

#[test]
fn imports_both_formats_to_stdout() {
    ssdlab(["config", "import", &data("mqsim-small.xml")])
        .assert_ok()
        .assert_stdout_has(&[
            "[geometry]\n# MQSim Flash_Channel_Count = 2\nchannels = 2\n",
            "static_order = \"cwpd\"",
            "[host.pcie]\n# MQSim PCIe_Lane_Count = 4\nlanes = 4\n",
            "# MQSim PCIe_Lane_Bandwidth = 1.0\nlane_gbytes_per_s = 1.0\n",
            "# MQSim: no parameter: PCIe_Link's constant tlp_max_payload_size\nmax_payload_bytes = 128\n",
        ]);
    ssdlab(["config", "import", &data("ssdsim-small.parameters")])
        .assert_ok()
        .assert_stdout_has(&[
            "# SSDsim t_WC = 20: 7 × t_WC = 7 × 20 ns\nt_cmd_ns = 140\n",
            "# not imported: gc threshold = 0.30 — ",
        ]);
}

#[test]
fn out_file_is_a_configuration_ssdlab_runs() {
    let out = out_path("import-small.toml");
    let r = ssdlab([
        "config",
        "import",
        &data("ssdsim-small.parameters"),
        "--out",
        &out,
    ]);
    r.assert_ok()
        .assert_stderr_has(&["SSDsim device file imported", &out]);
    assert!(r.stdout.is_empty(), "the configuration goes to --out only");
    let wl = tmp_file(
        "import-small-workload.toml",
        "requests = 2000\nread_ratio = 0.5\n",
    );
    ssdlab(["run", "--config", &out, "--synthetic-config", &wl])
        .assert_ok()
        .assert_stdout_has(&["2000"]);
}

#[test]
fn strict_refuses_what_changes_the_device() {
    ssdlab([
        "config",
        "import",
        "--strict",
        &data("ssdsim-small.parameters"),
    ])
    .assert_ok();
    let r = ssdlab(["config", "import", "--strict", &data("mqsim-small.xml")]);
    r.assert_input_error(&["--strict", "Caching_Mechanism = ADVANCED"]);
    assert!(
        !r.stderr.contains("PCIe_Lane"),
        "the link is imported: {}",
        r.describe()
    );
    assert!(
        !r.stderr.contains("Page_Metadat_Capacity"),
        "{}",
        r.describe()
    );
    let f = tmp_file(
        "import-unknown.parameters",
        &format!("{}page capcity = 4096;\n", read("ssdsim-small.parameters")),
    );
    ssdlab(["config", "import", &f]).assert_ok();
    ssdlab(["config", "import", "--strict", &f]).assert_input_error(&["page capcity = 4096"]);
}

#[test]
fn bad_files_exit_2_naming_file_place_and_parameter() {
    let missing = data("no-such-file.xml");
    ssdlab(["config", "import", &missing]).assert_input_error(&[&missing]);
    let f = tmp_file("import-unknown-format.txt", "just some text\n");
    ssdlab(["config", "import", &f]).assert_input_error(&[&f, "unknown format"]);
    let xml = read("mqsim-small.xml").replace("</Device_Parameter_Set>", "");
    let f = tmp_file("import-malformed.xml", &xml);
    ssdlab(["config", "import", &f]).assert_input_error(&[&f, "not well-formed XML", "line"]);
    let xml = read("mqsim-small.xml").replace("<Page_No_Per_Block>32</Page_No_Per_Block>", "");
    let f = tmp_file("import-missing.xml", &xml);
    ssdlab(["config", "import", &f])
        .assert_input_error(&[&f, "missing parameter `Page_No_Per_Block`"]);
    let xml = read("mqsim-small.xml").replace(">16</Queue_Fetch_Size>", ">0</Queue_Fetch_Size>");
    let f = tmp_file("import-range.xml", &xml);
    ssdlab(["config", "import", &f]).assert_input_error(&[
        &f,
        "element <Device_Parameter_Set/Queue_Fetch_Size>",
        "1..=65535",
    ]);
    let text =
        read("ssdsim-small.parameters").replace("overprovide = 0.20;", "overprovide = 1.20;");
    let f = tmp_file("import-range.parameters", &text);
    ssdlab(["config", "import", &f]).assert_input_error(&[
        &f,
        "line 24",
        "`overprovide` = \"1.20\"",
    ]);
    let text =
        read("ssdsim-small.parameters").replace("chip number[1] = 2;", "chip number[1] = 3;");
    let f = tmp_file("import-chips.parameters", &text);
    ssdlab(["config", "import", &f]).assert_input_error(&[&f, "line 4", "chip number[1]"]);
}
