//! `http --target … --profile`: the target's server sampled with perf during each load run
//! (`jsoncost_conductor::profile`), its profile put on the run's row, its flamegraph named for
//! the file written beside results.json. A profile that cannot be taken is said on stderr, the
//! load's row is kept, and the experiment ends with the first such error once everything is
//! written.

use std::cell::RefCell;

use jsoncost_conductor::profile::{ProfileError, ProfileSettings, Recording, Window, now_ns};
use jsoncost_engine::error::Error;
use jsoncost_engine::profile::ServerProfile;
use jsoncost_http::loadgen::LoadReport;

/// The server profiled under each load run, and the first failure to.
pub(crate) struct Profiled {
    pid: u32,
    settings: ProfileSettings,
    failure: RefCell<Option<Error>>,
    notes: RefCell<Vec<String>>,
}

/// A load run's recording under way: perf sampling, and where the load's window and the
/// server's CPU time started.
pub(crate) struct Running {
    recording: Recording,
    start_ns: u64,
    cpu_ns: Option<u64>,
}

/// A profile's error as jsoncost's: a process that is not there is the user's input; perf,
/// rights and binaries are the environment's.
fn error(e: ProfileError) -> Error {
    match e {
        ProfileError::Process(m) => Error::usage(m),
        other => Error::environment(other.to_string()),
    }
}

/// The flamegraph's file name for a row: `flamegraph-<table>-<method>.svg`, every character
/// that is not alphanumeric, `-` or `.` as `-`.
pub fn flamegraph_file(table: &str, method: &str) -> String {
    let clean = |s: &str| -> String {
        s.chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '.' { c } else { '-' })
            .collect()
    };
    format!("flamegraph-{}-{}.svg", clean(table), clean(method))
}

impl Profiled {
    pub(crate) fn new(pid: u32, settings: ProfileSettings) -> Profiled {
        Profiled {
            pid,
            settings,
            failure: RefCell::new(None),
            notes: RefCell::new(Vec::new()),
        }
    }

    fn fail(&self, table: &str, e: ProfileError) {
        self.notes.borrow_mut().push(format!("http: {table}: not profiled: {e}"));
        self.failure.borrow_mut().get_or_insert(error(e));
    }

    /// Starts sampling before `table`'s load; `None` (said, and kept as the outcome) when perf
    /// cannot.
    pub(crate) fn start(&self, table: &str) -> Option<Running> {
        match Recording::start(self.pid, &self.settings) {
            Ok(recording) => Some(Running {
                recording,
                start_ns: now_ns(),
                cpu_ns: jsoncost_engine::cpu_time::process_cpu_ns(self.pid),
            }),
            Err(e) => {
                self.fail(table, e);
                None
            }
        }
    }

    /// Stops sampling after the load `report` of `table`'s row `method`: its profile.
    pub(crate) fn finish(&self, running: Running, table: &str, method: &str, report: &LoadReport) -> Option<ServerProfile> {
        let window = Window {
            start_ns: running.start_ns,
            end_ns: now_ns(),
        };
        let cpu = jsoncost_engine::cpu_time::process_cpu_ns(self.pid)
            .zip(running.cpu_ns)
            .map(|(end, start)| end.saturating_sub(start));
        let slice_ns = self.settings.slice.as_nanos().max(1) as u64;
        match running.recording.finish(&[window], slice_ns, report.ok, cpu) {
            Ok(mut profile) => {
                profile.flamegraph = Some(flamegraph_file(table, method));
                Some(profile)
            }
            Err(e) => {
                self.fail(table, e);
                None
            }
        }
    }

    /// The notes gathered so far, for stderr.
    pub(crate) fn take_notes(&self) -> Vec<String> {
        std::mem::take(&mut *self.notes.borrow_mut())
    }

    /// The first failure to profile, once everything is written.
    pub(crate) fn outcome(&self) -> Result<(), Error> {
        match self.failure.borrow_mut().take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flamegraphs_file_is_named_by_its_table_and_row() {
        assert_eq!(
            flamegraph_file("target/n5000-c100", "target"),
            "flamegraph-target-n5000-c100-target.svg"
        );
        assert_eq!(flamegraph_file("GET /items/1", "new"), "flamegraph-GET--items-1-new.svg");
    }
}
