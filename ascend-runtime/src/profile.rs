//! The profiler's output: a modelled timeline of a launch, as files and a summary.
//!
//! [`Launch::profile`](crate::Launch::profile) runs a kernel with the profiler on (see
//! [`ascend_core::profiler`]) and returns a [`Profile`]; the environment variable
//! `ASCEND_PROFILE=dir` (or [`set_profile_dir`], which the examples' `--profile DIR` calls)
//! profiles every launch of the process and writes its files to `dir` (the last launch's
//! win). The folder holds:
//! * `trace.json`: Chrome trace events (open in `chrome://tracing` or Perfetto): one process
//!   per core, one track per pipe (`SCALAR`, `VECTOR`, `CUBE`, `MTE1`, `MTE2`, `MTE3`,
//!   `FIXP`), a slice per instruction with its API, arguments and kernel line, arrows for the
//!   flags that made a pipe wait;
//! * `PipeUtilization.csv`: msprof's columns per core (time, cycles, busy ratio per pipe);
//! * `hotspots.csv`: per core, the kernel lines by modelled busy cycles;
//! * `pipeline.svg`: core 0's pipes as a chart;
//! * `summary.txt`: what [`Profile::summary`] prints.
//!
//! ```
//! use ascend_runtime::prelude::*;
//!
//! let dir = std::env::temp_dir().join(format!("ascend-profile-doc-{}", std::process::id()));
//! let x = GmBuffer::<f32>::from_vec(vec![1.0; 4096]);
//! let (xa, n) = (x.addr(), 4096);
//! let p = Launch::new(Soc::Ascend910B).block_dim(2).profile(&dir, move || {
//!     let mut pipe = TPipe::new();
//!     let mut q: TQue<VecIn, 1> = TQue::new();
//!     pipe.init_buffer(&mut q, 1, n / 2 * 4);
//!     let mut g = GlobalTensor::<f32>::new();
//!     g.set_global_buffer(xa.add::<f32>(get_block_idx() as usize * n / 2), n / 2);
//!     let t = q.alloc_tensor::<f32>();
//!     data_copy(&t, &g, n / 2);
//!     q.enque(t);
//!     let t = q.deque::<f32>();
//!     q.free_tensor(t);
//! }).unwrap();
//! assert_eq!(p.schedule.cores.len(), 2);
//! assert!(p.schedule.cores[0].busy[4] > 0); // MTE2
//! assert!(dir.join("trace.json").exists());
//! # std::fs::remove_dir_all(&dir).ok();
//! ```

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use ascend_core::profiler::cost::{dtype_name, Costs};
use ascend_core::profiler::schedule::{CoreSchedule, LaunchSchedule};
use ascend_core::profiler::{CopyDir, CoreLog, LaunchProfiler, Op, Pipe};
use ascend_core::Soc;
use serde_json::{json, Value};

/// The directory [`set_profile_dir`] gave, overriding `ASCEND_PROFILE`.
static DIR: Mutex<Option<PathBuf>> = Mutex::new(None);

/// Profiles every later launch of the process into `dir` (`None`: back to `ASCEND_PROFILE`).
pub fn set_profile_dir(dir: Option<PathBuf>) {
    *DIR.lock().unwrap_or_else(|e| e.into_inner()) = dir;
}

/// The directory every launch is profiled into: [`set_profile_dir`]'s, else the environment
/// variable `ASCEND_PROFILE` (when set and not empty), else none.
pub fn profile_dir() -> Option<PathBuf> {
    if let Some(d) = DIR.lock().unwrap_or_else(|e| e.into_inner()).clone() {
        return Some(d);
    }
    std::env::var_os("ASCEND_PROFILE").filter(|v| !v.is_empty()).map(PathBuf::from)
}

/// A profiled launch: the cores' records and their modelled schedule.
#[derive(Clone, Debug)]
pub struct Profile {
    /// The chip.
    pub soc: Soc,
    /// Per core, the records in program order.
    pub logs: Vec<CoreLog>,
    /// The modelled schedule.
    pub schedule: LaunchSchedule,
}

