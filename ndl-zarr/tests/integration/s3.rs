//! Stores in S3-compatible object storage, against a real S3 server:
//! moto's, started by each test on 127.0.0.1 and a free port, stopped at
//! its end. Many processes write regions of one store; Dask reads it
//! through s3fs and zarr-python; appenders and creators lock each other
//! out; a server that goes away mid-write gives a clear error, not a hang.
//!
//! The library reads its configuration from the AWS variables, so every
//! S3 operation of ours runs in a child process (this test binary again,
//! with `NDL_S3_CHILD` set) with those variables, and the test process's
//! own environment is never changed.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use ndl_runtime::NdlType;
use ndl_testkit::child::{Running, say, this_test};
use ndl_testkit::moto::Moto;
use ndl_testkit::{python312, run_with};
use ndl_zarr::{ArrayWriter, Layout, LockBreak, WriteOptions, ZarrFormat};

const CHILD: &str = "NDL_S3_CHILD";
const N: u64 = 1000;
/// Four chunks of `N` records: each chunk is a request to moto's server,
/// whose Python is most of these tests' time.
const CHUNK: u64 = 250;

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Rec {
    id: u64,
    ok: bool,
    t: f64,
    n: i16,
}

fn rec(i: u64) -> Rec {
    Rec {
        id: i,
        ok: i.is_multiple_of(3),
        t: i as f64 / 8.0,
        n: -((i % 1000) as i16),
    }
}

fn records(range: std::ops::Range<u64>) -> Vec<Rec> {
    range.map(rec).collect()
}

/// A moto server with the bucket `data`.
fn server() -> Moto {
    let moto = Moto::start(&python312());
    moto.bucket("data");
    moto
}

/// Runs `test` of this binary as a child doing `spec`, with `env`.
fn child(test: &str, spec: &str, env: &[(&str, String)]) -> Command {
    let mut c = this_test(test);
    c.env(CHILD, spec).envs(env.iter().cloned());
    c
}

fn options(layout: &str) -> WriteOptions {
    let options = WriteOptions::new().chunk_len(CHUNK);
    match layout {
        "columns" => options.layout(Layout::Columns).zarr_format(ZarrFormat::V2),
        _ => options,
    }
}

/// What a child does: `create LAYOUT URL`, `region URL START END`, `read
/// URL`, `len URL N`, `write URL`, `append URL`, `publish LAYOUT URL`, `publish-hang
/// LAYOUT URL`, `absent URL`, and with locks: `hold URL`, `hold-finish
/// URL`, `break URL`, `break-seen URL MARKER`.
fn act(spec: &str) {
    let words: Vec<&str> = spec.split_whitespace().collect();
    match words.as_slice() {
        ["create", layout, url] => {
            ArrayWriter::<Rec>::create_sized(url, N, &options(layout)).unwrap()
        }
        ["region", url, start, end] => {
            let (start, end) = (start.parse().unwrap(), end.parse().unwrap());
            let mut w = ArrayWriter::<Rec>::region(url, start..end).unwrap();
            for batch in records(start..end).chunks(37) {
                w.append(batch).unwrap();
            }
            w.finish().unwrap();
        }
        ["read", url] => assert_eq!(ndl_zarr::read::<Rec>(url).unwrap(), records(0..N)),
        ["len", url, n] => assert_eq!(ndl_zarr::read::<Rec>(url).unwrap().len().to_string(), *n),
        ["write", url, n] => {
            let n: u64 = n.parse().unwrap();
            say("writing");
            match WriteOptions::new().chunk_len(10).write(url, &records(0..n)) {
                Ok(()) => say("done"),
                Err(e) => {
                    say(&format!("error: {e}"));
                    std::process::exit(3);
                }
            }
        }
        ["append", url] => {
            let mut w = ArrayWriter::<Rec>::open(url).unwrap();
            say("locked");
            std::thread::sleep(Duration::from_secs(3));
            w.append(&records(N..N + 10)).unwrap();
            w.finish().unwrap();
        }
        ["publish", layout, url] => publish(layout, url),
        ["publish-hang", layout, url] => {
            let mut w =
                ArrayWriter::<Rec>::create_with(url, &options(layout).publish_on_finish(true))
                    .unwrap();
            w.append(&records(0..N / 2)).unwrap();
            say("building");
            std::thread::sleep(Duration::from_secs(60));
        }
        ["absent", url] => {
            let e = ndl_zarr::read::<Rec>(url).unwrap_err();
            assert!(matches!(e, ndl_zarr::Error::NotAnArray { .. }), "{e:?}");
            // The crashed writer's lock keeps a new one out, saying so.
            let e = WriteOptions::new().write(url, &records(0..3)).unwrap_err();
            assert!(matches!(e, ndl_zarr::Error::Locked { .. }), "{e:?}");
        }
        ["hold", url] => {
            let _w = ArrayWriter::<Rec>::open(url).unwrap();
            say(&format!("locked {}", std::process::id()));
            std::thread::sleep(Duration::from_secs(60));
        }
        ["hold-finish", url] => {
            let mut w = ArrayWriter::<Rec>::open(url).unwrap();
            w.append(&records(N..N + 10)).unwrap();
            say("locked");
            std::thread::sleep(Duration::from_secs(3));
            match w.finish() {
                Ok(len) => say(&format!("finished {len}")),
                Err(e) => say(&format!("refused {e:?}")),
            }
        }
        ["break", url] => say(&outcome(ndl_zarr::break_stale_lock(url).unwrap())),
        ["break-seen", url, marker] => {
            let seen = ndl_zarr::read_lock(url).unwrap().expect("a lock");
            assert!(seen.is_stale(), "{seen:?}");
            say("read");
            while !std::path::Path::new(marker).exists() {
                std::thread::sleep(Duration::from_millis(20));
            }
            say(&outcome(ndl_zarr::break_lock(url, &seen).unwrap()));
        }
        other => panic!("unknown child spec {other:?}"),
    }
}

