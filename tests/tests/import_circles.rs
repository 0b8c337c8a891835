//! No import circle inside a crate: the files of each crate stack in layers,
//! a lower file never uses an item of a higher one.
//!
//! The check reads each crate's `src/` as text (nothing is compiled): it
//! strips comments and string literals, follows `mod NAME { … }` blocks,
//! reads every `use` tree and every path that starts with `crate::`,
//! `super::`, `self::`, a child module's name or a module brought in by a
//! `use`, and resolves each path to the file that defines the item it names
//! (through the `use`/`pub use` re-exports of the module it passes, such as
//! `crate::Memory` re-exported by `lib.rs`). File A -> file B when A names an
//! item that B defines; a circle is a strongly connected group of two files
//! or more, reported with the names that tie each file to the next.
//!
//! Crates covered: every crate of the workspace — mem-core, mem-text
//! (mem-core/text), mem-lock, mem-transcript, mem-index, mem-dream,
//! mem-docs, mem-extract, mem-vocab, mem-recall, mem-hook — and this
//! crate's harness (tests/src).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The crates whose `src/` must be free of import circles, as paths from
/// the workspace root.
const CRATES: &[&str] = &[
    "mem-core",
    "mem-core/text",
    "mem-lock",
    "mem-transcript",
    "mem-index",
    "mem-dream",
    "mem-docs",
    "mem-extract",
    "mem-vocab",
    "mem-recall",
    "mem-hook",
    "tests",
];

#[test]
fn no_import_circle_inside_a_crate() {
    let root = mem_tests::workspace_root();
    let mut report = String::new();
    for krate in CRATES {
        let src = root.join(krate).join("src");
        let files = crate_files(&src);
        assert!(!files.is_empty(), "{}: no Rust files", src.display());
        for circle in circles(&files) {
            let tied: BTreeSet<&str> = circle
                .iter()
                .filter_map(|l| l.split(" -> ").next())
                .collect();
            report.push_str(&format!("{krate}: a circle of {} files\n", tied.len()));
            report.push_str(&circle.join("\n"));
            report.push('\n');
        }
    }
    assert!(report.is_empty(), "import circles:\n{report}");
}

/// The checker itself on a made-up crate: a circle through a `pub use` at the
/// crate root and a nested `use` tree is found and named; the same crate with
/// the loop cut is clean.
#[test]
fn the_check_finds_a_circle_and_names_its_files() {
    let lib = "pub mod a;\npub mod b;\npub mod c;\npub use b::Thing;\n";
    let a = "use crate::{c::{helper, LIMIT}};\npub fn top() -> usize { helper() + LIMIT }\n";
    let b = "// crate::a::top in a comment is no use\n\
             pub struct Thing;\nconst S: &str = \"crate::a::top\";\n";
    let c_loop = "pub const LIMIT: usize = 1;\n\
                  pub fn helper() -> usize { let _ = crate::Thing; crate::a::top() }\n";
    let c_clean = "pub const LIMIT: usize = 1;\n\
                   pub fn helper() -> usize { let _ = crate::Thing; 2 }\n";
    let files = |c: &str| {
        vec![
            File::new("lib.rs", lib),
            File::new("a.rs", a),
            File::new("b.rs", b),
            File::new("c.rs", c),
        ]
    };
    let found = circles(&files(c_loop));
    assert_eq!(
        found,
        vec![vec![
            "a.rs -> c.rs: LIMIT, helper".to_string(),
            "c.rs -> a.rs: top".to_string(),
        ]]
    );
    assert_eq!(circles(&files(c_clean)), Vec::<Vec<String>>::new());
}

/// One source file: its name below `src/`, its module path and its text with
/// comments and the insides of string and char literals blanked out.
struct File {
    name: String,
    module: Vec<String>,
    tokens: Vec<String>,
}

