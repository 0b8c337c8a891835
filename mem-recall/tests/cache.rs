//! The cache of topic files (load.rs, cache.rs): used when a file's name,
//! mtime and size are unchanged outside the racy window; a corrupt, foreign
//! or old-version cache is ignored and rebuilt; deleted files are dropped
//! and new ones picked up.

mod util;

use std::path::{Path, PathBuf};

use filetime::FileTime;
use mem_core::text::Stems;
use mem_recall::cache;
use mem_recall::load::{CACHE_FILE, Loaded, load_dir, load_dir_within};
use std::time::Duration;
use util::{FIXTURE, MIRROR, write};

struct Setup {
    _tmp: tempfile::TempDir,
    mem: PathBuf,
    cache: PathBuf,
}

const OLD: i64 = 1_700_000_000;

fn setup() -> Setup {
    let tmp = tempfile::tempdir().unwrap();
    let mem = tmp.path().join("mem");
    write(&mem.join("fixture-before-verify.md"), FIXTURE);
    write(&mem.join("mirror-slow-on-0711.md"), MIRROR);
    write(&mem.join("MEMORY.md"), "- [x](fixture-before-verify.md)\n");
    write(&mem.join("notes.txt"), "not a topic\n");
    for f in ["fixture-before-verify.md", "mirror-slow-on-0711.md"] {
        age(&mem.join(f));
    }
    let cache = tmp.path().join("cache/mem/0123/").join(CACHE_FILE);
    std::fs::create_dir_all(cache.parent().unwrap()).unwrap();
    Setup {
        _tmp: tmp,
        mem,
        cache,
    }
}

/// Set the mtime well before any cache write (outside the racy window).
fn age(p: &Path) {
    filetime::set_file_mtime(p, FileTime::from_unix_time(OLD, 0)).unwrap();
}

/// The racy window of these tests' loads: short, so that what was
/// written before a load is past it (see [`load`]).
const WINDOW: Duration = Duration::from_millis(50);

/// Load through the cache once what was written is past the racy window:
/// a file's or the directory's ctime (which no test can set back) must be
/// older than the window when the cache is written for it to be trusted.
/// `load_dir` itself (a window of `RACY_SECS`) is what the racy tests use.
fn load(s: &Setup) -> Loaded {
    std::thread::sleep(WINDOW + Duration::from_millis(20));
    load_dir_within(&s.mem, Some(&s.cache), &Stems::default(), WINDOW).unwrap()
}

fn ids(l: &Loaded) -> Vec<String> {
    l.items.iter().map(|i| i.doc.id.to_string()).collect()
}

fn entries(s: &Setup) -> usize {
    cache::read(&s.cache).expect("a valid cache").entries.len()
}

#[test]
fn cached_entries_are_used_and_equal_a_fresh_parse() {
    let s = setup();
    let first = load(&s);
    assert_eq!((first.parsed, first.cached), (2, 0));
    assert_eq!(
        ids(&first),
        ["fixture-before-verify", "mirror-slow-on-0711"]
    );
    assert!(s.cache.is_file());
    assert!(!s.cache.starts_with(&s.mem));
    let second = load(&s);
    assert_eq!((second.parsed, second.cached), (0, 2));
    let uncached = load_dir(&s.mem, None, &Stems::default()).unwrap();
    for ((a, b), c) in first.items.iter().zip(&second.items).zip(&uncached.items) {
        assert_eq!(a.doc, b.doc);
        assert_eq!(b.doc, c.doc);
        assert_eq!(b.path(), Some(s.mem.join(format!("{}.md", b.doc.id))));
        assert_eq!(b.memory().unwrap().name, c.memory().unwrap().name);
    }
}