/// A store created with `publish_on_finish` on S3: no array until
/// `finish`, and no other writer meanwhile; a whole one after.
fn publish(layout: &str, url: &str) {
    let options = options(layout).publish_on_finish(true);
    let mut w = ArrayWriter::<Rec>::create_with(url, &options).unwrap();
    w.append(&records(0..N / 2)).unwrap();
    let e = ndl_zarr::read::<Rec>(url).unwrap_err();
    assert!(matches!(e, ndl_zarr::Error::NotAnArray { .. }), "{e:?}");
    for second in [options.clone(), options.clone().publish_on_finish(false)] {
        let e = ArrayWriter::<Rec>::create_with(url, &second).unwrap_err();
        assert!(matches!(e, ndl_zarr::Error::Locked { .. }), "{e:?}");
    }
    w.append(&records(N / 2..N)).unwrap();
    assert_eq!(w.finish().unwrap(), N);
    assert_eq!(ndl_zarr::read::<Rec>(url).unwrap(), records(0..N));
    // The lock went with the writer: an appender takes it (and, adding
    // nothing, leaves the store as it is).
    assert_eq!(ArrayWriter::<Rec>::open(url).unwrap().finish().unwrap(), N);
}

/// What a child says of breaking a lock: `unlocked`, `broken PID`, `held
/// PID`.
fn outcome(found: LockBreak) -> String {
    match found {
        LockBreak::Unlocked => "unlocked".into(),
        LockBreak::Broken(lock) => format!("broken {}", lock.pid),
        LockBreak::Held(lock) => format!("held {}", lock.pid),
    }
}

