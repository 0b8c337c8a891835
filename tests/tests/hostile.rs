//! Hostile input: every malformed or adversarial input under
//! `tests/fixtures/hostile/` (plus the big ones generated here: a 100 MB
//! single line, 100,000-deep nesting, a huge frontmatter, symlinks) is fed to
//! each tool that reads it. For every run:
//!
//! - no panic: the exit code is 0, 1 or 2 and stderr never says "panicked";
//! - an error names the file it is about;
//! - memory stays bounded (max RSS, measured with `/usr/bin/time`);
//! - nothing is written outside the memory directory (the tree around it is
//!   snapshotted before and after), and a hostile topic file is left
//!   byte-identical.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use mem_tests::{bin, cmd, workspace_root};

fn fixtures(sub: &str) -> Vec<PathBuf> {
    let dir = workspace_root().join("tests/fixtures/hostile").join(sub);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    v.sort();
    v
}

/// What one run of a tool did.
struct Run {
    what: String,
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
    max_rss_kb: u64,
}

impl Run {
    fn describe(&self) -> String {
        format!(
            "{}\nexit {:?}, max RSS {} KB\n--- stdout (first 2000 bytes)\n{}\n--- stderr (first 4000 bytes)\n{}",
            self.what,
            self.code,
            self.max_rss_kb,
            String::from_utf8_lossy(&self.stdout[..self.stdout.len().min(2000)]),
            &self.stderr[..floor(&self.stderr, 4000)]
        )
    }
}

fn floor(s: &str, n: usize) -> usize {
    let mut n = n.min(s.len());
    while !s.is_char_boundary(n) {
        n -= 1;
    }
    n
}

/// Run mem binary `tool` with `args` (stdin from `stdin_file` or empty)
/// under `/usr/bin/time` (max RSS) and `timeout` (a hang is a failure).
fn run_tool(home: &Path, tool: &str, args: &[&std::ffi::OsStr], stdin_file: Option<&Path>) -> Run {
    let base = cmd(tool, home);
    let rss = tempfile::NamedTempFile::new().unwrap();
    let mut c = Command::new("/usr/bin/time");
    c.arg("-o")
        .arg(rss.path())
        .arg("-f")
        .arg("%M")
        .arg("timeout")
        .arg("-s")
        .arg("KILL")
        .arg("120")
        .arg(bin(tool))
        .args(args);
    for (k, v) in base.get_envs() {
        match v {
            Some(v) => c.env(k, v),
            None => c.env_remove(k),
        };
    }
    c.stdin(match stdin_file {
        Some(f) => std::fs::File::open(f).unwrap().into(),
        None => std::process::Stdio::null(),
    });
    let out = c.output().expect("spawn /usr/bin/time");
    let max_rss_kb = std::fs::read_to_string(rss.path())
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse::<u64>().ok())
        .next_back()
        .unwrap_or(0);
    // /usr/bin/time reports a child's non-zero status on its own stderr line
    let stderr: String = String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| !l.starts_with("Command exited with non-zero status"))
        .collect::<Vec<_>>()
        .join("\n");
    Run {
        what: format!(
            "{tool} {}{}",
            args.iter()
                .map(|a| a.to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join(" "),
            stdin_file.map_or(String::new(), |f| format!(" < {}", f.display()))
        ),
        code: out.status.code(),
        stdout: out.stdout,
        stderr,
        max_rss_kb,
    }
}

/// The tree under `root` (paths relative to it, with their bytes or link
/// target), skipping `skip` (the memory dir and the cache).
fn snapshot(root: &Path, skip: &[&Path]) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if skip.iter().any(|s| p.starts_with(s)) {
                continue;
            }
            let rel = p.strip_prefix(root).unwrap().to_path_buf();
            let md = std::fs::symlink_metadata(&p).unwrap();
            if md.file_type().is_symlink() {
                let t = std::fs::read_link(&p).unwrap();
                out.insert(rel, format!("-> {}", t.display()).into_bytes());
            } else if md.is_dir() {
                out.insert(rel, b"<dir>".to_vec());
                stack.push(p);
            } else {
                out.insert(rel, std::fs::read(&p).unwrap_or_default());
            }
        }
    }
    out
}

