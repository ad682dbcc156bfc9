//! The lock of a local store: it names its writer, and a lock whose lease
//! has expired is broken, one that is live is kept. (On S3, against a real
//! server, in `s3.rs`.)

use std::path::Path;
use std::time::{Duration, SystemTime};

use ndl_testkit::child::this_test;
use ndl_zarr::{ArrayWriter, Error, LockBreak};

const LOCK: &str = ".ndl-append.lock";

/// A store of 3 records in a new temporary directory.
fn store() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.zarr");
    ndl_zarr::write(&path, &[1u32, 2, 3]).unwrap();
    (dir, path)
}

/// The lock of a writer on another machine whose lease ends at
/// `expires_ms` (milliseconds since the Unix epoch).
fn foreign_lock(store: &Path, expires_ms: u128) {
    let lock = format!(
        "{{\"host\":\"elsewhere\",\"pid\":7,\"taken_ms\":1000,\"expires_ms\":{expires_ms}}}"
    );
    std::fs::write(store.join(LOCK), lock).unwrap();
}

fn now_ms() -> u128 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_millis()
}

#[test]
fn a_writers_lock_names_it_and_is_kept_while_it_writes() {
    let (_dir, path) = store();
    assert_eq!(ndl_zarr::read_lock(&path).unwrap(), None);
    let before = SystemTime::now() - Duration::from_secs(1);
    let writer = ArrayWriter::<u32>::open(&path).unwrap();
    let lock = ndl_zarr::read_lock(&path)
        .unwrap()
        .expect("the writer's lock");
    assert_eq!(lock.pid, std::process::id());
    assert!(!lock.host.is_empty());
    assert!(
        lock.taken >= before && lock.expires > SystemTime::now(),
        "{lock:?}"
    );
    assert!(!lock.is_stale());
    assert!(matches!(
        ndl_zarr::break_stale_lock(&path).unwrap(),
        LockBreak::Held(l) if l.pid == std::process::id()
    ));
    assert_eq!(writer.finish().unwrap(), 3);
    assert_eq!(
        ndl_zarr::break_stale_lock(&path).unwrap(),
        LockBreak::Unlocked
    );
}

#[test]
fn a_lock_whose_lease_expired_is_broken_a_live_one_kept() {
    let (_dir, path) = store();
    foreign_lock(&path, now_ms() + 60_000);
    let e = ArrayWriter::<u32>::open(&path).unwrap_err();
    assert!(matches!(e, Error::Locked { .. }), "{e:?}");
    assert!(e.to_string().contains("lease"), "{e}");
    assert!(matches!(
        ndl_zarr::break_stale_lock(&path).unwrap(),
        LockBreak::Held(l) if l.host == "elsewhere" && l.pid == 7
    ));
    assert!(path.join(LOCK).exists());

    foreign_lock(&path, now_ms() - 1);
    let lock = ndl_zarr::read_lock(&path).unwrap().unwrap();
    assert!(lock.is_stale());
    assert_eq!(lock.taken, SystemTime::UNIX_EPOCH + Duration::from_secs(1));
    assert_eq!(
        ndl_zarr::break_lock(&path, &lock).unwrap(),
        LockBreak::Broken(lock)
    );
    assert!(!path.join(LOCK).exists());
    let mut w = ArrayWriter::<u32>::open(&path).unwrap();
    w.append(&[4]).unwrap();
    assert_eq!(w.finish().unwrap(), 4);
}

/// A stale lock replaced after it was read is not broken.
#[test]
fn a_lock_changed_since_it_was_read_is_kept() {
    let (_dir, path) = store();
    foreign_lock(&path, now_ms() - 1);
    let seen = ndl_zarr::read_lock(&path).unwrap().unwrap();
    foreign_lock(&path, now_ms() + 60_000);
    assert!(matches!(
        ndl_zarr::break_lock(&path, &seen).unwrap(),
        LockBreak::Held(l) if !l.is_stale()
    ));
    assert!(path.join(LOCK).exists());
}

/// What earlier versions wrote, a process id alone, is a lock of this
/// machine whose lease is over; so is a lock that says nothing readable.
#[test]
fn old_and_unreadable_locks_are_stale() {
    let (_dir, path) = store();
    for text in ["4194304999\n", "{ not json"] {
        std::fs::write(path.join(LOCK), text).unwrap();
        let lock = ndl_zarr::read_lock(&path).unwrap().unwrap();
        assert!(lock.is_stale(), "{text:?}: {lock:?}");
        assert!(matches!(
            ndl_zarr::break_stale_lock(&path).unwrap(),
            LockBreak::Broken(_)
        ));
    }
}

/// `NDL_ZARR_LOCK_LEASE` sets the lease; a value that is no number of
/// seconds is refused, naming the variable. Run in a child, whose
/// environment the test sets.
#[test]
fn the_lease_is_configurable() {
    if let Ok(lease) = std::env::var(ndl_zarr::LOCK_LEASE_VAR) {
        let (_dir, path) = store();
        let opened = ArrayWriter::<u32>::open(&path);
        if lease == "0.5" {
            let lock = ndl_zarr::read_lock(&path).unwrap().unwrap();
            let leased = lock.expires.duration_since(lock.taken).unwrap();
            assert!(leased <= Duration::from_millis(600), "{leased:?}");
            // Renewed while held.
            std::thread::sleep(Duration::from_secs(1));
            assert!(!ndl_zarr::read_lock(&path).unwrap().unwrap().is_stale());
            assert_eq!(opened.unwrap().finish().unwrap(), 3);
        } else {
            let e = opened.unwrap_err().to_string();
            assert!(e.contains("NDL_ZARR_LOCK_LEASE=\"soon\""), "{e}");
        }
        return;
    }
    for lease in ["0.5", "soon"] {
        let out = this_test("the_lease_is_configurable")
            .env(ndl_zarr::LOCK_LEASE_VAR, lease)
            .output()
            .unwrap();
        assert!(
            out.status.success() && String::from_utf8_lossy(&out.stdout).contains("1 passed"),
            "{lease}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

/// A lock file a writer was killed while creating, empty or cut short, is
/// taken over by the next writer, as a dead process's lock is.
#[test]
fn a_lock_cut_short_by_a_kill_is_taken_over() {
    let (_dir, path) = store();
    for text in ["", "{\"host\":\"x"] {
        std::fs::write(path.join(LOCK), text).unwrap();
        let mut w = ArrayWriter::<u32>::open(&path).unwrap();
        w.append(&[9]).unwrap();
        w.finish().unwrap();
        assert!(!path.join(LOCK).exists());
    }
    assert_eq!(ndl_zarr::read::<u32>(&path).unwrap(), [1, 2, 3, 9, 9]);
}
