//! A down link whose port and module share no Ethernet rate: the port cannot run the
//! module (it supports only other speeds: a 25G SFP28 in a 10G-only port), or is set to a
//! speed the module does not run (a 100G CWDM4 in a port forced to 40G). Either way the
//! link stays down whatever is reseated or cleaned, and the fix is the port's speed or
//! another module, so the reason names both sides' rates.
//!
//! The module's rates come from the names its compliance codes and advertised applications
//! give (SFF-8024 Tables 4-4 and 4-5 as decoded, or as a tool printed them: `100GBASE-SR4
//! or 25GBASE-SR`, `10G Ethernet: 10G Base-SR`, `400GAUI-4 C2M`), with every breakout of its
//! lanes (a four-lane 100G module also runs 1 x 25G and 2 x 50G); the port's from the
//! kernel's link-mode names. Passive copper is left out: a passive cable carries whatever
//! rate the ports agree on, whatever its codes name. Only a link that is down is judged: an
//! up link proves the rates meet, whatever the names say.

use super::lanes::parse_link_mode;
use super::verdict::{Reason, ReasonCode, Severity};
use super::InterfaceWindow;
use crate::module::ModuleReport;

/// The Ethernet rates, Mb/s, that a number before `G` names (`100G`, `25GBASE`, `400GAUI`):
/// the IEEE 802.3 MAC rates; other numbers before a `G` (`Annex 120G`) are not rates.
const GIGABIT_RATES: [u32; 10] = [1, 10, 25, 40, 50, 100, 200, 400, 800, 1600];

/// The rates, Mb/s, a number directly before `BASE` names (`1000BASE-SX`, `10GBASE` is the
/// `G` form above).
const MEGABIT_RATES: [u32; 3] = [100, 1000, 2500];

/// Host interfaces SFF-8024 Table 4-5 names without their rate (`CAUI-4 C2M`).
const NAMED_INTERFACES: [(&str, u32); 6] =
    [("CAUI", 100_000), ("XLAUI", 40_000), ("XLPPI", 40_000), ("LAUI", 50_000), ("XFI", 10_000), ("SFI", 10_000)];

/// The Ethernet rates, Mb/s, one name text gives, in the order they appear.
fn rates_in(text: &str, into: &mut Vec<u32>) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let starts_word = i == 0 || !bytes[i - 1].is_ascii_alphanumeric() && bytes[i - 1] != b'.' && bytes[i - 1] != b'^';
        if !(bytes[i].is_ascii_digit() && starts_word) {
            i += 1;
            continue;
        }
        let end = bytes[i..].iter().position(|b| !b.is_ascii_digit()).map_or(bytes.len(), |n| i + n);
        let rest = &text[end..];
        let rate = text[i..end].parse::<u32>().ok().and_then(|n| {
            if rest.starts_with('G') && GIGABIT_RATES.contains(&n) {
                Some(n * 1000)
            } else if rest.get(..4).is_some_and(|b| b.eq_ignore_ascii_case("base")) && MEGABIT_RATES.contains(&n) {
                Some(n)
            } else {
                None
            }
        });
        into.extend(rate.filter(|r| !into.contains(r)));
        i = end;
    }
    for word in text.split(|c: char| !c.is_ascii_alphanumeric()) {
        if let Some((_, rate)) = NAMED_INTERFACES.iter().find(|(name, _)| word == *name) {
            if !into.contains(rate) {
                into.push(*rate);
            }
        }
    }
}

/// Whether the module is a passive copper cable (a DAC): SFF-8024's media names say
/// "Passive Copper Cable" or name a `-CR` PMD, with no active part.
fn passive_copper(m: &ModuleReport) -> bool {
    let text = m.media_type.as_deref().unwrap_or("").to_ascii_lowercase();
    let active = text.contains("active") || text.contains("aoc") || text.contains("acc") || text.contains("aec");
    !active && (text.contains("passive") || text.contains("copper") || text.contains("base-cr") || text.contains("base cr"))
}

/// The rates, Mb/s, the module runs: those its media and application names give, each
/// also broken out over its host lanes (a rate R over L lanes also runs R·k/L for each
/// k dividing L). Empty when no name gives a rate, or for passive copper.
pub(crate) fn module_rates_mbps(m: &ModuleReport) -> Vec<u32> {
    if passive_copper(m) {
        return Vec::new();
    }
    let mut named = Vec::new();
    let apps = m.applications.iter().chain(m.active_application.as_ref());
    for text in
        [m.media_type.as_deref()].into_iter().flatten().chain(apps.flat_map(|a| [a.host_interface.as_ref(), a.media_interface.as_ref()]))
    {
        rates_in(text, &mut named);
    }
    let lanes = u32::from(m.host_lane_count.or(m.media_lane_count).unwrap_or(1).max(1));
    // A name its lanes cannot carry (SFF-8024 code 02h, "100GBASE-SR4 or 25GBASE-SR", in a
    // one-lane SFP28) is the other form factor's: a lane carries at most two bits a symbol
    // (PAM4) at the nominal rate, with room for the line code's overhead.
    let carried = |r: &u32| m.nominal_signaling_rate_mbd.is_none_or(|mbd| f64::from(*r) <= 2.2 * f64::from(mbd) * f64::from(lanes));
    let mut rates = Vec::new();
    for r in named.into_iter().filter(carried) {
        // Broken out over its lanes when each lane carries an Ethernet lane rate (10G and
        // up): a 100G SR4 as 4 x 25G or 2 x 50G; its "25GBASE-SR" is one lane already.
        let lane_mbps = r / lanes;
        let breakouts = (1..=lanes)
            .filter(|k| lanes % k == 0 && r % lanes == 0 && lane_mbps >= 10_000)
            .map(|k| lane_mbps * k)
            .filter(|b| GIGABIT_RATES.iter().any(|g| g * 1000 == *b));
        for broken_out in breakouts {
            if !rates.contains(&broken_out) {
                rates.push(broken_out);
            }
        }
        if !rates.contains(&r) {
            rates.push(r);
        }
    }
    rates.sort_unstable();
    rates
}

