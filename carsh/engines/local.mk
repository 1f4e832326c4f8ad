# Adaptive engines (partition: 003; pipeline: 000). `+=` only.
