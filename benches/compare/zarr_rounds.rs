//! The timing of the Zarr cell's jobs: rounds of jobs, each round starting
//! one job further on, the best repetition of each kept with the CPU time
//! the process spent in it.

use std::path::Path;

use super::remove;
use crate::time;

/// One job's best repetition: its wall time and the CPU time (user and
/// system, all threads) the process spent in it, in seconds.
#[derive(Clone, Copy)]
pub(super) struct Timed {
    pub wall: f64,
    pub cpu: f64,
}

impl Timed {
    pub const NONE: Timed = Timed {
        wall: f64::INFINITY,
        cpu: f64::NAN,
    };

    pub fn keep_best(&mut self, other: Timed) {
        if other.wall < self.wall {
            *self = other;
        }
    }
}

/// The CPU time of this process so far (all threads, user and system).
fn cpu_seconds() -> f64 {
    // SAFETY: getrusage writes the struct it is given, nothing else.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    assert_eq!(r, 0, "getrusage");
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    secs(usage.ru_utime) + secs(usage.ru_stime)
}

pub(super) fn timed(f: impl FnOnce()) -> Timed {
    let cpu = cpu_seconds();
    let wall = time(f).as_secs_f64();
    Timed {
        wall,
        cpu: cpu_seconds() - cpu,
    }
}

/// What a job's run returns, dropped after its timing.
type Output = Box<dyn std::any::Any>;

/// One job of a round: `before` (untimed: delete the target), `run`
/// (timed), then, after the first run only, `check` of what it returned
/// (untimed), and `before` again unless it was the last round.
pub(super) struct Job<'a> {
    before: Box<dyn Fn() + 'a>,
    run: Box<dyn Fn() -> Output + 'a>,
    check: Box<dyn Fn(&Output) + 'a>,
}

impl<'a> Job<'a> {
    /// A write of `target` (a name in `dir`, deleted before each run).
    pub fn write(dir: &'a Path, target: &'a str, run: impl Fn() + 'a) -> Job<'a> {
        Job {
            before: Box::new(move || remove(&dir.join(target))),
            run: Box::new(move || {
                run();
                Box::new(())
            }),
            check: Box::new(|_| ()),
        }
    }

    /// A read whose result `ok` checks, once.
    pub fn read<R: 'static>(
        what: &'static str,
        run: impl Fn() -> R + 'a,
        ok: impl Fn(&R) -> bool + 'a,
    ) -> Job<'a> {
        Job {
            before: Box::new(|| ()),
            run: Box::new(move || Box::new(run())),
            check: Box::new(move |out| {
                assert!(
                    ok(out.downcast_ref::<R>().expect("the job's output")),
                    "{what} read other records"
                )
            }),
        }
    }
}

/// Whether every repetition's time is printed (`NDL_BENCH_VERBOSE=1`).
pub fn verbose() -> bool {
    std::env::var_os("NDL_BENCH_VERBOSE").is_some_and(|v| v == "1")
}

/// The best of `reps` rounds of `jobs`; each round starts one job further
/// on, so that no job always follows the same one.
pub(super) fn rounds(reps: usize, jobs: &[Job<'_>]) -> Vec<Timed> {
    let mut best = vec![Timed::NONE; jobs.len()];
    for rep in 0..reps {
        for k in 0..jobs.len() {
            let i = (k + rep) % jobs.len();
            (jobs[i].before)();
            let mut out = None;
            let t = timed(|| out = Some((jobs[i].run)()));
            if verbose() {
                eprintln!(
                    "  round {rep}, job {i}: {:.1} ms, CPU {:.1} ms",
                    t.wall * 1e3,
                    t.cpu * 1e3
                );
            }
            best[i].keep_best(t);
            let out = out.expect("the job ran");
            if rep == 0 {
                (jobs[i].check)(&out);
            }
            drop(out);
            if rep + 1 < reps {
                // Delete what was written at once: dirty pages of deleted
                // files are never written back, so no writeback of earlier
                // jobs' data runs under later jobs.
                (jobs[i].before)();
            }
        }
    }
    best
}