/// The checks every run must pass; `names` are strings of which one must
/// appear in the diagnostics when the tool fails (the file's name).
fn judge(r: &Run, names: &[&str], max_rss_kb: u64, failures: &mut Vec<String>) {
    let mut bad = Vec::new();
    if !matches!(r.code, Some(0..=2)) {
        bad.push(format!("exit code {:?} (want 0, 1 or 2)", r.code));
    }
    if r.stderr.contains("panicked") || r.stderr.contains("RUST_BACKTRACE") {
        bad.push("panicked".into());
    }
    if r.code == Some(1) {
        let diag = format!("{}\n{}", r.stderr, String::from_utf8_lossy(&r.stdout));
        if !names.iter().any(|n| diag.contains(n)) {
            bad.push(format!("the error does not name {names:?}"));
        }
    }
    if r.max_rss_kb > max_rss_kb {
        bad.push(format!(
            "max RSS {} KB over the bound {max_rss_kb} KB",
            r.max_rss_kb
        ));
    }
    if !bad.is_empty() {
        failures.push(format!("{}: {}", bad.join("; "), r.describe()));
    }
}

const SMALL_RSS_KB: u64 = 256 * 1024;

fn os(s: &str) -> &std::ffi::OsStr {
    std::ffi::OsStr::new(s)
}

/// A sandbox: `root/home` (HOME), `root/work/memory` (the memory dir),
/// `root/work/outside` (a victim that must never change).
struct Sandbox {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
    mem: PathBuf,
    outside: PathBuf,
    empty: PathBuf,
}

impl Sandbox {
    fn new() -> Sandbox {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_path_buf();
        let home = root.join("home");
        let mem = root.join("work/memory");
        let outside = root.join("work/outside");
        let empty = root.join("work/no-transcripts");
        for d in [&home, &mem, &outside, &empty] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(
            outside.join("victim.md"),
            "---\nname: \"Victim\"\ndescription: \"outside the memory dir\"\ntype: user\n---\nFact: untouched.\n",
        )
        .unwrap();
        Sandbox {
            _tmp: tmp,
            root,
            home,
            mem,
            outside,
            empty,
        }
    }

    fn snap(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        snapshot(&self.root, &[&self.mem, &self.home.join(".cache")])
    }

    fn seed_valid(&self) {
        for (id, name) in [
            ("deploy-twice", "Never deploy twice"),
            ("use-pnpm", "Use pnpm"),
        ] {
            std::fs::write(
                self.mem.join(format!("{id}.md")),
                format!(
                    "---\nname: \"{name}\"\ndescription: \"{name} in this repo\"\ntype: feedback\ntriggers: [\"deploy\", \"pnpm\"]\n---\nFact: {name}.\n"
                ),
            )
            .unwrap();
        }
    }

    /// Every reader and writer of a memory directory, in turn.
    fn memdir_tools(&self, mem: &Path, names: &[&str], failures: &mut Vec<String>) {
        let m = mem.as_os_str();
        let e = self.empty.as_os_str();
        let runs: Vec<(&str, Vec<&std::ffi::OsStr>)> = vec![
            ("mem-index", vec![os("list"), os("--memory-dir"), m]),
            ("mem-index", vec![os("check"), os("--memory-dir"), m]),
            ("mem-index", vec![os("reindex"), os("--memory-dir"), m]),
            (
                "mem-recall",
                vec![
                    os("--task"),
                    os("deploy the app with pnpm"),
                    os("--today"),
                    os("2026-07-13"),
                    os("--memory-dir"),
                    m,
                ],
            ),
            (
                "mem-dream",
                vec![
                    os("--dry-run"),
                    os("--force"),
                    os("--now"),
                    os("2026-07-13T12:00:00Z"),
                    os("--transcripts"),
                    e,
                    os("--memory-dir"),
                    m,
                ],
            ),
        ];
        for (tool, args) in runs {
            let r = run_tool(&self.home, tool, &args, None);
            if args[0] == "check" {
                // check exits 1 on any lint error, each naming its file
                let mut n = names.to_vec();
                n.extend([".md", "MEMORY.md"]);
                judge(&r, &n, SMALL_RSS_KB, failures);
            } else {
                judge(&r, names, SMALL_RSS_KB, failures);
            }
        }
        // a valid write next to the hostile file
        let rec = self.root.join("work/one.jsonl");
        std::fs::write(
            &rec,
            "{\"name\":\"Run setup first\",\"description\":\"setup creates the fixture\",\"type\":\"feedback\"}\n",
        )
        .unwrap();
        let r = run_tool(
            &self.home,
            "mem-index",
            &[os("write"), os("--memory-dir"), m, rec.as_os_str()],
            None,
        );
        judge(&r, names, SMALL_RSS_KB, failures);
        std::fs::remove_file(rec).unwrap();
    }
}

