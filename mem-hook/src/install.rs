//! `mem-hook install|uninstall|show`: mem's hooks in Claude Code's
//! `settings.json` or Codex's `hooks.json`.
//!
//! The hooks are [`mem_core::hooks::HOOKS`]: each is written as
//! `{"type":"command","command":…,"timeout":…}` in a matcher group of its
//! event, with every mem tool named by its absolute, shell-quoted path (the
//! directory of the running `mem-hook`, canonicalised, or `--bin-dir`), so
//! the hooks do not depend on the PATH the agent sees.
//!
//! The file is merged, never replaced: other keys and hooks are kept in
//! their order; installing twice changes nothing; a changed bin dir (or
//! model command) updates mem's entries in place. mem's entries are
//! recognised by their shape — every stage of the pipeline a path ending in
//! a mem tool's name followed by the arguments of one of mem's hook commands
//! (the bare names the previous installer wrote included) — so `uninstall`
//! removes exactly them, and drops the groups and events it emptied.
//!
//! Only the changed part of the file is written anew ([`crate::json_edit`]):
//! every other byte keeps the user's formatting. Before a change the old
//! file is copied to `FILE.bak` (one backup, replacing the previous one);
//! the new one is written atomically with the old file's permissions
//! ([`mem_core::atomic::write_atomic`]). `--dry-run` prints the change as a
//! unified diff and writes nothing. A file that is not a JSON object,
//! or whose `hooks` is not an object (or an event of it not a list), is
//! refused: exit 1, the file untouched.

pub use crate::quote::quote;
use std::path::{Path, PathBuf};

use mem_recall::RecallError;

use crate::codex_trust;
use clap::{Args, Subcommand};
use mem_core::hooks::{HOOKS, HookSpec, TOOLS, WRITE_PATH};
use mem_core::{Error, Exit};
use serde_json::{Map, Value, json};

use crate::error::NAME;

/// `mem-hook install|uninstall|show`.
#[derive(Debug, Args)]
pub struct HooksArgs {
    /// What to do.
    #[command(subcommand)]
    pub action: HooksAction,
}

/// The actions of `mem-hook` on settings files.
#[derive(Debug, Subcommand)]
pub enum HooksAction {
    /// Add mem's hooks to the settings file (merged; idempotent) and, for
    /// Claude Code's user or project settings (not --settings FILE), the
    /// `/dream` command beside it (`commands/dream.md`: consolidate now
    /// with `mem-dream --force`; a `dream.md` mem did not write is left
    /// alone).
    Install(InstallArgs),
    /// Remove exactly mem's hooks from the settings file, and mem's
    /// `/dream` command while it is unchanged.
    Uninstall(TargetArgs),
    /// Show mem's hooks, whether the settings file has them and, with
    /// --codex, whether Codex trusts them (it skips a hook it does not).
    #[command(visible_alias = "status")]
    Show(InstallArgs),
}

/// Which file, and whether to write it.
#[derive(Debug, Args, Clone)]
pub struct TargetArgs {
    /// The settings file. Default: `$CLAUDE_CONFIG_DIR/settings.json`, else
    /// `~/.claude/settings.json`; with --codex `$CODEX_HOME/hooks.json`,
    /// else `~/.codex/hooks.json`.
    #[arg(long, value_name = "FILE")]
    pub settings: Option<PathBuf>,
    /// The current project's file instead of the user's:
    /// `<project>/.claude/settings.json` (with --codex
    /// `<project>/.codex/hooks.json`); the project is the git worktree
    /// holding the working directory, else the working directory.
    #[arg(long, conflicts_with = "settings")]
    pub project: bool,
    /// Codex's `hooks.json` instead of Claude Code's `settings.json`.
    #[arg(long)]
    pub codex: bool,
    /// Print the resulting file on stdout and what would change on stderr;
    /// write nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// Options of `install` and `show`.
#[derive(Debug, Args, Clone)]
pub struct InstallArgs {
    /// The file and --dry-run.
    #[command(flatten)]
    pub target: TargetArgs,
    /// Where the mem tools are. Default: the directory of this mem-hook
    /// executable (symlinks resolved). Each tool a hook runs must be there.
    #[arg(long, value_name = "DIR")]
    pub bin_dir: Option<PathBuf>,
    /// Extract with a model on `Stop` and `SessionEnd`: the write path runs
    /// `mem-extract --model-cmd CMD` (see `mem-extract --help`; the command
    /// runs with MEM_HOOK_GUARD=1, so mem's hooks do nothing inside it).
    /// Recipes: --model-cmd 'claude -p --model haiku',
    /// --model-cmd 'codex exec --skip-git-repo-check -'.
    #[arg(long, value_name = "CMD")]
    pub model_cmd: Option<String>,
    /// Seconds the model may take per run (`mem-extract --model-timeout`).
    /// Default: the hook's timeout less 5 s, so the agent never kills the
    /// write path before the model is stopped.
    #[arg(long, value_name = "SECS", requires = "model_cmd")]
    pub model_timeout: Option<u64>,
}

/// Which agent a file belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agent {
    /// Claude Code's `settings.json`.
    Claude,
    /// Codex's `hooks.json`.
    Codex,
}