#[test]
fn cached_injection_equals_the_topic_file_rendered_and_needs_no_read() {
    let s = setup();
    load(&s);
    let cached = load(&s);
    assert_eq!(cached.cached, 2);
    let uncached = load_dir(&s.mem, None, &Stems::default()).unwrap();
    for (b, c) in cached.items.iter().zip(&uncached.items) {
        assert!(
            b.md.is_some(),
            "{}: the cache keeps the injection",
            b.doc.id
        );
        let read = mem_recall::inject::memory_md_in(&b.doc.id, &c.memory().unwrap(), b.tier);
        assert_eq!(b.injected_md().unwrap(), read);
        assert!(read.starts_with("## "), "{read}");
        let mut team = b.clone();
        team.tier = mem_core::tier::Tier::Team;
        assert_eq!(
            team.injected_md().unwrap(),
            mem_recall::inject::memory_md_in(&b.doc.id, &c.memory().unwrap(), team.tier)
        );
        assert!(
            team.injected_md()
                .unwrap()
                .contains(&format!("({}, team)\n", b.doc.id))
        );
    }
    // A memory loaded from the cache is injected from it, without reading
    // its topic file again: a change made after the load does not show;
    // without the cached injection the file is read.
    let first = &cached.items[0];
    let before = first.injected_md().unwrap();
    let p = first.path().unwrap();
    let text = std::fs::read_to_string(&p).unwrap();
    std::fs::write(&p, text.replace("name:", "name: Changed")).unwrap();
    assert_eq!(first.injected_md().unwrap(), before);
    let mut no_md = first.clone();
    no_md.md = None;
    assert_ne!(
        no_md.injected_md().unwrap(),
        before,
        "without md the file is read"
    );
}

#[test]
fn new_file_is_picked_up_and_deleted_file_dropped() {
    let s = setup();
    load(&s);
    let new = s.mem.join("added-later.md");
    write(&new, &FIXTURE.replace("Run setup", "Added"));
    age(&new);
    let l = load(&s);
    assert_eq!((l.parsed, l.cached), (1, 2));
    assert_eq!(
        ids(&l),
        [
            "added-later",
            "fixture-before-verify",
            "mirror-slow-on-0711"
        ]
    );
    assert_eq!(entries(&s), 3);
    std::fs::remove_file(s.mem.join("fixture-before-verify.md")).unwrap();
    let l = load(&s);
    assert_eq!((l.parsed, l.cached), (0, 2));
    assert_eq!(ids(&l), ["added-later", "mirror-slow-on-0711"]);
    // The cache forgets it too.
    assert_eq!(entries(&s), 2);
    assert_eq!(load(&s).cached, 2);
}

#[test]
fn changed_file_is_read_again() {
    let s = setup();
    load(&s);
    let p = s.mem.join("mirror-slow-on-0711.md");
    write(&p, &MIRROR.replace("\"mirror\"", "\"other\""));
    filetime::set_file_mtime(&p, FileTime::from_unix_time(OLD + 1, 0)).unwrap();
    let l = load(&s);
    assert_eq!((l.parsed, l.cached), (1, 1));
    assert!(l.items[1].doc.triggers.iter().any(|t| t == "other"));
}

/// An edit of the same size whose mtime is put back (`cp -p`, `touch -r`,
/// `rsync -a`): the change time and inode still tell, so it is read again.
#[test]
fn edit_with_its_mtime_put_back_is_read_again() {
    let s = setup();
    assert_eq!(load(&s).parsed, 2);
    assert_eq!(load(&s).cached, 2);
    let p = s.mem.join("mirror-slow-on-0711.md");
    let v2 = MIRROR.replace("\"mirror\"", "\"mirrox\"");
    assert_eq!(v2.len(), MIRROR.len());
    std::fs::write(&p, &v2).unwrap();
    age(&p);
    let l = load(&s);
    assert_eq!((l.parsed, l.cached), (1, 1));
    assert!(l.items[1].doc.triggers.iter().any(|t| t == "mirrox"));
    // and so is a file replaced by another with the same mtime and size
    let tmp = s.mem.join("swap.tmp");
    std::fs::write(&tmp, MIRROR).unwrap();
    age(&tmp);
    std::fs::rename(&tmp, &p).unwrap();
    let l = load(&s);
    assert_eq!((l.parsed, l.cached), (1, 1));
    assert!(l.items[1].doc.triggers.iter().any(|t| t == "mirror"));
}

