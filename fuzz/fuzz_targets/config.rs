//! A configuration document and `--set` overrides (the lines after a `%%` line): built
//! and validated, or refused with errors, never a panic; an accepted configuration
//! survives its own TOML.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssdlab::ConfigBuilder;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (doc, sets) = text.split_once("\n%%\n").unwrap_or((text, ""));
    let Ok(mut b) = ConfigBuilder::new().text(doc, "fuzz") else {
        return;
    };
    for s in sets.lines() {
        match b.set(s) {
            Ok(next) => b = next,
            Err(_) => return,
        }
    }
    if let Ok(cfg) = b.build() {
        let again = ConfigBuilder::new()
            .text(&cfg.to_toml(), "shown")
            .expect("a built configuration reads back")
            .build()
            .expect("a built configuration validates again");
        assert_eq!(cfg, again);
    }
});
