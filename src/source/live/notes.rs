//! The last error each layer of an interface noted as unavailable. A driver without FEC
//! statistics says so every sample; telling that it is the sentence noted last time by
//! comparing the error's fields costs a few string comparisons, where building or
//! formatting the sentence to look for it among the recorded ones cost ~2k instructions.

use super::label::what_of;
use crate::source::SourceError;

/// A layer whose errors are noted (the `what` they are labelled with).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Layer {
    ActiveFec,
    FecStats,
    DriverStats,
    ModuleEeprom,
}

/// Per layer, the error noted last (as recorded: relabelled).
#[derive(Debug, Default)]
pub(super) struct LastNoted([Option<SourceError>; 4]);

impl LastNoted {
    /// Whether `e` labelled `what` is the error `layer` noted last: its sentence is then
    /// recorded already (recorded sentences are never removed).
    pub(super) fn repeats(&self, layer: Layer, e: &SourceError, what: &str) -> bool {
        self.0[layer as usize].as_ref().is_some_and(|last| what_of(last) == what && same_but_what(last, e))
    }

    pub(super) fn set(&mut self, layer: Layer, e: SourceError) {
        self.0[layer as usize] = Some(e);
    }
}

/// Same variant and fields, `what` aside: then the two display alike once labelled alike.
/// I/O errors are never taken as the same (no cheap equality; they do not repeat).
fn same_but_what(a: &SourceError, b: &SourceError) -> bool {
    use SourceError::*;
    match (a, b) {
        (NotSupported { driver: d1, message: m1, .. }, NotSupported { driver: d2, message: m2, .. }) => d1 == d2 && m1 == m2,
        (NoDevice { iface: i1, message: m1, .. }, NoDevice { iface: i2, message: m2, .. }) => i1 == i2 && m1 == m2,
        (Permission { message: m1, .. }, Permission { message: m2, .. }) | (Busy { message: m1, .. }, Busy { message: m2, .. }) => m1 == m2,
        (Kernel { errno: e1, message: m1, .. }, Kernel { errno: e2, message: m2, .. }) => e1 == e2 && m1 == m2,
        (Malformed { detail: d1, .. }, Malformed { detail: d2, .. }) | (Unavailable { detail: d1, .. }, Unavailable { detail: d2, .. }) => {
            d1 == d2
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::label::relabel;
    use super::*;

    fn unsupported(what: &str, driver: &str) -> SourceError {
        SourceError::NotSupported { what: what.into(), driver: Some(driver.into()), message: None }
    }

    #[test]
    fn repeats_only_the_same_error_under_the_same_label() {
        let mut n = LastNoted::default();
        let e = unsupported("FEC_GET", "veth");
        assert!(!n.repeats(Layer::FecStats, &e, "FEC statistics"), "nothing noted yet");
        n.set(Layer::FecStats, relabel(&e, "FEC statistics"));
        assert!(n.repeats(Layer::FecStats, &e, "FEC statistics"));
        assert!(!n.repeats(Layer::FecStats, &e, "active FEC mode"), "another label is another sentence");
        assert!(!n.repeats(Layer::ActiveFec, &e, "FEC statistics"), "layers are kept apart");
        assert!(!n.repeats(Layer::FecStats, &unsupported("FEC_GET", "mlx5_core"), "FEC statistics"));
        let with_message = SourceError::NotSupported { what: "FEC_GET".into(), driver: Some("veth".into()), message: Some("x".into()) };
        assert!(!n.repeats(Layer::FecStats, &with_message, "FEC statistics"));
        let other_kind = SourceError::Unavailable { what: "FEC_GET".into(), detail: "veth".into() };
        assert!(!n.repeats(Layer::FecStats, &other_kind, "FEC statistics"));
    }

    #[test]
    fn same_fields_display_alike() {
        // The property the skip relies on, for each variant with a cheap equality.
        let pairs = [
            (unsupported("a", "d"), unsupported("b", "d")),
            (
                SourceError::from_errno("a", "v0", None, libc::ENODEV, Some("gone".into())),
                SourceError::from_errno("b", "v0", None, libc::ENODEV, Some("gone".into())),
            ),
            (SourceError::from_errno("a", "v0", None, libc::EPERM, None), SourceError::from_errno("b", "v0", None, libc::EPERM, None)),
            (SourceError::from_errno("a", "v0", None, libc::EBUSY, None), SourceError::from_errno("b", "v0", None, libc::EBUSY, None)),
            (SourceError::from_errno("a", "v0", None, libc::EIO, None), SourceError::from_errno("b", "v0", None, libc::EIO, None)),
            (
                SourceError::Malformed { what: "a".into(), detail: "x".into() },
                SourceError::Malformed { what: "b".into(), detail: "x".into() },
            ),
        ];
        for (a, b) in pairs {
            assert!(same_but_what(&a, &b), "{a} / {b}");
            assert_eq!(relabel(&a, "w").to_string(), relabel(&b, "w").to_string());
        }
        let io = || SourceError::Io { what: "a".into(), source: std::io::Error::other("x") };
        assert!(!same_but_what(&io(), &io()));
    }
}
