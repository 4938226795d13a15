//! A program in a lockstep (`engine::lockstep`), with the test as its conductor: the round
//! count is the conductor's, not the table's stop rules, and every timed iteration asks for
//! its turn. Its own binary, because the membership is the process's.

use jsoncost_engine::lockstep::{self, Ask, Grant};
use jsoncost_engine::{Config, Lineup, Stage, measure, measure_interleaved};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixListener;
use std::sync::mpsc;
use std::time::Duration;

struct Three;

impl Lineup for Three {
    type Error = ();
    fn len(&self) -> usize {
        3
    }
    fn op(&mut self, i: usize, _stage: Stage) -> Result<(), ()> {
        std::hint::black_box(i * 2);
        Ok(())
    }
}

#[test]
fn the_conductor_sets_the_rounds_and_every_timed_iteration_takes_its_turn() {
    let socket = std::env::temp_dir().join(format!("jsoncost-lockstep-test-{}.sock", std::process::id()));
    let _ = std::fs::remove_file(&socket);
    let listener = UnixListener::bind(&socket).unwrap();
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
    // SAFETY: this binary's only test sets it before any thread reads the environment.
    unsafe { std::env::set_var(lockstep::ENV, &socket) };
    let config = Config {
        iteration_time: Duration::from_micros(50),
        min_iterations: 3,
        max_iterations: 3,
        alloc_ops: 5,
        ..Config::full()
    };
    let out = measure_interleaved(&config, &mut Three);
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
    let m = measure(&config, || std::hint::black_box(1 + 1));
    assert_eq!(m.all_samples_ns.len(), 3);
    let asks: Vec<Ask> = rx.try_iter().collect();
    assert_eq!(asks, [Ask::Turn; 4]);
    let _ = std::fs::remove_file(&socket);
}