#[test]
fn file_modified_within_the_racy_window_is_read_again() {
    let s = setup();
    let p = s.mem.join("racy.md");
    let v1 = FIXTURE.replace("build-token", "alpha-token");
    let v2 = FIXTURE.replace("build-token", "bravo-token");
    assert_eq!(v1.len(), v2.len());
    write(&p, &v1);
    let mtime = FileTime::from_last_modification_time(&std::fs::metadata(&p).unwrap());
    let l = load(&s);
    assert!(
        l.items
            .iter()
            .any(|i| i.doc.triggers.iter().any(|t| t == "alpha-token"))
    );
    // Same name, size and mtime (changed within one clock tick), written
    // within the racy window of the cache: never trusted.
    write(&p, &v2);
    filetime::set_file_mtime(&p, mtime).unwrap();
    let l = load(&s);
    assert_eq!((l.parsed, l.cached), (1, 2));
    let racy = l.items.iter().find(|i| i.doc.id == "racy").unwrap();
    assert!(racy.doc.triggers.iter().any(|t| t == "bravo-token"));
}

#[test]
fn corrupt_cache_is_ignored_and_rebuilt() {
    let s = setup();
    load(&s);
    let good = std::fs::read_to_string(&s.cache).unwrap();
    let bad: Vec<Vec<u8>> = vec![
        b"{garbage".to_vec(),
        Vec::new(),
        vec![0xff, 0xfe, 0x00],
        good.as_bytes()[..good.len() / 2].to_vec(),
        good.replace("end", "").into_bytes(),
        good.replace("fixture-before-verify.md", "zzz").into_bytes(),
    ];
    for b in bad {
        std::fs::write(&s.cache, &b).unwrap();
        let l = load(&s);
        assert_eq!(
            (l.parsed, l.cached),
            (2, 0),
            "{:?}",
            String::from_utf8_lossy(&b)
        );
        assert_eq!(ids(&l), ["fixture-before-verify", "mirror-slow-on-0711"]);
        assert_eq!(entries(&s), 2);
        assert_eq!(load(&s).cached, 2);
    }
    // One bad body (the framing intact): that file is read again.
    let body = cache::read(&s.cache).unwrap().entries[0].body;
    assert!(body.starts_with("0;"));
    let bad = good.replacen(&format!(":{body}"), &format!(":7{}", &body[1..]), 1);
    assert_ne!(bad, good);
    std::fs::write(&s.cache, bad).unwrap();
    let l = load(&s);
    assert_eq!((l.parsed, l.cached), (1, 1));
    assert_eq!(load(&s).cached, 2);
}

#[test]
fn old_version_or_foreign_cache_is_ignored() {
    let s = setup();
    load(&s);
    let good = std::fs::read_to_string(&s.cache).unwrap();
    // The same layout under another version number.
    let v = format!("{}{};", cache::MAGIC, cache::CACHE_VERSION);
    assert!(good.starts_with(&v));
    std::fs::write(
        &s.cache,
        good.replacen(&v, &format!("{}1;", cache::MAGIC), 1),
    )
    .unwrap();
    assert_eq!(load(&s).parsed, 2);
    // A cache of another memory dir.
    let other = good.replace(
        &format!(
            "{}:{}",
            s.mem.to_str().unwrap().len(),
            s.mem.to_str().unwrap()
        ),
        "4:/elz",
    );
    assert_ne!(other, good);
    std::fs::write(&s.cache, other).unwrap();
    assert_eq!(load(&s).parsed, 2);
    // The first layout's JSON file beside it is removed on the next write.
    let json = s.cache.with_file_name("recall.json");
    std::fs::write(&json, "{\"version\":1,\"entries\":[]}").unwrap();
    std::fs::remove_file(&s.cache).unwrap();
    assert_eq!(load(&s).parsed, 2);
    assert!(!json.exists());
    assert_eq!(load(&s).cached, 2);
}

