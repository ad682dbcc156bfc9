//! The `ndl` command on S3-compatible object storage, against a real S3
//! server (moto's, on 127.0.0.1 and a free port): it describes and
//! converts stores there, names a missing credential or a malformed
//! endpoint, refuses wrong credentials with the server's answer (moto
//! checks signatures once told to: `INITIAL_NO_AUTH_ACTION_COUNT`), and
//! takes its request count from `NDL_ZARR_REQUESTS`. The library's own S3
//! tests are ndl-zarr's.

use crate::common;

use common::moto::Moto;

use std::process::Command;

use ndl_runtime::NdlType;

const NDL: &str = env!("CARGO_BIN_EXE_ndl");

#[derive(Clone, Copy, Debug, PartialEq, NdlType)]
#[repr(C)]
struct Rec {
    id: u64,
    ok: bool,
    t: f64,
    n: i16,
}

fn records(range: std::ops::Range<u64>) -> Vec<Rec> {
    range
        .map(|i| Rec {
            id: i,
            ok: i.is_multiple_of(3),
            t: i as f64 / 8.0,
            n: -((i % 1000) as i16),
        })
        .collect()
}

/// A store converted to S3 is described, with the right credentials;
/// without the secret or with a malformed endpoint the command names the
/// variable.
#[test]
fn describe_names_a_missing_credential_or_a_bad_endpoint() {
    let moto = Moto::start(&common::python312());
    moto.bucket("data");
    let env = moto.env();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("x.npy");
    ndl_runtime::npy::write_file(&file, &records(0..100)).unwrap();
    let url = "s3://data/x.zarr";
    let out = Command::new(NDL)
        .args(["convert", "--chunk-len", "50", file.to_str().unwrap(), url])
        .envs(env.iter().cloned())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
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
    let described = describe(&env);
    assert!(
        described.status.success(),
        "{}",
        String::from_utf8_lossy(&described.stderr)
    );
    assert!(String::from_utf8_lossy(&described.stdout).contains("chunk: [50]"));
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

/// `ndl unlock` on S3: a store without a lock is left alone, the lock of a
/// live writer is kept and named, and a lock whose lease has expired is
/// removed.
#[test]
fn unlock_breaks_only_a_stale_lock() {
    let moto = Moto::start(&common::python312());
    moto.bucket("data");
    let env = moto.env();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("x.npy");
    ndl_runtime::npy::write_file(&file, &records(0..10)).unwrap();
    let url = "s3://data/x.zarr";
    let lock = "s3://data/x.zarr/.ndl-append.lock";
    let ndl = |args: &[&str]| {
        Command::new(NDL)
            .args(args)
            .envs(env.iter().cloned())
            .output()
            .unwrap()
    };
    assert!(
        ndl(&["convert", file.to_str().unwrap(), url])
            .status
            .success()
    );

    let out = ndl(&["unlock", url]);
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("not locked"));

    let live = "{\"host\":\"elsewhere\",\"pid\":7,\"taken_ms\":0,\"expires_ms\":99999999999999}";
    moto.object(lock, Some(live));
    let out = ndl(&["unlock", url]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "a live lock broken: {out:?}");
    assert!(
        stderr.contains("elsewhere") && stderr.contains("live"),
        "{stderr}"
    );
    assert_eq!(moto.object(lock, None).as_deref(), Some(live));

    let stale = "{\"host\":\"elsewhere\",\"pid\":7,\"taken_ms\":0,\"expires_ms\":1000}";
    moto.object(lock, Some(stale));
    let out = ndl(&["unlock", url]);
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("removed the stale lock") && stdout.contains("elsewhere"),
        "{stdout}"
    );
    assert_eq!(moto.object(lock, None), None);
}

/// A netCDF dataset of several variables converted whole to S3: xarray
/// opens the group through s3fs, equal to the file (the group's document,
/// written last, publishes it there).
#[test]
fn a_dataset_converts_whole_to_a_group_on_s3() {
    let moto = Moto::start(&common::python312());
    moto.bucket("data");
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("ds.nc");
    ndl_testkit::run_with(
        &common::python312(),
        "import sys, numpy as np, xarray as xr\n\
         ds = xr.Dataset({'v': (('x', 'y'), np.arange(6.).reshape(2, 3), {'units': 'm'}), 'w': ('t', np.array([1, 2, 3], 'i2'))},\n\
         \x20   coords={'t': np.array([10, 20, 30])}, attrs={'title': 'on s3'})\n\
         ds.to_netcdf(sys.argv[1])",
        &[src.to_str().unwrap()],
    );
    let url = "s3://data/ds.zarr";
    let out = Command::new(NDL)
        .args(["convert", src.to_str().unwrap(), url])
        .envs(moto.env())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = ndl_testkit::run_with(
        &common::python312(),
        "import sys, xarray as xr\n\
         opts = {'key': 'testing', 'secret': 'testing', 'client_kwargs': {'endpoint_url': sys.argv[1], 'region_name': 'us-east-1'}}\n\
         ours = xr.open_zarr(sys.argv[2], storage_options=opts).load()\n\
         theirs = xr.open_dataset(sys.argv[3]).load()\n\
         xr.testing.assert_equal(ours, theirs)\n\
         print(ours.attrs['title'], ours['v'].attrs['units'], sorted(ours.variables))",
        &[&moto.endpoint(), url, src.to_str().unwrap()],
    );
    assert_eq!(out, "on s3 m ['t', 'v', 'w']\n");
}
