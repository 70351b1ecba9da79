//! Shell completions and man pages, generated from the clap definitions (so they say what
//! `--help` says).

use super::usage;
use clap::builder::{PossibleValue, StringValueParser, TypedValueParser, ValueHint};
use clap::{Arg, Args, Command, CommandFactory, ValueEnum};
use clap_complete::aot::{generate, Shell};
use std::ffi::OsStr;
use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum CompletionShell {
    Bash,
    Zsh,
    Fish,
}

/// Where each shell looks for completions (system-wide; the README gives per-user folders).
pub const COMPLETION_INSTALL: &str = "\
Install (each shell reads its own folder):
  bash  optics completions bash > /usr/share/bash-completion/completions/optics
  zsh   optics completions zsh > /usr/local/share/zsh/site-functions/_optics
  fish  optics completions fish > /usr/share/fish/vendor_completions.d/optics.fish";

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: CompletionShell,
}

#[derive(Args, Debug)]
pub struct ManArgs {
    /// The subcommand whose page to print (optics-scan(1) for `scan`); without it, optics(1).
    #[arg(value_name = "COMMAND", conflicts_with = "dir")]
    pub command: Option<String>,
    /// Write every page (optics.1 and one optics-COMMAND.1 per subcommand) into DIR, e.g.
    /// /usr/local/share/man/man1, instead of printing one.
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub dir: Option<PathBuf>,
}

/// clap has no value hint for a network interface. `Hostname` marks the arguments that
/// name a live port: no argument of optics takes a host name, and its completion actions
/// (`_hosts`, `__fish_print_hostnames`) are rewritten into each shell's interface lister.
pub const LIVE_INTERFACE: ValueHint = ValueHint::Hostname;

/// `--profile NAME`: any name (the config file's `node_profiles` adds its own), with the
/// built-in tiers offered to shell completion. Whether the name exists is known only
/// once the config file is read ([`super::check::CheckArgs::config`]).
#[derive(Clone, Copy, Debug)]
pub struct ProfileName;

impl TypedValueParser for ProfileName {
    type Value = String;

    fn parse_ref(&self, cmd: &Command, arg: Option<&Arg>, value: &OsStr) -> Result<String, clap::Error> {
        StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(optics::analysis::profile::BUILTIN_PROFILES.iter().map(|n| PossibleValue::new(*n))))
    }
}

