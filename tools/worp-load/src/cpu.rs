//! What a measured window cost in CPU, read from Linux's `/proc`: the whole machine's
//! (`/proc/stat`, every core's busy and idle time) and, with `--server-pid`, the
//! server's own (`/proc/PID/stat`). Taken around each round's load and around its anchor
//! (pgbench, or SQLite's durable inserts), so that what a move costs the machine is given
//! beside what one anchor transaction costs it, measured the same way in the same round:
//! a ratio that holds on a slow machine as on a fast one, where microseconds do not.
//!
//! The machine's figure covers everything that ran: on one machine, the server, its
//! database and the load generator for a move; the database and pgbench (or the anchor's
//! threads) for an anchor transaction. The clients' own part is counted too where it can
//! be told apart ([`Client`]): this load generator's (`/proc/self/stat`) over the load,
//! and pgbench's (the children this process waited for, `getrusage`) over its run, so
//! that the machine's CPU without the clients, what the server and its database cost
//! against what PostgreSQL alone costs, is given beside the whole.

use std::time::Instant;

/// CPU time counters at one instant.
#[derive(Debug, Clone, Copy)]
pub struct Snapshot {
    machine: Option<Machine>,
    /// The server's user and system time, in clock ticks.
    server: Option<u64>,
    /// This process's user and system time, in clock ticks.
    own: Option<u64>,
    /// The user and system time of the children this process has waited for, seconds.
    children: Option<f64>,
    at: Instant,
}

/// Whose CPU in a window is the client's: the process that sends the work, whose cost
/// is the measurement's, not the measured system's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Client {
    /// This process (the load generator, during its load; a test that runs the tool's
    /// library beside the server in one process counts the server here too).
    Own(&'static str),
    /// The child processes this process waited for in the window (pgbench).
    Children(&'static str),
    /// Not to be told apart from the rest (the SQLite anchor's threads run SQLite too).
    Unseparated,
}

/// The machine's counters (`/proc/stat`'s `cpu` line), in clock ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Machine {
    busy: u64,
    idle: u64,
}

/// The CPU a window took.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spent {
    /// Busy CPU seconds of the whole machine, every core summed.
    pub machine: f64,
    /// The share of the cores' time left idle (iowait included), 0 to 1.
    pub idle: f64,
    /// CPU seconds of the server, with `--server-pid`.
    pub server: Option<f64>,
    /// CPU seconds of the client that sent the work (its name, the seconds).
    pub client: Option<(&'static str, f64)>,
    /// The window's length, seconds.
    pub wall: f64,
}

impl Snapshot {
    /// The counters now (`None` parts where `/proc` cannot be read: not Linux, or the
    /// process is gone).
    pub fn take(server: Option<u32>) -> Snapshot {
        Snapshot {
            machine: std::fs::read_to_string("/proc/stat")
                .ok()
                .as_deref()
                .and_then(machine_line),
            server: server.and_then(|pid| {
                std::fs::read_to_string(format!("/proc/{pid}/stat"))
                    .ok()
                    .as_deref()
                    .and_then(process_ticks)
            }),
            own: std::fs::read_to_string("/proc/self/stat")
                .ok()
                .as_deref()
                .and_then(process_ticks),
            children: children_seconds(),
            at: Instant::now(),
        }
    }

    /// What was spent from `self` to `later`, `client` telling whose CPU was the
    /// client's; `None` without the machine's counters.
    pub fn to(&self, later: &Snapshot, client: Client) -> Option<Spent> {
        let (a, b) = (self.machine?, later.machine?);
        let tick = ticks_per_second()?;
        let busy = b.busy.checked_sub(a.busy)?;
        let idle = b.idle.checked_sub(a.idle)?;
        let ticks = |a: Option<u64>, b: Option<u64>| match (a, b) {
            (Some(a), Some(b)) => b.checked_sub(a).map(|t| t as f64 / tick),
            _ => None,
        };
        let server = ticks(self.server, later.server);
        let client = match client {
            Client::Own(name) => ticks(self.own, later.own).map(|s| (name, s)),
            Client::Children(name) => self
                .children
                .zip(later.children)
                .map(|(a, b)| (name, (b - a).max(0.0))),
            Client::Unseparated => None,
        };
        Some(Spent {
            machine: busy as f64 / tick,
            idle: if busy + idle == 0 {
                0.0
            } else {
                idle as f64 / (busy + idle) as f64
            },
            server,
            client,
            wall: later.at.duration_since(self.at).as_secs_f64(),
        })
    }
}

