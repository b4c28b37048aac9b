"""Search by meaning: static embeddings of each entry and of each word, fused with the lexical
ranking (``service.search.ranking``). Off with ``MEMORY_SEMANTIC_SEARCH=off``."""

from service.search.semantic.model import EmbeddingModel, model_identity, shared_model
from service.search.semantic.query import Meaning, meaning_of
from service.search.semantic.user import UserMeaning

__all__ = ["EmbeddingModel", "Meaning", "UserMeaning", "meaning_of", "model_identity", "shared_model"]
