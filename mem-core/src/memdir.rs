//! Where things live: Claude Code's project-folder slug, the main worktree
//! of a repository, the memory-directory priority chain, agent scopes, the
//! project id, and the cache directory (docs/memory-dir.md "Where memory
//! lives", docs/transcripts.md "Where sessions are"; cases B23, B24).
//!
//! Git is read from its files (`.git`, `gitdir:`, `commondir`,
//! `worktrees/*/gitdir`), never by running `git`.

use std::path::{Path, PathBuf};

use etcetera::BaseStrategy;
use unicode_normalization::UnicodeNormalization;

use crate::error::{Error, Result};

/// Longest slug kept whole, in UTF-16 code units (= bytes: slugs are ASCII).
pub const SLUG_MAX: usize = 200;

/// The home directory. Errors: [`Error::Env`] when it cannot be found.
pub fn home() -> Result<PathBuf> {
    etcetera::home_dir().map_err(|_| Error::Env("cannot find the home directory (set HOME)".into()))
}

/// `~/.claude`, or `$CLAUDE_CONFIG_DIR` when set and not empty.
pub fn claude_dir() -> Result<PathBuf> {
    match std::env::var_os("CLAUDE_CONFIG_DIR") {
        Some(d) if !d.is_empty() => Ok(PathBuf::from(d)),
        _ => Ok(home()?.join(".claude")),
    }
}

/// `~/.claude/projects`, where Claude Code keeps transcripts and memory.
pub fn projects_dir() -> Result<PathBuf> {
    Ok(claude_dir()?.join("projects"))
}

/// Codex's home: `$CODEX_HOME`, default `~/.codex`.
pub fn codex_home() -> Result<PathBuf> {
    match std::env::var_os("CODEX_HOME") {
        Some(d) if !d.is_empty() => Ok(PathBuf::from(d)),
        _ => Ok(home()?.join(".codex")),
    }
}

/// True when a truthy value (`1`, `true`, `yes`, `on`) is set in `var`.
pub fn env_flag(var: &str) -> bool {
    std::env::var(var).is_ok_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "1" | "true" | "yes" | "on"
        )
    })
}

/// The environment marker mem sets for the agent CLI it runs as
/// `mem-extract --model-cmd`: while it is set (`1`, `true`, `yes`, `on`),
/// mem's hooks (`mem-hook`, `mem-transcript replay --hook`) do
/// nothing, so that agent's own hooks cannot start another write path.
pub const HOOK_GUARD_ENV: &str = "MEM_HOOK_GUARD";

/// True when [`HOOK_GUARD_ENV`] is set: a hook must print nothing and exit 0.
pub fn hook_guarded() -> bool {
    env_flag(HOOK_GUARD_ENV)
}

/// True when `var` is set to a falsy value (`0`, `false`, `no`, `off`).
pub fn env_falsy(var: &str) -> bool {
    std::env::var(var).is_ok_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "0" | "false" | "no" | "off"
        )
    })
}

/// True when memory is turned off for the working directory of the process
/// (see [`memory_off`]). A settings file that cannot be read counts as not
/// saying anything here; [`memory_off`] reports it.
pub fn is_disabled() -> bool {
    let cwd = std::env::current_dir().ok();
    match memory_off(cwd.as_deref()) {
        Ok(r) => r.is_some(),
        Err(_) => env_flag("MEM_DISABLE") || env_flag("CLAUDE_CODE_DISABLE_AUTO_MEMORY"),
    }
}

/// One level of Claude Code's settings, highest precedence first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SettingsLevel {
    /// Managed policy (`/etc/claude-code/managed-settings.json`, or
    /// `/Library/Application Support/ClaudeCode/managed-settings.json` on macOS).
    Managed,
    /// The project's `.claude/settings.local.json`.
    Local,
    /// The project's `.claude/settings.json`.
    Project,
    /// The user's `~/.claude/settings.json` (`$CLAUDE_CONFIG_DIR/settings.json`).
    User,
}

/// The variable that moves the managed-policy folder ([`managed_dir`]),
/// for tests and for a machine that keeps it elsewhere.
pub const MANAGED_DIR_ENV: &str = "MEM_MANAGED_DIR";

/// Claude Code's managed-policy folder, which holds `managed-settings.json`
/// and the organisation's `CLAUDE.md`: `/etc/claude-code` on Linux,
/// `/Library/Application Support/ClaudeCode` on macOS, or
/// `$MEM_MANAGED_DIR` when set and not empty.
pub fn managed_dir() -> PathBuf {
    match std::env::var_os(MANAGED_DIR_ENV) {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ if cfg!(target_os = "macos") => PathBuf::from("/Library/Application Support/ClaudeCode"),
        _ => PathBuf::from("/etc/claude-code"),
    }
}

/// Claude Code's global config file, where `/config` and `claude config
/// set -g` keep `autoCompactEnabled`: `~/.claude.json`, or
/// `$CLAUDE_CONFIG_DIR/.claude.json` when that variable is set.
///
/// Errors: [`Error::Env`] when the home directory cannot be found.
pub fn global_config_file() -> Result<PathBuf> {
    match std::env::var_os("CLAUDE_CONFIG_DIR") {
        Some(d) if !d.is_empty() => Ok(PathBuf::from(d).join(".claude.json")),
        _ => Ok(home()?.join(".claude.json")),
    }
}