/// Runs children and asserts they succeeded.
fn run_all(children: Vec<Command>) {
    let mut running: Vec<(Child, String)> = children
        .into_iter()
        .map(|mut c| {
            let what = format!("{c:?}");
            (
                c.stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap(),
                what,
            )
        })
        .collect();
    for (c, what) in running.drain(..) {
        let out = c.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{what}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Dask, through s3fs and zarr-python, sums what the writers stored.
fn dask_sums(moto: &Moto, url: &str, layout: &str) {
    let out = run_with(
        &python312(),
        "import sys, dask.array as da, xarray as xr\n\
         opts = {'key': 'testing', 'secret': 'testing', 'client_kwargs': {'endpoint_url': sys.argv[1], 'region_name': 'us-east-1'}}\n\
         if sys.argv[3] == 'columns':\n\
         \x20   ds = xr.open_zarr(sys.argv[2], storage_options=opts, consolidated=False)\n\
         \x20   print(int(ds['id'].sum().compute()), float(ds['t'].sum().compute()), int(ds['ok'].sum().compute()))\n\
         else:\n\
         \x20   x = da.from_zarr(sys.argv[2], storage_options=opts)\n\
         \x20   print(int(x['id'].sum().compute()), float(x['t'].sum().compute()), int(x['ok'].sum().compute()))",
        &[&moto.endpoint(), url, layout],
    );
    let data = records(0..N);
    let want = format!(
        "{} {} {}",
        data.iter().map(|r| r.id).sum::<u64>(),
        data.iter().map(|r| r.t).sum::<f64>(),
        data.iter().filter(|r| r.ok).count()
    );
    assert_eq!(out.trim(), want, "{url}");
}

/// 4 processes write 4 chunk-aligned regions of one store, records and
/// columns, to S3 and to a local disk; Dask reads the S3 stores.
#[test]
fn four_writers_four_regions() {
    if let Ok(spec) = std::env::var(CHILD) {
        return act(&spec);
    }
    let moto = server();
    let local = tempfile::tempdir().unwrap();
    let env = moto.env();
    let quarter = N / 4 / CHUNK * CHUNK;
    for layout in ["records", "columns"] {
        let s3 = format!("s3://data/{layout}/obs.zarr");
        let disk = local
            .path()
            .join(format!("{layout}.zarr"))
            .display()
            .to_string();
        for url in [&s3, &disk] {
            run_all(vec![child(
                "four_writers_four_regions",
                &format!("create {layout} {url}"),
                &env,
            )]);
            let bounds = [0, quarter, 2 * quarter, 3 * quarter, N];
            run_all(
                bounds
                    .windows(2)
                    .map(|w| {
                        child(
                            "four_writers_four_regions",
                            &format!("region {url} {} {}", w[0], w[1]),
                            &env,
                        )
                    })
                    .collect(),
            );
            run_all(vec![child(
                "four_writers_four_regions",
                &format!("read {url}"),
                &env,
            )]);
        }
        dask_sums(&moto, &s3, layout);
    }
    // A region that is not chunk-aligned is refused.
    let disk = local.path().join("records.zarr");
    let e = ArrayWriter::<Rec>::region(&disk, 10..60)
        .unwrap_err()
        .to_string();
    assert!(e.contains("chunk boundary"), "{e}");
}

/// Two appenders at once: the second is refused while the first holds the
/// lock (a conditional PUT on S3), and no record is lost.
#[test]
fn concurrent_appends_are_refused() {
    if let Ok(spec) = std::env::var(CHILD) {
        return act(&spec);
    }
    let moto = server();
    let env = moto.env();
    let url = "s3://data/append.zarr";
    run_all(vec![child(
        "concurrent_appends_are_refused",
        &format!("create records {url}"),
        &env,
    )]);
    run_all(
        [0, 500]
            .iter()
            .map(|&s| {
                child(
                    "concurrent_appends_are_refused",
                    &format!("region {url} {s} {}", s + 500),
                    &env,
                )
            })
            .collect(),
    );
    let mut first = Running::spawn(&mut child(
        "concurrent_appends_are_refused",
        &format!("append {url}"),
        &env,
    ));
    first.wait_for("locked");
    let second = child(
        "concurrent_appends_are_refused",
        &format!("append {url}"),
        &env,
    )
    .output()
    .unwrap();
    assert!(!second.status.success());
    let text = String::from_utf8_lossy(&second.stderr);
    assert!(
        text.contains("Locked") && text.contains(".ndl-append.lock"),
        "{text}"
    );
    assert!(first.wait().0.success());
    let out = run_with(
        &python312(),
        "import sys, zarr\nfrom zarr.storage import FsspecStore\n\
         s = FsspecStore.from_url(sys.argv[2], storage_options={'key': 'testing', 'secret': 'testing', 'client_kwargs': {'endpoint_url': sys.argv[1], 'region_name': 'us-east-1'}})\n\
         print(zarr.open_array(s, mode='r').shape[0])",
        &[&moto.endpoint(), url],
    );
    assert_eq!(out.trim(), (N + 10).to_string());
}

/// `publish_on_finish` on S3: the store appears at `finish`, with every
/// record; a writer killed before leaves no array, and its lock.
#[test]
fn published_stores_appear_whole() {
    if let Ok(spec) = std::env::var(CHILD) {
        return act(&spec);
    }
    let moto = server();
    let env = moto.env();
    let test = "published_stores_appear_whole";
    for layout in ["records", "columns"] {
        let url = format!("s3://data/{layout}/published.zarr");
        run_all(vec![child(test, &format!("publish {layout} {url}"), &env)]);
        dask_sums(&moto, &url, layout);

        let url = format!("s3://data/{layout}/killed.zarr");
        let mut writer = Running::spawn(&mut child(
            test,
            &format!("publish-hang {layout} {url}"),
            &env,
        ));
        writer.wait_for("building");
        writer.kill();
        run_all(vec![child(test, &format!("absent {url}"), &env)]);
    }
}

/// The server goes away mid-write: a clear error within seconds, not a
/// hang; after a restart the same write completes.
#[test]
fn the_server_going_away_is_an_error_not_a_hang() {
    if let Ok(spec) = std::env::var(CHILD) {
        return act(&spec);
    }
    let test = "the_server_going_away_is_an_error_not_a_hang";
    let moto = server();
    let port = moto.port;
    let env = moto.env();
    let url = "s3://data/big.zarr";
    let mut writer = Running::spawn(&mut child(test, &format!("write {url} 400000"), &env));
    writer.wait_for("writing");
    std::thread::sleep(Duration::from_millis(300));
    drop(moto);
    let stopped = Instant::now();
    let (status, said) = writer.wait();
    assert!(
        stopped.elapsed() < Duration::from_secs(90),
        "the writer hung"
    );
    assert_eq!(status.code(), Some(3), "{said:?}");
    assert!(
        said.iter()
            .any(|l| l.starts_with("error:") && l.contains("big.zarr")),
        "{said:?}"
    );

    // Restarted (moto keeps nothing): the same write completes.
    let moto = Moto::on(&python312(), port);
    moto.bucket("data");
    run_all(vec![child(test, &format!("write {url} 4000"), &env)]);
}

/// A store of units, for the docs page.
#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Temp {
    /// Air temperature.
    #[ndl(units = "K")]
    t: f64,
}

/// The Python of docs/object-storage.md runs against our stores on S3.
#[test]
fn the_docs_page_runs() {
    if let Ok(spec) = std::env::var(CHILD) {
        let data: Vec<Temp> = (0..100).map(|i| Temp { t: f64::from(i) }).collect();
        let (records, columns) = spec.split_once(' ').unwrap();
        WriteOptions::new()
            .chunk_len(30)
            .write(records, &data)
            .unwrap();
        WriteOptions::new()
            .chunk_len(30)
            .layout(Layout::Columns)
            .dimension("obs")
            .write(columns, &data)
            .unwrap();
        return;
    }
    let moto = Moto::start(&python312());
    moto.bucket("docs");
    run_all(vec![child(
        "the_docs_page_runs",
        "s3://docs/records.zarr s3://docs/columns.zarr",
        &moto.env(),
    )]);
    let page = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/object-storage.md"
    ))
    .unwrap();
    let code: Vec<&str> = page
        .split("```python\n")
        .skip(1)
        .map(|block| block.split("```").next().unwrap())
        .collect();
    assert_eq!(code.len(), 3, "three Python examples");
    let script = format!(
        "ENDPOINT = {:?}\nBUCKET = 'docs'\n{}",
        moto.endpoint(),
        code.join("\n")
    );
    let out = run_with(&python312(), &script, &[]);
    assert!(out.contains("records 100 4950.0"), "{out}");
    assert!(out.contains("columns 100 4950.0 K"), "{out}");
    assert!(out.contains("xarray {'records': 100} 4950.0"), "{out}");
}

