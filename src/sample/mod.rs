//! Sampling over time, counter deltas (resets, wraps), capture recording and replay.
