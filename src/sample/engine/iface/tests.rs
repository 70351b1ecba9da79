use super::*;

#[test]
fn rx_power_is_averaged_in_milliwatts() {
    // Lane 1: 1.0 mW and 0.1 mW -> mean 0.55 mW -> 10*log10(0.55) = -2.596 dBm
    // (the mean of 0 dBm and -10 dBm would wrongly be -5 dBm).
    // Lane 2: only one reading, 0.5 mW -> -3.0103 dBm. Lane 3: never read.
    let mut s = RxSums::default();
    s.add(&[Some(1.0), Some(0.5), None]);
    s.add(&[Some(0.1), None]);
    let r = s.mean_dbm(None);
    assert_eq!(r.len(), 3);
    assert!((r[0].unwrap() - (-2.5964)).abs() < 1e-3);
    assert!((r[1].unwrap() - (-3.0103)).abs() < 1e-3);
    assert_eq!(r[2], None);
    // Minus the first reading: lane 1 is 0.1 mW alone (-10 dBm), lane 2 has none left.
    let mut first = RxSums::default();
    first.add(&[Some(1.0), Some(0.5), None]);
    let r = s.mean_dbm(Some(&first));
    assert!((r[0].unwrap() + 10.0).abs() < 1e-9);
    assert_eq!(r[1], None);
}

#[test]
fn range_bounds_are_inclusive() {
    let r = TimeRange { from: Some(1.0), to: Some(2.0) };
    assert!(r.contains(1.0) && r.contains(2.0) && !r.contains(2.0001));
    assert!(TimeRange::whole().contains(1e9));
}
