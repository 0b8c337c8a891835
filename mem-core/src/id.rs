//! Memory ids: deriving one from a name, validating existing file stems, and
//! keeping every path made from an id inside its directory (cases B25, B17).
//!
//! Rules (docs/records.md "Memory ids"): a name that looks like a path or
//! smuggles one — empty, starting with `/` or `~`, containing `..`, `\`,
//! a percent-encoded byte (`%2e`), NUL or a control character — is refused;
//! otherwise it is lowercased, each run of characters outside `[a-z0-9]`
//! (a `/` or `%` used as ordinary text included: `"Run scripts/setup.sh
//! before tests"` → `run-scripts-setup-sh-before-tests`) becomes `-`, dashes
//! are trimmed and the result is cut to 64 bytes. An empty result, a Windows
//! device name or `memory` in any case (the index `MEMORY.md` on a
//! case-insensitive file system) is refused. Ids mem creates match
//! `[a-z0-9][a-z0-9-]{0,63}`; existing files are read with ids
//! `[A-Za-z0-9][A-Za-z0-9._-]{0,127}` without `..`.

use std::path::{Component, Path, PathBuf};

use crate::error::IdError;

/// Longest id mem accepts as its own form ([`is_new_id`]), in bytes: the
/// cap ids had before [`MAX_DERIVED_ID`], so files named then still are.
pub const MAX_NEW_ID: usize = 64;
/// Longest id [`derive_id`] gives a new memory, in bytes: the slug is cut
/// at the last word boundary within it (a short file name leaves the index
/// line room for its title and description).
pub const MAX_DERIVED_ID: usize = 40;
/// Longest id accepted for an existing file, in bytes.
pub const MAX_EXISTING_ID: usize = 128;

const DEVICES: &[&str] = &[
    "con", "prn", "aux", "nul", "com0", "com1", "com2", "com3", "com4", "com5", "com6", "com7",
    "com8", "com9", "lpt0", "lpt1", "lpt2", "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8", "lpt9",
    "conin$", "conout$",
];

/// Check a name for the characters that are refused outright, before slugging.
/// One error per rule, checked in a fixed order.
pub fn check_name(name: &str) -> Result<(), IdError> {
    check_rules(name, true)
}

/// True when `s` holds a percent-encoded byte (`%` and two hex digits).
fn has_percent_escape(s: &str) -> bool {
    s.as_bytes()
        .windows(3)
        .any(|w| w[0] == b'%' && w[1].is_ascii_hexdigit() && w[2].is_ascii_hexdigit())
}

/// Check a name a new id is derived from: refused when it looks like a
/// path or smuggles one (a leading `/` or `~`, `..`, `\`, a percent-encoded
/// byte, a control character); a `/` or `%` inside ordinary text is slugged
/// away by [`derive_id`]. One error per rule, checked in a fixed order.
pub fn check_name_for_id(name: &str) -> Result<(), IdError> {
    check_rules(name, false)
}

/// The rules of [`check_name`] (`strict`: any `/` or `%` is refused) and
/// [`check_name_for_id`] (only a leading `/` and a percent-encoded byte),
/// in their fixed order.
fn check_rules(name: &str, strict: bool) -> Result<(), IdError> {
    let (slash, percent) = if strict {
        (name.contains('/'), name.contains('%'))
    } else {
        (name.trim_start().starts_with('/'), has_percent_escape(name))
    };
    if name.trim().is_empty() {
        return Err(IdError::Empty);
    }
    if name.starts_with('~') {
        return Err(IdError::Tilde(name.into()));
    }
    if name.contains("..") {
        return Err(IdError::DotDot(name.into()));
    }
    if slash {
        return Err(IdError::Slash(name.into()));
    }
    if name.contains('\\') {
        return Err(IdError::Backslash(name.into()));
    }
    if percent {
        return Err(IdError::Percent(name.into()));
    }
    if name.chars().any(char::is_control) {
        return Err(IdError::Control(name.into()));
    }
    Ok(())
}

/// Derive the id of a new memory from its `name`.
///
/// `"Build: release profile"` → `"build-release-profile"`; `"Run
/// scripts/setup.sh before tests"` → `"run-scripts-setup-sh-before-tests"`.
/// Errors: one [`IdError`] variant per refused rule (see module docs and
/// [`check_name_for_id`]).
pub fn derive_id(name: &str) -> Result<String, IdError> {
    let full = full_slug(name)?;
    let id = cap_at_word(&full, MAX_DERIVED_ID);
    if is_device_name(&id) || is_index_name(&id) {
        return Err(IdError::Reserved(name.into()));
    }
    Ok(id)
}