pub fn completions(args: CompletionsArgs) -> anyhow::Result<()> {
    let text = completion_script(args.shell);
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// clap_complete's script for `shell`, with the arguments marked [`LIVE_INTERFACE`]
/// completing the names under /sys/class/net.
fn completion_script(shell: CompletionShell) -> String {
    let mut cmd = super::Cli::command();
    cmd.build();
    let mut raw = Vec::new();
    let target = match shell {
        CompletionShell::Bash => Shell::Bash,
        CompletionShell::Zsh => Shell::Zsh,
        CompletionShell::Fish => Shell::Fish,
    };
    generate(target, &mut cmd, "optics", &mut raw);
    // clap_complete writes its script as UTF-8 text from the command's own strings.
    let script = String::from_utf8_lossy(&raw).into_owned();
    let live = live_interface_args(&cmd);
    match shell {
        // zsh ships `_net_interfaces`.
        CompletionShell::Zsh => script.replace(":_hosts'", ":_net_interfaces'"),
        CompletionShell::Fish => fish_interfaces(script.replace("(__fish_print_hostnames)", "(__fish_print_interfaces)"), &live),
        CompletionShell::Bash => bash_interfaces(script, &live),
    }
}

/// One subcommand's arguments that name a live port, and the options that take a value
/// (after which a word is that option's value, not an interface).
struct LivePortArgs {
    subcommand: String,
    positional: bool,
    options: Vec<String>,
    valued_options: Vec<String>,
}

fn live_interface_args(cmd: &Command) -> Vec<LivePortArgs> {
    let longs = |args: &mut dyn Iterator<Item = &Arg>| args.filter_map(|a| a.get_long().map(|l| format!("--{l}"))).collect::<Vec<_>>();
    cmd.get_subcommands()
        .filter_map(|sub| {
            let marked: Vec<&Arg> = sub.get_arguments().filter(|a| a.get_value_hint() == LIVE_INTERFACE).collect();
            (!marked.is_empty()).then(|| LivePortArgs {
                subcommand: sub.get_name().to_string(),
                positional: marked.iter().any(|a| a.is_positional()),
                options: longs(&mut marked.iter().copied().filter(|a| !a.is_positional())),
                valued_options: longs(&mut sub.get_arguments().filter(|a| a.get_action().takes_values() && !a.is_positional())),
            })
        })
        .collect()
}

/// fish completes no positional argument from clap (clap_complete's fish generator):
/// the interface positionals are added here.
fn fish_interfaces(mut script: String, live: &[LivePortArgs]) -> String {
    for l in live.iter().filter(|l| l.positional) {
        // `writeln!` to a String cannot fail.
        let _ = writeln!(
            script,
            "complete -c optics -n \"__fish_optics_using_subcommand {}\" -f -a \"(__fish_print_interfaces)\"",
            l.subcommand
        );
    }
    script
}

/// bash: clap_complete's `_optics` completes file names where an interface is named; a
/// wrapper replaces them with the names under /sys/class/net.
fn bash_interfaces(mut script: String, live: &[LivePortArgs]) -> String {
    let mut cases = String::new();
    for l in live {
        for opt in &l.options {
            let _ = writeln!(cases, "        {},{opt}) COMPREPLY=( $(compgen -W \"${{ifaces[*]}}\" -- \"${{cur}}\") ) ;;", l.subcommand);
        }
        if l.positional {
            // Not an option, and not the value of one that takes a value.
            let _ = writeln!(
                cases,
                "        {},*) case \" {} \" in *\" ${{prev}} \"*) ;; *) [[ ${{cur}} == -* ]] || COMPREPLY+=( $(compgen -W \"${{ifaces[*]}}\" -- \"${{cur}}\") ) ;; esac ;;",
                l.subcommand,
                l.valued_options.join(" ")
            );
        }
    }
    let _ = write!(
        script,
        r#"
# Network interface names where a live port is named (clap has no hint for them).
_optics_interfaces() {{
    _optics "$@"
    local cur="${{COMP_WORDS[COMP_CWORD]}}" prev="${{COMP_WORDS[COMP_CWORD-1]}}"
    local ifaces=(/sys/class/net/*)
    ifaces=("${{ifaces[@]##*/}}")
    [[ ${{ifaces[0]}} == "*" ]] && return 0
    case "${{COMP_WORDS[1]}},${{prev}}" in
{cases}    esac
    return 0
}}
complete -F _optics_interfaces -o bashdefault -o default optics
"#
    );
    script
}

pub fn man(args: ManArgs) -> anyhow::Result<()> {
    let mut cmd = super::Cli::command().disable_help_subcommand(true);
    // Gives each subcommand its display name (optics-scan), which names its page.
    cmd.build();
    if let Some(dir) = &args.dir {
        std::fs::create_dir_all(dir).map_err(|e| anyhow::anyhow!("--dir {}: {e}", dir.display()))?;
        let mut out = std::io::stdout().lock();
        for page in std::iter::once(&cmd).chain(cmd.get_subcommands()) {
            let man = page_of(page.clone());
            let path = dir.join(man.get_filename());
            let mut roff = Vec::new();
            man.render(&mut roff)?;
            super::outputs::write_atomic("--dir", &path, &roff)?;
            writeln!(out, "{}", path.display())?;
        }
        out.flush()?;
        return Ok(());
    }
    let page = match &args.command {
        None => cmd,
        Some(name) => match cmd.find_subcommand(name) {
            Some(sub) => sub.clone(),
            None => {
                let names: Vec<&str> = cmd.get_subcommands().map(|s| s.get_name()).collect();
                return Err(usage(format!("no subcommand {name:?} (optics has: {})", names.join(", "))));
            }
        },
    };
    let mut out = std::io::stdout().lock();
    page_of(page).render(&mut out)?;
    out.flush()?;
    Ok(())
}

/// One man page; every page names the version (a subcommand has none of its own).
fn page_of(cmd: Command) -> clap_mangen::Man {
    clap_mangen::Man::new(cmd).source(format!("optics {}", env!("CARGO_PKG_VERSION")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_live_interface_arguments_are_the_ones_that_name_a_live_port() {
        let mut cmd = crate::cli::Cli::command();
        cmd.build();
        let live: Vec<(String, bool, Vec<String>)> =
            live_interface_args(&cmd).into_iter().map(|l| (l.subcommand, l.positional, l.options)).collect();
        let pos = |s: &str| (s.to_string(), true, Vec::new());
        assert_eq!(live, vec![pos("scan"), pos("watch"), ("decode".to_string(), false, vec!["--interface".to_string()]), pos("serve")]);
    }
}
