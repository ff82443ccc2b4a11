//! The progress bar of long `ptx run` and `ptx vectors` runs: drawn on standard error after a
//! second, and only when standard error is a terminal, by a thread that reads counters the run
//! updates; the run itself never waits for it.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// What the bar shows: units done, units in all, thread-instructions so far.
pub type Read = Box<dyn Fn() -> (u64, u64, u64) + Send>;

/// A bar that may be drawing; [`Bar::finish`] (or dropping it) stops and clears it.
pub struct Bar {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Bar {
    /// Starts watching `read`; `unit` names what it counts (`CTAs`, `cases`).
    pub fn spawn(read: Read, unit: &'static str) -> Bar {
        let stop = Arc::new(AtomicBool::new(false));
        let thread = std::io::stderr().is_terminal().then(|| {
            let stop = stop.clone();
            std::thread::spawn(move || draw(&read, unit, &stop))
        });
        Bar { stop, thread }
    }

    /// Stops the bar and clears it from the terminal.
    pub fn finish(mut self) {
        self.stop_now();
    }

    fn stop_now(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        self.stop_now();
    }
}

fn draw(read: &Read, unit: &'static str, stop: &AtomicBool) {
    let start = Instant::now();
    let tick = Duration::from_millis(50);
    while start.elapsed() < Duration::from_secs(1) {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        std::thread::sleep(tick);
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    if let Ok(style) =
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} {msg}")
    {
        bar.set_style(style.progress_chars("=> "));
    }
    while !stop.load(Ordering::Relaxed) {
        let (done, total, insts) = read();
        bar.set_length(total);
        bar.set_position(done);
        let secs = start.elapsed().as_secs_f64();
        bar.set_message(format!(
            "{unit}, {:.0} M thread-instructions/s",
            insts as f64 / secs / 1e6
        ));
        std::thread::sleep(tick * 2);
    }
    bar.finish_and_clear();
}
