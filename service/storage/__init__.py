"""Storage engines behind one interface: real MongoDB (motor) or the embedded store."""
