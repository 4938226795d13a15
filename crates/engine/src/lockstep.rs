//! Lockstep with another program, for `jsoncost ab`: two builds run at once, but only one of
//! them works at any moment, and they take turns before every timed iteration. The base
//! build's iteration of strategy *s* in round *k* and the new build's are then milliseconds
//! apart, so a change of the machine's speed (this VM switches between two speeds ~1.8× apart
//! for seconds at a time) lands on both sides of the pair instead of on one whole run.
//!
//! The conductor (`jsoncost ab`) listens on one Unix socket per program and names it in the
//! [`ENV`] variable. A program that finds the variable connects on its first turn, which a
//! command takes before any work (jsoncost's `Output::new`, where every command and bench
//! starts: a stream body's check is seconds of it); from then on
//! it works only between a [`Grant`] and its next [`Ask`] (it holds the turn through untimed
//! work too: gates, pilots, Allocation passes), so the two never run at the same time. The
//! conductor also fixes how many interleaved rounds a table runs ([`Ask::Round`]), so the two
//! programs' rows pair round by round.
//!
//! Without the variable every call is a no-op. If the conductor goes away (the socket breaks),
//! the program leaves the lockstep and finishes on its own.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::{Mutex, OnceLock};

/// The environment variable naming the conductor's socket.
pub const ENV: &str = "JSONCOST_LOCKSTEP";

/// What a program asks the conductor for; one line on the socket.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ask {
    /// The turn, before a timed iteration.
    Turn,
    /// The turn, before round `k` (from 0) of an interleaved table: the grant says whether to
    /// run it.
    Round(u64),
}

/// The conductor's answer: the program may work until its next ask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grant {
    /// Work until the next ask.
    Go,
    /// Round asked for is past the conductor's round count: the table's rounds end here.
    End,
}

impl Ask {
    /// The ask as sent on the socket, newline-terminated (`turn`, `round K`).
    pub fn line(self) -> String {
        match self {
            Ask::Turn => "turn\n".to_string(),
            Ask::Round(k) => format!("round {k}\n"),
        }
    }

    /// Reads an ask line; `None` when it is not one.
    pub fn parse(line: &str) -> Option<Ask> {
        match line.trim_end().split_once(' ') {
            None if line.trim_end() == "turn" => Some(Ask::Turn),
            Some(("round", k)) => k.parse().ok().map(Ask::Round),
            _ => None,
        }
    }
}

impl Grant {
    /// The grant as sent on the socket, newline-terminated (`go`, `end`).
    pub fn line(self) -> &'static str {
        match self {
            Grant::Go => "go\n",
            Grant::End => "end\n",
        }
    }

    /// Reads a grant line; `None` when it is not one.
    pub fn parse(line: &str) -> Option<Grant> {
        match line.trim_end() {
            "go" => Some(Grant::Go),
            "end" => Some(Grant::End),
            _ => None,
        }
    }
}

/// One program's connection to the conductor.
pub struct Member {
    reader: BufReader<UnixStream>,
    writer: UnixStream,
}

impl Member {
    /// Connects to the conductor's socket at `path`.
    pub fn connect(path: &Path) -> std::io::Result<Member> {
        Member::over(UnixStream::connect(path)?)
    }

    /// A member over an already connected socket.
    pub fn over(stream: UnixStream) -> std::io::Result<Member> {
        Ok(Member {
            reader: BufReader::new(stream.try_clone()?),
            writer: stream,
        })
    }

    /// Sends `ask` and blocks until the conductor grants the turn.
    pub fn ask(&mut self, ask: Ask) -> std::io::Result<Grant> {
        self.writer.write_all(ask.line().as_bytes())?;
        let mut line = String::new();
        if self.reader.read_line(&mut line)? == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the conductor closed the lockstep",
            ));
        }
        Grant::parse(&line).ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidData, format!("not a lockstep grant: {line:?}")))
    }
}

/// The process's membership: `None` outside `jsoncost ab`, or after the conductor went away.
fn member() -> &'static Mutex<Option<Member>> {
    static MEMBER: OnceLock<Mutex<Option<Member>>> = OnceLock::new();
    MEMBER.get_or_init(|| {
        let joined = std::env::var_os(ENV).and_then(|path| match Member::connect(Path::new(&path)) {
            Ok(m) => Some(m),
            Err(e) => {
                eprintln!(
                    "warning: cannot join the lockstep at {}: {e}; measuring alone",
                    Path::new(&path).display()
                );
                None
            }
        });
        Mutex::new(joined)
    })
}

/// Asks the conductor, if there is one: `None` when this process is not in a lockstep.
fn ask(what: Ask) -> Option<Grant> {
    let mut guard = member().lock().unwrap_or_else(|p| p.into_inner());
    let m = guard.as_mut()?;
    match m.ask(what) {
        Ok(g) => Some(g),
        Err(e) => {
            eprintln!("warning: the lockstep ended ({e}); measuring alone");
            *guard = None;
            None
        }
    }
}

/// Waits for the turn before a timed iteration (returns at once outside a lockstep).
pub fn turn() {
    ask(Ask::Turn);
}

/// Before round `k` of an interleaved table: `Some(true)` run it, `Some(false)` the rounds end
/// here, `None` not in a lockstep (the table's own stop rules decide).
pub fn round(k: u64) -> Option<bool> {
    ask(Ask::Round(k)).map(|g| g == Grant::Go)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asks_and_grants_round_trip_and_junk_is_refused() {
        for a in [Ask::Turn, Ask::Round(0), Ask::Round(41)] {
            assert_eq!(Ask::parse(&a.line()), Some(a));
        }
        for g in [Grant::Go, Grant::End] {
            assert_eq!(Grant::parse(g.line()), Some(g));
        }
        assert_eq!(Ask::parse("round x\n"), None);
        assert_eq!(Ask::parse("turns\n"), None);
        assert_eq!(Grant::parse("ok\n"), None);
    }

    #[test]
    fn a_member_blocks_until_granted_and_reports_a_closed_conductor() {
        let (ours, theirs) = UnixStream::pair().unwrap();
        let conductor = std::thread::spawn(move || {
            let mut r = BufReader::new(theirs.try_clone().unwrap());
            let mut w = theirs;
            let mut seen = Vec::new();
            for grant in [Grant::Go, Grant::End] {
                let mut line = String::new();
                r.read_line(&mut line).unwrap();
                seen.push(Ask::parse(&line).unwrap());
                w.write_all(grant.line().as_bytes()).unwrap();
            }
            seen
        });
        let mut m = Member::over(ours).unwrap();
        assert_eq!(m.ask(Ask::Turn).unwrap(), Grant::Go);
        assert_eq!(m.ask(Ask::Round(3)).unwrap(), Grant::End);
        assert_eq!(conductor.join().unwrap(), [Ask::Turn, Ask::Round(3)]);
        let e = m.ask(Ask::Turn).unwrap_err();
        assert!(
            matches!(e.kind(), std::io::ErrorKind::UnexpectedEof | std::io::ErrorKind::BrokenPipe),
            "{e}"
        );
    }
}
