//! The line on stderr while a run goes: connections open, moves sent, events received, and
//! the last second's p99 of the latency that matters most for the scenario. indicatif draws
//! nothing when stderr is not a terminal, so scripts and tests see only the final table.

use std::sync::Arc;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};
use tokio::task::JoinHandle;

use super::stats::{Metric, Stats};

/// How often the line is rewritten (and the p99 window).
const EVERY: Duration = Duration::from_secs(1);

/// The running line; [`Progress::finish`] clears it.
pub struct Progress {
    bar: ProgressBar,
    task: JoinHandle<()>,
}

impl Progress {
    /// Starts the line for a run whose headline latency is `metric` (None: no latency).
    pub fn start(stats: Arc<Stats>, metric: Option<Metric>) -> Progress {
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template("{spinner} [{elapsed_precise}] {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.enable_steady_tick(Duration::from_millis(200));
        let line = bar.clone();
        let task = tokio::spawn(async move {
            let mut tick = tokio::time::interval(EVERY);
            loop {
                tick.tick().await;
                line.set_message(message(&stats, metric));
            }
        });
        Progress { bar, task }
    }

    pub fn finish(self) {
        self.task.abort();
        self.bar.finish_and_clear();
    }
}

fn message(stats: &Stats, metric: Option<Metric>) -> String {
    let mut text = format!("{} connections open", Stats::get(&stats.open));
    let failed = Stats::get(&stats.failed);
    if failed > 0 {
        text.push_str(&format!(" ({failed} failed)"));
    }
    if let Some(metric) = metric {
        let recent = stats.take_recent(metric);
        text.push_str(&format!(
            " | {} moves | {} events | lost {} | p99 {:.1} ms",
            Stats::get(&stats.moves),
            Stats::get(&stats.events),
            Stats::get(&stats.lost),
            recent.p99_ms
        ));
    }
    let errors: u64 = stats.errors().values().sum();
    if errors > 0 {
        text.push_str(&format!(" | {errors} errors"));
    }
    text
}
