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
        let out = Command::new(&self.python)
            .args([
                "-c",
                "import sys, boto3\n\
                 s3 = boto3.client('s3', endpoint_url=sys.argv[1], region_name='us-east-1', aws_access_key_id='testing', aws_secret_access_key='testing')\n\
                 s3.create_bucket(Bucket=sys.argv[2])",
                &self.endpoint(),
                name,
            ])
            .output()
            .unwrap_or_else(|e| panic!("{}: {e}", self.python.display()));
        assert!(
            out.status.success(),
            "creating bucket {name} failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

impl Drop for Moto {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
