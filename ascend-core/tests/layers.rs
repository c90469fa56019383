//! The layering of `ascend-core/src` (ARCHITECTURE.md, "What may import what"): no import
//! circle spans more than two files, and the two files of a circle sit in one folder.
//!
//! The test reads the sources and builds the graph of which file imports which: every `use`
//! of a `crate::`/`super::` path and every such path written out in code (comments and doc
//! comments do not count), resolved to the longest prefix that names a file. A module that
//! only declares a child (`mod scalar;`) does not import it. It then finds the strongly
//! connected components (Tarjan's algorithm) and reports each one that breaks the rule,
//! with the edges inside it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module's path inside the crate (`["memory", "tensor"]`; the crate root is `[]`).
type Module = Vec<String>;

fn modules(root: &Path) -> BTreeMap<Module, PathBuf> {
    fn walk(dir: &Path, root: &Path, out: &mut BTreeMap<Module, PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("read the source folder") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                walk(&path, root, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.strip_prefix(root).expect("under the root").with_extension("");
                let mut m: Module = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
                if m.last().is_some_and(|l| l == "mod" || l == "lib") {
                    m.pop();
                }
                out.insert(m, path);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// The source without comments (line comments, doc comments and block comments).
fn strip_comments(src: &str) -> String {
    // Character literals of a quote would open a string below.
    let src = src.replace("'\\\"'", "' '").replace("'\"'", "' '");
    let mut out = String::with_capacity(src.len());
    let mut rest = src.as_str();
    while let Some(i) = rest.find(['/', '"']) {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        if let Some(t) = tail.strip_prefix("//") {
            rest = t.find('\n').map_or("", |j| &t[j..]);
        } else if let Some(t) = tail.strip_prefix("/*") {
            rest = t.find("*/").map_or("", |j| &t[j + 2..]);
        } else if tail.starts_with('"') {
            // A string literal: kept as a blank, so a path in a message is not an import.
            let mut end = 1;
            let b = tail.as_bytes();
            while end < b.len() && b[end] != b'"' {
                end += if b[end] == b'\\' { 2 } else { 1 };
            }
            out.push_str("\"\"");
            rest = tail.get(end + 1..).unwrap_or("");
        } else {
            out.push('/');
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    out
}

/// Expands a use tree (`a::{b, c::{d, e}}`) into its paths.
fn expand(tree: &str) -> Vec<String> {
    let tree = tree.trim();
    let Some(open) = tree.find('{') else { return vec![tree.to_string()] };
    let prefix = tree[..open].trim_end_matches("::");
    let inner = &tree[open + 1..tree.rfind('}').expect("a closing brace")];
    let (mut parts, mut depth, mut cur) = (Vec::new(), 0, String::new());
    for ch in inner.chars() {
        match ch {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        if ch == ',' && depth == 0 {
            parts.push(std::mem::take(&mut cur));
        } else {
            cur.push(ch);
        }
    }
    parts.push(cur);
    parts
        .iter()
        .filter(|p| !p.trim().is_empty())
        .flat_map(|p| expand(p))
        .map(|p| if prefix.is_empty() { p } else { format!("{prefix}::{p}") })
        .collect()
}

fn is_ident(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// The `crate::`/`super::` paths a file names, as written.
fn paths(src: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = src;
    while let Some(i) = rest.find("use ") {
        let before = rest[..i].chars().last();
        let tail = &rest[i + 4..];
        let end = tail.find(';').unwrap_or(tail.len());
        if before.is_none_or(|c| !c.is_alphanumeric() && c != '_') {
            let tree: String = tail[..end].chars().filter(|c| !c.is_whitespace()).collect();
            out.extend(expand(&tree));
        }
        rest = &tail[end.min(tail.len())..];
    }
    for start in ["crate::", "super::"] {
        let mut at = 0;
        while let Some(i) = src[at..].find(start) {
            let i = at + i;
            let before = src[..i].chars().last();
            let len = src[i..]
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(src.len() - i);
            if before.is_none_or(|c| !c.is_alphanumeric() && c != '_' && c != '$') {
                out.push(src[i..i + len].trim_end_matches(':').to_string());
            }
            at = i + len.max(1);
        }
    }
    out
}

fn graph(root: &Path) -> BTreeMap<Module, BTreeSet<Module>> {
    let files = modules(root);
    let resolve = |path: &[String]| -> Option<Module> {
        (1..=path.len()).rev().map(|n| path[..n].to_vec()).find(|p| files.contains_key(p))
    };
    let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (m, file) in &files {
        let src = strip_comments(&std::fs::read_to_string(file).expect("read a source file"));
        for path in paths(&src) {
            let segs: Vec<&str> = path.split("::").collect();
            let (mut base, mut segs): (Module, &[&str]) = match segs[0] {
                "crate" => (Vec::new(), &segs[1..]),
                // `super` is the parent of the module the file is (`a/y.rs` is `a::y`).
                "super" => (m.clone(), &segs[..]),
                _ => continue,
            };
            while let Some((&"super", rest)) = segs.split_first() {
                base.pop();
                segs = rest;
            }
            base.extend(segs.iter().filter(|s| is_ident(s) && **s != "self").map(|s| s.to_string()));
            if let Some(t) = resolve(&base) {
                if &t != m && !t.is_empty() {
                    edges.entry(m.clone()).or_default().insert(t);
                }
            }
        }
        edges.entry(m.clone()).or_default();
    }
    edges
}

/// Tarjan's strongly connected components.
fn components(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    struct State<'a> {
        edges: &'a BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<&'a Module, (usize, usize)>,
        stack: Vec<&'a Module>,
        on: BTreeSet<&'a Module>,
        next: usize,
        out: Vec<Vec<Module>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a Module) {
        s.index.insert(v, (s.next, s.next));
        s.next += 1;
        s.stack.push(v);
        s.on.insert(v);
        for w in &s.edges[v] {
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.index[w].1;
                let e = s.index.get_mut(v).unwrap();
                e.1 = e.1.min(lw);
            } else if s.on.contains(w) {
                let iw = s.index[w].0;
                let e = s.index.get_mut(v).unwrap();
                e.1 = e.1.min(iw);
            }
        }
        let (i, low) = s.index[v];
        if i == low {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on.remove(w);
                comp.push(w.clone());
                if w == v {
                    break;
                }
            }
            s.out.push(comp);
        }
    }
    let mut s = State {
        edges,
        index: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out
}

fn name(m: &Module) -> String {
    if m.is_empty() {
        "lib".into()
    } else {
        m.join("/")
    }
}

/// The import circles under `root` that break the rule, each with its edges.
fn bad_circles(root: &Path) -> Vec<String> {
    let edges = graph(root);
    let mut bad = Vec::new();
    for comp in components(&edges).into_iter().filter(|c| c.len() > 1) {
        let folders: BTreeSet<&[String]> = comp.iter().map(|m| &m[..m.len() - 1]).collect();
        if comp.len() > 2 || folders.len() > 1 {
            let set: BTreeSet<&Module> = comp.iter().collect();
            let mut lines: Vec<String> = comp
                .iter()
                .map(|a| {
                    let to: Vec<String> = edges[a].iter().filter(|b| set.contains(b)).map(name).collect();
                    format!("  {} -> {}", name(a), to.join(", "))
                })
                .collect();
            lines.sort();
            bad.push(format!("a circle of {} files:\n{}", comp.len(), lines.join("\n")));
        }
    }
    bad
}

#[test]
fn no_import_circle_spans_more_than_two_files_of_one_folder() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = modules(&root).len();
    assert!(files > 100, "the walk found only {files} files under {}", root.display());
    let bad = bad_circles(&root);
    assert!(bad.is_empty(), "import circles in ascend-core/src (see ARCHITECTURE.md):\n{}", bad.join("\n"));
}

/// The check on a made-up crate: two files of one folder that import each other pass; a
/// circle through a second folder, or of three files, is reported.
#[test]
fn the_check_reports_circles_across_folders_and_of_three_files() {
    let root = std::env::temp_dir().join(format!("ascend-layers-{}", std::process::id()));
    let write = |path: &str, text: &str| {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write("lib.rs", "mod a; mod b;");
    write("a/mod.rs", "mod x; mod y;");
    write("a/x.rs", "use crate::a::y::Y; pub struct X;");
    write("a/y.rs", "use super::x::X; pub struct Y; // crate::b::z::Z in a comment");
    write("b/mod.rs", "mod z;");
    write("b/z.rs", "pub struct Z; const S: &str = \"crate::a::x\";");
    assert_eq!(bad_circles(&root), Vec::<String>::new());
    write("b/z.rs", "pub struct Z; fn f() { let _ = crate::a::x::X; }");
    write("a/y.rs", "use super::x::X; use crate::b::z::Z; pub struct Y;");
    let bad = bad_circles(&root);
    std::fs::remove_dir_all(&root).unwrap();
    assert_eq!(bad, ["a circle of 3 files:\n  a/x -> a/y\n  a/y -> a/x, b/z\n  b/z -> a/x"]);
}

#[test]
fn the_graph_sees_imports_and_ignores_comments_and_strings() {
    let src = strip_comments(
        "use crate::a::{b, c::{d, e}};\n// crate::x::y\nlet s = \"crate::z\"; f(crate::p::q);",
    );
    let mut p = paths(&src);
    p.sort();
    assert_eq!(p, ["crate::a", "crate::a::b", "crate::a::c::d", "crate::a::c::e", "crate::p::q"]);
}
