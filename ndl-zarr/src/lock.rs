//! The lock that keeps a store's writers one at a time: an object only one
//! writer can create, `.ndl-append.lock`, which records its owner (host,
//! process, when taken) and a lease.
//!
//! A writer renews its lease while it holds the lock, so a lock whose lease
//! has expired belongs to a writer that is gone (killed, or cut off from
//! the store): [`break_stale_lock`] removes it. Breaking compares before it
//! removes: a lock renewed since it was read is kept.

use std::collections::HashSet;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::documents::has_node;
use crate::error::{Error, Result};
use crate::store::{Store, Versioned};

/// The lock object's key, at the store's root.
pub(crate) const APPEND_LOCK: &str = ".ndl-append.lock";

/// The environment variable that sets a lock's lease, in seconds (`60`,
/// `0.5`): how long a lock outlives a writer that stops renewing it. A
/// writer renews it every third of the lease. A value that is not a number
/// of seconds above 0 fails the writer that takes the lock, naming the
/// variable.
///
/// ```
/// assert_eq!(ndl_zarr::LOCK_LEASE_VAR, "NDL_ZARR_LOCK_LEASE");
/// ```
pub const LOCK_LEASE_VAR: &str = "NDL_ZARR_LOCK_LEASE";

/// The lease when [`LOCK_LEASE_VAR`] is not set.
pub const DEFAULT_LOCK_LEASE: Duration = Duration::from_secs(60);

/// A writer's lock on a store, as its lock object records it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreLock {
    /// The host name of the writer's machine.
    pub host: String,
    /// The writer's process id on that machine.
    pub pid: u32,
    /// When the writer took the lock.
    pub taken: SystemTime,
    /// When the lease ends unless the writer renews it.
    pub expires: SystemTime,
    /// The object this was read from, to tell whether it changed since.
    seen: Versioned,
}

impl StoreLock {
    /// Whether the lease has expired, by this machine's clock: the writer
    /// is gone or cut off. Clocks that disagree by more than a lease could
    /// make a live writer's lock look stale.
    pub fn is_stale(&self) -> bool {
        self.expires < SystemTime::now()
    }
}

/// What breaking a lock found, and did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LockBreak {
    /// The store has no lock.
    Unlocked,
    /// The lock was stale, and is removed.
    Broken(StoreLock),
    /// The lock is kept: its lease has not expired, or it changed since it
    /// was read (a writer renewed it, or another took it).
    Held(StoreLock),
}

/// The lock of the store at `location`, `None` when it has none.
pub fn read_lock(location: impl AsRef<Path>) -> Result<Option<StoreLock>> {
    read(&open_store(location.as_ref())?)
}

/// Removes the lock of the store at `location` if its lease has expired
/// ([`StoreLock::is_stale`]), as [`break_lock`] does.
///
/// ```
/// use ndl_zarr::LockBreak;
///
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("s.zarr");
/// ndl_zarr::write(&path, &[1u8, 2, 3])?;
/// assert_eq!(ndl_zarr::break_stale_lock(&path)?, LockBreak::Unlocked);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn break_stale_lock(location: impl AsRef<Path>) -> Result<LockBreak> {
    let store = open_store(location.as_ref())?;
    match read(&store)? {
        None => Ok(LockBreak::Unlocked),
        Some(seen) => break_seen(&store, seen),
    }
}

/// Removes the lock of the store at `location` if it is still `seen` (as
/// [`read_lock`] read it) and its lease has expired.
///
/// The lock object is first replaced with one of this process, only if it
/// is unchanged (`If-Match` on object storage, so that a writer renewing
/// its lease at that moment keeps it), then removed.
pub fn break_lock(location: impl AsRef<Path>, seen: &StoreLock) -> Result<LockBreak> {
    break_seen(&open_store(location.as_ref())?, seen.clone())
}

/// The store at `location`, which must hold an array or a group: a place
/// with no store has no lock to speak of, and saying "not locked" of a
/// mistyped path would mislead.
fn open_store(location: &Path) -> Result<Store> {
    let store = Store::open(location)?;
    if !has_node(&store)? {
        return Err(Error::NotAnArray { store: store.name });
    }
    Ok(store)
}

fn break_seen(store: &Store, seen: StoreLock) -> Result<LockBreak> {
    if !seen.is_stale() {
        return Ok(LockBreak::Held(seen));
    }
    let claim = Record::ours(Duration::from_secs(10), now_ms());
    let Some(ours) = store.replace_if(APPEND_LOCK, &seen.seen, &claim.to_bytes())? else {
        return Ok(match read(store)? {
            None => LockBreak::Unlocked,
            Some(now) => LockBreak::Held(now),
        });
    };
    erase_if_ours(store, &ours)?;
    Ok(LockBreak::Broken(seen))
}

