//! Every import parser takes arbitrary bytes, and mutated tool outputs, without panicking:
//! bad input is an error or a skipped line, never a crash.

use optics::source::import::walk::parse_bytes;
use optics::source::import::{recognize, Format};
use proptest::prelude::*;

const FORMATS: [Format; 25] = [
    Format::MlxlinkJson,
    Format::MlxlinkText,
    Format::MlxlinkAmber,
    Format::EthtoolStats,
    Format::EthtoolStatsJson,
    Format::EthtoolFec,
    Format::EthtoolFecJson,
    Format::EthtoolLink,
    Format::EthtoolDrvinfo,
    Format::Lspci,
    Format::ModulePages,
    Format::Uptime,
    Format::SonicSfpshow,
    Format::EosTransceiver,
    Format::JunosOptics,
    Format::SonicFecStats,
    Format::SonicFecHistogram,
    Format::LldpText,
    Format::LldpKeyvalue,
    Format::LldpJson,
    Format::SonicTransceiverStatus,
    Format::SonicTransceiverPm,
    Format::NvueTransceiver,
    Format::NvuePhyDetail,
    Format::SfputilHexdump,
];

const SEEDS: [&str; 23] = [
    include_str!("../fixtures/import/mlxlink_400g_a.json"),
    include_str!("../fixtures/import/mlxlink_400g_a.txt"),
    include_str!("../fixtures/import/sosreport/sos_commands/networking/ethtool_-S_ens3np0"),
    include_str!("../fixtures/real-dumps/fmt01_ethtool_show_fec_output_format_examples_NOT_MEASUREMENTS.txt"),
    include_str!("../fixtures/switch/sonic_transceiver_eeprom_dom.txt"),
    include_str!("../fixtures/switch/eos_show_interfaces_transceiver.txt"),
    include_str!("../fixtures/switch/eos_show_interfaces_transceiver_detail.txt"),
    include_str!("../fixtures/switch/junos_diagnostics_optics_et.txt"),
    include_str!("../fixtures/ethtool-fec/ethtool_show_fec_histogram_v2.txt"),
    include_str!("../fixtures/switch/sonic_fec_stats_max_t_portstat_test.txt"),
    include_str!("../fixtures/fec-histogram/sonic_portstat_fh_pr4075.txt"),
    include_str!("../fixtures/fec-histogram/sonic_show_fec_histogram_pr3919_ethernet48.txt"),
    include_str!("../fixtures/lldp/lldpcli_show_neighbors_detail_vyos_pr3590.txt"),
    include_str!("../fixtures/lldp/lldpcli_keyvalue_sg200_lldpd_test_pcap.txt"),
    include_str!("../fixtures/lldp/lldpcli_json_lldpd_test_lldpcli.json"),
    include_str!("../fixtures/sonic-transceiver/status_command_reference.txt"),
    include_str!("../fixtures/sonic-transceiver/pm_command_reference.txt"),
    include_str!("../fixtures/mlxlink/cx4_forum_show_counters.txt"),
    include_str!("../fixtures/mlxlink/cx4_forum_show_eye.txt"),
    include_str!("../fixtures/mlxlink/amber_collect_100g_two_runs.csv"),
    include_str!("../fixtures/switch/nvue_show_interface_transceiver_cl512.txt"),
    include_str!("../fixtures/switch/nvue_link_phy_detail_cl512.txt"),
    include_str!("../fixtures/sfputil-hexdump/two_ports_sff8636_sff8472.txt"),
];

fn all_parsers(bytes: &[u8]) {
    let _ = recognize(bytes);
    for f in FORMATS {
        let _ = parse_bytes(f, bytes);
    }
}

proptest! {
    #[test]
    fn arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        all_parsers(&bytes);
    }

    #[test]
    fn mutated_tool_outputs(seed in 0usize..SEEDS.len(), at in any::<prop::sample::Index>(), insert in "[0-9:,/\\[\\]\\.A-Za-z\\- ]{0,24}", cut in 0usize..40) {
        let text = SEEDS[seed];
        let i = at.index(text.len());
        let i = (0..=i).rev().find(|j| text.is_char_boundary(*j)).unwrap_or(0);
        let end = (i + cut).min(text.len());
        let end = (end..=text.len()).find(|j| text.is_char_boundary(*j)).unwrap_or(text.len());
        let mutated = format!("{}{}{}", &text[..i], insert, &text[end..]);
        all_parsers(mutated.as_bytes());
    }
}
