//! Stores in S3-compatible object storage, against a real S3 server:
//! moto's, started by each test on 127.0.0.1 and a free port, stopped at
//! its end. Many processes write regions of one store; Dask reads it
//! through s3fs and zarr-python; a server that goes away mid-write gives a
//! clear error, not a hang; wrong credentials are refused clearly (moto
//! checks signatures once told to: `INITIAL_NO_AUTH_ACTION_COUNT`).
//!
//! The library reads its configuration from the AWS variables, so every
//! S3 operation of ours runs in a child process (this test binary again,
//! with `NDL_S3_CHILD` set) with those variables, and the test process's
//! own environment is never changed.

mod common;

use common::moto::Moto;

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use ndl_runtime::NdlType;
use ndl_zarr::{ArrayWriter, Layout, WriteOptions, ZarrFormat};

const CHILD: &str = "NDL_S3_CHILD";
const NDL: &str = env!("CARGO_BIN_EXE_ndl");
const N: u64 = 1000;
const CHUNK: u64 = 50;

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

/// Runs `test` of this binary as a child doing `spec`, with `env`.
fn child(test: &str, spec: &str, env: &[(&str, String)]) -> Command {
    let mut c = Command::new(std::env::current_exe().unwrap());
    c.args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, spec);
    for (k, v) in env {
        c.env(k, v);
    }
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
/// URL`, `write URL`, `append URL`, `publish LAYOUT URL`, `publish-hang
/// LAYOUT URL`, `absent URL`.
fn act(spec: &str) {
    let words: Vec<&str> = spec.split_whitespace().collect();
    match words.as_slice() {
        ["create", layout, url] => options(layout).create_sized::<Rec>(url, N).unwrap(),
        ["region", url, start, end] => {
            let (start, end) = (start.parse().unwrap(), end.parse().unwrap());
            let mut w = ArrayWriter::<Rec>::region(url, start..end).unwrap();
            for batch in records(start..end).chunks(37) {
                w.append(batch).unwrap();
            }
            w.finish().unwrap();
        }
        ["read", url] => assert_eq!(ndl_zarr::read::<Rec>(url).unwrap(), records(0..N)),
        ["write", url, n] => {
            let n: u64 = n.parse().unwrap();
            println!("writing");
            match WriteOptions::new().chunk_len(10).write(url, &records(0..n)) {
                Ok(()) => println!("done"),
                Err(e) => {
                    println!("error: {e}");
                    std::process::exit(3);
                }
            }
        }
        ["append", url] => {
            let mut w = ArrayWriter::<Rec>::open(url).unwrap();
            println!("locked");
            std::thread::sleep(Duration::from_secs(3));
            w.append(&records(N..N + 10)).unwrap();
            w.finish().unwrap();
        }
        ["publish", layout, url] => publish(layout, url),
        ["publish-hang", layout, url] => {
            let mut w = options(layout)
                .publish_on_finish(true)
                .create::<Rec>(url)
                .unwrap();
            w.append(&records(0..N / 2)).unwrap();
            println!("building");
            std::thread::sleep(Duration::from_secs(60));
        }
        ["absent", url] => {
            let e = ndl_zarr::read::<Rec>(url).unwrap_err();
            assert!(matches!(e, ndl_zarr::Error::NotAnArray { .. }), "{e:?}");
            // The crashed writer's lock keeps a new one out, saying so.
            let e = WriteOptions::new().write(url, &records(0..3)).unwrap_err();
            assert!(matches!(e, ndl_zarr::Error::Locked { .. }), "{e:?}");
        }
        other => panic!("unknown child spec {other:?}"),
    }
}

/// A store created with `publish_on_finish` on S3: no array until
/// `finish`, and no other writer meanwhile; a whole one after.
fn publish(layout: &str, url: &str) {
    let options = options(layout).publish_on_finish(true);
    let mut w = options.create::<Rec>(url).unwrap();
    w.append(&records(0..N / 2)).unwrap();
    let e = ndl_zarr::read::<Rec>(url).unwrap_err();
    assert!(matches!(e, ndl_zarr::Error::NotAnArray { .. }), "{e:?}");
    for second in [options.clone(), options.clone().publish_on_finish(false)] {
        let e = second.create::<Rec>(url).unwrap_err();
        assert!(matches!(e, ndl_zarr::Error::Locked { .. }), "{e:?}");
    }
    w.append(&records(N / 2..N)).unwrap();
    assert_eq!(w.finish().unwrap(), N);
    assert_eq!(ndl_zarr::read::<Rec>(url).unwrap(), records(0..N));
    // The lock went with the writer: an appender takes it (and, adding
    // nothing, leaves the store as it is).
    assert_eq!(ArrayWriter::<Rec>::open(url).unwrap().finish().unwrap(), N);
}

