//! The git merge driver of the team tier (`mem-index merge-driver %O %A %B
//! %P`, docs/team-memory.md) and its installer.
//!
//! - A topic file merges field by field ([`merge_topic`]): list fields
//!   (`triggers`, `paths`, `supersedes`, `evidence`) united (an entry one
//!   side removed stays removed), the newest `verified_at`, every other key
//!   (unknown ones too) taken from the side that changed it, or from the side
//!   with the newer `verified_at` when both did; a body both sides changed
//!   keeps both versions between mem's marker lines (never git's conflict
//!   markers, never inside the frontmatter).
//! - `MEMORY.md` is rebuilt ([`merge_index_from_commits`]): the driver finds the commits
//!   being merged (verified against the blobs git handed it), merges every
//!   topic file of the tier the same way, and renders the index of the
//!   result ([`crate::team::render_index`]). When the commits cannot be found
//!   (an unusual merge), the entries are merged line by line and a note asks
//!   for `mem-index reindex --tier team`.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::SystemTime;

use serde_json::{Map, Value};

use mem_core::error::Error;

use crate::error::{IndexError, Result};
use mem_core::confine;
use mem_core::frontmatter;
use mem_core::index_md;
use mem_core::memdir;
use mem_core::records::DriverInstalled;
use mem_core::records::Memory;
use mem_core::store::{self, Broken, Store, Topic};

use crate::team::{self, CONFLICT_END, CONFLICT_START, CONFLICT_VERSION};

/// The `.gitattributes` line the installer writes.
pub const GITATTRIBUTES_LINE: &str = ".claude/team-memory/**/*.md merge=mem";

/// The merge driver's name in git config (`merge.mem.*`).
pub const DRIVER: &str = "mem";

/// A merged topic file.
#[derive(Debug, Clone, PartialEq)]
pub struct Merged {
    /// The file's text.
    pub text: String,
    /// True when both versions of the body were kept.
    pub body_conflict: bool,
}

/// List fields, united.
const LISTS: &[&str] = &["triggers", "paths", "supersedes", "evidence"];
/// Keys that are not fields of the frontmatter (the body and what is read
/// from it, the id, the hash).
const NOT_FIELDS: &[&str] = &["id", "hash", "body", "fact", "why", "how"];

fn to_map(m: &Memory) -> Map<String, Value> {
    match serde_json::to_value(m) {
        Ok(Value::Object(mut o)) => {
            for k in NOT_FIELDS {
                o.shift_remove(*k);
            }
            o
        }
        _ => Map::new(),
    }
}

fn strings(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| match x {
                Value::String(s) => s.clone(),
                o => o.to_string(),
            })
            .collect(),
        Some(Value::String(s)) => vec![s.clone()],
        _ => Vec::new(),
    }
}

/// United list: the base's entries both sides kept (base order), then every
/// entry either side added, sorted (so both clones get the same order).
fn unite(o: &[String], a: &[String], b: &[String]) -> Vec<String> {
    let (sa, sb): (BTreeSet<&String>, BTreeSet<&String>) = (a.iter().collect(), b.iter().collect());
    let so: BTreeSet<&String> = o.iter().collect();
    let mut out: Vec<String> = Vec::new();
    for x in o {
        if sa.contains(x) && sb.contains(x) && !out.contains(x) {
            out.push(x.clone());
        }
    }
    let added: BTreeSet<&String> = a
        .iter()
        .chain(b.iter())
        .filter(|x| !so.contains(x))
        .collect();
    for x in added {
        if !out.contains(x) {
            out.push(x.clone());
        }
    }
    out
}

/// Which side wins a field both changed: the newer `verified_at`; on a tie
/// the greater value (the same answer in either clone).
fn newer_side(va: Option<&Value>, vb: Option<&Value>, a: &Memory, b: &Memory) -> bool {
    match a.verified_at.cmp(&b.verified_at) {
        std::cmp::Ordering::Greater => true,
        std::cmp::Ordering::Less => false,
        std::cmp::Ordering::Equal => {
            let s = |v: Option<&Value>| v.map(Value::to_string).unwrap_or_default();
            s(va) >= s(vb)
        }
    }
}

