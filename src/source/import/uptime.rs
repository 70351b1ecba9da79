//! Host uptime, for `--since-boot`: `/proc/uptime` (`12345.67 23456.78`: seconds up, idle)
//! or `uptime` (`10:15:01 up 12 days,  3:04,  2 users,  load average: ...`, procps
//! `sprint_uptime`: `N day(s)`, then `H:MM` or `M min`).

use super::{content_lines, Fragment, ParseError, ParseResult};

/// Seconds the host had been up.
pub(crate) fn parse(text: &str) -> ParseResult<f64> {
    let line =
        content_lines(text).map(str::trim).find(|l| !l.is_empty()).ok_or_else(|| ParseError::missing("uptime line (an empty file)"))?;
    let nums: Vec<f64> = line.split_whitespace().filter_map(|t| t.parse().ok()).collect();
    if nums.len() == 2 && line.split_whitespace().count() == 2 {
        return Ok(nums[0]);
    }
    let up = line
        .split_once(" up ")
        .map(|(_, r)| r)
        .filter(|_| line.contains("load average"))
        .ok_or_else(|| ParseError::malformed("not an uptime line"))?;
    let mut secs = 0.0;
    for part in up.split(',').map(str::trim) {
        if let Some(d) = part.strip_suffix(" days").or_else(|| part.strip_suffix(" day")) {
            secs += d.trim().parse::<f64>().map_err(|_| ParseError::malformed("bad day count"))? * 86_400.0;
        } else if let Some(m) = part.strip_suffix(" min") {
            secs += m.trim().parse::<f64>().map_err(|_| ParseError::malformed("bad minutes"))? * 60.0;
            break;
        } else if let Some((h, m)) = part.split_once(':') {
            secs += h.trim().parse::<f64>().map_err(|_| ParseError::malformed("bad hours"))? * 3600.0
                + m.trim().parse::<f64>().map_err(|_| ParseError::malformed("bad minutes"))? * 60.0;
            break;
        } else {
            break;
        }
    }
    Ok(secs)
}

pub(crate) fn parse_fragment(text: &str) -> ParseResult<Fragment> {
    Ok(Fragment { uptime_s: Some(parse(text)?), ..Default::default() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_forms() {
        assert_eq!(parse("350735.47 234388.90\n").unwrap(), 350735.47);
        // 12 days 3:04 = 12 x 86400 + 3 x 3600 + 4 x 60 = 1047840 s.
        assert_eq!(parse(" 10:15:01 up 12 days,  3:04,  2 users,  load average: 0.00, 0.01, 0.05\n").unwrap(), 1_047_840.0);
        assert_eq!(parse(" 10:15:01 up 7 min,  1 user,  load average: 0.00, 0.01, 0.05\n").unwrap(), 420.0);
        assert!(parse("hello").is_err());
    }
}
