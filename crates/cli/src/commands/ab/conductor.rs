//! The conductor of one `ab` run: starts both programs at once, each told its own Unix socket
//! in `engine::lockstep::ENV`, and hands the turn back and forth so that only one of them
//! works at any moment (the protocol is `engine::lockstep`'s).
//!
//! The rule: the turn is given only when every program still running is waiting for it, so a
//! program that never joins (a build older than the lockstep, a script) runs alone to its end
//! while the other waits at its first ask. Between two that joined, the k-th grant of one is
//! paired with the k-th of the other, in ABBA order (pair 0 base first, pair 1 new first, ...)
//! so neither side always runs right after the other's iteration.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus};
use std::sync::mpsc;
use std::time::Duration;

use jsoncost_engine::lockstep::{Ask, Grant};

/// Base is side 0, new side 1.
pub const SIDES: [&str; 2] = ["base", "new"];

/// Which side gets the next turn when both wait, given the grants so far: the side behind,
/// or on a tie, base for even pairs and new for odd ones (`first` swaps that, for the runs
/// that start with new).
pub fn abba_next(granted: [u64; 2], first: usize) -> usize {
    match granted[0].cmp(&granted[1]) {
        std::cmp::Ordering::Less => 0,
        std::cmp::Ordering::Greater => 1,
        std::cmp::Ordering::Equal => ((granted[0] % 2) as usize + first) % 2,
    }
}

enum Event {
    Joined(usize, UnixStream),
    Asked(usize, Ask),
    /// The program closed its socket (or wrote something that is not an ask).
    Left(usize),
}

#[derive(Default)]
struct Member {
    writer: Option<UnixStream>,
    joined: bool,
    left: bool,
    waiting: Option<Ask>,
    status: Option<ExitStatus>,
    granted: u64,
}

impl Member {
    /// Out of the lockstep: exited, or joined and then left.
    fn out(&self) -> bool {
        self.status.is_some() || (self.joined && self.left)
    }
}

/// What one run of both programs gave.
pub struct Conducted {
    pub status: [ExitStatus; 2],
    /// Each program joined the lockstep.
    pub joined: [bool; 2],
    /// Every grant in order: side, what it asked, what it was told.
    pub log: Vec<(usize, Ask, Grant)>,
}

/// Listens for side `side` on `path` (the socket file is removed first, in case).
pub fn listen(path: &Path) -> std::io::Result<UnixListener> {
    let _ = std::fs::remove_file(path);
    UnixListener::bind(path)
}

fn serve(side: usize, listener: UnixListener, events: mpsc::Sender<Event>) {
    let Ok((stream, _)) = listener.accept() else {
        let _ = events.send(Event::Left(side));
        return;
    };
    // One member per side: a later connection (a child process that inherited the variable)
    // is refused at once rather than left waiting for a turn that never comes.
    drop(listener);
    let Ok(writer) = stream.try_clone() else {
        let _ = events.send(Event::Left(side));
        return;
    };
    if events.send(Event::Joined(side, writer)).is_err() {
        return;
    }
    for line in BufReader::new(stream).lines() {
        let Some(ask) = line.ok().as_deref().and_then(Ask::parse) else {
            break;
        };
        if events.send(Event::Asked(side, ask)).is_err() {
            return;
        }
    }
    let _ = events.send(Event::Left(side));
}

