//! File formats a user may hand `optics decode` (TODO: being written).