/// Why auto-compaction is off for the project at `cwd`, or `None` when it
/// is on (Claude Code's default): `DISABLE_AUTO_COMPACT` (or
/// `DISABLE_COMPACT`) set to a truthy value, `autoCompactEnabled: false`
/// in the merged settings ([`setting_bool`]), or `autoCompactEnabled:
/// false` in the global config ([`global_config_file`], where `/config`
/// writes it; the settings files win when they set it).
///
/// Errors: a settings or config file that is not a JSON object (naming it
/// and the line).
pub fn auto_compact_off(cwd: Option<&Path>) -> Result<Option<String>> {
    for var in ["DISABLE_AUTO_COMPACT", "DISABLE_COMPACT"] {
        if env_flag(var) {
            return Ok(Some(format!("{var} is set")));
        }
    }
    let (value, path) = match setting_bool(cwd, "autoCompactEnabled")? {
        Some(found) => found,
        None => {
            let g = global_config_file()?;
            match read_settings(&g)?
                .as_ref()
                .and_then(|v| v.get("autoCompactEnabled"))
                .and_then(serde_json::Value::as_bool)
            {
                Some(b) => (b, g),
                None => return Ok(None),
            }
        }
    };
    Ok((!value).then(|| format!("autoCompactEnabled is false in {}", path.display())))
}

/// The settings files Claude Code reads for the project at `cwd`, highest
/// precedence first (managed > local > project > user; the project files
/// are those of the worktree containing `cwd`, or of `cwd` outside git).
///
/// Errors: [`Error::Env`] when the home directory cannot be found.
pub fn settings_files(cwd: Option<&Path>) -> Result<Vec<(SettingsLevel, PathBuf)>> {
    let mut v = Vec::with_capacity(4);
    v.push((
        SettingsLevel::Managed,
        managed_dir().join("managed-settings.json"),
    ));
    if let Some(c) = cwd {
        let wt = git_info(c).map_or_else(|| real_path(c), |g| g.worktree_root);
        v.push((SettingsLevel::Local, wt.join(".claude/settings.local.json")));
        v.push((SettingsLevel::Project, wt.join(".claude/settings.json")));
    }
    v.push((SettingsLevel::User, claude_dir()?.join("settings.json")));
    Ok(v)
}

/// The boolean `key` as Claude Code's merged settings give it for the
/// project at `cwd`: the value of the highest-precedence file that sets it
/// (see [`settings_files`]), with that file. A value that is not a boolean
/// is ignored, as Claude Code ignores it.
///
/// Errors: a settings file that exists but is not a JSON object
/// ([`Error::Input`] naming the file and line).
pub fn setting_bool(cwd: Option<&Path>, key: &str) -> Result<Option<(bool, PathBuf)>> {
    for (_, path) in settings_files(cwd)? {
        if let Some(b) = read_settings(&path)?
            .as_ref()
            .and_then(|v| v.get(key))
            .and_then(serde_json::Value::as_bool)
        {
            return Ok(Some((b, path)));
        }
    }
    Ok(None)
}

/// Why memory (writing and recall injection) is off for the project at
/// `cwd`, or `None` when it is on. Claude Code's order:
/// 1. `MEM_DISABLE=1` (mem's own switch) → off;
/// 2. `CLAUDE_CODE_DISABLE_AUTO_MEMORY` truthy → off; set to a falsy value
///    (`0`, `false`) → on, whatever the settings say;
/// 3. `autoMemoryEnabled` of the merged settings ([`setting_bool`]): `false`
///    → off;
/// 4. on.
///
/// Errors: see [`setting_bool`].
pub fn memory_off(cwd: Option<&Path>) -> Result<Option<String>> {
    if env_flag("MEM_DISABLE") {
        return Ok(Some("MEM_DISABLE is set".into()));
    }
    if env_flag("CLAUDE_CODE_DISABLE_AUTO_MEMORY") {
        return Ok(Some("CLAUDE_CODE_DISABLE_AUTO_MEMORY is set".into()));
    }
    if env_falsy("CLAUDE_CODE_DISABLE_AUTO_MEMORY") {
        return Ok(None);
    }
    Ok(match setting_bool(cwd, "autoMemoryEnabled")? {
        Some((false, p)) => Some(format!("autoMemoryEnabled is false in {}", p.display())),
        _ => None,
    })
}

/// Why consolidation (auto-dream) is off for the project at `cwd`: memory
/// off ([`memory_off`]), or `autoDreamEnabled: false` in the merged
/// settings ([`setting_bool`]); `None` when neither.
///
/// Errors: see [`setting_bool`].
pub fn dream_off(cwd: Option<&Path>) -> Result<Option<String>> {
    if let Some(r) = memory_off(cwd)? {
        return Ok(Some(r));
    }
    Ok(match setting_bool(cwd, "autoDreamEnabled")? {
        Some((false, p)) => Some(format!("autoDreamEnabled is false in {}", p.display())),
        _ => None,
    })
}

