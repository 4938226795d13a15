//! Lockstep with another program, for `jsoncost ab`: two builds run at once, but only one of
//! them works at any moment, and they take turns before every timed iteration. The base
//! build's iteration of strategy *s* in round *k* and the new build's are then milliseconds
//! apart, so a change of the machine's speed (this VM switches between two speeds ~1.8× apart
//! for seconds at a time) lands on both sides of the pair instead of on one whole run.
//!
//! The conductor (`jsoncost ab`) listens on one Unix socket per program and names it in the
//! [`ENV`] variable. The program's edge (the `jsoncost` binary, a bench harness's start) reads
//! the variable once into a [`Lockstep`], the hook it hands the engine in its
//! [`MeasureConfig`](crate::MeasureConfig) (as it hands it a clock) and the load generator in its slice
//! spec; nothing below the edge reads the environment. The hook connects on its first turn,
//! which a command takes before any work (jsoncost's `Output::new`, where every command and
//! bench starts: a stream body's check is seconds of it); from then on
//! it works only between a [`Grant`] and its next [`Ask`] (it holds the turn through untimed
//! work too: gates, pilots, Allocation passes), so the two never run at the same time. The
//! conductor also fixes how many interleaved rounds a table runs ([`Ask::Round`]), so the two
//! programs' rows pair round by round.
//!
//! Without a conductor ([`Lockstep::alone`], the default) every call is a no-op. If the
//! conductor goes away (the socket breaks), the program leaves the lockstep and finishes on its
//! own.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

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

/// The turns a program takes with a conductor: a hook of the engine's [`MeasureConfig`](crate::MeasureConfig)
/// and of the load generator's slices. Clones share one membership (one connection per
/// program). [`Lockstep::alone`] (the default) takes no turns.
#[derive(Clone, Default)]
pub struct Lockstep(Option<Arc<Mutex<Membership>>>);

/// Where a program stands with its conductor.
enum Membership {
    /// Told the conductor's socket; connects on the first ask.
    Told(PathBuf),
    /// Connected.
    Joined(Member),
    /// Could not join, or the conductor went away: measuring alone from now on.
    Left,
}

impl Lockstep {
    /// No conductor: every turn is granted at once.
    pub fn alone() -> Self {
        Lockstep(None)
    }

    /// The conductor at `socket`, joined on the first turn (a connection that fails then is
    /// warned of, and the program measures alone).
    pub fn at(socket: impl Into<PathBuf>) -> Self {
        Lockstep(Some(Arc::new(Mutex::new(Membership::Told(socket.into())))))
    }

    /// A conductor already connected (a test's end of a socket pair).
    pub fn over(member: Member) -> Self {
        Lockstep(Some(Arc::new(Mutex::new(Membership::Joined(member)))))
    }

    /// The conductor [`ENV`] names, if it names one: read once, at the program's edge (the
    /// binary's command, a bench harness's start), never below it.
    pub fn from_env() -> Self {
        std::env::var_os(ENV).map_or_else(Lockstep::alone, Lockstep::at)
    }

    /// Whether a conductor was named (joined or not yet).
    pub fn is_conducted(&self) -> bool {
        self.0.is_some()
    }

    /// Asks the conductor, if there is one: `None` when this program is not in a lockstep.
    fn ask(&self, what: Ask) -> Option<Grant> {
        let mut guard = self.0.as_ref()?.lock().unwrap_or_else(|p| p.into_inner());
        if let Membership::Told(path) = &*guard {
            *guard = match Member::connect(path) {
                Ok(m) => Membership::Joined(m),
                Err(e) => {
                    eprintln!("warning: cannot join the lockstep at {}: {e}; measuring alone", path.display());
                    Membership::Left
                }
            };
        }
        let Membership::Joined(m) = &mut *guard else {
            return None;
        };
        match m.ask(what) {
            Ok(g) => Some(g),
            Err(e) => {
                eprintln!("warning: the lockstep ended ({e}); measuring alone");
                *guard = Membership::Left;
                None
            }
        }
    }

    /// Waits for the turn before a timed iteration (returns at once outside a lockstep).
    pub fn turn(&self) {
        self.ask(Ask::Turn);
    }

    /// Before round `k` of an interleaved table: `Some(true)` run it, `Some(false)` the rounds
    /// end here, `None` not in a lockstep (the table's own stop rules decide).
    pub fn round(&self, k: u64) -> Option<bool> {
        self.ask(Ask::Round(k)).map(|g| g == Grant::Go)
    }
}