/// Run `mem-hook install|uninstall|show`.
///
/// Errors: a settings file that cannot be read or is not a JSON object (or
/// whose `hooks` is not an object), a missing tool in the bin dir, a failed
/// write (all exit 1; the file untouched).
pub fn run(action: &HooksAction) -> crate::error::Result<Exit> {
    match action {
        HooksAction::Install(a) => install(a),
        HooksAction::Uninstall(t) => uninstall(t),
        HooksAction::Show(a) => show(a),
    }
}

/// The settings file `target` names, and its agent.
///
/// Errors: no home directory, no working directory.
pub fn target_file(target: &TargetArgs) -> crate::error::Result<(PathBuf, Agent)> {
    let agent = if target.codex {
        Agent::Codex
    } else {
        Agent::Claude
    };
    if let Some(s) = &target.settings {
        return Ok((s.clone(), agent));
    }
    if target.project {
        let cwd = std::env::current_dir().map_err(RecallError::WorkingDir)?;
        let root = mem_core::memdir::project_root(&cwd, true);
        return Ok(match agent {
            Agent::Claude => (root.join(".claude/settings.json"), agent),
            Agent::Codex => (root.join(".codex/hooks.json"), agent),
        });
    }
    Ok(match agent {
        Agent::Claude => (mem_core::memdir::claude_dir()?.join("settings.json"), agent),
        Agent::Codex => (mem_core::memdir::codex_home()?.join("hooks.json"), agent),
    })
}

/// The directory of the running executable, symlinks resolved.
fn default_bin_dir() -> crate::error::Result<PathBuf> {
    let exe = std::env::current_exe().map_err(RecallError::NoProgramPath)?;
    let exe = exe.canonicalize().unwrap_or(exe);
    Ok(exe
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("/")))
}

/// The tools the hook commands run, each once, in order.
pub fn hook_tools() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for h in HOOKS {
        let used = std::cell::RefCell::new(Vec::new());
        h.command_with(|t| {
            used.borrow_mut().push(t.to_string());
            String::new()
        });
        for t in used.into_inner() {
            if let Some(t) = TOOLS.iter().find(|x| **x == t)
                && !out.contains(t)
            {
                out.push(t);
            }
        }
    }
    out
}

/// The bin dir (absolute, canonical when it exists) and the tools missing
/// from it.
fn bin_dir(a: &InstallArgs) -> crate::error::Result<(PathBuf, Vec<&'static str>)> {
    let dir = match &a.bin_dir {
        Some(d) => {
            let abs = if d.is_absolute() {
                d.clone()
            } else {
                std::env::current_dir()
                    .map_err(RecallError::WorkingDir)?
                    .join(d)
            };
            abs.canonicalize().unwrap_or(abs)
        }
        None => default_bin_dir()?,
    };
    let missing = hook_tools()
        .into_iter()
        .filter(|t| !is_executable(&dir.join(t)))
        .collect();
    Ok((dir, missing))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// What mem writes for one hook: the command line and the timeout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The hook.
    pub spec: &'static HookSpec,
    /// The command line, tools by absolute quoted paths.
    pub command: String,
    /// The timeout, seconds: [`HookSpec::timeout_secs`] for Claude Code,
    /// [`HookSpec::codex_timeout_secs`] for Codex.
    pub timeout: u32,
}

/// The model options of the write path.
#[derive(Debug, Clone, Default)]
pub struct Model {
    /// `--model-cmd`.
    pub cmd: Option<String>,
    /// `--model-timeout`, seconds.
    pub timeout: Option<u64>,
}

/// The entries mem writes for `agent`, tools under `bin`, the write path's
/// mem-extract with the model options on `Stop` and `SessionEnd` (Codex:
/// `Stop` only — its `SessionEnd` has 3 s, too few for a model; the `Stop`
/// hook already ran it after every turn).
pub fn entries(bin: &Path, model: &Model, agent: Agent) -> Vec<Entry> {
    HOOKS
        .iter()
        .map(|spec| {
            let resolve = |t: &str| quote(&bin.join(t).to_string_lossy());
            let mut command = spec.command_with(resolve);
            let timeout = match agent {
                Agent::Claude => spec.timeout_secs,
                Agent::Codex => spec.codex_timeout_secs(),
            };
            let with_model = match agent {
                Agent::Claude => matches!(spec.event, "Stop" | "SessionEnd"),
                Agent::Codex => spec.event == "Stop",
            };
            if let Some(cmd) = &model.cmd
                && spec.command == WRITE_PATH
                && with_model
            {
                let extract = quote(&bin.join("mem-extract").to_string_lossy());
                let secs = model
                    .timeout
                    .unwrap_or_else(|| u64::from(timeout.saturating_sub(5).max(1)));
                let with = format!(
                    "{extract} --model-cmd {} --model-timeout {secs}",
                    quote(cmd)
                );
                command = command
                    .split(" | ")
                    .map(|s| if s == extract { with.as_str() } else { s })
                    .collect::<Vec<_>>()
                    .join(" | ");
            }
            Entry {
                spec,
                command,
                timeout,
            }
        })
        .collect()
}

/// Commands earlier installers wrote (the tools' paths aside), recognised
/// as mem's too: the bare `mem-recall --hook`, the `SessionEnd` write path
/// without `>&2`, the `PreCompact` path without `>&2`.
pub const LEGACY: &[&str] = &[
    "mem-recall --hook",
    "mem-transcript replay --hook | mem-extract | mem-index write",
    "mem-transcript replay --hook | mem-extract session --hook",
];

