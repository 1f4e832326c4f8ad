# Swap pairs (IIR, Jacobi, LU, scenario index): flow-models, references, tests. `+=` only.
