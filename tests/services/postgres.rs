//! One PostgreSQL server per test binary: `initdb` into a scratch directory, `postgres` on a
//! free loopback port (as the `postgres` user when the tests run as root: PostgreSQL refuses
//! to run as root), and a fresh database for each test that asks.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use tokio_postgres::NoTls;

/// The test binary's PostgreSQL server.
pub struct Postgres {
    pub port: u16,
    bin: PathBuf,
    dir: PathBuf,
    as_postgres: bool,
    _supervisor: std::process::Child,
}

static SERVER: OnceLock<Option<Postgres>> = OnceLock::new();
static DATABASES: AtomicUsize = AtomicUsize::new(0);

/// The directory holding `initdb`, `pg_ctl` and `postgres`: the newest of Debian's
/// /usr/lib/postgresql/N/bin, else the PATH's.
fn binaries() -> Option<PathBuf> {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse::<u32>().ok()?;
            let bin = entry.path().join("bin");
            bin.join("postgres").exists().then_some((version, bin))
        })
        .collect();
    versions.sort();
    if let Some((_, bin)) = versions.pop() {
        return Some(bin);
    }
    let postgres = super::on_path("postgres")?;
    let bin = postgres.parent()?.to_path_buf();
    bin.join("initdb").exists().then_some(bin)
}

/// Runs `program` from `bin` with `args`, as the `postgres` user if asked.
fn run(bin: &Path, as_postgres: bool, program: &str, args: &[&str]) -> std::process::Output {
    let program = bin.join(program);
    let mut command = if as_postgres {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(program);
        c
    } else {
        Command::new(program)
    };
    command.args(args).output().expect("run a PostgreSQL program")
}

impl Postgres {
    /// The test binary's shared server, started on first use; None (after a note) when
    /// PostgreSQL is not installed and the tests do not run under CI.
    pub fn get() -> Option<&'static Postgres> {
        SERVER.get_or_init(|| Postgres::start("postgres")).as_ref()
    }

    /// A server of the caller's own, for a test that stops and starts it.
    pub fn own(name: &str) -> Option<Postgres> {
        Postgres::start(name)
    }

    fn start(name: &str) -> Option<Postgres> {
        let Some(bin) = binaries() else {
            super::missing("PostgreSQL", "its programs (initdb, postgres) are not installed");
            return None;
        };
        let as_postgres = super::is_root();
        let dir = super::scratch(name);
        let data = dir.join("data");
        if as_postgres {
            let owned = Command::new("chown").args(["-R", "postgres:", &dir.to_string_lossy()]).status();
            assert!(owned.is_ok_and(|s| s.success()), "chown {} to postgres", dir.display());
        }
        let init = run(
            &bin,
            as_postgres,
            "initdb",
            &["-D", &data.to_string_lossy(), "-U", "gambit", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"],
        );
        assert!(init.status.success(), "initdb failed: {}", String::from_utf8_lossy(&init.stderr));
        let port = super::free_port();
        // When this test process ends, however it ends: stop the server, remove its files.
        let user = if as_postgres { "runuser -u postgres -- " } else { "" };
        let stop = format!("{user}'{}' -D '{}' -m immediate stop", bin.join("pg_ctl").display(), data.display());
        let supervisor = super::supervise(&stop, &dir);
        let server = Postgres { port, bin, dir, as_postgres, _supervisor: supervisor };
        server.resume();
        Some(server)
    }

    fn data(&self) -> PathBuf {
        self.dir.join("data")
    }

    /// Starts the server (again) and waits until it takes connections.
    pub fn resume(&self) {
        // Durability is not what these tests measure: fsync off keeps them quick.
        let options = format!(
            "-p {} -k '{}' -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off \
             -c full_page_writes=off -c max_connections=200",
            self.port,
            self.dir.display()
        );
        let log = self.dir.join("postgres.log");
        let data = self.data();
        let started = run(
            &self.bin,
            self.as_postgres,
            "pg_ctl",
            &["-D", &data.to_string_lossy(), "-l", &log.to_string_lossy(), "-o", &options, "-w", "start"],
        );
        let log = std::fs::read_to_string(&log).unwrap_or_default();
        assert!(
            started.status.success(),
            "PostgreSQL did not start: {}\n{log}",
            String::from_utf8_lossy(&started.stderr)
        );
        self.wait_ready();
    }

    /// Stops the server (a fast shutdown: its connections are cut).
    pub fn pause(&self) {
        let data = self.data();
        let stopped =
            run(&self.bin, self.as_postgres, "pg_ctl", &["-D", &data.to_string_lossy(), "-m", "fast", "-w", "stop"]);
        assert!(stopped.status.success(), "pg_ctl stop: {}", String::from_utf8_lossy(&stopped.stderr));
    }

    fn wait_ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let ready = run(&self.bin, false, "pg_isready", &["-h", "127.0.0.1", "-p", &self.port.to_string()]);
            if ready.status.success() {
                return;
            }
            if Instant::now() > deadline {
                let log = std::fs::read_to_string(self.dir.join("postgres.log")).unwrap_or_default();
                panic!("PostgreSQL did not start on port {}:\n{log}", self.port);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The URL of database `name` on this server.
    pub fn url(&self, name: &str) -> String {
        format!("postgres://gambit@127.0.0.1:{}/{name}", self.port)
    }

    /// A new, empty database; its URL.
    pub async fn database(&self) -> String {
        let name = format!("test_{}", DATABASES.fetch_add(1, Ordering::Relaxed));
        let (client, connection) = tokio_postgres::connect(&self.url("postgres"), NoTls).await.expect("connect");
        let task = tokio::spawn(connection);
        client.batch_execute(&format!("CREATE DATABASE {name}")).await.expect("create database");
        drop(client);
        let _ = task.await;
        self.url(&name)
    }

    /// Runs `sql` in database `url` (for a test that needs to look at or damage what is stored).
    pub async fn execute(url: &str, sql: &str) {
        let (client, connection) = tokio_postgres::connect(url, NoTls).await.expect("connect");
        let task = tokio::spawn(connection);
        client.batch_execute(sql).await.expect("sql");
        drop(client);
        let _ = task.await;
    }
}

/// A fresh database on the test binary's PostgreSQL, or None when it cannot be had (and the
/// tests do not run under CI).
pub async fn database() -> Option<String> {
    match Postgres::get() {
        Some(server) => Some(server.database().await),
        None => None,
    }
}
