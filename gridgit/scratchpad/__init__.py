"""Phase scratchpads (L2): entries, their index, and the locked store."""
