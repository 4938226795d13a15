//! Where the engine reads time: the system's monotonic clock, a test's own, or, for whole runs,
//! the system clock less the measuring thread's run-queue wait.
//!
//! Why whole runs leave the wait out: a whole run (the stream's 72 MB body) lasts a fifth of a
//! second. On a machine another program keeps busy, the measuring thread spends part of each
//! run ready to go while the other program holds its CPU, and that part changes from run to run
//! with the other program's own phases: timed by the wall clock with a `cargo build --release`
//! beside it, 21–24 rounds leave a run's paired incremental/buffered interval at ±5–35%, and
//! five consecutive runs' ratios lie up to ±12.7% from their median. The kernel counts that wait per thread
//! (`/proc/thread-self/schedstat`'s `run_delay`, read with the `procfs` crate: nanoseconds
//! spent runnable on a run queue, kept with `CONFIG_SCHED_INFO`, which every distribution
//! kernel has), so a whole run is timed as its wall time less the wait: what the strategy took,
//! not what the machine's other tenant took from it. What the other program costs the run in
//! caches is not subtracted, nor is the wait of a thread the operation hands work to (the
//! `incremental-async` rows' blocking reader waits for a CPU while the measuring thread
//! sleeps). On an idle machine the wait is a sliver (0.03% of a quiet `stream --quick`
//! table's rounds) and both clocks agree.

use std::cell::Cell;
use std::time::{Duration, Instant};

use procfs::FromRead;

use crate::model::RunQueueWait;

/// The calling thread's run-queue wait so far, or `None` where the kernel does not count it
/// (not Linux, or a kernel without `CONFIG_SCHED_INFO`).
pub fn thread_run_queue_wait() -> Option<Duration> {
    let stat = procfs::process::Schedstat::from_file("/proc/thread-self/schedstat").ok()?;
    Some(Duration::from_nanos(stat.run_delay))
}

/// Where the engine reads time: the system's monotonic clock, that clock less the run-queue
/// wait ([`LessRunQueueWait`]), or a test's own (the drift test advances a counter to model a
/// machine that slows down).
pub trait Clock {
    /// Time since an arbitrary origin.
    fn now(&self) -> Duration;
}

/// The monotonic system clock ([`Instant`]).
pub struct SystemClock(Instant);

impl Default for SystemClock {
    fn default() -> Self {
        SystemClock(Instant::now())
    }
}

impl Clock for SystemClock {
    fn now(&self) -> Duration {
        self.0.elapsed()
    }
}

/// A [`Clock`] that reads wall time less the measuring thread's run-queue wait since it was
/// made. It must be read on the thread it was made on (the engine's measuring thread).
pub struct LessRunQueueWait<C: Clock = SystemClock> {
    wall: C,
    read_wait: Box<dyn Fn() -> Option<Duration>>,
    first_wall: Duration,
    first_wait: Duration,
    /// Wall time and wait at the last reading, for [`LessRunQueueWait::totals`].
    last: Cell<(Duration, Duration)>,
}

impl LessRunQueueWait {
    /// The system clock less this thread's wait; `None` where the kernel does not count it.
    pub fn for_this_thread() -> Option<Self> {
        LessRunQueueWait::over(SystemClock::default(), Box::new(thread_run_queue_wait))
    }
}

impl<C: Clock> LessRunQueueWait<C> {
    /// `wall` less the wait `read_wait` reports (tests give both); `None` when it reports none.
    pub fn over(wall: C, read_wait: Box<dyn Fn() -> Option<Duration>>) -> Option<Self> {
        let (first_wall, first_wait) = snapshot(&wall, &*read_wait)?;
        Some(LessRunQueueWait {
            wall,
            read_wait,
            first_wall,
            first_wait,
            last: Cell::new((first_wall, first_wait)),
        })
    }

    /// The wall time and the wait from the clock's making to its last reading.
    pub fn totals(&self) -> RunQueueWait {
        let (wall, wait) = self.last.get();
        RunQueueWait {
            wall_ns: wall.saturating_sub(self.first_wall).as_nanos() as f64,
            waited_ns: wait.saturating_sub(self.first_wait).as_nanos() as f64,
        }
    }
}

/// How many times [`snapshot`] tries for a wall reading with no switch around it.
const SNAPSHOT_TRIES: usize = 4;

/// The wall clock and the wait read as of one instant: the wait is read on both sides of the
/// wall reading, and the reading is taken again when the two differ (the thread waited for a
/// CPU in between, and the wall reading may or may not include that wait). Should every try
/// see a switch (four switches within microseconds), the wait from before the wall reading is
/// used, off by at most the last switch's wait. `None` when the wait cannot be read.
fn snapshot<C: Clock>(wall: &C, read_wait: &dyn Fn() -> Option<Duration>) -> Option<(Duration, Duration)> {
    let mut reading = None;
    for _ in 0..SNAPSHOT_TRIES {
        let before = read_wait()?;
        let at = wall.now();
        let after = read_wait()?;
        if before == after {
            return Some((at, after));
        }
        reading = Some((at, before));
    }
    reading
}