/// A command's stages as (tool name, arguments), the model options of
/// mem-extract left out; `None` unless every stage is a mem tool.
fn shape(command: &str) -> Option<Vec<(String, Vec<String>)>> {
    let words = shlex::split(command)?;
    let mut stages = Vec::new();
    for part in words.split(|w| w == "|") {
        let (first, rest) = part.split_first()?;
        let name = first.rsplit('/').next().unwrap_or(first);
        if !TOOLS.contains(&name) {
            return None;
        }
        let mut args = Vec::new();
        let mut it = rest.iter();
        while let Some(w) = it.next() {
            if name == "mem-extract" && matches!(w.as_str(), "--model-cmd" | "--model-timeout") {
                it.next();
                continue;
            }
            if name == "mem-extract"
                && (w.starts_with("--model-cmd=") || w.starts_with("--model-timeout="))
            {
                continue;
            }
            args.push(w.clone());
        }
        stages.push((name.to_string(), args));
    }
    (!stages.is_empty()).then_some(stages)
}

/// True when `command` has the shape of `spec`'s command (any paths, any
/// model options).
pub fn same_shape(command: &str, spec_command: &str) -> bool {
    match (shape(command), shape(spec_command)) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// True when a hook command is one of mem's: of [`HOOKS`] or [`LEGACY`],
/// or of another version ([`other_version`]).
pub fn is_mem_command(command: &str) -> bool {
    HOOKS
        .iter()
        .map(|h| h.command)
        .chain(LEGACY.iter().copied())
        .any(|c| same_shape(command, c))
        || other_version(command).is_some()
}

/// For a hook command of another version of mem (every stage a mem tool,
/// one of them given `--hook`, and not the shape of any of today's
/// commands), the tool of its first stage.
pub fn other_version(command: &str) -> Option<String> {
    let stages = shape(command)?;
    if !stages
        .iter()
        .any(|(_, args)| args.iter().any(|a| a == "--hook"))
    {
        return None;
    }
    // a command with more shell in it than a redirection to stderr is the
    // user's, whatever it starts with
    let shell = |a: &String| a != ">&2" && a.contains([';', '&', '<', '>', '|', '`', '$']);
    if stages.iter().any(|(_, args)| args.iter().any(shell)) {
        return None;
    }
    if HOOKS.iter().any(|h| same_shape(command, h.command)) {
        return None;
    }
    stages.into_iter().next().map(|(tool, _)| tool)
}

/// The tool that earlier versions ran where `tool` runs now: `mem-recall
/// --hook` answered the hook events that `mem-hook` answers.
fn earlier_tool(tool: &str) -> Option<&'static str> {
    (tool == "mem-hook").then_some("mem-recall")
}

fn handler_command(h: &Value) -> Option<&str> {
    (h.get("type").and_then(Value::as_str) == Some("command"))
        .then(|| h.get("command").and_then(Value::as_str))
        .flatten()
}

/// The settings file read: the value (an empty object for a missing or
/// blank file) and the old text.
struct Loaded {
    value: Map<String, Value>,
    old: Option<Vec<u8>>,
    /// The file written (symlinks resolved).
    real: PathBuf,
}

fn refuse(path: &Path, what: String) -> crate::error::HookError {
    crate::error::HookError::Settings {
        path: path.to_path_buf(),
        what,
    }
}

/// Largest settings file read: 4 MiB.
const MAX_SETTINGS_BYTES: u64 = 4 << 20;

/// The project root of a `--project` target, whose folders and file may
/// not be links: a cloned repository is written by someone else, and its
/// `.claude/settings.json -> ~/.bashrc` must not make `install` rewrite
/// what it points to. `None` for the user's own file or one named by
/// `--settings` (followed on purpose: a dotfiles link is the user's).
fn project_root_of(target: &TargetArgs) -> crate::error::Result<Option<PathBuf>> {
    if target.settings.is_some() || !target.project {
        return Ok(None);
    }
    let cwd = std::env::current_dir().map_err(RecallError::WorkingDir)?;
    Ok(Some(mem_core::memdir::project_root(&cwd, true)))
}

/// Refuse a link at any component of `path` below the project `root`
/// (`.claude`, `.claude/settings.json`, `.codex`, `.codex/hooks.json`).
fn no_link_below(root: &Path, path: &Path) -> crate::error::Result<()> {
    let Ok(rel) = path.strip_prefix(root) else {
        return Ok(());
    };
    let mut cur = root.to_path_buf();
    for c in rel.components() {
        cur.push(c);
        match std::fs::symlink_metadata(&cur) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = std::fs::read_link(&cur)
                    .map(|t| format!(" (to {})", t.display()))
                    .unwrap_or_default();
                return Err(refuse(
                    &cur,
                    format!(
                        "is a symbolic link{to}; a project's settings are never written through a link (name the target with --settings to write it)"
                    ),
                ));
            }
            Ok(_) => {}
            Err(_) => break,
        }
    }
    Ok(())
}

