"""Vision: the detector (cloth model, lighting, change search, blobs to discs, refinement),
its compiled kernels and the colour classifier."""
