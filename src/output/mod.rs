//! Output writers (text, JSON, CSV) over the same analysed data.
