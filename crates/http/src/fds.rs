//! Open files against the process's limit (`RLIMIT_NOFILE`, `ulimit -n`): a server's
//! connections and a load's are counted up front, so running out is said naming the limit
//! instead of surfacing later as failed connections ("Too many open files" on a connect, a
//! server that seems gone).

/// Descriptors kept free beyond a count: the store, the runtime's epoll and wake-up pipes, the
/// result files, a child's pipes.
pub const MARGIN: u64 = 32;

/// Too few open files for what was asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("about {needed} open files at once, over this process's limit of {limit} (ulimit -n)")]
pub struct Shortage {
    /// Open now, plus those asked for, plus [`MARGIN`].
    pub needed: u64,
    /// The limit, raised as far as the hard limit allows.
    pub limit: u64,
}

/// The soft limit on open files (`None` where it cannot be read, or is unlimited).
pub fn limit() -> Option<u64> {
    let mut rl = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut rl) } != 0 || rl.rlim_cur == libc::RLIM_INFINITY {
        return None;
    }
    Some(rl.rlim_cur)
}

/// Descriptors open now (`/proc/self/fd`, less the one reading it; 3 where it cannot be read).
pub fn open_now() -> u64 {
    std::fs::read_dir("/proc/self/fd")
        .map(|d| (d.count() as u64).saturating_sub(1))
        .unwrap_or(3)
}

/// Makes room for `more` descriptors beyond those open now: the soft limit is raised toward
/// the hard one when it is short (as Go's runtime does at start); the limit then in force, or
/// the shortage.
pub fn ensure(more: u64) -> Result<Option<u64>, Shortage> {
    let needed = open_now().saturating_add(more).saturating_add(MARGIN);
    let mut rl = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit writes the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut rl) } != 0 || rl.rlim_cur == libc::RLIM_INFINITY {
        return Ok(None);
    }
    if rl.rlim_cur < needed && rl.rlim_max > rl.rlim_cur {
        let raised = libc::rlimit {
            rlim_cur: if rl.rlim_max == libc::RLIM_INFINITY {
                needed
            } else {
                needed.min(rl.rlim_max)
            },
            rlim_max: rl.rlim_max,
        };
        // SAFETY: setrlimit reads the struct it is given; raising the soft limit up to the
        // hard one needs no privilege.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            rl.rlim_cur = raised.rlim_cur;
        }
    }
    if rl.rlim_cur < needed {
        return Err(Shortage {
            needed,
            limit: rl.rlim_cur,
        });
    }
    Ok(Some(rl.rlim_cur))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_within_the_limit_is_room() {
        assert!(ensure(1).is_ok());
    }

    #[test]
    fn a_count_past_the_hard_limit_names_both_figures() {
        let mut rl = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        // SAFETY: getrlimit writes the struct it is given.
        assert_eq!(unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut rl) }, 0);
        if rl.rlim_max == libc::RLIM_INFINITY {
            return;
        }
        let e = ensure(rl.rlim_max).unwrap_err();
        assert!(e.needed > rl.rlim_max);
        assert_eq!(e.limit, rl.rlim_max);
        assert_eq!(
            e.to_string(),
            format!(
                "about {} open files at once, over this process's limit of {} (ulimit -n)",
                e.needed, e.limit
            )
        );
    }
}
