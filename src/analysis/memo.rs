//! One-entry memos for the figures a window's analysis derives from constants alone (the
//! configured confidence, the FEC's BER limit, the margin floor, the modulation): the
//! same for every window of a run, and each an erfc⁻¹ or erfc with a log or a power,
//! so worked out once instead of once per window (a CSV export analyses every sample).
//! Keyed by the arguments' exact bits: any other argument is worked out afresh.

use std::cell::Cell;
use std::thread::LocalKey;

/// A memo slot: the last key and its value (per thread: no locking).
pub(super) type Slot<K, V> = Cell<Option<(K, V)>>;

/// `f()`, the value for `key`, unless `slot` already holds the value for `key`.
pub(super) fn remembered<K: Copy + PartialEq, V: Copy>(slot: &'static LocalKey<Slot<K, V>>, key: K, f: impl FnOnce() -> V) -> V {
    slot.with(|s| match s.get() {
        Some((k, v)) if k == key => v,
        _ => {
            let v = f();
            s.set(Some((key, v)));
            v
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        static SQUARE: Slot<u64, u64> = const { Cell::new(None) };
    }

    #[test]
    fn a_key_is_worked_out_once_until_another_comes() {
        let calls = Cell::new(0);
        let square = |k: u64| {
            remembered(&SQUARE, k, || {
                calls.set(calls.get() + 1);
                k * k
            })
        };
        assert_eq!([square(3), square(3), square(4), square(3)], [9, 9, 16, 9]);
        // 3, then 4 replaces it, then 3 again.
        assert_eq!(calls.get(), 3);
    }
}
