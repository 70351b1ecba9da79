//! The driver-statistics protocol against scripted kernels: one that refuses a count not
//! the driver's (7b07be1ff1cb) and one that ignores it (older kernels).

use super::*;
use crate::source::ioctl::with_headroom;

#[test]
fn stat_table_maps_driver_order_to_names() {
    // Driver order is not name order; a repeated name keeps its last value.
    let t = StatTable::new(Some(1), ["tx", "rx", "drops", "rx"].map(String::from).to_vec());
    let mut buf = vec![0u8; 8];
    for v in [10u64, 20, 30, 40] {
        buf.extend_from_slice(&v.to_ne_bytes());
    }
    let s = t.fill(&buf);
    assert_eq!(t.count, 4);
    assert_eq!(s, DriverStats::from([("drops".into(), 30), ("rx".into(), 40), ("tx".into(), 10)]));
}

/// A driver with `count` counters named `c0, c1, ...` whose values are 100 + index,
/// behind a kernel that `refuses` mismatched counts or not (net/ethtool/ioctl.c
/// `ethtool_get_stats` before and after 7b07be1ff1cb). Records each ioctl.
struct Scripted {
    refuses: bool,
    count: u32,
    calls: Vec<&'static str>,
}

impl Scripted {
    fn new(refuses: bool, count: u32) -> Self {
        Scripted { refuses, count, calls: Vec::new() }
    }
    fn take_calls(&mut self) -> Vec<&'static str> {
        std::mem::take(&mut self.calls)
    }
}

impl StatIoctls for Scripted {
    fn stat_count(&mut self, _: &Dev) -> Result<Option<u32>> {
        self.calls.push("GSSET_INFO");
        Ok(Some(self.count))
    }
    fn stat_names(&mut self, _: &Dev, n: u32) -> Result<Option<Vec<String>>> {
        self.calls.push("GSTRINGS");
        Ok((n == self.count).then(|| (0..n).map(|i| format!("c{i}")).collect()))
    }
    fn stat_values(&mut self, _: &Dev, n: u32, buf: &mut Vec<u8>) -> Result<u32> {
        self.calls.push("GSTATS");
        if self.refuses && n != self.count {
            buf[4..8].copy_from_slice(&0u32.to_ne_bytes());
            return Ok(0);
        }
        // An old kernel writes the driver's count whatever was asked: the buffer the real
        // ioctl sizes for `n` must hold it.
        assert!(self.count as usize <= with_headroom(n), "{} values overflow a buffer for {n}", self.count);
        buf.resize(8 + with_headroom(n) * 8, 0);
        buf[4..8].copy_from_slice(&self.count.to_ne_bytes());
        for i in 0..self.count as usize {
            buf[8 + 8 * i..16 + 8 * i].copy_from_slice(&(100 + i as u64).to_ne_bytes());
        }
        Ok(self.count)
    }
}

fn dev(ifindex: u32) -> Dev {
    Dev { name: "eth0".into(), ifindex: Some(ifindex), driver: Some("mlx5_core".into()) }
}

/// Counters c0..c(n-1) with 100 + index each, as the scripted driver gives them.
fn expected(n: u32) -> DriverStats {
    (0..n).map(|i| (format!("c{i}").into(), 100 + u64::from(i))).collect()
}

#[test]
fn refusing_kernel_samples_with_gstats_alone() {
    let (mut k, mut r) = (Scripted::new(true, 3), StatReader::default());
    assert_eq!(r.read(&mut k, &dev(5)).unwrap(), expected(3));
    // First read: count, names, values, then the probe (4 values: refused) and its check.
    assert_eq!(k.take_calls(), ["GSSET_INFO", "GSTRINGS", "GSTATS", "GSTATS", "GSSET_INFO"]);
    assert_eq!(r.counts, CountCheck::Refuses);
    for _ in 0..3 {
        assert_eq!(r.read(&mut k, &dev(5)).unwrap(), expected(3));
        assert_eq!(k.take_calls(), ["GSTATS"]);
    }
    // The driver grew two counters: the kernel answers 0, names and values are read again.
    k.count = 5;
    assert_eq!(r.read(&mut k, &dev(5)).unwrap(), expected(5));
    assert_eq!(k.take_calls(), ["GSTATS", "GSSET_INFO", "GSTRINGS", "GSTATS"]);
    assert_eq!(r.read(&mut k, &dev(5)).unwrap(), expected(5));
    assert_eq!(k.take_calls(), ["GSTATS"]);
    // Another device under the name (another ifindex): its own count and names first.
    assert_eq!(r.read(&mut k, &dev(6)).unwrap(), expected(5));
    assert_eq!(k.take_calls(), ["GSSET_INFO", "GSTRINGS", "GSTATS"]);
}

