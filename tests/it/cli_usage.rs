//! The CLI as one piece: a man page per subcommand documenting every option, completions
//! that name profiles and interfaces, `--fail-on` only where it applies, and usage
//! mistakes exiting 2 (clap's convention) while analysis outcomes keep their codes.

use crate::support::optics;
use std::path::{Path, PathBuf};

fn capture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("captures").join(name)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The subcommands `optics --help` lists (clap's own `help` aside).
fn subcommands() -> Vec<String> {
    let help = text(&optics().arg("--help").output().unwrap().stdout);
    let at = help.find("Commands:").expect("a Commands section");
    help[at..]
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

/// Every `--long` option a subcommand's `--help` shows.
fn long_options(sub: &str) -> Vec<String> {
    let help = text(&optics().args([sub, "--help"]).output().unwrap().stdout);
    let mut out: Vec<String> = help
        .lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with('-'))
        .filter_map(|l| l.split([' ', ',']).find(|w| w.starts_with("--")).map(|w| w.split('=').next().unwrap().to_string()))
        .collect();
    out.dedup();
    out
}

#[test]
fn a_man_page_per_subcommand_documents_every_option() {
    let subs = subcommands();
    assert!(subs.len() >= 11 && subs.iter().any(|s| s == "scan"), "{subs:?}");
    for sub in &subs {
        let out = optics().args(["man", sub]).output().unwrap();
        assert!(out.status.success(), "man {sub}: {}", text(&out.stderr));
        let roff = text(&out.stdout);
        assert!(roff.contains(&format!(".TH optics-{sub} 1")), "man {sub}: {}", &roff[..200.min(roff.len())]);
        let options = long_options(sub);
        assert!(!options.is_empty(), "{sub}");
        for opt in options {
            // roff escapes each '-'.
            assert!(roff.contains(&opt.replace('-', "\\-")), "man {sub} lacks {opt}");
        }
    }
    // The main page names the subcommands' pages, which now exist.
    let main = text(&optics().arg("man").output().unwrap().stdout);
    assert!(main.contains(".TH optics 1") && main.contains("optics\\-scan(1)") && main.contains("Exit status"));
    let scan = text(&optics().args(["man", "scan"]).output().unwrap().stdout);
    assert!(scan.contains("Exit status"));
}

#[test]
fn man_dir_writes_every_page() {
    let dir = tempfile::tempdir().unwrap();
    let pages = dir.path().join("man1");
    let out = optics().args(["man", "--dir"]).arg(&pages).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut want: Vec<String> = subcommands().iter().map(|s| format!("optics-{s}.1")).collect();
    want.push("optics.1".into());
    want.sort();
    let mut have: Vec<String> = std::fs::read_dir(&pages).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    have.sort();
    assert_eq!(have, want);
    // Each path written is listed, one a line.
    assert_eq!(text(&out.stdout).lines().count(), want.len());
    let scan = std::fs::read_to_string(pages.join("optics-scan.1")).unwrap();
    assert!(scan.contains("\\-\\-fail\\-on") && scan.contains("\\-\\-profile"));
    // A subcommand that does not exist, or a page and --dir together: usage errors.
    let out = optics().args(["man", "sacn"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no subcommand \"sacn\""), "{}", text(&out.stderr));
    assert_eq!(optics().args(["man", "scan", "--dir"]).arg(&pages).output().unwrap().status.code(), Some(2));
}

/// Runs bash completion for the words typed so far (the last is the word being completed).
fn bash_complete(script: &Path, words: &[&str]) -> Vec<String> {
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let cword = words.len() - 1;
    let prog = format!(
        "source '{}'; COMP_WORDS=({}); COMP_CWORD={cword}; _optics_interfaces optics '{}' '{}'; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        script.display(),
        quoted.join(" "),
        words[cword],
        words[cword - 1]
    );
    let out = std::process::Command::new("bash").arg("-c").arg(prog).output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout).lines().map(str::to_string).collect()
}