impl File {
    fn new(name: &str, text: &str) -> File {
        let stem = name.strip_suffix(".rs").unwrap_or(name);
        let mut module: Vec<String> = stem.split('/').map(str::to_string).collect();
        if matches!(module.last().map(String::as_str), Some("mod")) {
            module.pop();
        }
        if module.len() == 1 && (module[0] == "lib" || module[0] == "main") {
            module.clear();
        }
        File {
            name: name.to_string(),
            module,
            tokens: tokens(&blank(text)),
        }
    }
}

/// Every `.rs` file below `src` (the library's tree; a `main.rs` beside a
/// `lib.rs` is a crate of its own and is left out).
fn crate_files(src: &Path) -> Vec<File> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.expect("directory entry").path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut paths = Vec::new();
    walk(src, &mut paths);
    let has_lib = src.join("lib.rs").exists();
    paths
        .iter()
        .map(|p| {
            p.strip_prefix(src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/")
        })
        .filter(|rel| !(rel.starts_with("bin/") || has_lib && rel == "main.rs"))
        .map(|rel| {
            let text = std::fs::read_to_string(src.join(&rel))
                .unwrap_or_else(|e| panic!("{}/{rel}: {e}", src.display()));
            File::new(&rel, &text)
        })
        .collect()
}

