//! An error about another `what`: the layer the user asked for ("FEC statistics"), not the
//! request that failed ("FEC_GET"). The message, driver and errno stay.

use crate::source::SourceError;

/// A copy of `e` about `what` (for a copy kept while `e` goes on).
pub(super) fn relabel(e: &SourceError, what: &str) -> SourceError {
    let what = what.to_string();
    match e {
        SourceError::NotSupported { driver, message, .. } => {
            SourceError::NotSupported { what, driver: driver.clone(), message: message.clone() }
        }
        SourceError::NoDevice { iface, message, .. } => SourceError::NoDevice { what, iface: iface.clone(), message: message.clone() },
        SourceError::Permission { message, .. } => SourceError::Permission { what, message: message.clone() },
        SourceError::Busy { message, .. } => SourceError::Busy { what, message: message.clone() },
        SourceError::Kernel { errno, message, .. } => SourceError::Kernel { what, errno: *errno, message: message.clone() },
        SourceError::Malformed { detail, .. } => SourceError::Malformed { what, detail: detail.clone() },
        SourceError::Unavailable { detail, .. } => SourceError::Unavailable { what, detail: detail.clone() },
        SourceError::Io { source, .. } => SourceError::Io { what, source: std::io::Error::new(source.kind(), source.to_string()) },
    }
}

/// `e` about `what`, its fields moved rather than copied (every sample of a driver
/// without FEC statistics returns one).
pub(super) fn relabelled(e: SourceError, what: &str) -> SourceError {
    match e {
        SourceError::NotSupported { driver, message, .. } => SourceError::NotSupported { what: what.into(), driver, message },
        SourceError::NoDevice { iface, message, .. } => SourceError::NoDevice { what: what.into(), iface, message },
        SourceError::Permission { message, .. } => SourceError::Permission { what: what.into(), message },
        SourceError::Busy { message, .. } => SourceError::Busy { what: what.into(), message },
        SourceError::Kernel { errno, message, .. } => SourceError::Kernel { what: what.into(), errno, message },
        SourceError::Malformed { detail, .. } => SourceError::Malformed { what: what.into(), detail },
        SourceError::Unavailable { detail, .. } => SourceError::Unavailable { what: what.into(), detail },
        // As `relabel` makes it (the text kept, not the OS error code): rare, not worth a second form.
        SourceError::Io { .. } => relabel(&e, what),
    }
}

/// The `what` of any error.
pub(super) fn what_of(e: &SourceError) -> &str {
    match e {
        SourceError::NotSupported { what, .. }
        | SourceError::NoDevice { what, .. }
        | SourceError::Permission { what, .. }
        | SourceError::Busy { what, .. }
        | SourceError::Kernel { what, .. }
        | SourceError::Malformed { what, .. }
        | SourceError::Unavailable { what, .. }
        | SourceError::Io { what, .. } => what,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moved_and_copied_labels_read_alike() {
        let make = || {
            [
                SourceError::from_errno("FEC_GET", "v0", Some("veth"), libc::EOPNOTSUPP, Some("no FEC".into())),
                SourceError::from_errno("FEC_GET", "v0", None, libc::ENODEV, None),
                SourceError::from_errno("FEC_GET", "v0", None, libc::EPERM, None),
                SourceError::from_errno("FEC_GET", "v0", None, libc::EBUSY, None),
                SourceError::from_errno("FEC_GET", "v0", None, libc::EIO, Some("x".into())),
                SourceError::Malformed { what: "FEC_GET".into(), detail: "short".into() },
                SourceError::Unavailable { what: "FEC_GET".into(), detail: "none".into() },
                SourceError::Io { what: "FEC_GET".into(), source: std::io::Error::from_raw_os_error(libc::EBADF) },
            ]
        };
        for (a, b) in make().into_iter().zip(make()) {
            let (copied, moved) = (relabel(&a, "FEC statistics"), relabelled(b, "FEC statistics"));
            assert_eq!(what_of(&moved), "FEC statistics");
            assert_eq!(copied.to_string(), moved.to_string());
            assert_eq!(copied.errno(), moved.errno(), "{moved}");
            assert!(copied.to_string().starts_with("FEC statistics: "), "{copied}");
        }
    }
}