/// mem's environment switch of assistant (daily-log) mode: truthy (`1`,
/// `true`, `yes`, `on`) turns it on, falsy (`0`, `false`, `no`, `off`)
/// turns it off whatever the settings say.
pub const ASSISTANT_MODE_ENV: &str = "MEM_ASSISTANT_MODE";

/// Why assistant mode (Claude Code's "KAIROS" daily-log mode) is on for the
/// project at `cwd`, or `None` when it is off. In this mode the write path
/// appends memories to the daily log `logs/YYYY/MM/YYYY-MM-DD.md` of the
/// memory directory instead of writing topic files; consolidation distils
/// the logs into topic files. The order:
/// 1. [`ASSISTANT_MODE_ENV`] truthy → on; falsy → off;
/// 2. `assistant` of Claude Code's merged settings ([`setting_bool`]):
///    `true` → on;
/// 3. off.
///
/// Errors: see [`setting_bool`].
pub fn assistant_mode(cwd: Option<&Path>) -> Result<Option<String>> {
    if env_flag(ASSISTANT_MODE_ENV) {
        return Ok(Some(format!("{ASSISTANT_MODE_ENV} is set")));
    }
    if env_falsy(ASSISTANT_MODE_ENV) {
        return Ok(None);
    }
    Ok(match setting_bool(cwd, "assistant")? {
        Some((true, p)) => Some(format!("assistant is true in {}", p.display())),
        _ => None,
    })
}

/// Why this process runs in remote mode, where consolidation never starts
/// on its own (Claude Code's auto-dream is off there): `CLAUDE_CODE_REMOTE`
/// or mem's own `MEM_REMOTE` set to a truthy value; `None` otherwise.
pub fn remote_mode() -> Option<String> {
    ["CLAUDE_CODE_REMOTE", "MEM_REMOTE"]
        .into_iter()
        .find(|v| env_flag(v))
        .map(|v| format!("remote mode ({v} is set)"))
}

/// The real path (symlinks resolved) when it exists, else the path made
/// absolute against the working directory.
pub fn real_path(p: &Path) -> PathBuf {
    p.canonicalize()
        .unwrap_or_else(|_| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()))
}

/// Claude Code's project-folder name for `path` (format: docs/transcripts.md
/// "Where sessions are"): the real path in Unicode NFC, each UTF-16 code unit outside
/// `[A-Za-z0-9]` replaced by `-` (no collapsing, so `/a_b.c` and `/a-b-c`
/// collide); longer than 200 → the first 200, `-`, and base36 of the absolute
/// djb2 hash of the path.
pub fn slug(path: &Path) -> String {
    slug_of_str(&real_path(path).to_string_lossy())
}

/// [`slug`] of a path string taken as it is (no symlink resolution): for
/// recorded `cwd` values of transcripts.
pub fn slug_of_str(path: &str) -> String {
    let nfc: String = path.nfc().collect();
    let mut out = String::with_capacity(nfc.len());
    for unit in nfc.encode_utf16() {
        if unit < 128 && (unit as u8).is_ascii_alphanumeric() {
            out.push(unit as u8 as char);
        } else {
            out.push('-');
        }
    }
    if out.len() > SLUG_MAX {
        out.truncate(SLUG_MAX);
        out.push('-');
        out.push_str(&base36(djb2(&nfc).unsigned_abs().into()));
    }
    out
}

/// djb2 over UTF-16 code units with 32-bit wrap-around, as Claude Code
/// computes it (`hash = (hash << 5) - hash + unit | 0`, starting at 0).
fn djb2(s: &str) -> i32 {
    s.encode_utf16().fold(0i32, |h, u| {
        h.wrapping_shl(5).wrapping_sub(h).wrapping_add(i32::from(u))
    })
}

fn base36(mut n: u64) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    if n == 0 {
        return "0".into();
    }
    let mut v = Vec::new();
    while n > 0 {
        v.push(DIGITS[(n % 36) as usize]);
        n /= 36;
    }
    v.reverse();
    String::from_utf8(v).expect("ascii")
}

/// True when a folder name in `projects/` may hold the transcripts of `slug`:
/// equal, or (for a slug over 200) `<first 200>-*` whatever the hash.
pub fn folder_matches_slug(folder: &str, slug: &str) -> bool {
    if folder == slug {
        return true;
    }
    slug.len() > SLUG_MAX
        && folder.len() > SLUG_MAX + 1
        && folder.as_bytes()[..SLUG_MAX] == slug.as_bytes()[..SLUG_MAX]
        && folder.as_bytes()[SLUG_MAX] == b'-'
}

/// What git says about a directory, read from its files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitInfo {
    /// The root of the worktree that contains the directory.
    pub worktree_root: PathBuf,
    /// The common git dir (`.git` of the main checkout).
    pub common_dir: PathBuf,
    /// The main worktree's root (the parent of a common dir named `.git`;
    /// for a bare repository, the common dir itself).
    pub main_root: PathBuf,
}

