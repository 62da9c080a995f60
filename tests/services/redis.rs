//! A Redis server of the test's own: Debian's `redis-server` on a free loopback port, keeping
//! nothing on disk, stopped when the test (or the test process) ends.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running `redis-server`.
pub struct Redis {
    pub port: u16,
    child: Option<Child>,
    dir: std::path::PathBuf,
    _supervisor: Child,
}

impl Redis {
    /// Starts one; None (after a note) when Redis is not installed and the tests do not run
    /// under CI.
    pub fn start(name: &str) -> Option<Redis> {
        if super::on_path("redis-server").is_none() {
            super::missing("Redis", "redis-server is not installed");
            return None;
        }
        let dir = super::scratch(name);
        let port = super::free_port();
        let pid_file = dir.join("pid");
        // However the test process ends, the server goes with it.
        let stop = format!("kill -9 $(cat '{}')", pid_file.display());
        let supervisor = super::supervise(&stop, &dir);
        let mut redis = Redis { port, child: None, dir, _supervisor: supervisor };
        redis.resume();
        Some(redis)
    }

    /// The URL nodes are given.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// Starts the server (again, on the same port) and waits until it answers.
    pub fn resume(&mut self) {
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(&self.dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start redis-server");
        std::fs::write(self.dir.join("pid"), child.id().to_string()).expect("pid file");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            assert!(Instant::now() < deadline, "redis-server did not start on port {}", self.port);
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Kills the server (nothing it held is kept: Redis carries messages only).
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.kill();
    }
}
