
#[test]
fn the_layer_with_todays_times_changes_nothing() {
    // The NAND layer on (a one-entry list) with the SLC times: every array end goes
    // through the heap with an epoch instead of the lanes, and the run is the same.
    let reqs = mixed(2_000, 5_000, 40_000, 40);
    let sets = ["geometry.pages_per_block=48", "verify=true"];
    let off = vec_sim(small_config(&sets), reqs.clone()).run().unwrap();
    let mut with = sets.to_vec();
    with.push("nand.t_read_ns_by_type=[25000]");
    let mut on = vec_sim(small_config(&with), reqs).run().unwrap();
    assert!(off.nand.is_none());
    let n = on.nand.take().expect("the layer reports");
    assert_eq!(n.reads_by_page_type[0].latency, off.response.read.map_or_else_read());
    on.meta = off.meta.clone();
    assert_eq!(on.to_json(), off.to_json());
}