/// Find the git worktree containing `dir` by walking up to a `.git` entry.
/// Returns `None` outside git or when the files cannot be read.
pub fn git_info(dir: &Path) -> Option<GitInfo> {
    let start = real_path(dir);
    let mut cur: Option<&Path> = Some(&start);
    while let Some(d) = cur {
        let dotgit = d.join(".git");
        if let Ok(meta) = std::fs::metadata(&dotgit) {
            let common_dir = if meta.is_dir() {
                dotgit.clone()
            } else {
                let text = std::fs::read_to_string(&dotgit).ok()?;
                let gitdir = text.lines().find_map(|l| l.strip_prefix("gitdir:"))?.trim();
                let gitdir = d.join(gitdir);
                match std::fs::read_to_string(gitdir.join("commondir")) {
                    Ok(c) => real_path(&gitdir.join(c.trim())),
                    Err(_) => real_path(&gitdir),
                }
            };
            let main_root = if common_dir.file_name().is_some_and(|n| n == ".git") {
                common_dir
                    .parent()
                    .map_or_else(|| common_dir.clone(), Path::to_path_buf)
            } else {
                common_dir.clone()
            };
            return Some(GitInfo {
                worktree_root: d.to_path_buf(),
                common_dir,
                main_root,
            });
        }
        cur = d.parent();
    }
    None
}

/// The main worktree root of the repository containing `cwd` (every linked
/// worktree resolves to the same root), or `None` outside git.
pub fn main_worktree_root(cwd: &Path) -> Option<PathBuf> {
    git_info(cwd).map(|g| g.main_root)
}

/// The root of the project at `cwd`: the main worktree root, the current
/// worktree's root with `per_worktree`, or `cwd` itself outside git.
pub fn project_root(cwd: &Path, per_worktree: bool) -> PathBuf {
    match git_info(cwd) {
        Some(g) if per_worktree => g.worktree_root,
        Some(g) => g.main_root,
        None => real_path(cwd),
    }
}

/// The roots of the linked worktrees of a repository (from
/// `<common>/worktrees/*/gitdir`), not including the main one.
pub fn linked_worktrees(common_dir: &Path) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(common_dir.join("worktrees")) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = rd
        .flatten()
        .filter_map(|e| std::fs::read_to_string(e.path().join("gitdir")).ok())
        .filter_map(|g| Path::new(g.trim()).parent().map(Path::to_path_buf))
        .collect();
    out.sort();
    out
}

/// Every worktree root of the project at `cwd` (main first, then linked), or
/// just the directory outside git.
pub fn project_worktrees(cwd: &Path) -> Vec<PathBuf> {
    match git_info(cwd) {
        Some(g) => {
            let mut v = vec![g.main_root.clone()];
            v.extend(
                linked_worktrees(&g.common_dir)
                    .into_iter()
                    .filter(|p| *p != g.main_root),
            );
            v
        }
        None => vec![real_path(cwd)],
    }
}

/// Which project a memory came from, without writing its path: the first 12
/// hex digits of BLAKE3 of the canonical root path.
pub fn project_id(root: &Path) -> String {
    let p = real_path(root);
    let s: String = p.to_string_lossy().nfc().collect();
    blake3::hash(s.as_bytes()).to_hex()[..12].to_string()
}

/// The folders of `projects/` that may hold sessions recorded under any of
/// `roots` or below them: a folder whose name is a root's slug, starts with
/// it followed by `-` (a subdirectory), or matches the over-200 rule. The
/// mapping is lossy: callers filter sessions by their recorded `cwd`.
pub fn transcript_dirs_for(roots: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let projects = projects_dir()?;
    let Ok(rd) = std::fs::read_dir(&projects) else {
        return Ok(Vec::new());
    };
    let slugs: Vec<String> = roots.iter().map(|r| slug(r)).collect();
    let mut out: Vec<PathBuf> = rd
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            slugs.iter().any(|s| {
                folder_matches_slug(&name, s)
                    || (s.len() <= SLUG_MAX
                        && name.len() > s.len()
                        && name.starts_with(s.as_str())
                        && name.as_bytes()[s.len()] == b'-')
            })
        })
        .map(|e| e.path())
        .collect();
    out.sort();
    Ok(out)
}

/// True when a recorded `cwd` lies inside one of `roots` (string prefix on
/// path components, no file-system access).
pub fn cwd_in_roots(cwd: &str, roots: &[PathBuf]) -> bool {
    let c = Path::new(cwd);
    roots.iter().any(|r| c.starts_with(r))
}

/// An agent-memory scope (docs/memory-dir.md "Where memory lives").
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AgentScope {
    /// `~/.claude/agent-memory/<agent>/`.
    User,
    /// `<project>/.claude/agent-memory/<agent>/` (shared through git snapshots).
    Project,
    /// `<project>/.claude/agent-memory-local/<agent>/`.
    Local,
}

