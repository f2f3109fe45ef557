//! Progress: a bar with pairs/s and ETA on a terminal, plain periodic lines otherwise.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressState, ProgressStyle};

/// Plain lines come at most this often when stderr is not a terminal.
const PLAIN_INTERVAL: Duration = Duration::from_secs(15);

pub struct Progress {
    bar: Option<ProgressBar>,
    total: u64,
    done: u64,
    start: Instant,
    last_line: Instant,
    done_at_start: u64,
}

impl Progress {
    /// `total` pairs, of which `done` are already checked (a resumed run).
    pub fn new(total: u64, done: u64) -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(total);
            bar.set_style(
                ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:30}] {percent:>3}% {rate} ETA {eta}",
                )
                .expect("valid template")
                .with_key(
                    "rate",
                    |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                        let _ = write!(w, "{:.3e} pairs/s", state.per_sec());
                    },
                )
                .progress_chars("=> "),
            );
            bar.set_position(done);
            bar.reset_eta();
            bar
        });
        let now = Instant::now();
        Progress {
            bar,
            total,
            done,
            start: now,
            last_line: now,
            done_at_start: done,
        }
    }

    pub fn add(&mut self, pairs: u64) {
        self.done += pairs;
        if let Some(bar) = &self.bar {
            bar.set_position(self.done);
        } else if self.last_line.elapsed() >= PLAIN_INTERVAL {
            self.last_line = Instant::now();
            let secs = self.start.elapsed().as_secs_f64();
            let rate = (self.done - self.done_at_start) as f64 / secs.max(1e-9);
            let eta = (self.total - self.done) as f64 / rate.max(1.0);
            eprintln!(
                "progress: {}/{} pairs ({:.1}%), {:.3e} pairs/s, ETA {:.0} s",
                self.done,
                self.total,
                100.0 * self.done as f64 / self.total.max(1) as f64,
                rate,
                eta
            );
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
