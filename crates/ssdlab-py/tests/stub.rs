//! The extension's type stub (`python/ssdlab/_native.pyi`) declares exactly what the
//! module registers (`src/lib.rs`): every function, exception and constant, and
//! nothing else.

use std::collections::BTreeSet;

const LIB: &str = include_str!("../src/lib.rs");
const STUB: &str = include_str!("../python/ssdlab/_native.pyi");

/// The names `#[pymodule]` adds: `m.add("NAME", …)` and `wrap_pyfunction!(name, m)`.
fn registered() -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for line in LIB.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("m.add(\"") {
            names.insert(rest.split('"').next().unwrap().to_string());
        }
        if let Some(rest) = line.split("wrap_pyfunction!(").nth(1) {
            names.insert(rest.split(',').next().unwrap().trim().to_string());
        }
    }
    names
}

/// The top-level names the stub declares: `def name(`, `class Name`, `NAME: type`.
fn declared() -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for line in STUB.lines() {
        let ident = |s: &str| {
            s.chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect::<String>()
        };
        if let Some(rest) = line.strip_prefix("def ") {
            names.insert(ident(rest));
        } else if let Some(rest) = line.strip_prefix("class ") {
            names.insert(ident(rest));
        } else if !line.starts_with([' ', '#', '"', '\'', ')']) && line.contains(':') {
            let name = ident(line);
            if !name.is_empty() && line[name.len()..].starts_with(':') {
                names.insert(name);
            }
        }
    }
    names
}

#[test]
fn the_stub_declares_what_the_module_registers() {
    let (module, stub) = (registered(), declared());
    assert!(module.len() >= 10, "{module:?}");
    assert_eq!(module, stub, "src/lib.rs registers, the .pyi declares");
}