/// What decides the memory directory.
#[derive(Debug, Clone, Default)]
pub struct MemdirOptions {
    /// `--memory-dir` as given on the command line (never `MEM_MEMORY_DIR`:
    /// [`resolve`] reads the environment itself, below the command line).
    pub memory_dir: Option<PathBuf>,
    /// `--cwd`, default the working directory.
    pub cwd: Option<PathBuf>,
    /// `--per-worktree` (or `MEM_PER_WORKTREE=1`).
    pub per_worktree: bool,
    /// `--agent NAME` with its scope.
    pub agent: Option<(String, AgentScope)>,
}

/// The rule of the priority chain that chose the directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rule {
    /// `--memory-dir`.
    Flag,
    /// `CLAUDE_COWORK_MEMORY_PATH_OVERRIDE` (Claude Code's first rule).
    Cowork,
    /// `MEM_MEMORY_DIR`.
    Env,
    /// `autoMemoryDirectory` in the user settings file (path given).
    Settings(PathBuf),
    /// `~/.claude/projects/<slug>/memory/` from this root.
    Project {
        /// The root the slug was made from.
        root: PathBuf,
        /// Whether it is the main worktree (shared) or this worktree only.
        per_worktree: bool,
        /// True when the cwd is not in a git repository.
        outside_git: bool,
    },
    /// An agent scope.
    Agent(String, AgentScope),
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Rule::Flag => f.write_str("--memory-dir"),
            Rule::Cowork => f.write_str(COWORK_ENV),
            Rule::Env => f.write_str("MEM_MEMORY_DIR"),
            Rule::Settings(p) => write!(f, "autoMemoryDirectory in {}", p.display()),
            Rule::Project {
                root,
                per_worktree,
                outside_git,
            } => {
                if *outside_git {
                    write!(
                        f,
                        "project folder of the working directory {} (not in git)",
                        root.display()
                    )
                } else if *per_worktree {
                    write!(
                        f,
                        "project folder of this worktree {} (--per-worktree)",
                        root.display()
                    )
                } else {
                    write!(f, "project folder of the main worktree {}", root.display())
                }
            }
            Rule::Agent(a, s) => write!(f, "agent memory of {a} ({s:?} scope)"),
        }
    }
}

/// A resolved memory directory and the rule that chose it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The memory directory (may not exist yet).
    pub dir: PathBuf,
    /// Which rule chose it.
    pub rule: Rule,
    /// The project root (main worktree root, this worktree's with
    /// `per_worktree`, or the cwd outside git).
    pub root: PathBuf,
    /// Rules that were set but lost, or were ignored, worded (for
    /// `path --explain`).
    pub notes: Vec<String>,
}

/// Claude Code's environment override of the whole memory path.
pub const COWORK_ENV: &str = "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE";

/// `CLAUDE_COWORK_MEMORY_PATH_OVERRIDE` when Claude Code would take it: an
/// absolute path, not `/` or a directory right under it, without NUL.
/// `Err(reason)` when set but refused (Claude Code then goes on down the
/// chain, and so does [`resolve`]).
fn cowork_override() -> Option<std::result::Result<PathBuf, String>> {
    let v = std::env::var_os(COWORK_ENV).filter(|v| !v.is_empty())?;
    let p = PathBuf::from(&v);
    let s = v.to_string_lossy();
    if s.contains('\0') {
        return Some(Err(format!("{COWORK_ENV} ignored: it holds a NUL byte")));
    }
    if !p.is_absolute() {
        return Some(Err(format!(
            "{COWORK_ENV} ignored: {} is not an absolute path",
            p.display()
        )));
    }
    if p.components().count() < 3 {
        return Some(Err(format!(
            "{COWORK_ENV} ignored: {} is the root or right under it",
            p.display()
        )));
    }
    Some(Ok(p))
}

