//! An RS-FEC codeword: its geometry (n, k, the symbols it corrects, the data it carries),
//! how many cross the wire, and what one uncorrectable codeword costs in frames (the
//! CER -> FLR factor of `frame_loss`'s module docs) against the budgets the PMD
//! clauses state. The histogram and frame-loss analyses both build on it.

use super::fec::FecKind;

/// Codeword length n and message length k, in 10-bit symbols, of an RS FEC.
pub(crate) fn rs_geometry(kind: FecKind) -> Option<(u32, u32)> {
    match kind {
        FecKind::Rs544 => Some((544, 514)),
        FecKind::Rs528 => Some((528, 514)),
        // LL-RS(272,257+1): 258 message symbols, one of them padding (ETC LL-RS).
        FecKind::Llrs => Some((272, 258)),
        _ => None,
    }
}

/// Symbols an RS(n, k) codeword can correct: t = (n − k) / 2.
pub(crate) fn correction_limit_symbols(kind: FecKind) -> Option<u32> {
    rs_geometry(kind).map(|(n, k)| (n - k) / 2)
}

/// Data bits a codeword carries: floor(10k / 257) transcoded blocks of 256 bits.
pub(crate) fn codeword_data_bits(kind: FecKind) -> Option<u32> {
    rs_geometry(kind).map(|(_, k)| 10 * k / 257 * 256)
}

/// Codewords per second on the wire of `lanes` lanes at `lane_rate_gbps`.
pub fn line_codewords_per_s(kind: FecKind, lane_rate_gbps: f64, lanes: u32) -> Option<f64> {
    let (n, _) = rs_geometry(kind)?;
    Some(lane_rate_gbps * 1e9 * f64::from(lanes) / f64::from(10 * n))
}

/// Ethernet preamble + SFD (8 octets) and minimum interpacket gap (12 octets) per frame.
pub(crate) const FRAME_OVERHEAD_BYTES: u32 = 20;

/// The frame loss ratio the optics may cause on their own (IEEE 802.3 138.1.1, 802.3cm).
pub(crate) const MODULE_FLR_BUDGET: f64 = 1.7e-12;
/// The frame loss ratio a complete Physical Layer may reach (IEEE 802.3 138.1.1, 802.3cm).
pub(crate) const PHY_FLR_BUDGET: f64 = 6.2e-11;
pub(super) const BUDGET_SOURCE: &str = "IEEE 802.3 138.1.1 (802.3cm; likewise 124.1.1, 140.1.1): 64-octet frames, minimum interpacket gap";

/// Which budget a configured FLR limit is, for the reason that compares with it.
pub(crate) fn limit_name(limit: f64) -> &'static str {
    if limit == PHY_FLR_BUDGET {
        "the PHY's budget, IEEE 802.3 138.1.1"
    } else if limit == MODULE_FLR_BUDGET {
        "the module's budget, IEEE 802.3 138.1.1"
    } else {
        "fec_max_predicted_flr"
    }
}

/// Codewords a PCS interleaves symbol by symbol, by FEC and port speed.
struct InterleaveRow {
    fec: FecKind,
    /// Port speeds (Mb/s) the row covers, inclusive.
    speed_mbps: (u32, u32),
    /// Lane counts the row covers (empty: any).
    lanes: &'static [u32],
    codewords: u32,
    source: &'static str,
}

const INTERLEAVE: &[InterleaveRow] = &[
    InterleaveRow {
        fec: FecKind::Rs528,
        speed_mbps: (0, u32::MAX),
        lanes: &[],
        codewords: 1,
        source: "IEEE 802.3 Clause 91 (100GBASE-R) and Clause 108 (25GBASE-R) RS-FEC: one codeword at a time",
    },
    InterleaveRow {
        fec: FecKind::Rs544,
        speed_mbps: (0, 50_000),
        lanes: &[],
        codewords: 1,
        source: "IEEE 802.3 Clause 134 (50GBASE-R RS-FEC): one codeword at a time",
    },
    InterleaveRow {
        fec: FecKind::Rs544,
        speed_mbps: (100_000, 100_000),
        lanes: &[4],
        codewords: 1,
        source: "IEEE 802.3 Clause 91 (100GBASE-KP4 RS(544,514)): one codeword at a time",
    },
    InterleaveRow {
        fec: FecKind::Rs544,
        speed_mbps: (100_000, 100_000),
        lanes: &[1, 2],
        codewords: 2,
        source: "100G on 1 or 2 lanes: 2 (IEEE 802.3ck Clause 161 RS-FEC-Int; a Clause 91 PHY without interleave loses fewer, so this errs high), as the 802.3df logic ad hoc's table gives",
    },
    InterleaveRow {
        fec: FecKind::Rs544,
        speed_mbps: (200_000, 400_000),
        lanes: &[],
        codewords: 2,
        source: "IEEE 802.3 Clause 119 (200GBASE-R / 400GBASE-R PCS): two RS(544,514) codewords interleaved symbol by symbol",
    },
    InterleaveRow {
        fec: FecKind::Rs544,
        speed_mbps: (800_000, 1_600_000),
        lanes: &[],
        codewords: 4,
        source: "IEEE 802.3df Clause 172 (800GBASE-R) and 802.3dj 1.6TBASE-R PCS: 4, as the 802.3df logic ad hoc's FLR analysis gives",
    },
];