#[test]
fn completions_name_profiles_and_interfaces_in_every_shell() {
    let dir = tempfile::tempdir().unwrap();
    let script = |shell: &str| {
        let out = optics().args(["completions", shell]).output().unwrap();
        assert!(out.status.success());
        text(&out.stdout)
    };
    let bash = dir.path().join("optics.bash");
    std::fs::write(&bash, script("bash")).unwrap();
    let st = std::process::Command::new("bash").arg("-n").arg(&bash).status().unwrap();
    assert!(st.success(), "bash -n rejects the completion script");
    // The built-in tiers, and this machine's interfaces (lo always exists).
    assert_eq!(bash_complete(&bash, &["optics", "scan", "--profile", ""]), ["100g", "200g", "400g", "800g"]);
    let ifaces: Vec<String> = std::fs::read_dir("/sys/class/net").unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    assert!(ifaces.iter().any(|i| i == "lo"));
    for sub in ["scan", "watch", "serve"] {
        let got = bash_complete(&bash, &["optics", sub, "l"]);
        assert!(got.iter().any(|w| w == "lo"), "{sub}: {got:?}");
        // After an option that takes a value, that value is completed, not an interface.
        let got = bash_complete(&bash, &["optics", sub, "--config", "l"]);
        assert!(!got.iter().any(|w| w == "lo"), "{sub} --config: {got:?}");
    }
    // An option word is still completed as an option.
    assert!(bash_complete(&bash, &["optics", "scan", "--rep"]).contains(&"--replay".to_string()));
    let zsh = script("zsh");
    assert!(zsh.contains("*::interfaces -- Interfaces to sample (names or ifindex)") && zsh.contains(":_net_interfaces'"), "zsh");
    assert!(zsh.contains(":NAME:(100g 200g 400g 800g)'"), "zsh profiles");
    assert!(!zsh.contains("_hosts"), "no argument of optics is a host name");
    let fish = script("fish");
    for sub in ["scan", "watch", "serve"] {
        assert!(fish.contains(&format!("__fish_optics_using_subcommand {sub}\" -f -a \"(__fish_print_interfaces)\"")), "fish {sub}");
    }
    assert!(fish.contains("-l profile") && fish.contains("100g\\t''"), "fish profiles");
    assert!(!fish.contains("hostnames"));
    // Where each shell looks for the script.
    let help = text(&optics().args(["completions", "--help"]).output().unwrap().stdout);
    for path in ["bash-completion/completions/optics", "zsh/site-functions/_optics", "vendor_completions.d/optics.fish"] {
        assert!(help.contains(path), "{path}: {help}");
    }
}

/// True when `shell` is installed; prints why the test skips it otherwise.
fn have_shell(shell: &str) -> bool {
    let found = std::process::Command::new(shell).args(["-c", "exit 0"]).output().is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("skipping {shell}: not installed (.ci/run installs Debian's {shell})");
    }
    found
}

/// What zsh's completion system offers for `line` (the last word being completed), with
/// compinit run and `script` sourced in an interactive zsh on a pty (support/zsh_complete.zsh).
fn zsh_complete(script: &Path, line: &str) -> Vec<String> {
    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/support/zsh_complete.zsh");
    let out = std::process::Command::new("timeout").args(["30", "zsh", "-f"]).arg(driver).arg(script).arg(line).output().unwrap();
    assert!(out.status.success(), "zsh completing {line:?}: {:?} {}", out.status, text(&out.stderr));
    text(&out.stdout).lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_string).collect()
}

/// What fish offers for `line` with `script` sourced (`complete -C`), the words only.
fn fish_complete(script: &Path, line: &str) -> Vec<String> {
    let prog = format!("source '{}'; complete -C '{line}'", script.display());
    let out = std::process::Command::new("timeout").args(["30", "fish", "--no-config", "-c", &prog]).output().unwrap();
    assert!(out.status.success(), "fish completing {line:?}: {:?} {}", out.status, text(&out.stderr));
    text(&out.stdout).lines().filter_map(|l| l.split('\t').next()).map(str::to_string).collect()
}