/// The lock of `store`, `None` when it has none.
fn read(store: &Store) -> Result<Option<StoreLock>> {
    let Some(seen) = store.get_versioned(APPEND_LOCK)? else {
        return Ok(None);
    };
    let record = Record::parse(&seen.bytes);
    Ok(Some(StoreLock {
        host: record.host,
        pid: record.pid,
        taken: UNIX_EPOCH + Duration::from_millis(record.taken_ms),
        expires: UNIX_EPOCH + Duration::from_millis(record.expires_ms),
        seen,
    }))
}

/// Removes the lock object if it is still `ours`.
fn erase_if_ours(store: &Store, ours: &Versioned) -> Result<()> {
    let current = store.get_versioned(APPEND_LOCK)?;
    if current.is_some_and(|c| c.bytes == ours.bytes) {
        store.erase(APPEND_LOCK)?;
    }
    Ok(())
}

/// The lock object's contents.
#[derive(Debug, Serialize, Deserialize)]
struct Record {
    host: String,
    pid: u32,
    /// When taken, in milliseconds since the Unix epoch.
    taken_ms: u64,
    /// When the lease ends, in milliseconds since the Unix epoch.
    expires_ms: u64,
}

impl Record {
    /// A lock of this process, taken at `taken_ms`, leased for `lease`.
    fn ours(lease: Duration, taken_ms: u64) -> Record {
        Record {
            host: host().to_string(),
            pid: std::process::id(),
            taken_ms,
            expires_ms: now_ms().saturating_add(lease.as_millis() as u64),
        }
    }

    /// What an object records. Earlier versions wrote the process id
    /// alone, and renewed nothing: such a lock is of this machine, with its
    /// lease over. Anything else is a lock of no one, stale.
    fn parse(bytes: &[u8]) -> Record {
        if let Ok(record) = serde_json::from_slice(bytes) {
            return record;
        }
        let pid = String::from_utf8_lossy(bytes).trim().parse::<u32>().ok();
        Record {
            host: pid.map_or_else(String::new, |_| host().to_string()),
            pid: pid.unwrap_or(0),
            taken_ms: 0,
            expires_ms: 0,
        }
    }

    fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec(self).expect("a lock record serializes");
        bytes.push(b'\n');
        bytes
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// This machine's host name.
fn host() -> &'static str {
    static HOST: OnceLock<String> = OnceLock::new();
    HOST.get_or_init(|| {
        std::fs::read_to_string("/proc/sys/kernel/hostname")
            .ok()
            .or_else(|| std::env::var("HOSTNAME").ok())
            .map(|h| h.trim().to_string())
            .filter(|h| !h.is_empty())
            .unwrap_or_else(|| "localhost".into())
    })
}

/// The lease of the locks this process takes, from [`LOCK_LEASE_VAR`].
fn lease(store: &Store) -> Result<Duration> {
    let Ok(text) = std::env::var(LOCK_LEASE_VAR) else {
        return Ok(DEFAULT_LOCK_LEASE);
    };
    match text.trim().parse::<f64>() {
        Ok(seconds) if seconds > 0.0 && seconds.is_finite() => Ok(Duration::from_secs_f64(seconds)),
        _ => Err(Error::Unsupported {
            message: format!(
                "{}: {LOCK_LEASE_VAR}={text:?} is not a number of seconds above 0",
                store.name
            ),
        }),
    }
}

/// The stores whose lock a writer of this process holds.
fn held_here() -> &'static Mutex<HashSet<String>> {
    static HELD: OnceLock<Mutex<HashSet<String>>> = OnceLock::new();
    HELD.get_or_init(Default::default)
}

/// A lock a writer holds, renewed until it is dropped, then removed.
///
/// Appends by two writers at once would each write the same last chunk
/// and length, and one's records would be lost; the second is refused
/// instead.
#[derive(Debug)]
pub(crate) struct AppendLock {
    store: Store,
    renewer: Renewer,
}

impl AppendLock {
    /// Takes the lock of `store`, or fails with [`Error::Locked`].
    ///
    /// On a local disk a lock of a process of this machine that is gone is
    /// taken over, and so is one naming this process that none of its
    /// writers holds (a process id reused after a crash). Elsewhere a lock
    /// is broken only once stale, by [`break_stale_lock`].
    pub fn take(store: &Store) -> Result<AppendLock> {
        let lease = lease(store)?;
        let record = Record::ours(lease, now_ms());
        let bytes = record.to_bytes();
        let ours = if store.create_new(APPEND_LOCK, &bytes)? {
            store.get_versioned(APPEND_LOCK)?
        } else {
            take_over(store, &bytes)?
        };
        let Some(ours) = ours.filter(|o| o.bytes == bytes) else {
            return Err(locked(store));
        };
        if let Ok(mut h) = held_here().lock() {
            h.insert(store.name.clone());
        }
        Ok(AppendLock {
            store: store.clone(),
            renewer: Renewer::start(store.clone(), ours, record, lease),
        })
    }