fn load(path: &Path, project: Option<&Path>) -> crate::error::Result<Loaded> {
    if let Some(root) = project {
        no_link_below(root, path)?;
    }
    let real = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    // regular files only: a FIFO or a device is refused without waiting on it
    let old = match mem_core::confine::read_capped(&real, MAX_SETTINGS_BYTES, project.is_none()) {
        Ok(b) => Some(b),
        Err(Error::Io { err, .. }) if err.kind() == std::io::ErrorKind::NotFound => None,
        Err(Error::Io { err, .. }) => return Err(refuse(path, err.to_string())),
        Err(e) => return Err(e.into()),
    };
    let value = match &old {
        None => Map::new(),
        Some(b) if b.iter().all(u8::is_ascii_whitespace) => Map::new(),
        Some(b) => {
            let text = std::str::from_utf8(b).map_err(|_| refuse(path, "not UTF-8 text".into()))?;
            match serde_json::from_str::<Value>(text) {
                Ok(Value::Object(m)) => m,
                Ok(_) => return Err(refuse(path, "not a JSON object".into())),
                Err(e) => {
                    return Err(crate::error::HookError::SettingsNotJson {
                        path: path.to_path_buf(),
                        line: e.line(),
                        reason: mem_core::jsonl::describe(&e),
                    });
                }
            }
        }
    };
    if let Some(h) = value.get("hooks") {
        let Some(h) = h.as_object() else {
            return Err(refuse(path, "\"hooks\" is not an object".into()));
        };
        for (event, groups) in h {
            if !groups.is_array() {
                return Err(refuse(path, format!("\"hooks.{event}\" is not a list")));
            }
        }
    }
    Ok(Loaded { value, old, real })
}

