//! The shape of the source tree (docs/ARCHITECTURE.md §16): every source file holds at most
//! 500 lines of non-test code, and the simulator's files do not import each other in a
//! circle.
//!
//! The import graph has one node per file of `crates/ssdlab/src` (its module path:
//! `sim/raid.rs` is `sim::raid`, `sim/mod.rs` is `sim`). A file depends on a module when
//! its non-test code names it through a `use` (groups included) or a path that starts
//! with `crate::`, `$crate::`, `super::` or `self::`. A path is cut to the longest prefix
//! that is a module with a file, then followed through that module's own `use`
//! bindings, so `super::Foo` where `sim/mod.rs` says `use host::Foo` counts as an import
//! of `sim::host`. Edges between a module and its ancestors (a parent that declares and
//! uses its child, a child that uses its parent's types) are not counted: only modules
//! where neither contains the other can form a cycle.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

/// Most lines of non-test code one source file may hold.
const MAX_LINES: usize = 500;

/// `crates/` of the workspace.
fn crates_dir() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .parent()
        .expect("crates/ssdlab has a parent")
        .to_path_buf()
}

/// Every `.rs` file under `dir`, sorted.
fn rs_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            out.extend(rs_files(&p));
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
    out
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Lines before the first line that starts with `#[cfg(test)]`.
fn non_test_lines(text: &str) -> usize {
    text.lines()
        .take_while(|l| !l.trim_start().starts_with("#[cfg(test)]"))
        .count()
}

/// Files (and directories) of modules declared `#[cfg(test)] mod name;` under `src`.
fn test_only_paths(src: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for file in rs_files(src) {
        let stem = file.file_stem().unwrap_or_default();
        let dir = file.parent().expect("a file has a directory");
        let children = if ["lib", "main", "mod"]
            .map(std::ffi::OsStr::new)
            .contains(&stem)
        {
            dir.to_path_buf()
        } else {
            dir.join(stem)
        };
        let mut previous = "";
        for line in read(&file).lines().map(str::trim) {
            if previous == "#[cfg(test)]" {
                let decl = line
                    .trim_start_matches("pub(crate) ")
                    .trim_start_matches("pub ");
                if let Some(name) = decl.strip_prefix("mod ").and_then(|r| r.strip_suffix(';')) {
                    out.push(children.join(format!("{name}.rs")));
                    out.push(children.join(name));
                }
            }
            if !line.is_empty() {
                previous = line;
            }
        }
    }
    out
}