/// Conducts `children` (base, new) through their lockstep until both have exited. `rounds` is
/// every interleaved table's round count; `first` the side that leads the first pair. When one
/// program fails (a non-zero exit), the other is killed: the run is lost anyway.
pub fn conduct(
    mut children: [Child; 2],
    listeners: [(UnixListener, PathBuf); 2],
    rounds: u64,
    first: usize,
    interrupted: impl Fn() -> bool,
) -> std::io::Result<Conducted> {
    let (tx, rx) = mpsc::channel();
    let mut paths = Vec::new();
    for (side, (listener, path)) in listeners.into_iter().enumerate() {
        let tx = tx.clone();
        std::thread::spawn(move || serve(side, listener, tx));
        paths.push(path);
    }
    drop(tx);
    let mut members: [Member; 2] = Default::default();
    let mut holder: Option<usize> = None;
    let mut log = Vec::new();
    let mut released = false;
    loop {
        match rx.recv_timeout(Duration::from_millis(20)) {
            // After its exit a side's "join" is only our own wake-up call to its accept().
            Ok(Event::Joined(side, _)) if members[side].status.is_some() => {}
            Ok(Event::Joined(side, w)) => {
                members[side].writer = Some(w);
                members[side].joined = true;
            }
            Ok(Event::Asked(side, ask)) => {
                members[side].waiting = Some(ask);
                if holder == Some(side) {
                    holder = None;
                }
            }
            Ok(Event::Left(side)) => {
                let m = &mut members[side];
                (m.left, m.waiting, m.writer) = (true, None, None);
                if holder == Some(side) {
                    holder = None;
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout | mpsc::RecvTimeoutError::Disconnected) => {}
        }
        for side in 0..2 {
            if members[side].status.is_none()
                && let Some(status) = children[side].try_wait()?
            {
                members[side].status = Some(status);
                if holder == Some(side) {
                    holder = None;
                }
                if !members[side].joined {
                    // Wakes the thread still waiting in accept(), so it ends.
                    let _ = UnixStream::connect(&paths[side]);
                }
                if !status.success() && members[1 - side].status.is_none() {
                    let _ = children[1 - side].kill();
                }
            }
        }
        if members.iter().all(|m| m.status.is_some()) {
            break;
        }
        if interrupted() {
            if !released {
                // Passes the signal on (a terminal sends it to the group anyway) and lets go of
                // both programs: a closed socket ends their lockstep, so one waiting for its
                // turn goes on alone, sees the signal and stops. Their codes are then reported.
                released = true;
                for (child, m) in children.iter().zip(&mut members) {
                    if m.status.is_none() {
                        // SAFETY: kill(2) on our own child's pid, which it still is (not reaped).
                        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
                    }
                    if let Some(w) = m.writer.take() {
                        let _ = w.shutdown(std::net::Shutdown::Both);
                    }
                }
            }
            continue;
        }
        let waiting = |m: &Member| m.waiting.is_some() && m.status.is_none();
        if holder.is_none() && members.iter().all(|m| waiting(m) || m.out()) && members.iter().any(waiting) {
            let mut side = abba_next([members[0].granted, members[1].granted], first);
            if !waiting(&members[side]) {
                side = 1 - side;
            }
            let m = &mut members[side];
            let ask = m.waiting.take().expect("a waiting member");
            let grant = match ask {
                Ask::Round(k) if k >= rounds => Grant::End,
                _ => Grant::Go,
            };
            let sent = m.writer.as_mut().is_some_and(|w| w.write_all(grant.line().as_bytes()).is_ok());
            if sent {
                m.granted += 1;
                holder = Some(side);
                log.push((side, ask, grant));
            } else {
                (m.left, m.writer) = (true, None);
            }
        }
    }
    for p in &paths {
        let _ = std::fs::remove_file(p);
    }
    Ok(Conducted {
        status: members.each_ref().map(|m| m.status.expect("both exited")),
        joined: members.each_ref().map(|m| m.joined),
        log,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_alternate_abba_and_the_side_behind_goes_next() {
        let mut granted = [0u64; 2];
        let order: String = (0..8)
            .map(|_| {
                let s = abba_next(granted, 0);
                granted[s] += 1;
                ['A', 'B'][s]
            })
            .collect();
        assert_eq!(order, "ABBAABBA");
        assert_eq!(abba_next([0, 0], 1), 1);
        assert_eq!(abba_next([5, 3], 0), 1);
    }

    #[test]
    fn a_side_takes_one_member_and_a_later_connection_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.sock");
        let listener = listen(&path).unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || serve(0, listener, tx));
        let mut first = UnixStream::connect(&path).unwrap();
        assert!(matches!(rx.recv_timeout(Duration::from_secs(10)), Ok(Event::Joined(0, _))));
        first.write_all(Ask::Round(2).line().as_bytes()).unwrap();
        assert!(matches!(
            rx.recv_timeout(Duration::from_secs(10)),
            Ok(Event::Asked(0, Ask::Round(2)))
        ));
        let e = UnixStream::connect(&path).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::ConnectionRefused, "{e}");
        drop(first);
        assert!(matches!(rx.recv_timeout(Duration::from_secs(10)), Ok(Event::Left(0))));
    }
}