/// Merge three versions of a topic file field by field (see module docs).
/// `base` is `None` when the file is new on both sides. `label` names the
/// file in errors.
///
/// Errors: [`Error::Frontmatter`] when `ours` or `theirs` does not parse (a
/// base that does not parse counts as no base).
pub fn merge_topic(base: Option<&str>, ours: &str, theirs: &str, label: &str) -> Result<Merged> {
    let a = frontmatter::parse(label, ours)?;
    let b = frontmatter::parse(label, theirs)?;
    let o = base.and_then(|t| frontmatter::parse(label, t).ok());
    let (mo, ma, mb) = (
        o.as_ref().map(to_map).unwrap_or_default(),
        to_map(&a),
        to_map(&b),
    );
    // keys in a stable order: ours, then theirs' new ones
    let mut keys: Vec<String> = ma.keys().cloned().collect();
    for k in mb.keys().chain(mo.keys()) {
        if !keys.contains(k) {
            keys.push(k.clone());
        }
    }
    let mut out = Map::new();
    for k in &keys {
        let (vo, va, vb) = (mo.get(k), ma.get(k), mb.get(k));
        let v: Option<Value> = if LISTS.contains(&k.as_str()) {
            let u = unite(&strings(vo), &strings(va), &strings(vb));
            (!u.is_empty()).then(|| Value::Array(u.into_iter().map(Value::String).collect()))
        } else if k == "verified_at" {
            // the newest (dates as YYYY-MM-DD compare as text)
            match (va, vb) {
                (Some(x), Some(y)) => Some(if x.as_str() >= y.as_str() {
                    x.clone()
                } else {
                    y.clone()
                }),
                (x, y) => x.or(y).cloned(),
            }
        } else if va == vb {
            va.cloned()
        } else if vo == va {
            vb.cloned()
        } else if vo == vb {
            va.cloned()
        } else if newer_side(va, vb, &a, &b) {
            va.or(vb).cloned()
        } else {
            vb.or(va).cloned()
        };
        if let Some(v) = v {
            out.insert(k.clone(), v);
        }
    }
    // an unknown `kind` or `scope` value is kept as written (the record
    // reads it as none; the topic file keeps it among the unknown keys)
    let kept: Vec<(String, Value)> = ["kind", "scope"]
        .iter()
        .filter_map(|k| out.get(*k).map(|v| (k.to_string(), v.clone())))
        .collect();
    let mut m: Memory =
        serde_json::from_value(Value::Object(out)).map_err(|e| Error::Frontmatter {
            file: label.into(),
            line: 1,
            reason: format!("merged frontmatter does not read back: {e}"),
        })?;
    for (k, v) in kept {
        let known = match k.as_str() {
            "kind" => m.kind.is_some(),
            _ => m.scope.is_some(),
        };
        if !known {
            m.extra.insert(k, v);
        }
    }
    let body_of = |x: &Memory| x.body.clone().unwrap_or_default();
    let (bo, ba, bb) = (o.as_ref().map(body_of), body_of(&a), body_of(&b));
    let mut body_conflict = false;
    let body = if ba == bb || bo.as_deref() == Some(bb.as_str()) {
        ba
    } else if bo.as_deref() == Some(ba.as_str()) {
        bb
    } else {
        body_conflict = true;
        // newest first; on a tie, by text (the same in either clone)
        let mut v = [(a.verified_at, ba), (b.verified_at, bb)];
        v.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)));
        let mut s = String::new();
        s.push_str(CONFLICT_START);
        s.push('\n');
        for (d, text) in &v {
            let when = d.map_or_else(|| "unverified".to_string(), |d| format!("verified {d}"));
            s.push_str(&format!("{CONFLICT_VERSION} {when} -->\n"));
            s.push_str(text);
            if !text.ends_with('\n') {
                s.push('\n');
            }
        }
        s.push_str(CONFLICT_END);
        s.push('\n');
        s
    };
    let (fact, why, how) = frontmatter::parse_body_sections(&body);
    m.fact = fact;
    m.why = why;
    m.how = how;
    m.body = Some(body);
    m.id = None;
    m.hash = None;
    Ok(Merged {
        text: frontmatter::render(&m),
        body_conflict,
    })
}

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .stderr(Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The blob id git would give `file` (`None` for an empty base file that
/// stands for "no base").
fn blob_of(file: &Path) -> Option<String> {
    git(&["hash-object", "--", &file.to_string_lossy()])
}

/// The blob at `path` in `commit`, `None` when there is none.
fn blob_at(commit: &str, path: &str) -> Option<String> {
    git(&["rev-parse", "-q", "--verify", &format!("{commit}:{path}")])
}

/// The commits whose versions git is merging, when they can be found:
/// `(base, ours, theirs)`. Candidates for theirs: the `GITHEAD_<sha>`
/// variables of `git merge`/`git pull`, the commit a rebase is picking, and
/// `MERGE_HEAD`, `CHERRY_PICK_HEAD`, `REBASE_HEAD`; each is kept only when
/// its blob at `path` is the file git handed over, and so are ours (`HEAD`)
/// and the base (a merge base, or theirs' parent).
fn find_commits(o: &Path, a: &Path, b: &Path, path: &str) -> Option<(String, String, String)> {
    let (ha, hb) = (blob_of(a)?, blob_of(b)?);
    let o_empty = std::fs::metadata(o).map(|m| m.len() == 0).unwrap_or(true);
    let ho = blob_of(o);
    let ours = git(&["rev-parse", "-q", "--verify", "HEAD"])?;
    if blob_at(&ours, path).as_deref() != Some(ha.as_str()) {
        return None;
    }
    let mut cands: Vec<String> = std::env::vars()
        .filter_map(|(k, _)| k.strip_prefix("GITHEAD_").map(String::from))
        .collect();
    if let Some(gd) = git(&["rev-parse", "--git-dir"]) {
        let done = PathBuf::from(gd).join("rebase-merge/done");
        if let Ok(t) = std::fs::read_to_string(done)
            && let Some(last) = t.lines().rev().find(|l| !l.trim().is_empty())
            && let Some(c) = last.split_whitespace().nth(1)
        {
            cands.push(c.to_string());
        }
    }
    for r in ["MERGE_HEAD", "CHERRY_PICK_HEAD", "REBASE_HEAD"] {
        cands.push(r.to_string());
    }
    for c in cands {
        let Some(theirs) = git(&["rev-parse", "-q", "--verify", &format!("{c}^{{commit}}")]) else {
            continue;
        };
        if blob_at(&theirs, path).as_deref() != Some(hb.as_str()) {
            continue;
        }
        let mut bases: Vec<String> = git(&["merge-base", "--all", &ours, &theirs])
            .map(|s| s.lines().map(String::from).collect())
            .unwrap_or_default();
        if let Some(p) = git(&["rev-parse", "-q", "--verify", &format!("{theirs}^")]) {
            bases.push(p);
        }
        for base in bases {
            let at = blob_at(&base, path);
            let fits = match &at {
                Some(x) => Some(x) == ho.as_ref(),
                None => o_empty,
            };
            if fits {
                return Some((base, ours, theirs));
            }
        }
    }
    None
}

/// `(blob, name)` of each `*.md` directly in `dir` in `commit`, by name.
fn tree_files(commit: &str, dir: &str) -> Result<BTreeMap<String, String>> {
    let out = Command::new("git")
        .args(["ls-tree", "-z", commit, "--", &format!("{dir}/")])
        .output()
        .map_err(|e| IndexError::git("ls-tree", e))?;
    if !out.status.success() {
        return Err(IndexError::git(
            format!("ls-tree {commit}"),
            String::from_utf8_lossy(&out.stderr).trim(),
        ));
    }
    let mut m = BTreeMap::new();
    for rec in out.stdout.split(|&c| c == 0) {
        let rec = String::from_utf8_lossy(rec);
        let Some((meta, p)) = rec.split_once('\t') else {
            continue;
        };
        let mut parts = meta.split_whitespace();
        let (Some(_mode), Some(kind), Some(blob)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let name = p.rsplit('/').next().unwrap_or(p);
        if kind == "blob" && name.ends_with(".md") && name != store::INDEX_FILE {
            m.insert(name.to_string(), blob.to_string());
        }
    }
    Ok(m)
}

/// The texts of `blobs`, read through one `git cat-file --batch`.
fn read_blobs(blobs: &[String]) -> Result<HashMap<String, String>> {
    let mut child = Command::new("git")
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| IndexError::git("cat-file", e))?;
    let mut sin = child.stdin.take().expect("stdin");
    let list: String = blobs.iter().map(|b| format!("{b}\n")).collect();
    let feeder = std::thread::spawn(move || {
        let _ = sin.write_all(list.as_bytes());
    });
    let mut rd = BufReader::new(child.stdout.take().expect("stdout"));
    let mut out = HashMap::new();
    for b in blobs {
        let mut head = String::new();
        rd.read_line(&mut head)
            .map_err(|e| IndexError::git("cat-file", e))?;
        let size: usize = head
            .split_whitespace()
            .nth(2)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| IndexError::git("cat-file", format!("{b}: {}", head.trim())))?;
        let mut buf = vec![0; size + 1];
        rd.read_exact(&mut buf)
            .map_err(|e| IndexError::git("cat-file", e))?;
        buf.pop();
        out.insert(b.clone(), String::from_utf8_lossy(&buf).into_owned());
    }
    let _ = feeder.join();
    let _ = child.wait();
    Ok(out)
}

/// The merged team index from the three commits: every topic file of the
/// tier (`dir`, relative to the repository root) merged as git will merge
/// it, then [`team::render_index`] of the result.
///
/// Errors: a git command that fails ([`IndexError::Git`]).
pub fn merge_index_from_commits(base: &str, ours: &str, theirs: &str, dir: &str) -> Result<String> {
    let (to, ta, tb) = (
        tree_files(base, dir)?,
        tree_files(ours, dir)?,
        tree_files(theirs, dir)?,
    );
    let names: BTreeSet<&String> = to.keys().chain(ta.keys()).chain(tb.keys()).collect();
    // what each file becomes: a blob taken whole, or three to merge
    enum Pick {
        Blob(String),
        Merge(Option<String>, String, String),
    }
    let mut picks: Vec<(String, Pick)> = Vec::new();
    for n in names {
        let (o, a, b) = (to.get(n), ta.get(n), tb.get(n));
        let pick = if a == b {
            a.cloned().map(Pick::Blob)
        } else if o == a {
            b.cloned().map(Pick::Blob)
        } else if o == b {
            a.cloned().map(Pick::Blob)
        } else {
            match (a, b) {
                (Some(a), Some(b)) => Some(Pick::Merge(o.cloned(), a.clone(), b.clone())),
                // changed on one side, deleted on the other: git stops on
                // that file; the changed version stays in the index
                (x, y) => x.or(y).cloned().map(Pick::Blob),
            }
        };
        if let Some(p) = pick {
            picks.push((n.clone(), p));
        }
    }
    let mut want: Vec<String> = Vec::new();
    for (_, p) in &picks {
        match p {
            Pick::Blob(x) => want.push(x.clone()),
            Pick::Merge(o, a, b) => {
                want.extend(o.iter().cloned());
                want.push(a.clone());
                want.push(b.clone());
            }
        }
    }
    want.sort();
    want.dedup();
    let texts = read_blobs(&want)?;
    let mut st = Store {
        dir: PathBuf::from(dir),
        ..Store::default()
    };
    for (name, p) in picks {
        let id = name.trim_end_matches(".md").to_string();
        if mem_core::id::validate_id(&id).is_err() {
            continue;
        }
        let text = match p {
            Pick::Blob(x) => texts.get(&x).cloned().unwrap_or_default(),
            Pick::Merge(o, a, b) => {
                let get = |x: &String| texts.get(x).cloned().unwrap_or_default();
                match merge_topic(o.as_ref().map(get).as_deref(), &get(&a), &get(&b), &name) {
                    Ok(m) => m.text,
                    Err(_) => get(&a),
                }
            }
        };
        let path = PathBuf::from(dir).join(&name);
        match frontmatter::parse(&name, &text) {
            Ok(mut m) => {
                m.id = Some(id.clone());
                st.topics.push(Topic {
                    id,
                    path,
                    mtime: SystemTime::UNIX_EPOCH,
                    size: text.len() as u64,
                    hash: store::hash_bytes(text.as_bytes()),
                    memory: m,
                });
            }
            Err(error) => st.broken.push(Broken {
                id,
                path,
                mtime: SystemTime::UNIX_EPOCH,
                error,
            }),
        }
    }
    Ok(team::render_index(&st).text)
}

/// Merge three `MEMORY.md` texts entry by entry (the fallback when the
/// commits are unknown): ours' lines in order, entries theirs added
/// appended, entries either side removed dropped, an entry both changed
/// taken from theirs only when ours kept it as it was.
pub fn merge_index_lines(base: &str, ours: &str, theirs: &str) -> String {
    let entries = |t: &str| -> Vec<(String, String)> {
        t.lines()
            .filter_map(|l| index_md::parse_line(0, l).map(|p| (p.file.clone(), l.to_string())))
            .collect()
    };
    let (eo, ea, eb) = (entries(base), entries(ours), entries(theirs));
    let mo: HashMap<&str, &str> = eo.iter().map(|(f, l)| (f.as_str(), l.as_str())).collect();
    let mb: HashMap<&str, &str> = eb.iter().map(|(f, l)| (f.as_str(), l.as_str())).collect();
    let ma: HashMap<&str, &str> = ea.iter().map(|(f, l)| (f.as_str(), l.as_str())).collect();
    let mut out = String::new();
    for (f, la) in &ea {
        let line = match (mo.get(f.as_str()), mb.get(f.as_str())) {
            (Some(_), None) => continue,
            (Some(lo), Some(lb)) if lo == la => *lb,
            _ => la.as_str(),
        };
        out.push_str(line);
        out.push('\n');
    }
    for (f, lb) in &eb {
        if !ma.contains_key(f.as_str()) && !mo.contains_key(f.as_str()) {
            out.push_str(lb);
            out.push('\n');
        }
    }
    out
}

/// What the driver did with one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Merged cleanly.
    Clean,
    /// Merged; both versions of the body kept (a `check` warning).
    BodyConflict,
    /// `MEMORY.md` merged line by line (the commits were not found).
    IndexByLines,
}