/// The lock object of the store at `url` on `moto`, after replacing it
/// with `body` when given: what a writer on another machine would do.
fn lock_object(moto: &Moto, url: &str, body: Option<&str>) -> String {
    let (bucket, store) = url
        .strip_prefix("s3://")
        .and_then(|rest| rest.split_once('/'))
        .unwrap();
    run_with(
        &python312(),
        "import sys, boto3\n\
         s3 = boto3.client('s3', endpoint_url=sys.argv[1], region_name='us-east-1', aws_access_key_id='testing', aws_secret_access_key='testing')\n\
         if len(sys.argv) > 4: s3.put_object(Bucket=sys.argv[2], Key=sys.argv[3], Body=sys.argv[4].encode())\n\
         print(s3.get_object(Bucket=sys.argv[2], Key=sys.argv[3])['Body'].read().decode(), end='')",
        &[
            &moto.endpoint(),
            bucket,
            &format!("{store}/.ndl-append.lock"),
        ]
        .into_iter()
        .chain(body)
        .collect::<Vec<_>>(),
    )
}

/// A lock another writer holds, leased for a day.
const FOREIGN_LOCK: &str =
    "{\"host\":\"elsewhere\",\"pid\":7,\"taken_ms\":0,\"expires_ms\":99999999999999}";