#[test]
fn broken_files_stay_reported_from_the_cache() {
    let s = setup();
    let p = s.mem.join("broken-one.md");
    write(&p, "---\nname: [unclosed\n---\nbody\n");
    age(&p);
    let first = load(&s);
    assert_eq!(first.broken.len(), 1, "{:?}", first.broken);
    let second = load(&s);
    assert_eq!((second.parsed, second.cached), (0, 3));
    assert_eq!(second.broken, first.broken);
    assert_eq!(ids(&second), ids(&first));
}

/// A file named `*.md` whose stem is not a valid id (a space, a character
/// outside `A-Z a-z 0-9 . _ -`, a name that is not UTF-8) was left out
/// without a word: it is reported at every load, the cached ones included
/// (the directory is listed each time), and the topic files still load.
#[test]
fn a_md_file_that_is_no_topic_file_is_reported_at_every_load() {
    use std::os::unix::ffi::OsStrExt;
    let s = setup();
    write(&s.mem.join("deploy notes.md"), FIXTURE);
    write(
        &s.mem.join(std::ffi::OsStr::from_bytes(b"bad\xffname.md")),
        FIXTURE,
    );
    write(&s.mem.join(".hidden.md"), FIXTURE);
    let want = |name: &str| {
        format!(
            "{}: not a valid topic id (a topic file is `<id>.md`, the id of `A-Z a-z 0-9 . _ -`, \
             at most 128 characters); not read",
            s.mem.join(name).display()
        )
    };
    let expected = vec![want("bad\u{fffd}name.md"), want("deploy notes.md")];
    let first = load(&s);
    assert_eq!(first.broken, expected);
    assert_eq!(
        ids(&first),
        ["fixture-before-verify", "mirror-slow-on-0711"]
    );
    age_dir(&s);
    for _ in 0..2 {
        let again = load(&s);
        assert!(again.relisted);
        assert_eq!((again.parsed, again.cached), (0, 2));
        assert_eq!(again.broken, expected);
        assert_eq!(ids(&again), ids(&first));
    }
    // Renamed to a valid id: read, and the directory's key kept again.
    std::fs::rename(s.mem.join("deploy notes.md"), s.mem.join("deploy-notes.md")).unwrap();
    std::fs::remove_file(s.mem.join(std::ffi::OsStr::from_bytes(b"bad\xffname.md"))).unwrap();
    age(&s.mem.join("deploy-notes.md"));
    age_dir(&s);
    let fixed = load(&s);
    assert!(fixed.broken.is_empty(), "{:?}", fixed.broken);
    assert_eq!(fixed.items.len(), 3);
    assert!(!load(&s).relisted);
}

/// A broken topic file is named by its whole path and the line, as the
/// other warnings name files (it was `broken.md:3`), from the cache too;
/// bytes that are not UTF-8 are placed on their line (it said line 1).
#[test]
fn a_broken_file_is_named_by_its_path_and_line() {
    let s = setup();
    let yaml = s.mem.join("broken-yaml.md");
    write(&yaml, "---\nname: [unclosed\n---\nbody\n");
    let bytes = s.mem.join("broken-bytes.md");
    std::fs::write(&bytes, b"---\nname: n\ndescription: \xff\n---\nbody\n").unwrap();
    age(&yaml);
    age(&bytes);
    let want = vec![
        format!("{}:3: not valid UTF-8", bytes.display()),
        format!(
            "{}:3: frontmatter: did not find expected ',' or ']'",
            yaml.display()
        ),
    ];
    let first = load(&s);
    assert_eq!(first.broken, want);
    let second = load(&s);
    assert_eq!(second.parsed, 0);
    assert_eq!(second.broken, want);
}

