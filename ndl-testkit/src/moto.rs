//! A moto S3 server on the loopback, for the object-storage tests and the
//! object-storage benchmark (which includes this file by its path).

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A moto S3 server on 127.0.0.1, killed when dropped.
pub struct Moto {
    child: Child,
    /// The port it listens on.
    pub port: u16,
    /// The Python whose venv has moto[server] and boto3.
    python: PathBuf,
}

impl Moto {
    /// A server on a free port, from `python`'s venv.
    pub fn start(python: &Path) -> Moto {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        Moto::on(python, port)
    }

    /// A server on `port`.
    pub fn on(python: &Path, port: u16) -> Moto {
        Moto::spawn(python, port, None)
    }

    /// A server on `port` that checks credentials after its first `free`
    /// requests.
    pub fn spawn(python: &Path, port: u16, free: Option<u32>) -> Moto {
        let server = python.with_file_name("moto_server");
        let mut command = Command::new(&server);
        if let Some(free) = free {
            command.env("INITIAL_NO_AUTH_ACTION_COUNT", free.to_string());
        }
        let child = command
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{} (moto[server] in .venv312): {e}", server.display()));
        let moto = Moto {
            child,
            port,
            python: python.to_path_buf(),
        };
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "moto_server did not start on port {port}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        moto
    }

    /// `http://127.0.0.1:PORT`.
    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The AWS variables that point a client at this server.
    pub fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("AWS_ENDPOINT_URL", self.endpoint()),
            ("AWS_ACCESS_KEY_ID", "testing".into()),
            ("AWS_SECRET_ACCESS_KEY", "testing".into()),
            ("AWS_REGION", "us-east-1".into()),
            ("AWS_ALLOW_HTTP", "true".into()),
        ]
    }

    /// Creates the bucket `name`.
    pub fn bucket(&self, name: &str) {
        self.boto3("s3.create_bucket(Bucket=sys.argv[2])", &[name]);
    }

    /// The object at `url` (`s3://bucket/key`), after replacing it with
    /// `body` when given: what a client on another machine would do. An
    /// object that is not there reads as `None`.
    pub fn object(&self, url: &str, body: Option<&str>) -> Option<String> {
        let (bucket, key) = url
            .strip_prefix("s3://")
            .and_then(|rest| rest.split_once('/'))
            .unwrap_or_else(|| panic!("{url}: not s3://bucket/key"));
        let text = self.boto3(
            "if len(sys.argv) > 4: s3.put_object(Bucket=sys.argv[2], Key=sys.argv[3], Body=sys.argv[4].encode())\n\
             try: print('=' + s3.get_object(Bucket=sys.argv[2], Key=sys.argv[3])['Body'].read().decode(), end='')\n\
             except s3.exceptions.NoSuchKey: print('-', end='')",
            &[bucket, key].into_iter().chain(body).collect::<Vec<_>>(),
        );
        text.strip_prefix('=').map(str::to_owned)
    }

    /// Runs `script` with `s3`, a boto3 client of this server, and
    /// `sys.argv[2..]` = `args`; returns its stdout.
    fn boto3(&self, script: &str, args: &[&str]) -> String {
        let script = format!(
            "import sys, boto3\n\
             s3 = boto3.client('s3', endpoint_url=sys.argv[1], region_name='us-east-1', aws_access_key_id='testing', aws_secret_access_key='testing')\n\
             {script}"
        );
        let out = Command::new(&self.python)
            .arg("-c")
            .arg(&script)
            .arg(self.endpoint())
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("{}: {e}", self.python.display()));
        assert!(
            out.status.success(),
            "boto3 {args:?} failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