/// The id an earlier mem derived from `name`: the slug cut at
/// [`MAX_NEW_ID`] bytes wherever that fell. A memory written then keeps
/// its file: the writer looks this id up before a new one is made.
pub fn legacy_id(name: &str) -> Result<String, IdError> {
    let full = full_slug(name)?;
    let mut out = full;
    if out.len() > MAX_NEW_ID {
        out.truncate(MAX_NEW_ID);
        while out.ends_with('-') {
            out.pop();
        }
    }
    if is_device_name(&out) || is_index_name(&out) {
        return Err(IdError::Reserved(name.into()));
    }
    Ok(out)
}

/// `slug` cut to at most `max` bytes at a word (dash) boundary; a first
/// word longer than `max` is cut at `max`.
pub fn cap_at_word(slug: &str, max: usize) -> String {
    if slug.len() <= max {
        return slug.to_string();
    }
    let head = &slug[..max];
    // the cut falls on a boundary when the next byte is a dash
    if slug.as_bytes()[max] == b'-' {
        return head.trim_end_matches('-').to_string();
    }
    match head.rfind('-') {
        Some(i) if i > 0 => head[..i].trim_end_matches('-').to_string(),
        _ => head.trim_end_matches('-').to_string(),
    }
}

/// The whole slug of `name` (not cut): lowercased, each run of characters
/// outside `[a-z0-9]` one `-`, no dash at either end. Two names with the
/// same [`derive_id`] are the same memory only when this is the same too.
///
/// Errors: as [`derive_id`] (a refused name, nothing left once slugged).
pub fn full_slug(name: &str) -> Result<String, IdError> {
    check_name_for_id(name)?;
    let mut out = String::with_capacity(name.len());
    let mut dash = false;
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            if dash && !out.is_empty() {
                out.push('-');
            }
            dash = false;
            out.push(c);
        } else {
            dash = true;
        }
    }
    if out.is_empty() {
        return Err(IdError::NoSlug(name.into()));
    }
    if is_device_name(&out) || is_index_name(&out) {
        return Err(IdError::Reserved(name.into()));
    }
    Ok(out)
}

/// True when `name` is a slug as Claude Code 2.1.3xx writes `name:`
/// (no white space; only ASCII letters, digits, `-`, `_`, `.`).
pub fn is_slug_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// True for `memory` in any case: `<id>.md` would be the index `MEMORY.md`
/// on a case-insensitive file system (macOS, Windows), so no memory may
/// have that id.
pub fn is_index_name(id: &str) -> bool {
    id.eq_ignore_ascii_case("memory")
}

/// True for Windows device names (`con`, `nul`, `com1`, …), case-insensitive,
/// with or without an extension (`nul.txt`).
pub fn is_device_name(id: &str) -> bool {
    let stem = id.split('.').next().unwrap_or(id);
    DEVICES.iter().any(|d| stem.eq_ignore_ascii_case(d))
}

/// True when `id` matches the form of ids mem creates: `[a-z0-9][a-z0-9-]{0,63}`.
pub fn is_new_id(id: &str) -> bool {
    let b = id.as_bytes();
    !b.is_empty()
        && b.len() <= MAX_NEW_ID
        && (b[0].is_ascii_lowercase() || b[0].is_ascii_digit())
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
}

/// Validate an id given explicitly (a record's `id`, a command argument, an
/// existing file stem): `[A-Za-z0-9][A-Za-z0-9._-]{0,127}` without `..`, not a
/// device name.
pub fn validate_id(id: &str) -> Result<(), IdError> {
    if id.is_empty() {
        return Err(IdError::Empty);
    }
    check_name(id)?;
    let b = id.as_bytes();
    let ok = b.len() <= MAX_EXISTING_ID
        && b[0].is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-'));
    if !ok {
        return Err(IdError::Invalid(id.into()));
    }
    if is_device_name(id) || is_index_name(id) {
        return Err(IdError::Reserved(id.into()));
    }
    Ok(())
}

