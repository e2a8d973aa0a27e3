//! ttnn-tui: explains TT-NN allocation failures from memory and performance reports.