/// X for a port: `None` where no row covers the FEC, speed and lane count.
pub fn interleave(fec: FecKind, speed_mbps: u32, lanes: u32) -> Option<(u32, &'static str)> {
    INTERLEAVE
        .iter()
        .find(|r| {
            r.fec == fec && (r.speed_mbps.0..=r.speed_mbps.1).contains(&speed_mbps) && (r.lanes.is_empty() || r.lanes.contains(&lanes))
        })
        .map(|r| (r.codewords, r.source))
}

/// MFC: MAC frames of `frame_bytes` (plus preamble and gap) per codeword's data.
pub fn mac_frames_per_codeword(fec: FecKind, frame_bytes: u32) -> Option<f64> {
    let data_bits = codeword_data_bits(fec)?;
    Some(f64::from(data_bits) / (f64::from(frame_bytes + FRAME_OVERHEAD_BYTES) * 8.0))
}

/// FLR / CER = (1 + X·MFC) / MFC.
pub(crate) fn flr_per_codeword_error_ratio(interleave: u32, mfc: f64) -> f64 {
    (1.0 + f64::from(interleave) * mfc) / mfc
}

/// The factor FLR / CER of a port, `None` without a known interleave or an RS FEC.
pub(crate) fn port_factor(fec: FecKind, speed_mbps: Option<u32>, lanes: Option<u32>, frame_bytes: u32) -> Option<f64> {
    let (x, _) = interleave(fec, speed_mbps?, lanes.unwrap_or(0))?;
    Some(flr_per_codeword_error_ratio(x, mac_frames_per_codeword(fec, frame_bytes)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_and_geometry() {
        assert_eq!(correction_limit_symbols(FecKind::Rs544), Some(15));
        assert_eq!(correction_limit_symbols(FecKind::Rs528), Some(7));
        assert_eq!(correction_limit_symbols(FecKind::Llrs), Some(7));
        assert_eq!(correction_limit_symbols(FecKind::BaseR), None);
        // 10 x 514 = 5140 = 20 x 257 -> 5120 data bits; LL-RS 2580 -> 10 blocks, 2560.
        assert_eq!(codeword_data_bits(FecKind::Rs544), Some(5120));
        assert_eq!(codeword_data_bits(FecKind::Rs528), Some(5120));
        assert_eq!(codeword_data_bits(FecKind::Llrs), Some(2560));
        // 400G: 4 x 106.25e9 / 5440 = 78.125e6 codewords/s.
        assert!((line_codewords_per_s(FecKind::Rs544, 106.25, 4).unwrap() - 78.125e6).abs() < 1e-3);
        // 100G NRZ: 4 x 25.78125e9 / 5280 = 19.53125e6 codewords/s.
        assert!((line_codewords_per_s(FecKind::Rs528, 25.78125, 4).unwrap() - 19.53125e6).abs() < 1e-3);
        assert_eq!(line_codewords_per_s(FecKind::Off, 25.78125, 4), None);
    }

    #[test]
    fn interleave_by_rate() {
        let x = |fec, speed, lanes| interleave(fec, speed, lanes).map(|(x, _)| x);
        assert_eq!(x(FecKind::Rs528, 100_000, 4), Some(1));
        assert_eq!(x(FecKind::Rs528, 25_000, 1), Some(1));
        assert_eq!(x(FecKind::Rs544, 50_000, 1), Some(1));
        assert_eq!(x(FecKind::Rs544, 100_000, 4), Some(1));
        assert_eq!(x(FecKind::Rs544, 100_000, 2), Some(2));
        assert_eq!(x(FecKind::Rs544, 100_000, 1), Some(2));
        assert_eq!(x(FecKind::Rs544, 200_000, 4), Some(2));
        assert_eq!(x(FecKind::Rs544, 400_000, 8), Some(2));
        assert_eq!(x(FecKind::Rs544, 400_000, 4), Some(2));
        assert_eq!(x(FecKind::Rs544, 800_000, 8), Some(4));
        assert_eq!(x(FecKind::Rs544, 1_600_000, 8), Some(4));
        assert_eq!(x(FecKind::BaseR, 25_000, 1), None);
        assert_eq!(x(FecKind::Rs544, 3_200_000, 16), None);
    }

    #[test]
    fn flr_factor_for_64_octet_frames() {
        // 64 + 20 = 84 octets = 672 bits; 5120 / 672 = 7.6190 frames per codeword.
        let mfc = mac_frames_per_codeword(FecKind::Rs544, 64).unwrap();
        assert!((mfc - 5120.0 / 672.0).abs() < 1e-12);
        // (1 + X·MFC) / MFC = X + 672 / 5120 = X + 0.13125.
        assert!((flr_per_codeword_error_ratio(1, mfc) - 1.13125).abs() < 1e-12);
        assert!((flr_per_codeword_error_ratio(2, mfc) - 2.13125).abs() < 1e-12);
        assert!((flr_per_codeword_error_ratio(4, mfc) - 4.13125).abs() < 1e-12);
        // SONiC's MFC = 8: 1.125 / 2.125 / 4.125.
        assert_eq!(flr_per_codeword_error_ratio(2, 8.0), 2.125);
        // 1518-octet frames span 12304 / 5120 = 2.403 codewords: X + 2.403.
        let mfc = mac_frames_per_codeword(FecKind::Rs544, 1518).unwrap();
        assert!((flr_per_codeword_error_ratio(1, mfc) - (1.0 + 12304.0 / 5120.0)).abs() < 1e-12);
        assert_eq!(mac_frames_per_codeword(FecKind::BaseR, 64), None);
    }
}