impl Profile {
    /// Schedules what `prof` recorded on `soc`.
    pub fn from_profiler(soc: Soc, prof: &LaunchProfiler) -> Profile {
        let (logs, schedule) = prof.take_scheduled(&Costs::of(soc));
        Profile { soc, logs, schedule }
    }

    /// The Chrome trace (`trace.json`).
    pub fn trace(&self) -> Value {
        let c = &self.schedule.costs;
        let us = |cy: u64| c.us(cy);
        let mut ev = Vec::new();
        for (core, log) in self.schedule.cores.iter().zip(&self.logs) {
            let pid = core.core;
            let kind = if core.aic { "AIC" } else { "AIV" };
            ev.push(json!({"name": "process_name", "ph": "M", "pid": pid, "args": {"name": format!("core {pid} ({kind})")}}));
            ev.push(
                json!({"name": "process_sort_index", "ph": "M", "pid": pid, "args": {"sort_index": pid}}),
            );
            for p in Pipe::ALL {
                ev.push(json!({"name": "thread_name", "ph": "M", "pid": pid, "tid": p as u32, "args": {"name": p.name()}}));
            }
            for s in &core.slices {
                let r = &log.recs[s.rec as usize];
                let mut args = json!({
                    "line": format!("{}:{}", r.loc().file(), r.loc().line()),
                    "cycles": s.end - s.start,
                });
                let a = args.as_object_mut().expect("an object");
                if !s.busy {
                    a.insert("wait".into(), json!(true));
                }
                match r.op {
                    Op::Vector { dtype, repeats, .. } => {
                        a.insert("dtype".into(), json!(dtype.map_or("?", dtype_name)));
                        a.insert("repeats".into(), json!(repeats));
                    }
                    Op::Copy { rows, row, .. } => {
                        a.insert("rows".into(), json!(rows));
                        a.insert("row_bytes".into(), json!(row));
                    }
                    Op::Mmad { m, n, k, dtype } => {
                        a.insert("mnk".into(), json!([m, n, k]));
                        a.insert("dtype".into(), json!(dtype_name(dtype)));
                    }
                    _ => {}
                }
                if r.ub_read.1 > 0 {
                    a.insert("ub_read".into(), json!(format!("[{:#x}, {:#x})", r.ub_read.0, r.ub_read.1)));
                }
                if r.ub_write.1 > 0 {
                    a.insert("ub_write".into(), json!(format!("[{:#x}, {:#x})", r.ub_write.0, r.ub_write.1)));
                }
                let gm = r.gm();
                if gm.1 > 0 {
                    a.insert("gm".into(), json!(format!("{:#x} + {} B", gm.0, gm.1)));
                }
                let name = match r.op {
                    Op::WaitFlag { .. } | Op::SetFlag { .. } if !r.api().contains(char::is_lowercase) => {
                        format!(
                            "{} {}",
                            if matches!(r.op, Op::SetFlag { .. }) { "SetFlag" } else { "WaitFlag" },
                            r.api()
                        )
                    }
                    _ => r.api().to_owned(),
                };
                // A flag is an instant: a slice of a nanosecond, so that its arrow binds.
                let dur = (us(s.end) - us(s.start)).max(0.001);
                ev.push(
                    json!({"name": name, "cat": s.pipe.name(), "ph": "X", "pid": pid, "tid": s.pipe as u32,
                    "ts": us(s.start), "dur": dur, "args": args}),
                );
            }
        }
        for (id, f) in self.schedule.flows().enumerate() {
            ev.push(json!({"name": "flag", "cat": "flag", "ph": "s", "id": id, "pid": f.from.0,
                "tid": f.from_at.0 as u32, "ts": us(f.from_at.1)}));
            ev.push(json!({"name": "flag", "cat": "flag", "ph": "f", "bp": "e", "id": id, "pid": f.to.0,
                "tid": f.to_at.0 as u32, "ts": us(f.to_at.1)}));
        }
        json!({"traceEvents": ev, "displayTimeUnit": "ns"})
    }