#[test]
fn many_files_load_in_order_through_the_cache() {
    let s = setup();
    let n = mem_recall::load::PARALLEL_FROM + 89;
    for i in 0..n {
        let p = s.mem.join(format!("bulk-{i:04}.md"));
        write(&p, &FIXTURE.replace("Run setup", &format!("Bulk {i}")));
        if i % 3 != 0 {
            age(&p);
        } else {
            // Inside the racy window however long the writes took.
            let soon = std::time::SystemTime::now() + std::time::Duration::from_secs(3600);
            filetime::set_file_mtime(&p, FileTime::from_system_time(soon)).unwrap();
        }
    }
    let uncached = load_dir(&s.mem, None, &Stems::default()).unwrap();
    assert_eq!(uncached.items.len(), n + 2);
    let mut sorted = ids(&uncached);
    sorted.sort();
    assert_eq!(ids(&uncached), sorted);
    let first = load(&s);
    assert_eq!((first.parsed, first.cached), (n + 2, 0));
    let second = load(&s);
    // Files written just now are within the racy window: read again.
    assert_eq!(second.parsed, n.div_ceil(3));
    assert_eq!(second.cached, n + 2 - n.div_ceil(3));
    for l in [&first, &second] {
        assert_eq!(ids(l), ids(&uncached));
        for (a, b) in l.items.iter().zip(&uncached.items) {
            assert_eq!(a.doc, b.doc);
        }
    }
}

/// In a directory large enough to be listed on two threads, a file
/// edited with its mtime put back, one added, one removed and one replaced
/// by a rename are each read again or dropped: the result equals an
/// uncached load, in file name order, every time.
#[test]
fn many_files_changed_added_removed_or_replaced_are_never_stale() {
    let s = setup();
    let n = mem_recall::load::PARALLEL_FROM + 40;
    let name = |i: usize| s.mem.join(format!("bulk-{i:04}.md"));
    for i in 0..n {
        write(
            &name(i),
            &FIXTURE.replace("Run setup", &format!("Bulk {i:04}")),
        );
        age(&name(i));
    }
    let first = load(&s);
    assert_eq!((first.parsed, first.cached), (n + 2, 0));
    assert_eq!(load(&s).cached, n + 2);
    // Same size, mtime put back.
    let edited = FIXTURE.replace("Run setup", "Bulk 9999");
    write(&name(7), &edited);
    age(&name(7));
    // Added, removed, replaced by a rename (same size and mtime).
    let added = s.mem.join("added-among-many.md");
    write(&added, &FIXTURE.replace("Run setup", "Added"));
    age(&added);
    std::fs::remove_file(name(n - 1)).unwrap();
    let tmp = s.mem.join("swap.tmp");
    write(&tmp, &FIXTURE.replace("Run setup", "Bulk 8888"));
    age(&tmp);
    std::fs::rename(&tmp, name(300)).unwrap();
    let l = load(&s);
    assert_eq!((l.parsed, l.cached), (3, n - 1));
    let uncached = load_dir(&s.mem, None, &Stems::default()).unwrap();
    assert_eq!(uncached.items.len(), n + 2);
    assert_eq!(ids(&l), ids(&uncached));
    for (a, b) in l.items.iter().zip(&uncached.items) {
        assert_eq!(a.doc, b.doc);
        assert_eq!(a.injected_md().unwrap(), b.injected_md().unwrap());
    }
    let doc = |l: &Loaded, id: &str| {
        let i = l.items.iter().position(|i| i.doc.id == id).unwrap();
        l.items[i].injected_md().unwrap()
    };
    assert!(doc(&l, "bulk-0007").contains("Bulk 9999"));
    assert!(doc(&l, "bulk-0300").contains("Bulk 8888"));
    assert!(doc(&l, "added-among-many").contains("Added"));
    assert!(!ids(&l).contains(&format!("bulk-{:04}", n - 1)));
    // The cache rewritten: all of it is used next time, the same.
    let again = load(&s);
    assert_eq!((again.parsed, again.cached), (0, n + 2));
    assert_eq!(injected(&again), injected(&uncached));
}

