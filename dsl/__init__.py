"""What users write: kernels, hardware types and number formats."""
