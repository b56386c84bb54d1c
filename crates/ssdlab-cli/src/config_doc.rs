//! `ssdlab config doc [KEY] [--markdown]`: the configuration reference, printed from
//! [`ssdlab::config::doc::reference`], which reads every key's meaning, type, default,
//! unit and allowed values from the configuration types themselves. docs/CONFIG.md is
//! the `--markdown` form (a test keeps it current).

use crate::Failure;
use anyhow::anyhow;
use ssdlab::config::doc::{reference, KeyDoc, ValueDoc};
use std::fmt::Write as _;

/// Text width of the plain form.
const WIDTH: usize = 88;

/// The command that writes docs/CONFIG.md.
pub const REGENERATE: &str = "cargo run -p ssdlab-cli -- config doc --markdown > docs/CONFIG.md";

/// The reference of every key, or of `key` (a full key, or a section and everything
/// under it), as text or Markdown.
///
/// # Errors
/// An unknown key (exit code 2), with the closest keys.
pub fn doc(key: Option<&str>, markdown: bool) -> Result<String, Failure> {
    let all = reference();
    let chosen = match key {
        None => all,
        Some(k) => select(&all, k)?,
    };
    Ok(if markdown {
        markdown_page(&chosen)
    } else {
        text(&chosen)
    })
}

/// The entries of `key` and, for a section, of everything under it.
fn select(all: &[KeyDoc], key: &str) -> Result<Vec<KeyDoc>, Failure> {
    let key = key.trim().trim_start_matches('[').trim_end_matches(']');
    let prefix = format!("{key}.");
    let chosen: Vec<KeyDoc> = all
        .iter()
        .filter(|d| d.key == key || d.key.starts_with(&prefix))
        .cloned()
        .collect();
    if !chosen.is_empty() {
        return Ok(chosen);
    }
    let near = closest(all, key);
    let hint = if near.is_empty() {
        String::new()
    } else {
        let names: Vec<String> = near.iter().map(|k| format!("`{k}`")).collect();
        format!("; did you mean {}?", names.join(", "))
    };
    Err(Failure::input(anyhow!(
        "unknown configuration key `{key}`{hint} (`ssdlab config doc` lists every key)"
    )))
}

/// Up to three keys close to `key`: the same last part, a key containing it, or a few
/// edits away.
pub fn closest(all: &[KeyDoc], key: &str) -> Vec<String> {
    let last = |k: &str| k.rsplit('.').next().unwrap_or(k).to_string();
    let mut scored: Vec<(usize, &str)> = all
        .iter()
        .filter_map(|d| {
            let k = d.key.as_str();
            let score = if last(k) == last(key) {
                0
            } else if k.contains(key) {
                1
            } else {
                let d = edits(k, key).min(edits(&last(k), &last(key)) + 1);
                if d > (key.len() / 3).max(2) {
                    return None;
                }
                1 + d
            };
            Some((score, k))
        })
        .collect();
    scored.sort();
    scored
        .into_iter()
        .take(3)
        .map(|(_, k)| k.to_string())
        .collect()
}

