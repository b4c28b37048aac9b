"""Every tool's declaration: name, title, description, hints, access and its adapter."""