impl std::fmt::Debug for Lockstep {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.is_conducted() {
            "Lockstep(conducted)"
        } else {
            "Lockstep(alone)"
        })
    }
}

/// Two hooks are the same when both are alone or they share one membership.
impl PartialEq for Lockstep {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
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

    struct Three;

    impl crate::Lineup for Three {
        type Error = ();
        fn len(&self) -> usize {
            3
        }
        fn op(&mut self, i: usize, _stage: crate::Stage) -> Result<(), ()> {
            std::hint::black_box(i * 2);
            Ok(())
        }
    }

    /// A program in a lockstep, with the test as its conductor: the round count is the
    /// conductor's, not the table's stop rules, and every timed iteration asks for its turn.
    /// The hook joins on its first turn, not before; a config without one asks nothing.
    #[test]
    fn the_conductor_sets_the_rounds_and_every_timed_iteration_takes_its_turn() {
        use std::os::unix::net::UnixListener;
        use std::sync::mpsc;
        use std::time::Duration;
        let socket = std::env::temp_dir().join(format!("jsoncost-lockstep-test-{}.sock", std::process::id()));
        let _ = std::fs::remove_file(&socket);
        let listener = UnixListener::bind(&socket).unwrap();
        let lockstep = Lockstep::at(&socket);
        // Nothing connects until the first turn.
        listener.set_nonblocking(true).unwrap();
        assert_eq!(listener.accept().unwrap_err().kind(), std::io::ErrorKind::WouldBlock);
        listener.set_nonblocking(false).unwrap();
        let (tx, rx) = mpsc::channel();
        // Grants every ask; round 7 and later end the table's rounds.
        std::thread::spawn(move || {
            let (stream, _) = listener.accept().unwrap();
            let mut w = stream.try_clone().unwrap();
            for line in BufReader::new(stream).lines() {
                let ask = Ask::parse(&line.unwrap()).unwrap();
                let grant = match ask {
                    Ask::Round(k) if k >= 7 => Grant::End,
                    _ => Grant::Go,
                };
                // Recorded before it is granted, so the test sees every ask once its call returns.
                tx.send(ask).unwrap();
                w.write_all(grant.line().as_bytes()).unwrap();
            }
        });
        let alone = crate::MeasureConfig {
            iteration_time: Duration::from_micros(50),
            min_iterations: 3,
            max_iterations: 3,
            alloc_ops: 5,
            ..crate::MeasureConfig::full()
        };
        let config = crate::MeasureConfig {
            lockstep: lockstep.clone(),
            ..alone.clone()
        };
        let out = crate::measure_interleaved(&config, &mut Three);
        assert!(out.stopped.is_none());
        // Seven rounds, more than the table's own maximum of three.
        assert_eq!(out.orders.len(), 7);
        for m in &out.measurements {
            assert_eq!(m.as_ref().unwrap().rounds_ns.len(), 7);
        }
        // One turn for the pilots, then each round's.
        let mut expected = vec![Ask::Turn];
        for k in 0..7 {
            expected.extend([Ask::Round(k), Ask::Turn, Ask::Turn]);
        }
        expected.push(Ask::Round(7));
        let asks: Vec<Ask> = rx.try_iter().collect();
        assert_eq!(asks, expected);

        // One strategy on its own: a turn for its pilot and one before each Actual iteration.
        let m = crate::measure(&config, || std::hint::black_box(1 + 1));
        assert_eq!(m.all_samples_ns.len(), 3);
        let asks: Vec<Ask> = rx.try_iter().collect();
        assert_eq!(asks, [Ask::Turn; 4]);

        // The same table without the hook: its own stop rules, no ask.
        let out = crate::measure_interleaved(&alone, &mut Three);
        assert_eq!(out.orders.len(), 3);
        assert_eq!(rx.try_iter().count(), 0);
        let _ = std::fs::remove_file(&socket);
    }

    #[test]
    fn clones_share_a_membership_and_one_that_cannot_join_measures_alone() {
        assert!(!Lockstep::alone().is_conducted());
        let a = Lockstep::at("/nonexistent/jsoncost.sock");
        assert_eq!(a.clone(), a);
        assert_ne!(a, Lockstep::at("/nonexistent/jsoncost.sock"));
        assert_eq!(Lockstep::default(), Lockstep::alone());
        // A socket that cannot be joined: warned of once, then alone.
        assert_eq!(a.round(0), None);
        a.turn();
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
