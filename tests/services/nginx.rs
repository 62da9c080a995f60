//! nginx for the tests: the shipped deploy/nginx.conf, its addresses and log paths changed,
//! run on a free loopback port from a scratch prefix, in front of the test's gambit servers.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// A running nginx; dropping it stops it.
pub struct Nginx {
    pub addr: SocketAddr,
    child: Child,
    _supervisor: Child,
}

static STARTED: AtomicUsize = AtomicUsize::new(0);

/// The nginx binary: Debian's, else the PATH's.
fn binary() -> Option<PathBuf> {
    let debian = PathBuf::from("/usr/sbin/nginx");
    if debian.exists() {
        return Some(debian);
    }
    super::on_path("nginx")
}

/// deploy/nginx.conf with `listen` on `listen`, the upstream's servers `upstreams`, and the
/// access log in `prefix`: nothing else changed, so the test runs the file people deploy.
pub fn config(listen: SocketAddr, upstreams: &[SocketAddr], prefix: &std::path::Path) -> String {
    let shipped =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/deploy/nginx.conf")).expect("deploy/nginx.conf");
    let servers: String = upstreams.iter().map(|a| format!("server {a};\n        ")).collect();
    let changed = shipped
        .replace("listen 80;", &format!("listen {listen};"))
        .replace("server 127.0.0.1:8080;\n        ", &servers)
        .replace("/var/log/nginx/gambit.access.log", &prefix.join("access.log").to_string_lossy());
    assert_ne!(changed, shipped, "deploy/nginx.conf no longer has the lines the test changes");
    assert!(changed.contains(&format!("listen {listen};")) && changed.contains(&servers), "{changed}");
    changed
}

impl Nginx {
    /// nginx in front of `upstreams`; None (after a note) when it is not installed and the
    /// tests do not run under CI.
    pub fn start(upstreams: &[SocketAddr]) -> Option<Nginx> {
        let Some(nginx) = binary() else {
            super::missing("nginx", "it is not installed");
            return None;
        };
        let prefix = super::scratch(&format!("nginx-{}", STARTED.fetch_add(1, Ordering::Relaxed)));
        for dir in ["temp", "logs"] {
            std::fs::create_dir_all(prefix.join(dir)).expect("nginx directories");
        }
        let addr: SocketAddr = format!("127.0.0.1:{}", super::free_port()).parse().expect("address");
        let conf = prefix.join("nginx.conf");
        let temp = prefix.join("temp");
        // One process, in the foreground, its own pid file and error log, temporary files in the
        // prefix: what a test needs besides the shipped file.
        let globals = format!(
            "daemon off; master_process off; pid {}; error_log {} warn;",
            prefix.join("nginx.pid").display(),
            prefix.join("logs/error.log").display()
        );
        let temps = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]
            .iter()
            .map(|t| format!("{t}_temp_path {};", temp.join(t).display()))
            .collect::<String>();
        let text = config(addr, upstreams, &prefix).replacen("http {", &format!("http {{\n    {temps}"), 1);
        std::fs::write(&conf, text).expect("write nginx.conf");
        let child = Command::new(&nginx)
            .args(["-p", &prefix.to_string_lossy(), "-c", &conf.to_string_lossy(), "-g", &globals])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start nginx");
        let stop = format!("kill $(cat '{}' 2>/dev/null) 2>/dev/null", prefix.join("nginx.pid").display());
        let supervisor = super::supervise(&stop, &prefix);
        let mut started = Nginx { addr, child, _supervisor: supervisor };
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(addr).is_err() {
            if let Ok(Some(status)) = started.child.try_wait() {
                let log = std::fs::read_to_string(prefix.join("logs/error.log")).unwrap_or_default();
                panic!("nginx exited ({status}):\n{log}");
            }
            assert!(Instant::now() < deadline, "nginx did not listen on {addr}");
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(started)
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