/// The injected Markdown of every memory, in file order.
fn injected(l: &Loaded) -> Vec<String> {
    l.items.iter().map(|i| i.injected_md().unwrap()).collect()
}

#[test]
fn markdown_is_read_from_the_section_after_the_index() {
    use mem_recall::load::Md;
    let s = setup();
    let first = load(&s);
    let want = injected(&first);
    assert!(want[0].starts_with("## "), "{}", want[0]);
    assert!(want[0].contains("(fixture-before-verify)\n"), "{}", want[0]);
    let good = std::fs::read_to_string(&s.cache).unwrap();
    let index = cache::index_of(&good).unwrap();
    // The Markdown (the fixture's body) follows the index.
    let body_line = want[0].lines().nth(3).unwrap();
    assert!(!index.contains(body_line), "{body_line}");
    assert!(good[index.len()..].contains(body_line));
    let second = load(&s);
    assert_eq!(second.cached, 2);
    assert!(
        second
            .items
            .iter()
            .all(|i| matches!(i.md, Some(Md::Cached(_))))
    );
    assert_eq!(injected(&second), want);
    // A section that does not decode (same size): the memories are
    // rendered from their topic files, the same.
    let bad = format!("{index}{}", good[index.len()..].replacen(':', ";", 1));
    assert_eq!(bad.len(), good.len());
    std::fs::write(&s.cache, &bad).unwrap();
    let third = load(&s);
    assert_eq!((third.parsed, third.cached), (0, 2));
    assert_eq!(injected(&third), want);
}

#[test]
fn a_cache_of_layout_6_is_rebuilt() {
    let s = setup();
    load(&s);
    let good = std::fs::read_to_string(&s.cache).unwrap();
    let index = cache::index_of(&good).unwrap();
    // Version 6: no lengths, the Markdown inside the bodies (here: none).
    let head = format!("{}{};", cache::MAGIC, cache::CACHE_VERSION);
    let rest = &index[head.len() + 32..];
    let v6 = format!("{}6;{rest}", cache::MAGIC);
    std::fs::write(&s.cache, &v6).unwrap();
    let l = load(&s);
    assert_eq!((l.parsed, l.cached), (2, 0));
    let now = std::fs::read_to_string(&s.cache).unwrap();
    assert!(now.starts_with(&head));
    assert_eq!(load(&s).cached, 2);
}

/// The memory dir's mtime set well before any cache write, as [`age`].
fn age_dir(s: &Setup) {
    age(&s.mem);
}

/// While the directory keeps the mtime and ctime it had when the cache
/// was written from its listing, its files are stat'ed by name and it is
/// not listed again; an edit in place (mtime put back) is still seen.
#[test]
fn an_unchanged_directory_is_not_listed_again() {
    let s = setup();
    age_dir(&s);
    let first = load(&s);
    assert!(first.relisted);
    let second = load(&s);
    assert!(!second.relisted);
    assert_eq!((second.parsed, second.cached), (0, 2));
    assert_eq!(ids(&second), ids(&first));
    let p = s.mem.join("mirror-slow-on-0711.md");
    write(&p, &MIRROR.replace("\"mirror\"", "\"mirrr\""));
    age(&p);
    let third = load(&s);
    assert!(!third.relisted);
    assert_eq!((third.parsed, third.cached), (1, 1));
    assert!(third.items[1].doc.triggers.iter().any(|t| t == "mirrr"));
    assert_eq!(ids(&third), ids(&first));
}