fn assert_no_failures(what: &str, count: usize, failures: Vec<String>) {
    eprintln!("{what}: {count} inputs, {} failures", failures.len());
    assert!(
        failures.is_empty(),
        "{} failure(s):\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn fixture_corpus_has_at_least_50_inputs() {
    let n: usize = ["transcripts", "events", "records", "topics", "index"]
        .iter()
        .map(|d| fixtures(d).len())
        .sum();
    assert!(n >= 50, "{n} hostile fixtures");
}

#[test]
fn hostile_transcripts() {
    let files = fixtures("transcripts");
    let mut failures = Vec::new();
    for f in &files {
        let sb = Sandbox::new();
        let input = sb.root.join("work").join(f.file_name().unwrap());
        std::fs::copy(f, &input).unwrap();
        let before = sb.snap();
        let name = f.file_name().unwrap().to_str().unwrap();
        let i = input.as_os_str();
        for sub in ["replay", "verify", "stats"] {
            let r = run_tool(&sb.home, "mem-transcript", &[os(sub), i], None);
            judge(&r, &[name], SMALL_RSS_KB, &mut failures);
        }
        // replay → extract → write, through files
        let ev = sb.mem.join("events.tmp-input");
        let r = run_tool(&sb.home, "mem-transcript", &[os("replay"), i], None);
        if r.code == Some(0) {
            std::fs::write(&ev, &r.stdout).unwrap();
            let x = run_tool(&sb.home, "mem-extract", &[ev.as_os_str()], None);
            judge(&x, &["events.tmp-input"], SMALL_RSS_KB, &mut failures);
            std::fs::remove_file(&ev).unwrap();
            if x.code == Some(0) {
                std::fs::write(&ev, &x.stdout).unwrap();
                let w = run_tool(
                    &sb.home,
                    "mem-index",
                    &[
                        os("write"),
                        os("--memory-dir"),
                        sb.mem.as_os_str(),
                        ev.as_os_str(),
                    ],
                    None,
                );
                judge(&w, &["events.tmp-input"], SMALL_RSS_KB, &mut failures);
                std::fs::remove_file(&ev).unwrap();
            }
        }
        if sb.snap() != before {
            failures.push(format!("{name}: something outside the memory dir changed"));
        }
    }
    assert_no_failures("transcripts", files.len(), failures);
}

#[test]
fn hostile_events() {
    let files = fixtures("events");
    let mut failures = Vec::new();
    for f in &files {
        let sb = Sandbox::new();
        let before = sb.snap();
        let name = f.file_name().unwrap().to_str().unwrap();
        let r = run_tool(&sb.home, "mem-extract", &[f.as_os_str()], None);
        judge(&r, &[name], SMALL_RSS_KB, &mut failures);
        let r = run_tool(&sb.home, "mem-extract", &[], Some(f));
        judge(&r, &["stdin", name], SMALL_RSS_KB, &mut failures);
        if sb.snap() != before {
            failures.push(format!("{name}: something outside the memory dir changed"));
        }
    }
    assert_no_failures("events", files.len(), failures);
}

#[test]
fn hostile_records() {
    let files = fixtures("records");
    let mut failures = Vec::new();
    for f in &files {
        let sb = Sandbox::new();
        sb.seed_valid();
        let before = sb.snap();
        let name = f.file_name().unwrap().to_str().unwrap();
        let m = sb.mem.as_os_str();
        for extra in [&[][..], &[os("--skip-invalid")][..]] {
            let mut args = vec![os("write"), os("--memory-dir"), m];
            args.extend_from_slice(extra);
            args.push(f.as_os_str());
            let r = run_tool(&sb.home, "mem-index", &args, None);
            judge(&r, &[name], SMALL_RSS_KB, &mut failures);
        }
        // whatever was written must read back and lint without a crash
        sb.memdir_tools(&sb.mem, &[name, ".md"], &mut failures);
        if sb.snap() != before {
            failures.push(format!("{name}: something outside the memory dir changed"));
        }
        // every file written is inside the memory dir and has a safe name
        for e in std::fs::read_dir(&sb.mem).unwrap().flatten() {
            let n = e.file_name().to_string_lossy().into_owned();
            if n.ends_with(".md") && n != "MEMORY.md" {
                let stem = n.trim_end_matches(".md");
                let ok = !stem.is_empty()
                    && stem.len() <= 128
                    && !stem.contains("..")
                    && stem
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
                if !ok {
                    failures.push(format!(
                        "{name}: wrote a topic file with an unsafe name {n:?}"
                    ));
                }
            }
        }
    }
    assert_no_failures("records", files.len(), failures);
}

#[test]
fn hostile_topic_files_and_indexes() {
    let mut files: Vec<(PathBuf, bool)> =
        fixtures("topics").into_iter().map(|p| (p, false)).collect();
    files.extend(fixtures("index").into_iter().map(|p| (p, true)));
    let mut failures = Vec::new();
    for (f, is_index) in &files {
        let sb = Sandbox::new();
        sb.seed_valid();
        let name = f.file_name().unwrap().to_str().unwrap().to_string();
        let target = if *is_index {
            sb.mem.join("MEMORY.md")
        } else {
            sb.mem.join(&name)
        };
        std::fs::copy(f, &target).unwrap();
        let original = std::fs::read(&target).unwrap();
        let before = sb.snap();
        let label = if *is_index {
            "MEMORY.md"
        } else {
            name.as_str()
        };
        sb.memdir_tools(&sb.mem, &[label], &mut failures);
        if !*is_index && std::fs::read(&target).ok().as_deref() != Some(&original[..]) {
            failures.push(format!(
                "{name}: the hostile topic file was changed or removed"
            ));
        }
        if sb.snap() != before {
            failures.push(format!("{name}: something outside the memory dir changed"));
        }
    }
    assert_no_failures("topics and indexes", files.len(), failures);
}

/// Symlinks in the memory dir pointing outside it, a dangling and a looping
/// link, a directory named like a topic, and `retired/` pointing outside.
#[test]
fn symlinks_inside_the_memory_dir_never_write_outside() {
    use std::os::unix::fs::symlink;
    let sb = Sandbox::new();
    sb.seed_valid();
    std::fs::create_dir_all(sb.outside.join("retired-target")).unwrap();
    symlink(sb.outside.join("victim.md"), sb.mem.join("victim.md")).unwrap();
    symlink("../outside/victim.md", sb.mem.join("relative-victim.md")).unwrap();
    symlink(sb.outside.join("ghost.md"), sb.mem.join("dangling.md")).unwrap();
    symlink("loop.md", sb.mem.join("loop.md")).unwrap();
    symlink(&sb.outside, sb.mem.join("dir.md")).unwrap();
    symlink(sb.outside.join("retired-target"), sb.mem.join("retired")).unwrap();
    let before = sb.snap();
    let mut failures = Vec::new();
    sb.memdir_tools(
        &sb.mem,
        &["victim", "dangling", "loop", "dir.md", "retired"],
        &mut failures,
    );
    // writing a record whose id is a linked name must not write through the link
    let rec = sb.root.join("home/victim.jsonl");
    std::fs::write(
        &rec,
        "{\"id\":\"victim\",\"name\":\"Victim\",\"description\":\"rewritten\",\"type\":\"user\"}\n\
         {\"id\":\"dangling\",\"name\":\"Dangling\",\"description\":\"new\",\"type\":\"user\"}\n",
    )
    .unwrap();
    let m = sb.mem.as_os_str();
    for args in [
        vec![os("write"), os("--memory-dir"), m, rec.as_os_str()],
        vec![
            os("retire"),
            os("use-pnpm"),
            os("--reason"),
            os("test"),
            os("--memory-dir"),
            m,
        ],
        vec![
            os("retire"),
            os("relative-victim"),
            os("--reason"),
            os("test"),
            os("--memory-dir"),
            m,
        ],
    ] {
        let r = run_tool(&sb.home, "mem-index", &args, None);
        judge(
            &r,
            &["victim", "dangling", "retired", "use-pnpm"],
            SMALL_RSS_KB,
            &mut failures,
        );
    }
    std::fs::remove_file(&rec).unwrap();
    let after = sb.snap();
    for (k, v) in &before {
        if after.get(k) != Some(v) {
            failures.push(format!("{} outside the memory dir changed", k.display()));
        }
    }
    for k in after.keys() {
        if !before.contains_key(k) {
            failures.push(format!(
                "{} was created outside the memory dir",
                k.display()
            ));
        }
    }
    assert_no_failures("symlinks", 6, failures);
}

/// A memory directory that is itself a symlink: tools work through it and
/// the link stays a link.
#[test]
fn memory_dir_that_is_a_symlink() {
    let sb = Sandbox::new();
    sb.seed_valid();
    let link = sb.root.join("work/memory-link");
    std::os::unix::fs::symlink(&sb.mem, &link).unwrap();
    let before = sb.snap();
    let mut failures = Vec::new();
    sb.memdir_tools(&link, &["memory"], &mut failures);
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink(),
        "the memory dir link was replaced"
    );
    assert!(
        sb.mem.join("run-setup-first.md").is_file(),
        "write went elsewhere"
    );
    if sb.snap() != before {
        failures.push("something outside the memory dir changed".into());
    }
    assert_no_failures("memdir symlink", 1, failures);
}

