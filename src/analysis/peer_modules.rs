//! Both ends of a link that is not up, whose modules cannot work together: one sends in
//! the 850 nm band (a multimode VCSEL, SR) and the other at 1260 nm or more (single-mode,
//! LR/DR/FR/CWDM): an SR receiver's GaAs photodiode does not see light past about 870 nm,
//! and the two are made for different fiber; or the two modules share no Ethernet rate (a
//! 100G SR4 facing a 40G SR4). Such a link stays down whatever is cleaned or reseated: the
//! fix is a matching pair, so the reason names both ends' modules.
//!
//! An up link is never judged: it proves the pair works, whatever the codes say.

use super::port_modes::module_rates_mbps;
use super::verdict::{Reason, ReasonCode, Severity};
use super::InterfaceWindow;
use crate::module::ModuleReport;

/// The wavelength bands whose modules cannot receive each other's light.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Band {
    /// 840-950 nm: SR and SWDM over multimode fiber (IEEE 802.3 Clauses 52, 86, 95, 138).
    Multimode850,
    /// 1260 nm and up (O-band to L-band): single-mode optics.
    SingleMode,
}

impl Band {
    fn of(nm: f64) -> Option<Band> {
        match nm {
            840.0..=950.0 => Some(Band::Multimode850),
            1260.0..=1625.0 => Some(Band::SingleMode),
            _ => None,
        }
    }
}

/// `100GBASE-SR4 (850 nm)`: the module's media text and wavelength, as the reason names it.
fn described(m: &ModuleReport) -> String {
    let media = m.media_type.as_deref().unwrap_or("module");
    match m.wavelength_nm {
        Some(nm) => format!("{media}, {nm:.0} nm"),
        None => media.to_string(),
    }
}

/// `peer_module_mismatch` when the two ends' modules cannot work together and the link is
/// not known to be up: reject when it is down, investigate when its state is not known.
pub(crate) fn judge(w: &InterfaceWindow, peer: Option<&InterfaceWindow>, reasons: &mut Vec<Reason>) {
    if w.link_up == Some(true) {
        return;
    }
    let (Some(near), Some(far)) = (w.module.as_ref(), peer.and_then(|p| p.module.as_ref())) else { return };
    let band = |m: &ModuleReport| m.wavelength_nm.and_then(Band::of);
    let why = match (band(near), band(far)) {
        (Some(a), Some(b)) if a != b => {
            "one sends at 850 nm for multimode fiber, the other at 1260 nm or more for single-mode: neither receives the other's light"
        }
        _ => {
            let (a, b) = (module_rates_mbps(near), module_rates_mbps(far));
            if a.is_empty() || b.is_empty() || a.iter().any(|r| b.contains(r)) {
                return;
            }
            "the two share no Ethernet rate"
        }
    };
    let severity = if w.link_up == Some(false) { Severity::Reject } else { Severity::Investigate };
    let message = format!("this end's module ({}) and the far end's ({}) cannot work together: {why}", described(near), described(far));
    reasons.push(Reason::new(ReasonCode::PeerModuleMismatch, severity, None, message));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bands_are_the_two_fiber_kinds() {
        assert_eq!(Band::of(850.0), Some(Band::Multimode850));
        assert_eq!(Band::of(910.0), Some(Band::Multimode850));
        assert_eq!(Band::of(1271.0), Some(Band::SingleMode));
        assert_eq!(Band::of(1550.0), Some(Band::SingleMode));
        // Copper reads no wavelength; a code nobody uses is no band.
        assert_eq!(Band::of(0.0), None);
        assert_eq!(Band::of(1100.0), None);
    }
}
