"""Reports over one user's whole history: rotation (new tracks vs staples) and recurring feedback."""
