//! [`DriverStats`]: driver-private counters by `ethtool -S` name, as one shared, sorted
//! name table and the values in that order.
//!
//! A live sampler reads the same names every sample (577 on a 64-queue veth); sharing the
//! table makes a sample one vector of values and a clone one reference count and one
//! allocation, where a map of the names costs an entry (and a count) per name each way.

use super::slots::{NameTable, Slots};
use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::cmp::Ordering;
use std::sync::{Arc, LazyLock, OnceLock};

/// Driver counters, kept raw for captures: a map from name to value with the semantics of
/// `BTreeMap<Arc<str>, u64>` (names unique, in byte-wise order; a repeated name keeps its
/// last value) that serializes as the same JSON object, the capture's `driver_stats`.
#[derive(Clone, PartialEq, Eq)]
pub struct DriverStats {
    /// Unique names in ascending byte-wise order, shared by every sample of a device.
    names: Arc<Names>,
    /// `values[k]` is the value of `names[k]`.
    values: Vec<u64>,
}

/// A name table, and where the counters the counter model reads sit in it: found on
/// first use and shared by every sample of the table, so a live device's samples look
/// no name up (at 577 counters the searches were ~6% of `watch`'s CPU).
struct Names {
    list: Box<[Name]>,
    slots: OnceLock<Slots>,
}

impl From<Vec<Name>> for Names {
    fn from(list: Vec<Name>) -> Self {
        Names { list: list.into(), slots: OnceLock::new() }
    }
}

impl std::ops::Deref for Names {
    type Target = [Name];
    fn deref(&self) -> &[Name] {
        &self.list
    }
}

/// Equal names (the slots follow from them).
impl PartialEq for Names {
    fn eq(&self, other: &Self) -> bool {
        self.list == other.list
    }
}

impl Eq for Names {}

/// A name and its first 8 bytes as a big-endian integer, zero-padded. Two heads that
/// differ order their names as the names' bytes do (the first differing byte decides, and
/// a name that ended there has the padding's 0, so it is the shorter, smaller one): a
/// search compares integers in one array and reads a name (another allocation) only on a
/// tie. A profile of `watch` at 577 counters had 12% of its CPU in name comparisons.
#[derive(Clone, PartialEq, Eq)]
struct Name {
    head: u64,
    name: Arc<str>,
}

impl Name {
    fn new(name: Arc<str>) -> Self {
        Name { head: head(&name), name }
    }

    /// This name against `name` (whose head is `head`), in byte-wise order.
    fn cmp_to(&self, head: u64, name: &str) -> Ordering {
        self.head.cmp(&head).then_with(|| (*self.name).cmp(name))
    }
}

fn head(name: &str) -> u64 {
    let b = name.as_bytes();
    match b.first_chunk::<8>() {
        Some(h) => u64::from_be_bytes(*h),
        // A copy of a variable length is a call to memcpy: most of a search's cost.
        None => b.iter().zip((0..8).rev()).fold(0, |h, (&c, i)| h | u64::from(c) << (8 * i)),
    }
}

/// One empty name table for every empty set of counters (most records of a capture
/// without driver counters): `Default` allocates nothing.
static NO_NAMES: LazyLock<Arc<Names>> = LazyLock::new(|| Arc::new(Vec::new().into()));

impl Default for DriverStats {
    fn default() -> Self {
        DriverStats { names: NO_NAMES.clone(), values: Vec::new() }
    }
}

impl DriverStats {
    /// No counters.
    pub fn new() -> Self {
        Self::default()
    }

    /// How many counters there are.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// No counters.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Where `name` is, or where it would go.
    fn search(&self, name: &str) -> Result<usize, usize> {
        let h = head(name);
        self.names.binary_search_by(|n| n.cmp_to(h, name))
    }

    /// Where the counter model's counters are in these names ([`Slots`]), found once per
    /// name table.
    pub(super) fn slots(&self) -> &Slots {
        self.names.slots.get_or_init(|| Slots::find(self))
    }

