//! Children that die with the process that started them: a conductor killed by SIGKILL (no
//! handler runs) must not leave `ab`'s programs, `alloc`'s, `ab --http`'s servers or the
//! safety children running.

use std::os::unix::process::CommandExt;
use std::process::Command;

/// Makes `command`'s child get SIGKILL when this thread's process goes away
/// (`PR_SET_PDEATHSIG`), and fail to start if it already has (the parent may die between
/// `fork` and the `prctl`, so `getppid()` is checked after it against this process's pid, as
/// prctl(2) advises). SIGXFSZ is set back to its default in the child.
///
/// The kernel sends the signal when the *thread* that forked exits, not only the process:
/// call this only for children started by a thread that outlives them (the conductor's).
pub fn die_with_parent(command: &mut Command) -> &mut Command {
    // SAFETY: getpid has no preconditions.
    let parent = unsafe { libc::getpid() };
    // SAFETY: prctl and getppid are async-signal-safe system calls; nothing shared is touched.
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if libc::getppid() != parent {
                return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
            }
            // An ignored signal stays ignored across exec: the jsoncost binary ignores
            // SIGXFSZ (to report EFBIG), the programs it runs get the default.
            libc::signal(libc::SIGXFSZ, libc::SIG_DFL);
            Ok(())
        })
    }
}