/// `MEM_MEMORY_DIR`, when set and not empty (rule 3 of [`resolve`]).
pub fn env_memory_dir() -> Option<PathBuf> {
    std::env::var_os("MEM_MEMORY_DIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
}

/// Resolve the memory directory. The chain, first that applies:
/// 1. `--memory-dir` given on the command line;
/// 2. `CLAUDE_COWORK_MEMORY_PATH_OVERRIDE` (Claude Code's first rule: where
///    the agent itself reads and writes memory; ignored, as Claude Code
///    ignores it, unless absolute and deeper than `/x`);
/// 3. `MEM_MEMORY_DIR`;
/// 4. the agent scope, when given;
/// 5. `autoMemoryDirectory` from the **user** settings
///    (`~/.claude/settings.json`; a project's own `.claude/settings*.json`
///    may turn memory off but never redirect it);
/// 6. `~/.claude/projects/<slug of the main worktree root>/memory/`.
///
/// `opts.memory_dir` is the command line only; the environment variables
/// are read here, once.
///
/// Errors: [`Error::Env`] for a missing home or an unreadable cwd; a user
/// settings file that is not JSON is reported, naming the file.
pub fn resolve(opts: &MemdirOptions) -> Result<Resolved> {
    let cwd = match &opts.cwd {
        Some(c) => c.clone(),
        None => std::env::current_dir().map_err(|e| Error::io(".", e))?,
    };
    let per_worktree = opts.per_worktree || env_flag("MEM_PER_WORKTREE");
    let root = project_root(&cwd, per_worktree);
    let env_dir = env_memory_dir();
    let flag = opts.memory_dir.clone();
    let mut notes = Vec::new();
    let cowork = match cowork_override() {
        Some(Ok(p)) => Some(p),
        Some(Err(why)) => {
            notes.push(why);
            None
        }
        None => None,
    };
    let (dir, rule) = if let Some(d) = flag {
        if cowork.is_some() {
            notes.push(format!("{COWORK_ENV} is set but --memory-dir wins"));
        }
        if env_dir.is_some() {
            notes.push("MEM_MEMORY_DIR is set but --memory-dir wins".to_string());
        }
        (d, Rule::Flag)
    } else if let Some(d) = cowork {
        if env_dir.is_some() {
            notes.push(format!("MEM_MEMORY_DIR is set but {COWORK_ENV} wins"));
        }
        (d, Rule::Cowork)
    } else if let Some(d) = env_dir {
        (d, Rule::Env)
    } else {
        (PathBuf::new(), Rule::Flag)
    };
    if !dir.as_os_str().is_empty() {
        return Ok(Resolved {
            dir,
            rule,
            root,
            notes,
        });
    }
    if let Some((agent, scope)) = &opts.agent {
        crate::id::validate_id(agent)?;
        let wt = git_info(&cwd).map_or_else(|| real_path(&cwd), |g| g.worktree_root);
        let dir = match scope {
            AgentScope::User => claude_dir()?.join("agent-memory").join(agent),
            AgentScope::Project => wt.join(".claude/agent-memory").join(agent),
            AgentScope::Local => wt.join(".claude/agent-memory-local").join(agent),
        };
        // A repository's `.claude/agent-memory/<agent>` may come from a
        // clone: no link between the worktree and the folder.
        if *scope != AgentScope::User {
            crate::confine::check_below(&wt, &dir)?;
        }
        return Ok(Resolved {
            dir,
            rule: Rule::Agent(agent.clone(), *scope),
            root,
            notes,
        });
    }
    let settings = claude_dir()?.join("settings.json");
    if let Some(d) = user_setting_str(&settings, "autoMemoryDirectory")? {
        let dir = expand_home(&d)?;
        return Ok(Resolved {
            dir,
            rule: Rule::Settings(settings),
            root,
            notes,
        });
    }
    let outside_git = git_info(&cwd).is_none();
    let dir = projects_dir()?.join(slug(&root)).join("memory");
    Ok(Resolved {
        dir,
        rule: Rule::Project {
            root: root.clone(),
            per_worktree,
            outside_git,
        },
        root,
        notes,
    })
}

/// For commands that only read the memory directory: one given explicitly
/// (`--memory-dir`, `MEM_MEMORY_DIR`) that does not exist is an error, not
/// an empty directory (a mistyped path would read as "no memories"). A
/// directory found by the other rules may not exist yet.
///
/// Errors: [`Error::Env`] naming the directory and the flag or variable.
pub fn require_given_dir(r: &Resolved) -> Result<()> {
    let from = match r.rule {
        Rule::Flag => "--memory-dir",
        Rule::Env => "MEM_MEMORY_DIR",
        _ => return Ok(()),
    };
    match std::fs::metadata(&r.dir) {
        Ok(m) if m.is_dir() => Ok(()),
        Ok(_) => Err(Error::Env(format!(
            "{from} {}: not a directory",
            r.dir.display()
        ))),
        Err(_) => Err(Error::Env(format!(
            "{from} {}: no such directory",
            r.dir.display()
        ))),
    }
}

/// Read the user-level settings file (`~/.claude/settings.json`) as JSON;
/// `None` when it does not exist. Errors: [`Error::Input`] naming the file
/// when it is not a JSON object.
pub fn user_settings() -> Result<Option<serde_json::Value>> {
    read_settings(&claude_dir()?.join("settings.json"))
}

fn read_settings(path: &Path) -> Result<Option<serde_json::Value>> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io(path, e)),
    };
    match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(v) if v.is_object() => Ok(Some(v)),
        Ok(_) => Err(Error::input(
            path.display().to_string(),
            1,
            "settings is not a JSON object",
        )),
        Err(e) => Err(Error::input(
            path.display().to_string(),
            e.line(),
            crate::jsonl::describe(&e),
        )),
    }
}

fn user_setting_str(path: &Path, key: &str) -> Result<Option<String>> {
    Ok(read_settings(path)?
        .and_then(|v| v.get(key).and_then(|s| s.as_str()).map(str::to_string))
        .filter(|s| !s.trim().is_empty()))
}

/// Expand a leading `~/` (or a lone `~`) to the home directory; a relative
/// path is taken relative to the home directory too.
pub fn expand_home(p: &str) -> Result<PathBuf> {
    if p == "~" {
        return home();
    }
    if let Some(rest) = p.strip_prefix("~/") {
        return Ok(home()?.join(rest));
    }
    let path = PathBuf::from(p);
    if path.is_absolute() {
        Ok(path)
    } else {
        Ok(home()?.join(path))
    }
}