/// The generated zsh and fish completions loaded in the real shells: they complete the
/// subcommands and the `--profile` tiers (not only contain their text).
#[test]
fn completions_complete_subcommands_and_profiles_in_zsh_and_fish() {
    let dir = tempfile::tempdir().unwrap();
    let mut subs = subcommands();
    subs.sort();
    let tiers = ["100g", "200g", "400g", "800g"];
    let sorted = |mut v: Vec<String>| {
        v.sort();
        v.dedup();
        v
    };
    let with_profile: Vec<&String> = subs.iter().filter(|s| long_options(s).iter().any(|o| o == "--profile")).collect();
    assert!(with_profile.len() >= 2, "scan and watch take --profile: {with_profile:?}");
    for shell in ["zsh", "fish"] {
        if !have_shell(shell) {
            continue;
        }
        let out = optics().args(["completions", shell]).output().unwrap();
        assert!(out.status.success());
        let script = dir.path().join(format!("optics.{shell}"));
        std::fs::write(&script, &out.stdout).unwrap();
        let complete = |line: &str| if shell == "zsh" { zsh_complete(&script, line) } else { fish_complete(&script, line) };
        // Every subcommand (and clap's `help`), and a prefix narrows to its one.
        let got: Vec<String> = sorted(complete("optics ")).into_iter().filter(|w| w != "help").collect();
        assert_eq!(got, subs, "{shell}: `optics <TAB>`");
        assert_eq!(complete("optics sc"), ["scan"], "{shell}: `optics sc<TAB>`");
        // The built-in tiers after --profile, wherever it is taken.
        for sub in &with_profile {
            assert_eq!(sorted(complete(&format!("optics {sub} --profile "))), tiers, "{shell}: `optics {sub} --profile <TAB>`");
        }
        assert_eq!(complete("optics scan --profile 4"), ["400g"], "{shell}");
    }
}

#[test]
fn fail_on_worse_is_compare_only() {
    let scan_help = text(&optics().args(["scan", "--help"]).output().unwrap().stdout);
    let watch_help = text(&optics().args(["watch", "--help"]).output().unwrap().stdout);
    let compare_help = text(&optics().args(["compare", "--help"]).output().unwrap().stdout);
    assert!(!scan_help.contains("worse") && !watch_help.contains("worse"));
    assert!(compare_help.contains("worse"));
    let out = optics().args(["scan", "--fail-on", "worse", "--replay"]).arg(capture("sr4-200g-healthy.jsonl")).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("[possible values: investigate, reject]"), "{}", text(&out.stderr));
}

#[test]
fn usage_mistakes_exit_2_and_analysis_outcomes_keep_their_codes() {
    let healthy = capture("sr4-200g-healthy.jsonl");
    let marginal = capture("sr4-200g-lane4-marginal.jsonl");
    let code = |args: &[&str], cap: &Path| {
        let out = optics().args(args).arg(cap).output().unwrap();
        (out.status.code(), text(&out.stderr))
    };
    // Found by clap.
    let (c, err) = code(&["scan", "--check", "--json", "--replay"], &healthy);
    assert_eq!(c, Some(2), "{err}");
    assert!(err.contains("'--check' cannot be used with '--json'"), "{err}");
    assert_eq!(code(&["scan", "--check", "--fail-on", "reject", "--replay"], &healthy).0, Some(2));
    let (c, err) = code(&["export"], &healthy);
    assert_eq!(c, Some(2), "{err}");
    assert!(err.contains("<--csv <FILE>|--json <FILE>|--prometheus <FILE>>"), "{err}");
    // Found after parsing: a profile no config defines, a flag that does nothing here.
    for cmd in ["scan", "report"] {
        let args: &[&str] = if cmd == "scan" { &["scan", "--profile", "300g", "--replay"] } else { &["report", "--profile", "300g"] };
        let (c, err) = code(args, &healthy);
        assert_eq!(c, Some(2), "{cmd}: {err}");
        assert!(err.contains("no profile named \"300g\" (built in: 100g, 200g, 400g, 800g)"), "{err}");
    }
    let (c, err) = code(&["scan", "--window", "3s", "--replay"], &healthy);
    assert_eq!(c, Some(2), "{err}");
    assert!(err.contains("--window only applies when sampling the live system"), "{err}");
    let (c, _) = code(&["scan", "--from", "5", "--to", "1", "--replay"], &healthy);
    assert_eq!(c, Some(2));
    let out = optics().args(["scan", "--from", "5", "lo"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    // Analysis outcomes: an unreadable capture is an error (1), a verdict met is 3, and the
    // plugin's states are its own.
    assert_eq!(code(&["scan", "--replay"], Path::new("/nonexistent/c.jsonl")).0, Some(1));
    assert_eq!(code(&["scan", "--fail-on", "investigate", "--replay"], &marginal).0, Some(3));
    assert_eq!(code(&["scan", "--fail-on", "investigate", "--replay"], &healthy).0, Some(0));
    assert_eq!(code(&["scan", "--check", "--replay"], &marginal).0, Some(1));
}

#[test]
fn plot_kind_says_what_it_draws() {
    let help = text(&optics().args(["plot", "--help"]).output().unwrap().stdout);
    let kind = &help[help.find("--kind <KIND>").expect("--kind")..];
    let mut lines = kind.lines().skip(1).map(str::trim).filter(|l| !l.is_empty());
    assert_eq!(lines.next(), Some("What to draw"));
    for k in ["ber-vs-rx:", "margin-over-time:", "histogram:"] {
        assert!(kind.contains(k), "{k}");
    }
}

/// `--check` turns errors into the UNKNOWN plugin line (3), but a usage mistake is no
/// plugin state: it exits 2 wherever it is found, by clap or after parsing, with the
/// message on stderr and no status line.
#[test]
fn check_usage_mistakes_exit_2_wherever_found() {
    let healthy = capture("sr4-200g-healthy.jsonl");
    let after_parsing: [&[&str]; 4] = [
        &["scan", "--check", "--profile", "300g", "--replay"],
        &["scan", "--check", "--window", "3s", "--replay"],
        &["scan", "--check", "--from", "5", "--to", "1", "--replay"],
        &["watch", "--check", "--profile", "300g", "--replay"],
    ];
    let by_clap: [&[&str]; 2] = [&["scan", "--check", "--json", "--replay"], &["watch", "--check", "--fail-on", "reject", "--replay"]];
    for args in after_parsing.iter().chain(&by_clap) {
        let out = optics().args(*args).arg(&healthy).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out.stderr));
        assert!(out.stdout.is_empty(), "{args:?}: {}", text(&out.stdout));
        assert!(!text(&out.stderr).is_empty(), "{args:?}");
    }
    // Not a usage mistake: an unreadable capture stays UNKNOWN (3) with its status line.
    let out = optics().args(["scan", "--check", "--replay", "/nonexistent/c.jsonl"]).output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(text(&out.stdout).starts_with("OPTICS UNKNOWN - "), "{}", text(&out.stdout));
}

