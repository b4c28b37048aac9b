"""The one call pipeline every tool, resource, prompt and page call passes."""
