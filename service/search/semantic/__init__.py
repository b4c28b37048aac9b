"""Search by meaning: static embeddings of each entry and of each word, fused with the lexical score."""