/// The cache directory for a memory directory:
/// `$XDG_CACHE_HOME/mem/<16 hex of BLAKE3 of the memory dir's real path>/`.
/// Never inside the memory directory.
pub fn cache_dir_for(memory_dir: &Path) -> Result<PathBuf> {
    let base = etcetera::choose_base_strategy()
        .map_err(|_| Error::Env("cannot find the home directory (set HOME)".into()))?
        .cache_dir();
    let key = real_path(memory_dir);
    let digest = blake3::hash(key.to_string_lossy().as_bytes()).to_hex();
    Ok(base.join("mem").join(&digest[..16]))
}

/// The team tier's folder inside a repository, relative to its root:
/// `.claude/team-memory` (topic files + `MEMORY.md`, committed like code).
pub const TEAM_DIR: &str = ".claude/team-memory";

/// The team memory directory of the project whose root is `root`
/// (see [`project_root`]): `<root>/.claude/team-memory`. The folder may not
/// exist; nothing is created.
pub fn team_dir(root: &Path) -> PathBuf {
    root.join(TEAM_DIR)
}

/// The root of the checkout that holds `cwd`: the git worktree containing
/// it (the main one or a linked one — each has its own checkout of the
/// committed team tier), or `cwd` itself (real path) outside git. The root
/// every tool reads the team tier under ([`team_dir`]).
pub fn checkout_root(cwd: &Path) -> PathBuf {
    git_info(cwd)
        .map(|g| g.worktree_root)
        .unwrap_or_else(|| real_path(cwd))
}