/// Run the driver: merge `ours` (`%A`, written with the result) with
/// `theirs` (`%B`) over `base` (`%O`); `path` (`%P`) is the file's path in
/// the repository (without it, a file without frontmatter is taken for
/// `MEMORY.md`). The result is written atomically over `ours`.
///
/// Errors: a file that cannot be read or written, a topic file of ours or
/// theirs whose frontmatter does not parse (git then reports a conflict
/// and leaves ours in place).
pub fn run_driver(base: &Path, ours: &Path, theirs: &Path, path: Option<&str>) -> Result<Outcome> {
    let read = |p: &Path| std::fs::read_to_string(p).map_err(|e| Error::io(p, e));
    let (tb, ta) = (read(theirs)?, read(ours)?);
    let to = std::fs::read_to_string(base).unwrap_or_default();
    let is_index = match path {
        Some(p) => Path::new(p)
            .file_name()
            .is_some_and(|n| n == store::INDEX_FILE),
        None => !ta.starts_with("---") && !tb.starts_with("---"),
    };
    let write = |text: &str| mem_core::atomic::write_atomic(ours, text.as_bytes());
    if is_index {
        if let Some(p) = path {
            let dir = Path::new(p)
                .parent()
                .map(|d| d.to_string_lossy().into_owned())
                .unwrap_or_default();
            if let Some((o, a, b)) = find_commits(base, ours, theirs, p) {
                match merge_index_from_commits(&o, &a, &b, &dir) {
                    Ok(text) => {
                        write(&text)?;
                        return Ok(Outcome::Clean);
                    }
                    // a git command failed: the line-by-line merge below
                    Err(e) => eprintln!("mem-index: {e}"),
                }
            }
        }
        write(&merge_index_lines(&to, &ta, &tb))?;
        return Ok(Outcome::IndexByLines);
    }
    let label = path.map_or_else(|| ours.display().to_string(), String::from);
    let o = (!to.is_empty()).then_some(to.as_str());
    let m = merge_topic(o, &ta, &tb, &label)?;
    write(&m.text)?;
    Ok(if m.body_conflict {
        Outcome::BodyConflict
    } else {
        Outcome::Clean
    })
}