/// Merge mem's `entries` into `settings`; the changes, one line each.
pub fn merge(settings: &mut Map<String, Value>, entries: &[Entry]) -> Vec<String> {
    let mut changes = Vec::new();
    let hooks = settings
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(hooks) = hooks.as_object_mut() else {
        return changes;
    };
    for e in entries {
        let groups = hooks
            .entry(e.spec.event)
            .or_insert_with(|| Value::Array(Vec::new()));
        let Some(groups) = groups.as_array_mut() else {
            continue;
        };
        let timeout = json!(e.timeout);
        let mut found = false;
        // mem's entry of this hook: today's shape, else one of another
        // version of mem that starts with the same tool (updated in place)
        let first_tool = shape(e.spec.command).and_then(|s| s.into_iter().next().map(|t| t.0));
        let exact = |c: &str| same_shape(c, e.spec.command);
        let older = |c: &str| {
            other_version(c).is_some_and(|t| {
                Some(&t) == first_tool.as_ref()
                    || first_tool.as_deref().and_then(earlier_tool) == Some(t.as_str())
            })
        };
        let any_exact = groups.iter().any(|g| {
            g.get("hooks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(handler_command)
                .any(exact)
        });
        let is_entry = |c: &str| {
            if any_exact {
                exact(c)
            } else {
                exact(c) || older(c)
            }
        };
        for g in groups.iter_mut() {
            let matcher = g.get("matcher").and_then(Value::as_str).map(str::to_string);
            let Some(hs) = g.get_mut("hooks").and_then(Value::as_array_mut) else {
                continue;
            };
            let before = hs.len();
            let mut i = 0;
            while i < hs.len() {
                let mine = handler_command(&hs[i]).is_some_and(is_entry)
                    && matcher.as_deref().unwrap_or("") == e.spec.matcher.unwrap_or("");
                if !mine {
                    i += 1;
                    continue;
                }
                if found {
                    // a second copy would run twice
                    hs.remove(i);
                    continue;
                }
                found = true;
                let h = hs[i]
                    .as_object_mut()
                    .expect("a command handler is an object");
                if h.get("command").and_then(Value::as_str) != Some(&e.command) {
                    changes.push(format!("updated {}: {}", e.spec.event, e.command));
                    h.insert("command".into(), json!(e.command));
                }
                if h.get("timeout") != Some(&timeout) {
                    if !changes.iter().any(|c| c.ends_with(&e.command)) {
                        changes.push(format!("updated {} timeout: {} s", e.spec.event, e.timeout));
                    }
                    h.insert("timeout".into(), timeout.clone());
                }
                i += 1;
            }
            if hs.len() < before {
                changes.push(format!("removed a duplicate {} entry", e.spec.event));
            }
        }
        groups.retain(|g| {
            g.get("hooks")
                .and_then(Value::as_array)
                .is_none_or(|h| !h.is_empty())
        });
        if !found {
            let mut g = Map::new();
            if let Some(m) = e.spec.matcher {
                g.insert("matcher".into(), json!(m));
            }
            g.insert(
                "hooks".into(),
                json!([{"type": "command", "command": e.command, "timeout": e.timeout}]),
            );
            groups.push(Value::Object(g));
            changes.push(format!("added {}: {}", e.spec.event, e.command));
        }
    }
    changes
}

/// Remove mem's entries (see [`is_mem_command`]) from `settings`, and the
/// groups, events and `hooks` object that removal emptied; the changes.
pub fn remove(settings: &mut Map<String, Value>) -> Vec<String> {
    let mut changes = Vec::new();
    let Some(hooks) = settings.get_mut("hooks").and_then(Value::as_object_mut) else {
        return changes;
    };
    let mut emptied_events = Vec::new();
    for (event, groups) in hooks.iter_mut() {
        let Some(groups) = groups.as_array_mut() else {
            continue;
        };
        let n_groups = groups.len();
        let mut dropped_any = false;
        groups.retain_mut(|g| {
            let Some(hs) = g.get_mut("hooks").and_then(Value::as_array_mut) else {
                return true;
            };
            let before = hs.len();
            hs.retain(|h| {
                let mine = handler_command(h).is_some_and(is_mem_command);
                if mine {
                    changes.push(format!(
                        "removed {event}: {}",
                        handler_command(h).unwrap_or_default()
                    ));
                }
                !mine
            });
            let keep = !(hs.is_empty() && before > 0);
            dropped_any |= !keep;
            keep
        });
        if groups.is_empty() && n_groups > 0 && dropped_any {
            emptied_events.push(event.clone());
        }
    }
    let emptied_all = !emptied_events.is_empty();
    for e in emptied_events {
        hooks.shift_remove(&e);
    }
    if emptied_all && hooks.is_empty() {
        settings.shift_remove("hooks");
    }
    changes
}

/// The file's text as written: two-space JSON and a final newline.
fn render(settings: &Map<String, Value>) -> crate::error::Result<String> {
    let mut s = serde_json::to_string_pretty(settings)?;
    s.push('\n');
    Ok(s)
}

/// Copy `old` beside `real` as `real.bak` (atomically, replacing the
/// previous backup: one is kept), with the file's permissions. Returns the
/// backup's path.
fn backup(real: &Path, old: &[u8]) -> crate::error::Result<PathBuf> {
    use std::io::Write as _;
    use std::os::unix::fs::OpenOptionsExt as _;
    let mode = std::fs::metadata(real).map_or(0o600, |m| {
        use std::os::unix::fs::PermissionsExt as _;
        m.permissions().mode() & 0o7777
    });
    let bak = PathBuf::from(format!("{}.bak", real.display()));
    let tmp = PathBuf::from(format!("{}.bak.{}.tmp", real.display(), std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(&tmp)
        .map_err(|e| Error::io(&tmp, e))?;
    let written = f.write_all(old).and_then(|()| f.sync_all());
    drop(f);
    if let Err(e) = written.and_then(|()| std::fs::rename(&tmp, &bak)) {
        let _ = std::fs::remove_file(&tmp);
        return Err(Error::io(&bak, e).into());
    }
    Ok(bak)
}

/// The new file's text: the old text with only what changed written anew
/// ([`crate::json_edit::rewrite`]), else (no file, a blank one, or one
/// that does not scan) two-space JSON.
fn new_text(loaded: &Loaded, new: &Map<String, Value>) -> crate::error::Result<String> {
    let old = loaded
        .old
        .as_deref()
        .filter(|b| !b.iter().all(u8::is_ascii_whitespace))
        .and_then(|b| std::str::from_utf8(b).ok());
    match old.and_then(|t| crate::json_edit::rewrite(t, new)) {
        Some(t) => Ok(t),
        None => render(new),
    }
}

/// Write the new settings (backup first), or print them with --dry-run.
fn commit(
    path: &Path,
    loaded: &Loaded,
    new: &Map<String, Value>,
    changes: &[String],
    dry_run: bool,
    what: &str,
) -> crate::error::Result<bool> {
    let unchanged = match &loaded.old {
        Some(b) if !b.iter().all(u8::is_ascii_whitespace) => {
            serde_json::from_slice::<Value>(b).ok() == Some(Value::Object(new.clone()))
        }
        // a missing or blank file stays so when nothing is added
        _ => new.is_empty() || changes.is_empty(),
    };
    if unchanged {
        if dry_run {
            eprintln!("{}: unchanged ({what})", path.display());
        } else {
            println!("{}: unchanged ({what})", path.display());
        }
        return Ok(false);
    }
    let text = new_text(loaded, new)?;
    if dry_run {
        for c in changes {
            eprintln!("{c}");
        }
        eprintln!("{}: dry run, nothing written", path.display());
        let old = loaded
            .old
            .as_deref()
            .map(|b| String::from_utf8_lossy(b).into_owned());
        let label = path.display().to_string();
        let label = label.trim_start_matches('/');
        print!(
            "{}",
            mem_core::diff::unified(label, old.as_deref(), Some(&text))
        );
        return Ok(false);
    }
    if let Some(old) = &loaded.old {
        let b = backup(&loaded.real, old)?;
        println!("backup: {}", b.display());
    }
    mem_core::atomic::write_atomic(&loaded.real, text.as_bytes())?;
    for c in changes {
        println!("{c}");
    }
    println!("wrote {}", path.display());
    Ok(true)
}

fn install(a: &InstallArgs) -> crate::error::Result<Exit> {
    let (path, agent) = target_file(&a.target)?;
    let (bin, missing) = bin_dir(a)?;
    if !missing.is_empty() {
        let msg = format!(
            "{}: {} not found there (or not executable); install the tools there (scripts/install.sh) or name their directory with --bin-dir",
            bin.display(),
            missing.join(", ")
        );
        if !a.target.dry_run {
            return Err(crate::error::HookError::ToolsMissing { bin, missing });
        }
        mem_core::cli::warn(NAME, msg);
    }
    let loaded = load(&path, project_root_of(&a.target)?.as_deref())?;
    let mut new = loaded.value.clone();
    let model = Model {
        cmd: a.model_cmd.clone(),
        timeout: a.model_timeout,
    };
    let changes = merge(&mut new, &entries(&bin, &model, agent));
    commit(
        &path,
        &loaded,
        &new,
        &changes,
        a.target.dry_run,
        "mem's hooks are already there",
    )?;
    if agent == Agent::Claude && a.target.settings.is_none() {
        let project = project_root_of(&a.target)?;
        crate::dream_command::install(&path, &bin, a.target.dry_run, project.as_deref())?;
    }
    if agent == Agent::Codex && !a.target.dry_run {
        for line in codex_notes(&path) {
            println!("{line}");
        }
        let trust = mem_verdicts(&path, &new);
        for line in codex_trust_notes(&trust, false) {
            println!("{line}");
        }
    }
    Ok(Exit::Success)
}

fn uninstall(t: &TargetArgs) -> crate::error::Result<Exit> {
    let (path, agent) = target_file(t)?;
    let loaded = load(&path, project_root_of(t)?.as_deref())?;
    if agent == Agent::Claude && t.settings.is_none() {
        crate::dream_command::uninstall(&path, t.dry_run, project_root_of(t)?.as_deref())?;
    }
    if loaded.old.is_none() {
        println!("{}: unchanged (no such file)", path.display());
        return Ok(Exit::Success);
    }
    let mut new = loaded.value.clone();
    let changes = remove(&mut new);
    commit(
        &path,
        &loaded,
        &new,
        &changes,
        t.dry_run,
        "mem's hooks are not there",
    )?;
    Ok(Exit::Success)
}

fn show(a: &InstallArgs) -> crate::error::Result<Exit> {
    let (path, agent) = target_file(&a.target)?;
    let (bin, missing) = bin_dir(a)?;
    let loaded = load(&path, project_root_of(&a.target)?.as_deref())?;
    let model = Model {
        cmd: a.model_cmd.clone(),
        timeout: a.model_timeout,
    };
    println!(
        "{} ({})",
        path.display(),
        match agent {
            Agent::Claude => "Claude Code settings",
            Agent::Codex => "Codex hooks",
        }
    );
    let trust = match agent {
        Agent::Codex => mem_verdicts(&path, &loaded.value),
        Agent::Claude => Vec::new(),
    };
    for e in entries(&bin, &model, agent) {
        let present: Vec<String> = loaded
            .value
            .get("hooks")
            .and_then(|h| h.get(e.spec.event))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|g| g.get("hooks").and_then(Value::as_array))
            .flatten()
            .filter_map(handler_command)
            .filter(|c| same_shape(c, e.spec.command))
            .map(str::to_string)
            .collect();
        let state = if present.contains(&e.command) {
            "installed"
        } else if present.is_empty() {
            "missing"
        } else {
            "differs"
        };
        let matcher = e.spec.matcher.map(|m| format!("[{m}]")).unwrap_or_default();
        println!(
            "{state:<9} {}{matcher} timeout {} s: {}",
            e.spec.event, e.timeout, e.command
        );
        if state == "differs" {
            for c in &present {
                println!("          now: {c}");
            }
        }
        for t in trust
            .iter()
            .filter(|t| t.event == e.spec.event && present.contains(&t.command))
        {
            println!("          codex: {}", t.trust.words());
        }
    }
    if agent == Agent::Claude && a.target.settings.is_none() {
        println!("{}", crate::dream_command::status_line(&path, &bin));
    }
    if !missing.is_empty() {
        println!("missing from {}: {}", bin.display(), missing.join(", "));
    }
    match agent {
        Agent::Codex => {
            for line in codex_trust_notes(&trust, true) {
                println!("{line}");
            }
        }
        // the user's Codex hooks, in a line, when they hold mem's
        Agent::Claude => {
            let codex = TargetArgs {
                settings: None,
                project: a.target.project,
                codex: true,
                dry_run: true,
            };
            if let Ok((cpath, _)) = target_file(&codex)
                && let Ok(c) = load(&cpath, project_root_of(&codex).ok().flatten().as_deref())
                && c.old.is_some()
            {
                let trust = mem_verdicts(&cpath, &c.value);
                let open = trust
                    .iter()
                    .filter(|t| t.trust != codex_trust::Trust::Trusted)
                    .count();
                if !trust.is_empty() {
                    println!(
                        "codex ({}): {} of mem's {} hooks trusted{}",
                        cpath.display(),
                        trust.len() - open,
                        trust.len(),
                        if open > 0 {
                            "; `mem-hook status --codex` says how to trust the rest"
                        } else {
                            ""
                        }
                    );
                }
            }
        }
    }
    Ok(Exit::Success)
}

/// [`codex_trust::verdicts`] for mem's hooks in the `hooks.json` at `hooks_path`, with
/// the config files of [`codex_trust::config_files`] read from disk (a missing one
/// holds no state).
pub fn mem_verdicts(hooks_path: &Path, hooks: &Map<String, Value>) -> Vec<codex_trust::HookTrust> {
    let texts: Vec<String> = codex_trust::config_files(hooks_path)
        .iter()
        // regular files only, capped: a FIFO or device is never waited on
        .filter_map(|p| mem_core::confine::read_text_capped(p, 4 << 20, true).ok())
        .collect();
    codex_trust::verdicts(hooks_path, hooks, &texts, is_mem_command)
}

/// What to say of Codex's trust in mem's hooks (`trust`, see
/// [`crate::codex_trust`]): nothing when all are trusted, else how many
/// are not and how to trust them; with `toml`, also the `config.toml`
/// lines that trust them.
pub fn codex_trust_notes(trust: &[codex_trust::HookTrust], toml: bool) -> Vec<String> {
    use codex_trust::Trust;
    let mut out = Vec::new();
    if trust.is_empty() {
        return out;
    }
    let open: Vec<&codex_trust::HookTrust> = trust
        .iter()
        .filter(|t| matches!(t.trust, Trust::Untrusted | Trust::Modified))
        .collect();
    let off = trust.iter().filter(|t| t.trust == Trust::Disabled).count();
    if open.is_empty() && off == 0 {
        out.push(format!(
            "codex: Codex trusts all {} of mem's hooks",
            trust.len()
        ));
        return out;
    }
    if !open.is_empty() {
        out.push(format!(
            "codex: {} of mem's {} hooks are not trusted, and Codex skips a hook it does not trust without a word. To trust them: start `codex` (in the project, for a project's hooks.json), enter `/hooks` and trust each mem hook it lists; or run `codex exec --dangerously-bypass-hook-trust …` to run untrusted hooks for that one run. Each change to a hook (bin dir, model command, timeout) needs trust again.",
            open.len(),
            trust.len()
        ));
        if toml {
            let config = mem_core::memdir::codex_home()
                .map(|h| h.join("config.toml").display().to_string())
                .unwrap_or_else(|_| "~/.codex/config.toml".into());
            out.push(format!(
                "codex: what `/hooks` writes to {config} to trust them (trust only hooks you have read):"
            ));
            out.push(codex_trust::trust_toml(&open).trim_end().to_string());
        } else {
            out.push("codex: `mem-hook status --codex` says which are trusted".to_string());
        }
    }
    if off > 0 {
        out.push(format!(
            "codex: {off} of mem's hooks are turned off (`enabled = false` under `hooks.state` in config.toml); `/hooks` turns them on"
        ));
    }
    out
}

/// What to tell the user after writing Codex's `hooks.json` besides trust
/// ([`codex_trust_notes`]): a `config.toml` that turns hooks off.
pub fn codex_notes(path: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut configs = Vec::new();
    if let Some(dir) = path.parent() {
        configs.push(dir.join("config.toml"));
    }
    if let Ok(h) = mem_core::memdir::codex_home() {
        let c = h.join("config.toml");
        if !configs.contains(&c) {
            configs.push(c);
        }
    }
    for c in configs {
        // regular files only: a FIFO there is named, never waited on
        let text = match mem_core::confine::read_text_capped(&c, MAX_SETTINGS_BYTES, true) {
            Ok(t) => t,
            Err(Error::Io { err, .. }) if err.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                out.push(format!("codex: {e}; not read"));
                continue;
            }
        };
        if let Some((line, key)) = hooks_disabled(&text) {
            out.push(format!(
                "codex: {}:{line}: `{key} = false` turns hooks off; set it to true (or remove it) for mem's hooks to run",
                c.display()
            ));
        }
    }
    out
}

/// The line (1-based) and key of a `hooks = false` / `codex_hooks = false`
/// in `[features]` of a `config.toml` (or `features.hooks = false` at the
/// top level), if any.
pub fn hooks_disabled(toml: &str) -> Option<(usize, &'static str)> {
    let mut table = String::new();
    for (i, raw) in toml.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.starts_with('[') {
            table = line
                .trim_matches(|c| c == '[' || c == ']')
                .trim()
                .to_string();
            continue;
        }
        let Some((k, v)) = line.split_once('=') else {
            continue;
        };
        let (k, v) = (k.trim().trim_matches('"'), v.trim());
        if v != "false" {
            continue;
        }
        let key = match (table.as_str(), k) {
            ("features", "hooks") | ("", "features.hooks") => "hooks",
            ("features", "codex_hooks") | ("", "features.codex_hooks") => "codex_hooks",
            _ => continue,
        };
        return Some((i + 1, key));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bin() -> PathBuf {
        PathBuf::from("/opt/my tools/bin")
    }

    #[test]
    fn entries_use_quoted_absolute_paths() {
        let es = entries(&bin(), &Model::default(), Agent::Claude);
        assert_eq!(es.len(), HOOKS.len());
        let stop = es.iter().find(|e| e.spec.event == "Stop").unwrap();
        assert_eq!(
            stop.command,
            "'/opt/my tools/bin/mem-transcript' replay --hook | '/opt/my tools/bin/mem-extract' | '/opt/my tools/bin/mem-index' write >&2"
        );
        let es = entries(Path::new("/b"), &Model::default(), Agent::Claude);
        assert_eq!(es[0].command, "/b/mem-hook");
    }

    #[test]
    fn model_command_goes_to_stop_and_session_end() {
        let m = Model {
            cmd: Some("claude -p --model haiku".into()),
            timeout: None,
        };
        let es = entries(Path::new("/b"), &m, Agent::Claude);
        let by = |ev: &str| {
            es.iter()
                .find(|e| e.spec.event == ev)
                .unwrap()
                .command
                .clone()
        };
        assert_eq!(
            by("Stop"),
            "/b/mem-transcript replay --hook | /b/mem-extract --model-cmd 'claude -p --model haiku' --model-timeout 25 | /b/mem-index write >&2"
        );
        assert!(
            by("SessionEnd").contains("--model-timeout 55 |"),
            "{}",
            by("SessionEnd")
        );
        assert!(!by("PreCompact").contains("--model-cmd"));
        // still recognised as mem's
        assert!(same_shape(&by("Stop"), WRITE_PATH));
        assert!(is_mem_command(&by("SessionEnd")));
        // Codex: SessionEnd within its 3 s cap, without the model
        let es = entries(Path::new("/b"), &m, Agent::Codex);
        let end = es.iter().find(|e| e.spec.event == "SessionEnd").unwrap();
        assert_eq!(end.timeout, 3);
        assert_eq!(
            end.command,
            "/b/mem-transcript replay --hook | /b/mem-extract | /b/mem-index write >&2"
        );
        let stop = es.iter().find(|e| e.spec.event == "Stop").unwrap();
        assert_eq!(stop.timeout, 30);
        assert!(stop.command.contains("--model-timeout 25 |"));
    }

    #[test]
    fn shapes_recognise_mem_commands_only() {
        assert!(is_mem_command("mem-recall --hook"));
        assert!(is_mem_command("'/x y/mem-recall' --hook"));
        assert!(is_mem_command(
            "mem-transcript replay --hook | mem-extract | mem-index write"
        ));
        assert!(!is_mem_command("mem-recall --task x"));
        assert!(!is_mem_command("./guard.sh"));
        assert!(!is_mem_command("/usr/bin/not-mem-recall --hook"));
        assert!(!is_mem_command("mem-recall --hook && rm -rf /"));
        assert!(!is_mem_command("echo 'unterminated"));
    }

    #[test]
    fn merge_is_idempotent_and_updates_in_place() {
        let mut s: Map<String, Value> = serde_json::from_str(
            r#"{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"mem-recall --hook"},{"type":"command","command":"echo hi"}]}]},"z":1}"#,
        )
        .unwrap();
        let es = entries(Path::new("/b"), &Model::default(), Agent::Claude);
        let c = merge(&mut s, &es);
        assert!(!c.is_empty());
        // the old bare entry was updated where it was, beside the user's
        assert_eq!(
            s["hooks"]["SessionStart"],
            json!([{"hooks":[{"type":"command","command":"/b/mem-hook","timeout":10},{"type":"command","command":"echo hi"}]}])
        );
        let once = s.clone();
        assert!(merge(&mut s, &es).is_empty());
        assert_eq!(s, once);
        assert_eq!(s.keys().collect::<Vec<_>>(), ["hooks", "z"]);
        assert_eq!(
            s["hooks"]["PreToolUse"],
            json!([{"matcher":"Bash","hooks":[{"type":"command","command":"/b/mem-hook","timeout":5}]}])
        );
        // uninstall leaves exactly the user's hook
        let c = remove(&mut s);
        assert_eq!(c.len(), HOOKS.len());
        assert_eq!(
            Value::Object(s),
            json!({"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"echo hi"}]}]},"z":1})
        );
    }

    #[test]
    fn another_versions_entry_is_updated_in_place_and_removed() {
        let mut s: Map<String, Value> = serde_json::from_str(
            r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/old/mem-transcript replay --hook --since-turn | /old/mem-extract --every 2 | /old/mem-index write","timeout":20}]}]}}"#,
        )
        .unwrap();
        assert!(is_mem_command(
            "/old/mem-transcript replay --hook --since-turn | /old/mem-extract --every 2 | /old/mem-index write"
        ));
        assert!(!is_mem_command("/usr/bin/mem-index list"));
        let es = entries(Path::new("/b"), &Model::default(), Agent::Claude);
        merge(&mut s, &es);
        assert_eq!(
            s["hooks"]["Stop"],
            json!([
                {"hooks":[{"type":"command","command":"/b/mem-transcript replay --hook | /b/mem-extract | /b/mem-index write >&2","timeout":30}]},
                {"hooks":[{"type":"command","command":"/b/mem-hook","timeout":30}]}
            ])
        );
        remove(&mut s);
        assert_eq!(Value::Object(s), json!({}));
    }

    #[test]
    fn remove_drops_only_what_it_emptied() {
        let mut s: Map<String, Value> = serde_json::from_str(
            r#"{"hooks":{"Stop":[],"Notification":[{"hooks":[]}],"SessionEnd":[{"hooks":[{"type":"command","command":"mem-transcript replay --hook | mem-extract | mem-index write"}]}]}}"#,
        )
        .unwrap();
        remove(&mut s);
        assert_eq!(
            Value::Object(s),
            json!({"hooks":{"Stop":[],"Notification":[{"hooks":[]}]}})
        );
    }

    #[test]
    fn codex_config_switch_is_found() {
        assert_eq!(
            hooks_disabled("model = \"o3\"\n[features]\nhooks = false\n"),
            Some((3, "hooks"))
        );
        assert_eq!(
            hooks_disabled("[features]\ncodex_hooks = false # off\n"),
            Some((2, "codex_hooks"))
        );
        assert_eq!(
            hooks_disabled("features.hooks = false\n"),
            Some((1, "hooks"))
        );
        assert_eq!(hooks_disabled("[features]\nhooks = true\n"), None);
        assert_eq!(hooks_disabled("[other]\nhooks = false\n"), None);
    }
}