/// One style for every `--help` (and so every man page, generated from the same
/// definitions): each command says what it does with a verb; every option that takes a
/// value names what kind of value (never clap's `<WINDOW>` from the flag's own name);
/// durations are `<DURATION>` and say so with their units; defaults read `[default: ...]`.
#[test]
fn help_is_one_style() {
    const VERBS: [&str; 9] = ["Sample", "Compare", "Export", "Import", "Decode", "Serve", "Plot", "Write", "Print"];
    let help = text(&optics().arg("--help").output().unwrap().stdout);
    let at = help.find("Commands:").unwrap();
    for line in help[at..].lines().skip(1).take_while(|l| l.starts_with("  ")) {
        let mut words = line.split_whitespace();
        let (cmd, verb) = (words.next().unwrap(), words.next().unwrap_or(""));
        assert!(cmd == "help" || VERBS.contains(&verb), "{cmd}: {line:?}");
    }
    for sub in subcommands() {
        let short = text(&optics().args([&sub, "-h"]).output().unwrap().stdout);
        for line in short.lines().map(str::trim_start).filter(|l| l.starts_with("--") || l.starts_with("-")) {
            let Some(long) = line.split([' ', ',']).find(|w| w.starts_with("--")) else { continue };
            let value = line.split_once('<').and_then(|(_, r)| r.split_once('>')).map(|(v, _)| v);
            if let Some(v) = value {
                let from_flag = long.trim_start_matches("--").to_uppercase().replace('-', "_");
                // An enum's own name is fine where its values are listed (--duration, --dir: a kind by name).
                assert!(
                    v != from_flag || ["DURATION", "DIR"].contains(&v) || line.contains("[possible values:"),
                    "{sub} {long} <{v}>: name the kind of value"
                );
                if v == "DURATION" {
                    assert!(line.contains("a duration"), "{sub} {long}: say it is a duration and its units: {line}");
                }
            }
            for loose in ["Default:", "(default:", "by default", "Defaults are"] {
                assert!(!line.contains(loose), "{sub} {long}: defaults read [default: ...]: {line}");
            }
        }
    }
}