    /// `PipeUtilization.csv`: msprof's columns, one row per core.
    ///
    /// # Errors
    /// A CSV writer error (none in memory).
    pub fn pipe_utilization(&self) -> Result<String, csv::Error> {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(PIPE_COLUMNS)?;
        let c = &self.schedule.costs;
        for core in &self.schedule.cores {
            let t = |p: Pipe| format!("{:.3}", c.us(core.busy[p as usize]));
            let r = |p: Pipe| format!("{:.4}", core.ratio(p));
            let total = format!("{:.3}", c.us(core.end));
            let zero = || vec!["0".to_owned(); 10];
            let aiv = if core.aic {
                zero()
            } else {
                let mut v = vec![total.clone(), core.end.to_string(), t(Pipe::Vector), r(Pipe::Vector)];
                for p in [Pipe::Scalar, Pipe::Mte2, Pipe::Mte3] {
                    v.push(t(p));
                    v.push(r(p));
                }
                v
            };
            let aic = if core.aic {
                let mut v = vec![total.clone(), core.end.to_string(), t(Pipe::Cube), r(Pipe::Cube)];
                for p in [Pipe::Scalar, Pipe::Mte1, Pipe::Mte2, Pipe::Fixp] {
                    v.push(t(p));
                    v.push(r(p));
                }
                v
            } else {
                vec!["0".to_owned(); 12]
            };
            let mut row = vec![core.core.to_string(), "0".to_owned()];
            row.extend(aiv);
            row.extend(aic);
            row.push(format!("{:.3}", c.us(self.schedule.head)));
            row.push(format!("{:.3}", self.schedule.total_us()));
            w.write_record(&row)?;
        }
        let bytes = w.into_inner().map_err(|e| csv::Error::from(e.into_error()))?;
        Ok(String::from_utf8(bytes).unwrap_or_default())
    }

    /// `hotspots.csv`: per core, each (kernel line, API, pipe) with its calls and modelled busy
    /// cycles, busiest first.
    ///
    /// # Errors
    /// A CSV writer error (none in memory).
    pub fn hotspots(&self) -> Result<String, csv::Error> {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(["block_id", "file", "line", "api", "pipe", "calls", "cycles", "share"])?;
        for (core, log) in self.schedule.cores.iter().zip(&self.logs) {
            let mut by: HashMap<(&str, u32, &str, Pipe), (u64, u64)> = HashMap::new();
            for s in core.slices.iter().filter(|s| s.busy) {
                let r = &log.recs[s.rec as usize];
                let e = by.entry((r.loc().file(), r.loc().line(), r.api(), s.pipe)).or_default();
                e.0 += 1;
                e.1 += s.end - s.start;
            }
            let mut rows: Vec<_> = by.into_iter().filter(|(_, v)| v.1 > 0).collect();
            rows.sort_by(|a, b| b.1 .1.cmp(&a.1 .1).then(a.0.cmp(&b.0)));
            for ((file, line, api, pipe), (calls, cycles)) in rows {
                let share = if core.end == 0 { 0.0 } else { cycles as f64 / core.end as f64 };
                w.write_record([
                    core.core.to_string(),
                    file.to_owned(),
                    line.to_string(),
                    api.to_owned(),
                    pipe.name().to_owned(),
                    calls.to_string(),
                    cycles.to_string(),
                    format!("{share:.4}"),
                ])?;
            }
        }
        let bytes = w.into_inner().map_err(|e| csv::Error::from(e.into_error()))?;
        Ok(String::from_utf8(bytes).unwrap_or_default())
    }