/// `dir/<id><ext>` after checking that `id` is valid and that the path stays
/// inside `dir` (lexically, and through symlinks when `dir` exists).
///
/// `ext` includes the dot (`".md"`), or is empty.
/// Errors: [`IdError`] for a bad id, [`IdError::Escapes`] when the target
/// would resolve outside `dir`.
pub fn safe_join(dir: &Path, id: &str, ext: &str) -> Result<PathBuf, IdError> {
    validate_id(id)?;
    let name = format!("{id}{ext}");
    let rel = Path::new(&name);
    if rel.components().count() != 1
        || !matches!(rel.components().next(), Some(Component::Normal(_)))
    {
        return Err(IdError::Escapes(dir.join(rel)));
    }
    let path = dir.join(rel);
    contained(dir, &path)?;
    Ok(path)
}

/// Check that `path` resolves inside `dir`: when both exist (or the parent of
/// `path` does), compare canonical forms, so a symlink pointing out is caught.
pub fn contained(dir: &Path, path: &Path) -> Result<(), IdError> {
    let Ok(cdir) = dir.canonicalize() else {
        // Directory not created yet: lexical containment is all there is.
        return if path.starts_with(dir) {
            Ok(())
        } else {
            Err(IdError::Escapes(path.into()))
        };
    };
    let target = match path.canonicalize() {
        Ok(p) => p,
        Err(_) => match (
            path.parent().and_then(|p| p.canonicalize().ok()),
            path.file_name(),
        ) {
            (Some(parent), Some(name)) => parent.join(name),
            _ => return Err(IdError::Escapes(path.into())),
        },
    };
    if target.starts_with(&cdir) {
        Ok(())
    } else {
        Err(IdError::Escapes(path.into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn device_names_in_any_case_with_or_without_extension() {
        for id in [
            "con",
            "CON",
            "Nul.txt",
            "com1",
            "LPT9.md",
            "conin$",
            "ConOut$.x",
        ] {
            assert!(is_device_name(id), "{id}");
        }
        for id in ["console", "com", "com10", "null", "lpt", "a.con", ""] {
            assert!(!is_device_name(id), "{id}");
        }
    }

    /// B25: every name of the case, each with its own error.
    #[test]
    fn b25_names() {
        assert!(matches!(derive_id("../escape"), Err(IdError::DotDot(_))));
        assert!(matches!(
            derive_id("/tmp/absolute-escape"),
            Err(IdError::Slash(_))
        ));
        assert!(matches!(
            derive_id("sub/../../escape2"),
            Err(IdError::DotDot(_))
        ));
        assert!(matches!(
            derive_id("..\\win-escape"),
            Err(IdError::DotDot(_))
        ));
        assert!(matches!(derive_id("a\\b"), Err(IdError::Backslash(_))));
        assert!(matches!(
            derive_id("%2e%2e%2fencoded"),
            Err(IdError::Percent(_))
        ));
        assert_eq!(derive_id("ok-name").unwrap(), "ok-name");
        assert!(matches!(derive_id("CON"), Err(IdError::Reserved(_))));
        for n in ["MEMORY", "memory", "Memory", " MeMoRy! "] {
            assert!(matches!(derive_id(n), Err(IdError::Reserved(_))), "{n}");
        }
        assert!(matches!(validate_id("MEMORY"), Err(IdError::Reserved(_))));
        assert_eq!(derive_id("memory leak").unwrap(), "memory-leak");
        assert!(matches!(derive_id(""), Err(IdError::Empty)));
        assert!(matches!(derive_id("~/x"), Err(IdError::Tilde(_))));
        assert!(matches!(derive_id("a\0b"), Err(IdError::Control(_))));
        assert!(matches!(derive_id("a\nb"), Err(IdError::Control(_))));
        assert!(matches!(derive_id("!!!"), Err(IdError::NoSlug(_))));
    }

    /// Each name derives its id.
    fn slugs(cases: &[(&str, &str)]) {
        for (name, id) in cases {
            assert_eq!(derive_id(name).unwrap(), *id, "{name:?}");
        }
    }

    /// A `/` or `%` inside ordinary text gets a safe id (it refused the
    /// whole batch); what looks like a path or an encoding stays refused.
    #[test]
    fn slash_and_percent_in_text_get_a_safe_id() {
        slugs(&[
            (
                "Run scripts/setup.sh before tests",
                "run-scripts-setup-sh-before-tests",
            ),
            (
                "100% coverage for src/lib.rs",
                "100-coverage-for-src-lib-rs",
            ),
            ("and/or", "and-or"),
        ]);
        assert!(matches!(derive_id(" /etc/passwd"), Err(IdError::Slash(_))));
        assert!(matches!(derive_id("a%2Fb"), Err(IdError::Percent(_))));
        // explicit ids stay strict
        assert!(matches!(validate_id("a/b"), Err(IdError::Slash(_))));
        assert!(matches!(validate_id("a%b"), Err(IdError::Percent(_))));
    }

    /// B17: a name with `: ` becomes a safe slug.
    #[test]
    fn b17_slug() {
        slugs(&[
            ("Build: release profile", "build-release-profile"),
            (
                "  Run setup before build-token ",
                "run-setup-before-build-token",
            ),
            ("Ünïcode ist schön", "n-code-ist-sch-n"),
        ]);
        let long = "a".repeat(100);
        assert_eq!(derive_id(&long).unwrap().len(), MAX_DERIVED_ID);
        assert_eq!(legacy_id(&long).unwrap().len(), 64);
        let dashy = format!("{}-b", "a".repeat(64));
        assert_eq!(legacy_id(&dashy).unwrap(), "a".repeat(64));
        assert_eq!(derive_id(&dashy).unwrap(), "a".repeat(40));
    }

    /// Long lesson names get short ids cut at a word boundary; the id an
    /// earlier mem gave the same name is still known.
    #[test]
    fn long_lesson_names_get_short_ids_at_a_word_boundary() {
        let name = "Run scripts/setup.sh before the integration tests, because data/fixture.json is generated and git-ignored";
        assert_eq!(derive_id(name).unwrap(), "run-scripts-setup-sh-before-the");
        assert_eq!(
            legacy_id(name).unwrap(),
            "run-scripts-setup-sh-before-the-integration-tests-because-data-f"
        );
        assert_eq!(
            full_slug(name).unwrap(),
            "run-scripts-setup-sh-before-the-integration-tests-because-data-fixture-json-is-generated-and-git-ignored"
        );
        let name = "Never mock the database in integration tests: a mocked migration passed while prod broke";
        assert_eq!(
            derive_id(name).unwrap(),
            "never-mock-the-database-in-integration"
        );
        // exactly 40 bytes ending on a word: kept whole
        let forty = "abcd-efgh-ijkl-mnop-qrst-uvwx-yzab-cdefg";
        assert_eq!(forty.len(), 40);
        assert_eq!(derive_id(&format!("{forty} more")).unwrap(), forty);
        assert_eq!(cap_at_word("a-bc", 3), "a");
        for n in [name, "x y", "Build: release profile"] {
            assert!(derive_id(n).unwrap().len() <= MAX_DERIVED_ID);
        }
    }

    #[test]
    fn existing_ids() {
        assert!(validate_id("feedback_testing").is_ok());
        assert!(validate_id("v1.2-notes").is_ok());
        assert!(validate_id("-x").is_err());
        assert!(validate_id("a..b").is_err());
        assert!(validate_id("nul.txt").is_err());
        assert!(validate_id(&"a".repeat(129)).is_err());
    }

    #[test]
    fn safe_join_stays_inside_even_through_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        let mem = dir.path().join("memory");
        std::fs::create_dir(&mem).unwrap();
        assert_eq!(safe_join(&mem, "ok", ".md").unwrap(), mem.join("ok.md"));
        #[cfg(unix)]
        {
            let outside = dir.path().join("outside.md");
            std::fs::write(&outside, "x").unwrap();
            std::os::unix::fs::symlink(&outside, mem.join("link.md")).unwrap();
            assert!(matches!(
                safe_join(&mem, "link", ".md"),
                Err(IdError::Escapes(_))
            ));
        }
    }

    proptest! {
        #[test]
        fn derived_ids_are_well_formed(name in "\\PC{0,80}") {
            if let Ok(id) = derive_id(&name) {
                prop_assert!(is_new_id(&id), "{id:?}");
                prop_assert!(validate_id(&id).is_ok());
                prop_assert!(!is_device_name(&id));
            }
        }

        #[test]
        fn safe_join_never_leaves(id in "[A-Za-z0-9._/\\\\%~-]{0,20}") {
            let dir = Path::new("/mem/dir");
            if let Ok(p) = safe_join(dir, &id, ".md") {
                prop_assert_eq!(p.parent(), Some(dir));
            }
        }
    }
}