    /// The position of `name` in name order.
    pub(super) fn position(&self, name: &str) -> Option<usize> {
        self.search(name).ok()
    }

    /// The positions of the names that start with `prefix` (a range of the sorted names).
    pub(super) fn prefix_range(&self, prefix: &str) -> std::ops::Range<usize> {
        let h = head(prefix);
        let start = self.names.partition_point(|n| n.cmp_to(h, prefix) == Ordering::Less);
        let len = self.names[start..].iter().take_while(|n| n.name.starts_with(prefix)).count();
        start..start + len
    }

    /// The name and the value at position `k` of the name order (`k < len()`).
    pub(super) fn at(&self, k: usize) -> (&Arc<str>, u64) {
        (&self.names[k].name, self.values[k])
    }

    /// The value of `name` (a binary search of the names).
    pub fn get(&self, name: &str) -> Option<u64> {
        self.position(name).map(|k| self.values[k])
    }

    /// Every counter in name order.
    pub fn iter(&self) -> Iter<'_> {
        Iter { names: self.names.iter(), values: self.values.iter() }
    }

    /// The values in name order, to change in place (the names stay shared).
    pub fn values_mut(&mut self) -> impl ExactSizeIterator<Item = &mut u64> + '_ {
        self.values.iter_mut()
    }

    /// The counters whose name starts with `prefix`, in name order (a range of the
    /// sorted names, not a scan).
    #[cfg(test)]
    fn with_prefix<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = (&'a Arc<str>, u64)> + 'a {
        self.prefix_range(prefix).map(|k| self.at(k))
    }

    /// The same names with new values, the k-th for the k-th name in name order (0 for
    /// names past the end of `values`; values past the last name are ignored): a new
    /// sample of the same counters that shares this name table (one allocation).
    pub(crate) fn with_values(&self, values: impl IntoIterator<Item = u64>) -> DriverStats {
        let n = self.names.len();
        let mut values: Vec<u64> = values.into_iter().take(n).collect();
        values.resize(n, 0);
        DriverStats { names: self.names.clone(), values }
    }

    /// Sets `name` to `value`, adding the name if it is new. Adding copies the name table
    /// (O(n)): build many counters with `collect` instead.
    pub(crate) fn insert(&mut self, name: Arc<str>, value: u64) {
        match self.search(&name) {
            Ok(k) => self.values[k] = value,
            Err(k) => {
                let mut names = self.names.to_vec();
                names.insert(k, Name::new(name));
                self.names = Arc::new(names.into());
                self.values.insert(k, value);
            }
        }
    }

    /// From (name, value) pairs in any order: sorted by name, a repeated name keeping its
    /// last value (what inserting them one by one into a map does).
    fn from_pairs(mut pairs: Vec<(Arc<str>, u64)>) -> Self {
        if pairs.is_empty() {
            return Self::default();
        }
        // Captures are written in name order: check before sorting.
        if !pairs.windows(2).all(|w| w[0].0 < w[1].0) {
            // Stable, so equal names stay in input order and the dedup below keeps the last.
            pairs.sort_by(|a, b| a.0.cmp(&b.0));
            let mut unique: Vec<(Arc<str>, u64)> = Vec::with_capacity(pairs.len());
            for (name, value) in pairs {
                match unique.last_mut() {
                    Some(last) if last.0 == name => last.1 = value,
                    _ => unique.push((name, value)),
                }
            }
            pairs = unique;
        }
        let (names, values): (Vec<Name>, Vec<u64>) = pairs.into_iter().map(|(n, v)| (Name::new(n), v)).unzip();
        DriverStats { names: Arc::new(names.into()), values }
    }
}

