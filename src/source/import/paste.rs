//! A paste of several commands and their outputs in one file, as tickets and mails carry
//! them (`$ sudo ethtool net03`, its output, `$ sudo ethtool -m net03`, its output): each
//! command's output is a section read on its own, as the files of one folder are.

/// Commands at a prompt that start a section: the tools `optics import` reads (`dmesg` and
/// `journalctl -k` among them: the kernel log) and the shell commands pasted between them
/// (`grep`, ...), whose sections are then recognised by their content or skipped as of no
/// known format. A prompt line of any other word is part of the output it sits in
/// (a `# comment` above an output, a CLI's own prompt echoed inside a table).
const COMMANDS: &[&str] = &[
    "ethtool",
    "mlxlink",
    "lspci",
    "ibstat",
    "ibstatus",
    "perfquery",
    "ibdev2netdev",
    "show",
    "nv",
    "sfputil",
    "portstat",
    "lldpcli",
    "ip",
    "nvidia-smi",
    "uptime",
    "cat",
    "dmesg",
    "journalctl",
    "grep",
    "lsmod",
    "modinfo",
    "uname",
    "date",
    "sleep",
    "echo",
];

/// Most words of a prompt before its command (`[root@host ~]#` is two).
const MAX_PROMPT_WORDS: usize = 2;

/// The words of a command line from its command on (`["ethtool", "-m", "swp49"]`), and
/// whether a shell or CLI prompt came before it: a word ending in `$`, `#` or `>`
/// (`cumulus@switch:~$`, `[root@host ~]#`, `user@router>`), `sudo` skipped.
pub(crate) fn command_words(line: &str) -> Option<(Vec<&str>, bool)> {
    let words: Vec<&str> = line.split_whitespace().take(16).collect();
    let prompt_end = words.iter().take(MAX_PROMPT_WORDS).rposition(|w| w.ends_with(['$', '#', '>']));
    let from = prompt_end.map_or(0, |p| p + 1);
    let at = from + words[from..].iter().position(|w| *w != "sudo")?;
    Some((words[at..].to_vec(), prompt_end.is_some()))
}

/// `ethtool` or `/usr/sbin/ethtool`: the command's name without its path.
fn command_name(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// True when `line` is a command at a prompt that starts a section ([`COMMANDS`]).
fn starts_section(line: &str) -> bool {
    command_words(line).is_some_and(|(w, prompted)| prompted && COMMANDS.contains(&command_name(w[0])))
}

/// The sections of a paste of two or more commands, each from its command line to the
/// next (text before the first command, a mail's prose, is no section); `None` when the
/// text holds fewer than two command lines, so that it is read whole.
pub(crate) fn sections(text: &str) -> Option<Vec<&str>> {
    let mut starts = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        if starts_section(line) {
            starts.push(at);
        }
        at += line.len();
    }
    if starts.len() < 2 {
        return None;
    }
    let ends = starts.iter().skip(1).copied().chain([text.len()]);
    Some(starts.iter().zip(ends).map(|(&a, b)| &text[a..b]).collect())
}

/// The interface a pasted `ethtool` command line names: `cumulus@switch:~$ sudo ethtool -m
/// swp49`, `# ethtool -S ens3np0`, `ethtool -m ens1f0 hex on`. The device is ethtool's first
/// argument that is no option (`ethtool [FLAGS] -m DEVNAME [params]`, ethtool(8)); prose
/// that mentions ethtool mid-sentence does not count. Two command lines naming two devices
/// name none.
pub(crate) fn interface_from_command(text: &str) -> Option<String> {
    let mut named: Option<&str> = None;
    for line in text.lines().take(MAX_COMMAND_LINES).filter(|l| l.contains("ethtool")) {
        let Some((words, _)) = command_words(line) else { continue };
        if command_name(words[0]) != "ethtool" {
            continue;
        }
        let Some(dev) = words[1..].iter().find(|w| !w.starts_with('-')) else { continue };
        // IFNAMSIZ is 16 with its NUL; a name holds no '/' (net/core/dev.c dev_valid_name).
        if dev.len() > 15 || dev.contains(['/', ':']) {
            continue;
        }
        match named {
            Some(n) if n != *dev => return None,
            _ => named = Some(dev),
        }
    }
    named.map(str::to_string)
}

/// Lines searched for an `ethtool` command line: a paste keeps it at or near the top, and
/// a long output is not walked twice.
const MAX_COMMAND_LINES: usize = 4096;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_paste_splits_at_its_commands() {
        // The shape of a mail to intel-wired-lan (Message-ID
        // <ccff35f6-aded-414b-918a-c4e0f70dab62@molgen.mpg.de>): prose, then dmesg, then three
        // ethtool commands at a `$` prompt.
        let text = "Dear folks,\n\n$ dmesg | grep -i i40e\n[ 18.5] i40e: driver\n$ sudo ethtool net03\nSettings for net03:\n\tLink detected: no\n$ sudo ethtool -i net03\ndriver: i40e\n$ sudo ethtool -m net03\n\tIdentifier : 0x03 (SFP)\n";
        let s = sections(text).unwrap();
        assert_eq!(s.len(), 4);
        assert!(s[0].starts_with("$ dmesg"));
        assert_eq!(s[1], "$ sudo ethtool net03\nSettings for net03:\n\tLink detected: no\n");
        assert!(s[3].starts_with("$ sudo ethtool -m net03\n") && s[3].ends_with("(SFP)\n"));
        // One command, or comment lines above an output, are read whole.
        assert_eq!(sections("# ethtool -m swp11\n Identifier : 0x18\n"), None);
        assert_eq!(sections("# source: netdev\n# captured 2024\nNIC statistics:\n"), None);
        // A prompt of two words, a CLI's `>` and `#`.
        assert_eq!(
            sections("[root@h ~]# lspci -vvv\n00:00.0 Host\n[root@h ~]# ethtool -S eth0\nNIC statistics:\n").map(|s| s.len()),
            Some(2)
        );
        assert_eq!(
            sections("user@router> show interfaces diagnostics optics\nx\nswitch# show interfaces phy detail\ny\n").map(|s| s.len()),
            Some(2)
        );
    }

    #[test]
    fn pasted_command_lines_name_the_interface() {
        let named = interface_from_command;
        // Cumulus RMP 3.2.1's guide (CumulusNetworks/docs), netdev and intel-wired-lan pastes.
        assert_eq!(named("    cumulus@switch:~$ sudo ethtool -m swp49\n  Identifier : 0xff\n").as_deref(), Some("swp49"));
        assert_eq!(named(" # ethtool -m swp11\n").as_deref(), Some("swp11"));
        assert_eq!(named("[root@host ~]# /usr/sbin/ethtool -I --show-fec eth2\n").as_deref(), Some("eth2"));
        assert_eq!(named("$ ethtool --json -S ens3np0\n").as_deref(), Some("ens3np0"));
        assert_eq!(named("ethtool -m ens1f0 hex on offset 256\n").as_deref(), Some("ens1f0"));
        assert_eq!(named("# ethtool swp1\n# ethtool -m swp1\n").as_deref(), Some("swp1"));
        // Prose, an option without a device, two devices, a name no netdev can have.
        assert_eq!(named("Use ethtool -m to read the module.\n"), None);
        assert_eq!(named("$ ethtool --help\n"), None);
        assert_eq!(named("# ethtool -m swp1\n# ethtool -m swp2\n"), None);
        assert_eq!(named("# ethtool -m a_name_longer_than_15\n"), None);
        assert_eq!(named("Settings for eth0:\n"), None);
    }
}