/// Reads the child's output up to the line `marker` (the test harness
/// prints its own lines first); false at the end of the output.
fn wait_for(out: &mut impl std::io::BufRead, marker: &str) -> bool {
    let mut line = String::new();
    loop {
        line.clear();
        if out.read_line(&mut line).unwrap_or(0) == 0 {
            return false;
        }
        if line.trim_end().ends_with(marker) {
            return true;
        }
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
    let out = common::run_with(
        &common::python312(),
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
    let moto = Moto::start(&common::python312());
    moto.bucket("data");
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
        // The command reads S3 stores too.
        let out = Command::new(NDL)
            .args(["describe", &s3])
            .envs(env.iter().cloned())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains("chunk: [50]"));
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
    let moto = Moto::start(&common::python312());
    moto.bucket("data");
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
    let mut first = child(
        "concurrent_appends_are_refused",
        &format!("append {url}"),
        &env,
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let mut first_out = std::io::BufReader::new(first.stdout.take().unwrap());
    assert!(wait_for(&mut first_out, "locked"));
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
    assert!(first.wait().unwrap().success());
    let out = common::run_with(
        &common::python312(),
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
    let moto = Moto::start(&common::python312());
    moto.bucket("data");
    let env = moto.env();
    let test = "published_stores_appear_whole";
    for layout in ["records", "columns"] {
        let url = format!("s3://data/{layout}/published.zarr");
        run_all(vec![child(test, &format!("publish {layout} {url}"), &env)]);
        dask_sums(&moto, &url, layout);

        let url = format!("s3://data/{layout}/killed.zarr");
        let mut writer = child(test, &format!("publish-hang {layout} {url}"), &env)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut out = std::io::BufReader::new(writer.stdout.take().unwrap());
        assert!(wait_for(&mut out, "building"));
        writer.kill().unwrap();
        writer.wait().unwrap();
        run_all(vec![child(test, &format!("absent {url}"), &env)]);
    }
}

/// The server goes away mid-write: a clear error within seconds, not a
/// hang; after a restart the same write completes. Missing credentials
/// and a malformed endpoint are refused, naming the variable.
#[test]
fn faults_and_credentials() {
    if let Ok(spec) = std::env::var(CHILD) {
        return act(&spec);
    }
    let moto = Moto::start(&common::python312());
    moto.bucket("data");
    let port = moto.port;
    let env = moto.env();
    let url = "s3://data/big.zarr";
    let mut writer = child(
        "faults_and_credentials",
        &format!("write {url} 400000"),
        &env,
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    let mut stdout = std::io::BufReader::new(writer.stdout.take().unwrap());
    assert!(wait_for(&mut stdout, "writing"));
    std::thread::sleep(Duration::from_millis(300));
    drop(moto);
    let stopped = Instant::now();
    let status = writer.wait().unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
    assert!(
        stopped.elapsed() < Duration::from_secs(90),
        "the writer hung"
    );
    assert_eq!(status.code(), Some(3), "{rest}");
    assert!(
        rest.contains("error:") && rest.contains("big.zarr"),
        "{rest}"
    );

    // Restarted (moto keeps nothing): the same write completes.
    let moto = Moto::on(&common::python312(), port);
    moto.bucket("data");
    let out = child("faults_and_credentials", &format!("write {url} 4000"), &env)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let describe = |env: &[(&str, String)]| {
        let mut c = Command::new(NDL);
        c.args(["describe", url])
            .env_remove("AWS_ACCESS_KEY_ID")
            .env_remove("AWS_SECRET_ACCESS_KEY");
        for (k, v) in env {
            c.env(k, v);
        }
        c.output().unwrap()
    };
    assert!(describe(&env).status.success());
    let mut wrong = env.clone();
    wrong.retain(|(k, _)| *k != "AWS_SECRET_ACCESS_KEY");
    let missing = describe(&wrong);
    let text = String::from_utf8_lossy(&missing.stderr);
    assert!(
        !missing.status.success() && text.contains("AWS_SECRET_ACCESS_KEY"),
        "{text}"
    );
    let mut bad_endpoint = env.clone();
    bad_endpoint.retain(|(k, _)| *k != "AWS_ENDPOINT_URL");
    bad_endpoint.push(("AWS_ENDPOINT_URL", "127.0.0.1:1".into()));
    let text = String::from_utf8_lossy(&describe(&bad_endpoint).stderr).into_owned();
    assert!(text.contains("AWS_ENDPOINT_URL"), "{text}");
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
    let moto = Moto::start(&common::python312());
    moto.bucket("docs");
    run_all(vec![child(
        "the_docs_page_runs",
        "s3://docs/records.zarr s3://docs/columns.zarr",
        &moto.env(),
    )]);
    let page = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/object-storage.md"
    ))
    .unwrap();
    let code: Vec<&str> = page
        .split("```python\n")
        .skip(1)
        .map(|block| block.split("```").next().unwrap())
        .collect();
    assert_eq!(code.len(), 2, "two Python examples");
    let script = format!(
        "ENDPOINT = {:?}\nBUCKET = 'docs'\n{}",
        moto.endpoint(),
        code.join("\n")
    );
    let out = common::run_with(&common::python312(), &script, &[]);
    assert!(out.contains("records 100 4950.0"), "{out}");
    assert!(out.contains("columns 100 4950.0 K"), "{out}");
}

/// A server that checks signatures: the right keys work, a wrong secret is
/// refused with the server's answer, naming the store.
#[test]
fn wrong_credentials_are_refused() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    // Four requests without authentication make a user, its keys, its
    // policy and the bucket; every later one is checked.
    let moto = Moto::spawn(&common::python312(), port, Some(4));
    let keys = common::run_with(
        &common::python312(),
        "import sys, json, boto3\n\
         kw = dict(endpoint_url=sys.argv[1], region_name='us-east-1', aws_access_key_id='x', aws_secret_access_key='x')\n\
         iam = boto3.client('iam', **kw)\n\
         iam.create_user(UserName='u')\n\
         k = iam.create_access_key(UserName='u')['AccessKey']\n\
         iam.put_user_policy(UserName='u', PolicyName='all', PolicyDocument=json.dumps({'Version': '2012-10-17', 'Statement': [{'Effect': 'Allow', 'Action': '*', 'Resource': '*'}]}))\n\
         boto3.client('s3', **kw).create_bucket(Bucket='data')\n\
         print(k['AccessKeyId'], k['SecretAccessKey'])",
        &[&moto.endpoint()],
    );
    let (key, secret) = keys.trim().split_once(' ').unwrap();
    let mut env = moto.env();
    env.retain(|(k, _)| !k.starts_with("AWS_ACCESS") && !k.starts_with("AWS_SECRET"));
    let with = |secret: &str| {
        let mut env = env.clone();
        env.push(("AWS_ACCESS_KEY_ID", key.to_string()));
        env.push(("AWS_SECRET_ACCESS_KEY", secret.to_string()));
        env
    };
    let npy = tempfile::tempdir().unwrap();
    let file = npy.path().join("x.npy");
    ndl_runtime::npy::write_file(&file, &records(0..100)).unwrap();
    let convert = |env: &[(&str, String)]| {
        Command::new(NDL)
            .args(["convert", file.to_str().unwrap(), "s3://data/x.zarr"])
            .envs(env.iter().cloned())
            .output()
            .unwrap()
    };
    let denied = convert(&with("wrong"));
    let text = String::from_utf8_lossy(&denied.stderr);
    assert!(!denied.status.success(), "{text}");
    assert!(
        text.contains("s3://data/x.zarr") && text.contains("403"),
        "{text}"
    );
    assert!(text.contains("AWS_SECRET_ACCESS_KEY"), "{text}");
    let done = convert(&with(secret));
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
}

/// `NDL_ZARR_REQUESTS` sets how many requests run at once: 1 stores one
/// chunk at a time and reads back the same records; a value that is no
/// count is refused, naming the variable.
#[test]
fn the_request_count_is_configurable() {
    let moto = Moto::start(&common::python312());
    moto.bucket("data");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("x.npy");
    let data = records(0..1000);
    ndl_runtime::npy::write_file(&file, &data).unwrap();
    let convert = |requests: &str, url: &str| {
        Command::new(NDL)
            .args(["convert", "--chunk-len", "64", file.to_str().unwrap(), url])
            .envs(moto.env())
            .env(ndl_zarr::REQUESTS_VAR, requests)
            .output()
            .unwrap()
    };
    let one = convert("1", "s3://data/one.zarr");
    assert!(
        one.status.success(),
        "{}",
        String::from_utf8_lossy(&one.stderr)
    );
    let out = dir.path().join("back.npy");
    let back = Command::new(NDL)
        .args(["convert", "s3://data/one.zarr", out.to_str().unwrap()])
        .envs(moto.env())
        .env(ndl_zarr::REQUESTS_VAR, "1")
        .output()
        .unwrap();
    assert!(
        back.status.success(),
        "{}",
        String::from_utf8_lossy(&back.stderr)
    );
    // The store's records are packed; NumPy compares them field by field.
    let same = common::run_with(
        &common::python(),
        "import sys, numpy as np\n\
         a, b = np.load(sys.argv[1]), np.load(sys.argv[2])\n\
         print(all((a[f] == b[f]).all() for f in a.dtype.names) and a.dtype.names == b.dtype.names)",
        &[file.to_str().unwrap(), out.to_str().unwrap()],
    );
    assert_eq!(same.trim(), "True");
    let bad = convert("none", "s3://data/bad.zarr");
    let text = String::from_utf8_lossy(&bad.stderr);
    assert!(!bad.status.success(), "{text}");
    assert!(text.contains("NDL_ZARR_REQUESTS=\"none\""), "{text}");
}
