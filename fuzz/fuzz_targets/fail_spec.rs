//! `--fail` specs: parsed or refused, never a panic; what parses prints back to a spec
//! that parses to the same value.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssdlab_raid::FailSpec;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(spec) = FailSpec::parse(text) {
        let shown = spec.to_string();
        let again = FailSpec::parse(&shown).expect("a printed spec parses");
        assert_eq!(spec, again, "{text:?} -> {shown:?}");
    }
});