/// Generated at test time: 100,000-deep nesting as a transcript line, an
/// event, a record and a frontmatter value, and a 5 MB frontmatter.
#[test]
fn deep_nesting_and_huge_frontmatter() {
    let sb = Sandbox::new();
    sb.seed_valid();
    let mut failures = Vec::new();
    let deep_arr = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let deep_obj = format!("{}1{}", "{\"a\":".repeat(100_000), "}".repeat(100_000));
    let work = sb.root.join("work");
    let t = work.join("deep.jsonl");
    std::fs::write(
        &t,
        format!(
            "{deep_arr}\n{{\"type\":\"user\",\"uuid\":\"u1\",\"parentUuid\":null,\"message\":{deep_obj}}}\n\
             {{\"type\":\"user\",\"uuid\":\"u2\",\"parentUuid\":null,\"sessionId\":\"s\",\"timestamp\":\"2026-07-11T10:00:00Z\",\"message\":{{\"role\":\"user\",\"content\":\"Never deploy twice.\"}}}}\n"
        ),
    )
    .unwrap();
    let before = sb.snap();
    for sub in ["replay", "verify", "stats"] {
        let r = run_tool(&sb.home, "mem-transcript", &[os(sub), t.as_os_str()], None);
        judge(&r, &["deep.jsonl"], SMALL_RSS_KB, &mut failures);
    }
    let e = work.join("deep-events.jsonl");
    std::fs::write(
        &e,
        format!("{deep_arr}\n{{\"kind\":\"text\",\"input\":{deep_obj}}}\n"),
    )
    .unwrap();
    let r = run_tool(&sb.home, "mem-extract", &[e.as_os_str()], None);
    judge(&r, &["deep-events.jsonl"], SMALL_RSS_KB, &mut failures);
    let rec = work.join("deep-records.jsonl");
    std::fs::write(
        &rec,
        format!("{{\"name\":\"Deep\",\"description\":\"d\",\"type\":\"user\",\"x\":{deep_arr}}}\n"),
    )
    .unwrap();
    let r = run_tool(
        &sb.home,
        "mem-index",
        &[
            os("write"),
            os("--memory-dir"),
            sb.mem.as_os_str(),
            rec.as_os_str(),
        ],
        None,
    );
    judge(&r, &["deep-records.jsonl"], SMALL_RSS_KB, &mut failures);
    std::fs::write(
        sb.mem.join("deep-yaml.md"),
        format!("---\nname: \"Deep\"\ndescription: \"d\"\ntype: user\nx: {deep_arr}\ny: {}\n---\nbody\n", "{a: ".repeat(50_000) + &"}".repeat(50_000)),
    )
    .unwrap();
    let mut huge =
        String::from("---\nname: \"Huge\"\ndescription: \"huge frontmatter\"\ntype: user\n");
    for i in 0..100_000 {
        huge.push_str(&format!("key_{i}: \"{}\"\n", "v".repeat(40)));
    }
    huge.push_str("---\nbody\n");
    std::fs::write(sb.mem.join("huge-frontmatter.md"), &huge).unwrap();
    sb.memdir_tools(
        &sb.mem,
        &["deep-yaml.md", "huge-frontmatter.md"],
        &mut failures,
    );
    let after = sb.snap();
    // inputs written above sit outside the memory dir on purpose
    let changed: Vec<_> = after
        .iter()
        .filter(|(k, v)| {
            before.get(*k) != Some(v)
                && !k.starts_with("work/deep-events.jsonl")
                && !k.starts_with("work/deep-records.jsonl")
        })
        .map(|(k, _)| k.display().to_string())
        .collect();
    if !changed.is_empty() {
        failures.push(format!("changed outside the memory dir: {changed:?}"));
    }
    assert_no_failures("deep nesting", 6, failures);
}