/// The environment of a child on `moto` whose locks are leased for `lease`
/// seconds.
fn leased(moto: &Moto, lease: &str) -> Vec<(&'static str, String)> {
    let mut env = moto.env();
    env.push((ndl_zarr::LOCK_LEASE_VAR, lease.into()));
    env
}

/// The lock of a live writer is renewed and kept; once the writer is
/// killed its lease runs out, and then, not before, the lock is broken and
/// the store takes appends again. The lock names its writer.
#[test]
fn a_killed_writers_lock_is_broken_once_its_lease_expires() {
    if let Ok(spec) = std::env::var(CHILD) {
        return act(&spec);
    }
    let test = "a_killed_writers_lock_is_broken_once_its_lease_expires";
    let moto = server();
    let env = leased(&moto, "4");
    let url = "s3://data/locked.zarr";
    run_all(vec![child(test, &format!("create records {url}"), &env)]);
    let says = |spec: &str| {
        let (status, said) = Running::spawn(&mut child(test, spec, &env)).wait();
        assert!(status.success(), "{spec}: {said:?}");
        said.last().cloned().unwrap_or_default()
    };

    let mut holder = Running::spawn(&mut child(test, &format!("hold {url}"), &env));
    let pid = holder.id();
    holder.wait_for(&format!("locked {pid}"));
    let lock: serde_json::Value = serde_json::from_str(&lock_object(&moto, url, None)).unwrap();
    assert_eq!(lock["pid"], pid, "{lock}");
    // Held past its first lease: renewed.
    std::thread::sleep(Duration::from_secs(5));
    assert_eq!(says(&format!("break {url}")), format!("held {pid}"));

    holder.kill();
    assert_eq!(says(&format!("break {url}")), format!("held {pid}"));
    std::thread::sleep(Duration::from_millis(4500));
    assert_eq!(says(&format!("break {url}")), format!("broken {pid}"));
    assert_eq!(says(&format!("break {url}")), "unlocked");
    run_all(vec![child(test, &format!("append {url}"), &env)]);
}

/// A stale lock replaced between its reading and its breaking (renewed, or
/// taken by another) is kept, as the server compares it (`If-Match`).
#[test]
fn a_lock_changed_since_it_was_read_is_not_broken() {
    if let Ok(spec) = std::env::var(CHILD) {
        return act(&spec);
    }
    let test = "a_lock_changed_since_it_was_read_is_not_broken";
    let moto = server();
    let env = leased(&moto, "1");
    let url = "s3://data/changed.zarr";
    run_all(vec![child(test, &format!("create records {url}"), &env)]);
    let mut holder = Running::spawn(&mut child(test, &format!("hold {url}"), &env));
    holder.wait_for(&format!("locked {}", holder.id()));
    holder.kill();
    std::thread::sleep(Duration::from_millis(1500));

    let marker = tempfile::tempdir().unwrap();
    let go = marker.path().join("go");
    let mut breaker = Running::spawn(&mut child(
        test,
        &format!("break-seen {url} {}", go.display()),
        &env,
    ));
    breaker.wait_for("read");
    lock_object(&moto, url, Some(FOREIGN_LOCK));
    std::fs::write(&go, "").unwrap();
    breaker.wait_for("held 7");
    assert!(breaker.wait().0.success());
    assert_eq!(lock_object(&moto, url, None), FOREIGN_LOCK);
}

/// A writer whose lock another took meanwhile does not finish: the store
/// keeps its length, and the other's lock stays.
#[test]
fn a_writer_whose_lock_was_taken_does_not_finish() {
    if let Ok(spec) = std::env::var(CHILD) {
        return act(&spec);
    }
    let test = "a_writer_whose_lock_was_taken_does_not_finish";
    let moto = server();
    let env = leased(&moto, "1.5");
    let url = "s3://data/taken.zarr";
    run_all(vec![child(test, &format!("create records {url}"), &env)]);
    let mut writer = Running::spawn(&mut child(test, &format!("hold-finish {url}"), &env));
    writer.wait_for("locked");
    lock_object(&moto, url, Some(FOREIGN_LOCK));
    let (status, said) = writer.wait();
    assert!(status.success(), "{said:?}");
    assert!(
        said.last().is_some_and(|l| l.starts_with("refused Locked")),
        "{said:?}"
    );
    assert_eq!(lock_object(&moto, url, None), FOREIGN_LOCK);
    run_all(vec![child(test, &format!("len {url} {N}"), &env)]);
}
