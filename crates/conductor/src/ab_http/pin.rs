//! Where `ab --http`'s load generator and servers run. The load generator is one thread (a
//! current-thread runtime); on a machine it shares with the servers, every CPU it takes from a
//! server under load shows in that server's figures. So, where this process may run on two CPUs
//! or more, the load generator is pinned to the first of them and the servers started here
//! (`--base-cmd`/`--new-cmd`) to the rest; slices alternate, so only one server is loaded at a
//! time and both get the same CPUs. A server reached by URL is not ours: its affinity is left
//! as its owner set it (changing it would outlast the run), so it is not pinned, and neither is
//! the load generator when no server is.

use jsoncost_engine::Placement;

use crate::ab::affinity::{pin_current, set_of};

/// The CPUs of the load generator and of the servers started here, or why there are none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// Pin the load generator to `load_generator`, the servers started here to `servers`.
    Pin {
        /// The load generator's thread.
        load_generator: Vec<usize>,
        /// Every server started here (and the processes it forks).
        servers: Vec<usize>,
    },
    /// Nothing is pinned, and why.
    None(String),
}

/// `CPU 1`, `CPUs 1,2,3`.
pub fn cpus(list: &[usize]) -> String {
    let joined = list.iter().map(usize::to_string).collect::<Vec<_>>().join(",");
    if list.len() == 1 {
        format!("CPU {joined}")
    } else {
        format!("CPUs {joined}")
    }
}

/// The plan for a process allowed on `allowed` (its affinity, in any order): `pin` false is
/// `--no-pin`; `started` tells whether any server is started here.
pub fn plan(allowed: &[usize], pin: bool, started: bool) -> Plan {
    let mut allowed = allowed.to_vec();
    allowed.sort_unstable();
    allowed.dedup();
    if !pin {
        return Plan::None("--no-pin".to_string());
    }
    if !started {
        return Plan::None("no server is started here (--base-url/--new-url servers keep their own CPUs)".to_string());
    }
    match allowed.split_first() {
        Some((first, rest)) if !rest.is_empty() => Plan::Pin {
            load_generator: vec![*first],
            servers: rest.to_vec(),
        },
        Some((only, _)) => Plan::None(format!(
            "this process may run on one CPU only ({}): the load generator and the servers share it",
            cpus(&[*only])
        )),
        None => Plan::None("this process's CPU affinity is empty".to_string()),
    }
}

impl Plan {
    /// The plan on this machine ([`plan`] over this process's affinity).
    pub fn here(pin: bool, started: bool) -> Plan {
        if !pin || !started {
            return plan(&[], pin, started);
        }
        match crate::ab::affinity::allowed_cpus() {
            Ok(allowed) => plan(&allowed, pin, started),
            Err(e) => Plan::None(format!("this process's CPU affinity cannot be read: {e}")),
        }
    }

    /// The CPUs a server started here is pinned to.
    pub fn servers(&self) -> Option<&[usize]> {
        match self {
            Plan::Pin { servers, .. } => Some(servers),
            Plan::None(_) => None,
        }
    }

    /// Where a server is placed: `started` here, or reached by URL.
    pub fn placement(&self, started: bool) -> Placement {
        match self {
            Plan::Pin { load_generator, servers } if started => Placement::Pinned {
                cpus: servers.clone(),
                load_generator: load_generator.clone(),
            },
            Plan::Pin { .. } => Placement::NotPinned {
                reason: "not started here: its CPUs are its own".to_string(),
            },
            Plan::None(reason) => Placement::NotPinned { reason: reason.clone() },
        }
    }

    /// The line on stderr saying where everything runs.
    pub fn note(&self) -> String {
        match self {
            Plan::Pin { load_generator, servers } => format!(
                "pinned: load generator on {}, servers started here on {}",
                cpus(load_generator),
                cpus(servers)
            ),
            Plan::None(reason) => format!("not pinned: {reason}"),
        }
    }
}

/// Makes a command pin its process to `cpus` between fork and exec (one system call, async-
/// signal-safe; the processes it forks inherit it).
pub fn pin_child(command: &mut std::process::Command, cpus: &[usize]) {
    use std::os::unix::process::CommandExt;
    let set = set_of(cpus);
    // SAFETY: the closure only calls sched_setaffinity on a set built before the fork.
    unsafe {
        command.pre_exec(move || pin_current(&set));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_load_generator_takes_the_first_cpu_and_the_servers_the_rest() {
        assert_eq!(
            plan(&[1, 0], true, true),
            Plan::Pin {
                load_generator: vec![0],
                servers: vec![1]
            }
        );
        let four = plan(&[2, 3, 5, 7], true, true);
        assert_eq!(four.note(), "pinned: load generator on CPU 2, servers started here on CPUs 3,5,7");
        assert_eq!(
            four.placement(true),
            Placement::Pinned {
                cpus: vec![3, 5, 7],
                load_generator: vec![2]
            }
        );
        assert_eq!(
            four.placement(false),
            Placement::NotPinned {
                reason: "not started here: its CPUs are its own".into()
            }
        );
    }

    #[test]
    fn nothing_is_pinned_on_one_cpu_with_no_pin_or_without_a_server_of_ours() {
        assert_eq!(
            plan(&[3], true, true).note(),
            "not pinned: this process may run on one CPU only (CPU 3): the load generator and the servers share it"
        );
        assert_eq!(plan(&[0, 1], false, true).note(), "not pinned: --no-pin");
        assert_eq!(
            plan(&[0, 1], true, false).note(),
            "not pinned: no server is started here (--base-url/--new-url servers keep their own CPUs)"
        );
        assert_eq!(plan(&[], true, true).servers(), None);
    }
}