#[test]
fn source_files_hold_at_most_500_lines_of_non_test_code() {
    let crates = crates_dir();
    let mut offenders = Vec::new();
    for krate in rs_dirs(&crates) {
        let src = krate.join("src");
        if !src.is_dir() {
            continue;
        }
        let test_only = test_only_paths(&src);
        for file in rs_files(&src) {
            if test_only.iter().any(|t| file.starts_with(t)) {
                continue;
            }
            let n = non_test_lines(&read(&file));
            if n > MAX_LINES {
                let rel = file.strip_prefix(&crates).unwrap_or(&file);
                offenders.push(format!("{} ({n} lines)", rel.display()));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "{} files hold more than {MAX_LINES} lines before their first #[cfg(test)]:\n  {}",
        offenders.len(),
        offenders.join("\n  ")
    );
}

/// The directories of `dir`, sorted.
fn rs_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a directory entry").path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

#[test]
fn simulator_files_do_not_import_each_other_in_a_circle() {
    let src = crates_dir().join("ssdlab/src");
    let files: Vec<(String, String)> = rs_files(&src)
        .iter()
        .map(|f| {
            let rel = f.strip_prefix(&src).expect("under src");
            (rel.to_string_lossy().replace('\\', "/"), read(f))
        })
        .collect();
    let graph = ImportGraph::build(&files);
    let cycles = graph.cycles();
    assert!(
        cycles.is_empty(),
        "import cycles among the files of crates/ssdlab/src: {}\n{}",
        cycles.len(),
        cycles.join("\n")
    );
}

// ---------------------------------------------------------------------------------------
// Cycle detection.

/// A group of nodes that reach each other, and one cycle through them.
#[derive(Debug, PartialEq)]
struct Cycle<N> {
    /// Every node of the group (a strongly connected component).
    members: BTreeSet<N>,
    /// The shortest cycle through the group's smallest node, as `[a, b, …, a]`.
    path: Vec<N>,
}

/// One [`Cycle`] per strongly connected component of more than one node.
fn find_cycles<N: Ord + Clone>(graph: &BTreeMap<N, BTreeSet<N>>) -> Vec<Cycle<N>> {
    let mut cycles = Vec::new();
    for scc in strongly_connected(graph) {
        if scc.len() < 2 {
            continue;
        }
        let start = scc.iter().next().expect("not empty").clone();
        // Breadth-first inside the component, back to `start`.
        let mut parent: BTreeMap<N, N> = BTreeMap::new();
        let mut queue = VecDeque::from([start.clone()]);
        let mut last = None;
        'search: while let Some(u) = queue.pop_front() {
            for v in graph.get(&u).into_iter().flatten() {
                if *v == start {
                    last = Some(u);
                    break 'search;
                }
                if scc.contains(v) && !parent.contains_key(v) {
                    parent.insert(v.clone(), u.clone());
                    queue.push_back(v.clone());
                }
            }
        }
        let mut path = vec![start.clone()];
        let mut at = last.expect("a component of two or more nodes has a cycle");
        while at != start {
            path.push(at.clone());
            at = parent[&at].clone();
        }
        path.push(start);
        path.reverse();
        cycles.push(Cycle { members: scc, path });
    }
    cycles
}

/// Tarjan's strongly connected components.
fn strongly_connected<N: Ord + Clone>(graph: &BTreeMap<N, BTreeSet<N>>) -> Vec<BTreeSet<N>> {
    struct State<N> {
        index: BTreeMap<N, usize>,
        low: BTreeMap<N, usize>,
        stack: Vec<N>,
        on_stack: BTreeSet<N>,
        out: Vec<BTreeSet<N>>,
    }
    fn visit<N: Ord + Clone>(g: &BTreeMap<N, BTreeSet<N>>, v: &N, s: &mut State<N>) {
        let i = s.index.len();
        s.index.insert(v.clone(), i);
        s.low.insert(v.clone(), i);
        s.stack.push(v.clone());
        s.on_stack.insert(v.clone());
        for w in g.get(v).into_iter().flatten() {
            if !s.index.contains_key(w) {
                visit(g, w, s);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v.clone(), low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v.clone(), low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut scc = BTreeSet::new();
            loop {
                let w = s.stack.pop().expect("v is on the stack");
                s.on_stack.remove(&w);
                let done = w == *v;
                scc.insert(w);
                if done {
                    break;
                }
            }
            s.out.push(scc);
        }
    }
    let mut s = State {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v) {
            visit(graph, v, &mut s);
        }
    }
    s.out.sort();
    s.out
}

// ---------------------------------------------------------------------------------------
// Reading the imports of Rust source.

/// A module's path from the crate root: `[]` for `lib.rs`, `[sim, raid]` for `sim/raid.rs`.
type ModPath = Vec<String>;

fn module_path(rel_file: &str) -> ModPath {
    let mut parts: Vec<String> = rel_file.split('/').map(str::to_string).collect();
    let last = parts.pop().expect("a file name");
    let stem = last.strip_suffix(".rs").expect("a .rs file");
    let root = parts.is_empty() && (stem == "lib" || stem == "main");
    if stem != "mod" && !root {
        parts.push(stem.to_string());
    }
    parts
}

/// `a` contains `b` (or is `b`).
fn is_ancestor(a: &[String], b: &[String]) -> bool {
    b.starts_with(a)
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    PathSep,
    Punct(char),
}

/// `text` with comments and string and character literals blanked out (newlines kept).
fn strip(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    let mut i = 0;
    // Appends the blanked form of c[from..to].
    let blank = |out: &mut String, from: usize, to: usize| {
        out.extend(
            c[from..to]
                .iter()
                .map(|&ch| if ch == '\n' { '\n' } else { ' ' }),
        );
    };
    while i < c.len() {
        let next = c.get(i + 1).copied();
        if c[i] == '/' && next == Some('/') {
            let end = (i..c.len()).find(|&j| c[j] == '\n').unwrap_or(c.len());
            blank(&mut out, i, end);
            i = end;
        } else if c[i] == '/' && next == Some('*') {
            let (mut depth, mut j) = (0, i);
            while j < c.len() {
                if c[j] == '/' && c.get(j + 1) == Some(&'*') {
                    depth += 1;
                    j += 2;
                } else if c[j] == '*' && c.get(j + 1) == Some(&'/') {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j.min(c.len()));
            i = j;
        } else if (c[i] == 'r' || (c[i] == 'b' && next == Some('r')))
            && (i == 0 || !ident(c[i - 1]))
            && raw_string_end(&c, i).is_some()
        {
            let end = raw_string_end(&c, i).expect("checked");
            blank(&mut out, i, end);
            i = end;
        } else if c[i] == '"' {
            let mut j = i + 1;
            while j < c.len() && c[j] != '"' {
                j += if c[j] == '\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(c.len());
            blank(&mut out, i, end);
            i = end;
        } else if c[i] == '\'' && next == Some('\\') {
            let end = (i + 3..c.len())
                .find(|&j| c[j] == '\'')
                .map_or(c.len(), |j| j + 1);
            blank(&mut out, i, end);
            i = end;
        } else if c[i] == '\'' && c.get(i + 2) == Some(&'\'') {
            blank(&mut out, i, i + 3);
            i += 3;
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// End of the raw string (`r"…"`, `r#"…"#`, `br"…"`) starting at `i`, if one does.
fn raw_string_end(c: &[char], i: usize) -> Option<usize> {
    let mut j = i + if c[i] == 'b' { 2 } else { 1 };
    let hashes = c[j..].iter().take_while(|&&ch| ch == '#').count();
    j += hashes;
    if c.get(j) != Some(&'"') {
        return None;
    }
    let close: Vec<char> = std::iter::once('"')
        .chain(std::iter::repeat_n('#', hashes))
        .collect();
    (j + 1..c.len())
        .find(|&k| c[k..].starts_with(&close))
        .map(|k| k + close.len())
}

/// Tokens with their 1-based line; `$crate` is read as `crate`.
fn tokens(text: &str) -> Vec<(Tok, usize)> {
    let c: Vec<char> = strip(text).chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < c.len() {
        let ch = c[i];
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch.is_alphanumeric() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            if !ch.is_ascii_digit() {
                out.push((Tok::Ident(c[start..i].iter().collect()), line));
            }
        } else if ch == ':' && c.get(i + 1) == Some(&':') {
            out.push((Tok::PathSep, line));
            i += 2;
        } else if ch == '$' && c[i + 1..].starts_with(&['c', 'r', 'a', 't', 'e']) {
            i += 1;
        } else {
            out.push((Tok::Punct(ch), line));
            i += 1;
        }
    }
    out
}

/// A path a file names, as written, with where.
#[derive(Clone, Debug)]
struct Mention {
    /// Absolute path from the crate root, when it starts inside the crate.
    path: ModPath,
    /// The path as written, e.g. `super::host::ReadOutcome`.
    text: String,
    line: usize,
}

/// What one file's non-test code names, and the names its top-level `use`s bind.
#[derive(Debug, Default)]
struct FileImports {
    mentions: Vec<Mention>,
    /// Name ↦ absolute path, for `use` items at the top level of the file's module.
    bindings: BTreeMap<String, ModPath>,
}

fn is_punct(t: Option<&(Tok, usize)>, ch: char) -> bool {
    matches!(t, Some((Tok::Punct(p), _)) if *p == ch)
}

fn is_ident(t: Option<&(Tok, usize)>, name: &str) -> bool {
    matches!(t, Some((Tok::Ident(s), _)) if s == name)
}

/// Skips the item after `#[cfg(test)]` (which ends before `i`): through its `;` or its
/// braced body, or up to a `,` or closing bracket of the enclosing construct.
fn skip_item(toks: &[(Tok, usize)], mut i: usize) -> usize {
    let mut depth = 0i32;
    while i < toks.len() {
        match &toks[i].0 {
            Tok::Punct('(' | '[') => depth += 1,
            Tok::Punct(')' | ']') if depth == 0 => return i,
            Tok::Punct(')' | ']') => depth -= 1,
            Tok::Punct('{') if depth == 0 => return matching_brace(toks, i) + 1,
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') if depth == 0 => return i,
            Tok::Punct('}') => depth -= 1,
            Tok::Punct(';') if depth == 0 => return i + 1,
            Tok::Punct(',') if depth == 0 => return i + 1,
            _ => {}
        }
        i += 1;
    }
    i
}

fn matching_brace(toks: &[(Tok, usize)], open: usize) -> usize {
    let mut depth = 0;
    for (j, (t, _)) in toks.iter().enumerate().skip(open) {
        match t {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                depth -= 1;
                if depth == 0 {
                    return j;
                }
            }
            _ => {}
        }
    }
    toks.len()
}

/// Reads one use tree at `i` (after `use`, or inside a group) into `out` as
/// (segments, bound name); a glob binds no name.
fn use_tree(
    toks: &[(Tok, usize)],
    i: &mut usize,
    prefix: &[String],
    out: &mut Vec<(Vec<String>, Option<String>)>,
) {
    let mut path = prefix.to_vec();
    while *i < toks.len() {
        match &toks[*i].0 {
            Tok::PathSep => *i += 1,
            Tok::Ident(s) => {
                path.push(s.clone());
                *i += 1;
                if matches!(toks.get(*i), Some((Tok::PathSep, _))) {
                    *i += 1;
                    continue;
                }
                if path.last().is_some_and(|s| s == "self") {
                    path.pop();
                }
                let mut name = path.last().cloned();
                if is_ident(toks.get(*i), "as") {
                    name = match toks.get(*i + 1) {
                        Some((Tok::Ident(alias), _)) if alias != "_" => Some(alias.clone()),
                        _ => None,
                    };
                    *i += 2;
                }
                out.push((path, name));
                return;
            }
            Tok::Punct('*') => {
                *i += 1;
                out.push((path, None));
                return;
            }
            Tok::Punct('{') => {
                *i += 1;
                while *i < toks.len() && !is_punct(toks.get(*i), '}') {
                    let before = *i;
                    use_tree(toks, i, &path, out);
                    if is_punct(toks.get(*i), ',') || *i == before {
                        *i += 1;
                    }
                }
                *i += 1;
                return;
            }
            _ => return,
        }
    }
}

/// The absolute path of `segs` named in module `cur`; `None` outside the crate. A
/// first segment that is neither `crate`, `self` nor `super` is taken as a child
/// module of `cur` when `in_use` and such a child has a file.
fn absolute(segs: &[String], cur: &[String], modules: &BTreeSet<ModPath>) -> Option<ModPath> {
    let first = segs.first()?;
    match first.as_str() {
        "crate" => Some(segs[1..].to_vec()),
        "self" => Some([cur, &segs[1..]].concat()),
        "super" => {
            let supers = segs.iter().take_while(|s| *s == "super").count();
            let base = cur.get(..cur.len().checked_sub(supers)?)?;
            Some([base, &segs[supers..]].concat())
        }
        _ => {
            let child = [cur, &segs[..1]].concat();
            modules.contains(&child).then(|| [cur, segs].concat())
        }
    }
}

/// Reads `text`, the file of module `module`.
fn file_imports(text: &str, module: &[String], modules: &BTreeSet<ModPath>) -> FileImports {
    let toks = tokens(text);
    let mut imports = FileImports::default();
    // Inline modules: (module path, brace depth inside it).
    let mut scopes: Vec<(ModPath, usize)> = vec![(module.to_vec(), 0)];
    let mut depth = 0;
    let mut i = 0;
    while i < toks.len() {
        let cur = scopes.last().expect("the file's module").0.clone();
        let t = &toks[i].0;
        let cfg_test = [
            Tok::Punct('#'),
            Tok::Punct('['),
            Tok::Ident("cfg".into()),
            Tok::Punct('('),
            Tok::Ident("test".into()),
            Tok::Punct(')'),
            Tok::Punct(']'),
        ];
        if toks.len() >= i + cfg_test.len()
            && toks[i..i + cfg_test.len()]
                .iter()
                .map(|(t, _)| t)
                .eq(cfg_test.iter())
        {
            i = skip_item(&toks, i + cfg_test.len());
            continue;
        }
        match t {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                depth -= 1;
                if scopes.len() > 1 && scopes.last().is_some_and(|s| s.1 > depth) {
                    scopes.pop();
                }
            }
            Tok::Ident(kw) if kw == "mod" && is_punct(toks.get(i + 2), '{') => {
                if let Some((Tok::Ident(name), _)) = toks.get(i + 1) {
                    depth += 1;
                    scopes.push(([&cur[..], std::slice::from_ref(name)].concat(), depth));
                    i += 3;
                    continue;
                }
            }
            Tok::Ident(kw) if kw == "use" => {
                let line = toks[i].1;
                let mut trees = Vec::new();
                i += 1;
                use_tree(&toks, &mut i, &[], &mut trees);
                for (segs, name) in trees {
                    let Some(path) = absolute(&segs, &cur, modules) else {
                        continue;
                    };
                    if let (Some(name), true) = (name, depth == 0 && scopes.len() == 1) {
                        imports.bindings.insert(name, path.clone());
                    }
                    let text = format!("use {}", segs.join("::"));
                    imports.mentions.push(Mention { path, text, line });
                }
                continue;
            }
            Tok::Ident(kw)
                if ["crate", "super", "self"].contains(&kw.as_str())
                    && matches!(toks.get(i + 1), Some((Tok::PathSep, _)))
                    && !(i > 0 && is_ident(toks.get(i - 1), "in")) =>
            {
                let line = toks[i].1;
                let mut segs = vec![kw.clone()];
                let mut j = i + 1;
                while let (Some((Tok::PathSep, _)), Some((Tok::Ident(s), _))) =
                    (toks.get(j), toks.get(j + 1))
                {
                    segs.push(s.clone());
                    j += 2;
                }
                if let Some(path) = absolute(&segs, &cur, modules) {
                    let text = segs.join("::");
                    imports.mentions.push(Mention { path, text, line });
                }
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    imports
}

/// The file-level import graph of one crate's sources.
struct ImportGraph {
    /// Module ↦ its file, relative to `src`.
    files: BTreeMap<ModPath, String>,
    /// Module ↦ module ↦ the first mention behind the edge.
    edges: BTreeMap<ModPath, BTreeMap<ModPath, Mention>>,
}

impl ImportGraph {
    /// From `(path relative to src, text)` of every file.
    fn build(sources: &[(String, String)]) -> ImportGraph {
        let files: BTreeMap<ModPath, String> = sources
            .iter()
            .map(|(rel, _)| (module_path(rel), rel.clone()))
            .collect();
        let modules: BTreeSet<ModPath> = files.keys().cloned().collect();
        let parsed: BTreeMap<ModPath, FileImports> = sources
            .iter()
            .map(|(rel, text)| {
                let m = module_path(rel);
                let imports = file_imports(text, &m, &modules);
                (m, imports)
            })
            .collect();
        let mut edges: BTreeMap<ModPath, BTreeMap<ModPath, Mention>> = BTreeMap::new();
        for (from, imports) in &parsed {
            let out = edges.entry(from.clone()).or_default();
            for mention in &imports.mentions {
                let to = resolve(&mention.path, &modules, &parsed, 8);
                if is_ancestor(from, &to) || is_ancestor(&to, from) {
                    continue;
                }
                out.entry(to).or_insert_with(|| mention.clone());
            }
        }
        ImportGraph { files, edges }
    }

    /// Every group of files that import each other: one cycle through it, with the
    /// mention behind each step, then all the imports inside the group.
    fn cycles(&self) -> Vec<String> {
        let graph: BTreeMap<ModPath, BTreeSet<ModPath>> = self
            .edges
            .iter()
            .map(|(from, to)| (from.clone(), to.keys().cloned().collect()))
            .collect();
        find_cycles(&graph)
            .iter()
            .map(|cycle| {
                let file = |m: &ModPath| self.files[m].as_str();
                let names: Vec<&str> = cycle.path.iter().map(file).collect();
                let mut s = format!("  {}", names.join(" → "));
                for pair in cycle.path.windows(2) {
                    let m = &self.edges[&pair[0]][&pair[1]];
                    s.push_str(&format!("\n    {}:{}: {}", file(&pair[0]), m.line, m.text));
                }
                if cycle.members.len() > cycle.path.len() - 1 {
                    let all: Vec<&str> = cycle.members.iter().map(file).collect();
                    s.push_str(&format!(
                        "\n  in a group that imports each other: {}",
                        all.join(", ")
                    ));
                }
                s.push_str("\n  every import inside the group:");
                for from in &cycle.members {
                    for (to, m) in &self.edges[from] {
                        if cycle.members.contains(to) {
                            let (f, t) = (file(from), file(to));
                            s.push_str(&format!("\n    {f} → {t} ({f}:{}: {})", m.line, m.text));
                        }
                    }
                }
                s
            })
            .collect()
    }
}

/// The module `path` refers to: its longest prefix that has a file, followed through
/// that module's `use` bindings (at most `budget` times).
fn resolve(
    path: &[String],
    modules: &BTreeSet<ModPath>,
    parsed: &BTreeMap<ModPath, FileImports>,
    budget: u32,
) -> ModPath {
    let len = (0..=path.len())
        .rev()
        .find(|&n| modules.contains(&path[..n]))
        .unwrap_or(0);
    let module = path[..len].to_vec();
    if let (Some(name), true) = (path.get(len), budget > 0) {
        if let Some(target) = parsed.get(&module).and_then(|f| f.bindings.get(name)) {
            let next = [&target[..], &path[len + 1..]].concat();
            if next != path {
                return resolve(&next, modules, parsed, budget - 1);
            }
        }
    }
    module
}

// ---------------------------------------------------------------------------------------
// Tests of the checks themselves.

fn graph(edges: &[(&'static str, &'static str)]) -> BTreeMap<&'static str, BTreeSet<&'static str>> {
    let mut g: BTreeMap<_, BTreeSet<_>> = BTreeMap::new();
    for &(a, b) in edges {
        g.entry(a).or_default().insert(b);
        g.entry(b).or_default();
    }
    g
}

#[test]
fn cycle_detector_finds_a_known_cycle() {
    let g = graph(&[("a", "b"), ("b", "c"), ("c", "a"), ("c", "d"), ("d", "e")]);
    let cycles = find_cycles(&g);
    assert_eq!(cycles.len(), 1, "{cycles:?}");
    assert_eq!(cycles[0].path, ["a", "b", "c", "a"]);
    assert_eq!(cycles[0].members, BTreeSet::from(["a", "b", "c"]));
    // Two separate cycles, and a shortcut: the shortest way back is reported.
    let g = graph(&[
        ("a", "b"),
        ("b", "c"),
        ("c", "a"),
        ("b", "a"),
        ("x", "y"),
        ("y", "x"),
        ("y", "a"),
    ]);
    let paths: Vec<_> = find_cycles(&g).into_iter().map(|c| c.path).collect();
    assert_eq!(paths, [vec!["a", "b", "a"], vec!["x", "y", "x"]]);
}

#[test]
fn cycle_detector_accepts_a_dag() {
    let g = graph(&[("a", "b"), ("a", "c"), ("b", "d"), ("c", "d"), ("d", "e")]);
    assert!(find_cycles(&g).is_empty());
    assert!(find_cycles(&graph(&[])).is_empty());
}

fn names(m: &ModPath) -> String {
    m.join("::")
}

/// The edges of a graph built from hand-written files, as `from -> to` strings.
fn edges_of(files: &[(&str, &str)]) -> Vec<String> {
    let sources: Vec<(String, String)> = files
        .iter()
        .map(|(f, t)| (f.to_string(), t.to_string()))
        .collect();
    let g = ImportGraph::build(&sources);
    g.edges
        .iter()
        .flat_map(|(from, to)| {
            to.keys()
                .map(move |t| format!("{} -> {}", names(from), names(t)))
        })
        .collect()
}

#[test]
fn module_paths_follow_the_file_layout() {
    assert_eq!(module_path("lib.rs"), Vec::<String>::new());
    assert_eq!(module_path("config.rs"), ["config"]);
    assert_eq!(module_path("sim/mod.rs"), ["sim"]);
    assert_eq!(module_path("sim/raid/job.rs"), ["sim", "raid", "job"]);
}

#[test]
fn imports_are_read_from_groups_paths_and_re_exports() {
    let files = [
        (
            "lib.rs",
            "pub mod a;\npub mod sim;\npub use sim::Simulation;\n",
        ),
        ("a.rs", "use crate::Simulation;\n"),
        (
            "sim/mod.rs",
            "mod fail;\nmod host;\nmod raid;\nuse host::Slab;\npub struct Simulation;\n",
        ),
        (
            "sim/fail.rs",
            "use super::{\n    host::{self, ReadOutcome},\n    Simulation,\n};\n",
        ),
        ("sim/host.rs", "fn f() -> super::raid::Plans { todo!() }\n"),
        (
            "sim/raid.rs",
            "// use super::fail::X;\nconst S: &str = \"super::fail::Y\";\n\
             fn g(x: &crate::sim::Slab) {}\n\
             #[cfg(test)]\nmod tests {\n    use super::super::fail::Z;\n}\n",
        ),
    ];
    assert_eq!(
        edges_of(&files),
        [
            // `crate::Simulation` is the root's re-export of `sim::Simulation`: an
            // ancestor of nothing here, so `a` depends on `sim`.
            "a -> sim",
            "sim::fail -> sim::host",
            "sim::host -> sim::raid",
            // `crate::sim::Slab` is `sim`'s import of `host::Slab`.
            "sim::raid -> sim::host",
        ]
    );
    let g = ImportGraph::build(
        &files
            .iter()
            .map(|(f, t)| (f.to_string(), t.to_string()))
            .collect::<Vec<_>>(),
    );
    assert_eq!(
        g.cycles(),
        ["  sim/host.rs → sim/raid.rs → sim/host.rs\n    \
          sim/host.rs:1: super::raid::Plans\n    \
          sim/raid.rs:3: crate::sim::Slab\n  \
          every import inside the group:\n    \
          sim/host.rs → sim/raid.rs (sim/host.rs:1: super::raid::Plans)\n    \
          sim/raid.rs → sim/host.rs (sim/raid.rs:3: crate::sim::Slab)"]
    );
}

#[test]
fn super_in_a_mod_rs_is_the_parent_of_its_directory() {
    let files = [
        ("lib.rs", "mod net;\nmod sim;\n"),
        ("net.rs", ""),
        ("sim/mod.rs", "mod raid;\nuse super::net::Bus;\n"),
        ("sim/raid/mod.rs", "mod job;\nuse self::job::Job;\n"),
        ("sim/raid/job.rs", "use super::super::super::net::Wire;\n"),
    ];
    assert_eq!(edges_of(&files), ["sim -> net", "sim::raid::job -> net"]);
}

#[test]
fn non_test_lines_stop_at_the_first_cfg_test() {
    assert_eq!(non_test_lines("a\nb\n#[cfg(test)]\nmod tests {}\n"), 2);
    assert_eq!(non_test_lines("a\nb\n"), 2);
    assert_eq!(non_test_lines("    #[cfg(test)]\n"), 0);
}
