//! The states of the CMIS state machines, as one vocabulary for the decoder and every tool
//! printout that names them: the module state (CMIS 5.2 Table 8-7, lower memory byte 3 bits
//! 3-1) and each host lane's data path state (CMIS 5.2 page 11h, DPStateHostLane, 4 bits a
//! lane). A state is written as the spec's name (`ModuleReady`, `DPActivated`), a code the
//! spec reserves as `Reserved (N)`: that text is the contract of the JSON and the capture
//! format.

use serde::{Serialize, Serializer};
use std::fmt;

/// One enum per state machine: its named codes, `Reserved(code)` for the rest, the field
/// value both ways, the spec's names both ways, and the written text.
macro_rules! cmis_states {
    ($(#[$doc:meta])* $t:ident { $($(#[$vdoc:meta])* $v:ident = $code:literal $name:literal,)* }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $t {
            $($(#[$vdoc])* $v,)*
            /// A code the spec reserves, as read.
            Reserved(u8),
        }

        impl $t {
            /// The state the field value `code` encodes.
            pub const fn from_code(code: u8) -> Self {
                match code {
                    $($code => $t::$v,)*
                    c => $t::Reserved(c),
                }
            }

            /// The field value.
            pub const fn code(self) -> u8 {
                match self {
                    $($t::$v => $code,)*
                    $t::Reserved(c) => c,
                }
            }

            /// The spec's name; `None` for a reserved code.
            pub const fn name(self) -> Option<&'static str> {
                match self {
                    $($t::$v => Some($name),)*
                    $t::Reserved(_) => None,
                }
            }

            /// The state written as `text`: the spec's name (as ethtool and SONiC print it)
            /// or `Reserved (N)`; `None` for any other text.
            pub fn from_name(text: &str) -> Option<Self> {
                match text {
                    $($name => Some($t::$v),)*
                    _ => reserved_code(text).map(Self::from_code),
                }
            }
        }

        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self.name() {
                    Some(name) => f.write_str(name),
                    None => write!(f, "Reserved ({})", self.code()),
                }
            }
        }

        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }
    };
}

cmis_states! {
    /// A CMIS module's state (CMIS 5.2 Table 8-7, ModuleState).
    ModuleState {
        /// ModuleLowPwr: powered, management only; no data path runs (CMIS 5.2 6.3.2).
        LowPwr = 1 "ModuleLowPwr",
        /// ModulePwrUp: on the way to high power.
        PwrUp = 2 "ModulePwrUp",
        /// ModuleReady: the one state in which data paths carry traffic.
        Ready = 3 "ModuleReady",
        /// ModulePwrDn: on the way back to low power.
        PwrDn = 4 "ModulePwrDn",
        /// ModuleFault: shut down on a fault of its own.
        Fault = 5 "ModuleFault",
    }
}

cmis_states! {
    /// A CMIS host lane's data path state (CMIS 5.2 page 11h, DPStateHostLane).
    DataPathState {
        /// DPDeactivated: the host has not activated the data path.
        Deactivated = 1 "DPDeactivated",
        /// DPInit: initialising.
        Init = 2 "DPInit",
        /// DPDeinit: deinitialising.
        Deinit = 3 "DPDeinit",
        /// DPActivated: the one state in which the lane carries its data path.
        Activated = 4 "DPActivated",
        /// DPTxTurnOn: transmitters turning on.
        TxTurnOn = 5 "DPTxTurnOn",
        /// DPTxTurnOff: transmitters turning off.
        TxTurnOff = 6 "DPTxTurnOff",
        /// DPInitialized: initialised, transmitters off.
        Initialized = 7 "DPInitialized",
    }
}

/// `N` of `Reserved (N)`.
fn reserved_code(text: &str) -> Option<u8> {
    text.strip_prefix("Reserved (")?.strip_suffix(')')?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_states_are_cmis_table_8_7() {
        // CMIS 5.2 Table 8-7: 001b ModuleLowPwr ... 101b ModuleFault; 000b, 110b, 111b reserved.
        let named = [(1, "ModuleLowPwr"), (2, "ModulePwrUp"), (3, "ModuleReady"), (4, "ModulePwrDn"), (5, "ModuleFault")];
        for code in 0..8u8 {
            let state = ModuleState::from_code(code);
            assert_eq!(state.code(), code);
            let text = match named.iter().find(|(c, _)| *c == code) {
                Some((_, name)) => name.to_string(),
                None => format!("Reserved ({code})"),
            };
            assert_eq!(state.to_string(), text);
            assert_eq!(serde_json::to_string(&state).unwrap(), format!("\"{text}\""));
            assert_eq!(ModuleState::from_name(&text), Some(state));
        }
        assert_eq!(ModuleState::Ready, ModuleState::from_code(3));
        assert_eq!(ModuleState::from_name("reserved or unknown"), None);
        assert_eq!(ModuleState::from_name("Reserved (x)"), None);
    }

    #[test]
    fn data_path_states_are_cmis_page_11h() {
        let named = ["DPDeactivated", "DPInit", "DPDeinit", "DPActivated", "DPTxTurnOn", "DPTxTurnOff", "DPInitialized"];
        for code in 0..16u8 {
            let state = DataPathState::from_code(code);
            assert_eq!(state.code(), code);
            let text = match code {
                1..=7 => named[usize::from(code) - 1].to_string(),
                _ => format!("Reserved ({code})"),
            };
            assert_eq!(state.to_string(), text);
            assert_eq!(serde_json::to_string(&state).unwrap(), format!("\"{text}\""));
            assert_eq!(DataPathState::from_name(&text), Some(state));
        }
        assert_eq!(DataPathState::from_code(4), DataPathState::Activated);
    }
}
