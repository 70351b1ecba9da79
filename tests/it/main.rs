//! The integration tests: one crate (one link, one binary), a module per theme, one
//! `support` with the shared helpers (capture generators, the netns and serve harnesses,
//! the simulated I2C module). Modules that drive the live sources (netlink, ioctl, I2C,
//! the sampling loop, the binary on a veth) need the `live` feature: `cfg(live)`.

mod support;

mod after_flap;
mod bundled_captures;
mod capture_roundtrip;
mod capture_zstd;
mod cli_check_plot_report;
mod cli_compare_export;
mod cli_decode;
#[cfg(live)]
mod cli_decode_live;
mod cli_import;
#[cfg(live)]
mod cli_live_veth;
mod cli_names;
mod cli_outputs;
mod cli_scan;
#[cfg(live)]
mod cli_serve_rediscover;
mod cli_text;
mod cli_trust_inputs;
mod cli_usage;
mod cli_verdict_gates;
mod cli_watch;
#[cfg(live)]
mod cli_watch_live;
#[cfg(live)]
mod cli_watch_live_table;
mod cmis_captures;
mod counter_spans;
mod decode_cmis;
mod decode_honesty;
mod decode_sff8472;
mod decode_sff8636;
mod decode_vdm;
mod deploy_textfile_unit;
mod deploy_units_hardening;
mod driver_page_echo;
mod engine_equivalence;
mod engine_stream;
mod fec_tail_models;
mod fecx_captures;
mod frame_loss_outputs;
mod host_import;
#[cfg(live)]
mod host_live_veth;
mod host_pause;
mod host_summary;
#[cfg(live)]
mod host_summary_live;
mod host_sysfs;
mod host_sysfs_import;
mod hostile_names;
#[cfg(live)]
mod i2c_paging;
mod ib_csv;
mod ib_host;
#[cfg(live)]
mod ib_live;
mod ib_mlxlink;
mod ib_serve;
mod ib_sos;
mod import_amber;
mod import_decoded_module;
mod import_eos_phy;
mod import_kernel_log;
mod import_lldp;
mod import_mlxlink_paste;
mod import_never_panics;
mod import_nvue;
mod import_sonic_transceiver;
mod import_switch;
mod import_switch_counters;
mod import_trees_never_panic;
mod infiniband;
mod input_real_dumps;
mod lane200g;
#[cfg(live)]
mod live_driver_stats;
#[cfg(live)]
mod live_link_notify;
#[cfg(live)]
mod live_veth;
mod mlx5_lane_names;
#[cfg(live)]
mod netlink_golden;
#[cfg(live)]
mod netlink_histogram;
mod never_panics;
mod peer_link_loss;
mod pipeline_never_panics;
mod plots;
#[cfg(live)]
mod sampling_loop;
mod serve_connection_limits;
#[cfg(live)]
mod serve_error_counts;
mod serve_http_abuse;
mod serve_judge_window;
#[cfg(live)]
mod serve_live_veth;
mod serve_metrics;
mod serve_prometheus;
#[cfg(live)]
mod serve_rediscover;
mod serve_replay_stream;
mod serve_signals;
mod serve_tls;
mod sfputil_hexdump;
mod sysfs_fixtures;
mod trend;
mod trust_inputs;
mod trust_outputs;
mod verdicts_real;
