"""Export of everything stored for a user, and import of an export back."""
