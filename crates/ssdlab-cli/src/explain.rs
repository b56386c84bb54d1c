//! `ssdlab config show PRESET --explain`: the resolved configuration, each key the
//! preset sets carrying the preset file's own comment for its line (the citation of the
//! paper it comes from), each key left at its default marked `(default)`, with its meaning from
//! the configuration reference. Only comments are added, so the output is still a
//! configuration file that resolves to the preset.

use crate::Failure;
use ssdlab::config::doc::reference;
use ssdlab::SimConfig;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The column comments start at (the presets' own).
const COMMENT_COLUMN: usize = 32;

/// What a preset file says beside its values.
#[derive(Debug, Default, PartialEq)]
pub struct PresetComments {
    /// The comment lines before the first table or key.
    pub head: Vec<String>,
    /// The comment on each key's line, by full dotted key (`""` when the line has none).
    pub keys: BTreeMap<String, String>,
    /// The comment on each table header's line, by table.
    pub tables: BTreeMap<String, String>,
    /// Comment lines after the head (notes that belong to no single key).
    pub notes: Vec<String>,
}

/// Where a line's comment starts: the first `#` outside a string.
fn comment_start(line: &str) -> Option<usize> {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        match quote {
            Some('"') if escaped => escaped = false,
            Some('"') if c == '\\' => escaped = true,
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == '#' => return Some(i),
            None => {}
        }
    }
    None
}

/// Reads the comments of a preset file, line by line: a `[table]` header, a `key =
/// value` line (one line each, as the presets write them), or a comment line.
pub fn preset_comments(text: &str) -> PresetComments {
    let mut out = PresetComments::default();
    let mut table = String::new();
    let mut in_head = true;
    for line in text.lines() {
        let (body, comment) = match comment_start(line) {
            Some(i) => (line[..i].trim(), line[i + 1..].trim()),
            None => (line.trim(), ""),
        };
        if body.is_empty() {
            if !comment.is_empty() || line.trim_start().starts_with('#') {
                let kept = line.trim_start().trim_start_matches('#').trim_end();
                let kept = kept.strip_prefix(' ').unwrap_or(kept).to_string();
                if in_head {
                    out.head.push(kept);
                } else {
                    out.notes.push(kept);
                }
            }
            continue;
        }
        in_head = false;
        if let Some(name) = body.strip_prefix('[').and_then(|b| b.strip_suffix(']')) {
            table = name.trim().to_string();
            out.tables.insert(table.clone(), comment.to_string());
        } else if let Some((key, _)) = body.split_once('=') {
            let key = key.trim().trim_matches('"');
            let full = if table.is_empty() {
                key.to_string()
            } else {
                format!("{table}.{key}")
            };
            out.keys.insert(full, comment.to_string());
        }
    }
    while out.head.last().is_some_and(String::is_empty) {
        out.head.pop();
    }
    out
}

/// `line` with `# comment` after it, at the presets' comment column.
fn commented(line: &str, comment: &str) -> String {
    if comment.is_empty() {
        return line.to_string();
    }
    let pad = COMMENT_COLUMN.saturating_sub(line.chars().count()).max(1);
    format!("{line}{}# {comment}", " ".repeat(pad))
}

