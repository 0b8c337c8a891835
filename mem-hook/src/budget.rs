//! The hook's time budget as a one-shot timer of the process
//! (docs/memory-dir.md "The hook's time budget").
//!
//! [`Alarm::arm`] starts the process's real-time interval timer
//! (`setitimer(ITIMER_REAL)`) for the budget; when it expires, `SIGALRM`'s
//! action writes one preformatted line on stderr and ends the process with
//! status 0 (`_exit`), whatever the process was doing (a read that never
//! returns included). [`Alarm::disarm`] stops the timer before the answer
//! is written, so that the process prints either its whole answer or
//! nothing.
//!
//! A timer rather than a watchdog thread: a thread costs a `clone`, a stack
//! mapping and a second task to end at exit on every hook call, which the
//! hook's latency (docs/hooks.md "Latency") cannot afford.
//!
//! This module is the only one of the workspace with `unsafe` code (the
//! recall cache is read whole, not mapped): the two calls below, each with
//! its safety argument.
#![allow(unsafe_code)]

use std::time::Duration;

/// The armed budget; [`Alarm::disarm`] stops it.
#[derive(Debug)]
pub struct Alarm {
    action: signal_hook::SigId,
}

impl Alarm {
    /// Arm a timer of `limit` (rounded up to a microsecond) whose expiry
    /// writes `message` (one line, `\n` added) on stderr and ends the
    /// process with status 0.
    ///
    /// Errors: the signal action or the timer cannot be set (the OS error).
    pub fn arm(limit: Duration, message: &str) -> std::io::Result<Alarm> {
        let line: Box<[u8]> = format!("{message}\n").into_bytes().into_boxed_slice();
        // SAFETY: the action runs in a signal handler, so it may only make
        // async-signal-safe calls: write(2) on file descriptor 2 of bytes
        // that were allocated before and are never changed or freed while
        // the action is registered, then _exit(2). It takes no lock and
        // allocates nothing.
        let action = unsafe {
            signal_hook::low_level::register(signal_hook::consts::SIGALRM, move || {
                let _ = libc::write(2, line.as_ptr().cast(), line.len());
                signal_hook::low_level::exit(0);
            })
        }?;
        let limit = limit.max(Duration::from_micros(1));
        if let Err(e) = set_timer(limit) {
            signal_hook::low_level::unregister(action);
            return Err(e);
        }
        Ok(Alarm { action })
    }

    /// Stop the timer: from the return on, the process is never ended by
    /// it.
    ///
    /// Errors: the timer cannot be stopped (the OS error); the action stays
    /// registered then, so an expiry still ends the process cleanly.
    pub fn disarm(self) -> std::io::Result<()> {
        set_timer(Duration::ZERO)?;
        signal_hook::low_level::unregister(self.action);
        Ok(())
    }
}

/// Set the process's `ITIMER_REAL` to expire once after `after`; zero stops
/// it.
fn set_timer(after: Duration) -> std::io::Result<()> {
    let value = libc::itimerval {
        it_interval: libc::timeval {
            tv_sec: 0,
            tv_usec: 0,
        },
        it_value: libc::timeval {
            tv_sec: libc::time_t::try_from(after.as_secs()).unwrap_or(libc::time_t::MAX),
            tv_usec: libc::suseconds_t::from(after.subsec_micros() as i32),
        },
    };
    // SAFETY: setitimer(2) reads the itimerval given by reference, which
    // lives across the call, and is given no old-value pointer to write.
    let rc = unsafe { libc::setitimer(libc::ITIMER_REAL, &value, std::ptr::null_mut()) };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}
