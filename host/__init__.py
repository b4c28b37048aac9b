"""Process hosting: the app assembly, the command line, the service's lifecycle, logs and metrics."""