/// Largest `.gitattributes` read: 4 MiB.
const GITATTRIBUTES_CAP: u64 = 4 << 20;

/// Quote a word for git's shell (`sh -c`).
fn sh_quote(s: &str) -> String {
    if s.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"/._-+:@".contains(&b))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// Install the driver in the repository at `root`: the line
/// [`GITATTRIBUTES_LINE`] in `<root>/.gitattributes` (added once, every
/// other line kept; written atomically), and in the repository's local git
/// config `merge.mem.name` and `merge.mem.driver` = `<exe> merge-driver %O
/// %A %B %P` (`exe` the absolute path of this mem-index). Idempotent.
///
/// Errors: an I/O error for `.gitattributes`; [`IndexError::Git`] when
/// `git config` fails (not a repository).
pub fn install(root: &Path, exe: &Path) -> Result<DriverInstalled> {
    let ga = root.join(".gitattributes");
    // a cloned repository's `.gitattributes -> ~/somefile` is neither read
    // (its text would be copied into the repository) nor written; nor is a
    // linked `.git` or `.git/config` (git writes a config through its link)
    const PLACE: &str = "the repository";
    confine::refuse_links(root, &ga, PLACE)?;
    confine::refuse_links(root, &root.join(".git"), PLACE)?;
    if root.join(".git").is_dir() {
        confine::refuse_links(root, &root.join(".git/config"), PLACE)?;
    }
    confine::refuse_links(root, &memdir::team_dir(root), PLACE)?;
    let old = match confine::read_text_capped(&ga, GITATTRIBUTES_CAP, false) {
        Ok(t) => t,
        Err(mem_core::Error::Io { err, .. }) if err.kind() == std::io::ErrorKind::NotFound => {
            String::new()
        }
        Err(e) => return Err(e.into()),
    };
    let has = old.lines().any(|l| l.trim() == GITATTRIBUTES_LINE);
    if !has {
        let mut t = old.clone();
        if !t.is_empty() && !t.ends_with('\n') {
            t.push('\n');
        }
        t.push_str("# mem: the team memory tier merges field by field (mem-index merge-driver)\n");
        t.push_str(GITATTRIBUTES_LINE);
        t.push('\n');
        confine::write_atomic(root, &ga, t.as_bytes())?;
    }
    let driver = format!(
        "{} merge-driver %O %A %B %P",
        sh_quote(&exe.to_string_lossy())
    );
    let name = "mem team memory: topic files field by field, MEMORY.md rebuilt";
    let get = |k: &str| {
        Command::new("git")
            .arg("-C")
            .arg(root)
            .args(["config", "--local", "--get", k])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim_end().to_string())
    };
    let mut changed = false;
    for (k, v) in [
        ("merge.mem.name", name),
        ("merge.mem.driver", driver.as_str()),
    ] {
        if get(k).as_deref() == Some(v) {
            continue;
        }
        let st = Command::new("git")
            .arg("-C")
            .arg(root)
            .args(["config", "--local", k, v])
            .output()
            .map_err(|e| IndexError::git("config", e))?;
        if !st.status.success() {
            return Err(IndexError::git(
                format!("config {k} in {}", root.display()),
                String::from_utf8_lossy(&st.stderr).trim(),
            ));
        }
        changed = true;
    }
    Ok(DriverInstalled {
        gitattributes: ga.display().to_string(),
        gitattributes_added: !has,
        driver,
        config_changed: changed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "---\nname: \"Run fixture\"\ndescription: \"before verify\"\ntype: feedback\ntriggers: [\"verify\"]\nverified_at: 2026-07-01\nowner: \"ops\"\n---\nFact: run the fixture first.\n";

    #[test]
    fn triggers_unite_newest_verified_wins_unknown_keys_kept() {
        let a = BASE
            .replace("[\"verify\"]", "[\"verify\", \"fixture\"]")
            .replace("2026-07-01", "2026-07-05");
        let b = BASE
            .replace("[\"verify\"]", "[\"verify\", \"deploy\"]")
            .replace("2026-07-01", "2026-07-09")
            .replace("\"ops\"", "\"qa\"");
        let m = merge_topic(Some(BASE), &a, &b, "x.md").unwrap();
        assert!(!m.body_conflict);
        let r = frontmatter::parse("x.md", &m.text).unwrap();
        assert_eq!(r.triggers, vec!["verify", "deploy", "fixture"]);
        assert_eq!(r.verified_at.unwrap().to_string(), "2026-07-09");
        assert_eq!(r.extra["owner"], "qa");
        assert_eq!(r.body.as_deref(), Some("Fact: run the fixture first.\n"));
        // the same result whichever side is ours
        assert_eq!(merge_topic(Some(BASE), &b, &a, "x.md").unwrap(), m);
    }

    #[test]
    fn a_body_both_changed_keeps_both_versions_in_the_body() {
        let a = BASE.replace("first.", "first, twice.");
        let b = BASE
            .replace("first.", "first, with -v.")
            .replace("2026-07-01", "2026-07-02");
        let m = merge_topic(Some(BASE), &a, &b, "x.md").unwrap();
        assert!(m.body_conflict);
        let r = frontmatter::parse("x.md", &m.text).unwrap();
        let body = r.body.unwrap();
        assert!(body.starts_with(CONFLICT_START), "{body}");
        let i = body.find("with -v").unwrap();
        let j = body.find("twice").unwrap();
        assert!(i < j, "newest first: {body}");
        assert!(!team::has_git_markers(&m.text));
        assert_eq!(r.verified_at.unwrap().to_string(), "2026-07-02");
    }

    #[test]
    fn index_lines_merge_keeps_additions_of_both_sides() {
        let o = "- [A](a.md) - a\n- [B](b.md) - b\n";
        let a = "- [A](a.md) - a\n- [B](b.md) - b\n- [C](c.md) - c\n";
        let b = "- [A](a.md) - a2\n- [D](d.md) - d\n";
        assert_eq!(
            merge_index_lines(o, a, b),
            "- [A](a.md) - a2\n- [C](c.md) - c\n- [D](d.md) - d\n"
        );
    }

    #[test]
    fn an_unknown_kind_survives_the_merge() {
        let base = BASE.replace("type: feedback\n", "type: feedback\nkind: \"ritual\"\n");
        let a = base.replace("2026-07-01", "2026-07-03");
        let b = base.replace("\"ops\"", "\"qa\"");
        let m = merge_topic(Some(&base), &a, &b, "x.md").unwrap();
        assert!(m.text.contains("kind: \"ritual\"\n"), "{}", m.text);
        assert!(m.text.contains("owner: \"qa\"\n"), "{}", m.text);
        assert!(m.text.contains("verified_at: 2026-07-03\n"), "{}", m.text);
    }

    #[test]
    fn a_topic_that_does_not_parse_is_an_error_naming_it() {
        let e = merge_topic(Some(BASE), "no frontmatter\n", BASE, "x.md").unwrap_err();
        assert!(e.to_string().contains("x.md"), "{e}");
    }
}
