//! mem-lock: The PID/mtime lock file that guards consolidation.
