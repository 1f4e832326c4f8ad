# pack: scenario-based single-kernel packing (004 §5.3). `+=` only.