/// Levenshtein distance.
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (diag + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(row[j + 1] + 1);
            diag = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

/// `text` wrapped at [`WIDTH`], each line indented by `indent` (the first by `first`).
fn wrap(text: &str, first: &str, indent: &str) -> String {
    let mut out = String::new();
    let mut line = first.to_string();
    let mut empty = true;
    for word in text.split_whitespace() {
        if !empty && line.chars().count() + 1 + word.chars().count() > WIDTH {
            out.push_str(line.trim_end());
            out.push('\n');
            line = indent.to_string();
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    out.push_str(line.trim_end());
    out.push('\n');
    out
}

/// Type, default, unit and range of a key, in words, `sep` between them.
fn facts(d: &KeyDoc, code: fn(&str) -> String, sep: &str) -> String {
    let mut parts = vec![format!("type: {}", d.ty)];
    if let Some(v) = &d.default {
        parts.push(format!("default: {}", code(v)));
    }
    if let Some(u) = &d.unit {
        parts.push(format!("unit: {u}"));
    }
    match (&d.range, &d.constraint) {
        (Some(r), Some(c)) => parts.push(format!("range: {} and {c}", code(r))),
        (Some(r), None) => parts.push(format!("range: {}", code(r))),
        (None, Some(c)) => parts.push(format!("rule: {c}")),
        (None, None) => {}
    }
    parts.join(sep)
}

fn plain(s: &str) -> String {
    s.to_string()
}

fn backticked(s: &str) -> String {
    format!("`{s}`")
}

/// Whether the values carry meanings of their own (an enum) or are a bare list.
fn described(values: &[ValueDoc]) -> bool {
    values.iter().any(|v| !v.description.is_empty())
}

fn text(entries: &[KeyDoc]) -> String {
    let mut out = String::new();
    for d in entries {
        if d.section {
            let _ = writeln!(out, "[{}]", d.key);
            for p in &d.description {
                out.push_str(&wrap(p, "    ", "    "));
            }
            out.push('\n');
            continue;
        }
        let _ = writeln!(out, "{}", d.key);
        for p in &d.description {
            out.push_str(&wrap(p, "    ", "    "));
        }
        out.push_str(&wrap(&facts(d, plain, " · "), "    ", "      "));
        if described(&d.values) {
            out.push_str("    values:\n");
            let w = d.values.iter().map(|v| v.value.len()).max().unwrap_or(0);
            for v in &d.values {
                let first = format!("      {:<w$}  ", v.value);
                let indent = " ".repeat(first.len());
                let meaning = v.description.join(" ");
                out.push_str(&wrap(&meaning, &first, &indent));
            }
        } else if !d.values.is_empty() {
            let list: Vec<&str> = d.values.iter().map(|v| v.value.as_str()).collect();
            out.push_str(&wrap(&list.join(", "), "    values: ", "      "));
        }
        out.push('\n');
    }
    out
}

fn markdown_page(entries: &[KeyDoc]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Configuration reference\n\n\
         <!-- Generated from the configuration types' doc comments by `ssdlab config doc \
         --markdown`; do not edit. Regenerate: {REGENERATE} -->\n\n\
         Every key of the configuration document, with its type, default, unit, allowed \
         values and meaning. A configuration is layered: the built-in defaults, then \
         `--preset NAME` and/or `--config FILE` (partial TOML documents), then `--set \
         KEY=VALUE`. Unknown keys and inconsistent values are errors naming the key. \
         `ssdlab config doc KEY` prints one key or section; `ssdlab config show PRESET \
         --explain` shows a preset with the reason for each value it sets.\n"
    );
    let mut top = true;
    for d in entries {
        if d.section {
            top = false;
            let _ = writeln!(out, "## `[{}]`\n", d.key);
            for p in &d.description {
                let _ = writeln!(out, "{p}\n");
            }
            continue;
        }
        if top && !d.key.contains('.') {
            let _ = writeln!(out, "## Top level\n");
            top = false;
        }
        let _ = writeln!(out, "### `{}`\n", d.key);
        for p in &d.description {
            let _ = writeln!(out, "{p}\n");
        }
        let _ = writeln!(out, "- {}", facts(d, backticked, " · "));
        if described(&d.values) {
            let _ = writeln!(out, "- values:");
            for v in &d.values {
                let _ = writeln!(out, "  - `{}`: {}", v.value, v.description.join(" "));
            }
        } else if !d.values.is_empty() {
            let list: Vec<String> = d.values.iter().map(|v| backticked(&v.value)).collect();
            let _ = writeln!(out, "- values: {}", list.join(", "));
        }
        out.push('\n');
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_section_prints_its_keys_and_an_unknown_key_its_neighbours() {
        let out = doc(Some("ftl.gc"), false).unwrap_or_else(|f| panic!("{:#}", f.err));
        assert!(out.starts_with("[ftl.gc]\n"), "{out}");
        assert!(out.contains("\nftl.gc.victim\n"), "{out}");
        assert!(out.contains("\"cost-benefit\""), "{out}");
        assert!(!out.contains("ftl.wear_leveling"), "{out}");
        let one = doc(Some("ftl.gc.victim"), false).unwrap_or_else(|f| panic!("{:#}", f.err));
        assert!(one.starts_with("ftl.gc.victim\n"), "{one}");
        assert!(!one.contains("threshold_free_ratio"), "{one}");
        let all = reference();
        assert_eq!(closest(&all, "ftl.gc.victm"), ["ftl.gc.victim"]);
        assert_eq!(closest(&all, "victim")[0], "ftl.gc.victim");
        // The nearest first; farther keys within the distance may follow.
        assert_eq!(closest(&all, "geometry.chanels")[0], "geometry.channels");
        let err = doc(Some("ftl.gc.victm"), false).expect_err("unknown");
        assert_eq!(err.code, 2);
        let msg = format!("{:#}", err.err);
        assert!(msg.contains("`ftl.gc.victm`"), "{msg}");
        assert!(msg.contains("did you mean `ftl.gc.victim`"), "{msg}");
    }

    #[test]
    fn lines_are_wrapped_with_their_indent() {
        let w = wrap(&"word ".repeat(40), "    ", "      ");
        assert!(w.lines().all(|l| l.len() <= WIDTH), "{w}");
        assert!(w.lines().nth(1).unwrap().starts_with("      word"), "{w}");
        assert_eq!(edits("kitten", "sitting"), 3);
    }
}
