//! Driver-private counters (`ethtool -S`) over GSSET_INFO, GSTRINGS and GSTATS
//! (kernel-uapi.md §7), always passing the expected count and sizing the buffer to it.
//!
//! The names (32 bytes each: 16 kB for a 64-queue veth) are read once per device and again
//! only when the count changes or another device (ifindex) holds the name. A count that
//! changes between calls (mlx5, iavf reconfigurations) is re-queried once.
//!
//! A sample is GSSET_INFO + GSTATS, or GSTATS alone where the kernel refuses a count that
//! is not the driver's: upstream 7b07be1ff1cb (Dec 2025, stable backports) answers such a
//! GSTATS with count 0 and writes no values, so the table's count passed alone is checked
//! by the kernel itself, and a 0 means "read the count and names again". Older kernels
//! ignore the count and write the driver's current number of values: there GSSET_INFO
//! must come first, to size the buffer for what will be written. Which kind of kernel
//! this is, one GSTATS with a count known to be wrong tells, once per socket
//! ([`CountCheck`]).

use crate::counters::DriverStats;
use crate::source::netlink::Dev;
use crate::source::{Result, SourceError};
use std::collections::BTreeMap;

/// More counters than any driver has (mlx5 has a few thousand): a larger count is
/// treated as garbage rather than allocated.
const MAX_STATS: u32 = 1 << 16;

/// The three ioctls of a read, behind a trait so the protocol is tested against kernels
/// scripted to behave old and new.
pub(super) trait StatIoctls {
    /// GSSET_INFO for ETH_SS_STATS: `None` when the driver has no such set.
    fn stat_count(&mut self, dev: &Dev) -> Result<Option<u32>>;
    /// GSTRINGS for `n` names: `None` when the kernel answered with another count.
    fn stat_names(&mut self, dev: &Dev, n: u32) -> Result<Option<Vec<String>>>;
    /// GSTATS for `n` values into `buf` (`{u32 cmd; u32 n; u64 data[n]}`, sized by the
    /// callee for what the kernel may write): the count the kernel wrote back.
    fn stat_values(&mut self, dev: &Dev, n: u32, buf: &mut Vec<u8>) -> Result<u32>;
}

/// Whether the kernel refuses a GSTATS whose non-zero count differs from the driver's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum CountCheck {
    /// Not probed yet (or the probe was inconclusive).
    #[default]
    Unknown,
    /// Answers count 0 and writes nothing: GSTATS alone is safe.
    Refuses,
    /// Writes the driver's count whatever was asked: GSSET_INFO first.
    Ignores,
}

/// A device's counter names, ready to take each sample's values: `names` holds them
/// sorted (a repeated name once, with the GSTATS index of its last occurrence as its
/// value, as collecting the pairs into a map would keep), and each sample is a new
/// vector of values in that order sharing the name table. `ifindex` is the device's
/// when the table was read: a device renamed into the name is a miss.
struct StatTable {
    ifindex: Option<u32>,
    count: usize,
    names: DriverStats,
    /// The GSTATS index of each name, in name order (the names' values as a plain
    /// slice: a sample's fill is then one pass over it, ~5x fewer instructions than
    /// walking the name table).
    index: Vec<usize>,
}

impl StatTable {
    fn new(ifindex: Option<u32>, names: Vec<String>) -> Self {
        let count = names.len();
        let names: DriverStats = names.into_iter().zip(0..).map(|(n, i)| (n.into(), i)).collect();
        // Each index is below `count`, a u32 (GSSET_INFO): it fits usize.
        let index = names.iter().map(|(_, i)| i as usize).collect();
        StatTable { ifindex, count, names, index }
    }

    /// The counters from a GSTATS buffer (`{u32 cmd; u32 n; u64 data[n]}`).
    fn fill(&self, buf: &[u8]) -> DriverStats {
        let (data, _) = buf.get(8..).unwrap_or_default().as_chunks::<8>();
        self.names.with_values(self.index.iter().map(|&i| data.get(i).map_or(0, |v| u64::from_ne_bytes(*v))))
    }
}

/// What a socket keeps between reads: the name tables per device name, the GSTATS
/// buffer (several kB for a 64-queue device) and what the kernel does with counts.
#[derive(Default)]
pub(super) struct StatReader {
    tables: BTreeMap<String, StatTable>,
    buf: Vec<u8>,
    counts: CountCheck,
}

impl StatReader {
    pub(super) fn read(&mut self, k: &mut impl StatIoctls, dev: &Dev) -> Result<DriverStats> {
        if self.counts == CountCheck::Refuses {
            if let Some(t) = self.tables.get(&dev.name).filter(|t| t.ifindex == dev.ifindex) {
                // The count came from GSSET_INFO (a u32), so it fits.
                let n = t.count as u32;
                if k.stat_values(dev, n, &mut self.buf).is_ok_and(|written| written == n) {
                    return Ok(t.fill(&self.buf));
                }
                // 0 (the count changed) or an error: the full read says what it is now.
            }
        }
        for _attempt in 0..2 {
            let n = match k.stat_count(dev)? {
                None | Some(0) => return Ok(DriverStats::new()),
                Some(n) if n > MAX_STATS => {
                    return Err(SourceError::Malformed {
                        what: "ETHTOOL_GSSET_INFO".into(),
                        detail: format!("driver reports {n} counters, more than {MAX_STATS}"),
                    })
                }
                Some(n) => n,
            };
            let known = self.tables.get(&dev.name).is_some_and(|t| t.count == n as usize && t.ifindex == dev.ifindex);
            if !known {
                let Some(names) = k.stat_names(dev, n)? else { continue };
                self.tables.insert(dev.name.clone(), StatTable::new(dev.ifindex, names));
            }
            if k.stat_values(dev, n, &mut self.buf)? != n {
                continue;
            }
            // Present: found or inserted above, and nothing removes a table in between.
            let stats = self.tables[&dev.name].fill(&self.buf);
            if self.counts == CountCheck::Unknown {
                self.counts = probe(k, dev, n, &mut self.buf);
            }
            return Ok(stats);
        }
        Err(SourceError::Unavailable {
            what: "driver statistics".into(),
            detail: format!("the number of counters of {} kept changing between calls", dev.name),
        })
    }
}

/// One GSTATS with `n + 1` values, just after the driver reported `n`: a kernel that
/// refuses the count answers 0; an old one writes the driver's `n` (into a buffer sized
/// for `n + 1` and headroom). An old kernel answers 0 only for a driver with no counters
/// at that instant (net/ethtool/ioctl.c `ethtool_get_stats` WARNs on it), so a 0 counts
/// only when GSSET_INFO still says `n` afterwards. Anything else (the count changed
/// meanwhile, an error) is inconclusive, and the probe is made again on the next read.
fn probe(k: &mut impl StatIoctls, dev: &Dev, n: u32, buf: &mut Vec<u8>) -> CountCheck {
    match k.stat_values(dev, n + 1, buf) {
        Ok(0) if k.stat_count(dev).is_ok_and(|now| now == Some(n)) => CountCheck::Refuses,
        Ok(written) if written == n => CountCheck::Ignores,
        _ => CountCheck::Unknown,
    }
}

#[cfg(test)]
mod tests;