impl Spent {
    /// `  CPU per <what>: machine N µs (idle I %)[, server S µs][, <client> C µs]`, over
    /// `count` of them.
    pub fn line(&self, what: &str, count: f64) -> String {
        let per = |secs: f64| secs / count.max(1.0) * 1e6;
        let server = self
            .server
            .map_or(String::new(), |s| format!(", server {:.1} µs", per(s)));
        let client = self.client.map_or(String::new(), |(name, s)| {
            format!(", {name} {:.1} µs", per(s))
        });
        format!(
            "  CPU per {what}: machine {:.1} µs (busy {:.2} cores, idle {:.0} %){server}{client}",
            per(self.machine),
            self.machine / self.wall.max(1e-9),
            self.idle * 100.0,
        )
    }
}

/// An anchor run's CPU, kept with its transactions and printed as `CPU per <what>`;
/// `None` without the counters or without a transaction.
pub fn anchor(
    spent: Option<Spent>,
    transactions: Option<f64>,
    what: &str,
    out: &super::Out,
) -> Option<(Spent, f64)> {
    let counted = spent.zip(transactions).filter(|(_, n)| *n > 0.0);
    if let Some((spent, n)) = &counted {
        out.line(spent.line(what, *n));
    }
    counted
}

/// The CPU of each round's load and of its anchor, for the ratio of the two.
#[derive(Debug, Default)]
pub struct Rounds {
    /// The rounds with both measured.
    rounds: Vec<RoundCpu>,
}

/// One round's CPU, seconds.
#[derive(Debug, Clone, Copy)]
struct RoundCpu {
    /// The machine's per acknowledged move.
    per_move: f64,
    /// The server's per acknowledged move (with `--server-pid`).
    server: Option<f64>,
    /// The machine's per anchor transaction.
    per_transaction: f64,
    /// The clients' own: the load generator's per move and the anchor's client's per
    /// transaction (their names), where both were told apart.
    clients: Option<Clients>,
}