/// `text` with comments removed and the insides of string, raw string and
/// char literals blanked (quotes kept), so that no brace or path in them
/// counts.
fn blank(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < c.len() {
        let at = |k: usize| c.get(k).copied().unwrap_or('\0');
        if at(i) == '/' && at(i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if at(i) == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < c.len() {
                if at(i) == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if at(i) == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if (at(i) == 'r' || (at(i) == 'b' && at(i + 1) == 'r'))
            && !is_ident(at(i.wrapping_sub(1)))
            && {
                let mut k = i + if at(i) == 'b' { 2 } else { 1 };
                while at(k) == '#' {
                    k += 1;
                }
                at(k) == '"'
            }
        {
            i += if at(i) == 'b' { 2 } else { 1 };
            let mut hashes = 0;
            while at(i) == '#' {
                hashes += 1;
                i += 1;
            }
            i += 1;
            while i < c.len() {
                if c[i] == '"' && (1..=hashes).all(|h| at(i + h) == '#') {
                    i += 1 + hashes;
                    break;
                }
                i += 1;
            }
            out.push_str("\"\"");
        } else if at(i) == '"' {
            i += 1;
            while i < c.len() && c[i] != '"' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if at(i) == '\'' && (at(i + 1) == '\\' || at(i + 2) == '\'') {
            // a char literal ('x', '\n', '\u{..}'); a lifetime has no closing quote
            i += 1;
            while i < c.len() && c[i] != '\'' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

fn is_ident(ch: char) -> bool {
    ch.is_alphanumeric() || ch == '_'
}

/// Identifiers, `::` and single punctuation characters.
fn tokens(text: &str) -> Vec<String> {
    let c: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        if c[i].is_whitespace() {
            i += 1;
        } else if is_ident(c[i]) {
            let start = i;
            while i < c.len() && is_ident(c[i]) {
                i += 1;
            }
            out.push(c[start..i].iter().collect());
        } else if c[i] == ':' && c.get(i + 1) == Some(&':') {
            out.push("::".to_string());
            i += 2;
        } else {
            out.push(c[i].to_string());
            i += 1;
        }
    }
    out
}

/// The path recorded for a name brought in from another crate.
const EXTERN: &str = "::extern";

/// What one module holds: the names it defines, the names it brings in by
/// `use` (name -> absolute path) and its glob imports.
#[derive(Default)]
struct Module {
    file: usize,
    defines: BTreeSet<String>,
    imports: BTreeMap<String, Vec<String>>,
    globs: Vec<Vec<String>>,
}

/// A path named in a file: the module it was named in and the absolute path.
struct Reference {
    file: usize,
    path: Vec<String>,
}

/// The circles among `files` (one crate's `src/`), each as lines
/// `a.rs -> b.rs: names`, in a stable order.
fn circles(files: &[File]) -> Vec<Vec<String>> {
    let mut modules: BTreeMap<Vec<String>, Module> = BTreeMap::new();
    for (n, f) in files.iter().enumerate() {
        modules.entry(f.module.clone()).or_default().file = n;
    }
    let mut references = Vec::new();
    for (n, f) in files.iter().enumerate() {
        read_file(n, f, &mut modules, &mut references);
    }
    // file -> file -> the names that tie them
    let mut edges: BTreeMap<usize, BTreeMap<usize, BTreeSet<String>>> = BTreeMap::new();
    for r in &references {
        if let Some((to, name)) = resolve(&modules, &r.path, 0)
            && to != r.file
        {
            edges
                .entry(r.file)
                .or_default()
                .entry(to)
                .or_default()
                .insert(name);
        }
    }
    let mut out = Vec::new();
    for group in strongly_connected(files.len(), &edges) {
        let mut lines = Vec::new();
        for &a in &group {
            for (&b, names) in edges.get(&a).into_iter().flatten() {
                if group.contains(&b) {
                    let names: Vec<&str> = names.iter().map(String::as_str).collect();
                    lines.push(format!(
                        "{} -> {}: {}",
                        files[a].name,
                        files[b].name,
                        names.join(", ")
                    ));
                }
            }
        }
        lines.sort();
        out.push(lines);
    }
    out.sort();
    out
}

/// Reads one file's definitions, `use` trees and paths into `modules` and
/// `references`.
fn read_file(
    n: usize,
    f: &File,
    modules: &mut BTreeMap<Vec<String>, Module>,
    references: &mut Vec<Reference>,
) {
    let t = &f.tokens;
    let tok = |k: usize| t.get(k).map(String::as_str).unwrap_or("");
    // the module each open brace belongs to (inline `mod x { … }` blocks)
    let mut scopes: Vec<(usize, Vec<String>)> = vec![(0, f.module.clone())];
    let mut depth = 0usize;
    // the tokens of `use` items, and the names a `pub use` hands on
    let mut in_use = BTreeSet::new();
    let mut handed_on: Vec<(String, Vec<String>)> = Vec::new();
    let mut i = 0;
    while i < t.len() {
        let here = scopes.last().unwrap().1.clone();
        let at_item_level = depth == scopes.last().unwrap().0;
        match tok(i) {
            "{" => {
                depth += 1;
                i += 1;
            }
            "}" => {
                if scopes.len() > 1 && scopes.last().unwrap().0 == depth {
                    scopes.pop();
                }
                depth = depth.saturating_sub(1);
                i += 1;
            }
            "mod" if is_name(tok(i + 1)) && tok(i + 2) == "{" => {
                let mut inner = here.clone();
                inner.push(tok(i + 1).to_string());
                modules.entry(inner.clone()).or_default().file = n;
                define(modules, here, tok(i + 1));
                depth += 1;
                scopes.push((depth, inner));
                i += 3;
            }
            "use" => {
                // `pub use` hands a name on: the file uses it only where its
                // code names it too
                let re_export = tok(i.wrapping_sub(1)) == "pub"
                    || (tok(i.wrapping_sub(1)) == ")"
                        && (2..6).any(|b| tok(i.wrapping_sub(b)) == "pub"));
                let mut j = i + 1;
                let mut trees = Vec::new();
                use_tree(t, &mut j, Vec::new(), &mut trees);
                in_use.extend(i..j);
                for (path, alias) in trees {
                    let Some(abs) = absolute(modules, &here, &path, true) else {
                        // an item of another crate: its name shadows a child module
                        let name = alias.or_else(|| path.last().cloned()).unwrap_or_default();
                        let m = modules.entry(here.clone()).or_default();
                        m.imports.insert(name, vec![EXTERN.to_string()]);
                        continue;
                    };
                    let name = alias.clone().or_else(|| abs.last().cloned());
                    let mut path = abs.clone();
                    if alias.as_deref() == Some("*") {
                        path.push("*".to_string());
                    }
                    match name {
                        Some(name) if re_export => handed_on.push((name, path)),
                        _ => references.push(Reference { file: n, path }),
                    }
                    let m = modules.entry(here.clone()).or_default();
                    match alias.as_deref() {
                        Some("*") => m.globs.push(abs),
                        Some("_") => {}
                        Some(a) => {
                            m.imports.insert(a.to_string(), abs);
                        }
                        None => {
                            let last = abs.last().cloned().unwrap_or_default();
                            m.imports.insert(last, abs);
                        }
                    }
                }
                i = j;
            }
            "fn" | "struct" | "enum" | "union" | "trait" | "type" | "static" | "const"
                if at_item_level && is_name(tok(i + 1)) && tok(i + 1) != "fn" =>
            {
                define(modules, here, tok(i + 1));
                i += 2;
            }
            "macro_rules" if tok(i + 1) == "!" => {
                // `#[macro_export]` puts a macro at the crate root
                define(modules, here, tok(i + 2));
                define(modules, Vec::new(), tok(i + 2));
                i += 3;
            }
            w if is_name(w) && tok(i + 1) == "::" && tok(i.wrapping_sub(1)) != "::" => {
                let mut path = vec![w.to_string()];
                let mut j = i + 1;
                while tok(j) == "::" && is_name(tok(j + 1)) {
                    path.push(tok(j + 1).to_string());
                    j += 2;
                }
                if let Some(abs) = absolute(modules, &here, &path, false) {
                    references.push(Reference { file: n, path: abs });
                }
                i = j;
            }
            _ => i += 1,
        }
    }
    for (name, path) in handed_on {
        // not a `mod` of that name, a field (`x.name`, `name: T`) or a use
        let named = (0..t.len()).any(|k| {
            t[k] == name
                && !in_use.contains(&k)
                && !matches!(tok(k.wrapping_sub(1)), "mod" | ".")
                && tok(k + 1) != ":"
        });
        if named && name != "*" {
            references.push(Reference { file: n, path });
        }
    }
}

/// Records that module `m` defines `name`.
fn define(modules: &mut BTreeMap<Vec<String>, Module>, m: Vec<String>, name: &str) {
    modules
        .entry(m)
        .or_default()
        .defines
        .insert(name.to_string());
}

fn is_name(w: &str) -> bool {
    w.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// Reads a `use` tree from `t[*j]` up to its `;` (or the `,`/`}` that ends a
/// branch), pushing each leaf's full path with its alias (`*` for a glob).
fn use_tree(
    t: &[String],
    j: &mut usize,
    prefix: Vec<String>,
    out: &mut Vec<(Vec<String>, Option<String>)>,
) {
    let mut path = prefix;
    loop {
        let w = t.get(*j).map(String::as_str).unwrap_or(";");
        match w {
            "::" => *j += 1,
            "{" => {
                *j += 1;
                loop {
                    use_tree(t, j, path.clone(), out);
                    match t.get(*j).map(String::as_str).unwrap_or(";") {
                        "," => *j += 1,
                        "}" => {
                            *j += 1;
                            break;
                        }
                        _ => break,
                    }
                    if t.get(*j).map(String::as_str) == Some("}") {
                        *j += 1;
                        break;
                    }
                }
                return;
            }
            "*" => {
                *j += 1;
                out.push((path, Some("*".to_string())));
                return;
            }
            "as" => {
                let alias = t.get(*j + 1).cloned();
                *j += 2;
                out.push((path, alias));
                return;
            }
            ";" | "," | "}" => {
                if w == ";" {
                    *j += 1;
                }
                if !path.is_empty() {
                    // `self` as a leaf (`use a::{self}`) names the module
                    if path.last().map(String::as_str) == Some("self") && path.len() > 1 {
                        path.pop();
                    }
                    out.push((path, None));
                }
                return;
            }
            w if is_name(w) => {
                path.push(w.to_string());
                *j += 1;
            }
            _ => {
                *j += 1;
                return;
            }
        }
    }
}

/// The absolute module path of `path` named in module `here`, or `None` when
/// it leaves the crate. A `use` path may start at a child module or an item
/// of `here`; a path in code also at a module a `use` brought in.
fn absolute(
    modules: &BTreeMap<Vec<String>, Module>,
    here: &[String],
    path: &[String],
    in_use: bool,
) -> Option<Vec<String>> {
    let mut base: Vec<String> = here.to_vec();
    let mut rest = path;
    match path.first().map(String::as_str)? {
        "crate" => {
            base.clear();
            rest = &path[1..];
        }
        "self" => rest = &path[1..],
        "super" => {
            while rest.first().map(String::as_str) == Some("super") {
                base.pop()?;
                rest = &rest[1..];
            }
        }
        first => {
            let mut child = base.clone();
            child.push(first.to_string());
            if let Some(imported) = modules.get(here).and_then(|m| m.imports.get(first)) {
                if in_use || !modules.contains_key(imported) {
                    return None;
                }
                base = imported.clone();
                rest = &path[1..];
            } else if !modules.contains_key(&child) {
                return None;
            }
        }
    }
    base.extend(rest.iter().cloned());
    Some(base)
}

/// The file that defines what absolute `path` names, with the name; `None`
/// for a module named whole.
fn resolve(
    modules: &BTreeMap<Vec<String>, Module>,
    path: &[String],
    hops: usize,
) -> Option<(usize, String)> {
    if hops > 16 {
        return None;
    }
    let mut k = path.len();
    while !modules.contains_key(&path[..k]) {
        k = k.checked_sub(1)?;
    }
    let module = &modules[&path[..k]];
    // a module named whole (`use crate::claude;`) is no use of its file:
    // the paths through it are; a glob (`use super::*`) takes all of it
    let name = path.get(k)?;
    if name == "*" {
        let whole = path[..k]
            .last()
            .cloned()
            .unwrap_or_else(|| "crate".to_string());
        return Some((module.file, format!("{whole}::*")));
    }
    if module.defines.contains(name) {
        return Some((module.file, name.clone()));
    }
    if let Some(target) = module.imports.get(name) {
        if target.first().is_some_and(|t| t == EXTERN) {
            return None;
        }
        let mut full = target.clone();
        full.extend(path[k + 1..].iter().cloned());
        return resolve(modules, &full, hops + 1).or(Some((module.file, name.clone())));
    }
    for glob in &module.globs {
        let holds = modules
            .get(glob)
            .is_some_and(|m| m.defines.contains(name) || m.imports.contains_key(name));
        if holds {
            let mut full = glob.clone();
            full.extend(path[k..].iter().cloned());
            return resolve(modules, &full, hops + 1);
        }
    }
    Some((module.file, name.clone()))
}

/// Tarjan's strongly connected components of two nodes or more, each sorted.
fn strongly_connected(
    n: usize,
    edges: &BTreeMap<usize, BTreeMap<usize, BTreeSet<String>>>,
) -> Vec<Vec<usize>> {
    struct State<'a> {
        edges: &'a BTreeMap<usize, BTreeMap<usize, BTreeSet<String>>>,
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        let targets: Vec<usize> = s
            .edges
            .get(&v)
            .map(|m| m.keys().copied().collect())
            .unwrap_or_default();
        for w in targets {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut group = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack[w] = false;
                group.push(w);
                if w == v {
                    break;
                }
            }
            if group.len() > 1 {
                group.sort();
                s.out.push(group);
            }
        }
    }
    let mut s = State {
        edges,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.out
}