/// A 100 MB single line through the transcript tools and mem-extract:
/// max RSS under 4× the line, 3× for mem-extract (run once; it is the
/// slowest test here).
#[test]
#[ignore = "heavy tier: scripts/test.sh --heavy runs it (CI does)"]
fn hundred_megabyte_single_line() {
    const LINE: usize = 100 * 1024 * 1024;
    let sb = Sandbox::new();
    let work = sb.root.join("work");
    let t = work.join("big.jsonl");
    {
        use std::io::Write;
        let mut f = std::io::BufWriter::new(std::fs::File::create(&t).unwrap());
        writeln!(
            f,
            "{{\"type\":\"user\",\"uuid\":\"u0\",\"parentUuid\":null,\"sessionId\":\"s\",\"cwd\":\"/home/dev/proj\",\"timestamp\":\"2026-07-11T10:00:00Z\",\"message\":{{\"role\":\"user\",\"content\":\"Never deploy on Fridays.\"}}}}"
        )
        .unwrap();
        write!(
            f,
            "{{\"type\":\"user\",\"uuid\":\"u1\",\"parentUuid\":\"u0\",\"sessionId\":\"s\",\"cwd\":\"/home/dev/proj\",\"timestamp\":\"2026-07-11T10:00:01Z\",\"message\":{{\"role\":\"user\",\"content\":\""
        )
        .unwrap();
        let chunk = "lorem ipsum dolor sit amet. ".repeat(1024);
        let mut n = 0;
        while n < LINE {
            f.write_all(chunk.as_bytes()).unwrap();
            n += chunk.len();
        }
        writeln!(f, "\"}}}}").unwrap();
    }
    let bound_kb = (4 * LINE / 1024) as u64;
    let mut failures = Vec::new();
    let before = sb.snap();
    let mut rss = Vec::new();
    for sub in ["verify", "stats", "replay"] {
        let r = run_tool(&sb.home, "mem-transcript", &[os(sub), t.as_os_str()], None);
        judge(&r, &["big.jsonl"], bound_kb, &mut failures);
        rss.push(format!("mem-transcript {sub}: {} MB", r.max_rss_kb / 1024));
        if sub == "replay" && r.code == Some(0) {
            let ev = work.join("big-events.jsonl");
            std::fs::write(&ev, &r.stdout).unwrap();
            drop(r);
            let x = run_tool(&sb.home, "mem-extract", &[ev.as_os_str()], None);
            // 3x: the line's buffers grow by `realloc`, which must not copy
            // the large ones (the C library's allocator moves them with
            // mremap: 2.5x the line, where mimalloc took 3.5x)
            judge(
                &x,
                &["big-events.jsonl"],
                (3 * LINE / 1024) as u64,
                &mut failures,
            );
            rss.push(format!("mem-extract: {} MB", x.max_rss_kb / 1024));
            std::fs::remove_file(&ev).unwrap();
        }
    }
    eprintln!("100 MB line, max RSS: {}", rss.join(", "));
    if sb.snap() != before {
        failures.push("something outside the memory dir changed".into());
    }
    assert_no_failures("100 MB line", 1, failures);
}