#[test]
fn old_kernel_keeps_gsset_info_first() {
    let (mut k, mut r) = (Scripted::new(false, 3), StatReader::default());
    assert_eq!(r.read(&mut k, &dev(5)).unwrap(), expected(3));
    // The probe for 4 got the driver's 3: the kernel ignores counts.
    assert_eq!(k.take_calls(), ["GSSET_INFO", "GSTRINGS", "GSTATS", "GSTATS"]);
    assert_eq!(r.counts, CountCheck::Ignores);
    assert_eq!(r.read(&mut k, &dev(5)).unwrap(), expected(3));
    assert_eq!(k.take_calls(), ["GSSET_INFO", "GSTATS"]);
    // Growth far beyond the headroom of the old count is safe: GSSET_INFO sizes the buffer.
    k.count = 3 * 2 + 64 + 1;
    assert_eq!(r.read(&mut k, &dev(5)).unwrap(), expected(71));
    assert_eq!(k.take_calls(), ["GSSET_INFO", "GSTRINGS", "GSTATS"]);
}

#[test]
fn inconclusive_or_failed_probes_are_made_again() {
    /// Fails every GSTATS after the first `ok` ones.
    struct Failing(Scripted, usize);
    impl StatIoctls for Failing {
        fn stat_count(&mut self, d: &Dev) -> Result<Option<u32>> {
            self.0.stat_count(d)
        }
        fn stat_names(&mut self, d: &Dev, n: u32) -> Result<Option<Vec<String>>> {
            self.0.stat_names(d, n)
        }
        fn stat_values(&mut self, d: &Dev, n: u32, buf: &mut Vec<u8>) -> Result<u32> {
            if self.1 == 0 {
                self.0.calls.push("GSTATS");
                return Err(SourceError::from_errno("ETHTOOL_GSTATS", &d.name, None, libc::EIO, None));
            }
            self.1 -= 1;
            self.0.stat_values(d, n, buf)
        }
    }
    let (mut k, mut r) = (Failing(Scripted::new(true, 3), 1), StatReader::default());
    assert_eq!(r.read(&mut k, &dev(5)).unwrap(), expected(3));
    assert_eq!(r.counts, CountCheck::Unknown, "the probe failed");
    k.1 = 10;
    assert_eq!(r.read(&mut k, &dev(5)).unwrap(), expected(3));
    assert_eq!(r.counts, CountCheck::Refuses);
    // On the GSTATS-alone path an error is not the answer: the full read gives it (or,
    // here, the values).
    k.0.take_calls();
    k.1 = 0;
    assert!(r.read(&mut k, &dev(5)).is_err());
    assert_eq!(k.0.take_calls(), ["GSTATS", "GSSET_INFO", "GSTATS"]);
    // A driver whose set vanished (GSSET_INFO clears its bit) has no counters, as before.
    struct Vanished;
    impl StatIoctls for Vanished {
        fn stat_count(&mut self, _: &Dev) -> Result<Option<u32>> {
            Ok(None)
        }
        fn stat_names(&mut self, _: &Dev, _: u32) -> Result<Option<Vec<String>>> {
            unreachable!("no names without a count")
        }
        fn stat_values(&mut self, d: &Dev, _: u32, _: &mut Vec<u8>) -> Result<u32> {
            Err(SourceError::from_errno("ETHTOOL_GSTATS", &d.name, None, libc::EOPNOTSUPP, None))
        }
    }
    assert_eq!(r.read(&mut Vanished, &dev(5)).unwrap(), DriverStats::new());
}

#[test]
fn a_count_that_keeps_changing_is_unavailable() {
    /// Each GSSET_INFO reports one counter more than the last.
    struct Growing(Scripted);
    impl StatIoctls for Growing {
        fn stat_count(&mut self, d: &Dev) -> Result<Option<u32>> {
            self.0.count += 1;
            self.0.stat_count(d)
        }
        fn stat_names(&mut self, d: &Dev, n: u32) -> Result<Option<Vec<String>>> {
            self.0.count += 1;
            self.0.stat_names(d, n)
        }
        fn stat_values(&mut self, d: &Dev, n: u32, buf: &mut Vec<u8>) -> Result<u32> {
            self.0.stat_values(d, n, buf)
        }
    }
    let e = StatReader::default().read(&mut Growing(Scripted::new(true, 3)), &dev(5)).unwrap_err();
    assert_eq!(e.to_string(), "driver statistics: the number of counters of eth0 kept changing between calls");
}