/// The explained configuration of preset `name`.
///
/// # Errors
/// An unknown preset (exit code 2).
pub fn explain(name: &str) -> Result<String, Failure> {
    let cfg = SimConfig::preset(name).map_err(Failure::input)?;
    let text = ssdlab::presets::text(name).expect("a preset that resolves has a text");
    let mut comments = preset_comments(text);
    // A preset layered over a base: the base's keys keep the base's comments.
    let mut base = ssdlab::presets::base(name);
    while let Some(b) = base {
        let under = preset_comments(ssdlab::presets::text(b).expect("a base preset has a text"));
        for (k, c) in under.keys {
            comments.keys.entry(k).or_insert(c);
        }
        for (t, c) in under.tables {
            comments.tables.entry(t).or_insert(c);
        }
        base = ssdlab::presets::base(b);
    }
    let summaries: BTreeMap<String, String> = reference()
        .into_iter()
        .map(|d| (d.key.clone(), d.summary()))
        .collect();
    let mut out = String::new();
    for line in &comments.head {
        let _ = writeln!(out, "#{}{line}", if line.is_empty() { "" } else { " " });
    }
    let _ = writeln!(
        out,
        "#\n# `ssdlab config show {name} --explain`: every key resolved; a key the preset sets\n\
         # carries the preset's comment, a key it leaves out says `(default)` and its meaning.\n"
    );
    let mut table = String::new();
    for line in cfg.to_toml().lines() {
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            table = name.to_string();
            let comment = comments.tables.get(&table).map_or("", String::as_str);
            out.push_str(&commented(line, comment));
        } else if let Some((key, _)) = line.split_once(" = ") {
            let full = if table.is_empty() {
                key.to_string()
            } else {
                format!("{table}.{key}")
            };
            let comment = match comments.keys.get(&full) {
                Some(c) if !c.is_empty() => c.clone(),
                Some(_) => "(set by the preset)".to_string(),
                None => format!(
                    "(default) {}",
                    summaries.get(&full).map_or("", String::as_str)
                ),
            };
            out.push_str(&commented(line, &comment));
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    if !comments.notes.is_empty() {
        out.push('\n');
        for note in &comments.notes {
            let _ = writeln!(out, "# {note}");
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ssdlab::ConfigBuilder;

    #[test]
    fn comments_are_read_outside_strings() {
        let c = preset_comments(
            "# preset x\n#\n# about it\n\nseed = 1 # a seed\n[raid]  # the array\n\
             fail = [\"chip:1@0.5\"] # one # two\nlevel = 5\n# a note\n",
        );
        assert_eq!(c.head, ["preset x", "", "about it"]);
        assert_eq!(c.keys["seed"], "a seed");
        assert_eq!(c.keys["raid.fail"], "one # two");
        assert_eq!(c.keys["raid.level"], "");
        assert_eq!(c.tables["raid"], "the array");
        assert_eq!(c.notes, ["a note"]);
        assert_eq!(comment_start("a = \"#\\\"#\" # c"), Some(11));
    }

    /// The line reader finds every key a preset sets, as the TOML parser does.
    #[test]
    fn every_preset_key_is_found() {
        fn keys(prefix: &str, t: &toml::Table, out: &mut Vec<String>) {
            for (k, v) in t {
                let path = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                match v {
                    toml::Value::Table(inner) => keys(&path, inner, out),
                    _ => out.push(path),
                }
            }
        }
        for name in ssdlab::presets::NAMES {
            let text = ssdlab::presets::text(name).unwrap();
            let mut parsed = Vec::new();
            keys("", &text.parse().unwrap(), &mut parsed);
            parsed.sort();
            let found: Vec<String> = preset_comments(text).keys.into_keys().collect();
            assert_eq!(found, parsed, "{name}");
        }
    }

    #[test]
    fn explained_presets_resolve_to_the_presets() {
        for name in ssdlab::presets::NAMES {
            let out = explain(name).unwrap_or_else(|f| panic!("{name}: {:#}", f.err));
            let again = ConfigBuilder::new()
                .text(&out, "explained")
                .unwrap()
                .build()
                .unwrap_or_else(|e| panic!("{name}: {e}\n{out}"));
            assert_eq!(again, SimConfig::preset(name).unwrap(), "{name}");
        }
    }

    #[test]
    fn set_keys_carry_the_preset_comment_and_defaults_their_meaning() {
        let out = explain("brr").unwrap_or_else(|f| panic!("{:#}", f.err));
        let line = |start: &str| {
            out.lines()
                .find(|l| l.starts_with(start))
                .unwrap_or_else(|| panic!("no {start}\n{out}"))
                .to_string()
        };
        assert!(
            line("blocks_per_plane = 16384").ends_with("# Table I: \"# of blocks per chip 16384\"")
        );
        assert!(out.starts_with("# preset brr\n"), "{out}");
        assert!(line("[ftl.hipa]").contains("# not used (allocation is static"));
        let out = explain("paq").unwrap_or_else(|f| panic!("{:#}", f.err));
        let line = out
            .lines()
            .find(|l| l.starts_with("aging = "))
            .expect("aging");
        assert!(
            line.ends_with("# (default) How the random overwrites are carried out: page by page over the whole device, or replayed on a few sample planes whose state every plane then takes."),
            "{line}"
        );
    }

    /// A preset over a base: the base's keys keep the base's comments, its own keys carry
    /// its own, and nothing the base sets reads `(default)`.
    #[test]
    fn a_layered_preset_keeps_its_base_comments() {
        let out = explain("tlc-1tb-hmb").unwrap_or_else(|f| panic!("{:#}", f.err));
        let line = |start: &str| {
            out.lines()
                .find(|l| l.starts_with(start))
                .unwrap_or_else(|| panic!("no {start}\n{out}"))
                .to_string()
        };
        assert!(out.starts_with("# preset tlc-1tb-hmb\n"), "{out}");
        assert!(line("planes_per_die = 4").contains("ISSCC 2021"));
        assert!(line("mapping = \"cached\"").contains("DRAM-less"));
        assert!(line("mode = \"off\"").contains("no DRAM on the drive"));
        let base = preset_comments(ssdlab::presets::text("tlc-1tb").unwrap());
        assert!(base.keys.contains_key("geometry.planes_per_die"));
    }
}