/// The speeds, Mb/s, of kernel link-mode names, ascending, each once.
fn mode_rates_mbps(modes: &[String]) -> Vec<u32> {
    let mut rates: Vec<u32> = modes.iter().filter_map(|m| parse_link_mode(m)).map(|(speed, _)| speed).collect();
    rates.sort_unstable();
    rates.dedup();
    rates
}

/// `10G`, `2.5G`, `100M`.
fn rate_text(mbps: u32) -> String {
    if mbps >= 1000 {
        format!("{}G", f64::from(mbps) / 1000.0)
    } else {
        format!("{mbps}M")
    }
}

fn rates_text(rates: &[u32]) -> String {
    rates.iter().map(|r| rate_text(*r)).collect::<Vec<_>>().join(", ")
}

/// `module_speed_mismatch` for a down link whose port supports, or is set to, no rate the
/// module runs.
pub(crate) fn judge(w: &InterfaceWindow, reasons: &mut Vec<Reason>) {
    if w.link_up != Some(false) {
        return;
    }
    let Some(m) = w.module.as_ref() else { return };
    let module = module_rates_mbps(m);
    if module.is_empty() {
        return;
    }
    let media = m.media_type.as_deref().unwrap_or("its advertised applications");
    let disjoint = |port: &[u32]| !port.is_empty() && !port.iter().any(|r| module.contains(r));
    let supported = mode_rates_mbps(&w.link.supported_modes);
    let advertised = mode_rates_mbps(&w.link.advertised_modes);
    let message = if disjoint(&supported) {
        format!(
            "the port supports only {} ({}), and the module runs {} ({media}): no rate in common, so the link cannot come up with this module in this port",
            rates_text(&supported),
            w.link.supported_modes.join(" "),
            rates_text(&module),
        )
    } else if disjoint(&advertised) {
        format!(
            "the port is set to {} ({}), a rate the module does not run: it runs {} ({media}), so the link cannot come up at that setting",
            rates_text(&advertised),
            w.link.advertised_modes.join(" "),
            rates_text(&module),
        )
    } else {
        return;
    };
    reasons.push(Reason::new(ReasonCode::ModuleSpeedMismatch, Severity::Reject, None, message));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::module::Standard;

    fn rates(text: &str) -> Vec<u32> {
        let mut v = Vec::new();
        rates_in(text, &mut v);
        v
    }

    #[test]
    fn rates_from_the_names_tools_print() {
        // SFF-8024 Table 4-4 code 02h as optics and as ethtool name it.
        assert_eq!(rates("100GBASE-SR4 or 25GBASE-SR"), [100_000, 25_000]);
        assert_eq!(rates("100G Ethernet: 100G CWDM4 MSA with FEC"), [100_000]);
        assert_eq!(rates("10G Ethernet: 10G Base-SR; FC: short distance (S); FC: Multimode, 50um (M5)"), [10_000]);
        assert_eq!(rates("Ethernet: 1000BASE-SX"), [1000]);
        // Table 4-5 host interfaces; `Annex 120G` and `BER < 1e-6` are no rates.
        assert_eq!(rates("400GAUI-4-L C2M (Annex 120G)"), [400_000]);
        assert_eq!(rates("CAUI-4 C2M without FEC"), [100_000]);
        assert_eq!(rates("100G AOC (Active Optical Cable), retimed or 25GAUI C2M AOC, BER 5x10^-5"), [100_000, 25_000]);
        assert_eq!(rates("1310 nm DFB, OM3 70 m"), [] as [u32; 0]);
    }

    #[test]
    fn a_four_lane_module_also_runs_its_breakouts() {
        let m = ModuleReport {
            media_type: Some("100G Ethernet: 100G CWDM4 MSA with FEC".into()),
            host_lane_count: Some(4),
            ..ModuleReport::new(Standard::Sff8636, Some(0x11))
        };
        // 100G over 4 lanes: 1 x 25G, 2 x 50G, 4 x 100G; no 40G.
        assert_eq!(module_rates_mbps(&m), [25_000, 50_000, 100_000]);
        let dac = ModuleReport {
            media_type: Some("100GBASE-CR4, 25GBASE-CR CA-25G-L".into()),
            ..ModuleReport::new(Standard::Sff8636, Some(0x11))
        };
        assert!(module_rates_mbps(&dac).is_empty());
        // Code 02h in a one-lane SFP28 at 25.78 GBd: 25G, not 100G (2.2 x 25.78 = 56.7G).
        let sfp28 = ModuleReport {
            media_type: Some("100GBASE-SR4 or 25GBASE-SR".into()),
            host_lane_count: Some(1),
            nominal_signaling_rate_mbd: Some(25_780),
            ..ModuleReport::new(Standard::Sff8472, Some(0x03))
        };
        assert_eq!(module_rates_mbps(&sfp28), [25_000]);
    }

    #[test]
    fn rates_print_as_engineers_say_them() {
        assert_eq!(rates_text(&[1000, 2500, 10_000, 100_000]), "1G, 2.5G, 10G, 100G");
    }
}
