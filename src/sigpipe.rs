//! A command whose reader goes away (`mediaops collectors list | head`)
//! ends the way standard Unix tools do: killed by SIGPIPE, quietly, instead
//! of `println!` panicking with "Broken pipe". Rust ignores SIGPIPE by
//! default; the commands that print restore the default action. The
//! servers keep ignoring it (their sockets report EPIPE as an error).

/// Restores SIGPIPE's default action (terminate) for this process.
pub fn exit_quietly_when_stdout_closes() {
    // SAFETY: called once at start-up, before any other thread could be
    // changing signal handlers; `signal` with SIG_DFL has no other effect.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