    /// The hints: what the schedule suggests changing.
    pub fn hints(&self) -> Vec<String> {
        let mut h = Vec::new();
        let cores = &self.schedule.cores;
        for (core, log) in cores.iter().zip(&self.logs) {
            let (mte2, vec) = (core.ratio(Pipe::Mte2), core.ratio(Pipe::Vector));
            if mte2 > 0.1 && vec > 0.05 && overlap(core, Pipe::Mte2, Pipe::Vector) < 0.05 {
                h.push(format!(
                    "core {}: MTE2 and VECTOR never overlap ({:.0} % / {:.0} % busy): a single buffer? \
                     BUFFER_NUM = 2 lets the copy-in of the next tile run under this tile's compute",
                    core.core,
                    mte2 * 100.0,
                    vec * 100.0
                ));
                break;
            }
            let _ = log;
        }
        let copies: Vec<(u64, u64)> = self
            .logs
            .iter()
            .flat_map(|l| l.recs.iter())
            .filter_map(|r| match r.op {
                Op::Copy { dir: CopyDir::GmToUb | CopyDir::UbToGm | CopyDir::GmToL1, rows, row, gm } => {
                    Some((u64::from(rows) * u64::from(row), gm))
                }
                _ => None,
            })
            .collect();
        if !copies.is_empty() {
            let avg = copies.iter().map(|c| c.0).sum::<u64>() / copies.len() as u64;
            if avg < 16 * 1024 {
                h.push(format!(
                    "GM copies move {avg} B on average (< 16 KB): larger tiles use the bandwidth better \
                     (guide: 尽量一次搬运较大的数据块)"
                ));
            }
            let unaligned = copies.iter().filter(|c| c.1 % 512 != 0).count();
            if unaligned * 10 > copies.len() {
                h.push(format!(
                    "{unaligned} of {} GM copies start off a 512-byte boundary (up to 30 % slower; guide: \
                     GM地址尽量512B对齐)",
                    copies.len()
                ));
            }
        }
        for core in cores {
            if core.end > 0 && core.sync_idle * 10 > core.end {
                h.push(format!(
                    "core {}: idle {:.0} % of its time in SyncAll waiting for slower cores",
                    core.core,
                    core.sync_idle as f64 * 100.0 / core.end as f64
                ));
                break;
            }
        }
        if cores.len() > 1 {
            let max = cores.iter().map(|c| c.end).max().unwrap_or(0) as f64;
            let mean = cores.iter().map(|c| c.end as f64).sum::<f64>() / cores.len() as f64;
            if mean > 0.0 && max > mean * 1.1 {
                h.push(format!(
                    "load imbalance: the slowest core takes {:.0} % of the mean (guide: 核间负载均衡)",
                    max * 100.0 / mean
                ));
            }
        }
        h
    }

    /// The summary: per core its cycles and bound pipe, the launch's time, the hints.
    pub fn summary(&self) -> String {
        let s = &self.schedule;
        let c = &s.costs;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "profile (modelled, {:?} at {} GHz): {} cycles = {:.2} us ({} cores, head {:.2} us)",
            self.soc,
            c.clock_ghz,
            s.total,
            s.total_us(),
            s.cores.len(),
            c.us(s.head)
        );
        for core in &s.cores {
            let (p, r) = core.bound();
            let _ = writeln!(
                out,
                "  core {:>3} ({}): {:>9} cycles {:>9.2} us  {}-bound: {:.0} % busy",
                core.core,
                if core.aic { "AIC" } else { "AIV" },
                core.end,
                c.us(core.end),
                p.name(),
                r * 100.0
            );
        }
        for h in self.hints() {
            let _ = writeln!(out, "  hint: {h}");
        }
        out
    }

    /// An SVG chart of `core`'s pipes (the busy ones), `width` pixels wide.
    pub fn svg(&self, core: usize, title: &str, width: u32) -> String {
        let Some(cs) = self.schedule.cores.get(core) else { return String::new() };
        let log = &self.logs[core];
        let pipes: Vec<Pipe> = Pipe::ALL.iter().copied().filter(|&p| cs.busy[p as usize] > 0).collect();
        let (left, lane, top) = (70.0, 26.0, 30.0);
        let end = cs.end.max(1) as f64;
        let scale = (f64::from(width) - left - 10.0) / end;
        let height = top + lane * pipes.len() as f64 + 30.0;
        let mut s = String::new();
        let _ = writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="12">"#
        );
        let _ = writeln!(s, r#"<text x="4" y="18">{}</text>"#, escape(title));
        let colour = |p: Pipe| match p {
            Pipe::Mte2 => "#4e79a7",
            Pipe::Vector => "#59a14f",
            Pipe::Mte3 => "#f28e2b",
            Pipe::Cube => "#e15759",
            Pipe::Scalar => "#9c755f",
            _ => "#b07aa1",
        };
        for (i, &p) in pipes.iter().enumerate() {
            let y = top + lane * i as f64;
            let _ = writeln!(s, r#"<text x="4" y="{:.1}">{}</text>"#, y + 16.0, p.name());
            for sl in cs.slices.iter().filter(|sl| sl.pipe == p && sl.end > sl.start) {
                let r = &log.recs[sl.rec as usize];
                let idle = !sl.busy;
                let _ = writeln!(
                    s,
                    r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{}" stroke="white" stroke-width="0.5"><title>{} {}-{}</title></rect>"#,
                    left + sl.start as f64 * scale,
                    y + 4.0,
                    ((sl.end - sl.start) as f64 * scale).max(0.5),
                    lane - 8.0,
                    if idle { "#dddddd" } else { colour(p) },
                    escape(r.api()),
                    sl.start,
                    sl.end
                );
            }
        }
        let y = top + lane * pipes.len() as f64 + 16.0;
        let _ = writeln!(s, r#"<text x="{left}" y="{y:.1}">0</text>"#);
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{y:.1}" text-anchor="end">{} cycles ({:.2} us)</text>"#,
            f64::from(width) - 10.0,
            cs.end,
            self.schedule.costs.us(cs.end)
        );
        s.push_str("</svg>\n");
        s
    }

    /// Writes `trace.json`, `PipeUtilization.csv`, `hotspots.csv`, `pipeline.svg` and
    /// `summary.txt` into `dir` (created if missing).
    ///
    /// # Errors
    /// A file that cannot be written.
    pub fn write(&self, dir: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        std::fs::write(
            dir.join("trace.json"),
            serde_json::to_string(&self.trace()).map_err(std::io::Error::other)?,
        )?;
        std::fs::write(
            dir.join("PipeUtilization.csv"),
            self.pipe_utilization().map_err(std::io::Error::other)?,
        )?;
        std::fs::write(dir.join("hotspots.csv"), self.hotspots().map_err(std::io::Error::other)?)?;
        std::fs::write(dir.join("pipeline.svg"), self.svg(0, "core 0", 900))?;
        std::fs::write(dir.join("summary.txt"), self.summary())
    }
}

