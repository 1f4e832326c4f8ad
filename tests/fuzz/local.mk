# Fuzz targets and hardening tests. `+=` only.
