//! What the cores of a launch printed ([`KernelOutput`]).

use std::io::Write as _;

/// The text the cores of one launch printed with `ascend_printf!` and `dump_tensor`, ordered
/// by core; every line carries its core's prefix `[AIV Block i/n] `.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelOutput {
    /// `(core, text)` for each core that printed, by core index.
    cores: Vec<(u32, String)>,
}

impl KernelOutput {
    /// The output of cores given in any order.
    pub(crate) fn from_cores(mut cores: Vec<(u32, String)>) -> KernelOutput {
        cores.sort_by_key(|&(c, _)| c);
        KernelOutput { cores }
    }

    /// Everything, core 0's lines first.
    pub fn text(&self) -> String {
        self.cores.iter().map(|(_, t)| t.as_str()).collect()
    }

    /// What core `core` printed (empty if it printed nothing), with its prefixes.
    pub fn core(&self, core: u32) -> &str {
        self.cores.binary_search_by_key(&core, |&(c, _)| c).map_or("", |i| self.cores[i].1.as_str())
    }

    /// The lines of core `core` without their prefix.
    pub fn core_lines(&self, core: u32) -> Vec<&str> {
        self.core(core).lines().map(|l| l.split_once("] ").map_or(l, |(_, rest)| rest)).collect()
    }

    /// Every line, in core order.
    pub fn lines(&self) -> impl Iterator<Item = &str> {
        self.cores.iter().flat_map(|(_, t)| t.lines())
    }

    /// The cores that printed something, ascending.
    pub fn cores(&self) -> impl Iterator<Item = u32> + '_ {
        self.cores.iter().map(|&(c, _)| c)
    }

    /// Whether no core printed anything.
    pub fn is_empty(&self) -> bool {
        self.cores.is_empty()
    }

    /// Writes everything to stdout (what [`Launch::run`](crate::Launch::run) does).
    pub fn print(&self) {
        if self.is_empty() {
            return;
        }
        // `print!` rather than a raw stdout handle, so a test harness captures it.
        print!("{}", self.text());
        let _ = std::io::stdout().flush();
    }
}