impl NameTable for DriverStats {
    fn position(&self, name: &str) -> Option<usize> {
        DriverStats::position(self, name)
    }
    fn prefix_range(&self, prefix: &str) -> std::ops::Range<usize> {
        DriverStats::prefix_range(self, prefix)
    }
    fn name_at(&self, k: usize) -> &str {
        &self.names[k].name
    }
}

/// [`DriverStats::iter`]: (name, value) in name order.
pub struct Iter<'a> {
    names: std::slice::Iter<'a, Name>,
    values: std::slice::Iter<'a, u64>,
}

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a Arc<str>, u64);
    fn next(&mut self) -> Option<Self::Item> {
        Some((&self.names.next()?.name, *self.values.next()?))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.values.size_hint()
    }
}

impl ExactSizeIterator for Iter<'_> {}

// Keys are `Arc<str>` as in the map this replaced (`("name".into(), 1)`, a shared name's
// `clone()`), so the name type is inferred where a generic key would need annotations.
impl FromIterator<(Arc<str>, u64)> for DriverStats {
    fn from_iter<I: IntoIterator<Item = (Arc<str>, u64)>>(iter: I) -> Self {
        Self::from_pairs(iter.into_iter().collect())
    }
}

impl Extend<(Arc<str>, u64)> for DriverStats {
    /// Adds or replaces counters: the pairs win over the names already here, the last of
    /// a repeated name over the earlier ones.
    fn extend<I: IntoIterator<Item = (Arc<str>, u64)>>(&mut self, iter: I) {
        let old = self.iter().map(|(k, v)| (k.clone(), v));
        *self = Self::from_pairs(old.chain(iter).collect());
    }
}

impl<const N: usize> From<[(Arc<str>, u64); N]> for DriverStats {
    fn from(pairs: [(Arc<str>, u64); N]) -> Self {
        pairs.into_iter().collect()
    }
}

