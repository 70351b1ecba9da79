//! Per-interface state looked up by name, record after record. A live tick and a
//! capture name the interfaces in the same order over and over, so the slot after the
//! last one looked up is tried first: hashing the name (SipHash) cost more than most of
//! what a record then does with its state.

use std::collections::HashMap;

#[derive(Debug)]
struct Slot<T> {
    name: String,
    value: T,
}

/// Values by interface name, in order of first appearance (a removed name that comes
/// back counts as new).
#[derive(Debug)]
pub struct ByName<T> {
    /// Position in `slots` of every name.
    index: HashMap<String, usize>,
    slots: Vec<Slot<T>>,
    /// The slot after the last one looked up.
    next: usize,
}

impl<T> Default for ByName<T> {
    fn default() -> Self {
        ByName { index: HashMap::new(), slots: Vec::new(), next: 0 }
    }
}

impl<T> ByName<T> {
    /// The value of `name`, made by `make` when it has none (first seen, or removed).
    pub fn get_or_insert_with(&mut self, name: &str, make: impl FnOnce() -> T) -> &mut T {
        // Slots have distinct names (one is added only for a name `index` lacks), so a
        // slot of this name is the one `index` holds for it.
        let hinted = self.slots.get(self.next).is_some_and(|s| s.name == name);
        let i = if hinted {
            self.next
        } else if let Some(i) = self.index.get(name) {
            *i
        } else {
            self.slots.push(Slot { name: name.to_string(), value: make() });
            self.index.insert(name.to_string(), self.slots.len() - 1);
            self.slots.len() - 1
        };
        self.next = if i + 1 == self.slots.len() { 0 } else { i + 1 };
        &mut self.slots[i].value
    }

    pub fn get(&self, name: &str) -> Option<&T> {
        self.index.get(name).and_then(|i| self.slots.get(*i)).map(|s| &s.value)
    }

    /// Forgets `name` and its value; a later look-up of it starts a new one. The slot
    /// goes too (the later ones move up): interfaces that come and go for days leave
    /// nothing behind. Rare (an interface gone), so the shift is cheap enough.
    pub fn remove(&mut self, name: &str) {
        if let Some(i) = self.index.remove(name) {
            self.slots.remove(i);
            self.index.values_mut().filter(|j| **j > i).for_each(|j| *j -= 1);
            self.next = 0;
        }
    }

    /// The values, in order of first appearance.
    pub fn values(&self) -> impl Iterator<Item = &T> {
        self.slots.iter().map(|s| &s.value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_in_and_out_of_order_find_the_same_values() {
        let mut m: ByName<Vec<&str>> = ByName::default();
        // In tick order, out of order, and a name removed then seen again.
        for name in ["a", "b", "c", "a", "b", "c", "c", "a", "b", "b"] {
            m.get_or_insert_with(name, Vec::new).push(name);
        }
        m.remove("b");
        m.get_or_insert_with("b", Vec::new).push("b again");
        m.get_or_insert_with("a", Vec::new).push("a");
        assert_eq!(m.get("a").unwrap(), &["a", "a", "a", "a"]);
        assert_eq!(m.get("b").unwrap(), &["b again"]);
        assert_eq!(m.get("c").unwrap(), &["c", "c", "c"]);
        assert_eq!(m.get("d"), None);
        // a, c, then the new b (in order of appearance: b came back last).
        assert_eq!(m.values().map(|v| v[0]).collect::<Vec<_>>(), ["a", "c", "b again"]);
    }

    #[test]
    fn names_that_come_and_go_leave_nothing_behind() {
        let mut m: ByName<u32> = ByName::default();
        for round in 0..1000 {
            *m.get_or_insert_with("keep", || 0) += 1;
            *m.get_or_insert_with("vf", || 0) += 1;
            m.remove("vf");
            assert_eq!(m.get("vf"), None, "round {round}");
        }
        assert_eq!((m.slots.len(), m.index.len()), (1, 1));
        assert_eq!(m.get("keep"), Some(&1000));
        // Positions after a removed slot still find their own names.
        for n in ["a", "b", "c", "d"] {
            m.get_or_insert_with(n, || 7);
        }
        m.remove("b");
        *m.get_or_insert_with("d", || 0) += 1;
        assert_eq!([m.get("a"), m.get("c"), m.get("d")], [Some(&7), Some(&7), Some(&8)]);
        assert_eq!(m.values().copied().collect::<Vec<_>>(), [1000, 7, 7, 8]);
    }
}
