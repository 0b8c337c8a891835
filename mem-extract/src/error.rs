//! What stops a `mem-extract` command, and the exit code each maps to
//! (docs/records.md "Exit codes"): [`ExtractError::code`].
//!
//! A run that extracts nothing is not an error (exit 0, the reason on
//! stderr); a `--model-cmd` run fails only when every run of the command
//! failed (the others are warnings).

use std::path::PathBuf;
use std::process::ExitStatus;
use std::time::Duration;

use mem_core::error::Exit;

/// An error of `mem-extract` (its library and its binary). Printed once as
/// `mem-extract: {err}`; every variant exits 1.
#[derive(Debug, thiserror::Error)]
pub enum ExtractError {
    /// An error of the shared library: a file that cannot be read or
    /// written (naming it), a bad events line at `FILE:LINE`, …
    #[error(transparent)]
    Core(#[from] mem_core::Error),
    /// Writing the output failed (a closed pipe exits 0 quietly).
    #[error(transparent)]
    Output(#[from] std::io::Error),
    /// The working directory cannot be read (`scrub` without `--cwd` and
    /// `--project-root`).
    #[error("working directory: {0}")]
    WorkingDir(std::io::Error),
    /// A rules file (`--rules FILE`) that is not YAML of the rules' shape.
    #[error("{file}: {reason}")]
    RulesYaml {
        /// The rules file as given.
        file: String,
        /// The YAML parser's message.
        reason: String,
    },
    /// A rule of a rules file whose `pattern` (`what` = `pattern`) or
    /// `unless` (`what` = `unless`) does not compile.
    #[error("{file}: rule {rule}: bad {what}: {err}")]
    BadRule {
        /// The rules file as given.
        file: String,
        /// The rule's `name`.
        rule: String,
        /// `pattern` or `unless`.
        what: &'static str,
        /// The regex compiler's message.
        err: regex::Error,
    },
    /// A `why` pattern of a rules file that does not compile.
    #[error("{file}: why {pattern:?}: {err}")]
    BadWhy {
        /// The rules file as given.
        file: String,
        /// The pattern.
        pattern: String,
        /// The regex compiler's message.
        err: regex::Error,
    },
    /// The rules compile one by one but not together (a size limit).
    #[error("{file}: rules: {err}")]
    RuleSet {
        /// The rules file as given.
        file: String,
        /// The regex compiler's message.
        err: regex::Error,
    },
    /// `--model-cmd`: `sh -c CMD` cannot be started.
    #[error("--model-cmd: cannot start: {0}")]
    ModelStart(std::io::Error),
    /// `--model-cmd`: waiting for the command failed.
    #[error("--model-cmd: {0}")]
    ModelWait(std::io::Error),
    /// `--model-cmd`: no answer within `--model-timeout` (its process
    /// group was killed).
    #[error("--model-cmd: no answer within {} s (--model-timeout); killed", .0.as_secs())]
    ModelTimeout(Duration),
    /// `--model-cmd`: the command exited non-zero or was killed by a signal.
    #[error("--model-cmd: exited with {0}")]
    ModelFailed(ExitStatus),
    /// `session` without `--out`: neither `--cwd` nor an event names the
    /// project, so the summary has no place.
    #[error("no cwd in the events; give --cwd or --out")]
    NoCwd,
    /// `session`: the summary state cannot be serialized.
    #[error("{}: {err}", .path.display())]
    State {
        /// The state file.
        path: PathBuf,
        /// The serializer's message.
        err: serde_json::Error,
    },
}

impl ExtractError {
    /// The exit code: the shared library's own for [`ExtractError::Core`],
    /// 1 for everything else.
    pub fn code(&self) -> Exit {
        match self {
            ExtractError::Core(e) => e.exit(),
            _ => Exit::Failure,
        }
    }
}

impl mem_core::error::UError for ExtractError {
    fn code(&self) -> Exit {
        ExtractError::code(self)
    }

    fn is_broken_pipe(&self) -> bool {
        match self {
            ExtractError::Output(e) => e.kind() == std::io::ErrorKind::BrokenPipe,
            ExtractError::Core(e) => mem_core::error::is_broken_pipe(e),
            _ => false,
        }
    }
}

/// Result with [`ExtractError`].
pub type Result<T, E = ExtractError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_know_their_exit_code_and_words() {
        let e = ExtractError::ModelTimeout(Duration::from_secs(30));
        assert_eq!(e.code(), Exit::Failure);
        assert_eq!(
            e.to_string(),
            "--model-cmd: no answer within 30 s (--model-timeout); killed"
        );
        let unclosed = String::from("(");
        let e = ExtractError::BadRule {
            file: "r.yaml".into(),
            rule: "broken".into(),
            what: "unless",
            err: regex::Regex::new(&unclosed).unwrap_err(),
        };
        assert!(
            e.to_string()
                .starts_with("r.yaml: rule broken: bad unless: regex parse error"),
            "{e}"
        );
        let busy = ExtractError::Core(mem_core::Error::Busy {
            path: "/m/.consolidate-lock".into(),
            pid: 7,
        });
        assert_eq!(busy.code(), Exit::TempFail);
    }
}