/// The columns of msprof's `PipeUtilization.csv` this writes.
pub const PIPE_COLUMNS: [&str; 26] = [
    "block_id",
    "sub_block_id",
    "aiv_time(us)",
    "aiv_total_cycles",
    "aiv_vec_time(us)",
    "aiv_vec_ratio",
    "aiv_scalar_time(us)",
    "aiv_scalar_ratio",
    "aiv_mte2_time(us)",
    "aiv_mte2_ratio",
    "aiv_mte3_time(us)",
    "aiv_mte3_ratio",
    "aic_time(us)",
    "aic_total_cycles",
    "aic_cube_time(us)",
    "aic_cube_ratio",
    "aic_scalar_time(us)",
    "aic_scalar_ratio",
    "aic_mte1_time(us)",
    "aic_mte1_ratio",
    "aic_mte2_time(us)",
    "aic_mte2_ratio",
    "aic_fixpipe_time(us)",
    "aic_fixpipe_ratio",
    "launch_head(us)",
    "launch_total(us)",
];

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// The fraction of the shorter of pipes `a`'s and `b`'s busy time during which both are busy.
pub fn overlap(core: &CoreSchedule, a: Pipe, b: Pipe) -> f64 {
    let runs = |p: Pipe| -> Vec<(u64, u64)> {
        core.slices
            .iter()
            .filter(|s| s.pipe == p && s.busy && s.end > s.start)
            .map(|s| (s.start, s.end))
            .collect()
    };
    let (ra, rb) = (runs(a), runs(b));
    let (mut i, mut j, mut both) = (0, 0, 0u64);
    while i < ra.len() && j < rb.len() {
        let (s, e) = (ra[i].0.max(rb[j].0), ra[i].1.min(rb[j].1));
        if s < e {
            both += e - s;
        }
        if ra[i].1 < rb[j].1 {
            i += 1;
        } else {
            j += 1;
        }
    }
    let shorter = core.busy[a as usize].min(core.busy[b as usize]);
    if shorter == 0 {
        0.0
    } else {
        both as f64 / shorter as f64
    }
}