impl<'a> IntoIterator for &'a DriverStats {
    type Item = (&'a Arc<str>, u64);
    type IntoIter = Iter<'a>;
    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl std::ops::Index<&str> for DriverStats {
    type Output = u64;
    /// Panics when `name` is missing, as a map's index does.
    fn index(&self, name: &str) -> &u64 {
        match self.search(name) {
            Ok(k) => &self.values[k],
            Err(_) => panic!("no driver counter named {name:?}"),
        }
    }
}

impl std::fmt::Debug for DriverStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl Serialize for DriverStats {
    /// A JSON object in name order: what the `BTreeMap` this replaced wrote.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.len()))?;
        for (name, value) in self {
            map.serialize_entry(&**name, &value)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for DriverStats {
    /// A map of unsigned integers, as serde reads a `BTreeMap<_, u64>`: a repeated name
    /// keeps its last value, anything but a map (or a value that is not a u64) is an
    /// error. The input bounds the size (the capture reader's line limit).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Counters;
        impl<'de> Visitor<'de> for Counters {
            type Value = DriverStats;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map of counter names to unsigned integers")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<DriverStats, A::Error> {
                // A hint from the input is not trusted with an allocation past a few kB.
                let mut pairs = Vec::with_capacity(map.size_hint().unwrap_or(0).min(4096));
                while let Some((name, value)) = map.next_entry::<Arc<str>, u64>()? {
                    pairs.push((name, value));
                }
                Ok(DriverStats::from_pairs(pairs))
            }
        }
        d.deserialize_map(Counters)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// The type this replaced, built from the same pairs: its serialization is the contract.
    fn as_map(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    fn stats(pairs: &[(&str, u64)]) -> DriverStats {
        pairs.iter().map(|(k, v)| ((*k).into(), *v)).collect()
    }

    // Out of order, repeated names, byte-wise order traps: uppercase sorts before
    // lowercase, '[' (0x5B) between them, "rx" before "rx_bits", UTF-8 after ASCII.
    const PAIRS: &[(&str, u64)] = &[
        ("tx_packets", 3),
        ("rx_bits", 1),
        ("rx", 9),
        ("[0]: rx_ucast_packets", 5),
        ("Rx", 4),
        ("rx_bits", 2),
        ("é_count", 7),
        ("", 0),
        ("tx_packets", u64::MAX),
    ];

    #[test]
    fn sorted_by_bytes_last_value_wins() {
        let s = stats(PAIRS);
        let want = as_map(PAIRS);
        let got: Vec<(String, u64)> = s.iter().map(|(k, v)| (k.to_string(), v)).collect();
        assert_eq!(got, want.clone().into_iter().collect::<Vec<_>>());
        assert_eq!(s.len(), 7);
        assert_eq!(s.get("rx_bits"), Some(2));
        assert_eq!(s.get("tx_packets"), Some(u64::MAX));
        assert_eq!(s["Rx"], 4);
        assert_eq!(s.get("rx_bit"), None);
        assert_eq!(format!("{s:?}"), format!("{want:?}"));
    }

    #[test]
    fn serializes_as_the_map_did() {
        let s = stats(PAIRS);
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(json, serde_json::to_string(&as_map(PAIRS)).unwrap());
        assert_eq!(serde_json::to_string_pretty(&s).unwrap(), serde_json::to_string_pretty(&as_map(PAIRS)).unwrap());
        let back: DriverStats = serde_json::from_str(&json).unwrap();
        assert_eq!(back, s);
        assert_eq!(serde_json::to_string(&back).unwrap(), json);
        assert_eq!(serde_json::to_string(&DriverStats::new()).unwrap(), "{}");
    }

    #[test]
    fn deserializes_like_a_map() {
        // Duplicate keys: serde's BTreeMap keeps the last, without an error.
        let text = r#"{"b": 1, "a": 2, "b": 3}"#;
        let map: BTreeMap<String, u64> = serde_json::from_str(text).unwrap();
        let s: DriverStats = serde_json::from_str(text).unwrap();
        assert_eq!(s, stats(&[("a", 2), ("b", 3)]));
        assert_eq!(serde_json::to_string(&s).unwrap(), serde_json::to_string(&map).unwrap());
        // Refused wherever the map refuses: non-objects, values that are not u64.
        for bad in ["[]", "[[\"a\", 1]]", "1", "\"a\"", "null", r#"{"a": -1}"#, r#"{"a": 1.5}"#, r#"{"a": "1"}"#, r#"{"a": null}"#]
            .into_iter()
            .chain([r#"{"a": 18446744073709551616}"#, r#"{"a": 1e3}"#, r#"{"a": true}"#, r#"{"a": 1"#])
        {
            assert!(serde_json::from_str::<BTreeMap<String, u64>>(bad).is_err(), "{bad}");
            assert!(serde_json::from_str::<DriverStats>(bad).is_err(), "{bad}");
        }
        let max: DriverStats = serde_json::from_str(r#"{"a": 18446744073709551615}"#).unwrap();
        assert_eq!(max.get("a"), Some(u64::MAX));
    }

    #[test]
    fn many_keys_in_any_order() {
        // ~11 MB of names, under the capture reader's 16 MB line: reverse order with every
        // name twice (the second value wins) sorts like the map.
        let n = 300_000u64;
        let mut text = String::from("{");
        for pass in 0..2 {
            for i in (0..n).rev() {
                text.push_str(&format!("\"c{i:07}\":{},", i * 2 + pass));
            }
        }
        text.pop();
        text.push('}');
        assert!(text.len() < crate::capture::MAX_LINE_BYTES);
        let s: DriverStats = serde_json::from_str(&text).unwrap();
        let map: BTreeMap<String, u64> = serde_json::from_str(&text).unwrap();
        assert_eq!(s.len(), n as usize);
        assert_eq!(s.get("c0000007"), Some(15));
        assert_eq!(serde_json::to_string(&s).unwrap(), serde_json::to_string(&map).unwrap());
    }

    #[test]
    fn heads_are_the_first_8_bytes_big_endian() {
        assert_eq!(head(""), 0);
        assert_eq!(head("ab"), 0x6162_0000_0000_0000);
        assert_eq!(head("rx_queue"), u64::from_be_bytes(*b"rx_queue"));
        assert_eq!(head("rx_queue_0"), u64::from_be_bytes(*b"rx_queue"));
    }

    #[test]
    fn searches_agree_with_the_map() {
        // Every string over {NUL, 'a', 'b', 'é'} up to 4 symbols, alone and after an 8-byte
        // prefix (heads tie, so the full names decide), plus 7- to 9-byte names: every
        // other one stored, all of them looked up and used as prefixes.
        let symbols = ["\0", "a", "b", "é"];
        let mut all = vec![String::new()];
        for len in 1..=4 {
            let shorter: Vec<String> = all.iter().filter(|w| w.chars().count() == len - 1).cloned().collect();
            all.extend(shorter.iter().flat_map(|w| symbols.iter().map(move |c| format!("{w}{c}"))));
        }
        let long: Vec<String> = all.iter().map(|w| format!("rx_queue{w}")).collect();
        all.extend(long);
        all.extend(["rx_queu", "rx_queue", "rx_queue_", "rx_queuf", "rx_queud\u{10ffff}"].map(String::from));
        let pairs: Vec<(&str, u64)> = all.iter().step_by(2).zip(0..).map(|(w, i)| (w.as_str(), i)).collect();
        let s = stats(&pairs);
        let map = as_map(&pairs);
        for w in &all {
            assert_eq!(s.get(w), map.get(w).copied(), "{w:?}");
            let ours: Vec<(&str, u64)> = s.with_prefix(w).map(|(k, v)| (&**k, v)).collect();
            let theirs: Vec<(&str, u64)> = map.iter().filter(|(k, _)| k.starts_with(w.as_str())).map(|(k, v)| (k.as_str(), *v)).collect();
            assert_eq!(ours, theirs, "{w:?}");
        }
        assert_eq!(serde_json::to_string(&s).unwrap(), serde_json::to_string(&map).unwrap());
    }

    #[test]
    fn shared_names_new_values() {
        let s = stats(&[("b", 1), ("a", 2)]);
        let t = s.with_values([10, 11, 12]);
        assert!(Arc::ptr_eq(&s.names, &t.names));
        assert_eq!(t, stats(&[("a", 10), ("b", 11)]));
        let mut zero = s.with_values([]);
        assert_eq!(zero, stats(&[("a", 0), ("b", 0)]));
        zero.values_mut().for_each(|v| *v += 5);
        assert_eq!((zero, s), (stats(&[("a", 5), ("b", 5)]), stats(&[("a", 2), ("b", 1)])));
    }

    #[test]
    fn insert_extend_and_prefix() {
        let mut s = DriverStats::new();
        s.insert("rx_err_lane_1_phy".into(), 1);
        s.insert("rx_err_lane_0_phy".into(), 0);
        s.insert("rx_err_lane_1_phy".into(), 11);
        s.insert("rx_err_lanes".into(), 5);
        s.insert("rx_err_lan".into(), 6);
        s.extend([("rx_err_lane_0_phy".into(), 10), ("tx".into(), 7)]);
        assert_eq!(s, stats(&[("rx_err_lan", 6), ("rx_err_lane_0_phy", 10), ("rx_err_lane_1_phy", 11), ("rx_err_lanes", 5), ("tx", 7)]));
        let lanes: Vec<(&str, u64)> = s.with_prefix("rx_err_lane_").map(|(k, v)| (&**k, v)).collect();
        assert_eq!(lanes, [("rx_err_lane_0_phy", 10), ("rx_err_lane_1_phy", 11)]);
        assert_eq!(s.with_prefix("zz").count(), 0);
        assert_eq!(s.with_prefix("").count(), 5);
    }
}