/// The clients' own CPU per move and per anchor transaction, seconds.
#[derive(Debug, Clone, Copy)]
struct Clients {
    load: (&'static str, f64),
    anchor: (&'static str, f64),
}

impl Clients {
    /// The machine's CPU per move and per transaction without the clients' own.
    fn without(&self, per_move: f64, per_transaction: f64) -> (f64, f64) {
        (per_move - self.load.1, per_transaction - self.anchor.1)
    }
}

impl Rounds {
    /// Keeps a round's figures (`ours`: the load; `anchor`: the anchor's CPU and its
    /// transactions) and prints their ratio; a round without both is left out.
    pub fn round(
        &mut self,
        ours: Option<&super::Measured>,
        anchor: Option<(Spent, f64)>,
        out: &super::Out,
    ) {
        let Some((load, moves)) = ours.and_then(|m| Some((m.cpu?, m.moves))) else {
            return;
        };
        let Some((anchor, transactions)) = anchor else {
            return;
        };
        if moves == 0 || transactions <= 0.0 {
            return;
        }
        let per_move = load.machine / moves as f64;
        let per_transaction = anchor.machine / transactions;
        let server = load.server.map(|s| s / moves as f64);
        // Kept only where something is left without them (counters read in ticks can
        // give a client more than the machine in a very short window).
        let clients = load
            .client
            .zip(anchor.client)
            .map(|(l, a)| Clients {
                load: (l.0, l.1 / moves as f64),
                anchor: (a.0, a.1 / transactions),
            })
            .filter(|c| {
                let (m, t) = c.without(per_move, per_transaction);
                m > 0.0 && t > 0.0
            });
        let without = clients.map_or(String::new(), |c| {
            let (m, t) = c.without(per_move, per_transaction);
            format!(
                "; without the clients' own ({}, {}) {:.2}×",
                c.load.0,
                c.anchor.0,
                m / t
            )
        });
        out.line(format!(
            "  this round's CPU: a move took the machine {:.2}× what an anchor transaction took{without}",
            per_move / per_transaction
        ));
        self.rounds.push(RoundCpu {
            per_move,
            server,
            per_transaction,
            clients,
        });
    }

    /// The means over the rounds, against `anchor` (its name).
    pub fn summary(&self, anchor: &str, out: &super::Out) {
        let n = self.rounds.len();
        if n == 0 {
            return;
        }
        let mean = |f: fn(&RoundCpu) -> f64| self.rounds.iter().map(f).sum::<f64>() / n as f64;
        let per_move = mean(|r| r.per_move);
        let per_transaction = mean(|r| r.per_transaction);
        let server = self
            .rounds
            .iter()
            .map(|r| r.server)
            .collect::<Option<Vec<f64>>>()
            .map(|s| s.iter().sum::<f64>() / n as f64);
        out.line(format!(
            "CPU per move: the machine's {:.1} µs, {:.2}× its {:.1} µs per transaction of the anchor ({anchor}){}{}",
            per_move * 1e6,
            per_move / per_transaction,
            per_transaction * 1e6,
            server.map_or(String::new(), |s| format!(
                "; the server {:.1} µs ({:.2}× an anchor transaction's machine CPU)",
                s * 1e6,
                s / per_transaction
            )),
            if n > 1 { " (means over the rounds)" } else { "" },
        ));
        // The clients' part: only where every round told them apart.
        let Some(clients) = self
            .rounds
            .iter()
            .map(|r| r.clients)
            .collect::<Option<Vec<Clients>>>()
        else {
            return;
        };
        let mean_of = |f: &dyn Fn(&Clients) -> f64| clients.iter().map(f).sum::<f64>() / n as f64;
        let means = Clients {
            load: (clients[0].load.0, mean_of(&|c| c.load.1)),
            anchor: (clients[0].anchor.0, mean_of(&|c| c.anchor.1)),
        };
        // Each round's was positive, so the means' are.
        let (m, t) = means.without(per_move, per_transaction);
        out.line(format!(
            "The clients' own CPU: {} {:.1} µs a move, {} {:.1} µs a transaction; without them, a move took the machine {:.1} µs, {:.2}× an anchor transaction's {:.1} µs",
            means.load.0,
            means.load.1 * 1e6,
            means.anchor.0,
            means.anchor.1 * 1e6,
            m * 1e6,
            m / t,
            t * 1e6,
        ));
    }
}

/// The machine's load averages over 1, 5 and 15 minutes (`/proc/loadavg`), or `?`.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

/// Clock ticks per second of `/proc`'s counters.
fn ticks_per_second() -> Option<f64> {
    // SAFETY: sysconf reads a constant of the system; it has no preconditions.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    (t > 0).then_some(t as f64)
}

/// The machine's busy and idle ticks from `/proc/stat`'s first line: `cpu user nice
/// system idle iowait irq softirq steal guest guest_nice` (guest time is counted in user
/// time already, so it is left out).
fn machine_line(stat: &str) -> Option<Machine> {
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let n: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map(|f| f.parse().ok())
        .collect::<Option<_>>()?;
    let at = |i: usize| n.get(i).copied().unwrap_or(0);
    Some(Machine {
        busy: at(0) + at(1) + at(2) + at(5) + at(6) + at(7),
        idle: at(3) + at(4),
    })
}

/// The user and system time of the children this process has waited for, seconds
/// (`getrusage(RUSAGE_CHILDREN)`).
fn children_seconds() -> Option<f64> {
    // SAFETY: an all-zero `rusage` is a valid value (integers and `timeval`s), which
    // getrusage overwrites; the pointer is to a local that outlives the call.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: RUSAGE_CHILDREN is a valid `who`, `usage` a valid, writable `rusage`.
    let done = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    (done == 0).then(|| seconds(usage.ru_utime) + seconds(usage.ru_stime))
}

/// A process's user and system ticks from its `/proc/PID/stat` (fields 14 and 15; the
/// command name, field 2, is in parentheses and may hold spaces).
fn process_ticks(stat: &str) -> Option<u64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    // After the name: state (field 3) first, so utime (14) is the 12th.
    let mut fields = rest.split_whitespace().skip(11);
    let user: u64 = fields.next()?.parse().ok()?;
    let system: u64 = fields.next()?.parse().ok()?;
    Some(user + system)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Held by the tests that work or read this process's CPU over a window: the test
    /// binary runs tests on threads of one process, so another test's work would count
    /// in the window as this process's own.
    static PROCESS_CPU: std::sync::Mutex<()> = std::sync::Mutex::new(());

    /// Takes [`PROCESS_CPU`] (a test that failed holding it does not keep the others out).
    pub(crate) fn process_cpu_to_myself() -> std::sync::MutexGuard<'static, ()> {
        PROCESS_CPU
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    #[test]
    fn the_machine_line_counts_steal_as_busy_and_iowait_as_idle() {
        let stat = "cpu  100 2 30 400 50 6 7 8 90 0\ncpu0 1 2 3 4 5 6 7 8 9 0\n";
        assert_eq!(
            machine_line(stat),
            Some(Machine {
                busy: 100 + 2 + 30 + 6 + 7 + 8,
                idle: 400 + 50
            })
        );
        assert_eq!(machine_line("intr 1 2 3\n"), None);
    }

    #[test]
    fn a_process_line_is_read_after_its_name_even_with_spaces_and_parentheses() {
        let stat = "4242 (worp (serve) x) S 1 4242 4242 0 -1 4194304 100 0 0 0 \
                    1234 567 0 0 20 0 3 0 100 1000000 500";
        assert_eq!(process_ticks(stat), Some(1234 + 567));
        assert_eq!(process_ticks("4242 (worp) S 1"), None);
    }

    fn spent(machine: f64, server: Option<f64>) -> Spent {
        Spent {
            machine,
            idle: 0.1,
            server,
            client: None,
            wall: 1.0,
        }
    }

    fn quiet_out() -> super::super::Out {
        super::super::Out {
            echo: super::super::Echo::Quiet,
            transcript: std::sync::Arc::default(),
        }
    }

    #[test]
    fn the_rounds_give_a_moves_cpu_as_a_ratio_to_an_anchor_transactions() {
        let out = quiet_out();
        let load = |machine, moves| super::super::Measured {
            rate: Some(1000.0),
            p99: Some(1.0),
            moves,
            cpu: Some(spent(machine, Some(machine / 2.0))),
        };
        let mut rounds = Rounds::default();
        // 400 µs and 600 µs a move; 200 µs and 300 µs an anchor transaction.
        rounds.round(
            Some(&load(0.4, 1000)),
            Some((spent(0.2, None), 1000.0)),
            &out,
        );
        rounds.round(
            Some(&load(1.2, 2000)),
            Some((spent(0.6, None), 2000.0)),
            &out,
        );
        // Left out: no moves, or no anchor figures.
        rounds.round(Some(&load(1.0, 0)), Some((spent(0.2, None), 1000.0)), &out);
        rounds.round(Some(&load(1.0, 10)), None, &out);
        rounds.summary("pgbench's", &out);
        let text = out.transcript.lock().expect("transcript").clone();
        assert_eq!(
            text.matches("a move took the machine 2.00× what an anchor transaction took")
                .count(),
            2,
            "{text}"
        );
        assert!(
            text.contains("CPU per move: the machine's 500.0 µs, 2.00× its 250.0 µs per transaction of the anchor (pgbench's); the server 250.0 µs (1.00× an anchor transaction's machine CPU) (means over the rounds)"),
            "{text}"
        );
        assert!(!text.contains("clients' own"), "none told apart: {text}");
    }

    #[test]
    fn the_clients_own_cpu_is_taken_off_both_sides_where_every_round_told_it_apart() {
        let out = quiet_out();
        let with_client = |s: Spent, client: (&'static str, f64)| Spent {
            client: Some(client),
            ..s
        };
        let load = |machine: f64, client: f64, moves| super::super::Measured {
            rate: Some(1000.0),
            p99: Some(1.0),
            moves,
            cpu: Some(with_client(spent(machine, None), ("the load", client))),
        };
        let mut rounds = Rounds::default();
        // 300 µs a move of which the load generator 50; 200 µs a transaction of which
        // pgbench 25: without them 250 against 175.
        rounds.round(
            Some(&load(0.3, 0.05, 1000)),
            Some((with_client(spent(0.2, None), ("pgbench", 0.025)), 1000.0)),
            &out,
        );
        rounds.summary("pgbench's", &out);
        let text = out.transcript.lock().expect("transcript").clone();
        assert!(
            text.contains("a move took the machine 1.50× what an anchor transaction took; without the clients' own (the load, pgbench) 1.43×"),
            "{text}"
        );
        assert!(
            text.contains("The clients' own CPU: the load 50.0 µs a move, pgbench 25.0 µs a transaction; without them, a move took the machine 250.0 µs, 1.43× an anchor transaction's 175.0 µs"),
            "{text}"
        );

        // A round whose anchor's client could not be told apart (SQLite's threads): no
        // figure without the clients, in the round or in the summary.
        let out = quiet_out();
        let mut rounds = Rounds::default();
        rounds.round(
            Some(&load(0.3, 0.05, 1000)),
            Some((spent(0.2, None), 1000.0)),
            &out,
        );
        rounds.summary("SQLite's", &out);
        let text = out.transcript.lock().expect("transcript").clone();
        assert!(!text.contains("clients' own"), "{text}");

        // A client that seems to have cost more than the machine (a window too short
        // for the ticks): nothing is said without it.
        let out = quiet_out();
        let mut rounds = Rounds::default();
        rounds.round(
            Some(&load(0.3, 0.05, 1000)),
            Some((with_client(spent(0.2, None), ("pgbench", 0.25)), 1000.0)),
            &out,
        );
        rounds.summary("pgbench's", &out);
        let text = out.transcript.lock().expect("transcript").clone();
        assert!(!text.contains("clients' own"), "{text}");
    }

    #[test]
    fn a_waited_child_process_cpu_is_the_clients_over_its_window() {
        let _alone = process_cpu_to_myself();
        let before = Snapshot::take(None);
        if before.machine.is_none() || before.children.is_none() {
            return; // not Linux: nothing to read
        }
        // A child that works until it has used at least 50 ms of CPU, waited for.
        let ran = std::process::Command::new("sh")
            .args([
                "-c",
                "i=0; while [ $i -lt 3000000 ]; do i=$((i+1)); \
                 [ $((i % 20000)) -eq 0 ] && [ $(cut -d' ' -f14 /proc/$$/stat) -ge 5 ] && break; done",
            ])
            .status()
            .expect("sh runs");
        assert!(ran.success());
        let spent = before
            .to(&Snapshot::take(None), Client::Children("sh"))
            .expect("readable twice");
        let (name, seconds) = spent.client.expect("the children's CPU");
        assert_eq!(name, "sh");
        assert!(seconds >= 0.04, "{spent:?}");
        assert!(spent.machine + 0.02 >= seconds, "{spent:?}");
        let line = spent.line("transaction", 10.0);
        assert!(line.contains(", sh "), "{line}");
        // The same window as this process's own: the child's time is not its own.
        let own = before
            .to(&Snapshot::take(None), Client::Own("me"))
            .and_then(|s| s.client)
            .expect("this process's counters");
        assert!(own.1 < seconds, "{own:?} {spent:?}");
    }

    #[test]
    fn a_window_of_work_shows_on_the_machine_and_on_the_process() {
        let _alone = process_cpu_to_myself();
        let me = Some(std::process::id());
        let before = Snapshot::take(me);
        if before.machine.is_none() {
            return; // not Linux: nothing to read
        }
        // Work until the process's own counter moved by 5 ticks or more (50 ms at the usual
        // 100 a second), however busy the machine is.
        let deadline = Instant::now() + std::time::Duration::from_secs(20);
        let mut x = 0_u64;
        let spent = loop {
            for i in 0..1_000_000_u64 {
                x = x.wrapping_mul(31).wrapping_add(i);
            }
            let spent = before
                .to(&Snapshot::take(me), Client::Own("this test"))
                .expect("readable twice");
            let enough = spent
                .server
                .is_some_and(|s| s >= 5.0 / ticks_per_second().unwrap_or(100.0));
            if enough || Instant::now() > deadline {
                break spent;
            }
        };
        std::hint::black_box(x);
        let own = spent.server.expect("this process's counters");
        assert!(own > 0.0, "{spent:?}");
        assert!(
            spent.machine + 0.02 >= own,
            "the machine spent at least what one process did: {spent:?}"
        );
        assert!((0.0..=1.0).contains(&spent.idle), "{spent:?}");
        let line = spent.line("move", 10.0);
        assert!(line.starts_with("  CPU per move: machine "), "{line}");
        assert!(line.contains(", server "), "{line}");
    }
}