/// A file added, removed or renamed, even with the directory's mtime put
/// back (`touch -r`): its ctime changed, so it is listed again, and the
/// result is an uncached load's.
#[test]
fn an_entry_added_removed_or_renamed_is_seen_with_the_dir_mtime_put_back() {
    let s = setup();
    age_dir(&s);
    load(&s);
    assert!(!load(&s).relisted);
    let uncached = || ids(&load_dir(&s.mem, None, &Stems::default()).unwrap());
    let added = s.mem.join("added-later.md");
    write(&added, &FIXTURE.replace("Run setup", "Added"));
    age(&added);
    age_dir(&s);
    let l = load(&s);
    assert!(l.relisted);
    assert_eq!(
        ids(&l),
        [
            "added-later",
            "fixture-before-verify",
            "mirror-slow-on-0711"
        ]
    );
    assert_eq!(ids(&l), uncached());
    std::fs::rename(&added, s.mem.join("renamed-later.md")).unwrap();
    age_dir(&s);
    let l = load(&s);
    assert!(l.relisted);
    assert_eq!(
        ids(&l),
        [
            "fixture-before-verify",
            "mirror-slow-on-0711",
            "renamed-later"
        ]
    );
    std::fs::remove_file(s.mem.join("fixture-before-verify.md")).unwrap();
    age_dir(&s);
    let l = load(&s);
    assert_eq!(ids(&l), ["mirror-slow-on-0711", "renamed-later"]);
    assert_eq!(ids(&l), uncached());
}

/// A directory or file changed within the racy window is listed, and
/// read, at every load until the cache is written late enough to trust
/// it. What counts is the ctime, which no program can set back: an mtime
/// put back (`touch -d`, as `age` does here) would let a change made in
/// the clock tick of the cache's write (coarse timestamps) keep its key.
#[test]
fn a_directory_changed_just_now_is_listed_again() {
    let s = setup();
    age_dir(&s);
    // the files and the directory were just changed: their ctime is now,
    // within RACY_SECS of every load below, their mtime long ago
    let load_now = |s: &Setup| load_dir(&s.mem, Some(&s.cache), &Stems::default()).unwrap();
    load_now(&s);
    let l = load_now(&s);
    assert!(l.relisted);
    assert_eq!((l.parsed, l.cached), (2, 0));
    // the same loads past a short window trust both
    let l = load(&s);
    assert!(l.relisted);
    let l = load(&s);
    assert!(!l.relisted);
    assert_eq!((l.parsed, l.cached), (0, 2));
}

/// A topic file that cannot be read (here a symbolic link) is never
/// cached: the directory stays listed and the file reported at every load.
#[test]
fn an_unreadable_topic_file_keeps_the_directory_listed() {
    let s = setup();
    std::os::unix::fs::symlink(
        s.mem.join("fixture-before-verify.md"),
        s.mem.join("linked-copy.md"),
    )
    .unwrap();
    age_dir(&s);
    for _ in 0..3 {
        let l = load(&s);
        assert!(l.relisted);
        assert_eq!(l.broken.len(), 1, "{:?}", l.broken);
        assert!(l.broken[0].contains("linked-copy.md"), "{:?}", l.broken);
    }
}

/// A file gone although the directory's key is unchanged (its mtime and
/// ctime written back is not possible; a file system that does not keep
/// them): the directory is listed instead.
#[test]
fn a_cached_file_that_is_gone_makes_the_directory_listed() {
    let s = setup();
    age_dir(&s);
    load(&s);
    assert!(!load(&s).relisted);
    // The cache claims a file the directory does not hold.
    let text = std::fs::read_to_string(&s.cache).unwrap();
    let forged = text.replace("mirror-slow-on-0711.md", "mirror-slow-on-0799.md");
    std::fs::write(&s.cache, forged).unwrap();
    let l = load(&s);
    assert!(l.relisted);
    assert_eq!(ids(&l), ["fixture-before-verify", "mirror-slow-on-0711"]);
}

/// A cache whose listing is the directory's but which names a file out of
/// it (`../`): the name is refused, the directory listed, and nothing
/// outside it read.
#[test]
fn a_cache_naming_a_file_outside_the_directory_is_not_followed() {
    let s = setup();
    age_dir(&s);
    load(&s);
    assert!(!load(&s).relisted);
    let real = "fixture-before-verify.md";
    let evil = "../outside/fixture-xy.md";
    assert_eq!(real.len(), evil.len());
    let outside = s.mem.parent().unwrap().join("outside");
    write(
        &outside.join("fixture-xy.md"),
        &FIXTURE.replace("Run setup", "Outside the memory dir"),
    );
    let text = std::fs::read_to_string(&s.cache).unwrap();
    assert_eq!(text.matches(real).count(), 1);
    std::fs::write(&s.cache, text.replace(real, evil)).unwrap();
    let l = load(&s);
    assert!(l.relisted);
    assert_eq!(ids(&l), ["fixture-before-verify", "mirror-slow-on-0711"]);
    for item in &l.items {
        assert!(!item.injected_md().unwrap().contains("Outside"));
    }
}

