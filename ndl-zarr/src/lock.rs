//! The append lock: an object at a store's root that only one writer can
//! create, held until the writer is done.

use std::path::Path;

use crate::error::{Error, Result};
use crate::store::Store;

/// The lock of an appender: an object only one writer can create. Appends
/// by two writers at once would each write the same last chunk and length,
/// and one's records would be lost; the second is refused instead.
#[derive(Debug)]
pub(crate) struct AppendLock {
    store: Store,
}

/// The lock's key, at the store's root.
const APPEND_LOCK: &str = ".ndl-append.lock";

/// The stores whose append lock a writer of this process holds.
fn held() -> &'static std::sync::Mutex<std::collections::HashSet<String>> {
    static HELD: std::sync::OnceLock<std::sync::Mutex<std::collections::HashSet<String>>> =
        std::sync::OnceLock::new();
    HELD.get_or_init(Default::default)
}

impl AppendLock {
    /// Takes the lock of `store`, or says who holds it.
    pub(crate) fn take(store: &Store) -> Result<AppendLock> {
        let lock = AppendLock::take_object(store)?;
        if let Ok(mut h) = held().lock() {
            h.insert(store.name.clone());
        }
        Ok(lock)
    }

    fn take_object(store: &Store) -> Result<AppendLock> {
        let owner = format!("{}\n", std::process::id());
        if store.create_new(APPEND_LOCK, owner.as_bytes())? {
            return Ok(AppendLock {
                store: store.clone(),
            });
        }
        // A lock of a process of this machine that is gone is stale, and so
        // is one naming this process that none of its writers holds (a
        // process id reused after a crash).
        if store.is_local() {
            let holder = store
                .get(APPEND_LOCK)?
                .and_then(|b| String::from_utf8_lossy(&b).trim().parse::<u32>().ok());
            let ours = holder == Some(std::process::id());
            let alive = holder.is_some_and(|pid| Path::new(&format!("/proc/{pid}")).exists());
            if !alive || (ours && !held().lock().is_ok_and(|h| h.contains(&store.name))) {
                store.set(APPEND_LOCK, owner.into_bytes())?;
                return Ok(AppendLock {
                    store: store.clone(),
                });
            }
        }
        Err(Error::Locked {
            store: store.name.clone(),
            lock: APPEND_LOCK.into(),
        })
    }
}

impl Drop for AppendLock {
    fn drop(&mut self) {
        let _ = self.store.erase(APPEND_LOCK);
        if let Ok(mut h) = held().lock() {
            h.remove(&self.store.name);
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
        let owner = store.get(APPEND_LOCK).unwrap().unwrap();
        assert_eq!(
            owner.as_ref(),
            format!("{}\n", std::process::id()).as_bytes()
        );
    }
}
