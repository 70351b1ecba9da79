//! Per-interface state looked up by name, record after record. A live tick and a
//! capture name the interfaces in the same order over and over, so the slot after the
//! last one looked up is tried first: hashing the name (SipHash) cost more than most of
//! what a record then does with its state.

use std::collections::HashMap;

#[derive(Debug)]
struct Slot<T> {
    name: String,
    /// `None` once removed.
    value: Option<T>,
}

/// Values by interface name, in order of first appearance.
#[derive(Debug)]
pub struct ByName<T> {
    /// Position in `slots` of every name with a value.
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
        // Slots with a value have distinct names (one is added only for a name `index`
        // lacks), so a filled slot of this name is the one `index` holds for it.
        let hinted = self.slots.get(self.next).is_some_and(|s| s.value.is_some() && s.name == name);
        let i = if hinted {
            self.next
        } else if let Some(i) = self.index.get(name) {
            *i
        } else {
            self.slots.push(Slot { name: name.to_string(), value: None });
            self.index.insert(name.to_string(), self.slots.len() - 1);
            self.slots.len() - 1
        };
        self.next = if i + 1 == self.slots.len() { 0 } else { i + 1 };
        self.slots[i].value.get_or_insert_with(make)
    }

    pub fn get(&self, name: &str) -> Option<&T> {
        self.index.get(name).and_then(|i| self.slots.get(*i)).and_then(|s| s.value.as_ref())
    }

    /// Forgets `name`'s value; a later look-up of it starts a new one.
    pub fn remove(&mut self, name: &str) {
        if let Some(i) = self.index.remove(name) {
            if let Some(slot) = self.slots.get_mut(i) {
                slot.value = None;
            }
        }
    }

    /// The values, in order of first appearance.
    pub fn values(&self) -> impl Iterator<Item = &T> {
        self.slots.iter().filter_map(|s| s.value.as_ref())
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
        // a, c, then the new b (the removed slot stays empty).
        assert_eq!(m.values().map(|v| v[0]).collect::<Vec<_>>(), ["a", "c", "b again"]);
    }
}