    /// Fails with [`Error::Locked`] if the lock was broken while held: the
    /// writer then must not publish what it wrote.
    pub fn check(&self) -> Result<()> {
        if self.renewer.lost.load(Ordering::Acquire) {
            return Err(locked(&self.store));
        }
        Ok(())
    }
}

impl Drop for AppendLock {
    fn drop(&mut self) {
        if let Some(ours) = self.renewer.stop() {
            let _ = erase_if_ours(&self.store, &ours);
        }
        if let Ok(mut h) = held_here().lock() {
            h.remove(&self.store.name);
        }
    }
}

fn locked(store: &Store) -> Error {
    Error::Locked {
        store: store.name.clone(),
        lock: APPEND_LOCK.into(),
    }
}

/// Replaces the lock of a local store left by a process of this machine
/// that is gone (or killed while it wrote the lock), or by this process
/// with none of its writers holding it.
fn take_over(store: &Store, bytes: &[u8]) -> Result<Option<Versioned>> {
    if !store.is_local() {
        return Ok(None);
    }
    let Some(found) = read(store)? else {
        return Ok(None);
    };
    // An unreadable lock names no host: its writer was killed creating it.
    if !found.host.is_empty() && found.host != host() {
        return Ok(None);
    }
    let gone = !Path::new(&format!("/proc/{}", found.pid)).exists();
    let orphaned = found.pid == std::process::id()
        && !held_here().lock().is_ok_and(|h| h.contains(&store.name));
    if !gone && !orphaned {
        return Ok(None);
    }
    store.replace_if(APPEND_LOCK, &found.seen, bytes)
}

/// The thread that renews a held lock's lease every third of it.
#[derive(Debug)]
struct Renewer {
    stop: Option<Sender<()>>,
    thread: Option<JoinHandle<Option<Versioned>>>,
    /// Set when the lock changed under the writer: broken, or taken.
    lost: Arc<AtomicBool>,
}

impl Renewer {
    fn start(store: Store, ours: Versioned, record: Record, lease: Duration) -> Renewer {
        let (stop, stopped) = std::sync::mpsc::channel();
        let lost = Arc::new(AtomicBool::new(false));
        let flag = lost.clone();
        let thread = std::thread::Builder::new()
            .name("ndl-zarr-lock".into())
            .spawn(move || renew(&store, ours, &record, lease, &stopped, &flag))
            .ok();
        Renewer {
            stop: Some(stop),
            thread,
            lost,
        }
    }

    /// Stops renewing; the lock object as last written, unless lost.
    fn stop(&mut self) -> Option<Versioned> {
        drop(self.stop.take());
        let ours = self.thread.take()?.join().ok()??;
        (!self.lost.load(Ordering::Acquire)).then_some(ours)
    }
}

/// Renews the lease until told to stop, or until the lock changed under
/// it; returns the lock object as last written.
fn renew(
    store: &Store,
    mut ours: Versioned,
    record: &Record,
    lease: Duration,
    stopped: &Receiver<()>,
    lost: &AtomicBool,
) -> Option<Versioned> {
    loop {
        if stopped.recv_timeout(lease / 3) != Err(RecvTimeoutError::Timeout) {
            return Some(ours);
        }
        let next = Record::ours(lease, record.taken_ms).to_bytes();
        match store.replace_if(APPEND_LOCK, &ours, &next) {
            Ok(Some(renewed)) => ours = renewed,
            Ok(None) => {
                lost.store(true, Ordering::Release);
                return None;
            }
            // A failure the store may recover from: the next round tries
            // again, while the lease lasts.
            Err(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_writer_at_a_time_and_none_after_the_drop() {
        let store = Store::memory("m");
        let lock = AppendLock::take(&store).unwrap();
        assert!(matches!(
            AppendLock::take(&store),
            Err(Error::Locked { .. })
        ));
        drop(lock);
        assert_eq!(store.get(APPEND_LOCK).unwrap(), None);
        AppendLock::take(&store).unwrap();
    }

    #[test]
    fn a_local_lock_of_a_process_that_is_gone_is_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::local(dir.path()).unwrap();
        // No process has this id: Linux's pids stay below 2^22.
        store.set(APPEND_LOCK, b"4294967295\n".to_vec()).unwrap();
        let _lock = AppendLock::take(&store).unwrap();
        let owner = Record::parse(&store.get(APPEND_LOCK).unwrap().unwrap());
        assert_eq!(
            (owner.host.as_str(), owner.pid),
            (host(), std::process::id())
        );
        assert!(owner.expires_ms > now_ms());
    }

    #[test]
    fn a_record_reads_back_and_an_old_one_is_stale() {
        let record = Record::ours(Duration::from_secs(5), 1234);
        let back = Record::parse(&record.to_bytes());
        assert_eq!((back.pid, back.taken_ms), (std::process::id(), 1234));
        assert!(back.expires_ms >= now_ms() + 4000);
        let old = Record::parse(b"77\n");
        assert_eq!(
            (old.host.as_str(), old.pid, old.expires_ms),
            (host(), 77, 0)
        );
    }
}