impl<C: Clock> Clock for LessRunQueueWait<C> {
    fn now(&self) -> Duration {
        let (wall, wait) = match snapshot(&self.wall, &*self.read_wait) {
            Some(reading) => reading,
            // A failed read keeps the last wait, so the clock still moves with the wall clock.
            None => (self.wall.now(), self.last.get().1),
        };
        self.last.set((wall, wait));
        wall.saturating_sub(wait.saturating_sub(self.first_wait))
    }
}

/// The engine's tests' clock: it reads the nanoseconds a test sets (the scheduler's tests
/// advance it as fake strategies work).
#[cfg(test)]
#[derive(Clone, Default)]
pub(crate) struct FakeClock(pub(crate) std::rc::Rc<Cell<f64>>);

#[cfg(test)]
impl FakeClock {
    /// Sets the time to `d`.
    pub(crate) fn set(&self, d: Duration) {
        self.0.set(d.as_nanos() as f64);
    }
}

#[cfg(test)]
impl Clock for FakeClock {
    fn now(&self) -> Duration {
        Duration::from_nanos(self.0.get() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn the_clock_reads_wall_time_less_the_wait_since_it_was_made() {
        let (wall, wait) = (FakeClock::default(), FakeClock::default());
        wall.set(ms(1000));
        wait.set(ms(300));
        let w = wait.clone();
        let clock = LessRunQueueWait::over(wall.clone(), Box::new(move || Some(w.now()))).unwrap();
        let start = clock.now();
        // A run of 200 ms of wall time, 80 ms of it waiting for a CPU: it took 120 ms.
        wall.set(ms(1200));
        wait.set(ms(380));
        assert_eq!(clock.now() - start, ms(120));
        // An idle machine: no wait, wall time as it is.
        wall.set(ms(1300));
        assert_eq!(clock.now() - start, ms(220));
        assert_eq!(
            clock.totals(),
            RunQueueWait {
                wall_ns: 300e6,
                waited_ns: 80e6
            }
        );
        assert_eq!(clock.totals().share(), 80.0 / 300.0);
    }

    #[test]
    fn a_kernel_that_counts_no_wait_gives_no_clock_and_a_failed_read_keeps_the_last_wait() {
        assert!(LessRunQueueWait::over(FakeClock::default(), Box::new(|| None)).is_none());
        let (wall, answers) = (FakeClock::default(), Rc::new(Cell::new(Some(ms(5)))));
        let a = answers.clone();
        let clock = LessRunQueueWait::over(wall.clone(), Box::new(move || a.get())).unwrap();
        answers.set(Some(ms(15)));
        wall.set(ms(100));
        assert_eq!(clock.now(), ms(90));
        answers.set(None);
        wall.set(ms(150));
        assert_eq!(clock.now(), ms(140));
    }

    /// A machine where every reading takes a microsecond of running and the thread is taken
    /// off its CPU for `preempted` right after reading number `after` (wall and wait readings
    /// counted together): both clocks move on by the wait, as the kernel's do.
    #[derive(Default)]
    struct Machine {
        wall: Duration,
        wait: Duration,
        readings: u32,
        preemption: Option<(u32, Duration)>,
    }

    impl Machine {
        fn read(&mut self, wall: bool) -> Duration {
            self.wall += Duration::from_micros(1);
            let value = if wall { self.wall } else { self.wait };
            self.readings += 1;
            if let Some((after, preempted)) = self.preemption
                && after == self.readings
            {
                self.wall += preempted;
                self.wait += preempted;
            }
            value
        }
    }

    struct MachineWall(Rc<std::cell::RefCell<Machine>>);

    impl Clock for MachineWall {
        fn now(&self) -> Duration {
            self.0.borrow_mut().read(true)
        }
    }

    #[test]
    fn a_preemption_between_the_wall_and_the_wait_readings_is_not_taken_off_the_run() {
        // Whichever reading of the end of a 1 ms run the thread is preempted after, the run
        // still took its millisecond (and the microseconds of the readings), never less: a
        // wait counted that the wall reading did not see would make short runs zero or
        // negative, and their paired ratios undefined.
        for after in 0..12 {
            let machine = Rc::new(std::cell::RefCell::new(Machine::default()));
            let m = machine.clone();
            let clock = LessRunQueueWait::over(MachineWall(machine.clone()), Box::new(move || Some(m.borrow_mut().read(false)))).unwrap();
            let start = clock.now();
            let mut world = machine.borrow_mut();
            world.wall += ms(1);
            world.preemption = Some((world.readings + after, ms(5)));
            drop(world);
            let took = clock.now().checked_sub(start).expect("the clock went backwards");
            assert!(
                (ms(1)..ms(1) + Duration::from_micros(20)).contains(&took),
                "preempted after reading {after} of the end: {took:?}"
            );
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_kernel_counts_the_run_queue_wait_of_the_calling_thread() {
        // CI and the reference machines run Linux kernels with CONFIG_SCHED_INFO; a kernel
        // without it would leave whole runs on the wall clock, which this test would flag.
        let first = thread_run_queue_wait().expect("/proc/thread-self/schedstat is readable");
        assert!(thread_run_queue_wait().unwrap() >= first);
    }
}