/// A cache that holds a reserved name (here a dotfile the directory
/// holds too) as an entry: the name is checked at every listing, so the
/// file is never read as a memory.
#[test]
fn a_reserved_name_in_the_cache_is_not_read_as_a_memory() {
    let s = setup();
    let hidden = ".ixture-before-verify.md";
    write(&s.mem.join(hidden), &FIXTURE.replace("Run setup", "Hidden"));
    age_dir(&s);
    load(&s);
    let text = std::fs::read_to_string(&s.cache).unwrap();
    let real = "fixture-before-verify.md";
    assert_eq!((real.len(), text.matches(real).count()), (hidden.len(), 1));
    std::fs::write(&s.cache, text.replace(real, hidden)).unwrap();
    assert!(cache::read(&s.cache).is_some(), "the forged cache parses");
    let l = load(&s);
    assert!(l.relisted);
    assert!(l.broken.is_empty(), "{:?}", l.broken);
    assert_eq!(ids(&l), ["fixture-before-verify", "mirror-slow-on-0711"]);
}

/// A cache file cut short at any length, or with any byte of its index
/// changed, is rebuilt or (for a change that still parses) read as what it
/// says: never a panic, never a memory other than the directory's.
#[test]
fn a_truncated_or_damaged_cache_file_is_rebuilt() {
    let s = setup();
    load(&s);
    let good = std::fs::read(&s.cache).unwrap();
    let want = ["fixture-before-verify", "mirror-slow-on-0711"];
    let index_len = cache::index_of(std::str::from_utf8(&good).unwrap())
        .unwrap()
        .len();
    for cut in (0..good.len()).step_by(7) {
        std::fs::write(&s.cache, &good[..cut]).unwrap();
        let l = load_dir_within(&s.mem, Some(&s.cache), &Stems::default(), WINDOW).unwrap();
        assert_eq!((l.parsed, l.cached), (2, 0), "cut at {cut}");
        assert_eq!(ids(&l), want, "cut at {cut}");
        assert_eq!(
            std::fs::read(&s.cache).unwrap().len(),
            good.len(),
            "cut at {cut}"
        );
    }
    for at in (0..index_len).step_by(5) {
        let mut bad = good.clone();
        bad[at] ^= 0x5a;
        std::fs::write(&s.cache, &bad).unwrap();
        let l = load_dir_within(&s.mem, Some(&s.cache), &Stems::default(), WINDOW).unwrap();
        assert_eq!(ids(&l), want, "byte {at}");
        assert!(l.broken.is_empty(), "byte {at}: {:?}", l.broken);
    }
}

/// A cache of the previous layout version (13, without the names of
/// several words among the terms) is rebuilt, not read.
#[test]
fn a_cache_of_layout_13_is_rebuilt() {
    let s = setup();
    load(&s);
    let good = std::fs::read_to_string(&s.cache).unwrap();
    let head = format!("{}{};", cache::MAGIC, cache::CACHE_VERSION);
    assert_eq!(cache::CACHE_VERSION, 14);
    let v13 = good.replacen(&head, &format!("{}13;", cache::MAGIC), 1);
    std::fs::write(&s.cache, &v13).unwrap();
    let l = load(&s);
    assert_eq!((l.parsed, l.cached), (2, 0));
    assert!(
        std::fs::read_to_string(&s.cache)
            .unwrap()
            .starts_with(&head)
    );
    assert_eq!(load(&s).cached, 2);
}
