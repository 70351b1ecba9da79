//! BER, Q, margin, ranking, flags, verdicts and comparisons: pure functions over samples.