/// The folder for one session's hook state (watermarks, what was injected):
/// `<cache_dir_for(memory_dir)>/sessions/<session id>/`. A session id that is
/// not a plain name (empty, `.`/`..`, a `/`, a NUL, over 128 bytes) is
/// replaced by the 16 hex of its BLAKE3 digest, so the path never leaves the
/// cache folder. Nothing is created.
///
/// Errors: [`Error::Env`] when the home directory cannot be found.
pub fn session_state_dir(memory_dir: &Path, session_id: &str) -> Result<PathBuf> {
    let plain = !session_id.is_empty()
        && session_id.len() <= 128
        && session_id != "."
        && session_id != ".."
        && session_id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.');
    let name = if plain {
        session_id.to_string()
    } else {
        blake3::hash(session_id.as_bytes()).to_hex()[..16].to_string()
    };
    Ok(cache_dir_for(memory_dir)?.join("sessions").join(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// B23: Claude Code's mapping is kept, collisions included.
    #[test]
    fn session_state_dir_stays_inside_the_cache() {
        let m = Path::new("/tmp/mem-x");
        let base = cache_dir_for(m).unwrap().join("sessions");
        assert_eq!(
            session_state_dir(m, "abc-123").unwrap(),
            base.join("abc-123")
        );
        for bad in ["", "..", "a/../../b", "x\0y", &"a".repeat(200)] {
            let p = session_state_dir(m, bad).unwrap();
            assert_eq!(p.parent().unwrap(), base, "{bad:?}");
            assert_eq!(p.file_name().unwrap().len(), 16, "{bad:?}");
        }
        assert_eq!(
            team_dir(Path::new("/r")),
            Path::new("/r/.claude/team-memory")
        );
    }

    #[test]
    fn b23_slug_collisions() {
        assert_eq!(
            slug_of_str("/home/user/test-project"),
            "-home-user-test-project"
        );
        assert_eq!(
            slug_of_str("/home/user/test/project"),
            "-home-user-test-project"
        );
        assert_eq!(slug_of_str("/a_b.c"), slug_of_str("/a-b-c"));
        // non-ASCII: one dash per UTF-16 code unit (an emoji is two)
        assert_eq!(slug_of_str("/x/é"), "-x--");
        assert_eq!(slug_of_str("/x/🔥"), "-x---");
        // NFD input is normalised to NFC first (e + combining acute = one unit)
        assert_eq!(slug_of_str("/x/e\u{301}"), "-x--");
        // B24: the double dash of `.worktrees` is an ordinary part of the name
        assert_eq!(slug_of_str("/r/.worktrees/feat"), "-r--worktrees-feat");
    }

    #[test]
    fn long_slugs_get_a_hash_suffix() {
        let p = format!("/{}", "a".repeat(250));
        let s = slug_of_str(&p);
        assert!(s.starts_with(&format!("-{}", "a".repeat(199))));
        assert_eq!(s.as_bytes()[200], b'-');
        assert_eq!(&s[201..], base36(u64::from(djb2(&p).unsigned_abs())));
        assert!(folder_matches_slug(&s, &s));
        let other = format!("{}-zzz", &s[..200]);
        assert!(folder_matches_slug(&other, &s));
        assert!(!folder_matches_slug("-short", "-shor"));
    }

    #[test]
    fn djb2_matches_the_javascript_definition() {
        // (0<<5)-0+97 = 97; (97<<5)-97+98 = 3105
        assert_eq!(djb2("a"), 97);
        assert_eq!(djb2("ab"), 3105);
        assert_eq!(base36(35), "z");
        assert_eq!(base36(36), "10");
        // wraps like `| 0` in JavaScript
        let long = "z".repeat(40);
        let mut h: i64 = 0;
        for c in long.chars() {
            h = (((h << 5) - h + c as i64) as i32) as i64;
        }
        assert_eq!(i64::from(djb2(&long)), h);
    }

    /// B24: a linked worktree resolves to the main checkout (from git's files).
    #[test]
    fn b24_linked_worktree_resolves_to_main_root() {
        let t = tempfile::tempdir().unwrap();
        let main = t.path().join("repo");
        let wt = main.join(".worktrees/feat");
        std::fs::create_dir_all(main.join(".git/worktrees/feat")).unwrap();
        std::fs::create_dir_all(&wt).unwrap();
        std::fs::write(
            wt.join(".git"),
            format!("gitdir: {}\n", main.join(".git/worktrees/feat").display()),
        )
        .unwrap();
        std::fs::write(main.join(".git/worktrees/feat/commondir"), "../..\n").unwrap();
        std::fs::write(
            main.join(".git/worktrees/feat/gitdir"),
            format!("{}\n", wt.join(".git").display()),
        )
        .unwrap();
        std::fs::create_dir_all(wt.join("src")).unwrap();
        let real_main = main.canonicalize().unwrap();
        assert_eq!(main_worktree_root(&wt.join("src")), Some(real_main.clone()));
        assert_eq!(project_root(&wt, true), wt.canonicalize().unwrap());
        assert_eq!(project_root(&wt, false), real_main);
        assert_eq!(
            project_worktrees(&wt),
            vec![real_main.clone(), wt.canonicalize().unwrap()]
        );
        assert_eq!(project_id(&wt.join("../..")), project_id(&real_main));
        let outside = tempfile::tempdir().unwrap();
        assert_eq!(main_worktree_root(outside.path()), None);
    }

    /// Runs `test` again in a child process with `envs` set (the environment
    /// is process-wide, so tests that need HOME or CLAUDE_CONFIG_DIR re-exec).
    fn in_child(test: &str, envs: &[(&str, &Path)]) -> std::process::Output {
        let mut c = std::process::Command::new(std::env::current_exe().unwrap());
        c.args(["--exact", test, "--nocapture"])
            .env("MEM_TEST_CHILD", "1");
        for v in ["MEM_MEMORY_DIR", "CLAUDE_CONFIG_DIR", "MEM_PER_WORKTREE"] {
            c.env_remove(v);
        }
        for (k, v) in envs {
            c.env(k, v);
        }
        c.output().unwrap()
    }

    /// A repository's own `.claude/settings.json` never redirects memory;
    /// the user's `autoMemoryDirectory` does.
    #[test]
    fn project_settings_cannot_redirect_memory() {
        if std::env::var_os("MEM_TEST_CHILD").is_some() {
            let cwd = PathBuf::from(std::env::var_os("T_CWD").unwrap());
            let r = resolve(&MemdirOptions {
                cwd: Some(cwd.clone()),
                ..Default::default()
            })
            .unwrap();
            let want = std::env::var_os("T_WANT").map(PathBuf::from).unwrap();
            assert_eq!(r.dir, want, "rule {}", r.rule);
            return;
        }
        let t = tempfile::tempdir().unwrap();
        let home = t.path().join("home");
        let repo = t.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::create_dir_all(repo.join(".claude")).unwrap();
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        std::fs::write(
            repo.join(".claude/settings.json"),
            r#"{"autoMemoryDirectory":"/tmp/evil"}"#,
        )
        .unwrap();
        let repo_real = repo.canonicalize().unwrap();
        let want = home
            .join(".claude/projects")
            .join(slug(&repo_real))
            .join("memory");
        // the child resolves from the repository and wants `want`
        let resolves_to = |want: &Path| {
            let out = in_child(
                "memdir::tests::project_settings_cannot_redirect_memory",
                &[("HOME", &home), ("T_CWD", &repo), ("T_WANT", want)],
            );
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stdout)
            );
        };
        resolves_to(&want);
        // the user's own setting is honoured
        std::fs::write(
            home.join(".claude/settings.json"),
            r#"{"autoMemoryDirectory":"~/notes/mem"}"#,
        )
        .unwrap();
        let want = home.join("notes/mem");
        resolves_to(&want);
    }

    #[test]
    fn explicit_dir_wins() {
        let r = resolve(&MemdirOptions {
            memory_dir: Some("/tmp/m".into()),
            cwd: Some("/".into()),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(r.dir, PathBuf::from("/tmp/m"));
        assert_eq!(r.rule, Rule::Flag);
    }

    #[test]
    fn cwd_prefix_is_by_component() {
        let roots = vec![PathBuf::from("/home/user/test")];
        assert!(cwd_in_roots("/home/user/test/project", &roots));
        assert!(!cwd_in_roots("/home/user/test-project", &roots));
    }
}
